// SPDX-License-Identifier: GPL-2.0
/* Virtual CAN tunnel: a pair of CAN interfaces, typically in two network
 * namespaces, where a frame sent on one end is received on the other.
 * This is how a container gets a CAN interface of its own; the host end
 * is then fed by a program or by can-gw. Local loopback on the sending
 * end is the PF_CAN core's, as on vcan.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/can.h>
#include <linux/can/core.h>
#include <linux/can/skb.h>
#include <linux/can/virtual.h>
#include <linux/can/vxcan.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include <net/rtnetlink.h>

#define VXCAN_KIND "vxcan"

/**
 * struct vxcan_priv - one end of a tunnel
 * @peer: the other end. Written under RTNL only: set by vxcan_newlink()
 *	once both ends are registered, cleared by vxcan_dellink() before
 *	either is unregistered. The transmit path reads it under RCU; an end
 *	without a peer drops what it is given to send.
 * @ml: the CAN protocols' room for this end (can-ml.h)
 */
struct vxcan_priv {
	struct net_device __rcu *peer;
	struct can_ml_priv ml;
};

static struct rtnl_link_ops vxcan_link_ops;

/* Context: RTNL held (checked by rtnl_dereference()). */
static struct net_device *vxcan_peer_rtnl(const struct net_device *dev)
{
	const struct vxcan_priv *priv = netdev_priv(dev);

	return rtnl_dereference(priv->peer);
}

static void vxcan_set_peer(struct net_device *dev, struct net_device *peer)
{
	struct vxcan_priv *priv = netdev_priv(dev);

	ASSERT_RTNL();
	rcu_assign_pointer(priv->peer, peer);
}

/* The frame leaves its sender here. Orphaned, it no longer looks like
 * one of their own to the sockets behind the peer, and the socket's send
 * buffer is freed now. The can-gw hop count (csum_start, valid with
 * CHECKSUM_UNNECESSARY) crosses with it: mainline starts it afresh, so a
 * job from one end of a pair to the other, or two jobs in two namespaces,
 * route one frame round for ever in softirq. It comes in on the peer:
 * the sender's interface index means another device, or none, in the
 * peer's namespace, and can-gw would take it for a job's destination.
 * That index lives in the headroom, which the sender's loopback clone
 * shares, so the data is made private first.
 */
static struct sk_buff *vxcan_hand_over(struct sk_buff *skb,
				       struct net_device *peer)
{
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NULL;
	if (skb_unclone(skb, GFP_ATOMIC)) {
		kfree_skb(skb);
		return NULL;
	}
	can_skb_prv(skb)->ifindex = peer->ifindex;
	skb_orphan(skb);
	skb->dev = peer;
	skb->pkt_type = PACKET_BROADCAST;
	if (skb->ip_summed != CHECKSUM_UNNECESSARY)
		skb->csum_start = 0;
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb_clear_tstamp(skb);
	return skb;
}

/* Context: softirq or process context with BHs off, the device's
 * transmit lock held.
 */
static netdev_tx_t vxcan_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct vxcan_priv *priv = netdev_priv(dev);
	struct net_device *peer;
	unsigned int len;

	if (can_dropped_invalid_skb(dev, skb))
		return NETDEV_TX_OK;

	rcu_read_lock();
	peer = rcu_dereference(priv->peer);
	if (unlikely(!peer)) {
		kfree_skb(skb);
		dev->stats.tx_dropped++;
		goto unlock;
	}

	skb_tx_timestamp(skb);
	len = can_skb_get_data_len(skb);
	skb = vxcan_hand_over(skb, peer);
	if (!skb) {
		dev->stats.tx_dropped++;
		goto unlock;
	}
	/* A frame the peer's backlog refuses is counted there as dropped. */
	if (netif_rx(skb) == NET_RX_SUCCESS) {
		dev_sw_netstats_tx_add(dev, 1, len);
		dev_sw_netstats_rx_add(peer, len);
	}
unlock:
	rcu_read_unlock();
	return NETDEV_TX_OK;
}

