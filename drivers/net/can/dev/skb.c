// SPDX-License-Identifier: GPL-2.0
/* Socket buffers of CAN devices: received and error frames allocated for
 * drivers, and the echo of sent frames, which holds each frame until the
 * controller reports it on the bus and only then hands it to local
 * sockets, still owned by the socket that sent it.
 */

#include <linux/can/dev.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

/**
 * can_put_echo_skb() - keep a frame being sent until it is confirmed
 * @skb: frame from ndo_start_xmit, already checked by
 *	can_dropped_invalid_tx_skb(); consumed in every case
 * @dev: the sending device
 * @idx: the controller's TX slot the frame goes to
 *
 * Call before starting the transmission: the TX-done interrupt may come
 * at once. The driver keeps xmit and TX-done from using one slot at the
 * same time (usually by stopping the queue while the slot is busy).
 *
 * Return: 0; -EINVAL for a slot out of range, -EBUSY for a slot still in
 * use (a driver bug, the frame is dropped), -ENOMEM if an unshared copy
 * could not be made.
 */
int can_put_echo_skb(struct sk_buff *skb, struct net_device *dev,
		     unsigned int idx)
{
	struct can_priv *priv = netdev_priv(dev);

	if (WARN_ON_ONCE(idx >= priv->echo_skb_max) ||
	    WARN_ON_ONCE(priv->echo_skb[idx])) {
		kfree_skb(skb);
		return idx >= priv->echo_skb_max ? -EINVAL : -EBUSY;
	}

	skb = can_create_echo_skb(skb);
	if (!skb)
		return -ENOMEM;

	skb->dev = dev;
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb_tx_timestamp(skb);
	priv->echo_skb[idx] = skb;
	return 0;
}
EXPORT_SYMBOL_GPL(can_put_echo_skb);

static unsigned int payload_len(const struct sk_buff *skb)
{
	const struct canfd_frame *cfd = (const struct canfd_frame *)skb->data;

	if (can_is_can_skb(skb) && (cfd->can_id & CAN_RTR_FLAG))
		return 0;
	return cfd->len;
}

/**
 * can_get_echo_skb() - the controller sent the frame in slot @idx
 * @dev: the device
 * @idx: TX slot
 *
 * Frames the core asked to loop back (PACKET_LOOPBACK) go to the stack
 * now, as if received, so that only frames that reached the bus show up
 * at local sockets; others are freed. Any context, typically the TX-done
 * interrupt.
 *
 * Return: the payload length for tx_bytes, 0 if the slot was empty.
 */
unsigned int can_get_echo_skb(struct net_device *dev, unsigned int idx)
{
	struct can_priv *priv = netdev_priv(dev);
	struct sk_buff *skb;
	unsigned int len;

	if (WARN_ON_ONCE(idx >= priv->echo_skb_max))
		return 0;
	skb = priv->echo_skb[idx];
	if (!skb)
		return 0;
	priv->echo_skb[idx] = NULL;

	len = payload_len(skb);
	if (skb->pkt_type == PACKET_LOOPBACK) {
		skb->pkt_type = PACKET_BROADCAST;
		netif_rx(skb);
	} else {
		dev_consume_skb_any(skb);
	}
	return len;
}
EXPORT_SYMBOL_GPL(can_get_echo_skb);

/**
 * can_free_echo_skb() - drop the frame in slot @idx without echoing it
 * @dev: the device
 * @idx: TX slot
 *
 * For a frame the driver counts itself, such as a one-shot frame that
 * failed (tx_errors); a frame lost to bus-off or stop goes through
 * can_drop_echo_skb() instead. Any context; the slot may be empty.
 */
void can_free_echo_skb(struct net_device *dev, unsigned int idx)
{
	struct can_priv *priv = netdev_priv(dev);

	if (WARN_ON_ONCE(idx >= priv->echo_skb_max) || !priv->echo_skb[idx])
		return;
	dev_kfree_skb_any(priv->echo_skb[idx]);
	priv->echo_skb[idx] = NULL;
}
EXPORT_SYMBOL_GPL(can_free_echo_skb);

