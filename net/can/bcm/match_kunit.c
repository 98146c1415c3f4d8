// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of the broadcast manager's content filter (match.h):
 * which multiplex slot a frame belongs to, and which differences from a
 * slot's last frame count as a change, for classic and CAN FD frames.
 */

#include <kunit/test.h>
#include <linux/can.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "match.h"

/* An operation with @n frames, laid out as bcm_op_alloc() does. */
static struct bcm_op *make_op(struct kunit *test, u32 n, bool is_fd)
{
	struct bcm_op *op;

	op = kunit_kzalloc(test, struct_size(op, storage, 3 * n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, op);
	op->nframes = n;
	op->capacity = n;
	op->is_fd = is_fd;
	op->cfsiz = is_fd ? CANFD_MTU : CAN_MTU;
	op->frames = op->storage;
	op->rx.last = op->storage + n;
	op->rx.slot = (u8 *)(op->storage + 2 * n);
	return op;
}

/* Slot @i has seen @cf. */
static void remember(struct bcm_op *op, u32 i, const struct canfd_frame *cf)
{
	op->rx.last[i] = *cf;
	op->rx.slot[i] |= BCM_SLOT_SEEN;
}

static void first_frame_is_a_change(struct kunit *test)
{
	struct bcm_op *op = make_op(test, 1, false);
	struct canfd_frame cf = { .len = 2 };

	KUNIT_EXPECT_TRUE(test, bcm_rx_is_changed(op, 0, &cf));
}

static void only_masked_bits_count(struct kunit *test)
{
	struct bcm_op *op = make_op(test, 1, false);
	struct canfd_frame cf = { .len = 8, .data = { 0x11, 0x22 } };

	op->frames[0].data[1] = 0x0f;	/* low nibble of byte 1 */
	remember(op, 0, &cf);

	cf.data[0] = 0xff;
	cf.data[1] = 0xf2;
	KUNIT_EXPECT_FALSE(test, bcm_rx_is_changed(op, 0, &cf));
	cf.data[1] = 0x23;
	KUNIT_EXPECT_TRUE(test, bcm_rx_is_changed(op, 0, &cf));
}

static void all_zero_mask_sees_no_data_change(struct kunit *test)
{
	struct bcm_op *op = make_op(test, 1, false);
	struct canfd_frame cf = { .len = 8 };

	remember(op, 0, &cf);
	memset(cf.data, 0xa5, 8);
	KUNIT_EXPECT_FALSE(test, bcm_rx_is_changed(op, 0, &cf));
}

static void length_change_counts_only_with_rx_check_dlc(struct kunit *test)
{
	struct bcm_op *op = make_op(test, 1, false);
	struct canfd_frame cf = { .len = 4 };

	remember(op, 0, &cf);
	cf.len = 6;
	KUNIT_EXPECT_FALSE(test, bcm_rx_is_changed(op, 0, &cf));
	op->flags |= RX_CHECK_DLC;
	KUNIT_EXPECT_TRUE(test, bcm_rx_is_changed(op, 0, &cf));
	cf.len = 4;
	KUNIT_EXPECT_FALSE(test, bcm_rx_is_changed(op, 0, &cf));
}

/* CAN FD frames are compared over their whole length. */
static void fd_change_in_last_word_counts(struct kunit *test)
{
	struct bcm_op *op = make_op(test, 1, true);
	struct canfd_frame cf = { .len = 64, .flags = CANFD_BRS };

	op->frames[0].data[63] = 0x80;
	remember(op, 0, &cf);
	cf.data[62] = 0xff;
	KUNIT_EXPECT_FALSE(test, bcm_rx_is_changed(op, 0, &cf));
	cf.data[63] = 0x80;
	KUNIT_EXPECT_TRUE(test, bcm_rx_is_changed(op, 0, &cf));
}

static void single_frame_filter_has_one_slot(struct kunit *test)
{
	struct bcm_op *op = make_op(test, 1, false);
	struct canfd_frame cf = { .len = 8, .data = { 0x42 } };

	KUNIT_EXPECT_EQ(test, bcm_rx_slot(op, &cf), 0);
}

/* frames[0] holds the multiplex mask, frames[1..] the values. */
static void multiplex_picks_slot_by_masked_value(struct kunit *test)
{
	struct bcm_op *op = make_op(test, 4, false);
	struct canfd_frame cf = { .len = 8 };

	op->frames[0].data[0] = 0xf0;
	op->frames[1].data[0] = 0x10;
	op->frames[2].data[0] = 0x20;
	op->frames[3].data[0] = 0x30;

	cf.data[0] = 0x2c;	/* low nibble is not part of the index */
	KUNIT_EXPECT_EQ(test, bcm_rx_slot(op, &cf), 2);
	cf.data[0] = 0x31;
	KUNIT_EXPECT_EQ(test, bcm_rx_slot(op, &cf), 3);
	cf.data[0] = 0x40;
	KUNIT_EXPECT_EQ(test, bcm_rx_slot(op, &cf), -1);
}

/* Each multiplex slot remembers its own last frame. */
static void multiplex_slots_compare_separately(struct kunit *test)
{
	struct bcm_op *op = make_op(test, 3, false);
	struct canfd_frame a = { .len = 8, .data = { 0x01, 0xaa } };
	struct canfd_frame b = { .len = 8, .data = { 0x02, 0xbb } };

	op->frames[0].data[0] = 0xff;
	op->frames[1].data[0] = 0x01;
	op->frames[1].data[1] = 0xff;
	op->frames[2].data[0] = 0x02;
	op->frames[2].data[1] = 0xff;
	remember(op, 1, &a);
	remember(op, 2, &b);

	KUNIT_EXPECT_FALSE(test, bcm_rx_is_changed(op, bcm_rx_slot(op, &a), &a));
	KUNIT_EXPECT_FALSE(test, bcm_rx_is_changed(op, bcm_rx_slot(op, &b), &b));
	b.data[1] = 0xaa;
	KUNIT_EXPECT_TRUE(test, bcm_rx_is_changed(op, bcm_rx_slot(op, &b), &b));
}

static struct kunit_case bcm_match_cases[] = {
	KUNIT_CASE(first_frame_is_a_change),
	KUNIT_CASE(only_masked_bits_count),
	KUNIT_CASE(all_zero_mask_sees_no_data_change),
	KUNIT_CASE(length_change_counts_only_with_rx_check_dlc),
	KUNIT_CASE(fd_change_in_last_word_counts),
	KUNIT_CASE(single_frame_filter_has_one_slot),
	KUNIT_CASE(multiplex_picks_slot_by_masked_value),
	KUNIT_CASE(multiplex_slots_compare_separately),
	{ }
};

static struct kunit_suite bcm_match_suite = {
	.name = "can-bcm-match",
	.test_cases = bcm_match_cases,
};

kunit_test_suite(bcm_match_suite);

MODULE_DESCRIPTION("KUnit tests of the CAN broadcast manager's content filter");
MODULE_LICENSE("GPL");
