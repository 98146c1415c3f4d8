// SPDX-License-Identifier: GPL-2.0
/* The MCP251x's interrupt, serviced in a thread because every register
 * access is an SPI transaction that sleeps: received frames, the end of
 * a transmission, and error flags turned into error frames and states.
 */

#include <linux/can/core.h>
#include <linux/interrupt.h>
#include "mcp251x.h"

static void decode_id(struct can_frame *cf, const u8 *buf)
{
	u8 sidl = buf[MCP251X_BUF_SIDL];
	canid_t sid = (buf[MCP251X_BUF_SIDH] << 3) | (sidl >> 5);

	if (!(sidl & MCP251X_SIDL_IDE)) {
		cf->can_id = sid;
		if (sidl & MCP251X_SIDL_SRR)
			cf->can_id |= CAN_RTR_FLAG;
		return;
	}
	cf->can_id = CAN_EFF_FLAG | (sid << 18) |
		     ((sidl & MCP251X_SIDL_EID_MASK) << 16) |
		     (buf[MCP251X_BUF_EID8] << 8) | buf[MCP251X_BUF_EID0];
	if (buf[MCP251X_BUF_DLC] & MCP251X_DLC_RTR)
		cf->can_id |= CAN_RTR_FLAG;
}

/* Take the frame in receive buffer @n; reading it frees the buffer. */
static int receive(struct mcp251x_priv *priv, int n)
{
	struct net_device *net = priv->net;
	u8 buf[MCP251X_BUF_LEN];
	struct can_frame *cf;
	struct sk_buff *skb;
	int err;

	err = mcp251x_read_rx_buffer(priv, n, buf);
	if (err)
		return err;

	skb = alloc_can_skb(net, &cf);
	if (!skb) {
		net->stats.rx_dropped++;
		return 0;
	}
	decode_id(cf, buf);
	can_frame_set_cc_len(cf, buf[MCP251X_BUF_DLC] & MCP251X_DLC_MASK,
			     priv->can.ctrlmode);
	if (!(cf->can_id & CAN_RTR_FLAG)) {
		memcpy(cf->data, buf + MCP251X_BUF_DATA, cf->len);
		net->stats.rx_bytes += cf->len;
	}
	net->stats.rx_packets++;
	can_netif_rx(skb);
	return 0;
}

/* RXB1 only fills while RXB0 is full, so a frame there is younger than
 * RXB0's. Once RXB0 is read, RXB1 may hold the oldest frame and a new
 * one may land in RXB0: read RXB1 before looking at RXB0 again.
 */
static int receive_in_order(struct mcp251x_priv *priv, u8 intf)
{
	u8 status;
	int err;

	if (intf & MCP251X_INT_RX0) {
		err = receive(priv, 0);
		if (err)
			return err;
		err = mcp251x_read_status(priv, &status);
		if (err)
			return err;
		if (!(status & MCP251X_STAT_RX1IF))
			return 0;
	} else if (!(intf & MCP251X_INT_RX1)) {
		return 0;
	}
	return receive(priv, 1);
}

static void tx_done(struct mcp251x_priv *priv)
{
	struct net_device *net = priv->net;

	/* Nothing in flight: a frame given up at bus-off or restart. */
	if (!priv->can.echo_skb[0])
		return;
	net->stats.tx_bytes += can_get_echo_skb(net, 0, NULL);
	net->stats.tx_packets++;
	netif_wake_queue(net);
}

static enum can_state tx_state_of(u8 eflg)
{
	if (eflg & MCP251X_EFLG_TXBO)
		return CAN_STATE_BUS_OFF;
	if (eflg & MCP251X_EFLG_TXEP)
		return CAN_STATE_ERROR_PASSIVE;
	if (eflg & MCP251X_EFLG_TXWAR)
		return CAN_STATE_ERROR_WARNING;
	return CAN_STATE_ERROR_ACTIVE;
}

