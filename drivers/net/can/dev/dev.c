// SPDX-License-Identifier: GPL-2.0
/* The CAN device layer: allocating and registering CAN netdevices,
 * the checks on open and close, fault confinement state changes with
 * their error frames, and recovery from bus-off.
 */

#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/of.h>
#include <linux/ratelimit.h>
#include <linux/rtnetlink.h>
#include <linux/can/can-ml.h>
#include <linux/can/core.h>
#include <linux/can/dev.h>

#include "link_factory.h"

/* A faulty bus goes bus-off and is restarted for as long as it is
 * faulty: these messages come at most three per ten seconds, from all
 * devices together, so that a flapping bus cannot flood the log.
 */
static DEFINE_RATELIMIT_STATE(can_bus_event_ratelimit, 10 * HZ, 3);

/* Recovery policy (ours; both 0 is mainline's behaviour). */
static unsigned int restart_ms;
module_param(restart_ms, uint, 0644);
MODULE_PARM_DESC(restart_ms,
		 "restart-ms of new devices, 0 for manual restart (default 0)");

static unsigned int restart_backoff_ms;
module_param(restart_backoff_ms, uint, 0644);
MODULE_PARM_DESC(restart_backoff_ms,
		 "double the automatic restart delay for each bus-off within this many ms of the last restart, up to it; 0 for off (default 0)");

void can_setup(struct net_device *dev)
{
	dev->type = ARPHRD_CAN;
	dev->flags = IFF_NOARP;
	dev->features = NETIF_F_HW_CSUM;
	dev->tx_queue_len = 10;
	dev->addr_len = 0;
	dev->hard_header_len = 0;
	/* No MTU range, as in mainline ("ip -d link" shows minmtu 0 maxmtu
	 * 0): drivers give can_change_mtu() as ndo_change_mtu instead.
	 */
	dev->mtu = CAN_MTU;
}

/* Restart after bus-off: tell listeners with an error frame, drop what
 * the controller never sent, and start it again. Process context, RTNL
 * not needed: the driver's do_set_mode serialises against its IRQ.
 *
 * The carrier comes back before the controller starts: a bus-off that
 * follows at once (a shorted bus) takes it away again and schedules the
 * next restart, which the carrier being on would refuse.
 */
static int can_restart(struct net_device *dev)
{
	struct can_priv *priv = netdev_priv(dev);
	struct can_frame *cf;
	struct sk_buff *skb;
	int err;

	if (netif_carrier_ok(dev))
		return -EBUSY;

	can_flush_echo_skb(dev);

	skb = alloc_can_err_skb(dev, &cf);
	if (skb) {
		cf->can_id |= CAN_ERR_RESTARTED;
		can_netif_rx(skb);
	}

	priv->can_stats.restarts++;
	priv->restarted_at = jiffies;
	netif_carrier_on(dev);
	err = priv->do_set_mode(dev, CAN_MODE_START);
	if (err) {
		netif_carrier_off(dev);
		if (__ratelimit(&can_bus_event_ratelimit))
			netdev_err(dev, "restart failed: %pe\n", ERR_PTR(err));
		return err;
	}
	/* The queue runs again: writers waiting for room may go on. */
	can_tx_room(dev);
	netdev_dbg(dev, "restarted after bus-off\n");
	return 0;
}

/* A restart scheduled by a bus-off that raced with ndo_stop finds the
 * interface down: starting the controller then would undo the stop.
 */
static void can_restart_work(struct work_struct *work)
{
	struct can_priv *priv = container_of(to_delayed_work(work),
					     struct can_priv, restart_work);

	if (netif_running(priv->dev))
		can_restart(priv->dev);
}

/**
 * can_restart_now() - restart a device in bus-off at the user's request
 * @dev: the device, up
 *
 * Process context, RTNL held (netlink).
 *
 * Return: 0; -EINVAL if automatic restart is configured, -EBUSY if the
 * device is not bus-off, or the driver's error from do_set_mode.
 */
int can_restart_now(struct net_device *dev)
{
	struct can_priv *priv = netdev_priv(dev);

	ASSERT_RTNL();
	/* Automatic restart owns recovery; nothing to recover otherwise. */
	if (priv->restart_ms || priv->state != CAN_STATE_BUS_OFF)
		return priv->restart_ms ? -EINVAL : -EBUSY;

	cancel_delayed_work_sync(&priv->restart_work);
	return can_restart(dev);
}
EXPORT_SYMBOL_GPL(can_restart_now);

