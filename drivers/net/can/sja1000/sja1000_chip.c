// SPDX-License-Identifier: GPL-2.0
/* NXP SJA1000 CAN controller in PeliCAN mode. Board glue (PCI, platform)
 * supplies register accessors, clock and interrupt; this file programs
 * the chip, moves frames through its one transmit buffer and receive
 * FIFO, and turns its error interrupts into error frames and states.
 */

#include <linux/can/core.h>
#include <linux/delay.h>
#include <linux/ethtool.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include "sja1000.h"

/* The chip needs a few microseconds to enter or leave reset mode;
 * mode changes happen in process context only.
 */
#define SJA1000_MODE_TRIES	100
/* The 64 byte receive FIFO holds at most 21 frames (3 bytes each). */
#define SJA1000_RX_BURST	32

static const struct can_bittiming_const sja1000_bittiming_const = {
	.name = "sja1000",
	.tseg1_min = 1, .tseg1_max = 16,	/* BTR1 TSEG1, 4 bits */
	.tseg2_min = 1, .tseg2_max = 8,		/* BTR1 TSEG2, 3 bits */
	.sjw_max = 4,				/* BTR0 SJW, 2 bits */
	.brp_min = 1, .brp_max = 64, .brp_inc = 1,	/* BTR0 BRP, 6 bits */
};

static u8 rd(const struct sja1000_priv *priv, int reg)
{
	return priv->read_reg(priv, reg);
}

static void wr(const struct sja1000_priv *priv, int reg, u8 val)
{
	priv->write_reg(priv, reg, val);
}

static void write_cmd(struct sja1000_priv *priv, u8 cmd)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->cmdreg_lock, flags);
	wr(priv, SJA1000_CMR, cmd);
	/* The datasheet wants a read in between two CMR writes. */
	rd(priv, SJA1000_SR);
	spin_unlock_irqrestore(&priv->cmdreg_lock, flags);
}

/* Write MOD until the chip reports the mode; false if it never does. */
static bool set_mod(struct sja1000_priv *priv, u8 mod)
{
	int i;

	for (i = 0; i < SJA1000_MODE_TRIES; i++) {
		wr(priv, SJA1000_MOD, mod);
		if ((rd(priv, SJA1000_MOD) & MOD_RM) ==
		    (mod & MOD_RM))
			return true;
		usleep_range(10, 20);
	}
	/* Each restart after bus-off tries again: keep the log readable. */
	if (net_ratelimit())
		netdev_err(priv->dev, "controller did not %s reset mode\n",
			   (mod & MOD_RM) ? "enter" : "leave");
	return false;
}

static void enter_reset(struct sja1000_priv *priv)
{
	wr(priv, SJA1000_IER, 0);
	set_mod(priv, MOD_RM);
	priv->can.state = CAN_STATE_STOPPED;
}

/* Operating mode: self test mode (no acknowledge needed) for loopback
 * and presume-ack. AFM stays clear: with the masks all ones both filters
 * of dual filter mode accept everything (QEMU's single filter mode would
 * drop standard frames whose identifier's low three bits are not zero).
 */
static u8 mode_bits(const struct sja1000_priv *priv)
{
	u8 mod = 0;

	if (can_is_ctrlmode(&priv->can, CAN_CTRLMODE_LISTENONLY))
		mod |= MOD_LOM;
	if (can_is_ctrlmode(&priv->can, CAN_CTRLMODE_LOOPBACK) ||
	    can_is_ctrlmode(&priv->can, CAN_CTRLMODE_PRESUME_ACK))
		mod |= MOD_STM;
	return mod;
}

/* Bus errors come often on a faulty bus; report them only when asked. */
static u8 irq_mask(const struct sja1000_priv *priv)
{
	if (can_is_ctrlmode(&priv->can, CAN_CTRLMODE_BERR_REPORTING))
		return SJA1000_IRQ_ALL;
	return SJA1000_IRQ_ALL & ~SJA1000_IRQ_BEI;
}

