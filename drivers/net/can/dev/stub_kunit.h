/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the device layer's KUnit tests: the netdev side of a stub
 * controller, which drops what it is given to send, and its teardown;
 * and netlink requests made as rtnetlink hands them to changelink.
 */

#ifndef _CAN_STUB_KUNIT_H
#define _CAN_STUB_KUNIT_H

#include <kunit/test.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/rtnetlink.h>
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

/* The attributes of one request, as rtnetlink hands them to changelink. */
struct request {
	struct nlattr *data[IFLA_CAN_MAX + 1];
};

static inline void put_attr(struct kunit *test, struct request *req,
			    int type, const void *payload, int len)
{
	struct nlattr *nla = kunit_kzalloc(test, nla_total_size(len),
					   GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, nla);
	nla->nla_type = type;
	nla->nla_len = nla_attr_size(len);
	memcpy(nla_data(nla), payload, len);
	req->data[type] = nla;
}

static inline void put_bitrate(struct kunit *test, struct request *req,
			       int type, u32 bitrate)
{
	struct can_bittiming bt = { .bitrate = bitrate };

	put_attr(test, req, type, &bt, sizeof(bt));
}

/* What "ip link set" ends in; changelink reads only the CAN attributes. */
static inline int send_request(struct net_device *dev, struct request *req)
{
	int err;

	rtnl_lock();
	err = dev->rtnl_link_ops->changelink(dev, NULL, req->data, NULL);
	rtnl_unlock();
	return err;
}

#endif /* !_CAN_STUB_KUNIT_H */