/* How long to wait before an automatic restart. With restart_backoff_ms
 * set, a bus-off that comes less than that long after the last restart
 * doubles the wait (up to restart_backoff_ms): a shorted bus is tried
 * ever less often. A device that stayed on the bus that long starts
 * again at its restart-ms. The driver serialises calls (can_bus_off()).
 */
static unsigned int can_restart_delay(struct can_priv *priv)
{
	unsigned int cap = READ_ONCE(restart_backoff_ms);
	unsigned int base = priv->restart_ms;

	if (cap <= base || !priv->restart_delay_ms ||
	    time_after_eq(jiffies, priv->restarted_at + msecs_to_jiffies(cap)))
		priv->restart_delay_ms = base;
	else
		priv->restart_delay_ms = priv->restart_delay_ms > cap / 2 ?
					 cap : 2 * priv->restart_delay_ms;
	return priv->restart_delay_ms;
}

/**
 * can_bus_off() - the controller went bus-off
 * @dev: the device
 *
 * Stops the queue's carrier and, with restart-ms set, schedules the
 * restart. Any context (usually the driver's interrupt handler), after
 * can_change_state() has recorded CAN_STATE_BUS_OFF. A frame the
 * controller was sending is counted as dropped when the driver hands it
 * to can_drop_echo_skb(), or when the restart or close flushes it.
 */
void can_bus_off(struct net_device *dev)
{
	struct can_priv *priv = netdev_priv(dev);

	priv->bus_off_at = ktime_get();
	if (__ratelimit(&can_bus_event_ratelimit))
		netdev_info(dev, "bus-off%s\n",
			    priv->restart_ms ? ", restart scheduled" : "");
	netif_carrier_off(dev);
	if (priv->restart_ms)
		schedule_delayed_work(&priv->restart_work,
				      msecs_to_jiffies(can_restart_delay(priv)));
}
EXPORT_SYMBOL_GPL(can_bus_off);

/* data[1] bits of an error frame, per state, for each side of the link. */
static const u8 crtl_bits[2][CAN_STATE_BUS_OFF] = {
	[0] = { CAN_ERR_CRTL_ACTIVE, CAN_ERR_CRTL_TX_WARNING,
		CAN_ERR_CRTL_TX_PASSIVE },
	[1] = { CAN_ERR_CRTL_ACTIVE, CAN_ERR_CRTL_RX_WARNING,
		CAN_ERR_CRTL_RX_PASSIVE },
};

static u8 state_bits(enum can_state state, bool is_rx)
{
	return state < CAN_STATE_BUS_OFF ? crtl_bits[is_rx][state] : 0;
}

/* Count entries into worse states only; recovery is not an event. */
static void count_state_entry(struct can_priv *priv, enum can_state state)
{
	if (state <= priv->state)
		return;
	if (state == CAN_STATE_ERROR_WARNING)
		priv->can_stats.error_warning++;
	else if (state == CAN_STATE_ERROR_PASSIVE)
		priv->can_stats.error_passive++;
	else if (state == CAN_STATE_BUS_OFF)
		priv->can_stats.bus_off++;
}

/* Names for log messages, in the order of enum can_state. */
static const char *const can_state_names[] = {
	"Error Active", "Error Warning", "Error Passive", "Bus Off",
	"Stopped", "Sleeping",
};

/**
 * can_get_state_str() - human readable name of a fault confinement state
 * @state: the state
 *
 * Any context.
 *
 * Return: a static string, "<unknown>" for a value out of range.
 */
const char *can_get_state_str(const enum can_state state)
{
	BUILD_BUG_ON(ARRAY_SIZE(can_state_names) != CAN_STATE_MAX);
	if ((unsigned int)state >= ARRAY_SIZE(can_state_names))
		return "<unknown>";
	return can_state_names[state];
}
EXPORT_SYMBOL_GPL(can_get_state_str);