/* The carrier is on while both ends are up. */
static int vxcan_open(struct net_device *dev)
{
	struct net_device *peer = vxcan_peer_rtnl(dev);

	if (!peer)
		return -ENOTCONN;

	if (peer->flags & IFF_UP) {
		netif_carrier_on(dev);
		netif_carrier_on(peer);
	}
	netdev_dbg(dev, "up, mtu %u, peer %s\n", dev->mtu, peer->name);
	return 0;
}

static int vxcan_stop(struct net_device *dev)
{
	struct net_device *peer = vxcan_peer_rtnl(dev);

	netif_carrier_off(dev);
	if (peer)
		netif_carrier_off(peer);
	return 0;
}

/* The peer's index, shown as "vxcan0@vxcan1"; 0 once it is gone. */
static int vxcan_get_iflink(const struct net_device *dev)
{
	const struct vxcan_priv *priv = netdev_priv(dev);
	const struct net_device *peer;
	int ifindex = 0;

	rcu_read_lock();
	peer = rcu_dereference(priv->peer);
	if (peer)
		ifindex = peer->ifindex;
	rcu_read_unlock();
	return ifindex;
}

static void vxcan_uninit(struct net_device *dev)
{
	netdev_dbg(dev, "destroyed\n");
}

static const struct net_device_ops vxcan_netdev_ops = {
	.ndo_open = vxcan_open,
	.ndo_stop = vxcan_stop,
	.ndo_uninit = vxcan_uninit,
	.ndo_start_xmit = vxcan_xmit,
	.ndo_get_iflink = vxcan_get_iflink,
	.ndo_change_mtu = can_virtual_change_mtu,
	.ndo_get_stats64 = dev_get_tstats64,
};

static const struct ethtool_ops vxcan_ethtool_ops = {
	.get_ts_info = ethtool_op_get_ts_info,
};

/* Each end has its own MTU: classic, FD or XL, changed while down. */
static void vxcan_setup(struct net_device *dev)
{
	struct vxcan_priv *priv = netdev_priv(dev);

	can_virtual_setup(dev, &priv->ml);
	dev->netdev_ops = &vxcan_netdev_ops;
	dev->ethtool_ops = &vxcan_ethtool_ops;
}

/* The namespace the peer goes to, which the caller must administer. */
static struct net *vxcan_peer_net(struct net *net, struct nlattr **tbp,
				  struct netlink_ext_ack *extack)
{
	struct net *peer_net;

	peer_net = rtnl_link_get_net(net, tbp);
	if (IS_ERR(peer_net))
		return peer_net;
	if (!ns_capable(peer_net->user_ns, CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG(extack, "No permission in the peer's namespace");
		put_net(peer_net);
		return ERR_PTR(-EPERM);
	}
	return peer_net;
}

/* Create and register the second end from the attributes nested in
 * VXCAN_INFO_PEER: its name ("vxcan%d" if none), namespace, MTU and, if
 * the first end got an explicit index, its own index.
 */
static struct net_device *vxcan_create_peer(struct net *net,
					    struct net_device *dev,
					    struct ifinfomsg *ifmp,
					    struct nlattr **tbp,
					    struct netlink_ext_ack *extack)
{
	unsigned char name_type = NET_NAME_ENUM;
	char ifname[IFNAMSIZ] = VXCAN_KIND "%d";
	struct net_device *peer;
	struct net *peer_net;
	int err;

	if (ifmp && tbp[IFLA_IFNAME]) {
		nla_strscpy(ifname, tbp[IFLA_IFNAME], IFNAMSIZ);
		name_type = NET_NAME_USER;
	}

	peer_net = vxcan_peer_net(net, tbp, extack);
	if (IS_ERR(peer_net))
		return ERR_CAST(peer_net);

	peer = rtnl_create_link(peer_net, ifname, name_type, &vxcan_link_ops,
				tbp, extack);
	if (IS_ERR(peer))
		goto put_net;

	if (ifmp && dev->ifindex)
		peer->ifindex = ifmp->ifi_index;

