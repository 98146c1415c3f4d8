// SPDX-License-Identifier: GPL-2.0
/* What an attempt on the wire does to each node: the frame reaches the
 * receivers and its echo the sender, error counters move by the rules
 * of fault confinement, and every change of state or bus error a
 * controller would report becomes an error frame. All of it runs under
 * the bus lock, from the bus timer or from a fault being injected.
 */

#include <linux/can/core.h>
#include <linux/can/skb.h>
#include <linux/timekeeping.h>
#include "vbus.h"

static void stamp(struct sk_buff *skb, ktime_t end)
{
	skb->tstamp = ktime_mono_to_real(end);
	skb_hwtstamps(skb)->hwtstamp = end;
}

static enum can_state state_of(unsigned int counter)
{
	if (counter >= VBUS_BUS_OFF_LIMIT)
		return CAN_STATE_BUS_OFF;
	if (counter >= VBUS_PASSIVE_LIMIT)
		return CAN_STATE_ERROR_PASSIVE;
	if (counter >= VBUS_WARNING_LIMIT)
		return CAN_STATE_ERROR_WARNING;
	return CAN_STATE_ERROR_ACTIVE;
}

static bool has_berr_reporting(const struct vbus_node *node)
{
	return node->ctrlmode & CAN_CTRLMODE_BERR_REPORTING;
}

/* A controller going bus-off loses what it held to send, as the SJA1000
 * does: the frames count as dropped and aborted. Those still in the
 * queue go out after the restart.
 */
static void go_bus_off(struct vbus_node *node)
{
	netif_stop_queue(node->dev);
	while (node->fifo_len) {
		can_drop_echo_skb(node->dev, node->fifo_head);
		node->fifo_head = (node->fifo_head + 1) % VBUS_TX_FIFO;
		node->fifo_len--;
	}
	can_bus_off(node->dev);
}

/* The error frame of an event, if the node reports anything: its state
 * changed, or it saw a bus error (@ev, else NULL) and reports those.
 */
static void report(struct vbus_node *node, const struct vbus_event *ev,
		   ktime_t at)
{
	struct can_priv *priv = netdev_priv(node->dev);
	enum can_state tx_state = state_of(node->tec);
	enum can_state rx_state = state_of(node->rec);
	bool changes = max(tx_state, rx_state) != priv->state;
	bool tells_error = ev && has_berr_reporting(node);
	struct can_frame *cf = NULL;
	struct sk_buff *skb = NULL;

	if (!changes && !tells_error)
		return;
	skb = alloc_can_err_skb(node->dev, &cf);
	if (changes)
		can_change_state(node->dev, cf, tx_state, rx_state);
	if (cf && tells_error) {
		cf->can_id |= CAN_ERR_PROT | CAN_ERR_BUSERROR;
		cf->data[2] = ev->prot_type | (ev->is_tx ? CAN_ERR_PROT_TX : 0);
		cf->data[3] = ev->prot_loc;
		if (ev->prot_loc == CAN_ERR_PROT_LOC_ACK)
			cf->can_id |= CAN_ERR_ACK;
	}
	if (cf) {
		cf->can_id |= CAN_ERR_CNT;
		cf->data[6] = min(node->tec, VBUS_COUNTER_MAX);
		cf->data[7] = node->rec;
		stamp(skb, at);
		can_netif_rx(skb);
	}
	if (changes && priv->state == CAN_STATE_BUS_OFF)
		go_bus_off(node);
}

/**
 * vbus_node_errors() - a node saw errors on the wire, one after another
 * @node: the node, on a bus
 * @ev: what it saw; @ev->is_tx for the sender of the attempt
 * @tec_add: added to the transmit error counter per error
 * @rec_add: added to the receive error counter per error; it stops at 255
 * @count: how many errors, at least 1
 * @at: when, for the error frames
 *
 * Every error is counted and every state it passes through reported;
 * a bus error frame (berr-reporting) comes for the first only, so that a
 * stuck bus does not flood the node's sockets.
 *
 * Context: bus lock held.
 */
void vbus_node_errors(struct vbus_node *node, const struct vbus_event *ev,
		      unsigned int tec_add, unsigned int rec_add,
		      unsigned int count, ktime_t at)
{
	struct net_device_stats *stats = &node->dev->stats;
	struct can_priv *priv = netdev_priv(node->dev);
	unsigned int i;

	lockdep_assert_held(&node->bus->lock);
	priv->can_stats.bus_error += count;
	if (ev->is_tx)
		stats->tx_errors += count;
	else
		stats->rx_errors += count;
	for (i = 0; i < count && priv->state != CAN_STATE_BUS_OFF; i++) {
		node->tec = min(node->tec + tec_add,
				(unsigned int)VBUS_BUS_OFF_LIMIT);
		node->rec = min(node->rec + rec_add,
				(unsigned int)VBUS_COUNTER_MAX);
		report(node, i ? NULL : ev, at);
	}
}

/**
 * vbus_node_error() - a node saw an error on the wire
 * @node: the node, on a bus
 * @ev: what it saw; @ev->is_tx for the sender of the attempt
 * @tec_add: added to the transmit error counter
 * @rec_add: added to the receive error counter, which stops at 255
 * @at: when, for the error frame
 *
 * Context: bus lock held.
 */
void vbus_node_error(struct vbus_node *node, const struct vbus_event *ev,
		     unsigned int tec_add, unsigned int rec_add, ktime_t at)
{
	vbus_node_errors(node, ev, tec_add, rec_add, 1, at);
}

