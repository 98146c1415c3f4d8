// SPDX-License-Identifier: GPL-2.0
/*
 * Receive filters of the broadcast manager. The first half of this file
 * is the path of one received frame: bcm_rx_handler(), which the CAN
 * core calls for a filter's identifier, answers a remote request or
 * finds the frame's slot, compares it with the slot's last frame (the
 * two pure tests are in match.h, where KUnit reaches them) and reports a
 * change at once or when the throttle period ends; then the filter's two
 * timers, the receive timeout and the end of a throttle period. The
 * second half is the filter as user space manages it: RX_SETUP and
 * RX_DELETE, the subscription with the CAN core, and what happens to
 * filters when their device goes away.
 */

#include <linux/can/skb.h>

#include "bcm-priv.h"
#include "match.h"

static void bcm_rx_report_changed(struct bcm_op *op, unsigned int i)
{
	lockdep_assert_held(&op->lock);

	op->rx.slot[i] &= ~BCM_SLOT_PENDING;
	op->frames_reported++;
	bcm_report(op, RX_CHANGED, &op->rx.last[i], 1, true);
}

/**
 * bcm_rx_flush() - report every change a throttle period held back
 * @op: a receive operation
 *
 * Context: any but hard IRQ; @op->lock held.
 * Return: the number of RX_CHANGED messages produced.
 */
static unsigned int bcm_rx_flush(struct bcm_op *op)
{
	u32 n = max_t(u32, op->nframes, 1);
	unsigned int sent = 0;
	u32 i;

	lockdep_assert_held(&op->lock);

	for (i = 0; i < n; i++) {
		if (op->rx.slot[i] & BCM_SLOT_PENDING) {
			bcm_rx_report_changed(op, i);
			sent++;
		}
	}
	return sent;
}

/* Keep @cf as slot @i's last frame and report it, unless that would be the
 * second report within ival2. Then the throttle timer reports the slot's
 * latest frame when the period ends. Whether a period is running is
 * decided by rx.throttling, not by the timer's state: a callback that has
 * flushed and is on its way out still looks active to hrtimer_active(),
 * and a change parked on it then would wait for the next frame.
 */
static void bcm_rx_update(struct bcm_op *op, unsigned int i,
			  const struct canfd_frame *cf)
{
	ktime_t now, period_end;

	lockdep_assert_held(&op->lock);

	memcpy(&op->rx.last[i], cf, op->cfsiz);
	op->rx.slot[i] |= BCM_SLOT_SEEN | BCM_SLOT_PENDING;

	if (!op->kt_ival2) {
		bcm_rx_report_changed(op, i);
		return;
	}
	if (op->rx.throttling)
		return;

	now = ktime_get();
	period_end = ktime_add(op->rx.last_report, op->kt_ival2);
	if (op->rx.last_report && ktime_before(now, period_end)) {
		op->rx.throttling = true;
		hrtimer_start(&op->rx.throttle, period_end,
			      HRTIMER_MODE_ABS_SOFT);
		return;
	}
	bcm_rx_report_changed(op, i);
	op->rx.last_report = now;
}

static void bcm_rx_filter(struct bcm_op *op, const struct canfd_frame *cf)
{
	int i;

	if (op->flags & RX_FILTER_ID) {
		bcm_rx_update(op, 0, cf);
		return;
	}
	i = bcm_rx_slot(op, cf);
	if (i >= 0 && bcm_rx_is_changed(op, i, cf))
		bcm_rx_update(op, i, cf);
}

/* A reception restarts the timeout, unless RX_NO_AUTOTIMER says not to. */
static void bcm_rx_rearm(struct bcm_op *op)
{
	if (!(op->flags & RX_NO_AUTOTIMER) && op->kt_ival1)
		hrtimer_start(&op->timer, op->kt_ival1, HRTIMER_MODE_REL_SOFT);
	else
		hrtimer_try_to_cancel(&op->timer);
}

/* A filter on all interfaces that runs timers follows the first interface
 * it hears from (one that is not going away): timeouts and throttling
 * watch one sender, not several.
 */