/**
 * can_change_state() - record a new fault confinement state
 * @dev: the device
 * @cf: error frame to describe the change in, or NULL
 * @tx_state: state implied by the transmit error counter
 * @rx_state: state implied by the receive error counter
 *
 * The device's state becomes the worse of the two. @cf gets CAN_ERR_BUSOFF,
 * or CAN_ERR_CRTL with the side(s) that caused the change in data[1].
 * Any context; the driver serialises calls (its interrupt handler).
 */
void can_change_state(struct net_device *dev, struct can_frame *cf,
		      enum can_state tx_state, enum can_state rx_state)
{
	struct can_priv *priv = netdev_priv(dev);
	enum can_state state = max(tx_state, rx_state);

	if (state == priv->state)
		return;

	count_state_entry(priv, state);
	priv->state = state;
	if (!cf)
		return;

	if (state == CAN_STATE_BUS_OFF) {
		cf->can_id |= CAN_ERR_BUSOFF;
		return;
	}
	cf->can_id |= CAN_ERR_CRTL;
	if (tx_state >= rx_state)
		cf->data[1] |= state_bits(tx_state, false);
	if (rx_state >= tx_state)
		cf->data[1] |= state_bits(rx_state, true);
}
EXPORT_SYMBOL_GPL(can_change_state);

/**
 * can_init_priv() - set up the device layer's part of a new device
 * @dev: the device, just allocated with can_setup() as its setup
 * @ml: the room for the protocols in its private area
 * @echo_skb: its TX slots, or NULL
 * @echo_skb_max: how many there are
 *
 * Shared by alloc_candev_mqs() and the devices rtnetlink allocates for a
 * link factory (link_factory.c). Process context.
 */
void can_init_priv(struct net_device *dev, struct can_ml_priv *ml,
		   struct sk_buff **echo_skb, unsigned int echo_skb_max)
{
	struct can_priv *priv = netdev_priv(dev);

	can_set_ml_priv(dev, ml);
	priv->dev = dev;
	priv->echo_skb_max = echo_skb_max;
	priv->echo_skb = echo_skb;
	priv->state = CAN_STATE_STOPPED;
	priv->restart_ms = min_t(unsigned int, READ_ONCE(restart_ms), INT_MAX);
	INIT_DELAYED_WORK(&priv->restart_work, can_restart_work);
}

/**
 * alloc_candev_mqs() - allocate a CAN netdevice
 * @sizeof_priv: size of the driver's private data, which starts with
 *	struct can_priv
 * @echo_skb_max: number of TX slots that wait for confirmation
 * @txqs: number of transmit queues, at least 1
 * @rxqs: number of receive queues, at least 1
 *
 * Process context. The device is named can%d and starts in
 * CAN_STATE_STOPPED with no bit timing. Drivers with a single queue of
 * each kind use the alloc_candev() shorthand, those with one count for
 * both alloc_candev_mq().
 *
 * Return: the device, or NULL if memory ran out or @sizeof_priv is
 * smaller than struct can_priv or too large. Free it with free_candev().
 */
struct net_device *alloc_candev_mqs(int sizeof_priv, unsigned int echo_skb_max,
				    unsigned int txqs, unsigned int rxqs)
{
	size_t echo_off, ml_off;
	struct net_device *dev;
	void *priv;

	/* The driver's part, the echo slots, then the protocols' room; a
	 * driver part smaller than struct can_priv, or a total that does not
	 * fit the int alloc_netdev_mqs() takes, would be allocated short.
	 */
	if (sizeof_priv < (int)sizeof(struct can_priv))
		return NULL;
	echo_off = ALIGN(sizeof_priv, sizeof(struct sk_buff *));
	ml_off = echo_off + (size_t)echo_skb_max * sizeof(struct sk_buff *);
	if (ml_off + sizeof(struct can_ml_priv) > INT_MAX)
		return NULL;
	dev = alloc_netdev_mqs(ml_off + sizeof(struct can_ml_priv),
			       "can%d", NET_NAME_UNKNOWN, can_setup,
			       txqs, rxqs);
	if (!dev)
		return NULL;

	priv = netdev_priv(dev);
	can_init_priv(dev, (void *)priv + ml_off,
		      echo_skb_max ? (void *)priv + echo_off : NULL,
		      echo_skb_max);
	netdev_dbg(dev, "allocated\n");
	return dev;
}
EXPORT_SYMBOL_GPL(alloc_candev_mqs);

