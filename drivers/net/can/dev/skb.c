// SPDX-License-Identifier: GPL-2.0
/* Socket buffers of CAN devices: received and error frames allocated for
 * drivers, and the echo of sent frames, which holds each frame until the
 * controller reports it on the bus and only then hands it to local
 * sockets, still owned by the socket that sent it.
 */

#include <linux/can/core.h>
#include <linux/can/dev.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

/**
 * can_put_echo_skb() - keep a frame being sent until it is confirmed
 * @skb: frame from ndo_start_xmit, already checked by
 *	can_dropped_invalid_skb(); consumed in every case
 * @dev: the sending device
 * @idx: the controller's TX slot the frame goes to
 * @frame_len: the frame's length on the wire for byte queue limits, given
 *	back on completion; 0 if the driver does not account it
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
		     unsigned int idx, unsigned int frame_len)
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
	can_skb_prv(skb)->frame_len = frame_len;
	/* A hardware timestamp was asked for: the driver supplies it when
	 * the frame completes, and the echo reports it then.
	 */
	if (skb_shinfo(skb)->tx_flags & SKBTX_HW_TSTAMP)
		skb_shinfo(skb)->tx_flags |= SKBTX_IN_PROGRESS;
	skb_tx_timestamp(skb);
	priv->echo_skb[idx] = skb;
	return 0;
}
EXPORT_SYMBOL_GPL(can_put_echo_skb);

/**
 * __can_get_echo_skb() - take the confirmed frame out of slot @idx
 * @dev: the device
 * @idx: TX slot
 * @len_ptr: set to the payload length, for tx_bytes
 * @frame_len_ptr: if not NULL, set to the frame_len given to
 *	can_put_echo_skb()
 *
 * For drivers that deliver the echo themselves (from NAPI, say). A
 * pending hardware timestamp is reported to the sender here, and writers
 * waiting for room in the TX queue are woken (can_tx_room()). Any
 * context; same rules for the slot as can_put_echo_skb().
 *
 * Return: the frame, marked as received and owned by the caller, who
 * passes it up the stack; NULL if the slot was empty or nobody asked for
 * the echo (the frame is freed then, with *@len_ptr still set).
 */
struct sk_buff *__can_get_echo_skb(struct net_device *dev, unsigned int idx,
				   unsigned int *len_ptr,
				   unsigned int *frame_len_ptr)
{
	struct can_priv *priv = netdev_priv(dev);
	struct sk_buff *skb;

	*len_ptr = 0;
	if (WARN_ON_ONCE(idx >= priv->echo_skb_max))
		return NULL;
	skb = priv->echo_skb[idx];
	if (!skb)
		return NULL;
	priv->echo_skb[idx] = NULL;
	/* The queue has room again once the driver takes the next frame. */
	can_tx_room(dev);

	if (skb_shinfo(skb)->tx_flags & SKBTX_IN_PROGRESS)
		skb_tstamp_tx(skb, skb_hwtstamps(skb));
	can_tx_report_set(skb, 0);
	*len_ptr = can_skb_get_data_len(skb);
	if (frame_len_ptr)
		*frame_len_ptr = can_skb_prv(skb)->frame_len;

	/* Only the core's own frames go back up; see can_get_echo_skb(). */
	if (skb->pkt_type != PACKET_LOOPBACK) {
		dev_consume_skb_any(skb);
		return NULL;
	}
	skb->pkt_type = PACKET_BROADCAST;
	return skb;
}
EXPORT_SYMBOL_GPL(__can_get_echo_skb);

/**
 * can_get_echo_skb() - the controller sent the frame in slot @idx
 * @dev: the device
 * @idx: TX slot
 * @frame_len_ptr: if not NULL, set to the frame_len given to
 *	can_put_echo_skb(), for netdev_completed_queue()
 *
 * Frames the core asked to loop back (PACKET_LOOPBACK) go to the stack
 * now, as if received, so that only frames that reached the bus show up
 * at local sockets; others are freed. Any context, typically the TX-done
 * interrupt.
 *
 * Return: the payload length for tx_bytes, also for a frame that is not
 * looped back; 0 if the slot was empty.
 */
unsigned int can_get_echo_skb(struct net_device *dev, unsigned int idx,
			      unsigned int *frame_len_ptr)
{
	struct sk_buff *skb;
	unsigned int len;

	skb = __can_get_echo_skb(dev, idx, &len, frame_len_ptr);
	if (skb)
		can_netif_rx(skb);
	return len;
}
EXPORT_SYMBOL_GPL(can_get_echo_skb);

