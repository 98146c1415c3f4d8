// SPDX-License-Identifier: GPL-2.0
/* Rewriting a routed frame: the AND, OR, XOR and SET operations on its
 * identifier, length, flags and data, then the XOR and CRC8 checksums.
 * It runs in the receive path, in softirq context, on the gateway's own
 * copy of the frame, and never reaches past the frame's data buffer,
 * whatever the configuration says.
 */

#include <linux/can.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "gw-priv.h"

/* One operation on a value of up to 32 bits; SET takes the operand. */
static u32 gw_op_value(enum gw_op op, u32 value, u32 operand)
{
	switch (op) {
	case GW_OP_AND:
		return value & operand;
	case GW_OP_OR:
		return value | operand;
	case GW_OP_XOR:
		return value ^ operand;
	default:
		return operand;
	}
}

static void gw_op_data(enum gw_op op, u8 *data, const u8 *operand,
		       unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		data[i] = gw_op_value(op, data[i], operand[i]);
}

/* The DLC of a classic frame: its length, or the raw code 9..15 that a
 * frame of 8 bytes may carry in len8_dlc. Operations act on the DLC so
 * that a gateway can pass such codes through or produce them.
 */
static u8 gw_cc_dlc(const struct can_frame *cf)
{
	if (cf->len == CAN_MAX_DLEN && cf->len8_dlc > CAN_MAX_DLEN &&
	    cf->len8_dlc <= CAN_MAX_RAW_DLC)
		return cf->len8_dlc;
	return cf->len;
}

/* A DLC above 15 is left in len: gw_mod_apply() then discards the frame. */
static void gw_cc_set_dlc(struct can_frame *cf, u8 dlc)
{
	cf->len8_dlc = 0;
	cf->len = dlc;
	if (dlc > CAN_MAX_DLEN && dlc <= CAN_MAX_RAW_DLC) {
		cf->len8_dlc = dlc;
		cf->len = CAN_MAX_DLEN;
	}
}

static void gw_op_frame(const struct gw_mod_conf *conf, enum gw_op op,
			struct canfd_frame *cf, unsigned int max_len)
{
	const struct canfd_frame *operand = &conf->operand[op];
	u8 fields = conf->fields[op];

	if (fields & CGW_MOD_ID)
		cf->can_id = gw_op_value(op, cf->can_id, operand->can_id);
	if ((fields & CGW_MOD_LEN) && conf->is_fd)
		cf->len = gw_op_value(op, cf->len, operand->len);
	if ((fields & CGW_MOD_DLC) && !conf->is_fd) {
		struct can_frame *ccf = (struct can_frame *)cf;

		gw_cc_set_dlc(ccf, gw_op_value(op, gw_cc_dlc(ccf), operand->len));
	}
	if (fields & CGW_MOD_FLAGS)
		cf->flags = gw_op_value(op, cf->flags, operand->flags);
	if (fields & CGW_MOD_DATA)
		gw_op_data(op, cf->data, operand->data,
			   min_t(unsigned int, max_len,
				 conf->is_fd ? CANFD_MAX_DLEN : CAN_MAX_DLEN));
}

/**
 * gw_csum_indices_check() - check the indices of a checksum configuration
 * @from: first byte
 * @to: last byte
 * @result: where the checksum goes
 * @is_fd: for a CAN FD job (64 data bytes) rather than classic (8)
 *
 * Return: 0, or -EINVAL if an index lies outside -len..len-1.
 */
int gw_csum_indices_check(s8 from, s8 to, s8 result, bool is_fd)
{
	int len = is_fd ? CANFD_MAX_DLEN : CAN_MAX_DLEN;

	if (from < -len || from >= len || to < -len || to >= len ||
	    result < -len || result >= len)
		return -EINVAL;
	return 0;
}

/* A negative index counts back from the end of the frame's data. */
static int gw_csum_index(s8 idx, const struct canfd_frame *cf)
{
	return idx < 0 ? cf->len + idx : idx;
}

