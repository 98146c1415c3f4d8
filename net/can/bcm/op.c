// SPDX-License-Identifier: GPL-2.0
/*
 * What transmit and receive operations of the broadcast manager have in
 * common: their life cycle, the frames they take from user messages, and
 * the messages (status replies and events) they queue to their socket.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "bcm-priv.h"

static bool bcm_timeval_valid(const struct bcm_timeval *tv)
{
	return tv->tv_sec >= 0 && tv->tv_sec <= BCM_MAX_TIMER_SEC &&
	       tv->tv_usec >= 0 && tv->tv_usec < USEC_PER_SEC;
}

/**
 * bcm_timers_valid() - check the intervals of a request
 * @head: the request's head
 *
 * Context: any.
 * Return: true if both intervals lie within 0 and 400 days with a
 * microsecond part below one second.
 */
bool bcm_timers_valid(const struct bcm_msg_head *head)
{
	return bcm_timeval_valid(&head->ival1) &&
	       bcm_timeval_valid(&head->ival2);
}

static ktime_t bcm_timeval_to_ktime(const struct bcm_timeval *tv)
{
	return ktime_set(tv->tv_sec, tv->tv_usec * NSEC_PER_USEC);
}

/**
 * bcm_op_set_timers() - take both intervals of a request
 * @op: the operation
 * @head: a validated request head
 *
 * Context: the socket's bcm_sock.lock and @op->lock held.
 */
void bcm_op_set_timers(struct bcm_op *op, const struct bcm_msg_head *head)
{
	lockdep_assert_held(&op->bo->lock);
	lockdep_assert_held(&op->lock);

	op->ival1 = head->ival1;
	op->ival2 = head->ival2;
	op->kt_ival1 = bcm_timeval_to_ktime(&head->ival1);
	op->kt_ival2 = bcm_timeval_to_ktime(&head->ival2);
}

/**
 * bcm_op_alloc() - allocate an operation for a setup request
 * @bo: the socket that will own it
 * @req: the TX_SETUP or RX_SETUP request
 * @is_rx: also make room for the receive state
 *
 * The frame arrays get room for the request's frames (at least one), all
 * zero. Timers are initialised but have no callback yet. The operation is
 * on no list and not registered anywhere.
 *
 * Context: process, may sleep.
 * Return: the operation, or NULL without memory.
 */
