// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of the receive table: which subscription sees which frame.
 * The table's code is compiled into this module, so the tests exercise
 * exactly what can.ko runs, without loading it.
 */

#include <kunit/test.h>
#include <linux/can.h>
#include <linux/can/error.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "rx_table.c"

/* can.ko frees subscriptions after an RCU grace period; no reader runs
 * concurrently here, so free at once.
 */
void can_receiver_free(struct can_receiver *rcv)
{
	kfree(rcv);
}

struct rx_fixture {
	struct can_pernet cn;
	struct can_rx_table *table;
	struct sk_buff *skb;
};

static void count_frame(struct sk_buff *skb, void *data)
{
	(*(unsigned int *)data)++;
}

static int rx_init(struct kunit *test)
{
	struct rx_fixture *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	spin_lock_init(&fx->cn.rx_lock);
	fx->table = can_rx_table_alloc(&fx->cn);
	KUNIT_ASSERT_NOT_NULL(test, fx->table);
	fx->skb = alloc_skb(CAN_MTU, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx->skb);
	skb_put_zero(fx->skb, CAN_MTU);
	test->priv = fx;
	return 0;
}

static void rx_exit(struct kunit *test)
{
	struct rx_fixture *fx = test->priv;

	spin_lock_bh(&fx->cn.rx_lock);
	can_rx_table_drain(fx->table);
	spin_unlock_bh(&fx->cn.rx_lock);
	can_rx_table_destroy(fx->table);
	kfree_skb(fx->skb);
}

static void subscribe_types(struct kunit *test, canid_t can_id, canid_t mask,
			    unsigned int *hits, u8 types)
{
	struct rx_fixture *fx = test->priv;
	struct can_receiver *rcv = kzalloc(sizeof(*rcv), GFP_KERNEL);
	struct can_mask_group *spare = can_mask_group_alloc();
	int err;

	KUNIT_ASSERT_NOT_NULL(test, rcv);
	KUNIT_ASSERT_NOT_NULL(test, spare);
	rcv->can_id = can_id;
	rcv->mask = mask;
	rcv->func = count_frame;
	rcv->data = hits;
	rcv->ident = "kunit";
	rcv->frame_types = types;
	spin_lock_bh(&fx->cn.rx_lock);
	err = can_rx_table_add(fx->table, rcv, &spare);
	spin_unlock_bh(&fx->cn.rx_lock);
	can_mask_group_free(spare);
	KUNIT_ASSERT_EQ(test, err, 0);
}

static void subscribe(struct kunit *test, canid_t can_id, canid_t mask,
		      unsigned int *hits)
{
	subscribe_types(test, can_id, mask, hits, CAN_RX_TYPES_ANY);
}

/* Deliver one frame of @type with @can_id; return the number of
 * deliveries.
 */
static unsigned int deliver_type(struct kunit *test, canid_t can_id, u8 type)
{
	struct rx_fixture *fx = test->priv;

	((struct can_frame *)fx->skb->data)->can_id = can_id;
	rcu_read_lock();
	can_id = can_rx_table_deliver(fx->table, fx->skb, type);
	rcu_read_unlock();
	return can_id;
}

static unsigned int deliver(struct kunit *test, canid_t can_id)
{
	return deliver_type(test, can_id, CAN_RX_TYPE_CC);
}

#define EXACT_SFF (CAN_SFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG)
#define EXACT_EFF (CAN_EFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG)

static void exact_sff_filter_sees_its_id_only(struct kunit *test)
{
	unsigned int hits = 0;

	subscribe(test, 0x123, EXACT_SFF, &hits);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x123), 1U);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x124), 0U);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x123 | CAN_EFF_FLAG), 0U);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x123 | CAN_RTR_FLAG), 0U);
	KUNIT_EXPECT_EQ(test, hits, 1U);
}

static void exact_eff_filter_skips_sff_frame_of_same_number(struct kunit *test)
{
	unsigned int hits = 0;

	subscribe(test, 0x123 | CAN_EFF_FLAG, EXACT_EFF, &hits);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x123), 0U);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x123 | CAN_EFF_FLAG), 1U);
	KUNIT_EXPECT_EQ(test, hits, 1U);
}

static void mask_filter_compares_masked_bits(struct kunit *test)
{
	unsigned int hits = 0;

	subscribe(test, 0x120, 0x7F0, &hits);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x12F), 1U);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x130), 0U);
	/* EFF and RTR are outside the mask, so they do not matter. */
	KUNIT_EXPECT_EQ(test, deliver(test, 0x125 | CAN_RTR_FLAG), 1U);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x125 | CAN_EFF_FLAG), 1U);
	KUNIT_EXPECT_EQ(test, hits, 3U);
}