/**
 * free_candev() - free a device from alloc_candev()
 * @dev: the device, unregistered or never registered
 *
 * Process context. Waits for a restart still scheduled (a bus-off that
 * came after ndo_stop cancelled the last one), which would otherwise
 * run on freed memory.
 */
void free_candev(struct net_device *dev)
{
	struct can_priv *priv = netdev_priv(dev);

	cancel_delayed_work_sync(&priv->restart_work);
	free_netdev(dev);
}
EXPORT_SYMBOL_GPL(free_candev);

/* A table without its length, or termination values without the hook
 * that switches them, would have netlink read or call what is not there.
 */
static bool can_priv_is_consistent(const struct can_priv *priv)
{
	bool has_termination = priv->termination_const;

	return has_termination == !!priv->termination_const_cnt &&
	       has_termination == !!priv->do_set_termination &&
	       !priv->bitrate_const == !priv->bitrate_const_cnt &&
	       !priv->data_bitrate_const == !priv->data_bitrate_const_cnt;
}

/**
 * register_candev() - make a CAN device visible
 * @dev: from alloc_candev(), with the can_priv fields the driver
 *	supports filled in
 *
 * Process context, RTNL not held. do_set_bittiming is optional: a driver
 * without it programs can_priv.bittiming in its ndo_open.
 *
 * Return: 0; -EINVAL if bitrate_const, data_bitrate_const or
 * termination_const comes without its count, or termination_const
 * without do_set_termination (or one of them without the other);
 * register_netdev()'s error.
 */
int register_candev(struct net_device *dev)
{
	struct can_priv *priv = netdev_priv(dev);

	if (!can_priv_is_consistent(priv))
		return -EINVAL;

	dev->rtnl_link_ops = &can_link_ops;
	netif_carrier_off(dev);
	return register_netdev(dev);
}
EXPORT_SYMBOL_GPL(register_candev);

/**
 * can_dev_is_can() - tell whether @dev was created by this layer
 * @dev: any network device
 *
 * Return: true for CAN devices of real controllers.
 */
bool can_dev_is_can(const struct net_device *dev)
{
	return dev->rtnl_link_ops == &can_link_ops;
}
EXPORT_SYMBOL_GPL(can_dev_is_can);

/**
 * safe_candev_priv() - the can_priv of @dev, if it is a CAN device
 * @dev: any network device
 *
 * For code that reaches a device by other means than its driver (an
 * ioctl, a notifier). Any context; the caller keeps @dev alive.
 *
 * Return: the device's struct can_priv, or NULL if @dev was not created
 * by can-dev.
 */
struct can_priv *safe_candev_priv(struct net_device *dev)
{
	if (!can_dev_is_can(dev))
		return NULL;
	return netdev_priv(dev);
}
EXPORT_SYMBOL_GPL(safe_candev_priv);

/**
 * unregister_candev() - remove a CAN device from the system
 * @dev: a registered device; closed first if it is up
 *
 * Process context, RTNL not held.
 */
void unregister_candev(struct net_device *dev)
{
	unregister_netdev(dev);
}
EXPORT_SYMBOL_GPL(unregister_candev);

/**
 * open_candev() - common checks of a driver's ndo_open
 * @dev: the device being opened
 *
 * Process context, RTNL held. Call before starting the controller.
 *
 * Return: 0, or -EINVAL if no bitrate was configured, or CAN FD is on
 * without a data bitrate at least as high as the nominal one.
 */
int open_candev(struct net_device *dev)
{
	struct can_priv *priv = netdev_priv(dev);
	u32 dbitrate = priv->data_bittiming.bitrate;

	ASSERT_RTNL();
	if (!priv->bittiming.bitrate) {
		netdev_err(dev, "no bitrate set: configure one with \"ip link set %s type can bitrate ...\"\n",
			   dev->name);
		return -EINVAL;
	}
	if ((priv->ctrlmode & CAN_CTRLMODE_FD) &&
	    (!dbitrate || dbitrate < priv->bittiming.bitrate)) {
		netdev_err(dev, "CAN FD needs a data bitrate of at least the nominal one\n");
		return -EINVAL;
	}
	netif_carrier_on(dev);
	return 0;
}
EXPORT_SYMBOL_GPL(open_candev);

