/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Socket buffers that carry CAN frames: the private area every CAN skb
 * has in front of its frame, and small helpers to classify and own them.
 */

#ifndef _CAN_SKB_H
#define _CAN_SKB_H

#include <linux/can.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/sock.h>

/* skb.c, in can-dev */
struct sk_buff *alloc_can_skb(struct net_device *dev, struct can_frame **cf);
struct sk_buff *alloc_canfd_skb(struct net_device *dev,
				struct canfd_frame **cfd);
struct sk_buff *alloc_can_err_skb(struct net_device *dev,
				  struct can_frame **cf);
struct sk_buff *alloc_canxl_skb(struct net_device *dev,
				struct canxl_frame **cxl,
				unsigned int data_len);
int can_put_echo_skb(struct sk_buff *skb, struct net_device *dev,
		     unsigned int idx, unsigned int frame_len);
unsigned int __must_check can_get_echo_skb(struct net_device *dev,
					   unsigned int idx,
					   unsigned int *frame_len_ptr);
struct sk_buff *__can_get_echo_skb(struct net_device *dev, unsigned int idx,
				   unsigned int *len_ptr,
				   unsigned int *frame_len_ptr);
bool can_drop_echo_skb(struct net_device *dev, unsigned int idx);
void can_free_echo_skb(struct net_device *dev, unsigned int idx,
		       unsigned int *frame_len_ptr);
void can_flush_echo_skb(struct net_device *dev);
/* Ours: frames whose sender gave up on them (CAN_RAW_TX_DEADLINE) */
bool can_drop_stale_echo_skb(struct net_device *dev, unsigned int idx);
bool can_dev_dropped_stale_skb(struct net_device *dev, struct sk_buff *skb);

/**
 * struct can_skb_priv - bookkeeping kept in the headroom of a CAN skb
 * @ifindex: interface the frame was received on or is sent to
 * @skbcnt: receive sequence number, set once by the core so that a socket
 *	with several matching filters can deliver the frame only once;
 *	0 until then
 * @frame_len: length on the wire in bytes, kept by drivers for BQL
 * @cf: the frame that follows; the member pads the structure so that
 *	the frame's 64-bit aligned data stays aligned
 *
 * It sits at skb->head, right before the frame; clones share it.
 */
struct can_skb_priv {
	int ifindex;
	int skbcnt;
	unsigned int frame_len;
	struct can_frame cf[];
};

static inline struct can_skb_priv *can_skb_prv(struct sk_buff *skb)
{
	return (void *)skb->head;
}

/* Make room for struct can_skb_priv; call right after allocation. */
static inline void can_skb_reserve(struct sk_buff *skb)
{
	skb_reserve(skb, sizeof(*can_skb_prv(skb)));
}

/*
 * Charge @skb to @sk so that the socket lives as long as the frame does:
 * the receive path compares skb->sk with the receiving socket to report
 * the socket's own frames. A socket already being freed is not taken.
 */
static inline void can_skb_set_owner(struct sk_buff *skb, struct sock *sk)
{
	if (!sk || !refcount_inc_not_zero(&sk->sk_refcnt))
		return;
	skb->sk = sk;
	skb->destructor = sock_efree;
}

/**
 * can_create_echo_skb() - make @skb private so a driver may loop it back
 * @skb: a frame handed to a driver's ndo_start_xmit
 *
 * Return: @skb itself, or an unshared copy still owned by the same
 * socket, or NULL if the copy failed; @skb is consumed in that case.
 */
static inline struct sk_buff *can_create_echo_skb(struct sk_buff *skb)
{
	struct sk_buff *copy;

	if (!skb_shared(skb))
		return skb;

	/* The copy takes over the owner and its destructor, which accounts
	 * for the frame (and may report its fate, CAN_RAW_TX_REPORT) when
	 * the last of the two goes.
	 */
	copy = skb_clone(skb, GFP_ATOMIC);
	if (copy) {
		swap(copy->sk, skb->sk);
		swap(copy->destructor, skb->destructor);
		consume_skb(skb);
	} else {
		kfree_skb(skb);
	}
	return copy;
}

static inline bool can_is_can_skb(const struct sk_buff *skb)
{
	const struct can_frame *cf = (const struct can_frame *)skb->data;

	return skb->len == CAN_MTU && cf->len <= CAN_MAX_DLEN;
}

static inline bool can_is_canfd_skb(const struct sk_buff *skb)
{
	const struct canfd_frame *cfd = (const struct canfd_frame *)skb->data;

	return skb->len == CANFD_MTU && cfd->len <= CANFD_MAX_DLEN;
}