static void sff_only_filter_ignores_eff_frames(struct kunit *test)
{
	unsigned int hits = 0;

	/* EFF flag in the mask, not in the id: standard frames only, and
	 * only the 11 id bits are compared.
	 */
	subscribe(test, 0x100, 0x1FFFFF00 | CAN_EFF_FLAG, &hits);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x1AB), 1U);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x1AB | CAN_EFF_FLAG), 0U);
}

static void many_filters_of_one_mask_share_a_group(struct kunit *test)
{
	struct rx_fixture *fx = test->priv;
	unsigned int hits = 0, i;

	for (i = 0; i < 100; i++)
		subscribe(test, i << 4, 0x7F0, &hits);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x2A5), 1U);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x7F5), 0U);
	KUNIT_EXPECT_EQ(test, fx->table->entries, 100U);
	KUNIT_EXPECT_TRUE(test, hlist_is_singular_node(fx->table->mask_groups.first,
						       &fx->table->mask_groups));
}

static void inverted_filter_skips_matching_id(struct kunit *test)
{
	unsigned int hits = 0;

	subscribe(test, 0x123 | CAN_INV_FILTER, CAN_SFF_MASK, &hits);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x123), 0U);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x321), 1U);
}

static void error_filter_sees_its_classes_only(struct kunit *test)
{
	unsigned int hits = 0, other = 0;

	subscribe(test, 0, CAN_ERR_FLAG | CAN_ERR_BUSOFF, &hits);
	subscribe(test, 0, 0, &other);
	KUNIT_EXPECT_EQ(test, deliver(test, CAN_ERR_FLAG | CAN_ERR_BUSOFF), 1U);
	KUNIT_EXPECT_EQ(test, deliver(test, CAN_ERR_FLAG | 0x1), 0U);
	KUNIT_EXPECT_EQ(test, hits, 1U);
	/* Error frames never reach ordinary subscriptions. */
	KUNIT_EXPECT_EQ(test, other, 0U);
}

static void catch_all_sees_every_data_frame(struct kunit *test)
{
	unsigned int hits = 0;

	subscribe(test, 0, 0, &hits);
	deliver(test, 0x1);
	deliver(test, 0x1 | CAN_EFF_FLAG);
	deliver(test, 0x7FF | CAN_RTR_FLAG);
	KUNIT_EXPECT_EQ(test, hits, 3U);
}

static void removed_filter_sees_nothing_and_frees_its_group(struct kunit *test)
{
	struct rx_fixture *fx = test->priv;
	struct can_receiver *rcv;
	unsigned int hits = 0;

	subscribe(test, 0x120, 0x7F0, &hits);
	spin_lock_bh(&fx->cn.rx_lock);
	rcv = can_rx_table_remove(fx->table, 0x120, 0x7F0, count_frame, &hits);
	spin_unlock_bh(&fx->cn.rx_lock);
	KUNIT_ASSERT_NOT_NULL(test, rcv);
	can_receiver_free(rcv);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x125), 0U);
	KUNIT_EXPECT_EQ(test, fx->table->entries, 0U);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&fx->table->mask_groups));
}

static unsigned int fx_entries(struct kunit *test)
{
	struct rx_fixture *fx = test->priv;

	return fx->table->entries;
}

/* Remove what subscribe() added; true if it was there. */
static bool unsubscribe(struct kunit *test, canid_t can_id, canid_t mask,
			unsigned int *hits)
{
	struct rx_fixture *fx = test->priv;
	struct can_receiver *rcv;

	spin_lock_bh(&fx->cn.rx_lock);
	rcv = can_rx_table_remove(fx->table, can_id, mask, count_frame, hits);
	spin_unlock_bh(&fx->cn.rx_lock);
	if (rcv)
		can_receiver_free(rcv);
	return rcv;
}

/* The lists are singly linked: removal must relink the predecessor,
 * whether the entry is first, in the middle or last.
 */
static void removal_relinks_head_middle_and_tail(struct kunit *test)
{
	struct rx_fixture *fx = test->priv;
	unsigned int a = 0, b = 0, c = 0;

	/* Each goes in at the head: the list is c, b, a. */
	subscribe(test, 0x123, EXACT_SFF, &a);
	subscribe(test, 0x123, EXACT_SFF, &b);
	subscribe(test, 0x123, EXACT_SFF, &c);

	KUNIT_EXPECT_TRUE(test, unsubscribe(test, 0x123, EXACT_SFF, &b));
	KUNIT_EXPECT_EQ(test, deliver(test, 0x123), 2U);
	KUNIT_EXPECT_TRUE(test, unsubscribe(test, 0x123, EXACT_SFF, &c));
	KUNIT_EXPECT_EQ(test, deliver(test, 0x123), 1U);
	KUNIT_EXPECT_TRUE(test, unsubscribe(test, 0x123, EXACT_SFF, &a));
	KUNIT_EXPECT_EQ(test, deliver(test, 0x123), 0U);
	KUNIT_EXPECT_EQ(test, a, 2U);
	KUNIT_EXPECT_EQ(test, b, 0U);
	KUNIT_EXPECT_EQ(test, c, 1U);
	KUNIT_EXPECT_EQ(test, fx->table->entries, 0U);
}

