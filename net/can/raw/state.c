// SPDX-License-Identifier: GPL-2.0
/* CAN_RAW_BUS_STATE: the state, error counters and fault counts of the
 * device a raw socket is bound to, for any user of the socket, without
 * rtnetlink. The controller's state lives in the CAN device layer's
 * private area, which every device of our can-dev starts with (the core
 * tells which devices those are); can-raw reads it through the header,
 * so that it needs no can-dev module to load.
 */

#include <linux/can/core.h>
#include <linux/can/dev.h>
#include <linux/can/raw.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include "raw-priv.h"

/* Frames in the controller's TX slots, waiting for their echo. */
static unsigned int tx_pending(const struct can_priv *priv)
{
	unsigned int i, n = 0;

	for (i = 0; i < priv->echo_skb_max; i++)
		n += !!READ_ONCE(priv->echo_skb[i]);
	return n;
}

/* A controller whose frames nobody acknowledges retransmits them for
 * ever: each ACK error raises its transmit counter by 8 until it is
 * error-passive at 128, where ACK errors stop counting (ISO 11898-1), so
 * the counter stays at 128 (a little above, after other errors) while
 * the receive counter stays low.
 */
static bool looks_alone(const struct can_raw_bus_state *st)
{
	return st->state == CAN_STATE_ERROR_PASSIVE && st->tx_pending &&
	       st->txerr >= 128 && st->txerr < 136 && st->rxerr < 128;
}

static void read_bus_state(struct net_device *dev,
			   struct can_raw_bus_state *st)
{
	struct can_priv *priv = netdev_priv(dev);
	struct can_berr_counter bec = {};
	struct can_drop_counts drops;

	ASSERT_RTNL();
	can_get_drop_counts(dev, &drops);
	st->rx_lost_controller = drops.controller;
	st->rx_lost_queue = drops.rx_queue;
	st->rx_no_receiver = drops.no_receiver;
	st->rx_invalid = drops.invalid;
	st->rx_lost_socket = drops.sock_queue;

	st->state = CAN_STATE_ERROR_ACTIVE;
	/* Another can-dev (Debian's under our core) has another can_priv. */
	if (!can_dev_is_ours(dev))
		return;
	st->state = priv->state;
	/* Some controllers answer only while running; netlink skips them so */
	if (priv->do_get_berr_counter && !priv->do_get_berr_counter(dev, &bec)) {
		st->txerr = bec.txerr;
		st->rxerr = bec.rxerr;
	}
	st->error_warning = priv->can_stats.error_warning;
	st->error_passive = priv->can_stats.error_passive;
	st->bus_off = priv->can_stats.bus_off;
	st->restarts = priv->can_stats.restarts;
	st->bus_errors = priv->can_stats.bus_error;
	st->arbitration_lost = priv->can_stats.arbitration_lost;
	if (priv->echo_skb)
		st->tx_pending = tx_pending(priv);
	if (looks_alone(st))
		st->flags |= CAN_RAW_BUS_ALONE;
}

/**
 * raw_get_bus_state() - getsockopt(CAN_RAW_BUS_STATE)
 * @sk: a raw socket
 * @optval: the caller's buffer
 * @optlen: its length, in and out
 * @len: *@optlen as read, not negative
 *
 * Process context. RTNL is taken: it keeps the binding and the device,
 * and drivers read their counters under it for netlink too (some of them
 * sleep doing so, over SPI).
 *
 * Return: 0; -EINVAL for a socket not bound to one device; -ENODEV if
 * that device is gone; -EFAULT.
 */
int raw_get_bus_state(struct sock *sk, char __user *optval,
		      int __user *optlen, int len)
{
	struct raw_sock *ro = raw_sk(sk);
	struct can_raw_bus_state st;
	struct net_device *dev;
	int err = 0;

	/* Padding too: the structure is copied to user space whole. */
	memset(&st, 0, sizeof(st));
	rtnl_lock();
	if (!ro->bound || !ro->ifindex) {
		err = -EINVAL;
	} else {
		dev = __dev_get_by_index(sock_net(sk), ro->ifindex);
		if (dev)
			read_bus_state(dev, &st);
		else
			err = -ENODEV;
	}
	rtnl_unlock();
	if (err)
		return err;
	len = min_t(int, len, sizeof(st));
	if (put_user(len, optlen) || copy_to_user(optval, &st, len))
		return -EFAULT;
	return 0;
}
