// SPDX-License-Identifier: GPL-2.0
/* The MCP251x as a CAN network device: bit timing and operating modes,
 * open and close, and transmission through TXB0. SPI sleeps, so
 * ndo_start_xmit hands each frame to a work item; one frame is in flight
 * at a time, which keeps frames on the bus in the order they were sent.
 */

#include <linux/delay.h>
#include <linux/ethtool.h>
#include <linux/interrupt.h>
#include "mcp251x.h"

/* A mode request takes effect once the pending transmissions are done
 * (sent or aborted): at most one frame time, 160 bits at 10 kbit/s.
 */
#define MCP251X_MODE_TIMEOUT_US		20000

static const struct can_bittiming_const mcp251x_bittiming_const = {
	.name = "mcp251x",
	.tseg1_min = 3, .tseg1_max = 16,	/* PRSEG + PHSEG1, 3 bits each */
	.tseg2_min = 2, .tseg2_max = 8,		/* PHSEG2, 3 bits */
	.sjw_max = 4,				/* CNF1 SJW, 2 bits */
	.brp_min = 1, .brp_max = 64, .brp_inc = 1,	/* CNF1 BRP, 6 bits */
};

/**
 * mcp251x_set_mode() - request an operating mode and wait for it
 * @priv: the chip; priv->lock held, process context
 * @mode: MCP251X_MODE_*, possibly with MCP251X_CANCTRL_ABAT
 *
 * Return: 0, the SPI error, or -ETIMEDOUT if the chip kept its old mode.
 */
int mcp251x_set_mode(struct mcp251x_priv *priv, u8 mode)
{
	unsigned long deadline;
	u8 stat;
	int err;

	err = mcp251x_write_reg(priv, MCP251X_CANCTRL, mode);
	if (err)
		return err;
	deadline = jiffies + usecs_to_jiffies(MCP251X_MODE_TIMEOUT_US) + 1;
	do {
		err = mcp251x_read_reg(priv, MCP251X_CANSTAT, &stat);
		if (err)
			return err;
		if ((stat & MCP251X_REQOP_MASK) == (mode & MCP251X_REQOP_MASK))
			return 0;
		usleep_range(50, 100);
	} while (time_before(jiffies, deadline));

	/* Each restart after bus-off tries again: keep the log readable. */
	if (net_ratelimit())
		netdev_err(priv->net, "chip did not enter mode 0x%02x (CANSTAT 0x%02x)\n",
			   mode, stat);
	return -ETIMEDOUT;
}

/* The operating mode the configured control modes ask for. */
static u8 run_mode(const struct mcp251x_priv *priv)
{
	if (can_is_ctrlmode(&priv->can, CAN_CTRLMODE_LOOPBACK))
		return MCP251X_MODE_LOOPBACK;
	if (can_is_ctrlmode(&priv->can, CAN_CTRLMODE_LISTENONLY))
		return MCP251X_MODE_LISTENONLY;
	return MCP251X_MODE_NORMAL;
}

/* PRSEG and PHSEG1 hold 1 to 8 quanta each; move quanta between them if
 * the user's split does not fit (prop-seg 0 among others), keeping the
 * sample point. The device layer keeps tseg1 within 3..16.
 */
static void split_tseg1(const struct can_bittiming *bt, u8 *prop, u8 *ph1)
{
	u32 tseg1 = bt->prop_seg + bt->phase_seg1;
	u32 lo = tseg1 > 8 ? tseg1 - 8 : 1;
	u32 hi = tseg1 > 8 ? 8 : tseg1 - 1;

	*ph1 = clamp_t(u32, bt->phase_seg1, lo, hi);
	*prop = tseg1 - *ph1;
}

