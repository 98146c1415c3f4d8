/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the device layer's KUnit tests: the netdev side of a stub
 * controller, which drops what it is given to send, and its teardown.
 */

#ifndef _CAN_STUB_KUNIT_H
#define _CAN_STUB_KUNIT_H

#include <linux/netdevice.h>
#include <linux/can/dev.h>

static inline netdev_tx_t stub_start_xmit(struct sk_buff *skb,
					  struct net_device *dev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops stub_netdev_ops = {
	.ndo_start_xmit = stub_start_xmit,
	.ndo_change_mtu = can_change_mtu,
};

/* For a device that register_candev() accepted. */
static inline void stub_destroy(struct net_device *dev)
{
	unregister_candev(dev);
	free_candev(dev);
}

#endif /* !_CAN_STUB_KUNIT_H */
