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
	struct can_raw_bus_state st = {};
	struct raw_sock *ro = raw_sk(sk);
	struct net_device *dev;
	int err = 0;

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
