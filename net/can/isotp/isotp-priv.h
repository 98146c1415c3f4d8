/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of CAN_ISOTP shared by its files: the socket (socket.c,
 * sockopt.c), the frame layout (pdu.c), the two state machines (tx.c,
 * rx.c) and their timers (timer.c).
 */

#ifndef _NET_CAN_ISOTP_PRIV_H
#define _NET_CAN_ISOTP_PRIV_H

#include <linux/can.h>
#include <linux/can/isotp.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/sockptr.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <net/sock.h>

/* Longest message in either direction, as mainline. */
#define ISOTP_MAX_MSG_LEN	66000

#define ISOTP_MIN_NAMELEN CAN_REQUIRED_SIZE(struct sockaddr_can, can_addr.tp)

/* Protocol control information: the high nibble of the first byte */
#define ISOTP_PCI_SF		0x00
#define ISOTP_PCI_FF		0x10
#define ISOTP_PCI_CF		0x20
#define ISOTP_PCI_FC		0x30

/* Flow status of a flow control frame: the low nibble */
#define ISOTP_FS_CTS		0
#define ISOTP_FS_WAIT		1
#define ISOTP_FS_OVERFLOW	2

#define ISOTP_FC_LEN		3	/* flow status, block size, STmin */

/* How long a sender waits for flow control (N_Bs), a receiver for the
 * next consecutive frame (N_Cr), and a sender for its own frame to come
 * back from the device (N_As); mainline's values.
 */
#define ISOTP_FC_TIMEOUT	(1 * NSEC_PER_SEC)
#define ISOTP_CF_TIMEOUT	(1 * NSEC_PER_SEC)
#define ISOTP_ECHO_TIMEOUT	(2 * NSEC_PER_SEC)

#define ISOTP_BROADCAST_FLAGS	(CAN_ISOTP_SF_BROADCAST | CAN_ISOTP_CF_BROADCAST)
#define ISOTP_CHECK_PAD_FLAGS	(CAN_ISOTP_CHK_PAD_LEN | CAN_ISOTP_CHK_PAD_DATA)

enum isotp_tx_state {
	ISOTP_TX_IDLE,
	ISOTP_TX_WAIT_FIRST_FC,	/* first frame sent, flow control sets BS/STmin */
	ISOTP_TX_WAIT_FC,	/* a block is done, or the peer said wait */
	ISOTP_TX_SENDING,	/* consecutive frames (or the SF) on their way */
};

enum isotp_rx_state {
	ISOTP_RX_IDLE,
	ISOTP_RX_WAIT_CF,	/* first frame taken, consecutive frames due */
};

/**
 * struct isotp_timer - an hrtimer whose expiry may be stale
 * @hrt: the timer, run in softirq context
 * @armed: set when armed, cleared when stopped or when its expiry is
 *	acted upon; under the socket's lock
 *
 * Timers are stopped under the socket's lock, where hrtimer_cancel()
 * would deadlock against a callback waiting for that lock; a callback
 * that got the lock after its timer was stopped or re-armed sees that
 * through isotp_timer_fired() and does nothing.
 */
struct isotp_timer {
	struct hrtimer hrt;
	bool armed;
};

/* The message being sent. */
struct isotp_tx {
	enum isotp_tx_state state;
	u8 *buf;
	unsigned int len;
	unsigned int idx;
	u8 sn;
	u8 bs_count;
	u8 peer_bs;
	u32 echo_tag;
	ktime_t gap;
	struct isotp_tx_waiter *waiter;
};

/* The message being received. */
struct isotp_rx {
	enum isotp_rx_state state;
	u8 *buf;
	unsigned int len;
	unsigned int idx;
	u8 sn;
	u8 bs_count;
	u8 ll_dl;
	ktime_t last_cf;
};

/**
 * struct isotp_tx_waiter - a sendmsg() waiting for its message to be sent
 * @err: 0 or the positive errno the transfer ended with
 * @done: the transfer ended; @err is valid
 */
struct isotp_tx_waiter {
	int err;
	bool done;
};

/**
 * struct isotp_sock - a CAN_ISOTP socket
 * @sk: the socket, first so that the two convert
 * @config_lock: the options and the binding; see below
 * @node: link in the list of bound sockets the device notifier walks
 * @lock: protects @tx, @rx, the timers' @armed, @dev and @dead; taken in
 *	softirq context by the receive callbacks and the timers, and with
 *	bottom halves disabled in process context
 * @dev: bound device, with a reference; NULL while unbound
 * @dead: release() began; no timer may be armed any more
 * @ifindex: bound interface, 0 while unbound
 * @bound: bind() succeeded
 * @rxid: identifier received on (mainline's rx_id)
 * @txid: identifier sent with
 * @opt: CAN_ISOTP_OPTS as set
 * @rxfc: CAN_ISOTP_RECV_FC: what our flow control frames say
 * @ll: CAN_ISOTP_LL_OPTS
 * @frame_txtime: ns of N_As added to every gap
 * @force_tx_stmin: CAN_ISOTP_TX_STMIN in ns
 * @force_rx_stmin: CAN_ISOTP_RX_STMIN in ns
 * @tx: the transfer out
 * @rx: the transfer in
 * @fc_timer: waits for flow control (N_Bs)
 * @echo_timer: waits for a sent frame to come back (N_As)
 * @gap_timer: separation time before the next consecutive frame
 * @rx_timer: waits for the next consecutive frame (N_Cr)
 * @wait: sendmsg() and release() wait here for the transfer to end
 *
 * The options and the binding change under @config_lock (and rtnl_lock()
 * before it for the binding) while the socket is unbound; once bound they
 * are constant until the socket is unbound, so the receive and timer
 * paths read them without a lock. The binding itself is cleared by
 * release() or the device notifier under rtnl_lock(), @config_lock and
 * @lock, in that order.
 *
 * @config_lock is a mutex taken in process context only: by the socket
 * options, bind(), release() and the device notifier, which holds RTNL.
 * It is never held across an access to user memory (option values are
 * copied in before it is taken and out after it is dropped) nor while
 * waiting for anything but rtnl_lock(). ISO-TP never takes the socket
 * lock under RTNL: the socket core holds it while copying from user
 * memory (SO_ATTACH_FILTER), as long as a user stalls the page.
 */