	err = register_netdevice(peer);
	if (err) {
		free_netdev(peer);
		peer = ERR_PTR(err);
		goto put_net;
	}
	netif_carrier_off(peer);

	err = rtnl_configure_link(peer, ifmp, 0, NULL);
	if (err) {
		unregister_netdevice(peer);
		peer = ERR_PTR(err);
	}
put_net:
	put_net(peer_net);
	return peer;
}

/* rtnl_newlink() has allocated @dev and frees it if this fails. The peer
 * comes first, then @dev; they see each other only once both exist, so
 * neither can come up or send before the pair is complete.
 */
static int vxcan_newlink(struct net *net, struct net_device *dev,
			 struct nlattr *tb[], struct nlattr *data[],
			 struct netlink_ext_ack *extack)
{
	struct nlattr *peer_tb[IFLA_MAX + 1], **tbp = tb;
	struct ifinfomsg *ifmp = NULL;
	struct net_device *peer;
	int err;

	ASSERT_RTNL();
	if (data && data[VXCAN_INFO_PEER]) {
		ifmp = nla_data(data[VXCAN_INFO_PEER]);
		err = rtnl_nla_parse_ifinfomsg(peer_tb, data[VXCAN_INFO_PEER],
					       extack);
		if (err)
			return err;
		tbp = peer_tb;
	}

	peer = vxcan_create_peer(net, dev, ifmp, tbp, extack);
	if (IS_ERR(peer))
		return PTR_ERR(peer);

	err = register_netdevice(dev);
	if (err)
		goto unregister_peer;
	netif_carrier_off(dev);

	vxcan_set_peer(dev, peer);
	vxcan_set_peer(peer, dev);
	netdev_dbg(dev, "created, peer %s\n", peer->name);
	return 0;

unregister_peer:
	unregister_netdevice(peer);
	return err;
}

/* Either end takes the other with it. When a namespace dies or the module
 * goes, this runs for both ends of a pair; the second call finds no peer
 * and queues its device again, which unregister_netdevice_queue() allows.
 * A transmit still holding the old peer pointer is safe: unregistering
 * waits for a grace period before a device is freed.
 */
static void vxcan_dellink(struct net_device *dev, struct list_head *head)
{
	struct net_device *peer = vxcan_peer_rtnl(dev);

	vxcan_set_peer(dev, NULL);
	unregister_netdevice_queue(dev, head);
	if (!peer)
		return;
	vxcan_set_peer(peer, NULL);
	unregister_netdevice_queue(peer, head);
}

/* The peer's namespace, for "link-netns" in ip link. */
static struct net *vxcan_get_link_net(const struct net_device *dev)
{
	const struct vxcan_priv *priv = netdev_priv(dev);
	struct net_device *peer = rcu_dereference_rtnl(priv->peer);

	return peer ? dev_net(peer) : dev_net(dev);
}

static const struct nla_policy vxcan_policy[VXCAN_INFO_MAX + 1] = {
	[VXCAN_INFO_PEER] = { .len = sizeof(struct ifinfomsg) },
};

static struct rtnl_link_ops vxcan_link_ops = {
	.kind = VXCAN_KIND,
	.priv_size = sizeof(struct vxcan_priv),
	.setup = vxcan_setup,
	.newlink = vxcan_newlink,
	.dellink = vxcan_dellink,
	.get_link_net = vxcan_get_link_net,
	.policy = vxcan_policy,
	.maxtype = VXCAN_INFO_MAX,
};

static int __init vxcan_init(void)
{
	pr_debug("loaded\n");
	return rtnl_link_register(&vxcan_link_ops);
}

/* rtnl_link_unregister() deletes every pair, in every namespace. */
static void __exit vxcan_exit(void)
{
	rtnl_link_unregister(&vxcan_link_ops);
	pr_debug("unloaded\n");
}

module_init(vxcan_init);
module_exit(vxcan_exit);

MODULE_DESCRIPTION("Virtual CAN tunnel between network namespaces");
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The CAN stack developers");
MODULE_ALIAS_RTNL_LINK(VXCAN_KIND);