static int write_bittiming(struct mcp251x_priv *priv)
{
	const struct can_bittiming *bt = &priv->can.bittiming;
	u8 cnf[3], prop, ph1;

	split_tseg1(bt, &prop, &ph1);
	cnf[2] = ((bt->sjw - 1) << MCP251X_CNF1_SJW_SHIFT) | (bt->brp - 1);
	cnf[1] = MCP251X_CNF2_BTLMODE | ((ph1 - 1) << MCP251X_CNF2_PHSEG1_SHIFT) |
		 (prop - 1);
	if (can_is_ctrlmode(&priv->can, CAN_CTRLMODE_3_SAMPLES))
		cnf[1] |= MCP251X_CNF2_SAM;
	cnf[0] = bt->phase_seg2 - 1;

	netdev_dbg(priv->net, "CNF1 0x%02x CNF2 0x%02x CNF3 0x%02x\n",
		   cnf[2], cnf[1], cnf[0]);
	return mcp251x_write_reg(priv, MCP251X_CNF3, cnf[0]) ?:
	       mcp251x_write_reg(priv, MCP251X_CNF2, cnf[1]) ?:
	       mcp251x_write_reg(priv, MCP251X_CNF1, cnf[2]);
}

/* Bus errors come often on a faulty bus; report them only when asked. */
static u8 irq_enable_bits(const struct mcp251x_priv *priv)
{
	u8 bits = MCP251X_INT_RX | MCP251X_INT_TX0 | MCP251X_INT_ERR;

	if (can_is_ctrlmode(&priv->can, CAN_CTRLMODE_BERR_REPORTING))
		bits |= MCP251X_INT_MERR;
	return bits;
}

/**
 * mcp251x_chip_start() - reset and program the chip, then let it run
 * @priv: the chip; priv->lock held, process context
 *
 * Both receive buffers take every frame, RXB0 rolling over into RXB1.
 * The device's state becomes error active.
 *
 * Return: 0 or the error of the step that failed (chip left in
 * configuration mode or unknown).
 */
int mcp251x_chip_start(struct mcp251x_priv *priv)
{
	int err;

	lockdep_assert_held(&priv->lock);
	err = mcp251x_reset(priv);
	if (err)
		return err;
	priv->berr_paused = false;	/* MERRIE as irq_enable_bits() says */
	err = mcp251x_set_mode(priv, MCP251X_MODE_CONFIG) ?:
	      write_bittiming(priv) ?:
	      mcp251x_write_reg(priv, MCP251X_RXBCTRL(0),
				MCP251X_RXB_RXM_ANY | MCP251X_RXB0_BUKT) ?:
	      mcp251x_write_reg(priv, MCP251X_RXBCTRL(1), MCP251X_RXB_RXM_ANY) ?:
	      mcp251x_write_reg(priv, MCP251X_CANINTE, irq_enable_bits(priv)) ?:
	      mcp251x_set_mode(priv, run_mode(priv));
	if (err)
		return err;
	priv->bec.txerr = 0;
	priv->bec.rxerr = 0;
	priv->can.state = CAN_STATE_ERROR_ACTIVE;
	return 0;
}

/**
 * mcp251x_chip_stop() - silence the chip and let it sleep
 * @priv: the chip; priv->lock held, process context
 *
 * Interrupts off first, so the line goes quiet even if the chip does
 * not reach sleep mode. A mode change waits for pending transmissions,
 * and a frame nobody acknowledges is repeated for ever: abort it.
 *
 * Return: 0 or the SPI error.
 */
int mcp251x_chip_stop(struct mcp251x_priv *priv)
{
	lockdep_assert_held(&priv->lock);
	priv->can.state = CAN_STATE_STOPPED;
	return mcp251x_write_reg(priv, MCP251X_CANINTE, 0) ?:
	       mcp251x_write_reg(priv, MCP251X_CANINTF, 0) ?:
	       mcp251x_set_mode(priv, MCP251X_MODE_SLEEP | MCP251X_CANCTRL_ABAT);
}

/* A node alone on the bus, or on a broken one, fails every frame: at
 * 1 Mbit/s a bus error every 50 us, faster than one SPI pass of the
 * interrupt thread, which would then never find the chip quiet and, a
 * real-time thread, starve everything else. After each reported bus
 * error MERRIE stays off, and the thread leaves MERRF alone, for a
 * pause: at most 50 bus-error reports a second, whatever the bit rate
 * and however slow the SPI bus. Errors in between still count in
 * TEC/REC and the state.
 */
