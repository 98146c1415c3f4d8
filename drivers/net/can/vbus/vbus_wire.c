// SPDX-License-Identifier: GPL-2.0
/* How long a frame occupies the wire: its bits are laid out as a
 * controller sends them, from SOF through the data field (and the CRC
 * of a classic frame), with a stuff bit after every five equal bits, so
 * that the count is exact for this identifier and these data bytes.
 * The arbitration key orders frames as the wire does.
 */

#include <linux/can/dev.h>
#include <linux/can/length.h>
#include <linux/math64.h>
#include "vbus.h"

/* After the stuffed part: CRC delimiter, ACK slot and delimiter, EOF and
 * the interframe space.
 */
#define TRAILER_BITS		13
/* A CAN FD frame's stuff count and CRC with their fixed stuff bits */
#define FD_CRC17_FIELD_BITS	27
#define FD_CRC21_FIELD_BITS	32
#define CRC15_POLY		0x4599

/**
 * struct wire_writer - the bit stream of one frame
 * @last: the last bit on the wire
 * @run: how many equal bits end the stream
 * @crc: CRC-15 of the bits so far, stuff bits not included
 * @bits: bits at the nominal rate
 * @data_phase_bits: bits at the data rate
 * @in_data_phase: the bit rate has switched
 */
struct wire_writer {
	unsigned int last;
	unsigned int run;
	u16 crc;
	unsigned int bits;
	unsigned int data_phase_bits;
	bool in_data_phase;
};

static void count_bit(struct wire_writer *w)
{
	if (w->in_data_phase)
		w->data_phase_bits++;
	else
		w->bits++;
}

/* Five equal bits before this one: the complement goes first. */
static void put_stuffed(struct wire_writer *w, unsigned int bit)
{
	if (w->run == 5) {
		w->last = !w->last;
		w->run = 1;
		count_bit(w);
	}
	if (w->run && bit == w->last) {
		w->run++;
	} else {
		w->last = bit;
		w->run = 1;
	}
	count_bit(w);
}

static void put_bits(struct wire_writer *w, u32 value, unsigned int n)
{
	unsigned int bit;

	while (n--) {
		bit = (value >> n) & 1;
		if (bit ^ ((w->crc >> 14) & 1))
			w->crc = ((w->crc << 1) ^ CRC15_POLY) & 0x7fff;
		else
			w->crc = (w->crc << 1) & 0x7fff;
		put_stuffed(w, bit);
	}
}

static void put_bytes(struct wire_writer *w, const u8 *data,
		      unsigned int len, unsigned int wire_len)
{
	unsigned int i;

	for (i = 0; i < wire_len; i++)
		put_bits(w, i < len ? data[i] : 0, 8);
}

/* SOF and the arbitration field; also the key that orders it. */
static u32 put_arbitration(struct wire_writer *w, canid_t id, bool is_rtr)
{
	u32 base, ext;

	put_bits(w, 0, 1);
	if (!(id & CAN_EFF_FLAG)) {
		base = id & CAN_SFF_MASK;
		put_bits(w, base, 11);
		put_bits(w, is_rtr, 1);
		put_bits(w, 0, 1);		/* IDE */
		return base << 21 | (u32)is_rtr << 20;
	}
	base = (id & CAN_EFF_MASK) >> 18;
	ext = id & 0x3ffff;
	put_bits(w, base, 11);
	put_bits(w, 3, 2);			/* SRR, IDE */
	put_bits(w, ext, 18);
	put_bits(w, is_rtr, 1);
	return base << 21 | 3 << 19 | ext << 1 | is_rtr;
}

static void wire_of_classic(struct vbus_wire *wire, const struct can_frame *cf,
			    u32 ctrlmode)
{
	bool is_rtr = cf->can_id & CAN_RTR_FLAG;
	unsigned int len = is_rtr ? 0 : cf->len;
	struct wire_writer w = {};
	unsigned int i;

	wire->arb_key = put_arbitration(&w, cf->can_id, is_rtr);
	/* r0 (and r1 of an extended frame), DLC */
	put_bits(&w, 0, cf->can_id & CAN_EFF_FLAG ? 2 : 1);
	put_bits(&w, can_get_cc_dlc(cf, ctrlmode), 4);
	put_bytes(&w, cf->data, len, len);
	for (i = 15; i--; )
		put_stuffed(&w, (w.crc >> i) & 1);
	if (w.run == 5)
		w.bits++;
	wire->nominal_bits = w.bits + TRAILER_BITS;
	wire->data_bits = 0;
	wire->is_fd = false;
}

static void wire_of_fd(struct vbus_wire *wire, const struct canfd_frame *cfd)
{
	bool is_brs = cfd->flags & CANFD_BRS;
	u8 dlc = can_fd_len2dlc(cfd->len);
	unsigned int wire_len = can_fd_dlc2len(dlc);
	struct wire_writer w = {};
	unsigned int crc_field;

	wire->arb_key = put_arbitration(&w, cfd->can_id, false);
	put_bits(&w, 0x2, 2);			/* FDF, res */
	put_bits(&w, is_brs, 1);
	w.in_data_phase = is_brs;
	put_bits(&w, !!(cfd->flags & CANFD_ESI), 1);
	put_bits(&w, dlc, 4);
	put_bytes(&w, cfd->data, cfd->len, wire_len);
	crc_field = wire_len > 16 ? FD_CRC21_FIELD_BITS : FD_CRC17_FIELD_BITS;
	if (is_brs)
		w.data_phase_bits += crc_field + 1;	/* and the delimiter */
	else
		w.bits += crc_field + 1;
	wire->nominal_bits = w.bits + TRAILER_BITS - 1;
	wire->data_bits = w.data_phase_bits;
	wire->is_fd = true;
}

/**
 * vbus_wire_of_frame() - lay out a frame as the wire carries it
 * @wire: filled in
 * @skb: a valid classic or CAN FD frame (can_dropped_invalid_skb())
 * @ctrlmode: the sender's control modes, for the DLC of a classic frame
 *
 * Any context.
 */
void vbus_wire_of_frame(struct vbus_wire *wire, const struct sk_buff *skb,
			u32 ctrlmode)
{
	if (can_is_canfd_skb(skb))
		wire_of_fd(wire, (const struct canfd_frame *)skb->data);
	else
		wire_of_classic(wire, (const struct can_frame *)skb->data,
				ctrlmode);
}

/**
 * vbus_bits_ns() - how long @bits take at @bitrate
 * @bits: number of bits
 * @bitrate: bits per second, not 0
 *
 * Return: nanoseconds, rounded to the nearest.
 */
u64 vbus_bits_ns(unsigned int bits, u32 bitrate)
{
	return div_u64((u64)bits * NSEC_PER_SEC + bitrate / 2, bitrate);
}

/**
 * vbus_wire_ns() - how long a frame takes on the wire
 * @wire: the frame
 * @bitrate: nominal bitrate, not 0
 * @dbitrate: data bitrate, not 0 if @wire has data-phase bits
 *
 * Return: nanoseconds from SOF to the end of the interframe space.
 */
u64 vbus_wire_ns(const struct vbus_wire *wire, u32 bitrate, u32 dbitrate)
{
	u64 ns = vbus_bits_ns(wire->nominal_bits, bitrate);

	if (wire->data_bits)
		ns += vbus_bits_ns(wire->data_bits, dbitrate);
	return ns;
}
