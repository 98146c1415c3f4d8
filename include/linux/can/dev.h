/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CAN device layer (can-dev.ko): what controller drivers share.
 * A driver's private data starts with struct can_priv; the layer does the
 * netlink configuration, error state bookkeeping, bus-off restart and the
 * echo of sent frames.
 */

#ifndef _LINUX_CAN_DEV_LAYER_H
#define _LINUX_CAN_DEV_LAYER_H

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <linux/can/core.h>
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

struct gpio_desc;

/* Slots of can_priv.termination_gpio_ohms: the resistance with the
 * GPIO-switched terminator off and on.
 */
enum can_termination_gpio {
	CAN_TERMINATION_GPIO_DISABLED,
	CAN_TERMINATION_GPIO_ENABLED,
	CAN_TERMINATION_GPIO_MAX,
};

/**
 * struct can_priv - state every CAN device driver keeps first in its priv
 * @dev: the device this belongs to
 * @can_stats: error event counters shown as xstats
 * @bittiming_const: the controller's nominal (arbitration phase) timing
 *	limits, or NULL if its timing is fixed or chosen from @bitrate_const
 * @data_bittiming_const: the same for the CAN FD data phase
 * @bittiming: current nominal bit timing; bitrate CAN_BITRATE_UNSET means
 *	"not configured", CAN_BITRATE_UNKNOWN that the driver cannot tell
 * @data_bittiming: current CAN FD data phase timing
 * @tdc_const: transmitter delay compensation limits, NULL without TDC
 * @tdc: transmitter delay compensation in use
 * @bitrate_const_cnt: number of entries in @bitrate_const
 * @bitrate_const: the only nominal bitrates the device offers, for
 *	devices that take a bitrate rather than bit timing (slcan)
 * @data_bitrate_const: the same for the data phase
 * @data_bitrate_const_cnt: number of entries in @data_bitrate_const
 * @bitrate_max: the transceiver's limit in bit/s, 0 for none known
 * @clock: input clock of the controller
 * @termination_const_cnt: number of entries in @termination_const
 * @termination_const: the bus termination values in ohms the device can
 *	switch between, or NULL
 * @termination: the termination in effect, in ohms
 * @termination_gpio: GPIO that switches the terminator, or NULL
 * @termination_gpio_ohms: resistance with that terminator off and on
 * @echo_skb_max: number of slots in @echo_skb
 * @echo_skb: frames sent and not yet confirmed, indexed by TX slot; the
 *	driver serialises access to each slot (xmit vs. TX-done IRQ)
 * @state: fault confinement state, written by the driver's IRQ handler
 *	through can_change_state() and read by netlink
 * @ctrlmode: CAN_CTRLMODE_* bits in effect
 * @ctrlmode_supported: the bits the user may change over netlink; bits
 *	in @ctrlmode but not here are fixed by the hardware
 * @restart_ms: delay of the automatic restart after bus-off, 0 for none
 * @restart_work: runs the restart; cancelled synchronously on close
 * @do_set_bittiming: program @bittiming into the controller (RTNL held,
 *	device down); optional for drivers that program it in ndo_open
 * @do_set_data_bittiming: the same for @data_bittiming, optional
 * @do_set_mode: start the controller again after bus-off (process context)
 * @do_set_termination: switch the bus termination to the given ohms
 *	(RTNL held); required exactly when @termination_const is set
 * @do_get_berr_counter: read the error counters (any context), optional
 * @do_get_state: read the fault confinement state from the controller
 *	(RTNL held), optional; @state is reported without it
 * @do_get_auto_tdcv: read the delay the controller measured for TDC,
 *	optional
 * @restart_delay_ms: the wait before the next automatic restart, which
 *	grows while bus-off recurs soon after a restart (restart_backoff_ms)
 * @restarted_at: jiffies of the last restart, automatic or by the user
 * @bus_off_at: CLOCK_MONOTONIC time of the last bus-off, 0 if none; frames
 *	written before it are not sent after it for senders that asked so
 *	(CAN_RAW_TX_FLUSH_BUS_OFF)
 *
 * Members from @bittiming_const to @termination_gpio_ohms are set by the
 * driver before register_candev() and changed only under RTNL after it.
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
	const struct can_bittiming_const *data_bittiming_const;
	struct can_bittiming data_bittiming;
	const struct can_tdc_const *tdc_const;
	struct can_tdc tdc;
	u32 bitrate_max;
	const u32 *bitrate_const;
	unsigned int bitrate_const_cnt;
	const u32 *data_bitrate_const;
	unsigned int data_bitrate_const_cnt;

	const u16 *termination_const;
	unsigned int termination_const_cnt;
	u16 termination;
	struct gpio_desc *termination_gpio;
	u16 termination_gpio_ohms[CAN_TERMINATION_GPIO_MAX];

	int restart_ms;
	struct delayed_work restart_work;

	int (*do_set_mode)(struct net_device *dev, enum can_mode mode);
	int (*do_set_bittiming)(struct net_device *dev);
	int (*do_set_data_bittiming)(struct net_device *dev);
	int (*do_set_termination)(struct net_device *dev, u16 term);
	int (*do_get_berr_counter)(const struct net_device *dev,
				   struct can_berr_counter *bec);
	int (*do_get_state)(const struct net_device *dev,
			    enum can_state *state);
	int (*do_get_auto_tdcv)(const struct net_device *dev, u32 *tdcv);

	unsigned int echo_skb_max;
	struct sk_buff **echo_skb;

	/* Ours: the back-off of automatic restarts (dev.c) */
	unsigned int restart_delay_ms;
	unsigned long restarted_at;
	ktime_t bus_off_at;
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
int can_change_mtu(struct net_device *dev, int new_mtu);

