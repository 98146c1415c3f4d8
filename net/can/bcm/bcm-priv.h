/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the CAN broadcast manager shared between its files: the
 * socket, the operation (one cyclic transmission or one receive filter),
 * the request being served, and what each file offers the others.
 */

#ifndef _NET_CAN_BCM_PRIV_H
#define _NET_CAN_BCM_PRIV_H

#include <linux/can.h>
#include <linux/can/bcm.h>
#include <linux/can/core.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <net/sock.h>

/* The multiplex index is one byte, so one operation has 256 frames. */
#define BCM_MAX_FRAMES		256
/* A receive filter carries the multiplex mask in front of those. */
#define BCM_MAX_RX_FRAMES	(BCM_MAX_FRAMES + 1)
/* Intervals above 400 days are refused. */
#define BCM_MAX_TIMER_SEC	(400 * 24 * 60 * 60)

#define BCM_HEAD_SIZE		sizeof(struct bcm_msg_head)
#define BCM_ADDR_MIN_LEN	CAN_REQUIRED_SIZE(struct sockaddr_can, can_ifindex)

/* Receive slot states, in struct bcm_rx.slot */
#define BCM_SLOT_SEEN		BIT(0)	/* last[] holds a received frame */
#define BCM_SLOT_PENDING	BIT(1)	/* a change waits for the throttle */

/**
 * struct bcm_ops - the operations of one kind that a socket holds
 * @list: all of them, newest first; an RCU list, changed under
 *	bcm_sock.lock, walked under rcu_read_lock() by /proc
 * @buckets: index by identifier and interface once there are more than a
 *	few, else NULL (see index.c); bcm_sock.lock
 * @bits: the index has 2^@bits buckets
 * @count: operations on @list
 * @sk: the owning socket, whose bcm_sock.lock the rules above name
 */
struct bcm_ops {
	struct list_head list;
	struct hlist_head *buckets;
	unsigned int bits;
	unsigned int count;
	struct sock *sk;
};

/**
 * struct bcm_sock - a CAN_BCM socket
 * @sk: the socket, first so that the core's sk allocation fits
 * @lock: serialises requests, connect(), release() and the netdevice
 *	notifier on this socket; see below
 * @bound: connect() succeeded; written under @lock, read without it
 *	(READ_ONCE) by sendmsg's early check and the netdevice notifier
 * @busy: a connect() or sendmsg() is under way and may be taking a device
 *	by its index; written under @lock, read by the notifier
 * @ifindex: the connected interface, 0 for all; written under @lock,
 *	read without it (READ_ONCE) by the notifier
 * @tx_ops: cyclic transmissions
 * @rx_ops: receive filters
 * @node: entry in the list the netdevice notifier walks, under
 *	bcm_sockets_lock
 * @dropped: replies lost because the receive queue was full or no
 *	memory was left; bumped from any context
 * @pde: this socket's /proc/net/can-bcm entry; @lock
 * @procname: the entry's name, the socket's inode number
 *
 * @lock is a mutex, taken in process context only. The netdevice
 * notifier takes it with RTNL held (lock order: RTNL, bcm_sockets_lock,
 * @lock, then an operation's spinlock), so it is never held across an
 * access to user memory (a request's frames are copied in before it is
 * taken) nor while waiting for anything a user controls. BCM does not use
 * the socket lock at all: the socket core holds that one while it copies
 * from user memory (SO_ATTACH_FILTER), as long as a user stalls the page.
 */
struct bcm_sock {
	struct sock sk;
	struct mutex lock; /* see above; process context */
	bool bound;
	bool busy;
	int ifindex;
	struct bcm_ops tx_ops;
	struct bcm_ops rx_ops;
	struct list_head node;
	atomic_long_t dropped;
	struct proc_dir_entry *pde;
	char procname[24];
};

static inline struct bcm_sock *bcm_sk(const struct sock *sk)
{
	return container_of(sk, struct bcm_sock, sk);
}

