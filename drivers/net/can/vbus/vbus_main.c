// SPDX-License-Identifier: GPL-2.0
/* A CAN controller without hardware: once this module is loaded,
 * "ip link add DEV type can bitrate N" makes one, a can-dev device like
 * any other, which sits on the virtual bus of its namespace and device
 * group while it is up. Unloading the module deletes its devices.
 */

#include <linux/can/dev.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "vbus.h"

/* The devices this module made, under RTNL. */
static LIST_HEAD(vbus_devices);

/* A generous clock, so that any standard bitrate is met exactly. */
#define VBUS_CLOCK_HZ		80000000

/* Prescaler first: it is what lets the slowest bitrates be met. */
static const struct can_bittiming_const vbus_bittiming_const = {
	.name = "can_vbus",
	.brp_min = 1,
	.brp_max = 512,
	.brp_inc = 1,
	.sjw_max = 128,
	.tseg1_min = 2,
	.tseg1_max = 256,
	.tseg2_min = 1,
	.tseg2_max = 128,
};

static const struct can_bittiming_const vbus_data_bittiming_const = {
	.name = "can_vbus",
	.brp_min = 1,
	.brp_max = 32,
	.brp_inc = 1,
	.sjw_max = 16,
	.tseg1_min = 1,
	.tseg1_max = 32,
	.tseg2_min = 1,
	.tseg2_max = 16,
};

static int vbus_ndo_init(struct net_device *dev)
{
	struct vbus_node *node = kzalloc(sizeof(*node), GFP_KERNEL);

	ASSERT_RTNL();
	if (!node)
		return -ENOMEM;
	node->dev = dev;
	INIT_LIST_HEAD(&node->bus_link);
	list_add(&node->all_link, &vbus_devices);
	can_link_priv(dev)->drv = node;
	return 0;
}

static void vbus_ndo_uninit(struct net_device *dev)
{
	struct vbus_node *node = vbus_node(dev);

	ASSERT_RTNL();
	list_del(&node->all_link);
	can_link_priv(dev)->drv = NULL;
	kfree(node);
}

/* CAN FD switches to a data bitrate at least as high as the nominal
 * one; a setup the other way round is refused.
 */
static bool vbus_data_too_slow(const struct can_priv *priv)
{
	return (priv->ctrlmode & CAN_CTRLMODE_FD) &&
	       priv->data_bittiming.bitrate < priv->bittiming.bitrate;
}

static int vbus_set_data_bittiming(struct net_device *dev)
{
	/* "fd on" comes with both bitrates: the nominal one is set by now */
	return vbus_data_too_slow(netdev_priv(dev)) ? -EINVAL : 0;
}

static int vbus_open(struct net_device *dev)
{
	int err;

	/* Also refuses a data bitrate a later "bitrate" has overtaken. */
	err = open_candev(dev);
	if (err)
		return err;
	err = vbus_join(vbus_node(dev));
	if (err) {
		close_candev(dev);
		return err;
	}
	netif_start_queue(dev);
	return 0;
}

static int vbus_stop(struct net_device *dev)
{
	struct can_priv *priv = netdev_priv(dev);

	netif_stop_queue(dev);
	vbus_leave(vbus_node(dev));
	close_candev(dev);
	priv->state = CAN_STATE_STOPPED;
	return 0;
}

static netdev_tx_t vbus_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	if (can_dev_dropped_skb(dev, skb))
		return NETDEV_TX_OK;
	return vbus_queue(vbus_node(dev), skb);
}

static const struct net_device_ops vbus_netdev_ops = {
	.ndo_init = vbus_ndo_init,
	.ndo_uninit = vbus_ndo_uninit,
	.ndo_open = vbus_open,
	.ndo_stop = vbus_stop,
	.ndo_start_xmit = vbus_start_xmit,
	.ndo_change_mtu = can_change_mtu,
};

static int vbus_set_mode(struct net_device *dev, enum can_mode mode)
{
	if (mode != CAN_MODE_START)
		return -EOPNOTSUPP;
	vbus_restart(vbus_node(dev));
	return 0;
}

static void vbus_read_counters(const struct vbus_node *node,
			       struct can_berr_counter *bec)
{
	bec->txerr = min(node->tec, VBUS_COUNTER_MAX);
	bec->rxerr = node->rec;
}

/* Called under RTNL, which keeps the node on its bus or off it; a node
 * on a bus has its counters moved under the bus lock.
 */
static int vbus_get_berr_counter(const struct net_device *dev,
				 struct can_berr_counter *bec)
{
	struct vbus_node *node = vbus_node((struct net_device *)dev);
	struct vbus *bus = node->bus;

	if (!bus) {
		vbus_read_counters(node, bec);
		return 0;
	}
	spin_lock_bh(&bus->lock);
	vbus_read_counters(node, bec);
	spin_unlock_bh(&bus->lock);
	return 0;
}

static int vbus_factory_init(struct net_device *dev,
			     struct netlink_ext_ack *extack)
{
	struct can_priv *priv = netdev_priv(dev);

	dev->netdev_ops = &vbus_netdev_ops;
	dev->flags |= IFF_ECHO;
	priv->clock.freq = VBUS_CLOCK_HZ;
	priv->bittiming_const = &vbus_bittiming_const;
	priv->data_bittiming_const = &vbus_data_bittiming_const;
	priv->ctrlmode_supported = CAN_CTRLMODE_LOOPBACK |
				   CAN_CTRLMODE_LISTENONLY |
				   CAN_CTRLMODE_ONE_SHOT |
				   CAN_CTRLMODE_BERR_REPORTING |
				   CAN_CTRLMODE_PRESUME_ACK |
				   CAN_CTRLMODE_FD |
				   CAN_CTRLMODE_FD_NON_ISO |
				   CAN_CTRLMODE_CC_LEN8_DLC;
	priv->do_set_mode = vbus_set_mode;
	priv->do_set_data_bittiming = vbus_set_data_bittiming;
	priv->do_get_berr_counter = vbus_get_berr_counter;
	return 0;
}

static const struct can_link_factory vbus_factory = {
	.owner = THIS_MODULE,
	.netdev_ops = &vbus_netdev_ops,
	.init = vbus_factory_init,
};

static int __init vbus_init(void)
{
	int err;

	vbus_debugfs_init();
	err = can_link_factory_register(&vbus_factory);
	if (err)
		vbus_debugfs_exit();
	return err;
}

/* No new device can appear once the factory is gone; those that exist
 * are deleted together, and rtnl_unlock() frees them before the code
 * their ops point to goes away.
 */
static void __exit vbus_exit(void)
{
	struct vbus_node *node;
	LIST_HEAD(kill);

	can_link_factory_unregister(&vbus_factory);
	rtnl_lock();
	list_for_each_entry(node, &vbus_devices, all_link)
		unregister_netdevice_queue(node->dev, &kill);
	unregister_netdevice_many(&kill);
	rtnl_unlock();
	vbus_debugfs_exit();
}

module_init(vbus_init);
module_exit(vbus_exit);

MODULE_DESCRIPTION("Virtual CAN bus: controllers made with \"ip link add ... type can\"");
MODULE_AUTHOR("The CAN stack developers");
MODULE_LICENSE("GPL");
