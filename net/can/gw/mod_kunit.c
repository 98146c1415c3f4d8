// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of the gateway's frame rewriting (mod.c): AND, OR, XOR
 * and SET on the identifier, length, flags and data of classic and CAN
 * FD frames, in that order; the XOR and CRC8 checksums with absolute and
 * relative indices; the index check the netlink parser applies; and that
 * no configuration reaches past the frame's data buffer. The rewriting
 * code is compiled into this module, so the tests run exactly what
 * can-gw.ko runs, without loading it.
 */

#include <kunit/test.h>
#include <linux/can.h>
#include <linux/can/gw.h>
#include <linux/string.h>

#include "mod.c"

#define POLY_SAE_J1850 0x1d

/* A frame and what lies right behind its data in the gateway's skb,
 * which no rewrite may touch: for a classic frame, data[8..63].
 */
struct frame_buf {
	struct canfd_frame cf;
	u8 beyond[16];
};

static struct gw_mod_conf *new_conf(struct kunit *test, bool is_fd)
{
	struct gw_mod_conf *conf;

	conf = kunit_kzalloc(test, sizeof(*conf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, conf);
	conf->is_fd = is_fd;
	return conf;
}

static struct frame_buf *new_frame(struct kunit *test, canid_t id, u8 len)
{
	struct frame_buf *fb;
	int i;

