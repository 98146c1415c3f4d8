// SPDX-License-Identifier: GPL-2.0
/*
 * Transmission side of the broadcast manager. TX_SETUP keeps a sequence of
 * frames going out on an hrtimer, @count times at ival1 and then at ival2
 * until deleted; TX_SEND sends one frame once. A change to a running
 * operation takes effect between two frames, never within one.
 */

#include <linux/can/skb.h>

#include "bcm-priv.h"

/* Give @skb the private area, its device (whose reference it takes over)
 * and its owner.
 */
static void bcm_tx_attach(struct sk_buff *skb, struct net_device *dev,
			  struct sock *sk)
{
	can_skb_prv(skb)->ifindex = dev->ifindex;
	can_skb_prv(skb)->skbcnt = 0;
	skb->dev = dev;
	can_skb_set_owner(skb, sk);
}

/**
 * bcm_tx_build() - wrap one frame of an operation in an skb
 * @op: the operation, not dead
 * @cf: the frame, @op->cfsiz bytes of it are sent
 *
 * Context: any but hard IRQ; @op->lock held, which keeps the socket alive.
 * Return: an skb for bcm_tx_xmit(), holding a reference to the device of
 * @op; NULL if @op has no device (all interfaces), the device is gone or
 * memory ran out.
 */
struct sk_buff *bcm_tx_build(struct bcm_op *op, const struct canfd_frame *cf)
{
	struct sock *sk = &op->bo->sk;
	struct net_device *dev;
	struct sk_buff *skb;

	lockdep_assert_held(&op->lock);

	if (!op->ifindex)
		return NULL;
	dev = dev_get_by_index(sock_net(sk), op->ifindex);
	if (!dev)
		return NULL;
	skb = alloc_skb(sizeof(struct can_skb_priv) + op->cfsiz, GFP_ATOMIC);
	if (!skb) {
		dev_put(dev);
		return NULL;
	}
	can_skb_reserve(skb);
	skb_put_data(skb, cf, op->cfsiz);
	bcm_tx_attach(skb, dev, sk);
	return skb;
}

/**
 * bcm_tx_xmit() - send an skb made by bcm_tx_build() or bcm_tx_send()
 * @skb: the frame; consumed
 *
 * The frame is looped back to local listeners.
 *
 * Context: any but hard IRQ; no spinlock of an operation held.
 * Return: 0 or the error of can_send().
 */
int bcm_tx_xmit(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	int err;

	err = can_send(skb, true);
	dev_put(dev);
	return err;
}

/* Take the frame the sequence stands at and move the sequence on. */
static struct sk_buff *bcm_tx_next(struct bcm_op *op)
{
	struct sk_buff *skb;

	lockdep_assert_held(&op->lock);

	skb = bcm_tx_build(op, &op->frames[op->next_frame]);
	if (!skb)
		return NULL;
	if (++op->next_frame >= op->nframes)
		op->next_frame = 0;
	if (op->count)
		op->count--;
	return skb;
}

static void bcm_tx_send_counted(struct bcm_op *op, struct sk_buff *skb)
{
	if (bcm_tx_xmit(skb))
		return;
	spin_lock_bh(&op->lock);
	op->frames_seen++;
	spin_unlock_bh(&op->lock);
}

/* The interval to the next frame: ival1 while count lasts, then ival2. */
static ktime_t bcm_tx_interval(const struct bcm_op *op)
{
	if (op->kt_ival1 && op->count)
		return op->kt_ival1;
	return op->kt_ival2;
}

/* The period is kept relative to the previous expiry, not to the time the
 * callback ran, so late callbacks do not add up to drift.
 */
static enum hrtimer_restart bcm_tx_timer_fn(struct hrtimer *timer)
{
	struct bcm_op *op = container_of(timer, struct bcm_op, timer);
	struct sk_buff *skb = NULL;
	bool in_ival1, expired;
	ktime_t next;

	spin_lock_bh(&op->lock);
	in_ival1 = op->kt_ival1 && op->count;
	if (in_ival1 || op->kt_ival2)
		skb = bcm_tx_next(op);
	expired = in_ival1 && !op->count && (op->flags & TX_COUNTEVT);
	next = bcm_tx_interval(op);
	spin_unlock_bh(&op->lock);

