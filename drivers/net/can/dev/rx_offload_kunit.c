// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of receive offload (rx-offload.c), which none of our
 * drivers uses: a stub device's queue is filled as a driver's interrupt
 * handler would, from fake mailboxes, a fake FIFO, echo slots or by
 * hand, and the order and count of what reaches the NAPI queue is
 * checked. NAPI is never enabled, so the frames stay queued for the
 * test to read.
 */

#include <kunit/test.h>
#include <linux/can/core.h>
#include <linux/can/dev.h>
#include <linux/can/rx-offload.h>
#include <linux/can/skb.h>

#include "stub_kunit.h"

/* A stub controller: its mailboxes hold frames with the ids and stamps
 * of @mb_id and @mb_stamp; id 0 is an empty mailbox, CAN_ERR_MASK one
 * the driver fails to read. The FIFO is mailbox 0 read again and again.
 */
struct stub {
	struct can_priv can;
	struct can_rx_offload offload;
	canid_t mb_id[8];
	u32 mb_stamp[8];
	unsigned int fifo_next;
	unsigned int drops_asked;
};

static struct sk_buff *stub_mailbox_read(struct can_rx_offload *offload,
					 unsigned int mb, u32 *timestamp,
					 bool drop)
{
	struct stub *st = container_of(offload, struct stub, offload);
	struct can_frame *cf;
	struct sk_buff *skb;

	if (offload->mb_first == offload->mb_last)	/* FIFO mode */
		mb = st->fifo_next++;
	if (mb >= ARRAY_SIZE(st->mb_id) || !st->mb_id[mb])
		return NULL;
	if (st->mb_id[mb] == CAN_ERR_MASK)
		return ERR_PTR(-EIO);
	if (drop) {
		st->drops_asked++;
		return ERR_PTR(-ENOBUFS);
	}
	skb = alloc_can_skb(offload->dev, &cf);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	cf->can_id = st->mb_id[mb];
	*timestamp = st->mb_stamp[mb];
	return skb;
}

static struct stub *stub_create(struct kunit *test)
{
	struct net_device *dev = alloc_candev(sizeof(struct stub), 1);
	struct stub *st;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	st = netdev_priv(dev);
	st->can.clock.freq = 8000000;
	st->can.do_set_bittiming = NULL;
	dev->netdev_ops = &stub_netdev_ops;
	err = register_candev(dev);
	if (err)
		free_candev(dev);
	KUNIT_ASSERT_EQ(test, err, 0);
	return st;
}

static void stub_remove(struct stub *st)
{
	struct net_device *dev = st->offload.dev;

	can_rx_offload_del(&st->offload);
	stub_destroy(dev);
}

/* The ids in the NAPI queue, front to back, as a string "1 2 3 ". */
static const char *queued_ids(struct kunit *test, struct can_rx_offload *o)
{
	char *out = kunit_kzalloc(test, 128, GFP_KERNEL);
	struct sk_buff *skb;
	size_t n = 0;

	KUNIT_ASSERT_NOT_NULL(test, out);
	skb_queue_walk(&o->skb_queue, skb)
		n += scnprintf(out + n, 128 - n, "%x ",
			       ((struct can_frame *)skb->data)->can_id);
	return out;
}

static struct sk_buff *frame(struct kunit *test, struct can_rx_offload *o,
			     canid_t id)
{
	struct can_frame *cf;
	struct sk_buff *skb = alloc_can_skb(o->dev, &cf);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	cf->can_id = id;
	return skb;
}

static void setup_arguments_are_checked(struct kunit *test)
{
	struct stub *st = stub_create(test);
	struct can_rx_offload *o = &st->offload;
	struct net_device *dev = st->can.dev;

	o->mailbox_read = stub_mailbox_read;
	KUNIT_EXPECT_EQ(test, can_rx_offload_add_manual(dev, o, 16), -EINVAL);
	o->mb_first = 0;
	o->mb_last = 64;
	KUNIT_EXPECT_EQ(test, can_rx_offload_add_timestamp(dev, o), -EINVAL);
	o->mailbox_read = NULL;
	KUNIT_EXPECT_EQ(test, can_rx_offload_add_fifo(dev, o, 16), -EINVAL);
	o->mb_last = 7;
	KUNIT_EXPECT_EQ(test, can_rx_offload_add_timestamp(dev, o), -EINVAL);
	KUNIT_ASSERT_EQ(test, can_rx_offload_add_manual(dev, o, 16), 0);
	KUNIT_EXPECT_EQ(test, o->skb_queue_len_max, 256);
	stub_remove(st);
}