static bool bcm_rx_claim(struct bcm_op *op, const struct net_device *dev)
{
	if (op->ifindex || (op->flags & RX_RTR_FRAME) ||
	    (!op->kt_ival1 && !op->kt_ival2))
		return true;

	if (!op->rx.claimed_ifindex && dev->reg_state == NETREG_REGISTERED)
		op->rx.claimed_ifindex = dev->ifindex;
	return op->rx.claimed_ifindex == dev->ifindex;
}

/* The identifier must match exactly, and the frame be of the op's kind. */
static bool bcm_rx_wants(const struct bcm_op *op, const struct sk_buff *skb)
{
	const struct canfd_frame *cf = (const struct canfd_frame *)skb->data;

	if (op->is_fd ? !can_is_canfd_skb(skb) : !can_is_can_skb(skb))
		return false;
	return cf->can_id == op->can_id;
}

/**
 * bcm_rx_handler() - the CAN core's callback for a filter's identifier
 * @skb: the received frame, shared and read only
 * @data: the struct bcm_op
 *
 * Either answers a remote request (RX_RTR_FRAME) or runs the content
 * filter and restarts the timeout. The operation may be being removed;
 * it stays in memory for the RCU read section the core holds, and once
 * marked dead it is not touched further.
 *
 * Context: softirq or BHs off, under rcu_read_lock(); takes @op->lock.
 */
static void bcm_rx_handler(struct sk_buff *skb, void *data)
{
	const struct canfd_frame *cf = (const struct canfd_frame *)skb->data;
	struct bcm_op *op = data;
	struct sk_buff *reply = NULL;

	if (!bcm_rx_wants(op, skb))
		return;

	spin_lock_bh(&op->lock);
	if (op->dead || !bcm_rx_claim(op, skb->dev))
		goto unlock;

	op->frames_seen++;
	if (op->flags & RX_RTR_FRAME) {
		reply = bcm_tx_build(op, &op->frames[0]);
		goto unlock;
	}
	op->rx.stamp = skb->tstamp;
	op->reply_ifindex = skb->dev->ifindex;
	bcm_rx_filter(op, cf);
	bcm_rx_rearm(op);
unlock:
	spin_unlock_bh(&op->lock);

	if (reply)
		bcm_tx_xmit(reply);
}

/**
 * bcm_rx_timeout_fn() - no frame came within ival1: report RX_TIMEOUT
 * @timer: bcm_op.timer of a receive operation
 *
 * With RX_ANNOUNCE_RESUME the filter forgets what it saw, so the next
 * frame is reported whatever its content.
 *
 * Context: hrtimer softirq; takes the operation's lock.
 * Return: HRTIMER_NORESTART, the next reception rearms the timer.
 */
static enum hrtimer_restart bcm_rx_timeout_fn(struct hrtimer *timer)
{
	struct bcm_op *op = container_of(timer, struct bcm_op, timer);

	spin_lock_bh(&op->lock);
	if (op->flags & RX_ANNOUNCE_RESUME)
		memset(op->rx.slot, 0, op->capacity);
	bcm_report(op, RX_TIMEOUT, NULL, 0, false);
	spin_unlock_bh(&op->lock);
	return HRTIMER_NORESTART;
}

/**
 * bcm_rx_throttle_fn() - a throttle period ended: deliver what it held
 * @timer: bcm_op.rx.throttle
 *
 * If something was delivered, a new period starts; otherwise the next
 * change is reported at once. Clearing rx.throttling under the lock in
 * the same step means a change arriving later starts its own period.
 *
 * Context: hrtimer softirq; takes the operation's lock.
 * Return: whether the timer runs another period.
 */
static enum hrtimer_restart bcm_rx_throttle_fn(struct hrtimer *timer)
{
	struct bcm_op *op = container_of(timer, struct bcm_op, rx.throttle);
	enum hrtimer_restart ret = HRTIMER_NORESTART;

	spin_lock_bh(&op->lock);
	if (bcm_rx_flush(op) && op->kt_ival2) {
		hrtimer_forward_now(timer, op->kt_ival2);
		ret = HRTIMER_RESTART;
	} else {
		op->rx.throttling = false;
		op->rx.last_report = 0;
	}
	spin_unlock_bh(&op->lock);
	return ret;
}

