/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-device data of the CAN protocols. A CAN driver reserves a
 * struct can_ml_priv in its private area and points dev->ml_priv at it
 * (type ML_PRIV_CAN) before registering the device; that is also what
 * makes the PF_CAN core serve the device. The room lives as long as the
 * net_device does, so a protocol may still find its state there after
 * the device has unregistered, while its last sockets close.
 */

#ifndef _CAN_ML_H
#define _CAN_ML_H

#include <linux/atomic.h>
#include <linux/netdevice.h>
#include <linux/wait.h>

struct can_rx_table;
struct j1939_priv;

/**
 * struct can_ml_priv - what the CAN protocols keep per device
 * @rx_table: the core's receive table, there while the device is
 *	registered: set from the core's netdevice notifier under RTNL,
 *	cleared under RTNL and the namespace's rx_lock; read under RCU
 *	(softirq, rx_lock, or rcu_read_lock()) or RTNL
 * @j1939_priv: the SAE J1939 protocol's state for the device, under
 *	that protocol's own locking
 * @tx_wait: writers waiting for room in the device's TX queue
 *	(CAN_RAW_TX_WAIT), and poll entries of sockets bound to the device;
 *	its own lock. Woken by can_tx_room().
 * @tx_room_seq: bumped by every can_tx_room(), so that a writer that
 *	read it before an attempt knows whether anything happened since;
 *	atomic, no lock
 *
 * Zeroed with the driver's private area, @tx_wait set up by
 * can_set_ml_priv() (by the core when the device registers, for a driver
 * built against mainline's headers); the driver never touches it.
 */
struct can_ml_priv {
	struct can_rx_table __rcu *rx_table;
	struct j1939_priv *j1939_priv;
	struct wait_queue_head tx_wait;
	atomic_t tx_room_seq;
};

/*
 * The size of struct can_ml_priv as our can.ko was built with it. Only our
 * core exports it, and can_set_ml_priv() reads it, so every driver that
 * reserves the room needs our can.ko and cannot load over another core:
 * mainline's keeps 24 KiB of receive lists where our room has some 50
 * bytes. The suffix changes whenever the room's layout does (v2: the TX
 * wait queue).
 */
extern const size_t can_stack_core_v2;

/**
 * can_set_ml_priv() - declare @dev a CAN device, before registering it
 * @dev: a device of type ARPHRD_CAN being set up
 * @ml_priv: the room reserved in the driver's private area, zeroed
 *
 * A driver built with another layout of the room than the core's leaves
 * @dev undeclared: the core then serves no such device.
 */
static inline void can_set_ml_priv(struct net_device *dev,
				   struct can_ml_priv *ml_priv)
{
	if (WARN_ON_ONCE(can_stack_core_v2 != sizeof(*ml_priv)))
		return;
	init_waitqueue_head(&ml_priv->tx_wait);
	netdev_set_ml_priv(dev, ml_priv, ML_PRIV_CAN);
}

/**
 * can_get_ml_priv() - the CAN protocols' data of @dev
 * @dev: any network device
 *
 * Return: the room the driver reserved, or NULL if @dev was not
 * declared a CAN device.
 */
static inline struct can_ml_priv *can_get_ml_priv(struct net_device *dev)
{
	return netdev_get_ml_priv(dev, ML_PRIV_CAN);
}

#endif /* !_CAN_ML_H */