/* Stamps place frames, also those of one interrupt out of order, and
 * also across the wrap of the controller's counter.
 */
static void stamps_order_the_frames(struct kunit *test)
{
	struct stub *st = stub_create(test);
	struct can_rx_offload *o = &st->offload;

	KUNIT_ASSERT_EQ(test, can_rx_offload_add_manual(st->can.dev, o, 4), 0);
	KUNIT_EXPECT_EQ(test, can_rx_offload_queue_timestamp(o, frame(test, o, 3), 30), 0);
	KUNIT_EXPECT_EQ(test, can_rx_offload_queue_timestamp(o, frame(test, o, 1), 10), 0);
	KUNIT_EXPECT_EQ(test, can_rx_offload_queue_timestamp(o, frame(test, o, 2), 20), 0);
	can_rx_offload_irq_finish(o);
	KUNIT_EXPECT_STREQ(test, queued_ids(test, o), "1 2 3 ");

	KUNIT_EXPECT_EQ(test, can_rx_offload_queue_timestamp(o, frame(test, o, 5), 0x10), 0);
	KUNIT_EXPECT_EQ(test, can_rx_offload_queue_timestamp(o, frame(test, o, 4),
							     0xfffffff0), 0);
	can_rx_offload_threaded_irq_finish(o);
	KUNIT_EXPECT_STREQ(test, queued_ids(test, o), "1 2 3 4 5 ");
	stub_remove(st);
}

/* Mailboxes are read in the driver's direction, only those pending;
 * empty ones are skipped, unreadable ones counted.
 */
static void pending_mailboxes_are_read_and_sorted(struct kunit *test)
{
	struct stub *st = stub_create(test);
	struct can_rx_offload *o = &st->offload;
	struct net_device *dev = st->can.dev;
	static const canid_t ids[] = { 0x10, 0x11, 0, CAN_ERR_MASK, 0x14, 0x15 };
	static const u32 stamps[] = { 50, 40, 0, 0, 60, 45 };

	memcpy(st->mb_id, ids, sizeof(ids));
	memcpy(st->mb_stamp, stamps, sizeof(stamps));
	o->mailbox_read = stub_mailbox_read;
	o->mb_first = 5;
	o->mb_last = 0;
	KUNIT_ASSERT_EQ(test, can_rx_offload_add_timestamp(dev, o), 0);
	KUNIT_EXPECT_FALSE(test, o->inc);

	/* Mailbox 4 holds a frame but is not pending. */
	KUNIT_EXPECT_EQ(test, can_rx_offload_irq_offload_timestamp(o, 0x2f), 3);
	can_rx_offload_irq_finish(o);
	KUNIT_EXPECT_STREQ(test, queued_ids(test, o), "11 15 10 ");
	KUNIT_EXPECT_EQ(test, dev->stats.rx_dropped, 1);
	KUNIT_EXPECT_EQ(test, dev->stats.rx_fifo_errors, 1);
	stub_remove(st);
}

/* The core's count of frames @dev's queue lost (can.ko serves it). */
static u64 queue_losses(struct kunit *test, struct net_device *dev)
{
	struct can_drop_counts c;

	can_get_drop_counts(dev, &c);
	return c.rx_queue;
}

static void fifo_is_emptied_past_a_bad_frame(struct kunit *test)
{
	struct stub *st = stub_create(test);
	struct can_rx_offload *o = &st->offload;
	struct net_device *dev = st->can.dev;
	static const canid_t ids[] = { 0x1, CAN_ERR_MASK, 0x3, 0x4 };

	memcpy(st->mb_id, ids, sizeof(ids));
	o->mailbox_read = stub_mailbox_read;
	KUNIT_ASSERT_EQ(test, can_rx_offload_add_fifo(dev, o, 4), 0);
	KUNIT_EXPECT_EQ(test, can_rx_offload_irq_offload_fifo(o), 3);
	can_rx_offload_irq_finish(o);
	KUNIT_EXPECT_STREQ(test, queued_ids(test, o), "1 3 4 ");
	KUNIT_EXPECT_EQ(test, dev->stats.rx_fifo_errors, 1);
	/* A frame the driver failed to read is no loss of the queue's. */
	KUNIT_EXPECT_EQ(test, queue_losses(test, dev), 0);
	stub_remove(st);
}

/* Past skb_queue_len_max, the driver is asked to drop and frames built
 * by the driver are refused; every loss is counted somewhere.
 */