static void leave_reset(struct sja1000_priv *priv)
{
	if (!set_mod(priv, mode_bits(priv)))
		return;
	priv->can.state = CAN_STATE_ERROR_ACTIVE;
	wr(priv, SJA1000_IER, irq_mask(priv));
}

/* Reset-mode setup: PeliCAN mode, accept every identifier, fresh counters. */
static void chip_setup(struct sja1000_priv *priv)
{
	int i;

	if (!(priv->flags & SJA1000_QUIRK_NO_CDR_REG))
		wr(priv, SJA1000_CDR, priv->cdr | CDR_PELICAN);
	for (i = 0; i < 4; i++) {
		wr(priv, SJA1000_ACR0 + i, 0x00);
		wr(priv, SJA1000_AMR0 + i, 0xff);
	}
	wr(priv, SJA1000_OCR, priv->ocr);
	wr(priv, SJA1000_MOD, MOD_RM);
	wr(priv, SJA1000_TXERR, 0);
	wr(priv, SJA1000_RXERR, 0);
	rd(priv, SJA1000_ECC);
	rd(priv, SJA1000_ALC);
	rd(priv, SJA1000_IR);
}

/* BTR0 and BTR1 take writes in reset mode only. */
static void write_bittiming(struct sja1000_priv *priv)
{
	const struct can_bittiming *bt = &priv->can.bittiming;
	u8 btr0, btr1;

	btr0 = ((bt->sjw - 1) << SJA1000_BTR0_SJW_SHIFT) | (bt->brp - 1);
	btr1 = ((bt->phase_seg2 - 1) << SJA1000_BTR1_TSEG2_SHIFT) |
	       (bt->prop_seg + bt->phase_seg1 - 1);
	if (can_is_ctrlmode(&priv->can, CAN_CTRLMODE_3_SAMPLES))
		btr1 |= SJA1000_BTR1_SAM;

	netdev_dbg(priv->dev, "BTR0 0x%02x BTR1 0x%02x\n", btr0, btr1);
	wr(priv, SJA1000_BTR0, btr0);
	wr(priv, SJA1000_BTR1, btr1);
}

/* From reset, whatever the chip did before: setup, bit timing, go. */
static void sja1000_start(struct sja1000_priv *priv)
{
	lockdep_assert_held(&priv->mode_lock);
	enter_reset(priv);
	chip_setup(priv);
	write_bittiming(priv);
	leave_reset(priv);
}

/* can-dev calls this only while the interface is down, so the chip is
 * in reset mode; sja1000_start() writes the timing again on each start.
 */
static int sja1000_set_bittiming(struct net_device *dev)
{
	write_bittiming(netdev_priv(dev));
	return 0;
}

/* A restart after bus-off (work item or "ip link ... restart"). Once
 * sja1000_stop() has silenced the chip it stays silent.
 */
static int sja1000_set_mode(struct net_device *dev, enum can_mode mode)
{
	struct sja1000_priv *priv = netdev_priv(dev);
	int err = 0;

	if (mode != CAN_MODE_START)
		return -EOPNOTSUPP;
	mutex_lock(&priv->mode_lock);
	if (priv->open)
		sja1000_start(priv);
	else
		err = -ENETDOWN;
	mutex_unlock(&priv->mode_lock);
	if (!err)
		netif_wake_queue(dev);
	return err;
}

static int sja1000_get_berr_counter(const struct net_device *dev,
				    struct can_berr_counter *bec)
{
	const struct sja1000_priv *priv = netdev_priv(dev);

	bec->txerr = rd(priv, SJA1000_TXERR);
	bec->rxerr = rd(priv, SJA1000_RXERR);
	return 0;
}