/* The byte range and result position of a checksum on this frame. A
 * relative index that falls before the first byte (a short frame) skips
 * the checksum, as does any index past the buffer: the configuration was
 * checked for the kind of job, and this keeps it so for any frame.
 */
static bool gw_csum_span(s8 from_idx, s8 to_idx, s8 result_idx,
			 const struct canfd_frame *cf, unsigned int max_len,
			 int *from, int *to, int *result)
{
	*from = gw_csum_index(from_idx, cf);
	*to = gw_csum_index(to_idx, cf);
	*result = gw_csum_index(result_idx, cf);

	return *from >= 0 && *to >= 0 && *result >= 0 &&
	       *from < max_len && *to < max_len && *result < max_len;
}

static void gw_csum_xor(const struct cgw_csum_xor *xor,
			struct canfd_frame *cf, unsigned int max_len)
{
	int from, to, result, step, i;
	u8 value = xor->init_xor_val;

	if (!gw_csum_span(xor->from_idx, xor->to_idx, xor->result_idx, cf,
			  max_len, &from, &to, &result))
		return;

	step = from <= to ? 1 : -1;
	for (i = from; i != to + step; i += step)
		value ^= cf->data[i];
	cf->data[result] = value;
}

/* The value a CRC8 profile feeds in after the data bytes. */
static u8 gw_crc8_profile(const struct cgw_csum_crc8 *crc8, u8 crc,
			  const struct canfd_frame *cf)
{
	switch (crc8->profile) {
	case CGW_CRC8PRF_1U8:
		return crc8->crctab[crc ^ crc8->profile_data[0]];
	case CGW_CRC8PRF_16U8:
		return crc8->crctab[crc ^ crc8->profile_data[cf->data[1] & 0xf]];
	case CGW_CRC8PRF_SFFID_XOR:
		return crc8->crctab[crc ^ (cf->can_id & 0xff) ^
				    ((cf->can_id >> 8) & 0xff)];
	default:
		return crc;
	}
}

static void gw_csum_crc8(const struct cgw_csum_crc8 *crc8,
			 struct canfd_frame *cf, unsigned int max_len)
{
	int from, to, result, step, i;
	u8 crc = crc8->init_crc_val;

	if (!gw_csum_span(crc8->from_idx, crc8->to_idx, crc8->result_idx, cf,
			  max_len, &from, &to, &result))
		return;

	step = from <= to ? 1 : -1;
	for (i = from; i != to + step; i += step)
		crc = crc8->crctab[crc ^ cf->data[i]];
	crc = gw_crc8_profile(crc8, crc, cf);
	cf->data[result] = crc ^ crc8->final_xor_val;
}

/**
 * gw_mod_apply() - rewrite a frame as a job says
 * @conf: the job's modifications; at least one must apply
 * @cf: the frame, classic or CAN FD, the gateway's own copy
 * @max_len: the size of @cf's data buffer, 8 or 64, from the skb's size
 *
 * Applies AND, OR, XOR and SET in that order, then the CRC8 and the XOR
 * checksum.
 *
 * Context: any; the receive path calls it in softirq context.
 * Return: false if the new length does not fit @max_len: the frame must
 * be discarded (and counted as deleted).
 */
bool gw_mod_apply(const struct gw_mod_conf *conf, struct canfd_frame *cf,
		  unsigned int max_len)
{
	enum gw_op op;

	for (op = GW_OP_AND; op < GW_OPS; op++)
		if (conf->fields[op])
			gw_op_frame(conf, op, cf, max_len);

	if (cf->len > max_len)
		return false;

	if (conf->has_crc8)
		gw_csum_crc8(&conf->crc8, cf, max_len);
	if (conf->has_xor)
		gw_csum_xor(&conf->xor, cf, max_len);
	return true;
}