struct bcm_op *bcm_op_alloc(struct bcm_sock *bo,
			    const struct bcm_request *req, bool is_rx)
{
	u32 capacity = max_t(u32, req->head.nframes, 1);
	size_t arrays = is_rx ? 2 : 1;
	struct bcm_op *op;
	size_t size;

	size = struct_size(op, storage, arrays * capacity);
	if (is_rx)
		size += capacity;
	op = kvzalloc(size, GFP_KERNEL);
	if (!op)
		return NULL;

	op->bo = bo;
	op->can_id = req->head.can_id;
	op->ifindex = req->ifindex;
	op->is_fd = req->head.flags & CAN_FD_FRAME;
	op->cfsiz = req->cfsiz;
	op->capacity = capacity;
	op->frames = op->storage;
	if (is_rx) {
		op->rx.last = op->storage + capacity;
		op->rx.slot = (u8 *)(op->storage + 2 * capacity);
	}
	spin_lock_init(&op->lock);
	hrtimer_init(&op->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	hrtimer_init(&op->rx.throttle, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	pr_debug("op %s %03X ifindex %d created\n", is_rx ? "rx" : "tx",
		 op->can_id, op->ifindex);
	return op;
}

/**
 * bcm_op_free() - free an operation nobody else has seen
 * @op: an operation from bcm_op_alloc() whose timers never ran and which
 *	was never registered or listed
 *
 * Context: any.
 */
void bcm_op_free(struct bcm_op *op)
{
	pr_debug("op %03X ifindex %d freed\n", op->can_id, op->ifindex);
	kvfree(op);
}

/**
 * bcm_op_destroy() - unlist, stop and free an operation
 * @ops: the operations it belongs to
 * @op: a listed operation; a receive filter must be unregistered from
 *	the core already
 *
 * Unlisting keeps new lookups away. Setting @dead under the lock stops a
 * receive callback that still runs (it got the operation before the
 * unregistration) from touching the socket or arming a timer. With that,
 * the timers can only rearm themselves, which hrtimer_cancel() handles.
 * /proc readers and late receive callbacks may still hold the pointer
 * under RCU, so the memory goes after a grace period.
 *
 * Context: process, the socket's bcm_sock.lock held.
 */
void bcm_op_destroy(struct bcm_ops *ops, struct bcm_op *op)
{
	lockdep_assert_held(&op->bo->lock);

	bcm_ops_del(ops, op);

	spin_lock_bh(&op->lock);
	op->dead = true;
	spin_unlock_bh(&op->lock);

	hrtimer_cancel(&op->timer);
	hrtimer_cancel(&op->rx.throttle);

	pr_debug("op %03X ifindex %d freed\n", op->can_id, op->ifindex);
	kvfree_rcu(op, rcu);
}

/**
 * bcm_frames_copy_in() - copy frames from a request's message
 * @req: the request; its iterator sits on the first frame to copy
 * @frames: room for @n frames
 * @n: how many frames to copy
 * @check_len: the frames will be sent, so refuse a length over 8 bytes
 *	(64 for CAN FD)
 *
 * Each frame takes @req->cfsiz bytes in the message and a whole struct
 * canfd_frame in @frames; for classic frames the rest stays as it was.
 * Frames are checked in order as they are copied, so the first bad one
 * decides the error.
 *
 * Context: process, may fault.
 * Return: 0, -EFAULT if the message ends early or cannot be read, or
 * -EINVAL for a bad length.
 */
int bcm_frames_copy_in(const struct bcm_request *req,
		       struct canfd_frame *frames, u32 n, bool check_len)
{
	u8 max_len = req->head.flags & CAN_FD_FRAME ? CANFD_MAX_DLEN :
						      CAN_MAX_DLEN;
	u32 i;
	int err;

	for (i = 0; i < n; i++) {
		err = memcpy_from_msg(&frames[i], req->msg, req->cfsiz);
		if (err)
			return err;
		if (check_len && frames[i].len > max_len)
			return -EINVAL;
	}
	return 0;
}

/**
 * bcm_frames_from_msg() - copy frames from a request into a new buffer
 * @req: the request
 * @n: how many frames to copy, at least one
 * @check_len: as for bcm_frames_copy_in()
 *
 * Setup requests stage the frames of a running operation this way, so the
 * operation can switch to them at once under its lock.
 *
 * Context: process, may sleep.
 * Return: a buffer to release with kvfree(), or an ERR_PTR() of -ENOMEM
 * or of the errors of bcm_frames_copy_in().
 */
struct canfd_frame *bcm_frames_from_msg(const struct bcm_request *req,
					u32 n, bool check_len)
{
	struct canfd_frame *frames;
	int err;

	frames = kvcalloc(n, sizeof(*frames), GFP_KERNEL);
	if (!frames)
		return ERR_PTR(-ENOMEM);

	err = bcm_frames_copy_in(req, frames, n, check_len);
	if (err) {
		kvfree(frames);
		return ERR_PTR(err);
	}
	return frames;
}

static struct sk_buff *bcm_reply_alloc(const struct bcm_op *op,
				       u32 nframes, gfp_t gfp)
{
	return alloc_skb(BCM_HEAD_SIZE + nframes * op->cfsiz, gfp);
}

/* Fill @skb with a head built from @op's state and @nframes frames. */
static void bcm_reply_fill(struct sk_buff *skb, const struct bcm_op *op,
			   u32 opcode, const struct canfd_frame *frames,
			   u32 nframes)
{
	struct bcm_msg_head *head;
	u32 i;

	head = skb_put_zero(skb, BCM_HEAD_SIZE);
	head->opcode = opcode;
	head->flags = op->flags;
	head->count = op->count;
	head->ival1 = op->ival1;
	head->ival2 = op->ival2;
	head->can_id = op->can_id;
	head->nframes = nframes;

	for (i = 0; i < nframes; i++)
		skb_put_data(skb, &frames[i], op->cfsiz);
}

/* Queue a finished reply to the socket, or count it as dropped. */
static void bcm_reply_queue(const struct bcm_op *op, struct sk_buff *skb)
{
	struct bcm_sock *bo = op->bo;
	struct sockaddr_can *addr;

	sock_skb_cb_check_size(sizeof(*addr));
	addr = (struct sockaddr_can *)skb->cb;
	memset(addr, 0, sizeof(*addr));
	addr->can_family = AF_CAN;
	addr->can_ifindex = op->reply_ifindex;

	if (sock_queue_rcv_skb(&bo->sk, skb) < 0) {
		kfree_skb(skb);
		atomic_long_inc(&bo->dropped);
	}
}

/**
 * bcm_report() - queue an event message to the operation's socket
 * @op: the operation, not dead
 * @opcode: TX_EXPIRED, RX_TIMEOUT or RX_CHANGED
 * @frames: frames to append, may be NULL when @nframes is 0
 * @nframes: number of frames
 * @stamped: give the message the receive time of the latest frame
 *
 * The head carries the operation's current settings. A message that
 * cannot be allocated or queued is counted in bcm_sock.dropped.
 *
 * Context: any but hard IRQ; @op->lock held, which keeps the socket alive.
 */
void bcm_report(struct bcm_op *op, u32 opcode,
		const struct canfd_frame *frames, u32 nframes, bool stamped)
{
	struct sk_buff *skb;

	lockdep_assert_held(&op->lock);

	skb = bcm_reply_alloc(op, nframes, GFP_ATOMIC);
	if (!skb) {
		atomic_long_inc(&op->bo->dropped);
		return;
	}
	bcm_reply_fill(skb, op, opcode, frames, nframes);
	if (stamped)
		skb->tstamp = op->rx.stamp;
	bcm_reply_queue(op, skb);
}

/**
 * bcm_op_read() - answer TX_READ or RX_READ
 * @ops: the operations the request addresses
 * @req: the request
 * @opcode: TX_STATUS or RX_STATUS
 *
 * Queues a copy of the operation's settings and frames to the socket.
 *
 * Context: process, the socket's bcm_sock.lock held.
 * Return: 0, -EINVAL if no such operation exists, -ENOMEM.
 */
int bcm_op_read(struct bcm_ops *ops, const struct bcm_request *req,
		u32 opcode)
{
	struct bcm_op *op = bcm_ops_find(ops, req);
	struct sk_buff *skb;

	if (!op)
		return -EINVAL;

	/* nframes only changes under bcm_sock.lock, which we hold. */
	lockdep_assert_held(&op->bo->lock);
	skb = bcm_reply_alloc(op, op->nframes, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;

	spin_lock_bh(&op->lock);
	bcm_reply_fill(skb, op, opcode, op->frames, op->nframes);
	bcm_reply_queue(op, skb);
	spin_unlock_bh(&op->lock);
	return 0;
}
