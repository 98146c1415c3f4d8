// SPDX-License-Identifier: GPL-2.0
/*
 * Receive filters of the broadcast manager as user space manages them:
 * RX_SETUP and RX_DELETE, the subscription with the CAN core, and what
 * happens to filters when their device goes away. What a filter does with
 * a received frame is in bcm_filter.c.
 */

#include "bcm-priv.h"

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
