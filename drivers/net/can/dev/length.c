// SPDX-License-Identifier: GPL-2.0
/* Frame lengths on the wire, for drivers that account bytes in flight
 * (byte queue limits) or estimate bus load.
 */

#include <linux/kernel.h>
#include <linux/can/length.h>

/* Bits of a classic frame without stuff bits: start of frame, arbitration
 * and control fields, CRC and its delimiter, ACK slot and delimiter, end
 * of frame and the intermission that follows.
 */
#define CAN_SFF_OVERHEAD_BITS	(1 + 12 + 6 + 16 + 2 + 7 + 3)
#define CAN_EFF_OVERHEAD_BITS	(1 + 32 + 6 + 16 + 2 + 7 + 3)

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