/**
 * vbus_node_lost_arbitration() - a node's frame lost arbitration
 * @node: the node, on a bus
 * @bit: the bit of the arbitration field it lost at, 0 for the first
 *	identifier bit, as the SJA1000 reports it in data[0]
 * @at: when the winner's frame started
 *
 * Context: bus lock held.
 */
void vbus_node_lost_arbitration(struct vbus_node *node, unsigned int bit,
				ktime_t at)
{
	struct can_priv *priv = netdev_priv(node->dev);
	struct can_frame *cf;
	struct sk_buff *skb;

	lockdep_assert_held(&node->bus->lock);
	priv->can_stats.arbitration_lost++;
	if (!has_berr_reporting(node))
		return;
	skb = alloc_can_err_skb(node->dev, &cf);
	if (!skb)
		return;
	cf->can_id |= CAN_ERR_LOSTARB;
	cf->data[0] = bit;
	stamp(skb, at);
	can_netif_rx(skb);
}

static void deliver(struct vbus_node *rx, const struct sk_buff *sent,
		    ktime_t end)
{
	struct net_device_stats *stats = &rx->dev->stats;
	struct canfd_frame *cfd;
	struct can_frame *cf;
	struct sk_buff *skb;

	if (can_is_canfd_skb(sent)) {
		skb = alloc_canfd_skb(rx->dev, &cfd);
		if (skb)
			memcpy(cfd, sent->data, sizeof(*cfd));
	} else {
		skb = alloc_can_skb(rx->dev, &cf);
		if (skb) {
			memcpy(cf, sent->data, sizeof(*cf));
			/* Only a receiver in this mode reports DLC 9..15. */
			if (!(rx->ctrlmode & CAN_CTRLMODE_CC_LEN8_DLC))
				cf->len8_dlc = 0;
		}
	}
	if (!skb) {
		stats->rx_dropped++;
		return;
	}
	stats->rx_packets++;
	if (!(((struct can_frame *)skb->data)->can_id & CAN_RTR_FLAG))
		stats->rx_bytes += can_skb_get_data_len(skb);
	stamp(skb, end);
	can_netif_rx(skb);
}

static void receive_ok(struct vbus_node *rx)
{
	if (rx->ctrlmode & CAN_CTRLMODE_LISTENONLY)
		return;
	if (rx->rec >= VBUS_PASSIVE_LIMIT)
		rx->rec = VBUS_PASSIVE_LIMIT - 1;
	else if (rx->rec)
		rx->rec--;
}

/**
 * vbus_node_sent() - the sender's frame crossed the wire
 * @bus: the bus
 * @tx: the sender; the frame is in its FIFO slot @tx->fifo_head
 * @end: when its last bit ended
 *
 * Every node that decoded it receives it (the sender too, in loopback
 * mode), counters go down, and the sender's echo goes up its stack.
 *
 * Context: bus lock held.
 */
void vbus_node_sent(struct vbus *bus, struct vbus_node *tx, ktime_t end)
{
	struct can_priv *priv = netdev_priv(tx->dev);
	unsigned int slot = tx->fifo_head, len;
	struct sk_buff *sent = priv->echo_skb[slot];
	struct vbus_node *rx;

	lockdep_assert_held(&bus->lock);
	list_for_each_entry(rx, &bus->nodes, bus_link) {
		if (rx->role != VBUS_ROLE_DECODES)
			continue;
		deliver(rx, sent, end);
		receive_ok(rx);
		report(rx, NULL, end);
	}
	if (tx->ctrlmode & CAN_CTRLMODE_LOOPBACK)
		deliver(tx, sent, end);
	if (tx->tec)
		tx->tec--;
	report(tx, NULL, end);

	stamp(sent, end);
	sent = __can_get_echo_skb(tx->dev, slot, &len, NULL);
	if (sent)
		can_netif_rx(sent);
	tx->dev->stats.tx_packets++;
	tx->dev->stats.tx_bytes += len;
	vbus_node_fifo_pop(tx);
	bus->stats.frames++;
}

/**
 * vbus_node_drop_head() - give up the frame at the head of a node's FIFO
 * @node: the node, on a bus
 *
 * For one-shot mode: the frame failed once and is not sent again.
 *
 * Context: bus lock held.
 */
void vbus_node_drop_head(struct vbus_node *node)
{
	lockdep_assert_held(&node->bus->lock);
	can_free_echo_skb(node->dev, node->fifo_head, NULL);
	node->dev->stats.tx_errors++;
	vbus_node_fifo_pop(node);
}

/**
 * vbus_node_drop_stale() - give up the frames at the head of a node's
 *	FIFO that their senders no longer want sent
 * @node: the node, on a bus
 *
 * A frame not yet on the wire whose deadline passed (CAN_RAW_TX_DEADLINE),
 * or one to flush after bus-off, leaves the FIFO before an arbitration,
 * as a controller aborts a pending transmission.
 *
 * Context: bus lock held.
 */
void vbus_node_drop_stale(struct vbus_node *node)
{
	lockdep_assert_held(&node->bus->lock);
	while (node->fifo_len &&
	       can_drop_stale_echo_skb(node->dev, node->fifo_head))
		vbus_node_fifo_pop(node);
}

/**
 * vbus_node_fifo_pop() - the head of a node's FIFO is done with
 * @node: the node, on a bus
 *
 * Context: bus lock held.
 */
void vbus_node_fifo_pop(struct vbus_node *node)
{
	node->fifo_head = (node->fifo_head + 1) % VBUS_TX_FIFO;
	node->fifo_len--;
	if (netif_queue_stopped(node->dev) &&
	    vbus_node_state(node) != CAN_STATE_BUS_OFF)
		netif_wake_queue(node->dev);
}
