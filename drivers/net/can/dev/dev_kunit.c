// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of the device layer's pure calculations: bit timing from a
 * bitrate or from quanta, and the DLC, length and wire length of classic
 * frames. Expected values are worked out here from the definitions (a
 * bit is 1 + tseg1 + tseg2 quanta of brp clock periods), not taken from
 * the code under test.
 */

#include <kunit/test.h>
#include <linux/can/bittiming.h>
#include <linux/can/length.h>
#include <linux/skbuff.h>

#include "bittiming_kunit.h"

/* A controller that only divides by even numbers. */
static const struct can_bittiming_const even_brp_limits = {
	.name = "even",
	.tseg1_min = 2, .tseg1_max = 16, .tseg2_min = 2, .tseg2_max = 8,
	.sjw_max = 4, .brp_min = 2, .brp_max = 256, .brp_inc = 2,
};

static const u32 common_bitrates[] = {
	10000, 20000, 50000, 100000, 125000, 250000, 500000, 800000, 1000000,
};

/* CiA 301's recommendation, in tenths of a percent. */
static u32 cia_sample_point(u32 bitrate)
{
	return bitrate > 800000 ? 750 : bitrate > 500000 ? 800 : 875;
}

/* The result must describe itself consistently and fit the limits. */
static void expect_consistent(struct kunit *test, const struct can_bittiming *bt,
			      const struct can_bittiming_const *btc, u32 clock)
{
	u32 tseg1 = bt->prop_seg + bt->phase_seg1;
	u32 quanta = 1 + tseg1 + bt->phase_seg2;

	KUNIT_EXPECT_GE(test, tseg1, btc->tseg1_min);
	KUNIT_EXPECT_LE(test, tseg1, btc->tseg1_max);
	KUNIT_EXPECT_GE(test, bt->phase_seg2, btc->tseg2_min);
	KUNIT_EXPECT_LE(test, bt->phase_seg2, btc->tseg2_max);
	KUNIT_EXPECT_GE(test, bt->brp, btc->brp_min);
	KUNIT_EXPECT_LE(test, bt->brp, btc->brp_max);
	KUNIT_EXPECT_EQ(test, bt->brp % btc->brp_inc, 0);
	KUNIT_EXPECT_GE(test, bt->sjw, 1);
	KUNIT_EXPECT_LE(test, bt->sjw, btc->sjw_max);
	KUNIT_EXPECT_EQ(test, bt->bitrate, clock / (bt->brp * quanta));
	KUNIT_EXPECT_EQ(test, bt->sample_point, (1 + tseg1) * 1000 / quanta);
	KUNIT_EXPECT_EQ(test, bt->tq, (u32)div_u64((u64)bt->brp * 1000000000, clock));
}

/* Every common bitrate exactly; with @check_sp also within 1 % of the
 * CiA sample point (limits such as an even prescaler may not allow it).
 */
static void check_common_bitrates(struct kunit *test,
				  const struct can_bittiming_const *btc,
				  u32 clock, bool check_sp)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(common_bitrates); i++) {
		struct can_bittiming bt = { .bitrate = common_bitrates[i] };
		u32 want_sp = cia_sample_point(bt.bitrate);

		KUNIT_ASSERT_EQ_MSG(test, can_bittiming_fill(&bt, btc, clock, NULL), 0,
				    "bitrate %u", common_bitrates[i]);
		expect_consistent(test, &bt, btc, clock);
		KUNIT_EXPECT_EQ_MSG(test, bt.bitrate, common_bitrates[i],
				    "not exact at %u", common_bitrates[i]);
		if (check_sp)
			KUNIT_EXPECT_LE_MSG(test, abs((int)bt.sample_point - (int)want_sp),
					    10, "sample point %u at %u",
					    bt.sample_point, common_bitrates[i]);
		KUNIT_EXPECT_EQ(test, bt.sjw, 1);
	}
}

static void sja1000_at_8mhz_reaches_common_bitrates(struct kunit *test)
{
	check_common_bitrates(test, &sja1000_limits, 8000000, true);
}