/* Free the frame in slot @idx unsent, telling its sender @result
 * (CAN_RAW_TX_REPORT). Same rules as can_free_echo_skb().
 */
static void can_discard_echo_skb(struct net_device *dev, unsigned int idx,
				 unsigned int *frame_len_ptr, int result)
{
	struct can_priv *priv = netdev_priv(dev);
	struct sk_buff *skb;

	if (frame_len_ptr)
		*frame_len_ptr = 0;
	if (WARN_ON_ONCE(idx >= priv->echo_skb_max))
		return;
	skb = priv->echo_skb[idx];
	if (!skb)
		return;
	if (frame_len_ptr)
		*frame_len_ptr = can_skb_prv(skb)->frame_len;
	priv->echo_skb[idx] = NULL;
	can_tx_report_set(skb, result);
	dev_kfree_skb_any(skb);
	can_tx_room(dev);
}

/**
 * can_free_echo_skb() - drop the frame in slot @idx without echoing it
 * @dev: the device
 * @idx: TX slot
 * @frame_len_ptr: if not NULL, set to the frame_len given to
 *	can_put_echo_skb(), or 0 for an empty slot
 *
 * For a frame the driver counts itself, such as a one-shot frame that
 * failed (tx_errors); a frame lost to bus-off or stop goes through
 * can_drop_echo_skb() instead. Writers waiting for room in the TX queue
 * are woken (can_tx_room()). Any context; the slot may be empty.
 */
void can_free_echo_skb(struct net_device *dev, unsigned int idx,
		       unsigned int *frame_len_ptr)
{
	can_discard_echo_skb(dev, idx, frame_len_ptr, -ECOMM);
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
	can_discard_echo_skb(dev, idx, NULL,
			     netif_running(dev) ? -ECOMM : -ENETDOWN);
	return true;
}
EXPORT_SYMBOL_GPL(can_drop_echo_skb);

/**
 * can_drop_stale_echo_skb() - drop the frame in slot @idx if its sender
 *	no longer wants it sent
 * @dev: the device
 * @idx: TX slot
 *
 * For a controller that can give up a frame before it starts on the
 * wire: its deadline passed (CAN_RAW_TX_DEADLINE) or it was written
 * before the last bus-off and its sender asked for a flush. Counted in
 * tx_dropped. Same rules for the slot as can_free_echo_skb().
 *
 * Return: true if the slot held such a frame, which is gone now.
 */
bool can_drop_stale_echo_skb(struct net_device *dev, unsigned int idx)
{
	struct can_priv *priv = netdev_priv(dev);
	int stale;

	if (WARN_ON_ONCE(idx >= priv->echo_skb_max) || !priv->echo_skb[idx])
		return false;
	stale = can_tx_report_stale(priv->echo_skb[idx], priv->bus_off_at);
	if (!stale)
		return false;
	dev->stats.tx_dropped++;
	can_discard_echo_skb(dev, idx, NULL, stale);
	return true;
}
EXPORT_SYMBOL_GPL(can_drop_stale_echo_skb);

/**
 * can_dev_dropped_stale_skb() - drop a frame from the queue whose sender
 *	no longer wants it sent
 * @dev: the device, from can-dev
 * @skb: the frame from ndo_start_xmit
 *
 * See can_drop_stale_echo_skb(); counted in tx_dropped. Any context
 * (ndo_start_xmit).
 *
 * Return: true if @skb was dropped.
 */
bool can_dev_dropped_stale_skb(struct net_device *dev, struct sk_buff *skb)
{
	struct can_priv *priv = netdev_priv(dev);
	int stale = can_tx_report_stale(skb, priv->bus_off_at);

	if (!stale)
		return false;
	can_tx_report_set(skb, stale);
	kfree_skb(skb);
	dev->stats.tx_dropped++;
	return true;
}
EXPORT_SYMBOL_GPL(can_dev_dropped_stale_skb);

/**
 * can_flush_echo_skb() - drop every frame still waiting for confirmation
 * @dev: the device, its controller stopped or in reset
 *
 * Counts each frame as can_drop_echo_skb() does. Any context, but the
 * TX-done interrupt must not run at the same time.
 */
void can_flush_echo_skb(struct net_device *dev)
{
	struct can_priv *priv = netdev_priv(dev);
	unsigned int i;

	for (i = 0; i < priv->echo_skb_max; i++)
		can_drop_echo_skb(dev, i);
}
EXPORT_SYMBOL_GPL(can_flush_echo_skb);

/* A received frame of @size bytes and protocol @proto, zeroed, with
 * the private area in front of it; NULL if memory ran out.
 */
