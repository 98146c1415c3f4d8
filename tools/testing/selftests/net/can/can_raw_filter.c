// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_RAW receive filters: id/mask matching with its flag bits (EFF,
 * RTR), inverted filters, join semantics, error-class masks, zero and
 * default tables, and replacing the table while frames flow.
 *
 * A witness socket with an accept-everything filter sees each frame
 * first; once it has, the socket under test has had its chance too.
 */

#include <pthread.h>
#include <stdatomic.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"

/* A vcan with a sender, the socket under test and the witness. */
struct bench {
	char ifname[IFNAMSIZ];
	int ifindex;
	int tx;
	int rx;
	int witness;
};

static int bench_setup(struct bench *b)
{
	b->tx = -1;
	b->rx = -1;
	b->witness = -1;
	ct_ifname(b->ifname, 'f');
	if (ct_vcan_create(b->ifname, 0, true))
		return -1;
	b->ifindex = if_nametoindex(b->ifname);
	b->tx = ct_raw_open(b->ifindex);
	b->rx = ct_raw_open(b->ifindex);
	b->witness = ct_raw_open(b->ifindex);
	if (b->tx < 0 || b->rx < 0 || b->witness < 0)
		return -1;
	return ct_set_err_mask(b->witness, CAN_ERR_MASK);
}

static void bench_teardown(struct bench *b)
{
	if (b->tx >= 0)
		close(b->tx);
	if (b->rx >= 0)
		close(b->rx);
	if (b->witness >= 0)
		close(b->witness);
	ct_link_del(b->ifname);
}

FIXTURE(filter)
{
	struct bench b;
};

FIXTURE_SETUP(filter)
{
	ASSERT_EQ(0, bench_setup(&self->b));
}

FIXTURE_TEARDOWN(filter)
{
	bench_teardown(&self->b);
}

/*
 * Send @id and report whether the socket under test got it: 1 yes,
 * 0 no, negative if the witness never saw the frame or @rx got another.
 */
static int passes(struct bench *b, canid_t id)
{
	long long got;

	if (ct_send(b->tx, id, id & CAN_RTR_FLAG ? 0 : 2))
		return -1;
	if (ct_recv_id(b->witness, CT_RX_TIMEOUT_MS) != id)
		return -2;
	if (ct_is_quiet(b->rx))
		return 0;
	got = ct_recv_id(b->rx, 0);
	return got == id ? 1 : -3;
}

TEST_F(filter, default_filter_receives_every_data_frame)
{
	EXPECT_EQ(1, passes(&self->b, 0x000));
	EXPECT_EQ(1, passes(&self->b, 0x7ff));
	EXPECT_EQ(1, passes(&self->b, 0x123 | CAN_RTR_FLAG));
	EXPECT_EQ(1, passes(&self->b, CAN_EFF_MASK | CAN_EFF_FLAG));
}

TEST_F(filter, default_filter_skips_error_frames)
{
	EXPECT_EQ(0, passes(&self->b, CAN_ERR_FLAG | CAN_ERR_BUSOFF));
}

TEST_F(filter, zero_filters_receive_nothing)
{
	ASSERT_EQ(0, ct_set_filters(self->b.rx, NULL, 0));
	EXPECT_EQ(0, passes(&self->b, 0x000));
	EXPECT_EQ(0, passes(&self->b, 0x123));
	EXPECT_EQ(0, passes(&self->b, 0x123 | CAN_EFF_FLAG));
}

TEST_F(filter, exact_sff_filter_receives_only_that_data_frame)
{
	struct can_filter f = { 0x123, CAN_SFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG };

	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	EXPECT_EQ(1, passes(&self->b, 0x123));
	EXPECT_EQ(0, passes(&self->b, 0x124));
	EXPECT_EQ(0, passes(&self->b, 0x123 | CAN_EFF_FLAG));
	EXPECT_EQ(0, passes(&self->b, 0x123 | CAN_RTR_FLAG));
}