struct isotp_sock {
	struct sock sk;
	struct mutex config_lock; /* options, binding; process context */
	struct list_head node;
	/* the state machines; see @lock above */
	spinlock_t lock;
	struct net_device *dev;
	bool dead;
	int ifindex;
	bool bound;
	canid_t rxid;
	canid_t txid;
	struct can_isotp_options opt;
	struct can_isotp_fc_options rxfc;
	struct can_isotp_ll_options ll;
	u32 frame_txtime;
	u32 force_tx_stmin;
	u32 force_rx_stmin;
	struct isotp_tx tx;
	struct isotp_rx rx;
	struct isotp_timer fc_timer;
	struct isotp_timer echo_timer;
	struct isotp_timer gap_timer;
	struct isotp_timer rx_timer;
	wait_queue_head_t wait;
};

static inline struct isotp_sock *isotp_sk(const struct sock *sk)
{
	return container_of(sk, struct isotp_sock, sk);
}

/* Bytes of extended address in front of the PCI: 0 or 1. */
static inline int isotp_ae(const struct isotp_sock *so)
{
	return (so->opt.flags & CAN_ISOTP_EXTEND_ADDR) ? 1 : 0;
}

static inline u32 isotp_broadcast(const struct isotp_sock *so)
{
	return so->opt.flags & ISOTP_BROADCAST_FLAGS;
}

/* A broadcast sender takes no flow control, so it subscribes to nothing. */
static inline bool isotp_takes_frames(const struct isotp_sock *so)
{
	return !isotp_broadcast(so);
}

/* Mask of an exact subscription to @id, as mainline registers it. */
static inline canid_t isotp_id_mask(canid_t id)
{
	if (id & CAN_EFF_FLAG)
		return CAN_EFF_FLAG | CAN_RTR_FLAG | CAN_EFF_MASK;
	return CAN_EFF_FLAG | CAN_RTR_FLAG | CAN_SFF_MASK;
}

/* pdu.c: the frame layout, no state */
u8 isotp_padded_len(unsigned int len);
u64 isotp_stmin_to_ns(u8 stmin);
bool isotp_padding_is_bad(const struct isotp_sock *so,
			  const struct canfd_frame *cf, int start);
void isotp_init_frame(struct isotp_sock *so, struct sk_buff *skb);
struct sk_buff *isotp_alloc_frame(struct isotp_sock *so, gfp_t gfp);
int isotp_send_frame(struct isotp_sock *so, struct sk_buff *skb);
void isotp_report_error(struct isotp_sock *so, int err);

/* timer.c */
void isotp_timers_init(struct isotp_sock *so);
void isotp_timer_arm(struct isotp_sock *so, struct isotp_timer *t, u64 ns);
void isotp_timer_stop(struct isotp_sock *so, struct isotp_timer *t);
bool isotp_timer_fired(struct isotp_sock *so, struct isotp_timer *t);
void isotp_timers_shutdown(struct isotp_sock *so);

/* tx.c: the sending state machine */
int isotp_sendmsg(struct socket *sock, struct msghdr *msg, size_t size);
void isotp_tx_on_fc(struct isotp_sock *so, const struct canfd_frame *cf);
void isotp_rcv_echo(struct sk_buff *skb, void *data);
void isotp_tx_abort(struct isotp_sock *so, int err);
enum hrtimer_restart isotp_fc_timeout(struct hrtimer *hrt);
enum hrtimer_restart isotp_echo_timeout(struct hrtimer *hrt);
enum hrtimer_restart isotp_gap_elapsed(struct hrtimer *hrt);

/* rx.c: the receiving state machine */
void isotp_rcv(struct sk_buff *skb, void *data);
void isotp_rx_abort(struct isotp_sock *so);
enum hrtimer_restart isotp_rx_timeout(struct hrtimer *hrt);

/* sockopt.c */
void isotp_options_init(struct isotp_sock *so);
int isotp_setsockopt(struct socket *sock, int level, int optname,
		     sockptr_t optval, unsigned int optlen);
int isotp_getsockopt(struct socket *sock, int level, int optname,
		     char __user *optval, int __user *optlen);

#endif /* _NET_CAN_ISOTP_PRIV_H */