	if (skb)
		bcm_tx_send_counted(op, skb);
	if (expired) {
		spin_lock_bh(&op->lock);
		bcm_report(op, TX_EXPIRED, NULL, 0, false);
		spin_unlock_bh(&op->lock);
	}
	if (!next)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, next);
	return HRTIMER_RESTART;
}

static void bcm_tx_once(struct bcm_op *op)
{
	struct sk_buff *skb;

	spin_lock_bh(&op->lock);
	skb = bcm_tx_next(op);
	spin_unlock_bh(&op->lock);
	if (skb)
		bcm_tx_send_counted(op, skb);
}

static void bcm_tx_arm(struct bcm_op *op)
{
	ktime_t next;

	spin_lock_bh(&op->lock);
	next = bcm_tx_interval(op);
	spin_unlock_bh(&op->lock);
	if (next)
		hrtimer_start(&op->timer, next, HRTIMER_MODE_REL_SOFT);
}

/* Act on the timer flags of a setup request. STARTTIMER restarts the cycle
 * and implies TX_ANNOUNCE, which stays set in the operation's flags.
 */
static void bcm_tx_kick(struct bcm_op *op)
{
	u32 flags = op->flags;

	lockdep_assert_held(&op->bo->lock);

	if ((flags & SETTIMER) && !op->kt_ival1 && !op->kt_ival2)
		hrtimer_cancel(&op->timer);
	if (flags & STARTTIMER) {
		hrtimer_cancel(&op->timer);
		spin_lock_bh(&op->lock);
		op->flags |= TX_ANNOUNCE;
		spin_unlock_bh(&op->lock);
		flags |= TX_ANNOUNCE;
	}
	if (flags & TX_ANNOUNCE)
		bcm_tx_once(op);
	if (flags & STARTTIMER)
		bcm_tx_arm(op);
}

static void bcm_tx_copy_id(const struct bcm_msg_head *head,
			   struct canfd_frame *frames)
{
	u32 i;

	if (!(head->flags & TX_CP_CAN_ID))
		return;
	for (i = 0; i < head->nframes; i++)
		frames[i].can_id = head->can_id;
}

/* Take the settings of a request, with its frames already in place. */
static void bcm_tx_take_settings(struct bcm_op *op,
				 const struct bcm_msg_head *head)
{
	lockdep_assert_held(&op->lock);

	op->flags = head->flags;
	if (op->nframes != head->nframes || (head->flags & TX_RESET_MULTI_IDX)) {
		op->nframes = head->nframes;
		op->next_frame = 0;
	}
	if (head->flags & SETTIMER) {
		op->count = head->count;
		bcm_op_set_timers(op, head);
	}
}

static struct bcm_op *bcm_tx_create(struct bcm_sock *bo,
				    const struct bcm_request *req)
{
	const struct bcm_msg_head *head = &req->head;
	struct bcm_op *op;
	int err;

	op = bcm_op_alloc(bo, req, false);
	if (!op)
		return ERR_PTR(-ENOMEM);

	err = bcm_frames_copy_in(req, op->frames, head->nframes, true);
	if (err) {
		bcm_op_free(op);
		return ERR_PTR(err);
	}
	bcm_tx_copy_id(head, op->frames);
	op->timer.function = bcm_tx_timer_fn;

	spin_lock_bh(&op->lock);
	bcm_tx_take_settings(op, head);
	spin_unlock_bh(&op->lock);

	bcm_ops_add(&bo->tx_ops, op);
	return op;
}

/* The new frames are staged and checked first, so the timer sees either
 * the old set or the new one. A running cycle keeps its schedule.
 */
static int bcm_tx_change(struct bcm_op *op, const struct bcm_request *req)
{
	const struct bcm_msg_head *head = &req->head;
	struct canfd_frame *frames;

	/* The arrays do not grow, so as not to move them under the timer. */
	if (head->nframes > op->nframes)
		return -E2BIG;

	frames = bcm_frames_from_msg(req, head->nframes, true);
	if (IS_ERR(frames))
		return PTR_ERR(frames);
	bcm_tx_copy_id(head, frames);

	spin_lock_bh(&op->lock);
	memcpy(op->frames, frames, head->nframes * sizeof(*frames));
	bcm_tx_take_settings(op, head);
	spin_unlock_bh(&op->lock);

	kvfree(frames);
	return 0;
}