/* The filter as user space manages it, from here on. */

/* Subscribe to exactly one identifier, of its format, RTR or not. */
static canid_t bcm_rx_mask(canid_t can_id)
{
	canid_t id_mask = can_id & CAN_EFF_FLAG ? CAN_EFF_MASK : CAN_SFF_MASK;

	return id_mask | CAN_EFF_FLAG | CAN_RTR_FLAG;
}

static int bcm_rx_register_all(struct bcm_op *op)
{
	struct sock *sk = &op->bo->sk;

	return can_rx_register(sock_net(sk), NULL, op->can_id,
			       bcm_rx_mask(op->can_id), bcm_rx_handler, op,
			       "bcm", sk);
}

/* The reference taken here lets bcm_rx_unregister() reach the device even
 * after it left the ifindex table.
 */
static int bcm_rx_register_dev(struct bcm_op *op)
{
	struct sock *sk = &op->bo->sk;
	struct net_device *dev;
	int err;

	dev = dev_get_by_index(sock_net(sk), op->ifindex);
	if (!dev)
		return -ENODEV;

	err = can_rx_register(sock_net(sk), dev, op->can_id,
			      bcm_rx_mask(op->can_id), bcm_rx_handler, op,
			      "bcm", sk);
	if (err) {
		dev_put(dev);
		return err;
	}
	netdev_tracker_alloc(dev, &op->rx.dev_tracker, GFP_KERNEL);
	op->rx.dev = dev;
	return 0;
}

static int bcm_rx_register(struct bcm_op *op)
{
	lockdep_assert_held(&op->bo->lock);

	return op->ifindex ? bcm_rx_register_dev(op) : bcm_rx_register_all(op);
}

/**
 * bcm_rx_unregister() - end a filter's subscription with the CAN core
 * @op: a receive operation
 *
 * A filter for one device whose device went away is no longer subscribed;
 * then nothing happens. The receive callback may still run on another CPU
 * until a grace period has passed.
 *
 * Context: process, the socket's bcm_sock.lock held.
 */
void bcm_rx_unregister(struct bcm_op *op)
{
	struct sock *sk = &op->bo->sk;
	struct net_device *dev = op->rx.dev;

	lockdep_assert_held(&op->bo->lock);

	if (!op->ifindex) {
		can_rx_unregister(sock_net(sk), NULL, op->can_id,
				  bcm_rx_mask(op->can_id), bcm_rx_handler, op);
		return;
	}
	if (!dev)
		return;
	can_rx_unregister(dev_net(dev), dev, op->can_id,
			  bcm_rx_mask(op->can_id), bcm_rx_handler, op);
	op->rx.dev = NULL;
	netdev_put(dev, &op->rx.dev_tracker);
}

static int bcm_rx_check_head(const struct bcm_msg_head *head)
{
	if (head->nframes > BCM_MAX_RX_FRAMES)
		return -EINVAL;
	if ((head->flags & RX_RTR_FRAME) &&
	    (head->nframes != 1 || !(head->can_id & CAN_RTR_FLAG)))
		return -EINVAL;
	if ((head->flags & SETTIMER) && !bcm_timers_valid(head))
		return -EINVAL;
	return 0;
}

/* The frame an RTR filter answers with. Unless the user asks otherwise
 * (a different identifier in the frame), the answer carries the filter's
 * identifier without the RTR bit. An answer that is itself a remote
 * request is refused: two filters answering each other's identifiers
 * with requests would bounce frames between them for ever, in softirq,
 * through the local loopback or across the bus. Mainline accepts such a
 * reply; an answer to a remote request is a data frame, so no correct
 * setup is lost.
 *
 * Return: 0, or -EINVAL for a reply with the RTR bit.
 */
static int bcm_rx_fix_rtr_reply(const struct bcm_msg_head *head,
				struct canfd_frame *reply)
{
	if (!(head->flags & RX_RTR_FRAME))
		return 0;
	if ((head->flags & TX_CP_CAN_ID) || reply->can_id == head->can_id)
		reply->can_id = head->can_id & ~CAN_RTR_FLAG;
	return reply->can_id & CAN_RTR_FLAG ? -EINVAL : 0;
}

