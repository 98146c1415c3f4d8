/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the virtual CAN devices (vcan, vxcan) share: the shape of the
 * link and the MTUs they take.
 */

#ifndef _CAN_VIRTUAL_H
#define _CAN_VIRTUAL_H

#include <linux/can/can-ml.h>
#include <linux/can/core.h>
#include <linux/can/skb.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>

/**
 * can_virtual_setup() - make @dev a virtual CAN device
 * @dev: the device, from the rtnl_link_ops setup callback
 * @ml: the room for the CAN protocols in @dev's private area
 *
 * Declared CAN, so that the core attaches its receive table; no
 * link-layer header or address, no ARP; the CAN FD MTU to start with;
 * no queue, since sending never waits. The networking core allocates
 * and frees the per-CPU counters (pcpu_stat_type) and frees the device
 * once it is unregistered. The caller sets the ops and any more flags.
 */
static inline void can_virtual_setup(struct net_device *dev,
				     struct can_ml_priv *ml)
{
	dev->type = ARPHRD_CAN;
	can_set_ml_priv(dev, ml);
	dev->hard_header_len = 0;
	dev->addr_len = 0;
	dev->flags = IFF_NOARP;
	dev->mtu = CANFD_MTU;
	dev->tx_queue_len = 0;
	dev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
	dev->needs_free_netdev = true;
}

/**
 * can_virtual_change_mtu() - ndo_change_mtu of the virtual CAN devices
 * @dev: the device
 * @new_mtu: CAN_MTU, CANFD_MTU or an MTU of the CAN XL range
 *
 * Context: RTNL held.
 * Return: 0; -EBUSY while @dev is up; -EINVAL for any other MTU.
 */
static inline int can_virtual_change_mtu(struct net_device *dev, int new_mtu)
{
	if (dev->flags & IFF_UP)
		return -EBUSY;
	if (!can_is_frame_mtu(new_mtu))
		return -EINVAL;
	dev->mtu = new_mtu;
	return 0;
}

#endif /* !_CAN_VIRTUAL_H */
