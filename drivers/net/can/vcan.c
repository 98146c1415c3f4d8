// SPDX-License-Identifier: GPL-2.0
/* Virtual CAN interface: a CAN bus with nothing on it but the local host.
 * What is sent on a vcan comes back only as the local echo, done either by
 * the PF_CAN core (default) or, with echo=1, by this driver, which lets the
 * core's driver-echo path be tested without hardware.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/can.h>
#include <linux/can/core.h>
#include <linux/can/skb.h>
#include <linux/can/virtual.h>
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/rtnetlink.h>

#define VCAN_KIND "vcan"

/* Read when a device is set up; changing it needs a module reload. */
static bool echo;
module_param(echo, bool, 0444);
MODULE_PARM_DESC(echo, "Loop sent frames back in the driver and set IFF_ECHO (default: off)");

/* Hand a frame we sent back to the stack as if it had come from the bus.
 * The skb still belongs to the sending socket, which is how the receive
 * side recognises the socket's own frames.
 */
static void vcan_echo(struct sk_buff *skb, struct net_device *dev)
{
	skb = can_create_echo_skb(skb);
	if (!skb)
		return;

	skb->pkt_type = PACKET_BROADCAST;
	skb->dev = dev;
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	netif_rx(skb);
}

/* Every valid frame counts as sent. A frame marked for loopback also
 * counts as received, whoever does the loop: the core has already
 * delivered its own clone when we do not echo.
 */
static netdev_tx_t vcan_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	bool is_loopback;
	unsigned int len;

	if (can_dropped_invalid_skb(dev, skb))
		return NETDEV_TX_OK;

	len = can_skb_get_data_len(skb);
	is_loopback = skb->pkt_type == PACKET_LOOPBACK;

	dev_sw_netstats_tx_add(dev, 1, len);
	if (is_loopback)
		dev_sw_netstats_rx_add(dev, len);

	skb_tx_timestamp(skb);

	if (echo && is_loopback)
		vcan_echo(skb, dev);
	else
		consume_skb(skb);

	return NETDEV_TX_OK;
}

static int vcan_open(struct net_device *dev)
{
	netdev_dbg(dev, "up, mtu %u%s\n", dev->mtu, echo ? ", echo" : "");
	return 0;
}

static void vcan_uninit(struct net_device *dev)
{
	netdev_dbg(dev, "destroyed\n");
}

static const struct net_device_ops vcan_netdev_ops = {
	.ndo_open = vcan_open,
	.ndo_uninit = vcan_uninit,
	.ndo_start_xmit = vcan_start_xmit,
	.ndo_change_mtu = can_virtual_change_mtu,
	.ndo_get_stats64 = dev_get_tstats64,
};

/* Software receive and transmit timestamps, nothing from hardware. */
static const struct ethtool_ops vcan_ethtool_ops = {
	.get_ts_info = ethtool_op_get_ts_info,
};

/* A vcan device's private area is only the CAN protocols' room: the
 * PF_CAN core hangs its receive table there from its netdevice notifier.
 */
struct vcan_priv {
	struct can_ml_priv ml;
};

static void vcan_setup(struct net_device *dev)
{
	struct vcan_priv *priv = netdev_priv(dev);

	can_virtual_setup(dev, &priv->ml);
	dev->netdev_ops = &vcan_netdev_ops;
	dev->ethtool_ops = &vcan_ethtool_ops;
	if (echo)
		dev->flags |= IFF_ECHO;
}

static struct rtnl_link_ops vcan_link_ops __read_mostly = {
	.kind = VCAN_KIND,
	.priv_size = sizeof(struct vcan_priv),
	.setup = vcan_setup,
};

static int __init vcan_init(void)
{
	pr_debug("loaded, echo %s\n", echo ? "on" : "off");
	return rtnl_link_register(&vcan_link_ops);
}

static void __exit vcan_exit(void)
{
	rtnl_link_unregister(&vcan_link_ops);
	pr_debug("unloaded\n");
}

module_init(vcan_init);
module_exit(vcan_exit);

MODULE_DESCRIPTION("Virtual CAN interface");
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The CAN stack developers");
MODULE_ALIAS_RTNL_LINK(VCAN_KIND);