/**
 * close_candev() - common part of a driver's ndo_stop
 * @dev: the device being closed
 *
 * Process context, RTNL held; the driver must not hold a lock its
 * do_set_mode takes. Cancels a scheduled restart and waits for one that
 * is running, takes the carrier away and drops the frames still waiting
 * in the echo slots, each counted as can_flush_echo_skb() counts it.
 *
 * Call it once the controller's interrupts are silenced: then no TX-done
 * can race with the flush, and no bus-off can schedule a new restart.
 * One that is scheduled anyway finds the interface down and does
 * nothing, and free_candev() cancels it.
 */
void close_candev(struct net_device *dev)
{
	struct can_priv *priv = netdev_priv(dev);

	ASSERT_RTNL();
	cancel_delayed_work_sync(&priv->restart_work);
	netif_carrier_off(dev);
	/* No restart runs now, and the driver's IRQ is quiet: nobody else
	 * touches the slots.
	 */
	can_flush_echo_skb(dev);
}
EXPORT_SYMBOL_GPL(close_candev);

/**
 * can_change_mtu() - ndo_change_mtu of CAN controller drivers
 * @dev: the device, down
 * @new_mtu: CAN_MTU or CANFD_MTU
 *
 * The MTU is the frame type the device carries, so it follows
 * CAN_CTRLMODE_FD: CANFD_MTU turns CAN FD on, which a classic controller
 * refuses, and CAN_MTU turns it off, which a controller that speaks
 * only CAN FD (FD as a static mode) refuses. Process context, RTNL held.
 *
 * Return: 0; -EBUSY while the interface is up; -EINVAL for any other
 * MTU, or for a frame type the controller cannot switch to.
 */
int can_change_mtu(struct net_device *dev, int new_mtu)
{
	struct can_priv *priv = netdev_priv(dev);
	bool fd_is_static = can_get_static_ctrlmode(priv) & CAN_CTRLMODE_FD;
	bool fd_is_possible = fd_is_static ||
			      (priv->ctrlmode_supported & CAN_CTRLMODE_FD);

	ASSERT_RTNL();
	if (dev->flags & IFF_UP)
		return -EBUSY;
	if (new_mtu == CANFD_MTU && fd_is_possible)
		priv->ctrlmode |= CAN_CTRLMODE_FD;
	else if (new_mtu == CAN_MTU && !fd_is_static)
		priv->ctrlmode &= ~CAN_CTRLMODE_FD;
	else
		return -EINVAL;
	dev->mtu = new_mtu;
	return 0;
}
EXPORT_SYMBOL_GPL(can_change_mtu);

#ifdef CONFIG_OF
/**
 * of_can_transceiver - take the bitrate limit from the device tree
 * @dev: a CAN device whose parent may have a "can-transceiver" child node
 *
 * Process context, before register_candev(). Sets bitrate_max from the
 * node's "max-bitrate" property, which netlink then enforces and
 * reports. No node or no property is no limit; an unreadable or zero
 * property is reported and ignored.
 */
void of_can_transceiver(struct net_device *dev)
{
	struct can_priv *priv = netdev_priv(dev);
	struct device_node *xcvr;
	u32 max;
	int err;

	if (!dev->dev.parent)
		return;
	xcvr = of_get_child_by_name(dev->dev.parent->of_node, "can-transceiver");
	if (!xcvr)
		return;
	err = of_property_read_u32(xcvr, "max-bitrate", &max);
	of_node_put(xcvr);
	if (err == -EINVAL)
		return;
	if (err || !max) {
		netdev_warn(dev, "transceiver max-bitrate unusable (%d), no limit applied\n",
			    err);
		return;
	}
	priv->bitrate_max = max;
}
EXPORT_SYMBOL_GPL(of_can_transceiver);
#endif

static int __init can_dev_init(void)
{
	int err;

	err = can_netlink_register();
	if (err)
		return err;
	pr_debug("can-dev: loaded\n");
	return 0;
}

static void __exit can_dev_exit(void)
{
	can_netlink_unregister();
}

module_init(can_dev_init);
module_exit(can_dev_exit);

MODULE_DESCRIPTION("CAN device layer: netlink configuration, states, echo");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RTNL_LINK("can");
