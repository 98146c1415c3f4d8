// SPDX-License-Identifier: GPL-2.0
/* DLC codes of CAN FD frames, and frame lengths on the wire for drivers
 * that account bytes in flight (byte queue limits) or estimate bus load.
 */

#include <linux/kernel.h>
#include <linux/can/length.h>
#include <linux/can/skb.h>

/* CAN FD payload lengths by DLC: up to 8 as in classic CAN, then in
 * growing steps up to 64.
 */
static const u8 can_fd_len_of_dlc[CAN_MAX_RAW_DLC + 1] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64,
};

/**
 * can_fd_dlc2len() - payload length of a CAN FD frame from its DLC
 * @dlc: the DLC from the controller; only its low four bits count
 *
 * Any context.
 *
 * Return: 0 to 64.
 */
u8 can_fd_dlc2len(u8 dlc)
{
	return can_fd_len_of_dlc[dlc & CAN_MAX_RAW_DLC];
}
EXPORT_SYMBOL_GPL(can_fd_dlc2len);

/**
 * can_fd_len2dlc() - the DLC to send a CAN FD payload of @len bytes with
 * @len: payload length; a length between two DLC steps takes the larger
 *	step, whose extra bytes the controller pads
 *
 * Any context.
 *
 * Return: 0 to 15; 15 for anything above 48.
 */
u8 can_fd_len2dlc(u8 len)
{
	u8 dlc = 0;

	while (dlc < CAN_MAX_RAW_DLC && can_fd_len_of_dlc[dlc] < len)
		dlc++;
	return dlc;
}
EXPORT_SYMBOL_GPL(can_fd_len2dlc);

/* Bits of a classic frame without stuff bits: start of frame, arbitration
 * and control fields, CRC and its delimiter, ACK slot and delimiter, end
 * of frame and the intermission that follows.
 */
#define CAN_SFF_OVERHEAD_BITS	(1 + 12 + 6 + 16 + 2 + 7 + 3)
#define CAN_EFF_OVERHEAD_BITS	(1 + 32 + 6 + 16 + 2 + 7 + 3)
static_assert(DIV_ROUND_UP(CAN_SFF_OVERHEAD_BITS, 8) == CAN_FRAME_OVERHEAD_SFF);
static_assert(DIV_ROUND_UP(CAN_EFF_OVERHEAD_BITS, 8) == CAN_FRAME_OVERHEAD_EFF);

/**
 * can_frame_wire_len() - bytes a classic frame occupies on the bus
 * @cf: the frame; RTR frames carry no data whatever their length field
 *
 * Stuff bits are not counted, so this is the lower bound. Any context.
 *
 * Return: length in bytes, rounded up.
 */
unsigned int can_frame_wire_len(const struct can_frame *cf)
{
	unsigned int bits = (cf->can_id & CAN_EFF_FLAG) ?
			    CAN_EFF_OVERHEAD_BITS : CAN_SFF_OVERHEAD_BITS;

	if (!(cf->can_id & CAN_RTR_FLAG))
		bits += 8 * min_t(unsigned int, cf->len, CAN_MAX_DLEN);
	return DIV_ROUND_UP(bits, 8);
}
EXPORT_SYMBOL_GPL(can_frame_wire_len);

/**
 * can_skb_get_frame_len() - bytes the frame in @skb occupies on the bus
 * @skb: a classic or CAN FD frame about to be sent; anything else is 0
 *
 * Stuff bits are not counted, and a CAN FD payload counts as the length
 * its DLC rounds it up to. Drivers pass the result to can_put_echo_skb()
 * and netdev_sent_queue() for byte queue limits. Any context.
 *
 * Return: length in bytes, at most CANFD_FRAME_LEN_MAX.
 */
unsigned int can_skb_get_frame_len(const struct sk_buff *skb)
{
	const struct canfd_frame *cfd = (const struct canfd_frame *)skb->data;

	if (can_is_canfd_skb(skb))
		return canfd_sanitize_len(cfd->len) +
		       ((cfd->can_id & CAN_EFF_FLAG) ? CANFD_FRAME_OVERHEAD_EFF :
						      CANFD_FRAME_OVERHEAD_SFF);
	if (can_is_can_skb(skb))
		return can_frame_wire_len((const struct can_frame *)skb->data);
	return 0;
}
EXPORT_SYMBOL_GPL(can_skb_get_frame_len);