static void mcp251x_at_8mhz_reaches_common_bitrates(struct kunit *test)
{
	check_common_bitrates(test, &mcp251x_limits, 8000000, true);
}

static void even_prescaler_stays_even(struct kunit *test)
{
	check_common_bitrates(test, &even_brp_limits, 40000000, false);
}

/* 500 kbit/s at 8 MHz: 16 quanta of 125 ns; 87.5 % puts the sample
 * after quantum 14, so tseg1 = 13 and tseg2 = 2.
 */
static void sja1000_500k_has_the_textbook_split(struct kunit *test)
{
	struct can_bittiming bt = { .bitrate = 500000 };

	KUNIT_ASSERT_EQ(test, can_bittiming_fill(&bt, &sja1000_limits, 8000000, NULL), 0);
	KUNIT_EXPECT_EQ(test, bt.tq, 125);
	can_kunit_expect_timing(test, &bt, 1, 13, 2, 875);
}

static void requested_sample_point_is_honoured(struct kunit *test)
{
	struct can_bittiming bt = { .bitrate = 500000, .sample_point = 750 };

	KUNIT_ASSERT_EQ(test, can_bittiming_fill(&bt, &sja1000_limits, 8000000, NULL), 0);
	KUNIT_EXPECT_EQ(test, bt.sample_point, 750);
	KUNIT_EXPECT_EQ(test, bt.bitrate, 500000);
	expect_consistent(test, &bt, &sja1000_limits, 8000000);
}

static void requested_sjw_is_kept_within_limits(struct kunit *test)
{
	struct can_bittiming bt = { .bitrate = 125000, .sjw = 3 };

	KUNIT_ASSERT_EQ(test, can_bittiming_fill(&bt, &sja1000_limits, 8000000, NULL), 0);
	KUNIT_EXPECT_EQ(test, bt.sjw, min(3U, bt.phase_seg2));
}

/* The longest bit at 8 MHz is 64 * 25 quanta of 125 ns: 5 kbit/s. A
 * bitrate above the clock is just as unreachable (EDOM, as in mainline).
 */
static void unreachable_bitrates_are_refused(struct kunit *test)
{
	struct can_bittiming slow = { .bitrate = 1000 };
	struct can_bittiming fast = { .bitrate = 3000000 };
	struct can_bittiming above_clock = { .bitrate = 9000000 };
	struct can_bittiming huge = { .bitrate = U32_MAX };

	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&slow, &sja1000_limits, 8000000, NULL),
			-EDOM);
	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&fast, &sja1000_limits, 8000000, NULL),
			-EDOM);
	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&above_clock, &sja1000_limits, 8000000,
						 NULL), -EDOM);
	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&huge, &sja1000_limits, 8000000, NULL),
			-EDOM);
}

/* An MCP2515 on a 20 MHz crystal (10 MHz CAN clock) reaches 400 kbit/s
 * only with 25 quanta, tseg1 above its maximum of 16 for an 87.5 %
 * sample point: tseg1 stays at 16 and tseg2 takes the rest (68 %), as
 * in mainline, instead of settling on 384615 bit/s. The same at 12.5 MHz
 * (25 MHz crystal) and 500 kbit/s.
 */
static void long_tseg1_is_clamped_not_skipped(struct kunit *test)
{
	struct can_bittiming bt = { .bitrate = 400000 };

	KUNIT_ASSERT_EQ(test, can_bittiming_fill(&bt, &mcp251x_limits, 10000000, NULL), 0);
	KUNIT_EXPECT_EQ(test, bt.bitrate, 400000);
	can_kunit_expect_timing(test, &bt, 1, 16, 8, 680);

	bt = (struct can_bittiming){ .bitrate = 500000 };
	KUNIT_ASSERT_EQ(test, can_bittiming_fill(&bt, &mcp251x_limits, 12500000, NULL), 0);
	KUNIT_EXPECT_EQ(test, bt.bitrate, 500000);
	KUNIT_EXPECT_EQ(test, bt.sample_point, 680);
}

/* 100 kbit/s at 25 MHz: 10 quanta of 40 ns * 25. The CiA 87.5 % lies
 * between 80 % and 90 %; the earlier one is taken, never the later.
 */
