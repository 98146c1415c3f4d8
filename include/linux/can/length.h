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

u8 can_fd_dlc2len(u8 dlc);
u8 can_fd_len2dlc(u8 len);
unsigned int can_frame_wire_len(const struct can_frame *cf);

#endif /* !_CAN_LENGTH_H */