TEST_F(filter, mask_filter_receives_id_range)
{
	struct can_filter f = { 0x120, 0x7f0 };

	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	EXPECT_EQ(1, passes(&self->b, 0x120));
	EXPECT_EQ(1, passes(&self->b, 0x12f));
	EXPECT_EQ(0, passes(&self->b, 0x130));
	EXPECT_EQ(0, passes(&self->b, 0x110));
}

TEST_F(filter, sff_mask_without_eff_flag_also_matches_eff_frames)
{
	struct can_filter f = { 0x123, CAN_SFF_MASK };

	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	EXPECT_EQ(1, passes(&self->b, 0x123));
	EXPECT_EQ(1, passes(&self->b, 0x0abcd123 | CAN_EFF_FLAG));
	EXPECT_EQ(1, passes(&self->b, 0x123 | CAN_RTR_FLAG));
}

TEST_F(filter, eff_flag_in_mask_with_sff_id_skips_eff_frames)
{
	struct can_filter f = { 0x123, CAN_SFF_MASK | CAN_EFF_FLAG };

	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	EXPECT_EQ(1, passes(&self->b, 0x123));
	EXPECT_EQ(0, passes(&self->b, 0x123 | CAN_EFF_FLAG));
}

TEST_F(filter, exact_eff_filter_skips_sff_and_other_eff_ids)
{
	struct can_filter f = {
		0x12345678 | CAN_EFF_FLAG,
		CAN_EFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG,
	};

	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	EXPECT_EQ(1, passes(&self->b, 0x12345678 | CAN_EFF_FLAG));
	EXPECT_EQ(0, passes(&self->b, 0x12345679 | CAN_EFF_FLAG));
	EXPECT_EQ(0, passes(&self->b, 0x678));
	EXPECT_EQ(0, passes(&self->b, 0x12345678 | CAN_EFF_FLAG | CAN_RTR_FLAG));
}

TEST_F(filter, eff_ids_hashing_alike_are_told_apart)
{
	/* all three fold to 0 when XOR-ing the 10-bit slices of the id */
	struct can_filter f = {
		0x00000401 | CAN_EFF_FLAG,
		CAN_EFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG,
	};

	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	EXPECT_EQ(0, passes(&self->b, 0x00000000 | CAN_EFF_FLAG));
	EXPECT_EQ(1, passes(&self->b, 0x00000401 | CAN_EFF_FLAG));
	EXPECT_EQ(0, passes(&self->b, 0x00100001 | CAN_EFF_FLAG));
}

TEST_F(filter, rtr_filter_receives_only_remote_requests)
{
	struct can_filter f = { 0x123 | CAN_RTR_FLAG, CAN_SFF_MASK | CAN_RTR_FLAG };

	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	EXPECT_EQ(1, passes(&self->b, 0x123 | CAN_RTR_FLAG));
	EXPECT_EQ(0, passes(&self->b, 0x123));
}

TEST_F(filter, inverted_filter_skips_matching_id)
{
	struct can_filter f = { 0x123 | CAN_INV_FILTER, CAN_SFF_MASK };

	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	EXPECT_EQ(0, passes(&self->b, 0x123));
	EXPECT_EQ(1, passes(&self->b, 0x124));
	EXPECT_EQ(1, passes(&self->b, 0x000));
}

TEST_F(filter, inverted_filter_with_zero_mask_receives_nothing)
{
	struct can_filter f = { CAN_INV_FILTER, 0 };

	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	EXPECT_EQ(0, passes(&self->b, 0x123));
	EXPECT_EQ(0, passes(&self->b, 0x1234 | CAN_EFF_FLAG));
}