	fb = kunit_kzalloc(test, sizeof(*fb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fb);
	fb->cf.can_id = id;
	fb->cf.len = len;
	for (i = 0; i < CANFD_MAX_DLEN; i++)
		fb->cf.data[i] = 0x10 + i;
	memset(fb->beyond, 0xa5, sizeof(fb->beyond));
	return fb;
}

/* A classic frame, the way the gateway's skb holds one: 8 data bytes,
 * whatever follows in a struct canfd_frame is outside the buffer.
 */
#define CC_MAX_LEN CAN_MAX_DLEN
#define FD_MAX_LEN CANFD_MAX_DLEN

static void expect_untouched_from(struct kunit *test, const struct frame_buf *fb,
				  unsigned int from)
{
	unsigned int i;

	for (i = from; i < CANFD_MAX_DLEN; i++)
		KUNIT_EXPECT_EQ_MSG(test, fb->cf.data[i], 0x10 + i, "data[%u]", i);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(fb->beyond, 0xa5, sizeof(fb->beyond)));
}

static void id_and_or_xor_set(struct kunit *test)
{
	static const struct {
		enum gw_op op;
		canid_t operand;
		canid_t want;
	} cases[] = {
		{ GW_OP_AND, 0x0f0, 0x020 },
		{ GW_OP_OR, 0x00f, 0x12f },
		{ GW_OP_XOR, 0x1ff, 0x0dc },
		{ GW_OP_SET, CAN_EFF_FLAG | 0x1abcdef, CAN_EFF_FLAG | 0x1abcdef },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct gw_mod_conf *conf = new_conf(test, false);
		struct frame_buf *fb = new_frame(test, 0x123, 8);

		conf->fields[cases[i].op] = CGW_MOD_ID;
		conf->operand[cases[i].op].can_id = cases[i].operand;
		KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
		KUNIT_EXPECT_EQ_MSG(test, fb->cf.can_id, cases[i].want, "op %d", cases[i].op);
		/* Only the identifier was asked for. */
		KUNIT_EXPECT_EQ(test, fb->cf.len, 8);
		expect_untouched_from(test, fb, 0);
	}
}

/* All four on one byte: AND, then OR, then XOR, then SET. */
static void ops_apply_in_order(struct kunit *test)
{
	struct gw_mod_conf *conf = new_conf(test, false);
	struct frame_buf *fb = new_frame(test, 0x100, 8);
	enum gw_op op;

	for (op = GW_OP_AND; op < GW_OP_SET; op++)
		conf->fields[op] = CGW_MOD_DATA;
	memset(conf->operand[GW_OP_AND].data, 0xff, CAN_MAX_DLEN);
	conf->operand[GW_OP_AND].data[0] = 0x0f;
	conf->operand[GW_OP_OR].data[0] = 0x30;
	conf->operand[GW_OP_XOR].data[0] = 0xff;
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	/* (0x10 & 0x0f | 0x30) ^ 0xff; in any other order it differs. */
	KUNIT_EXPECT_EQ(test, fb->cf.data[0], 0xcf);
	KUNIT_EXPECT_EQ(test, fb->cf.data[1], 0x11);

	/* SET comes last and wins over the rest. */
	conf->fields[GW_OP_SET] = CGW_MOD_DATA;
	conf->operand[GW_OP_SET].data[0] = 0x42;
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	KUNIT_EXPECT_EQ(test, fb->cf.data[0], 0x42);
	KUNIT_EXPECT_EQ(test, fb->cf.data[7], 0);
}

/* Classic data operations cover 8 bytes, never the bytes behind. */
static void cc_data_stays_in_frame(struct kunit *test)
{
	struct gw_mod_conf *conf = new_conf(test, false);
	struct frame_buf *fb = new_frame(test, 0x100, 2);
	int i;

	conf->fields[GW_OP_XOR] = CGW_MOD_DATA;
	memset(conf->operand[GW_OP_XOR].data, 0xff, CANFD_MAX_DLEN);
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	/* All 8 bytes, the length notwithstanding, as mainline. */
	for (i = 0; i < CAN_MAX_DLEN; i++)
		KUNIT_EXPECT_EQ(test, fb->cf.data[i], (0x10 + i) ^ 0xff);
	expect_untouched_from(test, fb, CAN_MAX_DLEN);
}

/* The classic DLC: 0..8 in len, 9..15 as len 8 with len8_dlc. */
static void cc_dlc(struct kunit *test)
{
	struct gw_mod_conf *conf = new_conf(test, false);
	struct frame_buf *fb = new_frame(test, 0x100, 8);
	struct can_frame *ccf = (struct can_frame *)&fb->cf;

	conf->fields[GW_OP_SET] = CGW_MOD_DLC;
	conf->operand[GW_OP_SET].len = 4;
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	KUNIT_EXPECT_EQ(test, ccf->len, 4);
	KUNIT_EXPECT_EQ(test, ccf->len8_dlc, 0);

	conf->operand[GW_OP_SET].len = 12;
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	KUNIT_EXPECT_EQ(test, ccf->len, 8);
	KUNIT_EXPECT_EQ(test, ccf->len8_dlc, 12);

	/* The operations see the raw DLC: 12 | 3 is 15. */
	conf->fields[GW_OP_SET] = 0;
	conf->fields[GW_OP_OR] = CGW_MOD_DLC;
	conf->operand[GW_OP_OR].len = 3;
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	KUNIT_EXPECT_EQ(test, ccf->len, 8);
	KUNIT_EXPECT_EQ(test, ccf->len8_dlc, 15);

	/* Back to 8 or below: len8_dlc is cleared. */
	conf->fields[GW_OP_OR] = 0;
	conf->fields[GW_OP_AND] = CGW_MOD_DLC;
	conf->operand[GW_OP_AND].len = 0x07;
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	KUNIT_EXPECT_EQ(test, ccf->len, 7);
	KUNIT_EXPECT_EQ(test, ccf->len8_dlc, 0);

	/* A len8_dlc that is no valid code is not a DLC: len counts. */
	ccf->len = 8;
	ccf->len8_dlc = 5;
	conf->operand[GW_OP_AND].len = 0x0f;
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	KUNIT_EXPECT_EQ(test, ccf->len, 8);
	KUNIT_EXPECT_EQ(test, ccf->len8_dlc, 0);
}

/* A DLC above 15 fits no classic frame: the frame is to be deleted. */
static void cc_dlc_too_big_deletes(struct kunit *test)
{
	struct gw_mod_conf *conf = new_conf(test, false);
	struct frame_buf *fb = new_frame(test, 0x100, 8);

	conf->fields[GW_OP_SET] = CGW_MOD_DLC;
	conf->operand[GW_OP_SET].len = 16;
	KUNIT_EXPECT_FALSE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));

	conf->operand[GW_OP_SET].len = 15;
	fb->cf.len = 8;
	KUNIT_EXPECT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
}