static void sample_point_is_never_after_the_nominal(struct kunit *test)
{
	struct can_bittiming bt = { .bitrate = 100000 };
	struct can_bittiming asked = { .bitrate = 500000, .sample_point = 850 };

	KUNIT_ASSERT_EQ(test, can_bittiming_fill(&bt, &sja1000_limits, 25000000, NULL), 0);
	KUNIT_EXPECT_EQ(test, bt.bitrate, 100000);
	can_kunit_expect_timing(test, &bt, 25, 7, 2, 800);

	/* 16 quanta at 8 MHz: 13/16 = 81.25 % and 14/16 = 87.5 %. */
	KUNIT_ASSERT_EQ(test, can_bittiming_fill(&asked, &sja1000_limits, 8000000, NULL), 0);
	KUNIT_EXPECT_LE(test, asked.sample_point, 850);
}

static void given_quanta_give_bitrate_and_sample_point(struct kunit *test)
{
	struct can_bittiming bt = {
		.tq = 125, .prop_seg = 6, .phase_seg1 = 7, .phase_seg2 = 2, .sjw = 2,
	};

	KUNIT_ASSERT_EQ(test, can_bittiming_fill(&bt, &sja1000_limits, 8000000, NULL), 0);
	KUNIT_EXPECT_EQ(test, bt.brp, 1);
	KUNIT_EXPECT_EQ(test, bt.bitrate, 500000);
	KUNIT_EXPECT_EQ(test, bt.sample_point, 875);
	KUNIT_EXPECT_EQ(test, bt.sjw, 2);
}

static void given_quanta_default_sjw_to_one(struct kunit *test)
{
	struct can_bittiming bt = {
		.tq = 250, .prop_seg = 5, .phase_seg1 = 8, .phase_seg2 = 2,
	};

	KUNIT_ASSERT_EQ(test, can_bittiming_fill(&bt, &mcp251x_limits, 8000000, NULL), 0);
	KUNIT_EXPECT_EQ(test, bt.sjw, 1);
	KUNIT_EXPECT_EQ(test, bt.brp, 2);
	KUNIT_EXPECT_EQ(test, bt.bitrate, 250000);
}

/* 250 ns at 10 MHz is 2.5 clock periods: half way rounds down, as in
 * mainline, to 2 (200 ns quanta, 16 of them: 312500 bit/s); 251 ns is
 * past half way and gives 3.
 */
static void given_tq_half_way_rounds_down(struct kunit *test)
{
	struct can_bittiming bt = {
		.tq = 250, .prop_seg = 6, .phase_seg1 = 7, .phase_seg2 = 2,
	};

	KUNIT_ASSERT_EQ(test, can_bittiming_fill(&bt, &sja1000_limits, 10000000, NULL), 0);
	KUNIT_EXPECT_EQ(test, bt.brp, 2);
	KUNIT_EXPECT_EQ(test, bt.bitrate, 312500);

	bt = (struct can_bittiming){
		.tq = 251, .prop_seg = 6, .phase_seg1 = 7, .phase_seg2 = 2,
	};
	KUNIT_ASSERT_EQ(test, can_bittiming_fill(&bt, &sja1000_limits, 10000000, NULL), 0);
	KUNIT_EXPECT_EQ(test, bt.brp, 3);
}

static void given_quanta_outside_limits_are_refused(struct kunit *test)
{
	struct can_bittiming long_tseg2 = {
		.tq = 125, .prop_seg = 2, .phase_seg1 = 2, .phase_seg2 = 9,
	};
	struct can_bittiming wide_sjw = {
		.tq = 125, .prop_seg = 6, .phase_seg1 = 7, .phase_seg2 = 2, .sjw = 5,
	};
	struct can_bittiming short_tseg1 = {
		.tq = 125, .prop_seg = 1, .phase_seg1 = 1, .phase_seg2 = 2,
	};
	struct can_bittiming long_tq = {
		.tq = 10000, .prop_seg = 6, .phase_seg1 = 7, .phase_seg2 = 2,
	};

	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&long_tseg2, &sja1000_limits, 8000000,
						 NULL), -ERANGE);
	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&wide_sjw, &sja1000_limits, 8000000,
						 NULL), -ERANGE);
	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&short_tseg1, &mcp251x_limits, 8000000,
						 NULL), -ERANGE);
	/* 10 us is 80 clock periods: more than the prescaler's 64. */
	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&long_tq, &sja1000_limits, 8000000,
						 NULL), -EINVAL);
}