#define MCP251X_BERR_PAUSE	max(1, HZ / 50)	/* jiffies */

/**
 * mcp251x_pause_bus_errors() - hold back bus-error interrupts for a while
 * @priv: the chip; priv->lock held, from the interrupt thread
 *
 * Return: nothing; an SPI error leaves MERRIE on (the next pass retries).
 */
void mcp251x_pause_bus_errors(struct mcp251x_priv *priv)
{
	lockdep_assert_held(&priv->lock);
	if (mcp251x_bit_modify(priv, MCP251X_CANINTE, MCP251X_INT_MERR, 0))
		return;
	priv->berr_paused = true;
	queue_delayed_work(priv->wq, &priv->berr_work, MCP251X_BERR_PAUSE);
}

/* MERRF set during the pause raises the interrupt as MERRIE returns. */
static void mcp251x_berr_work(struct work_struct *work)
{
	struct mcp251x_priv *priv = container_of(to_delayed_work(work),
						 struct mcp251x_priv,
						 berr_work);

	mutex_lock(&priv->lock);
	priv->berr_paused = false;
	if (priv->is_open && priv->can.state != CAN_STATE_BUS_OFF &&
	    can_is_ctrlmode(&priv->can, CAN_CTRLMODE_BERR_REPORTING))
		mcp251x_bit_modify(priv, MCP251X_CANINTE, MCP251X_INT_MERR,
				   MCP251X_INT_MERR);
	mutex_unlock(&priv->lock);
}

/* The chip is programmed at open, after a reset: nothing to do here but
 * accept the timing, which the device layer has checked against the limits.
 */
static int mcp251x_set_bittiming(struct net_device *net)
{
	return 0;
}

/* Restart after bus-off, from the device layer's work or netlink. The
 * interface may be on its way down (its running bit goes before
 * ndo_stop is called): a chip ndo_stop has silenced stays so.
 */
static int mcp251x_do_set_mode(struct net_device *net, enum can_mode mode)
{
	struct mcp251x_priv *priv = netdev_priv(net);
	int err;

	if (mode != CAN_MODE_START)
		return -EOPNOTSUPP;

	mutex_lock(&priv->lock);
	if (netif_running(net))
		err = mcp251x_chip_start(priv);
	else
		err = -ENETDOWN;
	/* The chip is empty now. A frame the TX work has not taken yet
	 * keeps the queue stopped: the work wakes it (decided under the
	 * lock, so the work cannot load a frame between check and wake).
	 */
	if (!err) {
		priv->is_open = true;
		if (!READ_ONCE(priv->tx_skb))
			netif_wake_queue(net);
	}
	mutex_unlock(&priv->lock);
	return err;
}

/* Counters change without an interrupt (only state changes raise one),
 * so a running chip is asked. Process context (netlink, RTNL held).
 */
static int mcp251x_get_berr_counter(const struct net_device *net,
				    struct can_berr_counter *bec)
{
	struct mcp251x_priv *priv = netdev_priv(net);
	u8 tec_rec[2];
	int err = 0;

	mutex_lock(&priv->lock);
	if (priv->is_open)
		err = mcp251x_read_regs(priv, MCP251X_TEC, tec_rec, 2);
	if (priv->is_open && !err) {
		priv->bec.txerr = tec_rec[0];
		priv->bec.rxerr = tec_rec[1];
	}
	*bec = priv->bec;
	mutex_unlock(&priv->lock);
	return err;
}

/* TXB0's registers from SIDH on, for @cf, into @buf of MCP251X_BUF_LEN.
 * The shared check in ndo_start_xmit lets only classic frames through;
 * the stack buffer does not rely on it.
 * Return: bytes to load, or -EMSGSIZE for more than 8 data bytes.
 */
