/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Conversions between a classic CAN frame's DLC field and its payload
 * length, and the number of bytes a frame occupies on the wire.
 */

#ifndef _CAN_LENGTH_H
#define _CAN_LENGTH_H

#include <linux/can.h>
#include <linux/minmax.h>

/* Classic CAN: DLC values 9 to 15 all mean eight bytes. */
static inline u8 can_cc_dlc2len(u8 dlc)
{
	return min_t(u8, dlc & 0x0f, CAN_MAX_DLEN);
}

/**
 * can_frame_set_len() - set a received classic frame's length from its DLC
 * @cf: frame being filled in by a driver
 * @dlc: the four bit DLC read from the controller
 * @keep_dlc: true if the device runs with CAN_CTRLMODE_CC_LEN8_DLC
 */
static inline void can_frame_set_len(struct can_frame *cf, u8 dlc,
				     bool keep_dlc)
{
	cf->len = can_cc_dlc2len(dlc);
	if (keep_dlc && dlc > CAN_MAX_DLEN)
		cf->len8_dlc = dlc & 0x0f;
}

/**
 * can_frame_get_dlc() - the DLC to transmit for a classic frame
 * @cf: frame handed to the driver
 * @keep_dlc: true if the device runs with CAN_CTRLMODE_CC_LEN8_DLC
 *
 * Return: 0 to 15.
 */
static inline u8 can_frame_get_dlc(const struct can_frame *cf, bool keep_dlc)
{
	if (keep_dlc && cf->len == CAN_MAX_DLEN &&
	    cf->len8_dlc > CAN_MAX_DLEN && cf->len8_dlc <= 15)
		return cf->len8_dlc;
	return cf->len;
}

unsigned int can_frame_wire_len(const struct can_frame *cf);

#endif /* !_CAN_LENGTH_H */