static void bitrate_and_quanta_together_are_refused(struct kunit *test)
{
	struct can_bittiming both = {
		.bitrate = 500000, .tq = 125, .prop_seg = 6, .phase_seg1 = 7,
		.phase_seg2 = 2,
	};
	struct can_bittiming neither = { };

	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&both, &sja1000_limits, 8000000, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&neither, &sja1000_limits, 8000000,
						 NULL), -EINVAL);
}

static void sample_point_outside_the_bit_is_refused(struct kunit *test)
{
	struct can_bittiming at_end = { .bitrate = 500000, .sample_point = 1000 };
	struct can_bittiming huge = { .bitrate = 500000, .sample_point = U32_MAX };

	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&at_end, &sja1000_limits, 8000000,
						 NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&huge, &sja1000_limits, 8000000,
						 NULL), -EINVAL);
}

/* 0xffffffff + 3 wraps to 2: within limits if only the sum were checked. */
static void wrapping_segment_sum_is_refused(struct kunit *test)
{
	struct can_bittiming wrapped = {
		.tq = 125, .prop_seg = U32_MAX, .phase_seg1 = 3, .phase_seg2 = 2,
	};

	KUNIT_EXPECT_EQ(test, can_bittiming_fill(&wrapped, &sja1000_limits, 8000000,
						 NULL), -ERANGE);
}

/* A fast FD-class controller: quanta times bitrate passes 2^32. */
static void large_products_do_not_wrap(struct kunit *test)
{
	static const struct can_bittiming_const wide = {
		.name = "wide",
		.tseg1_min = 2, .tseg1_max = 256, .tseg2_min = 1, .tseg2_max = 128,
		.sjw_max = 128, .brp_min = 1, .brp_max = 512, .brp_inc = 1,
	};
	struct can_bittiming bt = { .bitrate = 16777216 };
	int err;

	/* 256 quanta times 2^24 bit/s is exactly 2^32. */
	err = can_bittiming_fill(&bt, &wide, 80000000, NULL);
	if (!err)
		expect_consistent(test, &bt, &wide, 80000000);
	else
		KUNIT_EXPECT_EQ(test, err, -EDOM);

	bt = (struct can_bittiming){ .bitrate = 1000000 };
	KUNIT_ASSERT_EQ(test, can_bittiming_fill(&bt, &wide, 80000000, NULL), 0);
	expect_consistent(test, &bt, &wide, 80000000);
	KUNIT_EXPECT_EQ(test, bt.bitrate, 1000000);
}

static struct kunit_case bittiming_cases[] = {
	KUNIT_CASE(sja1000_at_8mhz_reaches_common_bitrates),
	KUNIT_CASE(mcp251x_at_8mhz_reaches_common_bitrates),
	KUNIT_CASE(even_prescaler_stays_even),
	KUNIT_CASE(sja1000_500k_has_the_textbook_split),
	KUNIT_CASE(requested_sample_point_is_honoured),
	KUNIT_CASE(requested_sjw_is_kept_within_limits),
	KUNIT_CASE(unreachable_bitrates_are_refused),
	KUNIT_CASE(long_tseg1_is_clamped_not_skipped),
	KUNIT_CASE(sample_point_is_never_after_the_nominal),
	KUNIT_CASE(given_tq_half_way_rounds_down),
	KUNIT_CASE(given_quanta_give_bitrate_and_sample_point),
	KUNIT_CASE(given_quanta_default_sjw_to_one),
	KUNIT_CASE(given_quanta_outside_limits_are_refused),
	KUNIT_CASE(bitrate_and_quanta_together_are_refused),
	KUNIT_CASE(sample_point_outside_the_bit_is_refused),
	KUNIT_CASE(wrapping_segment_sum_is_refused),
	KUNIT_CASE(large_products_do_not_wrap),
	{ }
};