/* Load the transmit buffer: frame information, identifier, data. */
static void load_tx_buffer(struct sja1000_priv *priv,
			   const struct can_frame *cf)
{
	canid_t id = cf->can_id;
	u8 fi = can_get_cc_dlc(cf, priv->can.ctrlmode) & SJA1000_FI_DLC;
	int reg = SJA1000_SFF_DATA;
	int i;

	if (id & CAN_RTR_FLAG)
		fi |= SJA1000_FI_RTR;
	if (id & CAN_EFF_FLAG) {
		fi |= SJA1000_FI_FF;
		id = (id & CAN_EFF_MASK) << 3;
		wr(priv, SJA1000_ID1, id >> 24);
		wr(priv, SJA1000_ID1 + 1, id >> 16);
		wr(priv, SJA1000_ID1 + 2, id >> 8);
		wr(priv, SJA1000_ID1 + 3, id);
		reg = SJA1000_EFF_DATA;
	} else {
		id = (id & CAN_SFF_MASK) << 5;
		wr(priv, SJA1000_ID1, id >> 8);
		wr(priv, SJA1000_ID1 + 1, id);
	}
	for (i = 0; i < cf->len; i++)
		wr(priv, reg + i, cf->data[i]);
	wr(priv, SJA1000_FI, fi);
}

/* Loopback is the self reception request (in self test mode); abort
 * together with either request makes it a single shot (datasheet, CMR).
 */
static u8 tx_command(const struct sja1000_priv *priv)
{
	u8 cmd = SJA1000_CMD_TR;

	if (can_is_ctrlmode(&priv->can, CAN_CTRLMODE_LOOPBACK))
		cmd = SJA1000_CMD_SRR;
	if (can_is_ctrlmode(&priv->can, CAN_CTRLMODE_ONE_SHOT))
		cmd |= SJA1000_CMD_AT;
	return cmd;
}

/* One frame at a time: the queue stays stopped until the TX interrupt
 * confirms it, which also keeps echo slot 0 ours alone.
 */
static netdev_tx_t sja1000_start_xmit(struct sk_buff *skb,
				      struct net_device *dev)
{
	struct sja1000_priv *priv = netdev_priv(dev);
	const struct can_frame *cf;

	if (can_dev_dropped_skb(dev, skb))
		return NETDEV_TX_OK;
	cf = (const struct can_frame *)skb->data;
	/* More than 8 data bytes would spill into the registers after the
	 * transmit buffer; the shared check drops such frames already.
	 */
	if (cf->len > CAN_MAX_DLEN) {
		dev->stats.tx_dropped++;
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}

	netif_stop_queue(dev);
	load_tx_buffer(priv, cf);
	can_put_echo_skb(skb, dev, 0, 0);
	write_cmd(priv, tx_command(priv));
	return NETDEV_TX_OK;
}

static void read_rx_id(struct sja1000_priv *priv, struct can_frame *cf,
		       u8 fi)
{
	canid_t id;

	if (fi & SJA1000_FI_FF) {
		id = (rd(priv, SJA1000_ID1) << 24) |
		     (rd(priv, SJA1000_ID1 + 1) << 16) |
		     (rd(priv, SJA1000_ID1 + 2) << 8) |
		     rd(priv, SJA1000_ID1 + 3);
		cf->can_id = (id >> 3) | CAN_EFF_FLAG;
	} else {
		id = (rd(priv, SJA1000_ID1) << 8) | rd(priv, SJA1000_ID1 + 1);
		cf->can_id = id >> 5;
	}
	if (fi & SJA1000_FI_RTR)
		cf->can_id |= CAN_RTR_FLAG;
}

/* Take the frame at the head of the receive FIFO and release it. */
static void sja1000_rx(struct sja1000_priv *priv)
{
	struct net_device *dev = priv->dev;
	struct can_frame *cf;
	struct sk_buff *skb;
	int reg, i;
	u8 fi;

	skb = alloc_can_skb(dev, &cf);
	if (!skb) {
		dev->stats.rx_dropped++;
		write_cmd(priv, SJA1000_CMD_RRB);
		return;
	}

	fi = rd(priv, SJA1000_FI);
	read_rx_id(priv, cf, fi);
	can_frame_set_cc_len(cf, fi & SJA1000_FI_DLC, priv->can.ctrlmode);
	reg = (fi & SJA1000_FI_FF) ? SJA1000_EFF_DATA : SJA1000_SFF_DATA;
	if (!(fi & SJA1000_FI_RTR)) {
		for (i = 0; i < cf->len; i++)
			cf->data[i] = rd(priv, reg + i);
		dev->stats.rx_bytes += cf->len;
	}
	write_cmd(priv, SJA1000_CMD_RRB);

	dev->stats.rx_packets++;
	can_netif_rx(skb);
}