static void full_queue_drops_with_a_count(struct kunit *test)
{
	struct stub *st = stub_create(test);
	struct can_rx_offload *o = &st->offload;
	struct net_device *dev = st->can.dev;
	unsigned int i;

	o->mailbox_read = stub_mailbox_read;
	KUNIT_ASSERT_EQ(test, can_rx_offload_add_fifo(dev, o, 1), 0);
	KUNIT_ASSERT_EQ(test, o->skb_queue_len_max, 16);
	for (i = 0; i <= o->skb_queue_len_max; i++)
		KUNIT_ASSERT_EQ(test, can_rx_offload_queue_tail(o, frame(test, o, i)), 0);
	can_rx_offload_irq_finish(o);

	KUNIT_EXPECT_EQ(test, can_rx_offload_queue_tail(o, frame(test, o, 0x7ff)),
			-ENOBUFS);
	KUNIT_EXPECT_EQ(test, can_rx_offload_queue_timestamp(o, frame(test, o, 0x7ff), 1),
			-ENOBUFS);

	st->mb_id[0] = 0x100;
	st->mb_id[1] = 0x101;
	KUNIT_EXPECT_EQ(test, can_rx_offload_irq_offload_fifo(o), 0);
	KUNIT_EXPECT_EQ(test, st->drops_asked, 2);
	KUNIT_EXPECT_EQ(test, dev->stats.rx_dropped, 2);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&o->skb_queue), 17);
	/* The core counts all four: two refused, two dropped on reading. */
	KUNIT_EXPECT_EQ(test, queue_losses(test, dev), 4);
	stub_remove(st);
}

/* An echo goes through the queue at its stamp; a full queue counts it. */
static void echo_is_queued_by_its_stamp(struct kunit *test)
{
	struct stub *st = stub_create(test);
	struct can_rx_offload *o = &st->offload;
	struct net_device *dev = st->can.dev;
	unsigned int frame_len = 0;
	struct sk_buff *echo;
	struct can_frame *cf;

	KUNIT_ASSERT_EQ(test, can_rx_offload_add_manual(dev, o, 4), 0);
	echo = alloc_can_skb(dev, &cf);
	KUNIT_ASSERT_NOT_NULL(test, echo);
	cf->can_id = 0x42;
	cf->len = 3;
	echo->pkt_type = PACKET_LOOPBACK;
	KUNIT_ASSERT_EQ(test, can_put_echo_skb(echo, dev, 0, 14), 0);

	KUNIT_EXPECT_EQ(test, can_rx_offload_queue_timestamp(o, frame(test, o, 0x50), 500), 0);
	KUNIT_EXPECT_EQ(test, can_rx_offload_get_echo_skb(o, 0, 400, &frame_len), 3);
	KUNIT_EXPECT_EQ(test, frame_len, 14);
	KUNIT_EXPECT_EQ(test, can_rx_offload_get_echo_skb(o, 0, 600, NULL), 0);

	/* Sent without loopback: no echo, but its bytes still count. */
	echo = alloc_can_skb(dev, &cf);
	KUNIT_ASSERT_NOT_NULL(test, echo);
	cf->can_id = 0x43;
	cf->len = 5;
	KUNIT_ASSERT_EQ(test, can_put_echo_skb(echo, dev, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, can_rx_offload_get_echo_skb(o, 0, 450, NULL), 5);

	can_rx_offload_irq_finish(o);
	KUNIT_EXPECT_STREQ(test, queued_ids(test, o), "42 50 ");
	KUNIT_EXPECT_EQ(test, dev->stats.rx_errors, 0);
	stub_remove(st);
}

static struct kunit_case rx_offload_cases[] = {
	KUNIT_CASE(setup_arguments_are_checked),
	KUNIT_CASE(stamps_order_the_frames),
	KUNIT_CASE(pending_mailboxes_are_read_and_sorted),
	KUNIT_CASE(fifo_is_emptied_past_a_bad_frame),
	KUNIT_CASE(full_queue_drops_with_a_count),
	KUNIT_CASE(echo_is_queued_by_its_stamp),
	{ }
};

static struct kunit_suite rx_offload_suite = {
	.name = "can-dev-rx-offload",
	.test_cases = rx_offload_cases,
};

kunit_test_suites(&rx_offload_suite);

MODULE_DESCRIPTION("KUnit tests of the CAN device layer's receive offload");
MODULE_LICENSE("GPL");
