/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Conversions between a CAN frame's DLC field and its payload length,
 * classic and CAN FD, and the number of bytes a frame occupies on the
 * wire.
 */

#ifndef _CAN_LENGTH_H
#define _CAN_LENGTH_H

#include <linux/can.h>
#include <linux/can/netlink.h>
#include <linux/math.h>
#include <linux/minmax.h>

/* Classic CAN: DLC values 9 to 15 all mean eight bytes. */
static inline u8 can_cc_dlc2len(u8 dlc)
{
	return min_t(u8, dlc & 0x0f, CAN_MAX_DLEN);
}

/**
 * can_frame_set_cc_len() - set a received classic frame's length from its DLC
 * @cf: frame being filled in by a driver
 * @dlc: the four bit DLC read from the controller
 * @ctrlmode: the device's CAN_CTRLMODE_* bits; with
 *	CAN_CTRLMODE_CC_LEN8_DLC a DLC above 8 is kept in @cf->len8_dlc
 */
static inline void can_frame_set_cc_len(struct can_frame *cf, const u8 dlc,
					const u32 ctrlmode)
{
	cf->len = can_cc_dlc2len(dlc);
	if ((ctrlmode & CAN_CTRLMODE_CC_LEN8_DLC) && dlc > CAN_MAX_DLEN)
		cf->len8_dlc = dlc & 0x0f;
}

/**
 * can_get_cc_dlc() - the DLC to transmit for a classic frame
 * @cf: frame handed to the driver
 * @ctrlmode: the device's CAN_CTRLMODE_* bits; only with
 *	CAN_CTRLMODE_CC_LEN8_DLC does an eight byte frame send its
 *	@cf->len8_dlc of 9 to 15
 *
 * Return: 0 to 15.
 */
static inline u8 can_get_cc_dlc(const struct can_frame *cf, const u32 ctrlmode)
{
	if ((ctrlmode & CAN_CTRLMODE_CC_LEN8_DLC) && cf->len == CAN_MAX_DLEN &&
	    cf->len8_dlc > CAN_MAX_DLEN && cf->len8_dlc <= CAN_MAX_RAW_DLC)
		return cf->len8_dlc;
	return cf->len;
}

/* Bytes a frame occupies on the bus besides its payload, stuff bits
 * left out: a classic frame has 47 bits around its data with an 11-bit
 * id and 67 with a 29-bit one; a CAN FD frame 67 and 86, counting the
 * longer CRC and its fixed stuff bits. Drivers that feed byte queue
 * limits use these through can_skb_get_frame_len().
 */
#define CAN_FRAME_OVERHEAD_SFF	DIV_ROUND_UP(47, 8)
#define CANFD_FRAME_OVERHEAD_SFF	DIV_ROUND_UP(67, 8)
#define CAN_FRAME_OVERHEAD_EFF	DIV_ROUND_UP(67, 8)
#define CANFD_FRAME_OVERHEAD_EFF	DIV_ROUND_UP(86, 8)

/* The longest classic and CAN FD frames, in bytes on the bus. */
#define CAN_FRAME_LEN_MAX	(CAN_MAX_DLEN + CAN_FRAME_OVERHEAD_EFF)
#define CANFD_FRAME_LEN_MAX	(CANFD_MAX_DLEN + CANFD_FRAME_OVERHEAD_EFF)

u8 can_fd_dlc2len(u8 dlc);
u8 can_fd_len2dlc(u8 len);
unsigned int can_frame_wire_len(const struct can_frame *cf);

struct sk_buff;
unsigned int can_skb_get_frame_len(const struct sk_buff *skb);

/* A CAN FD payload length rounded up to the next length a DLC can
 * express, which is what the controller will put on the bus.
 */
static inline u8 canfd_sanitize_len(u8 len)
{
	return can_fd_dlc2len(can_fd_len2dlc(len));
}

#endif /* !_CAN_LENGTH_H */