/**
 * bcm_tx_setup() - serve TX_SETUP: create or change a transmission
 * @bo: the socket
 * @req: the request
 *
 * Context: process, the socket's bcm_sock.lock held.
 * Return: the number of bytes consumed; -ENODEV without an interface;
 * -EINVAL for no or more than 256 frames, bad intervals with SETTIMER or
 * a bad frame length; -E2BIG for more frames than the operation has;
 * -EFAULT for a short message; -ENOMEM.
 */
int bcm_tx_setup(struct bcm_sock *bo, struct bcm_request *req)
{
	const struct bcm_msg_head *head = &req->head;
	struct bcm_op *op;
	int err;

	lockdep_assert_held(&bo->lock);

	if (!req->ifindex)
		return -ENODEV;
	if (!head->nframes || head->nframes > BCM_MAX_FRAMES)
		return -EINVAL;
	if ((head->flags & SETTIMER) && !bcm_timers_valid(head))
		return -EINVAL;

	op = bcm_ops_find(&bo->tx_ops, req);
	if (op) {
		err = bcm_tx_change(op, req);
		if (err)
			return err;
	} else {
		op = bcm_tx_create(bo, req);
		if (IS_ERR(op))
			return PTR_ERR(op);
	}
	bcm_tx_kick(op);
	return BCM_HEAD_SIZE + head->nframes * req->cfsiz;
}

/**
 * bcm_tx_delete() - serve TX_DELETE
 * @bo: the socket
 * @req: the request
 *
 * Context: process, the socket's bcm_sock.lock held.
 * Return: 0, or -EINVAL if no such operation exists.
 */
int bcm_tx_delete(struct bcm_sock *bo, const struct bcm_request *req)
{
	struct bcm_op *op;

	lockdep_assert_held(&bo->lock);

	op = bcm_ops_find(&bo->tx_ops, req);
	if (!op)
		return -EINVAL;
	bcm_op_destroy(&bo->tx_ops, op);
	return 0;
}

/**
 * bcm_tx_send() - serve TX_SEND: send the one frame of the request
 * @bo: the socket
 * @req: the request
 *
 * Context: process, the socket's bcm_sock.lock held.
 * Return: the number of bytes consumed; -EINVAL unless exactly one frame
 * follows the head; -ENODEV without an interface or when it is gone;
 * -EFAULT; -ENOMEM; or the error of can_send().
 */
int bcm_tx_send(struct bcm_sock *bo, const struct bcm_request *req)
{
	struct net_device *dev;
	struct sk_buff *skb;
	int err;

	lockdep_assert_held(&bo->lock);

	if (req->head.nframes != 1 || req->size != BCM_HEAD_SIZE + req->cfsiz)
		return -EINVAL;
	if (!req->ifindex)
		return -ENODEV;

	skb = alloc_skb(sizeof(struct can_skb_priv) + req->cfsiz, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	can_skb_reserve(skb);
	err = memcpy_from_msg(skb_put(skb, req->cfsiz), req->msg, req->cfsiz);
	if (err)
		goto free_skb;

	dev = dev_get_by_index(sock_net(&bo->sk), req->ifindex);
	if (!dev) {
		err = -ENODEV;
		goto free_skb;
	}
	bcm_tx_attach(skb, dev, &bo->sk);
	err = bcm_tx_xmit(skb);
	return err ?: BCM_HEAD_SIZE + req->cfsiz;

free_skb:
	kfree_skb(skb);
	return err;
}

/**
 * bcm_tx_dev_gone() - stop the transmissions on a device being removed
 * @bo: the socket
 * @dev: the device
 *
 * The operations stay listed (TX_READ still shows them) until deleted or
 * until the socket closes.
 *
 * Context: process, the socket's bcm_sock.lock held.
 */
void bcm_tx_dev_gone(struct bcm_sock *bo, struct net_device *dev)
{
	struct bcm_op *op;

	lockdep_assert_held(&bo->lock);

	list_for_each_entry(op, &bo->tx_ops.list, list) {
		if (op->ifindex == dev->ifindex)
			hrtimer_cancel(&op->timer);
	}
}