/**
 * struct bcm_rx - the receive side of an operation
 * @last: per slot, the last frame that was reported or is pending
 * @slot: per slot, BCM_SLOT_* bits
 * @throttle: ends a throttle period (ival2) and flushes pending slots
 * @last_report: when the last unthrottled RX_CHANGED went out, 0 if the
 *	throttle is idle
 * @throttling: @throttle is armed or its callback has yet to take the
 *	lock; cleared only by the callback (or a setup that cancelled it),
 *	so a change seen while it is set is sure to be flushed
 * @stamp: receive time of the latest matching frame, for RX_CHANGED
 * @claimed_ifindex: a filter on all interfaces that runs timers follows
 *	the first interface it hears from; 0 until then
 * @dev: the device the filter is registered on, NULL for all interfaces
 *	or after the device went away; changed under bcm_sock.lock
 * @dev_tracker: tracks the reference held in @dev
 *
 * All fields but @dev are protected by the operation's lock.
 */
struct bcm_rx {
	struct canfd_frame *last;
	u8 *slot;
	struct hrtimer throttle;
	ktime_t last_report;
	bool throttling;
	ktime_t stamp;
	int claimed_ifindex;
	struct net_device *dev;
	netdevice_tracker dev_tracker;
};

/**
 * struct bcm_op - one cyclic transmission or one receive filter
 * @list: entry in the list of bcm_sock.tx_ops or .rx_ops
 * @by_id: entry in the index of the same, if it has one
 * @rcu: frees the operation once lockless readers are gone
 * @bo: the owning socket; valid while @dead is false (checked under @lock)
 *	or while the caller holds the socket's bcm_sock.lock
 * @can_id: identifier that names the operation, fixed
 * @ifindex: interface it sends on or listens to, 0 for all; fixed
 * @is_fd: the frames are CAN FD frames; fixed
 * @cfsiz: size of one frame in user messages; fixed
 * @capacity: frames the arrays below have room for; fixed
 * @lock: protects everything below it; taken in process context with
 *	BHs off, in the receive softirq and in the timer callbacks. Fields
 *	that only sendmsg changes are written under both bcm_sock.lock and
 *	@lock, so they may be read under either.
 * @dead: set once, when the operation is removed; the receive callback
 *	bails out when it sees it
 * @flags: the flags of the last setup request
 * @count: frames still to send at @ival1
 * @nframes: frames in use, at most @capacity
 * @ival1: first interval (TX) or receive timeout (RX), as the user gave it
 * @ival2: later interval (TX) or throttle time (RX), as the user gave it
 * @kt_ival1: @ival1 as ktime_t
 * @kt_ival2: @ival2 as ktime_t
 * @next_frame: TX, index of the frame the next transmission takes
 * @reply_ifindex: interface named in the address of replies
 * @frames_seen: frames sent (TX) or received and matched (RX); plain
 *	counters, as the per-frame path holds @lock anyway
 * @frames_reported: RX, RX_CHANGED messages produced
 * @frames: the frames to send, or the filter (mask, then mux values)
 * @timer: TX cycle, or RX timeout
 * @rx: receive state, unused for TX operations
 * @storage: the frame arrays the pointers above point into
 */
struct bcm_op {
	struct list_head list;
	struct hlist_node by_id;
	struct rcu_head rcu;
	struct bcm_sock *bo;
	canid_t can_id;
	int ifindex;
	bool is_fd;
	unsigned int cfsiz;
	u32 capacity;

	spinlock_t lock; /* the fields below; process (BHs off), softirq */
	bool dead;
	u32 flags;
	u32 count;
	u32 nframes;
	struct bcm_timeval ival1, ival2;
	ktime_t kt_ival1, kt_ival2;
	u32 next_frame;
	int reply_ifindex;
	unsigned long frames_seen;
	unsigned long frames_reported;
	struct canfd_frame *frames;
	struct hrtimer timer;
	struct bcm_rx rx;

	struct canfd_frame storage[];
};