static int encode_frame(const struct mcp251x_priv *priv,
			const struct can_frame *cf, u8 *buf)
{
	canid_t id = cf->can_id;

	if (cf->len > CAN_MAX_DLEN)
		return -EMSGSIZE;
	if (id & CAN_EFF_FLAG) {
		buf[MCP251X_BUF_SIDH] = id >> 21;
		buf[MCP251X_BUF_SIDL] = (((id >> 18) & 0x7) << 5) |
			MCP251X_SIDL_EXIDE | ((id >> 16) & MCP251X_SIDL_EID_MASK);
		buf[MCP251X_BUF_EID8] = id >> 8;
		buf[MCP251X_BUF_EID0] = id;
	} else {
		buf[MCP251X_BUF_SIDH] = (id & CAN_SFF_MASK) >> 3;
		buf[MCP251X_BUF_SIDL] = (id & 0x7) << 5;
		buf[MCP251X_BUF_EID8] = 0;
		buf[MCP251X_BUF_EID0] = 0;
	}
	buf[MCP251X_BUF_DLC] = can_get_cc_dlc(cf, priv->can.ctrlmode);
	if (id & CAN_RTR_FLAG) {
		buf[MCP251X_BUF_DLC] |= MCP251X_DLC_RTR;
		return MCP251X_BUF_DATA;
	}
	memcpy(buf + MCP251X_BUF_DATA, cf->data, cf->len);
	return MCP251X_BUF_DATA + cf->len;
}

/* Load and send the frame ndo_start_xmit left; its echo waits in slot 0
 * for the TX interrupt.
 */
static void mcp251x_tx_work(struct work_struct *work)
{
	struct mcp251x_priv *priv = container_of(work, struct mcp251x_priv,
						 tx_work);
	struct net_device *net = priv->net;
	u8 buf[MCP251X_BUF_LEN];
	struct sk_buff *skb;
	int len, err = -ENETDOWN;

	mutex_lock(&priv->lock);
	skb = xchg(&priv->tx_skb, NULL);
	if (!skb)
		goto out;
	/* Bus-off holds the chip in configuration mode, where RTS is void. */
	if (priv->is_open && priv->can.state != CAN_STATE_BUS_OFF) {
		len = encode_frame(priv, (struct can_frame *)skb->data, buf);
		err = len < 0 ? len : mcp251x_load_tx_buffer(priv, 0, buf, len);
	}
	if (err) {
		net->stats.tx_dropped++;
		kfree_skb(skb);
		netif_wake_queue(net);
		goto out;
	}
	can_put_echo_skb(skb, net, 0, 0);
	err = mcp251x_request_to_send(priv, 0);
	if (err) {
		net->stats.tx_errors++;
		can_free_echo_skb(net, 0, NULL);
		netif_wake_queue(net);
	}
out:
	mutex_unlock(&priv->lock);
}

static netdev_tx_t mcp251x_start_xmit(struct sk_buff *skb,
				      struct net_device *net)
{
	struct mcp251x_priv *priv = netdev_priv(net);

	if (can_dev_dropped_skb(net, skb))
		return NETDEV_TX_OK;

	netif_stop_queue(net);
	/* A restart wakes the queue even while a frame waits for the work.
	 * The qdisc keeps this one; the work wakes the queue once it has
	 * taken the waiting frame (it cannot have done so before the stop
	 * above, the frame was still there).
	 */
	if (cmpxchg(&priv->tx_skb, NULL, skb))
		return NETDEV_TX_BUSY;
	queue_work(priv->wq, &priv->tx_work);
	return NETDEV_TX_OK;
}

static int mcp251x_open(struct net_device *net)
{
	struct mcp251x_priv *priv = netdev_priv(net);
	int err;

	err = open_candev(net);
	if (err)
		return err;
	err = mcp251x_supply_on(priv->transceiver);
	if (err)
		goto undo_can_open;
	/* The chip sleeps with its interrupts off, so the line is quiet. */
	err = request_threaded_irq(priv->spi->irq, NULL, mcp251x_irq_thread,
				   IRQF_ONESHOT, dev_name(&priv->spi->dev), priv);
	if (err)
		goto undo_transceiver;

	mutex_lock(&priv->lock);
	err = mcp251x_chip_start(priv);
	priv->is_open = !err;
	if (err)
		mcp251x_chip_stop(priv);
	mutex_unlock(&priv->lock);
	if (err)
		goto undo_irq;

	netif_start_queue(net);
	return 0;

undo_irq:
	free_irq(priv->spi->irq, priv);
undo_transceiver:
	mcp251x_supply_off(priv->transceiver);
undo_can_open:
	close_candev(net);
	return err;
}