TEST_F(filter, frame_matching_several_filters_arrives_once)
{
	struct can_filter f[3] = {
		{ 0x123, CAN_SFF_MASK },
		{ 0x100, 0x700 },
		{ 0x000 | CAN_INV_FILTER, CAN_SFF_MASK },
	};

	ASSERT_EQ(0, ct_set_filters(self->b.rx, f, 3));
	EXPECT_EQ(1, passes(&self->b, 0x123));
	/* a second copy would be waiting now */
	EXPECT_EQ(1, passes(&self->b, 0x456));
	EXPECT_TRUE(ct_is_quiet(self->b.rx));
}

TEST_F(filter, join_filters_require_every_filter_to_match)
{
	struct can_filter f[2] = { { 0x100, 0x700 }, { 0x023, 0x0ff } };

	ASSERT_EQ(0, ct_set_filters(self->b.rx, f, 2));
	ASSERT_EQ(0, ct_setopt_int(self->b.rx, CAN_RAW_JOIN_FILTERS, 1));
	EXPECT_EQ(1, passes(&self->b, 0x123));
	EXPECT_EQ(0, passes(&self->b, 0x124));
	EXPECT_EQ(0, passes(&self->b, 0x223));
	EXPECT_TRUE(ct_is_quiet(self->b.rx));
}

TEST_F(filter, join_with_single_filter_acts_as_plain_filter)
{
	struct can_filter f = { 0x123, CAN_SFF_MASK };

	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	ASSERT_EQ(0, ct_setopt_int(self->b.rx, CAN_RAW_JOIN_FILTERS, 1));
	EXPECT_EQ(1, passes(&self->b, 0x123));
	EXPECT_EQ(0, passes(&self->b, 0x124));
}

TEST_F(filter, filters_set_before_bind_apply_after_bind)
{
	struct can_filter f = { 0x55, CAN_SFF_MASK };
	int fd = ct_raw_socket();

	ASSERT_LE(0, fd);
	close(self->b.rx);
	self->b.rx = fd;
	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	ASSERT_EQ(0, ct_bind(self->b.rx, self->b.ifindex));
	EXPECT_EQ(1, passes(&self->b, 0x55));
	EXPECT_EQ(0, passes(&self->b, 0x56));
}

/*
 * A socket keeps no per-CPU duplicate state until it may need it (see
 * raw_track_repeats()): several filters before bind, or a second bind.
 */
TEST_F(filter, several_filters_set_before_bind_deliver_once)
{
	struct can_filter f[2] = { { 0x123, CAN_SFF_MASK }, { 0, 0 } };
	int fd = ct_raw_socket();

	ASSERT_LE(0, fd);
	close(self->b.rx);
	self->b.rx = fd;
	ASSERT_EQ(0, ct_set_filters(self->b.rx, f, 2));
	ASSERT_EQ(0, ct_bind(self->b.rx, self->b.ifindex));
	EXPECT_EQ(1, passes(&self->b, 0x123));
	EXPECT_EQ(1, passes(&self->b, 0x456));
	EXPECT_TRUE(ct_is_quiet(self->b.rx));
}

TEST_F(filter, socket_bound_again_delivers_each_frame_once)
{
	int fd = ct_raw_socket();

	ASSERT_LE(0, fd);
	close(self->b.rx);
	self->b.rx = fd;
	ASSERT_EQ(0, ct_bind(self->b.rx, 0));
	EXPECT_EQ(1, passes(&self->b, 0x123));
	ASSERT_EQ(0, ct_bind(self->b.rx, self->b.ifindex));
	EXPECT_EQ(1, passes(&self->b, 0x124));
	ASSERT_EQ(0, ct_bind(self->b.rx, 0));
	EXPECT_EQ(1, passes(&self->b, 0x125));
	EXPECT_TRUE(ct_is_quiet(self->b.rx));
}

/* Error frames: built by a raw socket and looped back like any frame. */
FIXTURE(errclass)
{
	struct bench b;
};

FIXTURE_VARIANT(errclass)
{
	can_err_mask_t class;
};

FIXTURE_SETUP(errclass)
{
	ASSERT_EQ(0, bench_setup(&self->b));
}

FIXTURE_TEARDOWN(errclass)
{
	bench_teardown(&self->b);
}