/* CAN FD: the length byte as such, the flags, 64 data bytes. */
static void fd_len_flags_data(struct kunit *test)
{
	struct gw_mod_conf *conf = new_conf(test, true);
	struct frame_buf *fb = new_frame(test, 0x100, 12);
	int i;

	conf->fields[GW_OP_SET] = CGW_MOD_LEN | CGW_MOD_FLAGS;
	conf->operand[GW_OP_SET].len = 64;
	conf->operand[GW_OP_SET].flags = CANFD_BRS;
	conf->fields[GW_OP_XOR] = CGW_MOD_DATA;
	memset(conf->operand[GW_OP_XOR].data, 0x0f, CANFD_MAX_DLEN);
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, FD_MAX_LEN));
	KUNIT_EXPECT_EQ(test, fb->cf.len, 64);
	KUNIT_EXPECT_EQ(test, fb->cf.flags, CANFD_BRS);
	for (i = 0; i < CANFD_MAX_DLEN; i++)
		KUNIT_EXPECT_EQ(test, fb->cf.data[i], (0x10 + i) ^ 0x0f);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(fb->beyond, 0xa5, sizeof(fb->beyond)));

	/* XOR on the flags toggles ESI and keeps BRS. */
	conf->fields[GW_OP_SET] = 0;
	conf->fields[GW_OP_XOR] = CGW_MOD_FLAGS;
	conf->operand[GW_OP_XOR].flags = CANFD_ESI;
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, FD_MAX_LEN));
	KUNIT_EXPECT_EQ(test, fb->cf.flags, CANFD_BRS | CANFD_ESI);
}

/* The FD length is not a DLC: no len8_dlc, no CAN FD length check but
 * the buffer's size.
 */
static void fd_len_beyond_buffer_deletes(struct kunit *test)
{
	struct gw_mod_conf *conf = new_conf(test, true);
	struct frame_buf *fb = new_frame(test, 0x100, 64);

	conf->fields[GW_OP_OR] = CGW_MOD_LEN;
	conf->operand[GW_OP_OR].len = 0x80;
	KUNIT_EXPECT_FALSE(test, gw_mod_apply(conf, &fb->cf, FD_MAX_LEN));

	/* An FD job on a classic-sized buffer: 8 bytes at most. */
	fb = new_frame(test, 0x100, 8);
	conf->fields[GW_OP_OR] = 0;
	conf->fields[GW_OP_SET] = CGW_MOD_LEN;
	conf->operand[GW_OP_SET].len = 12;
	KUNIT_EXPECT_FALSE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	conf->operand[GW_OP_SET].len = 8;
	KUNIT_EXPECT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
}

/* An FD job's data operation on a frame in an 8-byte buffer. */
static void fd_data_on_small_buffer(struct kunit *test)
{
	struct gw_mod_conf *conf = new_conf(test, true);
	struct frame_buf *fb = new_frame(test, 0x100, 8);

	conf->fields[GW_OP_SET] = CGW_MOD_DATA;
	memset(conf->operand[GW_OP_SET].data, 0, CANFD_MAX_DLEN);
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(fb->cf.data, 0, CAN_MAX_DLEN));
	expect_untouched_from(test, fb, CAN_MAX_DLEN);
}

/* The flags of a classic job are not among its fields (the parser drops
 * CGW_MOD_FLAGS): __pad and __res0 of a classic frame stay.
 */