/* A CAN XL frame: the XLF flag set, a length field of 1 to 2048 and a
 * size of exactly the header plus that length, as mainline has it. The
 * flag sits where classic and FD frames keep their length, so no XL
 * frame passes for one of them.
 */
static inline bool can_is_canxl_skb(const struct sk_buff *skb)
{
	const struct canxl_frame *cxl = (const struct canxl_frame *)skb->data;

	if (skb->len < CANXL_HDR_SIZE + CANXL_MIN_DLEN || skb->len > CANXL_MTU)
		return false;
	return skb->len == CANXL_HDR_SIZE + cxl->len &&
	       (cxl->flags & CANXL_XLF);
}

/* Whether a device of this MTU carries CAN XL frames. */
static inline bool can_is_canxl_dev_mtu(unsigned int mtu)
{
	return mtu >= CANXL_MIN_MTU && mtu <= CANXL_MAX_MTU;
}

/* The MTUs a CAN device can have: classic, FD or one of the XL range. */
static inline bool can_is_frame_mtu(unsigned int mtu)
{
	return mtu == CAN_MTU || mtu == CANFD_MTU || can_is_canxl_dev_mtu(mtu);
}

/* Payload bytes of a valid frame of any type; a remote request has none. */
static inline unsigned int can_skb_get_data_len(const struct sk_buff *skb)
{
	const struct canfd_frame *cfd = (const struct canfd_frame *)skb->data;

	if (can_is_canxl_skb(skb))
		return ((const struct canxl_frame *)skb->data)->len;
	if (can_is_can_skb(skb) && (cfd->can_id & CAN_RTR_FLAG))
		return 0;
	return cfd->len;
}

/**
 * can_skb_headroom_valid() - check and, if needed, set up the private area
 * @dev: the device the frame goes to
 * @skb: a frame handed to a driver for transmission
 *
 * Frames from PF_CAN sockets come with struct can_skb_priv in place and
 * CHECKSUM_UNNECESSARY. Frames injected through packet sockets have the
 * headroom but not its contents; fill it in for them, and mark them for
 * the driver's echo if the device echoes frames.
 *
 * Return: false if @skb has no room for the private area.
 */
static inline bool can_skb_headroom_valid(struct net_device *dev,
					  struct sk_buff *skb)
{
	if (skb_headroom(skb) < sizeof(struct can_skb_priv))
		return false;

	if (skb->ip_summed == CHECKSUM_NONE) {
		/*
		 * Nobody looped such a frame back: a driver that echoes
		 * frames will, as it does for frames from CAN sockets.
		 */
		skb->pkt_type = (dev->flags & IFF_ECHO) ? PACKET_LOOPBACK :
							  PACKET_HOST;
		can_skb_prv(skb)->ifindex = dev->ifindex;
		can_skb_prv(skb)->skbcnt = 0;
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		skb_reset_mac_header(skb);
		skb_reset_network_header(skb);
		skb_reset_transport_header(skb);
		if (can_is_canfd_skb(skb))
			((struct canfd_frame *)skb->data)->flags |= CANFD_FDF;
	}
	return true;
}

/**
 * can_dropped_invalid_skb() - drop a frame a CAN driver must not send
 * @dev: the transmitting device
 * @skb: the frame from ndo_start_xmit
 *
 * A frame is sent only if its size and length field fit its protocol
 * (ETH_P_CAN, ETH_P_CANFD or ETH_P_CANXL), the device's MTU allows its
 * size, an XL frame goes to a device of an XL MTU, and the private area
 * is in place. Anything else is freed and counted in
 * tx_dropped. The MTU check matters for frames that did not come from a
 * CAN socket, which can_send() checks: tc (mirred) and packet sockets
 * hand a classic controller CAN FD frames, whose 64 data bytes its
 * driver has no room for.
 *
 * Return: true if @skb was dropped and the driver must return
 * NETDEV_TX_OK without touching it.
 */
static inline bool can_dropped_invalid_skb(struct net_device *dev,
					   struct sk_buff *skb)
{
	bool ok;

	if (skb->protocol == htons(ETH_P_CAN))
		ok = can_is_can_skb(skb);
	else if (skb->protocol == htons(ETH_P_CANFD))
		ok = can_is_canfd_skb(skb);
	else if (skb->protocol == htons(ETH_P_CANXL))
		ok = can_is_canxl_skb(skb) && can_is_canxl_dev_mtu(dev->mtu);
	else
		ok = false;

	if (ok && skb->len <= dev->mtu && can_skb_headroom_valid(dev, skb))
		return false;

	kfree_skb(skb);
	dev->stats.tx_dropped++;
	return true;
}

#endif /* !_CAN_SKB_H */