/* Teardown order: the chip goes quiet under the lock, so no later
 * interrupt thread or TX work touches it; free_irq() waits for a thread
 * still running. Only then can no bus-off schedule a restart, so the
 * device layer's cancel comes after (a restart already running finds
 * the interface down and leaves the chip alone), and its flush of the
 * echo slot races with nothing: TX work that runs later sees the chip
 * closed and puts no frame there. The work is cancelled once nothing
 * can queue it.
 */
static int mcp251x_stop(struct net_device *net)
{
	struct mcp251x_priv *priv = netdev_priv(net);
	struct sk_buff *skb;

	netif_stop_queue(net);

	mutex_lock(&priv->lock);
	priv->is_open = false;
	mcp251x_chip_stop(priv);
	mutex_unlock(&priv->lock);

	free_irq(priv->spi->irq, priv);
	close_candev(net);
	cancel_work_sync(&priv->tx_work);
	cancel_delayed_work_sync(&priv->berr_work);
	skb = xchg(&priv->tx_skb, NULL);
	if (skb) {
		net->stats.tx_dropped++;
		kfree_skb(skb);
	}
	mcp251x_supply_off(priv->transceiver);
	return 0;
}

static const struct net_device_ops mcp251x_netdev_ops = {
	.ndo_open	= mcp251x_open,
	.ndo_stop	= mcp251x_stop,
	.ndo_start_xmit	= mcp251x_start_xmit,
	.ndo_change_mtu	= can_change_mtu,
};

/* Software timestamps only, as for any CAN device without a clock. */
static const struct ethtool_ops mcp251x_ethtool_ops = {
	.get_ts_info	= ethtool_op_get_ts_info,
};

/**
 * mcp251x_alloc() - allocate the CAN device of one chip
 * @spi: the SPI device
 * @model: which chip it is
 * @osc_hz: the chip's oscillator frequency; the CAN clock is half of it
 *
 * Process context. The caller sets up the regulators and SPI buffers.
 *
 * Return: the device or NULL if memory ran out; free with free_candev().
 */
struct net_device *mcp251x_alloc(struct spi_device *spi,
				 enum mcp251x_model model, u32 osc_hz)
{
	struct mcp251x_priv *priv;
	struct net_device *net;

	net = alloc_candev(sizeof(*priv), 1);
	if (!net)
		return NULL;

	priv = netdev_priv(net);
	priv->net = net;
	priv->spi = spi;
	priv->model = model;
	mutex_init(&priv->lock);
	INIT_WORK(&priv->tx_work, mcp251x_tx_work);
	INIT_DELAYED_WORK(&priv->berr_work, mcp251x_berr_work);

	priv->can.clock.freq = osc_hz / 2;
	priv->can.bittiming_const = &mcp251x_bittiming_const;
	priv->can.do_set_bittiming = mcp251x_set_bittiming;
	priv->can.do_set_mode = mcp251x_do_set_mode;
	priv->can.do_get_berr_counter = mcp251x_get_berr_counter;
	priv->can.ctrlmode_supported = CAN_CTRLMODE_LOOPBACK |
		CAN_CTRLMODE_LISTENONLY | CAN_CTRLMODE_3_SAMPLES |
		CAN_CTRLMODE_BERR_REPORTING | CAN_CTRLMODE_CC_LEN8_DLC;

	net->netdev_ops = &mcp251x_netdev_ops;
	net->ethtool_ops = &mcp251x_ethtool_ops;
	net->flags |= IFF_ECHO;
	SET_NETDEV_DEV(net, &spi->dev);
	return net;
}