static void cc_has_no_flags(struct kunit *test)
{
	struct gw_mod_conf *conf = new_conf(test, false);
	struct frame_buf *fb = new_frame(test, 0x100, 8);

	conf->fields[GW_OP_SET] = CGW_MOD_ID;
	conf->modtype[GW_OP_SET] = CGW_MOD_ID | CGW_MOD_FLAGS;
	conf->operand[GW_OP_SET].flags = 0xff;
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	KUNIT_EXPECT_EQ(test, fb->cf.flags, 0);
}

static u8 xor_of(const u8 *data, int from, int to, u8 init)
{
	int i;

	for (i = min(from, to); i <= max(from, to); i++)
		init ^= data[i];
	return init;
}

static void xor_checksum(struct kunit *test)
{
	struct gw_mod_conf *conf = new_conf(test, false);
	struct frame_buf *fb = new_frame(test, 0x100, 8);
	u8 want = xor_of(fb->cf.data, 0, 6, 0x5a);

	conf->has_xor = true;
	conf->xor = (struct cgw_csum_xor){ .from_idx = 0, .to_idx = 6,
					   .result_idx = 7, .init_xor_val = 0x5a };
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	KUNIT_EXPECT_EQ(test, fb->cf.data[7], want);

	/* Either way round, and relative to the end: -8 .. -2 of 8 bytes. */
	fb = new_frame(test, 0x100, 8);
	conf->xor = (struct cgw_csum_xor){ .from_idx = -2, .to_idx = -8,
					   .result_idx = -1, .init_xor_val = 0x5a };
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	KUNIT_EXPECT_EQ(test, fb->cf.data[7], want);
	expect_untouched_from(test, fb, CAN_MAX_DLEN);
}

/* Relative indices follow the frame's length; one that falls before
 * the first byte of a short frame skips the checksum.
 */
static void xor_relative_short_frame(struct kunit *test)
{
	struct gw_mod_conf *conf = new_conf(test, false);
	struct frame_buf *fb = new_frame(test, 0x100, 4);
	u8 want = xor_of(fb->cf.data, 0, 2, 0);

	conf->has_xor = true;
	conf->xor = (struct cgw_csum_xor){ .from_idx = -4, .to_idx = -2,
					   .result_idx = -1 };
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	KUNIT_EXPECT_EQ(test, fb->cf.data[3], want);

	fb = new_frame(test, 0x100, 4);
	conf->xor.from_idx = -8;
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	expect_untouched_from(test, fb, 0);

	/* An empty frame: every relative index is before it. */
	fb = new_frame(test, 0x100, 0);
	conf->xor = (struct cgw_csum_xor){ .from_idx = 0, .to_idx = 0,
					   .result_idx = -1 };
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	expect_untouched_from(test, fb, 0);
}

/* An FD job's indices may reach byte 63; on a frame in an 8-byte buffer
 * such a checksum is skipped rather than written past the buffer.
 */
static void fd_checksum_beyond_small_buffer(struct kunit *test)
{
	struct gw_mod_conf *conf = new_conf(test, true);
	struct frame_buf *fb = new_frame(test, 0x100, 8);

	conf->has_xor = true;
	conf->xor = (struct cgw_csum_xor){ .from_idx = 0, .to_idx = 7,
					   .result_idx = 40 };
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	expect_untouched_from(test, fb, 0);

	conf->xor = (struct cgw_csum_xor){ .from_idx = 0, .to_idx = 63,
					   .result_idx = 0 };
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	expect_untouched_from(test, fb, 0);

	/* The same on a 64-byte buffer is computed. */
	fb = new_frame(test, 0x100, 64);
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, FD_MAX_LEN));
	KUNIT_EXPECT_EQ(test, fb->cf.data[0],
			xor_of(new_frame(test, 0, 64)->cf.data, 0, 63, 0));
}

/* The MSB-first CRC8 table of @poly, as cangw's users compute it. */
static void crc8_table(u8 *tab, u8 poly)
{
	int i, b;

	for (i = 0; i < 256; i++) {
		u8 crc = i;

		for (b = 0; b < 8; b++)
			crc = crc & 0x80 ? (crc << 1) ^ poly : crc << 1;
		tab[i] = crc;
	}
}