static enum can_state rx_state_of(u8 eflg)
{
	if (eflg & MCP251X_EFLG_RXEP)
		return CAN_STATE_ERROR_PASSIVE;
	if (eflg & MCP251X_EFLG_RXWAR)
		return CAN_STATE_ERROR_WARNING;
	return CAN_STATE_ERROR_ACTIVE;
}

/* Each full buffer that lost a frame counts once; the flags are the
 * only EFLG bits software may clear.
 */
static int report_overflow(struct mcp251x_priv *priv, struct can_frame *cf,
			   u8 eflg)
{
	struct net_device_stats *stats = &priv->net->stats;
	int lost = hweight8(eflg & MCP251X_EFLG_OVR);

	stats->rx_over_errors += lost;
	stats->rx_errors += lost;
	if (cf) {
		cf->can_id |= CAN_ERR_CRTL;
		cf->data[1] |= CAN_ERR_CRTL_RX_OVERFLOW;
	}
	return mcp251x_bit_modify(priv, MCP251X_EFLG, MCP251X_EFLG_OVR, 0);
}

/* The chip tells neither the kind nor the place of a bus error. */
static void report_bus_error(struct mcp251x_priv *priv, struct can_frame *cf)
{
	priv->can.can_stats.bus_error++;
	priv->net->stats.rx_errors++;
	if (cf) {
		cf->can_id |= CAN_ERR_PROT | CAN_ERR_BUSERROR;
		cf->data[2] |= CAN_ERR_PROT_UNSPEC;
	}
}

/* Bus-off: the chip would rejoin the bus by itself after 128 idle
 * periods, but recovery belongs to the device layer (restart-ms or a
 * manual restart), so hold it in configuration mode until then.
 */
static int enter_bus_off(struct mcp251x_priv *priv)
{
	can_flush_echo_skb(priv->net);
	can_bus_off(priv->net);
	/* The frame in TXB0 would hold the mode change until recovery. */
	return mcp251x_write_reg(priv, MCP251X_CANINTE, 0) ?:
	       mcp251x_set_mode(priv, MCP251X_MODE_CONFIG | MCP251X_CANCTRL_ABAT);
}

static int update_state(struct mcp251x_priv *priv, struct can_frame *cf,
			u8 eflg)
{
	enum can_state tx_state = tx_state_of(eflg);
	enum can_state rx_state = rx_state_of(eflg);
	struct can_berr_counter bec;
	u8 tec_rec[2];
	int err;

	err = mcp251x_read_regs(priv, MCP251X_TEC, tec_rec, 2);
	if (err)
		return err;
	bec.txerr = tec_rec[0];
	bec.rxerr = tec_rec[1];
	priv->bec = bec;

	if (max(tx_state, rx_state) == priv->can.state)
		return 0;
	if (cf) {
		cf->can_id |= CAN_ERR_CNT;
		cf->data[6] = bec.txerr;
		cf->data[7] = bec.rxerr;
	}
	can_change_state(priv->net, cf, tx_state, rx_state);
	if (priv->can.state == CAN_STATE_BUS_OFF)
		return enter_bus_off(priv);
	return 0;
}

/* One error frame describes every error cause of this pass. Without
 * memory the counters and the state still change.
 */
static int handle_errors(struct mcp251x_priv *priv, u8 intf, u8 eflg)
{
	struct can_frame *cf = NULL;
	struct sk_buff *skb;
	int err = 0;

	skb = alloc_can_err_skb(priv->net, &cf);
	if (eflg & MCP251X_EFLG_OVR)
		err = report_overflow(priv, cf, eflg);
	if (intf & MCP251X_INT_MERR)
		report_bus_error(priv, cf);
	if (!err && (intf & MCP251X_INT_ERR))
		err = update_state(priv, cf, eflg);

	if (!skb)
		return err;
	if (cf->can_id == CAN_ERR_FLAG)
		consume_skb(skb);
	else
		can_netif_rx(skb);
	return err;
}