FIXTURE_VARIANT_ADD(errclass, tx_timeout) { .class = CAN_ERR_TX_TIMEOUT };
FIXTURE_VARIANT_ADD(errclass, lostarb) { .class = CAN_ERR_LOSTARB };
FIXTURE_VARIANT_ADD(errclass, crtl) { .class = CAN_ERR_CRTL };
FIXTURE_VARIANT_ADD(errclass, prot) { .class = CAN_ERR_PROT };
FIXTURE_VARIANT_ADD(errclass, trx) { .class = CAN_ERR_TRX };
FIXTURE_VARIANT_ADD(errclass, ack) { .class = CAN_ERR_ACK };
FIXTURE_VARIANT_ADD(errclass, busoff) { .class = CAN_ERR_BUSOFF };
FIXTURE_VARIANT_ADD(errclass, buserror) { .class = CAN_ERR_BUSERROR };
FIXTURE_VARIANT_ADD(errclass, restarted) { .class = CAN_ERR_RESTARTED };
FIXTURE_VARIANT_ADD(errclass, cnt) { .class = CAN_ERR_CNT };

TEST_F(errclass, err_mask_receives_only_its_error_class)
{
	can_err_mask_t other = variant->class == CAN_ERR_BUSOFF ?
			       CAN_ERR_CRTL : CAN_ERR_BUSOFF;

	ASSERT_EQ(0, ct_set_err_mask(self->b.rx, variant->class));
	EXPECT_EQ(1, passes(&self->b, CAN_ERR_FLAG | variant->class));
	EXPECT_EQ(0, passes(&self->b, CAN_ERR_FLAG | other));
	/* one of several classes in the frame is enough */
	EXPECT_EQ(1, passes(&self->b, CAN_ERR_FLAG | other | variant->class));
}

TEST_F(errclass, err_mask_does_not_replace_data_filters)
{
	struct can_filter f = { 0x123, CAN_SFF_MASK };

	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	ASSERT_EQ(0, ct_set_err_mask(self->b.rx, variant->class));
	EXPECT_EQ(1, passes(&self->b, 0x123));
	EXPECT_EQ(0, passes(&self->b, 0x124));
	EXPECT_EQ(1, passes(&self->b, CAN_ERR_FLAG | variant->class));
}

/* A filter on error frames and the error mask: two subscriptions that
 * match the same frame, set up before bind.
 */
TEST_F(errclass, error_filter_and_err_mask_deliver_an_error_frame_once)
{
	struct can_filter f = { 0, CAN_ERR_FLAG | variant->class };
	int fd = ct_raw_socket();

	ASSERT_LE(0, fd);
	close(self->b.rx);
	self->b.rx = fd;
	ASSERT_EQ(0, ct_set_filters(self->b.rx, &f, 1));
	ASSERT_EQ(0, ct_set_err_mask(self->b.rx, variant->class));
	ASSERT_EQ(0, ct_bind(self->b.rx, self->b.ifindex));
	EXPECT_EQ(1, passes(&self->b, CAN_ERR_FLAG | variant->class));
	EXPECT_TRUE(ct_is_quiet(self->b.rx));
}

TEST_F(errclass, cleared_err_mask_stops_error_frames)
{
	ASSERT_EQ(0, ct_set_err_mask(self->b.rx, variant->class));
	ASSERT_EQ(0, ct_set_err_mask(self->b.rx, 0));
	EXPECT_EQ(0, passes(&self->b, CAN_ERR_FLAG | variant->class));
}

/*
 * Filter swap under traffic: a sender streams numbered frames with
 * flow control, a reader checks the numbers, and the main thread keeps
 * replacing the table with others that also accept the frames.
 */
#define SWAP_FRAMES	3000
#define SWAP_WINDOW	64

struct swap_ctx {
	int tx, rx;
	atomic_int received;
	atomic_int stop;
	int lost, dup, bad;
};