/* Removal finds the list again from identifier and mask: filters that
 * differ only in CAN_INV_FILTER or CAN_ERR_FLAG are told apart.
 */
static void removal_tells_apart_inverted_and_error_twins(struct kunit *test)
{
	unsigned int plain = 0, inverted = 0, errors = 0, grouped = 0;

	subscribe(test, 0x120, 0x7F0, &plain);
	subscribe(test, 0x120 | CAN_INV_FILTER, 0x7F0, &inverted);
	subscribe(test, 0, CAN_ERR_FLAG | 0x7F0, &errors);
	subscribe(test, 0, 0x7F0, &grouped);

	KUNIT_EXPECT_FALSE(test, unsubscribe(test, 0x120, 0x7F0, &errors));
	KUNIT_EXPECT_TRUE(test, unsubscribe(test, 0x120 | CAN_INV_FILTER,
					    0x7F0, &inverted));
	KUNIT_EXPECT_TRUE(test, unsubscribe(test, 0, CAN_ERR_FLAG | 0x7F0,
					    &errors));
	/* What is left: the two id/mask filters of one group. */
	KUNIT_EXPECT_EQ(test, deliver(test, 0x125), 1U);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x005), 1U);
	KUNIT_EXPECT_EQ(test, deliver(test, CAN_ERR_FLAG | 0x010), 0U);
	KUNIT_EXPECT_EQ(test, plain, 1U);
	KUNIT_EXPECT_EQ(test, grouped, 1U);
	KUNIT_EXPECT_EQ(test, inverted, 0U);
	KUNIT_EXPECT_EQ(test, errors, 0U);
}

/* Groups are allocated outside the lock: a filter of a new mask is
 * refused until the caller brings one, and leaves nothing behind.
 */
static void filter_of_new_mask_waits_for_a_spare_group(struct kunit *test)
{
	struct rx_fixture *fx = test->priv;
	struct can_mask_group *spare = NULL;
	struct can_receiver rcv = {
		.can_id = 0x120 | CAN_EFF_FLAG, .mask = 0x7F0 | CAN_EFF_FLAG,
		.func = count_frame, .ident = "kunit",
		.frame_types = CAN_RX_TYPES_ANY,
	};
	unsigned int hits = 0;
	int err;

	rcv.data = &hits;
	spin_lock_bh(&fx->cn.rx_lock);
	err = can_rx_table_add(fx->table, &rcv, &spare);
	spin_unlock_bh(&fx->cn.rx_lock);
	KUNIT_EXPECT_EQ(test, err, -EAGAIN);
	KUNIT_EXPECT_EQ(test, rcv.can_id, 0x120U | CAN_EFF_FLAG);
	KUNIT_EXPECT_EQ(test, rcv.mask, 0x7F0U | CAN_EFF_FLAG);
	KUNIT_EXPECT_EQ(test, fx->table->entries, 0U);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&fx->table->mask_groups));

	/* With a group of that mask in place, no spare is needed. */
	subscribe(test, 0x130, 0x7F0, &hits);
	rcv.can_id = 0x120;
	rcv.mask = 0x7F0;
	spin_lock_bh(&fx->cn.rx_lock);
	err = can_rx_table_add(fx->table, &rcv, &spare);
	spin_unlock_bh(&fx->cn.rx_lock);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, deliver(test, 0x125), 1U);
	spin_lock_bh(&fx->cn.rx_lock);
	KUNIT_EXPECT_PTR_EQ(test, can_rx_table_remove(fx->table, 0x120, 0x7F0,
						      count_frame, &hits),
			    &rcv);
	spin_unlock_bh(&fx->cn.rx_lock);
}

static bool oracle_matches(canid_t frame, canid_t can_id, canid_t mask)
{
	return (frame & mask) == (can_id & mask);
}

#define MANY_MASKS 255

static canid_t many_mask(unsigned int i)
{
	return 0x700 | (i + 1);
}

static canid_t many_id(unsigned int i)
{
	return (i * 37) & many_mask(i);
}

