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
struct net_device *alloc_candev_mqs(int sizeof_priv, unsigned int echo_skb_max,
				    unsigned int txqs, unsigned int rxqs);
#define alloc_candev(sizeof_priv, echo_skb_max) \
	alloc_candev_mqs(sizeof_priv, echo_skb_max, 1, 1)

/* One count for both directions; a function, as it uses @count twice. */
static inline struct net_device *alloc_candev_mq(int sizeof_priv,
						 unsigned int echo_skb_max,
						 unsigned int count)
{
	return alloc_candev_mqs(sizeof_priv, echo_skb_max, count, count);
}

void free_candev(struct net_device *dev);
int register_candev(struct net_device *dev);
void unregister_candev(struct net_device *dev);
int open_candev(struct net_device *dev);
void close_candev(struct net_device *dev);
void can_change_state(struct net_device *dev, struct can_frame *cf,
		      enum can_state tx_state, enum can_state rx_state);
void can_bus_off(struct net_device *dev);
int can_restart_now(struct net_device *dev);
bool can_dev_is_can(const struct net_device *dev);

/* netlink.c */
int can_netlink_register(void);
void can_netlink_unregister(void);
extern struct rtnl_link_ops can_link_ops;

static inline bool can_is_ctrlmode(const struct can_priv *priv, u32 mode)
{
	return priv->ctrlmode & mode;
}

/**
 * can_dev_dropped_skb() - drop a frame a controller driver must not send
 * @dev: the transmitting device, from can-dev
 * @skb: the frame from ndo_start_xmit
 *
 * A controller in listen-only mode never transmits, so a frame queued for
 * it would wait for ever; it is freed and counted in tx_dropped. Other
 * frames get the checks of can_dropped_invalid_skb(). Any context
 * (ndo_start_xmit).
 *
 * Return: true if @skb was dropped and the driver must return
 * NETDEV_TX_OK without touching it.
 */
static inline bool can_dev_dropped_skb(struct net_device *dev,
				       struct sk_buff *skb)
{
	struct can_priv *priv = netdev_priv(dev);

	if (!(priv->ctrlmode & CAN_CTRLMODE_LISTENONLY))
		return can_dropped_invalid_skb(dev, skb);

	netdev_info_once(dev, "listen-only: frames to send are dropped\n");
	kfree_skb(skb);
	dev->stats.tx_dropped++;
	return true;
}

#endif /* !_LINUX_CAN_DEV_LAYER_H */