/* The same CRC bit by bit, without the table. */
static u8 crc8_bitwise(u8 crc, const u8 *bytes, int n, u8 poly)
{
	int i, b;

	for (i = 0; i < n; i++) {
		crc ^= bytes[i];
		for (b = 0; b < 8; b++)
			crc = crc & 0x80 ? (crc << 1) ^ poly : crc << 1;
	}
	return crc;
}

static struct gw_mod_conf *crc_conf(struct kunit *test, u8 profile)
{
	struct gw_mod_conf *conf = new_conf(test, false);
	int i;

	conf->has_crc8 = true;
	conf->crc8.from_idx = 0;
	conf->crc8.to_idx = 6;
	conf->crc8.result_idx = 7;
	conf->crc8.init_crc_val = 0xff;
	conf->crc8.final_xor_val = 0xff;
	conf->crc8.profile = profile;
	for (i = 0; i < ARRAY_SIZE(conf->crc8.profile_data); i++)
		conf->crc8.profile_data[i] = 0xc0 + i;
	crc8_table(conf->crc8.crctab, POLY_SAE_J1850);
	return conf;
}

/* Each profile feeds one more byte after the data. */
static void crc8_profiles(struct kunit *test)
{
	u8 extra[__CGW_CRC8PRF_MAX] = {
		[CGW_CRC8PRF_1U8] = 0xc0,
		/* data[1] is 0x11: profile_data[1] */
		[CGW_CRC8PRF_16U8] = 0xc1,
		/* 0x3a5 -> 0xa5 ^ 0x03 */
		[CGW_CRC8PRF_SFFID_XOR] = 0xa6,
	};
	u8 profile;

	for (profile = CGW_CRC8PRF_UNSPEC; profile < __CGW_CRC8PRF_MAX; profile++) {
		struct gw_mod_conf *conf = crc_conf(test, profile);
		struct frame_buf *fb = new_frame(test, 0x3a5, 8);
		u8 want = crc8_bitwise(0xff, fb->cf.data, 7, POLY_SAE_J1850);

		if (profile != CGW_CRC8PRF_UNSPEC)
			want = crc8_bitwise(want, &extra[profile], 1, POLY_SAE_J1850);
		want ^= 0xff;
		KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
		KUNIT_EXPECT_EQ_MSG(test, fb->cf.data[7], want, "profile %u", profile);
		expect_untouched_from(test, fb, CAN_MAX_DLEN);
	}
}

/* A known value: CRC-8 SAE J1850 of "123456789" is 0x4b. */
static void crc8_check_value(struct kunit *test)
{
	struct gw_mod_conf *conf = crc_conf(test, CGW_CRC8PRF_UNSPEC);
	struct frame_buf *fb = new_frame(test, 0x100, 12);

	conf->is_fd = true;
	memcpy(fb->cf.data, "123456789", 9);
	conf->crc8.to_idx = 8;
	conf->crc8.result_idx = 11;
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, FD_MAX_LEN));
	KUNIT_EXPECT_EQ(test, fb->cf.data[11], 0x4b);
}

/* Modifications first, then CRC8, then XOR over the CRC's result. */
static void checksums_after_mods(struct kunit *test)
{
	struct gw_mod_conf *conf = crc_conf(test, CGW_CRC8PRF_UNSPEC);
	struct frame_buf *fb = new_frame(test, 0x100, 8);
	u8 crc, set[8] = { 1, 2, 3, 4, 5 };

	conf->fields[GW_OP_SET] = CGW_MOD_DATA;
	memcpy(conf->operand[GW_OP_SET].data, set, sizeof(set));
	conf->crc8.to_idx = 5;
	conf->crc8.result_idx = 6;
	conf->has_xor = true;
	conf->xor = (struct cgw_csum_xor){ .from_idx = 0, .to_idx = 6,
					   .result_idx = 7 };
	KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
	crc = crc8_bitwise(0xff, set, 6, POLY_SAE_J1850) ^ 0xff;
	set[6] = crc;
	KUNIT_EXPECT_EQ(test, fb->cf.data[6], crc);
	KUNIT_EXPECT_EQ(test, fb->cf.data[7], xor_of(set, 0, 6, 0));
}

