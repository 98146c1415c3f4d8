/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the device layer: how netlink.c creates and deletes the devices
 * of a link factory, and what link_factory.c takes from dev.c for that.
 */

#ifndef _CAN_DEV_LINK_FACTORY_H
#define _CAN_DEV_LINK_FACTORY_H

#include <linux/can/link-factory.h>
#include <net/rtnetlink.h>

/* dev.c */
void can_setup(struct net_device *dev);
void can_init_priv(struct net_device *dev, struct can_ml_priv *ml,
		   struct sk_buff **echo_skb, unsigned int echo_skb_max);

/* changelink's signature: how netlink.c applies attributes */
typedef int (*can_link_configure_t)(struct net_device *dev,
				    struct nlattr *tb[], struct nlattr *data[],
				    struct netlink_ext_ack *extack);

/* link_factory.c */
void can_link_factory_setup(struct net_device *dev);
int can_link_factory_newlink(struct net_device *dev, struct nlattr *data[],
			     can_link_configure_t configure,
			     struct netlink_ext_ack *extack);
void can_link_factory_dellink(struct net_device *dev, struct list_head *head);

#endif /* !_CAN_DEV_LINK_FACTORY_H */