static void *swap_reader(void *arg)
{
	struct swap_ctx *c = arg;
	unsigned int expect = 0, seq;
	struct can_frame cf;

	while (!atomic_load(&c->stop) && expect < SWAP_FRAMES) {
		if (ct_recv(c->rx, &cf, sizeof(cf), 200, NULL, NULL) != CAN_MTU)
			continue;
		if (cf.can_id != 0x100 || cf.len != 4) {
			c->bad++;
			continue;
		}
		memcpy(&seq, cf.data, sizeof(seq));
		if (seq < expect)
			c->dup++;
		else if (seq > expect)
			c->lost += seq - expect;
		if (seq >= expect)
			expect = seq + 1;
		atomic_fetch_add(&c->received, 1);
	}
	return NULL;
}

static void *swap_sender(void *arg)
{
	struct swap_ctx *c = arg;
	struct can_frame cf = { .can_id = 0x100, .len = 4 };
	unsigned int seq;
	long long deadline;

	for (seq = 0; seq < SWAP_FRAMES && !atomic_load(&c->stop); seq++) {
		deadline = ct_now_ns(CLOCK_MONOTONIC) + 5000000000LL;
		/* do not outrun the reader: overflow drops are not the point */
		while ((int)seq - atomic_load(&c->received) > SWAP_WINDOW &&
		       ct_now_ns(CLOCK_MONOTONIC) < deadline)
			poll(NULL, 0, 1);
		memcpy(cf.data, &seq, sizeof(seq));
		if (write(c->tx, &cf, sizeof(cf)) != sizeof(cf))
			c->bad++;
	}
	return NULL;
}

TEST_F_TIMEOUT(filter, filter_swap_under_traffic_loses_and_duplicates_nothing, 120)
{
	/* each table accepts id 0x100, each from a different list */
	static const struct can_filter tables[4][2] = {
		{ { 0x100, CAN_SFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG } },
		{ { 0x100, 0x700 } },
		{ { 0x100, CAN_SFF_MASK }, { 0, 0 } },
		{ { 0x200 | CAN_INV_FILTER, CAN_SFF_MASK } },
	};
	static const int counts[4] = { 1, 1, 2, 1 };
	struct swap_ctx c = { .tx = self->b.tx, .rx = self->b.rx };
	pthread_t reader, sender;
	long long deadline;
	int swaps = 0;

	ASSERT_EQ(0, ct_set_filters(self->b.witness, NULL, 0));
	ASSERT_EQ(0, ct_set_err_mask(self->b.witness, 0));
	ASSERT_EQ(0, pthread_create(&reader, NULL, swap_reader, &c));
	ASSERT_EQ(0, pthread_create(&sender, NULL, swap_sender, &c));

	deadline = ct_now_ns(CLOCK_MONOTONIC) + 60000000000LL;
	while (atomic_load(&c.received) < SWAP_FRAMES &&
	       ct_now_ns(CLOCK_MONOTONIC) < deadline) {
		int t = swaps++ % 4;

		if (ct_set_filters(self->b.rx, tables[t], counts[t]))
			c.bad++;
	}
	/* the reader gives up 200 ms after the last frame arrived */
	deadline = ct_now_ns(CLOCK_MONOTONIC) + 2000000000LL;
	while (atomic_load(&c.received) < SWAP_FRAMES &&
	       ct_now_ns(CLOCK_MONOTONIC) < deadline)
		poll(NULL, 0, 10);
	atomic_store(&c.stop, 1);
	pthread_join(sender, NULL);
	pthread_join(reader, NULL);

	TH_LOG("%d swaps during %d frames", swaps, SWAP_FRAMES);
	EXPECT_LT(10, swaps);
	EXPECT_EQ(SWAP_FRAMES, atomic_load(&c.received));
	EXPECT_EQ(0, c.lost);
	EXPECT_EQ(0, c.dup);
	EXPECT_EQ(0, c.bad);
}

TEST_HARNESS_MAIN