static void tx_done(struct sja1000_priv *priv)
{
	struct net_device *dev = priv->dev;

	if (can_is_ctrlmode(&priv->can, CAN_CTRLMODE_ONE_SHOT) &&
	    !(rd(priv, SJA1000_SR) & SJA1000_SR_TCS)) {
		dev->stats.tx_errors++;
		can_free_echo_skb(dev, 0, NULL);
	} else {
		dev->stats.tx_bytes += can_get_echo_skb(dev, 0, NULL);
		dev->stats.tx_packets++;
	}
	netif_wake_queue(dev);
}

/* The handlers below count and re-arm the chip whether or not an error
 * frame could be allocated (@cf NULL): ECC and ALC capture the next
 * event only after they have been read.
 */
static void report_overrun(struct sja1000_priv *priv, struct can_frame *cf)
{
	struct net_device_stats *stats = &priv->dev->stats;

	stats->rx_over_errors++;
	stats->rx_errors++;
	write_cmd(priv, SJA1000_CMD_CDO);
	if (cf) {
		cf->can_id |= CAN_ERR_CRTL;
		cf->data[1] |= CAN_ERR_CRTL_RX_OVERFLOW;
	}
}

/* ECC error code (bits 7..6) to the error frame's protocol error type. */
static const u8 ecc_error_type[4] = {
	CAN_ERR_PROT_BIT, CAN_ERR_PROT_FORM, CAN_ERR_PROT_STUFF,
	CAN_ERR_PROT_UNSPEC,
};

/* ECC's direction bit says whether we were sending or receiving. */
static void report_bus_error(struct sja1000_priv *priv, struct can_frame *cf)
{
	u8 ecc = rd(priv, SJA1000_ECC);
	bool tx = !(ecc & SJA1000_ECC_DIR_RX);

	priv->can.can_stats.bus_error++;
	if (tx)
		priv->dev->stats.tx_errors++;
	else
		priv->dev->stats.rx_errors++;
	if (!cf)
		return;

	cf->can_id |= CAN_ERR_PROT | CAN_ERR_BUSERROR;
	cf->data[2] |= ecc_error_type[(ecc & SJA1000_ECC_CODE) >> 6];
	cf->data[3] = ecc & SJA1000_ECC_SEG;
	if (tx)
		cf->data[2] |= CAN_ERR_PROT_TX;
}

static void report_arbitration_lost(struct sja1000_priv *priv,
				    struct can_frame *cf)
{
	u8 alc = rd(priv, SJA1000_ALC);

	priv->can.can_stats.arbitration_lost++;
	if (cf) {
		cf->can_id |= CAN_ERR_LOSTARB;
		cf->data[0] = alc & 0x1f;
	}
}

/* The state the status register and the interrupt cause point to. */
static enum can_state next_state(struct sja1000_priv *priv, u8 ir, u8 sr)
{
	enum can_state state = priv->can.state;

	if (ir & SJA1000_IRQ_EI) {
		if (sr & SJA1000_SR_BS)
			state = CAN_STATE_BUS_OFF;
		else if (sr & SJA1000_SR_ES)
			state = CAN_STATE_ERROR_WARNING;
		else
			state = CAN_STATE_ERROR_ACTIVE;
	}
	if (ir & SJA1000_IRQ_EPI) {
		if (state == CAN_STATE_ERROR_PASSIVE)
			state = CAN_STATE_ERROR_WARNING;
		else if (state != CAN_STATE_BUS_OFF)
			state = CAN_STATE_ERROR_PASSIVE;
	}
	return state;
}

