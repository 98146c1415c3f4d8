// SPDX-License-Identifier: GPL-2.0
/*
 * What a receive filter of the broadcast manager does with a frame: find
 * the slot it belongs to (by multiplex value), compare the bits the user
 * cares about with the slot's last frame, and report a change, at most
 * once per throttle period. Also the filter's two timers: the receive
 * timeout and the end of a throttle period.
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
unsigned int bcm_rx_flush(struct bcm_op *op)
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
void bcm_rx_handler(struct sk_buff *skb, void *data)
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
enum hrtimer_restart bcm_rx_timeout_fn(struct hrtimer *timer)
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
enum hrtimer_restart bcm_rx_throttle_fn(struct hrtimer *timer)
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