/* What the netlink parser accepts: -len .. len-1 for each index. */
static void csum_index_check(struct kunit *test)
{
	static const struct {
		s8 from, to, result;
		bool is_fd;
		int want;
	} cases[] = {
		{ 0, 7, 7, false, 0 },
		{ -8, -1, -8, false, 0 },
		{ 8, 0, 0, false, -EINVAL },
		{ 0, 8, 0, false, -EINVAL },
		{ 0, 0, 8, false, -EINVAL },
		{ -9, 0, 0, false, -EINVAL },
		{ 0, -9, 0, false, -EINVAL },
		{ 0, 0, -9, false, -EINVAL },
		{ 63, 0, 40, false, -EINVAL },
		{ 63, -64, 40, true, 0 },
		{ 64, 0, 0, true, -EINVAL },
		{ 0, -65, 0, true, -EINVAL },
		{ 0, 0, 127, true, -EINVAL },
		{ -128, 0, 0, true, -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, gw_csum_indices_check(cases[i].from, cases[i].to,
								cases[i].result,
								cases[i].is_fd),
				    cases[i].want, "case %u", i);
}

/* Every index the check accepts, on frames of every length, stays in
 * the buffer: the XOR checksum only ever writes one of its bytes.
 */
static void accepted_indices_stay_in_buffer(struct kunit *test)
{
	struct gw_mod_conf *conf = new_conf(test, false);
	struct frame_buf *fb = new_frame(test, 0x100, 0);
	int from, res, len;

	conf->has_xor = true;
	for (len = 0; len <= CAN_MAX_DLEN; len++) {
		for (from = -8; from < 8; from++) {
			for (res = -8; res < 8; res++) {
				KUNIT_ASSERT_EQ(test, gw_csum_indices_check(from, -1, res,
									    false), 0);
				conf->xor = (struct cgw_csum_xor){
					.from_idx = from, .to_idx = -1, .result_idx = res };
				fb->cf.len = len;
				KUNIT_ASSERT_TRUE(test, gw_mod_apply(conf, &fb->cf, CC_MAX_LEN));
			}
		}
	}
	expect_untouched_from(test, fb, CAN_MAX_DLEN);
}

static struct kunit_case gw_mod_cases[] = {
	KUNIT_CASE(id_and_or_xor_set),
	KUNIT_CASE(ops_apply_in_order),
	KUNIT_CASE(cc_data_stays_in_frame),
	KUNIT_CASE(cc_dlc),
	KUNIT_CASE(cc_dlc_too_big_deletes),
	KUNIT_CASE(cc_has_no_flags),
	KUNIT_CASE(fd_len_flags_data),
	KUNIT_CASE(fd_len_beyond_buffer_deletes),
	KUNIT_CASE(fd_data_on_small_buffer),
	KUNIT_CASE(xor_checksum),
	KUNIT_CASE(xor_relative_short_frame),
	KUNIT_CASE(fd_checksum_beyond_small_buffer),
	KUNIT_CASE(crc8_profiles),
	KUNIT_CASE(crc8_check_value),
	KUNIT_CASE(checksums_after_mods),
	KUNIT_CASE(csum_index_check),
	KUNIT_CASE(accepted_indices_stay_in_buffer),
	{}
};

static struct kunit_suite gw_mod_suite = {
	.name = "can-gw-mod",
	.test_cases = gw_mod_cases,
};

kunit_test_suite(gw_mod_suite);

MODULE_DESCRIPTION("KUnit tests of the CAN gateway's frame rewriting");
MODULE_LICENSE("GPL");