static void update_state(struct sja1000_priv *priv, struct can_frame *cf,
			 enum can_state state,
			 const struct can_berr_counter *bec)
{
	enum can_state tx_state, rx_state;

	if (state == priv->can.state)
		return;

	tx_state = bec->txerr >= bec->rxerr ? state : CAN_STATE_ERROR_ACTIVE;
	rx_state = bec->txerr <= bec->rxerr ? state : CAN_STATE_ERROR_ACTIVE;
	can_change_state(priv->dev, cf, tx_state, rx_state);

	if (state == CAN_STATE_BUS_OFF) {
		/* The chip has put itself into reset mode. */
		wr(priv, SJA1000_IER, 0);
		can_drop_echo_skb(priv->dev, 0);
		can_bus_off(priv->dev);
	}
}

/* Everything but receive and transmit: one error frame describes all
 * causes of this interrupt, with the error counters as they are now.
 * Without memory the counting, re-arming and state change still happen.
 */
static void sja1000_error(struct sja1000_priv *priv, u8 ir, u8 sr)
{
	struct can_berr_counter bec;
	struct can_frame *cf = NULL;
	struct sk_buff *skb;

	skb = alloc_can_err_skb(priv->dev, &cf);
	if (!skb)
		cf = NULL;
	if (ir & SJA1000_IRQ_DOI)
		report_overrun(priv, cf);
	if (ir & SJA1000_IRQ_BEI)
		report_bus_error(priv, cf);
	if (ir & SJA1000_IRQ_ALI)
		report_arbitration_lost(priv, cf);

	sja1000_get_berr_counter(priv->dev, &bec);
	if (cf) {
		cf->can_id |= CAN_ERR_CNT;
		cf->data[6] = bec.txerr;
		cf->data[7] = bec.rxerr;
	}
	update_state(priv, cf, next_state(priv, ir, sr), &bec);
	if (skb)
		can_netif_rx(skb);
}

/* Registers of a card that is no longer there read all ones; MOD's top
 * bits read zero on a chip.
 */
static bool chip_gone(struct sja1000_priv *priv)
{
	return rd(priv, SJA1000_MOD) == 0xff;
}

/* Empty the receive FIFO; false if the card went away meanwhile. */
static bool sja1000_rx_all(struct sja1000_priv *priv)
{
	int n;
	u8 sr;

	for (n = 0; n < SJA1000_RX_BURST; n++) {
		sr = rd(priv, SJA1000_SR);
		if (!(sr & SJA1000_SR_RBS))
			break;
		if (sr == 0xff && chip_gone(priv))
			return false;
		sja1000_rx(priv);
	}
	return true;
}

/* Serve the causes the chip has pending; IRQ_HANDLED if there were any. */
static irqreturn_t sja1000_serve(struct sja1000_priv *priv)
{
	struct net_device *dev = priv->dev;
	int loops;
	u8 ir, sr;

	/* Interrupts off: a shared line's other device, or we are closing.
	 * (Bus-off puts the chip in reset mode itself, so MOD cannot tell.)
	 */
	if (!rd(priv, SJA1000_IER))
		return IRQ_NONE;

	/* Test the bound before reading IR: the read acknowledges causes. */
	for (loops = 0; loops < SJA1000_MAX_IRQ; loops++) {
		ir = rd(priv, SJA1000_IR);
		if (!ir)
			break;
		if (ir == 0xff && chip_gone(priv))
			goto gone;
		sr = rd(priv, SJA1000_SR);
		if (ir & SJA1000_IRQ_TI)
			tx_done(priv);
		if ((ir & SJA1000_IRQ_RI) && !sja1000_rx_all(priv))
			goto gone;
		if (ir & SJA1000_IRQ_ERRORS)
			sja1000_error(priv, ir, sr);
		if (priv->can.state == CAN_STATE_BUS_OFF) {
			loops++;
			break;
		}
	}
	if (loops == SJA1000_MAX_IRQ)
		netdev_warn_once(dev, "interrupt storm, IR 0x%02x\n", ir);
	return loops ? IRQ_HANDLED : IRQ_NONE;

gone:
	/* Not ours to claim: a stuck shared line gets disabled. */
	netdev_err_once(dev, "controller reads all ones: card removed?\n");
	return IRQ_NONE;
}

