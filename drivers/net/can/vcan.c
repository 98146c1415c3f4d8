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

/* Bytes a frame carries on the bus: a remote request carries none. */
static unsigned int vcan_payload_len(const struct sk_buff *skb)
{
	const struct canfd_frame *cfd = (const struct canfd_frame *)skb->data;

	if (can_is_can_skb(skb) && (cfd->can_id & CAN_RTR_FLAG))
		return 0;
	return cfd->len;
}

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

	if (can_dropped_invalid_tx_skb(dev, skb))
		return NETDEV_TX_OK;

	len = vcan_payload_len(skb);
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

/* Only the classic and the FD frame size, and only while down. */
static int vcan_change_mtu(struct net_device *dev, int new_mtu)
{
	if (dev->flags & IFF_UP)
		return -EBUSY;

	if (new_mtu != CAN_MTU && new_mtu != CANFD_MTU)
		return -EINVAL;

	dev->mtu = new_mtu;
	return 0;
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
	.ndo_change_mtu = vcan_change_mtu,
	.ndo_get_stats64 = dev_get_tstats64,
};

/* Software receive and transmit timestamps, nothing from hardware. */
static const struct ethtool_ops vcan_ethtool_ops = {
	.get_ts_info = ethtool_op_get_ts_info,
};

/* dev->ml_priv is the PF_CAN core's: it attaches its per-device receive
 * lists from its netdevice notifier to devices declared CAN. The per-CPU
 * counters are allocated and freed by the networking core
 * (pcpu_stat_type).
 */
static void vcan_setup(struct net_device *dev)
{
	dev->netdev_ops = &vcan_netdev_ops;
	dev->ethtool_ops = &vcan_ethtool_ops;

	/* A CAN frame has no link-layer header or address. */
	dev->type = ARPHRD_CAN;
	can_dev_declare(dev);
	dev->hard_header_len = 0;
	dev->addr_len = 0;
	dev->flags = IFF_NOARP | (echo ? IFF_ECHO : 0);
	dev->mtu = CANFD_MTU;
	/* Nothing to queue for: transmission never waits. */
	dev->tx_queue_len = 0;

	dev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
	dev->needs_free_netdev = true;
}

static struct rtnl_link_ops vcan_link_ops __read_mostly = {
	.kind = VCAN_KIND,
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
