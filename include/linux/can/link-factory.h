/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Controllers made by "ip link add DEV type can ...": a driver registers
 * itself as the one factory of link kind "can", and the device layer
 * hands it the devices rtnetlink allocates. Without a factory the kind
 * refuses to create devices, as mainline's does.
 */

#ifndef _CAN_LINK_FACTORY_H
#define _CAN_LINK_FACTORY_H

#include <linux/can/can-ml.h>
#include <linux/can/dev.h>
#include <linux/netdevice.h>

/* Enough frames in flight to keep a bus busy while the next is queued. */
#define CAN_LINK_TX_SLOTS	4

/**
 * struct can_link_priv - private area of a device made by rtnetlink
 * @can: the device layer's part, first as in every CAN driver
 * @echo_skb: the TX slots, which the factory uses in order
 * @drv: the factory's own state, which its ndo_init allocates
 * @ml: the room for the CAN protocols
 */
struct can_link_priv {
	struct can_priv can;
	struct sk_buff *echo_skb[CAN_LINK_TX_SLOTS];
	void *drv;
	struct can_ml_priv ml;
};

/**
 * struct can_link_factory - a driver that creates CAN controllers
 * @owner: the driver's module
 * @netdev_ops: the ops of every device it makes, which tells them apart
 * @init: fill in the can_priv limits, callbacks and @netdev_ops of a new
 *	device, before its attributes are applied; RTNL held
 */
struct can_link_factory {
	struct module *owner;
	const struct net_device_ops *netdev_ops;
	int (*init)(struct net_device *dev, struct netlink_ext_ack *extack);
};

static inline struct can_link_priv *can_link_priv(struct net_device *dev)
{
	return netdev_priv(dev);
}

int can_link_factory_register(const struct can_link_factory *factory);
void can_link_factory_unregister(const struct can_link_factory *factory);

#endif /* !_CAN_LINK_FACTORY_H */