/* The flags this driver serves. The chip sets MERRF on every bus error
 * whether or not MERRIE asks for the interrupt: without berr-reporting,
 * and during a pause after a report, it is left alone; otherwise a node
 * alone on the bus would keep this thread from ever finding it quiet.
 */
static u8 served_flags(const struct mcp251x_priv *priv)
{
	u8 flags = MCP251X_INT_RX | MCP251X_INT_TX0 | MCP251X_INT_ERR;

	if (can_is_ctrlmode(&priv->can, CAN_CTRLMODE_BERR_REPORTING) &&
	    !priv->berr_paused)
		flags |= MCP251X_INT_MERR;
	return flags;
}

/* One pass over the causes. Return: 1 if something was pending, 0 if
 * the chip is quiet, or an SPI error.
 */
static int service_once(struct mcp251x_priv *priv)
{
	const u8 other = ~MCP251X_INT_RX & served_flags(priv);
	u8 flags[2], intf, eflg;
	int err;

	err = mcp251x_read_regs(priv, MCP251X_CANINTF, flags, 2);
	if (err)
		return err;
	intf = flags[0] & served_flags(priv);
	eflg = flags[1];
	if (!intf)
		return 0;

	err = receive_in_order(priv, intf);
	if (!err && (intf & other))
		err = mcp251x_bit_modify(priv, MCP251X_CANINTF, intf & other, 0);
	if (err)
		return err;
	if (intf & MCP251X_INT_TX0)
		tx_done(priv);
	if ((intf & (MCP251X_INT_ERR | MCP251X_INT_MERR)) ||
	    (eflg & MCP251X_EFLG_OVR))
		err = handle_errors(priv, intf, eflg);
	if (intf & MCP251X_INT_MERR)
		mcp251x_pause_bus_errors(priv);
	return err ?: 1;
}

/* One pass under the lock. Return: as service_once(); 0 in bus-off or
 * once the device is closed (*@closed set, its chip's interrupts off).
 */
static int service_locked(struct mcp251x_priv *priv, bool *closed)
{
	int ret = 0;

	mutex_lock(&priv->lock);
	*closed = !priv->is_open;
	if (*closed)
		mcp251x_write_reg(priv, MCP251X_CANINTE, 0);
	else if (priv->can.state != CAN_STATE_BUS_OFF)
		ret = service_once(priv);
	mutex_unlock(&priv->lock);
	return ret;
}

#define MCP251X_SERVICE_TRIES 5

/**
 * mcp251x_irq_thread() - service the chip's interrupt
 * @irq: the interrupt (unused)
 * @dev_id: the chip's struct mcp251x_priv
 *
 * Threaded handler (IRQF_ONESHOT): process context, takes priv->lock
 * for each pass. It returns only once the chip has no flag left: on an
 * edge-triggered line the chip's INT pin must go inactive before it can
 * raise another interrupt. For the same reason a pass whose SPI transfer
 * failed (a shared bus, a DMA mapping: usually gone a moment later) is
 * tried again, up to MCP251X_SERVICE_TRIES times in a row. Between
 * passes others get the lock and the CPU, so a busy bus delays ndo_stop
 * or a restart by one pass at most.
 *
 * Return: IRQ_HANDLED if the chip had something pending, else IRQ_NONE.
 */
irqreturn_t mcp251x_irq_thread(int irq, void *dev_id)
{
	struct mcp251x_priv *priv = dev_id;
	bool handled = false, closed;
	unsigned int failed = 0;
	int ret;

	for (;;) {
		ret = service_locked(priv, &closed);
		if (ret > 0) {
			handled = true;
			failed = 0;
			cond_resched();
			continue;
		}
		if (!ret || ++failed >= MCP251X_SERVICE_TRIES)
			break;
		usleep_range(100, 200);
	}
	if (ret < 0)
		netdev_err_once(priv->net, "interrupt service failed: %pe\n",
				ERR_PTR(ret));
	/* A closed device's chip was silenced: the interrupt was ours. */
	return handled || closed ? IRQ_HANDLED : IRQ_NONE;
}