/* Copy an RTR filter's reply frame, which gets sent and so is checked. */
static int bcm_rx_copy_frames(const struct bcm_request *req,
			      struct canfd_frame *frames)
{
	const struct bcm_msg_head *head = &req->head;
	bool is_rtr = head->flags & RX_RTR_FRAME;
	int err;

	err = bcm_frames_copy_in(req, frames, head->nframes, is_rtr);
	return err ?: bcm_rx_fix_rtr_reply(head, frames);
}

static void bcm_rx_take_timers(struct bcm_op *op,
			       const struct bcm_msg_head *head)
{
	lockdep_assert_held(&op->lock);

	bcm_op_set_timers(op, head);
	op->rx.last_report = 0;
	op->rx.claimed_ifindex = 0;
}

/* With the timer cancelled, its callback cannot clear the flag any more. */
static void bcm_rx_stop_throttle(struct bcm_op *op)
{
	hrtimer_cancel(&op->rx.throttle);
	spin_lock_bh(&op->lock);
	op->rx.throttling = false;
	spin_unlock_bh(&op->lock);
}

/* Act on the timer flags of a setup request. New intervals end a throttle
 * period at once, delivering what it held back.
 */
static void bcm_rx_kick(struct bcm_op *op, const struct bcm_msg_head *head)
{
	lockdep_assert_held(&op->bo->lock);

	if (op->flags & RX_RTR_FRAME) {
		bcm_rx_stop_throttle(op);
		hrtimer_cancel(&op->timer);
		return;
	}
	if (head->flags & SETTIMER) {
		if (!op->kt_ival1)
			hrtimer_cancel(&op->timer);
		bcm_rx_stop_throttle(op);
		spin_lock_bh(&op->lock);
		bcm_rx_flush(op);
		spin_unlock_bh(&op->lock);
	}
	if ((op->flags & STARTTIMER) && op->kt_ival1)
		hrtimer_start(&op->timer, op->kt_ival1, HRTIMER_MODE_REL_SOFT);
}

static int bcm_rx_create(struct bcm_sock *bo, const struct bcm_request *req)
{
	const struct bcm_msg_head *head = &req->head;
	struct bcm_op *op;
	int err;

	op = bcm_op_alloc(bo, req, true);
	if (!op)
		return -ENOMEM;
	err = bcm_rx_copy_frames(req, op->frames);
	if (err)
		goto free_op;

	op->timer.function = bcm_rx_timeout_fn;
	op->rx.throttle.function = bcm_rx_throttle_fn;
	op->reply_ifindex = op->ifindex;
	spin_lock_bh(&op->lock);
	op->flags = head->flags;
	op->nframes = head->nframes;
	if (head->flags & SETTIMER)
		bcm_rx_take_timers(op, head);
	spin_unlock_bh(&op->lock);

	/* From here on the receive callback may run. */
	err = bcm_rx_register(op);
	if (err)
		goto free_op;
	bcm_ops_add(&bo->rx_ops, op);
	bcm_rx_kick(op, head);
	return 0;

free_op:
	bcm_op_free(op);
	return err;
}

static int bcm_rx_change(struct bcm_op *op, const struct bcm_request *req)
{
	const struct bcm_msg_head *head = &req->head;
	struct canfd_frame *frames = NULL;
	u32 n = head->nframes;
	int err;

	if (n > op->nframes)
		return -E2BIG;
	if (n) {
		frames = bcm_frames_from_msg(req, n,
					     head->flags & RX_RTR_FRAME);
		if (IS_ERR(frames))
			return PTR_ERR(frames);
		err = bcm_rx_fix_rtr_reply(head, frames);
		if (err) {
			kvfree(frames);
			return err;
		}
	}

	spin_lock_bh(&op->lock);
	op->nframes = n;
	op->flags = head->flags;
	if (n) {
		memcpy(op->frames, frames, n * sizeof(*frames));
		memset(op->rx.last, 0, n * sizeof(*op->rx.last));
		memset(op->rx.slot, 0, n);
	}
	if (head->flags & SETTIMER)
		bcm_rx_take_timers(op, head);
	spin_unlock_bh(&op->lock);
	kvfree(frames);

	/* Subscribe again to a device that came back under the same index. */
	if (op->ifindex && !op->rx.dev) {
		err = bcm_rx_register(op);
		if (err) {
			hrtimer_cancel(&op->timer);
			bcm_rx_stop_throttle(op);
			return err;
		}
	}
	bcm_rx_kick(op, head);
	return 0;
}

