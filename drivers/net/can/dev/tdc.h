/* SPDX-License-Identifier: GPL-2.0 */
/* Transmitter delay compensation over netlink: what netlink.c asks of
 * tdc.c when a request carries TDC settings or a link is dumped.
 */

#ifndef _CAN_DEV_TDC_H
#define _CAN_DEV_TDC_H

#include <linux/can/dev.h>
#include <linux/netlink.h>
#include <linux/skbuff.h>

int can_tdc_check_request(struct nlattr *data[],
			  struct netlink_ext_ack *extack);
int can_tdc_read_values(const struct can_priv *priv, const struct nlattr *nla,
			struct can_tdc *tdc, struct netlink_ext_ack *extack);
size_t can_tdc_get_size(const struct can_priv *priv);
int can_tdc_fill_info(struct sk_buff *skb, const struct net_device *dev);

#endif /* !_CAN_DEV_TDC_H */
