/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of CAN_RAW shared by its files: the socket (socket.c), its
 * options (sockopt.c), the bus state option (state.c) and the sysctl
 * (sysctl.c).
 */

#ifndef _NET_CAN_RAW_PRIV_H
#define _NET_CAN_RAW_PRIV_H

#include <linux/can.h>
#include <linux/can/core.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/sockptr.h>
#include <net/sock.h>

#define RAW_MIN_NAMELEN CAN_REQUIRED_SIZE(struct sockaddr_can, can_ifindex)

/* The frame last handed to this socket on one CPU. A socket whose filters
 * overlap sees the same skb once per match, back to back on the CPU that
 * dispatches it; this is how it delivers the frame once (or, with joined
 * filters, only once every filter matched).
 */
struct raw_last_frame {
	const struct sk_buff *skb;
	int skbcnt;
	unsigned int matches;
};

/**
 * struct raw_sock - a CAN_RAW socket
 * @sk: the socket, first so that the two convert
 * @node: link in the list of sockets bound to one device, which the device
 *	notifier walks; empty while the socket is unbound or bound to all
 * @ifindex: bound interface, 0 for all
 * @bound: bind() succeeded and the filters are registered
 * @loopback: CAN_RAW_LOOPBACK
 * @recv_own_msgs: CAN_RAW_RECV_OWN_MSGS
 * @fd_frames: CAN_RAW_FD_FRAMES
 * @xl_frames: CAN_RAW_XL_FRAMES (implies @fd_frames)
 * @join_filters: CAN_RAW_JOIN_FILTERS
 * @count: number of filters in @filter
 * @filter: the filters; points to @one_filter when @count is at most 1
 * @one_filter: storage for a single filter, the common case
 * @err_mask: the error classes subscribed to: @asked_err_mask, and the
 *	state classes too while @state_events is on
 * @last: per-CPU duplicate detection, read by raw_rcv(); NULL while the
 *	socket cannot see a frame twice (see raw_track_repeats())
 * @tracks_repeats: @last is set and no frame that missed it is still
 *	being delivered; never cleared
 * @lock: the binding and the subscriptions, see below
 * @asked_err_mask: CAN_RAW_ERR_FILTER as the user set it
 * @state_events: CAN_RAW_STATE_EVENTS: state changes arrive even when
 *	@asked_err_mask lacks their class
 * @tx_wait: CAN_RAW_TX_WAIT: sendmsg() waits for room in the device's TX
 *	queue instead of failing with ENOBUFS (EAGAIN if it may not wait)
 * @tx_wait_poll: poll() reports POLLOUT only while the device has room;
 *	set with @tx_wait by setsockopt() only, never by the sysctl
 * @tx_room: poll()'s entry in the bound device's TX wait queue, which
 *	wakes the socket's pollers when the device reports room; queued
 *	while @tx_room_dev is set
 * @tx_room_dev: the device whose queue holds @tx_room, always the bound
 *	one; set by poll() and cleared with the binding, under @lock only
 * @tx_report: CAN_RAW_TX_REPORT
 * @tx_deadline_us: CAN_RAW_TX_DEADLINE
 * @tx_flush_bus_off: CAN_RAW_TX_FLUSH_BUS_OFF
 * @tx_seq: the number of the next reported frame
 * @tx_reports_lost: CAN_RAW_TX_REPORTS_LOST
 *
 * The binding (@node, @ifindex, @bound) and the subscriptions (@count,
 * @filter, @one_filter, @err_mask) change under rtnl_lock() and @lock, in
 * that order, so holding either one keeps them stable. @lock is a mutex
 * taken in process context only: by bind(), the filter options, release()
 * and the device notifier (under RTNL). It is never held across an access
 * to user memory, nor while waiting for anything but rtnl_lock(): filters
 * are copied in before it is taken and out after it is dropped. The socket
 * lock is not ours to rely on: the socket core holds it while it copies a
 * program from user memory (SO_ATTACH_FILTER), for as long as a stalled
 * page fault lasts, so the notifier must never wait for it. Here it only
 * keeps the frame-type flags consistent, and is never taken under RTNL.
 *
 * raw_rcv(), sendmsg() and getname() read the flags, @count and @ifindex
 * without locks; a change takes effect with the next frame. So do
 * sendmsg() and poll() with @tx_wait, and sendmsg() with the other
 * @tx_* options.
 */
struct raw_sock {
	struct sock sk;
	struct mutex lock; /* binding, subscriptions; process context */
	struct list_head node;
	int ifindex;
	bool bound;
	bool tracks_repeats;
	int count;
	struct can_filter *filter;
	int join_filters;
	int fd_frames;
	int xl_frames;
	int loopback;
	int recv_own_msgs;
	struct can_filter one_filter;
	can_err_mask_t err_mask;
	can_err_mask_t asked_err_mask;
	int state_events;
	int tx_wait;
	int tx_wait_poll;
	struct wait_queue_entry tx_room;
	struct net_device *tx_room_dev;
	int tx_report;
	u32 tx_deadline_us;
	int tx_flush_bus_off;
	atomic_t tx_seq;
	atomic_t tx_reports_lost;
	struct raw_last_frame __percpu *last;
};

static inline struct raw_sock *raw_sk(const struct sock *sk)
{
	return container_of(sk, struct raw_sock, sk);
}

/* Subscribing and unsubscribing filters; the caller holds rtnl_lock() and
 * raw_sock.lock. @dev is NULL for all devices.
 */
int raw_subscribe(struct net *net, struct net_device *dev, struct sock *sk,
		  const struct can_filter *filter, int count);
void raw_unsubscribe(struct net *net, struct net_device *dev, struct sock *sk,
		     const struct can_filter *filter, int count);
int raw_subscribe_errors(struct net *net, struct net_device *dev,
			 struct sock *sk, can_err_mask_t err_mask);
void raw_unsubscribe_errors(struct net *net, struct net_device *dev,
			    struct sock *sk, can_err_mask_t err_mask);
struct net_device *raw_bound_dev(struct sock *sk);
int raw_lock_for_change(struct sock *sk, bool binding);
void raw_unlock_change(struct sock *sk);
void raw_rcv(struct sk_buff *oskb, void *data);

/* state.c */
int raw_get_bus_state(struct sock *sk, char __user *optval,
		      int __user *optlen, int len);

/* sysctl.c */
int raw_tx_wait_default(struct net *net);
int raw_sysctl_register(void);
void raw_sysctl_unregister(void);

int raw_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen);
int raw_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen);

#endif /* _NET_CAN_RAW_PRIV_H */
