/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the bit timing KUnit tests: controller limits as mainline's
 * drivers declare them, and the check of one search result.
 */

#ifndef _CAN_BITTIMING_KUNIT_H
#define _CAN_BITTIMING_KUNIT_H

#include <kunit/test.h>
#include <linux/can/bittiming.h>

static const struct can_bittiming_const sja1000_limits = {
	.name = "sja1000",
	.tseg1_min = 1, .tseg1_max = 16, .tseg2_min = 1, .tseg2_max = 8,
	.sjw_max = 4, .brp_min = 1, .brp_max = 64, .brp_inc = 1,
};

static const struct can_bittiming_const mcp251x_limits = {
	.name = "mcp251x",
	.tseg1_min = 3, .tseg1_max = 16, .tseg2_min = 2, .tseg2_max = 8,
	.sjw_max = 4, .brp_min = 1, .brp_max = 64, .brp_inc = 1,
};

/* @bt came out with these prescaler, segments and sample point. */
static inline void can_kunit_expect_timing(struct kunit *test,
					   const struct can_bittiming *bt,
					   u32 brp, u32 tseg1, u32 tseg2,
					   u32 sample_point)
{
	KUNIT_EXPECT_EQ(test, bt->brp, brp);
	KUNIT_EXPECT_EQ(test, bt->prop_seg + bt->phase_seg1, tseg1);
	KUNIT_EXPECT_EQ(test, bt->phase_seg2, tseg2);
	KUNIT_EXPECT_EQ(test, bt->sample_point, sample_point);
}

#endif /* !_CAN_BITTIMING_KUNIT_H */