/**
 * can_drop_echo_skb() - drop the frame in slot @idx, which will never be sent
 * @dev: the device
 * @idx: TX slot
 *
 * For the frame in flight when the controller went bus-off or was
 * stopped: counted once in tx_dropped and once in tx_aborted_errors, as
 * mainline counts it. Any context; the slot may be empty; same rules for
 * the slot as can_free_echo_skb().
 *
 * Return: true if the slot held a frame.
 */
bool can_drop_echo_skb(struct net_device *dev, unsigned int idx)
{
	struct can_priv *priv = netdev_priv(dev);

	if (WARN_ON_ONCE(idx >= priv->echo_skb_max) || !priv->echo_skb[idx])
		return false;
	dev->stats.tx_dropped++;
	dev->stats.tx_aborted_errors++;
	can_free_echo_skb(dev, idx);
	return true;
}
EXPORT_SYMBOL_GPL(can_drop_echo_skb);

/**
 * can_flush_echo_skbs() - drop every frame still waiting for confirmation
 * @dev: the device, its controller stopped or in reset
 *
 * Counts each frame as can_drop_echo_skb() does. Any context, but the
 * TX-done interrupt must not run at the same time.
 */
void can_flush_echo_skbs(struct net_device *dev)
{
	struct can_priv *priv = netdev_priv(dev);
	unsigned int i;

	for (i = 0; i < priv->echo_skb_max; i++)
		can_drop_echo_skb(dev, i);
}
EXPORT_SYMBOL_GPL(can_flush_echo_skbs);

/**
 * can_skb_alloc() - allocate a received classic CAN frame
 * @dev: the receiving device
 * @cf: set to the zeroed frame inside the skb, or NULL on failure
 *
 * Any context (GFP_ATOMIC). The caller fills @cf in and passes the skb
 * to netif_rx() or NAPI.
 *
 * Return: the skb, or NULL if memory ran out (count it in rx_dropped).
 */
struct sk_buff *can_skb_alloc(struct net_device *dev, struct can_frame **cf)
{
	struct sk_buff *skb;

	*cf = NULL;
	skb = netdev_alloc_skb(dev, sizeof(struct can_skb_priv) +
			       sizeof(struct can_frame));
	if (!skb)
		return NULL;

	can_skb_reserve(skb);
	can_skb_prv(skb)->ifindex = dev->ifindex;
	can_skb_prv(skb)->skbcnt = 0;
	skb->protocol = htons(ETH_P_CAN);
	skb->pkt_type = PACKET_BROADCAST;
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb_reset_mac_header(skb);
	skb_reset_network_header(skb);
	skb_reset_transport_header(skb);
	*cf = skb_put_zero(skb, sizeof(struct can_frame));
	return skb;
}
EXPORT_SYMBOL_GPL(can_skb_alloc);

/**
 * can_err_skb_alloc() - allocate an error frame to report to user space
 * @dev: the device the error happened on
 * @cf: set to the frame, already carrying CAN_ERR_FLAG and CAN_ERR_DLC
 *
 * Same context and ownership rules as can_skb_alloc(); the caller ORs in
 * the CAN_ERR_* class bits and fills data[].
 *
 * Return: the skb, or NULL if memory ran out.
 */
struct sk_buff *can_err_skb_alloc(struct net_device *dev,
				  struct can_frame **cf)
{
	struct sk_buff *skb = can_skb_alloc(dev, cf);

	if (!skb)
		return NULL;
	(*cf)->can_id = CAN_ERR_FLAG;
	(*cf)->len = CAN_ERR_DLC;
	return skb;
}
EXPORT_SYMBOL_GPL(can_err_skb_alloc);