static struct kunit_suite bittiming_suite = {
	.name = "can-bittiming",
	.test_cases = bittiming_cases,
};

static void dlc_above_8_means_8_bytes(struct kunit *test)
{
	u8 dlc;

	for (dlc = 0; dlc <= 15; dlc++)
		KUNIT_EXPECT_EQ(test, can_cc_dlc2len(dlc), dlc <= 8 ? dlc : 8);
}

static void received_dlc_is_kept_only_when_asked(struct kunit *test)
{
	struct can_frame cf = { };

	can_frame_set_cc_len(&cf, 12, CAN_CTRLMODE_CC_LEN8_DLC);
	KUNIT_EXPECT_EQ(test, cf.len, 8);
	KUNIT_EXPECT_EQ(test, cf.len8_dlc, 12);

	memset(&cf, 0, sizeof(cf));
	can_frame_set_cc_len(&cf, 12, 0);
	KUNIT_EXPECT_EQ(test, cf.len, 8);
	KUNIT_EXPECT_EQ(test, cf.len8_dlc, 0);

	memset(&cf, 0, sizeof(cf));
	can_frame_set_cc_len(&cf, 5, CAN_CTRLMODE_CC_LEN8_DLC);
	KUNIT_EXPECT_EQ(test, cf.len, 5);
	KUNIT_EXPECT_EQ(test, cf.len8_dlc, 0);
}

static void sent_dlc_uses_len8_dlc_only_when_valid(struct kunit *test)
{
	struct can_frame eight = { .len = 8, .len8_dlc = 12 };
	struct can_frame five = { .len = 5, .len8_dlc = 12 };
	struct can_frame low = { .len = 8, .len8_dlc = 8 };
	struct can_frame high = { .len = 8, .len8_dlc = 16 };
	const u32 len8 = CAN_CTRLMODE_CC_LEN8_DLC;

	KUNIT_EXPECT_EQ(test, can_get_cc_dlc(&eight, len8), 12);
	KUNIT_EXPECT_EQ(test, can_get_cc_dlc(&eight, 0), 8);
	KUNIT_EXPECT_EQ(test, can_get_cc_dlc(&five, len8), 5);
	KUNIT_EXPECT_EQ(test, can_get_cc_dlc(&low, len8), 8);
	KUNIT_EXPECT_EQ(test, can_get_cc_dlc(&high, len8), 8);
}

/* Without stuff bits an SFF frame has 47 bits around its data (SOF 1,
 * id and RTR 12, IDE r0 DLC 6, CRC and delimiter 16, ACK 2, EOF 7,
 * intermission 3); EFF adds SRR, IDE and 18 id bits: 67.
 */
static void wire_length_counts_frame_bits(struct kunit *test)
{
	struct can_frame sff0 = { .can_id = 0x123, .len = 0 };
	struct can_frame sff8 = { .can_id = 0x123, .len = 8 };
	struct can_frame eff8 = { .can_id = CAN_EFF_FLAG | 0x123, .len = 8 };
	struct can_frame eff_rtr = { .can_id = CAN_EFF_FLAG | CAN_RTR_FLAG, .len = 8 };
	struct can_frame sff_rtr = { .can_id = CAN_RTR_FLAG | 0x7ff, .len = 4 };

	KUNIT_EXPECT_EQ(test, can_frame_wire_len(&sff0), DIV_ROUND_UP(47, 8));
	KUNIT_EXPECT_EQ(test, can_frame_wire_len(&sff8), DIV_ROUND_UP(47 + 64, 8));
	KUNIT_EXPECT_EQ(test, can_frame_wire_len(&eff8), DIV_ROUND_UP(67 + 64, 8));
	KUNIT_EXPECT_EQ(test, can_frame_wire_len(&eff_rtr), DIV_ROUND_UP(67, 8));
	KUNIT_EXPECT_EQ(test, can_frame_wire_len(&sff_rtr), DIV_ROUND_UP(47, 8));
}

