/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mark a CAN driver puts on its devices so that the PF_CAN core
 * serves them: dev->ml_priv of type ML_PRIV_CAN.
 *
 * Mainline's virtual drivers (vcan, vxcan) reserve a struct can_ml_priv
 * in their private area and point dev->ml_priv at it. Our core keeps
 * its receive table elsewhere and puts it in dev->ml_priv when the
 * device registers, so here the structure is only room reserved and
 * the type is what counts (see can_dev_declare() in core.h). There is
 * deliberately no accessor that reads it back: dev->ml_priv belongs to
 * the core once the device is registered.
 */

#ifndef _CAN_ML_H
#define _CAN_ML_H

#include <linux/netdevice.h>

/**
 * struct can_ml_priv - room a driver reserves for the core's per-device data
 * @reserved: never read or written by anyone
 */
struct can_ml_priv {
	unsigned long reserved;
};

/**
 * can_set_ml_priv() - declare @dev a CAN device, before registering it
 * @dev: a device of type ARPHRD_CAN being set up
 * @ml_priv: the room reserved in the driver's private area
 */
static inline void can_set_ml_priv(struct net_device *dev,
				   struct can_ml_priv *ml_priv)
{
	netdev_set_ml_priv(dev, ml_priv, ML_PRIV_CAN);
}

#endif /* !_CAN_ML_H */