/**
 * struct bcm_request - one message written to a BCM socket
 * @head: the message head, already copied in
 * @msg: the frames behind the head, copied into the kernel before
 *	bcm_sock.lock was taken; reading past them gives -EFAULT
 * @size: total length of the message
 * @ifindex: the interface the request applies to
 * @cfsiz: size of each frame in the message
 */
struct bcm_request {
	struct bcm_msg_head head;
	struct msghdr *msg;
	size_t size;
	int ifindex;
	unsigned int cfsiz;
};

static inline unsigned int bcm_frame_size(u32 flags)
{
	return flags & CAN_FD_FRAME ? CANFD_MTU : CAN_MTU;
}

/* op.c */
bool bcm_timers_valid(const struct bcm_msg_head *head);
void bcm_op_set_timers(struct bcm_op *op, const struct bcm_msg_head *head);
struct bcm_op *bcm_op_alloc(struct bcm_sock *bo,
			    const struct bcm_request *req, bool is_rx);
void bcm_op_free(struct bcm_op *op);
void bcm_op_destroy(struct bcm_ops *ops, struct bcm_op *op);
int bcm_frames_copy_in(const struct bcm_request *req,
		       struct canfd_frame *frames, u32 n, bool check_len);
struct canfd_frame *bcm_frames_from_msg(const struct bcm_request *req,
					u32 n, bool check_len);
void bcm_report(struct bcm_op *op, u32 opcode,
		const struct canfd_frame *frames, u32 nframes, bool stamped);
int bcm_op_read(struct bcm_ops *ops, const struct bcm_request *req,
		u32 opcode);

/* index.c */
void bcm_ops_init(struct bcm_ops *ops, struct sock *sk);
void bcm_ops_add(struct bcm_ops *ops, struct bcm_op *op);
void bcm_ops_del(struct bcm_ops *ops, struct bcm_op *op);
struct bcm_op *bcm_ops_find(struct bcm_ops *ops,
			    const struct bcm_request *req);
void bcm_ops_destroy(struct bcm_ops *ops);
bool bcm_ops_use_ifindex(struct bcm_ops *ops, int ifindex);

/* tx.c */
int bcm_tx_setup(struct bcm_sock *bo, struct bcm_request *req);
int bcm_tx_delete(struct bcm_sock *bo, const struct bcm_request *req);
int bcm_tx_send(struct bcm_sock *bo, const struct bcm_request *req);
struct sk_buff *bcm_tx_build(struct bcm_op *op,
			     const struct canfd_frame *cf);
int bcm_tx_xmit(struct sk_buff *skb);
void bcm_tx_dev_gone(struct bcm_sock *bo, struct net_device *dev);

/* rx.c */
int bcm_rx_setup(struct bcm_sock *bo, struct bcm_request *req);
int bcm_rx_delete(struct bcm_sock *bo, const struct bcm_request *req);
void bcm_rx_unregister(struct bcm_op *op);
void bcm_rx_dev_gone(struct bcm_sock *bo, struct net_device *dev);
void bcm_rx_drop_claims(struct bcm_sock *bo, int ifindex);

/**
 * struct bcm_net - what the BCM keeps per network namespace
 * @proc_dir: /proc/net/can-bcm, or NULL; set and cleared by the pernet
 *	operations, read by sockets of the namespace
 */
struct bcm_net {
	struct proc_dir_entry *proc_dir;
};

/* socket.c */
extern unsigned int bcm_net_id;

/* proc.c, or nothing without procfs */
#if IS_ENABLED(CONFIG_PROC_FS)
int bcm_proc_net_init(struct net *net);
void bcm_proc_net_exit(struct net *net);
int bcm_proc_sock_add(struct bcm_sock *bo);
void bcm_proc_sock_remove(struct bcm_sock *bo);
#else
static inline int bcm_proc_net_init(struct net *net)
{
	return 0;
}

static inline void bcm_proc_net_exit(struct net *net)
{
}

static inline int bcm_proc_sock_add(struct bcm_sock *bo)
{
	return 0;
}

static inline void bcm_proc_sock_remove(struct bcm_sock *bo)
{
}
#endif

#endif /* _NET_CAN_BCM_PRIV_H */
