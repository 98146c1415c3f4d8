/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CAN device layer (can-dev.ko): what controller drivers share.
 * A driver's private data starts with struct can_priv; the layer does the
 * netlink configuration, error state bookkeeping, bus-off restart and the
 * echo of sent frames.
 */

#ifndef _LINUX_CAN_DEV_LAYER_H
#define _LINUX_CAN_DEV_LAYER_H

#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <linux/can/skb.h>
#include <linux/can/error.h>
#include <linux/can/netlink.h>
#include <linux/can/bittiming.h>
#include <linux/can/length.h>

enum can_mode {
	CAN_MODE_STOP = 0,
	CAN_MODE_START,
	CAN_MODE_SLEEP
};

/**
 * struct can_priv - state every CAN device driver keeps first in its priv
 * @dev: the device this belongs to
 * @can_stats: error event counters shown as xstats
 * @bittiming: current bit timing; bitrate 0 means "not configured"
 * @bittiming_const: the controller's limits, or NULL if timing is fixed
 * @clock: input clock of the controller
 * @state: fault confinement state, written by the driver's IRQ handler
 *	through can_change_state() and read by netlink
 * @ctrlmode: CAN_CTRLMODE_* bits in effect
 * @ctrlmode_supported: the bits the driver can honour
 * @restart_ms: delay of the automatic restart after bus-off, 0 for none
 * @restart_work: runs the restart; cancelled synchronously on close
 * @do_set_bittiming: program @bittiming into the controller (RTNL held,
 *	device down)
 * @do_set_mode: start the controller again after bus-off (process context)
 * @do_get_berr_counter: read the error counters (any context), optional
 * @echo_skb_max: number of slots in @echo_skb
 * @echo_skb: frames sent and not yet confirmed, indexed by TX slot; the
 *	driver serialises access to each slot (xmit vs. TX-done IRQ)
 */
struct can_priv {
	struct net_device *dev;
	struct can_device_stats can_stats;

	enum can_state state;
	u32 ctrlmode;
	u32 ctrlmode_supported;

	struct can_clock clock;
	const struct can_bittiming_const *bittiming_const;
	struct can_bittiming bittiming;

	int restart_ms;
	struct delayed_work restart_work;

	int (*do_set_bittiming)(struct net_device *dev);
	int (*do_set_mode)(struct net_device *dev, enum can_mode mode);
	int (*do_get_berr_counter)(const struct net_device *dev,
				   struct can_berr_counter *bec);

	unsigned int echo_skb_max;
	struct sk_buff **echo_skb;
};

/* dev.c */
struct net_device *can_dev_alloc(int sizeof_priv, unsigned int echo_skb_max);
void can_dev_free(struct net_device *dev);
int can_dev_register(struct net_device *dev);
void can_dev_unregister(struct net_device *dev);
int can_dev_open(struct net_device *dev);
void can_dev_close(struct net_device *dev);
void can_change_state(struct net_device *dev, struct can_frame *cf,
		      enum can_state tx_state, enum can_state rx_state);
void can_bus_off(struct net_device *dev);
int can_dev_restart_now(struct net_device *dev);
bool can_dev_is_can(const struct net_device *dev);

/* skb.c */
int can_put_echo_skb(struct sk_buff *skb, struct net_device *dev,
		     unsigned int idx);
unsigned int can_get_echo_skb(struct net_device *dev, unsigned int idx);
void can_free_echo_skb(struct net_device *dev, unsigned int idx);
bool can_drop_echo_skb(struct net_device *dev, unsigned int idx);
void can_flush_echo_skbs(struct net_device *dev);
struct sk_buff *can_skb_alloc(struct net_device *dev, struct can_frame **cf);
struct sk_buff *can_err_skb_alloc(struct net_device *dev,
				  struct can_frame **cf);

/* netlink.c */
int can_netlink_register(void);
void can_netlink_unregister(void);
extern struct rtnl_link_ops can_link_ops;

static inline bool can_is_ctrlmode(const struct can_priv *priv, u32 mode)
{
	return priv->ctrlmode & mode;
}

#endif /* !_LINUX_CAN_DEV_LAYER_H */