/**
 * bcm_rx_setup() - serve RX_SETUP: create or change a receive filter
 * @bo: the socket
 * @req: the request; RX_FILTER_ID or no frames make it a filter on the
 *	identifier alone, and its frames are ignored
 *
 * Context: process, the socket's bcm_sock.lock held.
 * Return: the number of bytes consumed; -EINVAL for more than 257 frames,
 * an RTR filter without exactly one frame, an RTR identifier or a valid
 * reply length, or bad intervals with SETTIMER; -E2BIG for more frames
 * than the filter has; -ENODEV if the interface is gone; -EFAULT;
 * -ENOMEM; or the error of can_rx_register().
 */
int bcm_rx_setup(struct bcm_sock *bo, struct bcm_request *req)
{
	struct bcm_msg_head *head = &req->head;
	struct bcm_op *op;
	int err;

	lockdep_assert_held(&bo->lock);

	if ((head->flags & RX_FILTER_ID) || !head->nframes) {
		head->flags |= RX_FILTER_ID;
		head->nframes = 0;
	}
	err = bcm_rx_check_head(head);
	if (err)
		return err;

	op = bcm_ops_find(&bo->rx_ops, req);
	err = op ? bcm_rx_change(op, req) : bcm_rx_create(bo, req);
	if (err)
		return err;
	return BCM_HEAD_SIZE + head->nframes * req->cfsiz;
}

/**
 * bcm_rx_delete() - serve RX_DELETE
 * @bo: the socket
 * @req: the request
 *
 * Context: process, the socket's bcm_sock.lock held.
 * Return: 0, or -EINVAL if no such filter exists.
 */
int bcm_rx_delete(struct bcm_sock *bo, const struct bcm_request *req)
{
	struct bcm_op *op;

	lockdep_assert_held(&bo->lock);

	op = bcm_ops_find(&bo->rx_ops, req);
	if (!op)
		return -EINVAL;
	bcm_rx_unregister(op);
	bcm_op_destroy(&bo->rx_ops, op);
	return 0;
}

/**
 * bcm_rx_dev_gone() - detach the filters from a device being removed
 * @bo: the socket
 * @dev: the device
 *
 * Filters on @dev lose their subscription and so fall silent; their
 * timers keep the state they had.
 *
 * Context: process, the socket's bcm_sock.lock held.
 */
void bcm_rx_dev_gone(struct bcm_sock *bo, struct net_device *dev)
{
	struct bcm_op *op;

	lockdep_assert_held(&bo->lock);

	list_for_each_entry(op, &bo->rx_ops.list, list) {
		if (op->rx.dev == dev)
			bcm_rx_unregister(op);
	}
}

/**
 * bcm_rx_drop_claims() - let filters on all interfaces follow another one
 * @bo: the socket
 * @ifindex: the interface being removed
 *
 * Only the operation's lock guards the claim, so this needs no socket
 * lock, which a user may hold for long (see bcm_netdev_event()).
 *
 * Context: process; takes rcu_read_lock() and the operations' locks.
 */
void bcm_rx_drop_claims(struct bcm_sock *bo, int ifindex)
{
	struct bcm_op *op;

	rcu_read_lock();
	list_for_each_entry_rcu(op, &bo->rx_ops.list, list) {
		if (op->ifindex)
			continue;
		spin_lock_bh(&op->lock);
		if (op->rx.claimed_ifindex == ifindex)
			op->rx.claimed_ifindex = 0;
		spin_unlock_bh(&op->lock);
	}
	rcu_read_unlock();
}