static struct sk_buff *frame_skb(struct kunit *test, unsigned int mtu,
				 canid_t can_id, u8 len)
{
	struct sk_buff *skb = alloc_skb(mtu, GFP_KERNEL);
	struct canfd_frame *cfd;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	cfd = skb_put_zero(skb, mtu);
	cfd->can_id = can_id;
	cfd->len = len;
	return skb;
}

/* What drivers hand to byte queue limits: classic frames as above, CAN FD
 * frames with 67 or 86 bits around a payload rounded up to a DLC step,
 * and 0 for anything that is neither.
 */
static void skb_frame_len_follows_the_frame_type(struct kunit *test)
{
	static const struct {
		unsigned int mtu;
		canid_t can_id;
		u8 len;
		unsigned int bytes;
	} cases[] = {
		{ CAN_MTU, 0x123, 8, 6 + 8 },
		{ CAN_MTU, CAN_EFF_FLAG | CAN_RTR_FLAG, 8, 9 },
		{ CANFD_MTU, 0x123, 64, 9 + 64 },
		{ CANFD_MTU, CAN_EFF_FLAG, 13, 11 + 16 },
		{ CANFD_MTU, 0x1, 65, 0 },
		{ CAN_MTU + 1, 0x1, 1, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sk_buff *skb = frame_skb(test, cases[i].mtu,
						cases[i].can_id, cases[i].len);

		KUNIT_EXPECT_EQ_MSG(test, can_skb_get_frame_len(skb),
				    cases[i].bytes, "case %u", i);
		kfree_skb(skb);
	}
	KUNIT_EXPECT_EQ(test, CANFD_FRAME_LEN_MAX, 11 + 64);
	KUNIT_EXPECT_EQ(test, canfd_sanitize_len(33), 48);
}

/* ISO 11898-1 CAN FD lengths: 12, 16, 20, 24, 32, 48, 64 for DLC 9 to 15. */
static void fd_dlc_steps_above_8_bytes(struct kunit *test)
{
	static const u8 steps[] = { 12, 16, 20, 24, 32, 48, 64 };
	u8 dlc;

	for (dlc = 0; dlc <= 8; dlc++)
		KUNIT_EXPECT_EQ(test, can_fd_dlc2len(dlc), dlc);
	for (dlc = 9; dlc <= 15; dlc++)
		KUNIT_EXPECT_EQ(test, can_fd_dlc2len(dlc), steps[dlc - 9]);
	KUNIT_EXPECT_EQ(test, can_fd_dlc2len(0x10 | 9), 12);
}

/* A length between two steps is sent with the next larger one. */
static void fd_len_rounds_up_to_a_dlc_step(struct kunit *test)
{
	unsigned int len;
	u8 dlc;

	for (len = 0; len <= CANFD_MAX_DLEN; len++) {
		dlc = can_fd_len2dlc(len);
		KUNIT_EXPECT_GE(test, can_fd_dlc2len(dlc), len);
		if (dlc)
			KUNIT_EXPECT_LT(test, can_fd_dlc2len(dlc - 1), len);
	}
	KUNIT_EXPECT_EQ(test, can_fd_len2dlc(13), 10);
	KUNIT_EXPECT_EQ(test, can_fd_len2dlc(CANFD_MAX_DLEN + 1), 15);
}

static struct kunit_case length_cases[] = {
	KUNIT_CASE(dlc_above_8_means_8_bytes),
	KUNIT_CASE(received_dlc_is_kept_only_when_asked),
	KUNIT_CASE(sent_dlc_uses_len8_dlc_only_when_valid),
	KUNIT_CASE(wire_length_counts_frame_bits),
	KUNIT_CASE(skb_frame_len_follows_the_frame_type),
	KUNIT_CASE(fd_dlc_steps_above_8_bytes),
	KUNIT_CASE(fd_len_rounds_up_to_a_dlc_step),
	{ }
};

static struct kunit_suite length_suite = {
	.name = "can-length",
	.test_cases = length_cases,
};

kunit_test_suites(&bittiming_suite, &length_suite);

MODULE_DESCRIPTION("KUnit tests of the CAN device layer's calculations");
MODULE_LICENSE("GPL");