#ifdef CONFIG_OF
void of_can_transceiver(struct net_device *dev);
#else
static inline void of_can_transceiver(struct net_device *dev)
{
}
#endif

/* hwts.c */
struct ethtool_ts_info;
int can_eth_ioctl_hwts(struct net_device *netdev, struct ifreq *ifr, int cmd);
int can_ethtool_op_get_ts_info_hwts(struct net_device *dev,
				    struct ethtool_ts_info *info);

struct can_priv *safe_candev_priv(struct net_device *dev);
const char *can_get_state_str(const enum can_state state);
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

static inline bool can_tdc_is_enabled(const struct can_priv *priv)
{
	return priv->ctrlmode & CAN_CTRLMODE_TDC_MASK;
}

/**
 * can_get_relative_tdco() - the TDC offset counted from the sample point
 * @priv: a device with CAN FD data bit timing set
 *
 * struct can_tdc counts the secondary sample point's offset from the
 * measured delay; some controllers want it from the data phase's sample
 * point instead, which is where the first subtraction puts it.
 *
 * Return: the offset in clock periods, negative if the secondary sample
 * point comes before the sample point.
 */
static inline s32 can_get_relative_tdco(const struct can_priv *priv)
{
	const struct can_bittiming *dbt = &priv->data_bittiming;
	s32 sample_point = (CAN_SYNC_SEG + dbt->prop_seg + dbt->phase_seg1) *
			   dbt->brp;

	return (s32)priv->tdc.tdco - sample_point;
}

/**
 * can_set_static_ctrlmode() - modes a controller always runs in
 * @dev: a device from alloc_candev(), before register_candev()
 * @static_mode: CAN_CTRLMODE_* bits the hardware cannot turn off
 *
 * A mode the user may also switch cannot be static. A controller that
 * only speaks CAN FD gets the CAN FD MTU. Process context.
 *
 * Return: 0, or -EINVAL if @static_mode overlaps ctrlmode_supported.
 */
static inline int __must_check can_set_static_ctrlmode(struct net_device *dev,
						       u32 static_mode)
{
	struct can_priv *priv = netdev_priv(dev);

	if (priv->ctrlmode_supported & static_mode) {
		netdev_warn(dev, "control modes 0x%x both static and switchable\n",
			    priv->ctrlmode_supported & static_mode);
		return -EINVAL;
	}
	if (static_mode & CAN_CTRLMODE_FD)
		dev->mtu = CANFD_MTU;
	priv->ctrlmode = static_mode;
	return 0;
}

/* The modes in effect that the user cannot change. */
static inline u32 can_get_static_ctrlmode(struct can_priv *priv)
{
	return priv->ctrlmode & ~priv->ctrlmode_supported;
}

/**
 * can_dev_dropped_skb() - drop a frame a controller driver must not send
 * @dev: the transmitting device, from can-dev
 * @skb: the frame from ndo_start_xmit
 *
 * A controller in listen-only mode never transmits, so a frame queued for
 * it would wait for ever; it is freed and counted in tx_dropped, as is a
 * frame its sender gave up on (can_dev_dropped_stale_skb()). Other
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

	if (unlikely(skb->destructor == can_tx_report_destructor) &&
	    can_dev_dropped_stale_skb(dev, skb))
		return true;
	if (!(priv->ctrlmode & CAN_CTRLMODE_LISTENONLY))
		return can_dropped_invalid_skb(dev, skb);

	netdev_info_once(dev, "listen-only: frames to send are dropped\n");
	kfree_skb(skb);
	dev->stats.tx_dropped++;
	return true;
}

#endif /* !_LINUX_CAN_DEV_LAYER_H */