static struct sk_buff *alloc_rx_skb(struct net_device *dev, unsigned int size,
				    __be16 proto, void **frame)
{
	struct sk_buff *skb;

	*frame = NULL;
	skb = netdev_alloc_skb(dev, sizeof(struct can_skb_priv) + size);
	if (!skb)
		return NULL;

	can_skb_reserve(skb);
	can_skb_prv(skb)->ifindex = dev->ifindex;
	can_skb_prv(skb)->skbcnt = 0;
	skb->protocol = proto;
	skb->pkt_type = PACKET_BROADCAST;
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb_reset_mac_header(skb);
	skb_reset_network_header(skb);
	skb_reset_transport_header(skb);
	*frame = skb_put_zero(skb, size);
	return skb;
}

/**
 * alloc_can_skb() - allocate a received classic CAN frame
 * @dev: the receiving device
 * @cf: set to the zeroed frame inside the skb, or NULL on failure
 *
 * Any context (GFP_ATOMIC). The caller fills @cf in and passes the skb
 * to netif_rx() or NAPI.
 *
 * Return: the skb, or NULL if memory ran out (count it in rx_dropped).
 */
struct sk_buff *alloc_can_skb(struct net_device *dev, struct can_frame **cf)
{
	return alloc_rx_skb(dev, sizeof(**cf), htons(ETH_P_CAN), (void **)cf);
}
EXPORT_SYMBOL_GPL(alloc_can_skb);

/**
 * alloc_canfd_skb() - allocate a received CAN FD frame
 * @dev: the receiving device
 * @cfd: set to the frame inside the skb, zeroed but for CANFD_FDF in its
 *	flags, or NULL on failure
 *
 * Same context and ownership rules as alloc_can_skb(); the caller adds
 * CANFD_BRS and CANFD_ESI as received.
 *
 * Return: the skb, or NULL if memory ran out (count it in rx_dropped).
 */
struct sk_buff *alloc_canfd_skb(struct net_device *dev,
				struct canfd_frame **cfd)
{
	struct sk_buff *skb;

	skb = alloc_rx_skb(dev, sizeof(**cfd), htons(ETH_P_CANFD),
			   (void **)cfd);
	if (skb)
		(*cfd)->flags = CANFD_FDF;
	return skb;
}
EXPORT_SYMBOL_GPL(alloc_canfd_skb);

/**
 * alloc_can_err_skb() - allocate an error frame to report to user space
 * @dev: the device the error happened on
 * @cf: set to the frame, already carrying CAN_ERR_FLAG and CAN_ERR_DLC
 *
 * Same context and ownership rules as alloc_can_skb(); the caller ORs in
 * the CAN_ERR_* class bits and fills data[].
 *
 * Return: the skb, or NULL if memory ran out.
 */
struct sk_buff *alloc_can_err_skb(struct net_device *dev,
				  struct can_frame **cf)
{
	struct sk_buff *skb = alloc_can_skb(dev, cf);

	if (!skb)
		return NULL;
	(*cf)->can_id = CAN_ERR_FLAG;
	(*cf)->len = CAN_ERR_DLC;
	return skb;
}
EXPORT_SYMBOL_GPL(alloc_can_err_skb);

/**
 * alloc_canxl_skb() - allocate a received CAN XL frame
 * @dev: the receiving device
 * @cxl: set to the frame inside the skb, zeroed but for CANXL_XLF in its
 *	flags and @data_len in its length, or NULL on failure
 * @data_len: payload length as the controller reported it
 *
 * Same context and ownership rules as alloc_can_skb(). The skb is only
 * as long as the header and @data_len, as CAN XL frames are everywhere.
 *
 * Return: the skb, or NULL if memory ran out or @data_len is outside
 * CANXL_MIN_DLEN..CANXL_MAX_DLEN (count either in rx_dropped).
 */
struct sk_buff *alloc_canxl_skb(struct net_device *dev,
				struct canxl_frame **cxl,
				unsigned int data_len)
{
	struct sk_buff *skb;

	if (data_len < CANXL_MIN_DLEN || data_len > CANXL_MAX_DLEN) {
		*cxl = NULL;
		return NULL;
	}
	skb = alloc_rx_skb(dev, CANXL_HDR_SIZE + data_len, htons(ETH_P_CANXL),
			   (void **)cxl);
	if (skb) {
		(*cxl)->flags = CANXL_XLF;
		(*cxl)->len = data_len;
	}
	return skb;
}
EXPORT_SYMBOL_GPL(alloc_canxl_skb);