/**
 * sja1000_interrupt() - service an SJA1000 interrupt
 * @irq: interrupt number (unused)
 * @dev_id: the net_device of the channel
 *
 * Hard IRQ context, or any context with the real interrupt unable to
 * run at the same time (test harnesses and boards with their own
 * handler, SJA1000_CUSTOM_IRQ_HANDLER, call it this way). Reading IR
 * acknowledges every cause but receive, which stays set while the FIFO
 * holds frames. The board's pre_irq and post_irq hooks run around it,
 * post_irq also when the chip had nothing: a board acknowledges its own
 * interrupt there.
 *
 * Return: IRQ_HANDLED if the chip had something pending, else IRQ_NONE
 * (shared interrupt lines).
 */
irqreturn_t sja1000_interrupt(int irq, void *dev_id)
{
	struct net_device *dev = dev_id;
	struct sja1000_priv *priv = netdev_priv(dev);
	irqreturn_t ret;

	if (priv->pre_irq)
		priv->pre_irq(priv);
	ret = sja1000_serve(priv);
	if (priv->post_irq)
		priv->post_irq(priv);
	return ret;
}
EXPORT_SYMBOL_GPL(sja1000_interrupt);

/* The core requests the interrupt unless the board serves it itself. */
static bool own_irq(struct net_device *dev)
{
	struct sja1000_priv *priv = netdev_priv(dev);

	return dev->irq && !(priv->flags & SJA1000_CUSTOM_IRQ_HANDLER);
}

static int sja1000_open(struct net_device *dev)
{
	struct sja1000_priv *priv = netdev_priv(dev);
	int err;

	err = open_candev(dev);
	if (err)
		return err;

	enter_reset(priv);
	if (own_irq(dev)) {
		err = request_irq(dev->irq, sja1000_interrupt, priv->irq_flags,
				  dev->name, dev);
		if (err)
			goto undo_can_open;
	}

	mutex_lock(&priv->mode_lock);
	priv->open = true;
	sja1000_start(priv);
	mutex_unlock(&priv->mode_lock);
	netif_start_queue(dev);
	return 0;

undo_can_open:
	close_candev(dev);
	return err;
}

/* Silence the chip and its interrupt first: a bus-off up to that point
 * may have scheduled a restart, which close_candev() then cancels, and
 * which sja1000_set_mode() refuses should it run before.
 */
static int sja1000_stop(struct net_device *dev)
{
	struct sja1000_priv *priv = netdev_priv(dev);

	netif_stop_queue(dev);
	mutex_lock(&priv->mode_lock);
	priv->open = false;
	enter_reset(priv);
	mutex_unlock(&priv->mode_lock);
	if (own_irq(dev))
		free_irq(dev->irq, dev);
	close_candev(dev);
	return 0;
}

static const struct net_device_ops sja1000_netdev_ops = {
	.ndo_open	= sja1000_open,
	.ndo_stop	= sja1000_stop,
	.ndo_start_xmit	= sja1000_start_xmit,
	.ndo_change_mtu	= can_change_mtu,
};

/* Software time stamps, transmit ones included: what "ethtool -T" shows
 * for mainline's driver too.
 */
static const struct ethtool_ops sja1000_ethtool_ops = {
	.get_ts_info	= ethtool_op_get_ts_info,
};

/**
 * alloc_sja1000dev() - allocate a CAN device for one SJA1000 channel
 * @sizeof_priv: bytes of board-private data, reachable as priv->priv
 *
 * Process context. The glue then sets the accessors, reg_base, clock,
 * ocr, cdr, irq_flags, flags, the irq hooks and dev->irq before
 * register_sja1000dev().
 *
 * Return: the device, or NULL if memory ran out or @sizeof_priv is
 * negative.
 */