/* Deliver every 5th standard frame; compare with a filter-by-filter
 * match of the filters whose bit is set in @present.
 */
static void expect_as_oracle(struct kunit *test, const bool *present)
{
	unsigned int want, i;
	canid_t frame;

	for (frame = 0; frame <= CAN_SFF_MASK; frame += 5) {
		want = 0;
		for (i = 0; i < MANY_MASKS; i++)
			want += present[i] &&
				oracle_matches(frame, many_id(i), many_mask(i));
		KUNIT_EXPECT_EQ_MSG(test, deliver(test, frame), want,
				    "frame %03x", frame);
	}
}

/* Every filter with a mask of its own: they share the table's hash, and
 * none may see another's frames, before or after half of them leave.
 */
static void filters_of_distinct_masks_share_the_hash(struct kunit *test)
{
	static bool present[MANY_MASKS];
	unsigned int hits = 0, i;

	for (i = 0; i < MANY_MASKS; i++) {
		subscribe(test, many_id(i), many_mask(i), &hits);
		present[i] = true;
	}
	expect_as_oracle(test, present);
	for (i = 0; i < MANY_MASKS; i += 2) {
		KUNIT_EXPECT_TRUE(test, unsubscribe(test, many_id(i),
						    many_mask(i), &hits));
		present[i] = false;
	}
	expect_as_oracle(test, present);
	KUNIT_EXPECT_EQ(test, fx_entries(test), MANY_MASKS / 2U);
}

/* Every list: exact, mask, inverted, catch-all and error subscriptions. */
static void subscriber_sees_only_its_frame_types(struct kunit *test)
{
	unsigned int cc_fd = 0, xl = 0;
	u8 old = CAN_RX_TYPE_CC | CAN_RX_TYPE_FD;

	subscribe_types(test, 0x123, EXACT_SFF, &cc_fd, old);
	subscribe_types(test, 0x100, 0x700, &cc_fd, old);
	subscribe_types(test, 0x7ff | CAN_INV_FILTER, CAN_SFF_MASK, &cc_fd, old);
	subscribe_types(test, 0, 0, &cc_fd, old);
	subscribe_types(test, 0, CAN_ERR_FLAG | CAN_ERR_MASK, &cc_fd, old);
	subscribe_types(test, 0x123, EXACT_SFF, &xl, CAN_RX_TYPE_XL);

	KUNIT_EXPECT_EQ(test, deliver_type(test, 0x123, CAN_RX_TYPE_XL), 1U);
	KUNIT_EXPECT_EQ(test, xl, 1U);
	KUNIT_EXPECT_EQ(test, cc_fd, 0U);
	KUNIT_EXPECT_EQ(test, deliver_type(test, CAN_ERR_FLAG | CAN_ERR_BUSOFF,
					   CAN_RX_TYPE_XL), 0U);
	KUNIT_EXPECT_EQ(test, deliver_type(test, 0x123, CAN_RX_TYPE_CC), 4U);
	KUNIT_EXPECT_EQ(test, deliver_type(test, 0x123, CAN_RX_TYPE_FD), 4U);
	KUNIT_EXPECT_EQ(test, cc_fd, 8U);
	KUNIT_EXPECT_EQ(test, xl, 1U);
}

static struct kunit_case can_rx_table_cases[] = {
	KUNIT_CASE(exact_sff_filter_sees_its_id_only),
	KUNIT_CASE(exact_eff_filter_skips_sff_frame_of_same_number),
	KUNIT_CASE(mask_filter_compares_masked_bits),
	KUNIT_CASE(sff_only_filter_ignores_eff_frames),
	KUNIT_CASE(many_filters_of_one_mask_share_a_group),
	KUNIT_CASE(inverted_filter_skips_matching_id),
	KUNIT_CASE(error_filter_sees_its_classes_only),
	KUNIT_CASE(catch_all_sees_every_data_frame),
	KUNIT_CASE(removed_filter_sees_nothing_and_frees_its_group),
	KUNIT_CASE(removal_relinks_head_middle_and_tail),
	KUNIT_CASE(removal_tells_apart_inverted_and_error_twins),
	KUNIT_CASE(filter_of_new_mask_waits_for_a_spare_group),
	KUNIT_CASE(filters_of_distinct_masks_share_the_hash),
	KUNIT_CASE(subscriber_sees_only_its_frame_types),
	{}
};

static struct kunit_suite can_rx_table_suite = {
	.name = "can-rx-table",
	.init = rx_init,
	.exit = rx_exit,
	.test_cases = can_rx_table_cases,
};

kunit_test_suite(can_rx_table_suite);

MODULE_DESCRIPTION("KUnit tests of the PF_CAN receive table");
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The CAN stack developers");