struct net_device *alloc_sja1000dev(int sizeof_priv)
{
	size_t size = ALIGN(sizeof(struct sja1000_priv), sizeof(long));
	struct sja1000_priv *priv;
	struct net_device *dev;

	if (sizeof_priv < 0)
		return NULL;
	dev = alloc_candev(size + sizeof_priv, 1);
	if (!dev)
		return NULL;

	priv = netdev_priv(dev);
	priv->dev = dev;
	priv->priv = sizeof_priv ? (void *)priv + size : NULL;
	spin_lock_init(&priv->cmdreg_lock);
	mutex_init(&priv->mode_lock);

	priv->can.bittiming_const = &sja1000_bittiming_const;
	priv->can.do_set_bittiming = sja1000_set_bittiming;
	priv->can.do_set_mode = sja1000_set_mode;
	priv->can.do_get_berr_counter = sja1000_get_berr_counter;
	priv->can.ctrlmode_supported = CAN_CTRLMODE_LOOPBACK |
		CAN_CTRLMODE_LISTENONLY | CAN_CTRLMODE_3_SAMPLES |
		CAN_CTRLMODE_ONE_SHOT | CAN_CTRLMODE_BERR_REPORTING |
		CAN_CTRLMODE_PRESUME_ACK | CAN_CTRLMODE_CC_LEN8_DLC;

	dev->netdev_ops = &sja1000_netdev_ops;
	dev->ethtool_ops = &sja1000_ethtool_ops;
	dev->flags |= IFF_ECHO;
	return dev;
}
EXPORT_SYMBOL_GPL(alloc_sja1000dev);

/**
 * free_sja1000dev() - free a device from alloc_sja1000dev()
 * @dev: unregistered or never registered
 */
void free_sja1000dev(struct net_device *dev)
{
	free_candev(dev);
}
EXPORT_SYMBOL_GPL(free_sja1000dev);

/* A chip takes the reset request (the same bit in BasicCAN's control
 * register), and then, in reset mode only, the CDR bit for PeliCAN mode;
 * it may have been left running by whoever used it before. Empty
 * sockets read 0x00 or 0xff. Without a CDR (a quirk of some SoC
 * integrations) the reset bit is all there is to see.
 */
static bool chip_present(struct sja1000_priv *priv)
{
	bool no_cdr = priv->flags & SJA1000_QUIRK_NO_CDR_REG;
	u8 mod;

	wr(priv, SJA1000_MOD, MOD_RM);
	if (!no_cdr)
		wr(priv, SJA1000_CDR, priv->cdr | CDR_PELICAN);
	mod = rd(priv, SJA1000_MOD);
	if (mod == 0xff || !(mod & MOD_RM))
		return false;
	return no_cdr || (rd(priv, SJA1000_CDR) & CDR_PELICAN);
}

/**
 * register_sja1000dev() - check the chip and register its CAN device
 * @dev: from alloc_sja1000dev(), set up by the glue
 *
 * Process context. Leaves the chip in reset mode, interrupts off.
 *
 * Return: 0, -ENODEV if no chip answers, or register_candev()'s error.
 */
int register_sja1000dev(struct net_device *dev)
{
	struct sja1000_priv *priv = netdev_priv(dev);

	/* Boards probe empty channel sockets this way: stay quiet. */
	if (!chip_present(priv))
		return -ENODEV;
	enter_reset(priv);
	chip_setup(priv);
	return register_candev(dev);
}
EXPORT_SYMBOL_GPL(register_sja1000dev);

/**
 * unregister_sja1000dev() - remove the CAN device and quiet the chip
 * @dev: a registered device
 *
 * Process context. Closes the device if it is up.
 */
void unregister_sja1000dev(struct net_device *dev)
{
	struct sja1000_priv *priv = netdev_priv(dev);

	unregister_candev(dev);
	enter_reset(priv);
}
EXPORT_SYMBOL_GPL(unregister_sja1000dev);

MODULE_DESCRIPTION("NXP SJA1000 CAN controller (PeliCAN mode)");
MODULE_LICENSE("GPL");
