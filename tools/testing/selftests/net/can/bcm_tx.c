// SPDX-License-Identifier: GPL-2.0
/*
 * Transmission through the broadcast manager, as another node on the bus
 * (a raw socket) sees it: TX_SEND, announcements, cycles, frame sequences,
 * updates of running operations, counts, TX_EXPIRED and TX_READ.
 */

#include <pthread.h>

#include "lib/can_test_bcm.h"
#include "kselftest_harness.h"

FIXTURE(tx) {
	char ifname[IFNAMSIZ];
	int ifindex;
	int s;
	int raw;
	struct bcm_msg m;
};

FIXTURE_VARIANT(tx) {
	bool fd;
};

FIXTURE_VARIANT_ADD(tx, classic) {
	.fd = false,
};

FIXTURE_VARIANT_ADD(tx, fd) {
	.fd = true,
};

FIXTURE_SETUP(tx)
{
	self->ifindex = vcan_create(self->ifname, 0);
	ASSERT_LT(0, self->ifindex);
	self->s = bcm_socket(self->ifindex);
	self->raw = raw_socket(self->ifindex);
	if (self->s < 0 || self->raw < 0)
		vcan_destroy(self->ifname);
	ASSERT_LE(0, self->s);
	ASSERT_LE(0, self->raw);
}

FIXTURE_TEARDOWN(tx)
{
	close(self->s);
	close(self->raw);
	vcan_destroy(self->ifname);
}

static __u32 fd_flag(const struct _fixture_variant_tx *variant)
{
	return variant->fd ? CAN_FD_FRAME : 0;
}

static int frame_size(const struct _fixture_variant_tx *variant)
{
	return variant->fd ? CANFD_MTU : CAN_MTU;
}

/* Frame @i of the message, with @len bytes of @fill; the right layout. */
static void put_frame(struct bcm_msg *m, const struct _fixture_variant_tx *variant,
		      unsigned int i, canid_t id, __u8 len, __u8 fill)
{
	if (variant->fd) {
		memset(&m->fd[i], 0, sizeof(m->fd[i]));
		m->fd[i].can_id = id;
		m->fd[i].len = len;
		memset(m->fd[i].data, fill, len);
	} else {
		memset(&m->cc[i], 0, sizeof(m->cc[i]));
		m->cc[i].can_id = id;
		m->cc[i].len = len;
		memset(m->cc[i].data, fill, len);
	}
}

static __u8 max_len(const struct _fixture_variant_tx *variant)
{
	return variant->fd ? 64 : 8;
}

/* Expect no frame on the bus for @ms. */
static int quiet_for(int raw, int ms)
{
	struct canfd_frame cf;

	return raw_read(raw, &cf, ms, NULL) == 0;
}

TEST_F(tx, tx_send_puts_one_frame_on_the_bus)
{
	struct canfd_frame cf;

	bcm_head(&self->m, TX_SEND, fd_flag(variant), 0x123, 1);
	put_frame(&self->m, variant, 0, 0x123, max_len(variant), 0xa5);
	ASSERT_EQ((int)sizeof(self->m.head) + frame_size(variant),
		  bcm_write(self->s, &self->m));

	ASSERT_EQ(frame_size(variant), raw_read(self->raw, &cf, 1000, NULL));
	EXPECT_EQ(0x123u, cf.can_id);
	EXPECT_EQ(max_len(variant), cf.len);
	EXPECT_EQ(0xa5, cf.data[max_len(variant) - 1]);
	EXPECT_TRUE(quiet_for(self->raw, 100));
	/* TX_SEND keeps no operation. */
	EXPECT_EQ(-EINVAL, bcm_request(self->s, TX_READ, fd_flag(variant), 0x123));
}

TEST_F(tx, fd_frame_on_classic_interface_fails_emsgsize)
{
	if (!variant->fd)
		SKIP(return, "classic frames fit every interface");
	/* The MTU of a CAN interface changes only while it is down. */
	ASSERT_EQ(0, run_cmd("ip link set %s down && ip link set %s mtu 16 && ip link set %s up",
			     self->ifname, self->ifname, self->ifname));
	bcm_head(&self->m, TX_SEND, CAN_FD_FRAME, 0x123, 1);
	put_frame(&self->m, variant, 0, 0x123, 12, 1);
	/* The core refuses a frame larger than the MTU. */
	EXPECT_EQ(-EMSGSIZE, bcm_write(self->s, &self->m));
}

TEST_F(tx, setup_without_timer_or_announce_sends_nothing)
{
	bcm_head(&self->m, TX_SETUP, fd_flag(variant), 0x123, 1);
	put_frame(&self->m, variant, 0, 0x123, 1, 1);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	EXPECT_TRUE(quiet_for(self->raw, 200));
}

TEST_F(tx, announce_sends_one_frame_at_once)
{
	struct canfd_frame cf;

	bcm_head(&self->m, TX_SETUP, TX_ANNOUNCE | fd_flag(variant), 0x123, 1);
	put_frame(&self->m, variant, 0, 0x123, 3, 7);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	ASSERT_EQ(frame_size(variant), raw_read(self->raw, &cf, 1000, NULL));
	EXPECT_EQ(7, cf.data[2]);
	EXPECT_TRUE(quiet_for(self->raw, 200));
}

TEST_F(tx, cyclic_op_repeats_its_frame)
{
	struct canfd_frame cf;
	int i;

	bcm_head(&self->m, TX_SETUP, SETTIMER | STARTTIMER | fd_flag(variant),
		 0x123, 1);
	self->m.head.ival2 = bcm_us(10000);
	put_frame(&self->m, variant, 0, 0x123, 2, 9);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(frame_size(variant), raw_read(self->raw, &cf, 1000, NULL));
		EXPECT_EQ(0x123u, cf.can_id);
	}
}

TEST_F(tx, delete_stops_the_cycle)
{
	struct canfd_frame cf;

	bcm_head(&self->m, TX_SETUP, SETTIMER | STARTTIMER | fd_flag(variant),
		 0x123, 1);
	self->m.head.ival2 = bcm_us(5000);
	put_frame(&self->m, variant, 0, 0x123, 1, 1);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	ASSERT_LT(0, raw_read(self->raw, &cf, 1000, NULL));

	ASSERT_EQ((int)sizeof(self->m.head),
		  bcm_request(self->s, TX_DELETE, fd_flag(variant), 0x123));
	drain(self->raw);
	EXPECT_TRUE(quiet_for(self->raw, 200));
	EXPECT_EQ(-EINVAL, bcm_request(self->s, TX_READ, fd_flag(variant), 0x123));
}

TEST_F(tx, settimer_with_zero_intervals_stops_the_cycle)
{
	struct canfd_frame cf;

	bcm_head(&self->m, TX_SETUP, SETTIMER | STARTTIMER | fd_flag(variant),
		 0x123, 1);
	self->m.head.ival2 = bcm_us(5000);
	put_frame(&self->m, variant, 0, 0x123, 1, 1);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	ASSERT_LT(0, raw_read(self->raw, &cf, 1000, NULL));

	self->m.head.flags = SETTIMER | fd_flag(variant);
	self->m.head.ival2 = bcm_us(0);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	drain(self->raw);
	EXPECT_TRUE(quiet_for(self->raw, 200));
}

TEST_F(tx, cp_can_id_gives_frames_the_head_id)
{
	struct canfd_frame cf;

	bcm_head(&self->m, TX_SETUP,
		 TX_ANNOUNCE | TX_CP_CAN_ID | fd_flag(variant),
		 0x80001234 /* EFF */, 1);
	put_frame(&self->m, variant, 0, 0x7ff, 1, 1);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	ASSERT_LT(0, raw_read(self->raw, &cf, 1000, NULL));
	EXPECT_EQ(0x80001234, cf.can_id);
}

TEST_F(tx, sequence_of_frames_goes_out_in_order)
{
	struct canfd_frame cf;
	int i;

	bcm_head(&self->m, TX_SETUP, SETTIMER | STARTTIMER | fd_flag(variant),
		 0x123, 3);
	self->m.head.ival2 = bcm_us(5000);
	for (i = 0; i < 3; i++)
		put_frame(&self->m, variant, i, 0x123, 1, i);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	for (i = 0; i < 9; i++) {
		ASSERT_LT(0, raw_read(self->raw, &cf, 1000, NULL));
		EXPECT_EQ(i % 3, cf.data[0]);
	}
}

/* Without a timer, each TX_ANNOUNCE shows where the sequence stands. */
static int announce(struct __test_metadata *_metadata, int s, int raw,
		    struct bcm_msg *m, const struct _fixture_variant_tx *variant,
		    __u32 flags, unsigned int n, __u8 base)
{
	struct canfd_frame cf;
	unsigned int i;

	bcm_head(m, TX_SETUP, TX_ANNOUNCE | flags | fd_flag(variant), 0x123, n);
	for (i = 0; i < n; i++)
		put_frame(m, variant, i, 0x123, 1, base + i);
	EXPECT_LT(0, bcm_write(s, m));
	if (raw_read(raw, &cf, 1000, NULL) <= 0)
		return -1;
	return cf.data[0];
}

TEST_F(tx, update_continues_the_sequence_unless_reset)
{
	int s = self->s, raw = self->raw;
	struct bcm_msg *m = &self->m;

	EXPECT_EQ(0x10, announce(_metadata, s, raw, m, variant, 0, 3, 0x10));
	/* New content, same length: the sequence goes on. */
	EXPECT_EQ(0x21, announce(_metadata, s, raw, m, variant, 0, 3, 0x20));
	EXPECT_EQ(0x32, announce(_metadata, s, raw, m, variant, 0, 3, 0x30));
	EXPECT_EQ(0x40, announce(_metadata, s, raw, m, variant, 0, 3, 0x40));
	EXPECT_EQ(0x50, announce(_metadata, s, raw, m, variant,
				 TX_RESET_MULTI_IDX, 3, 0x50));
	/* Fewer frames restart the sequence too. */
	EXPECT_EQ(0x61, announce(_metadata, s, raw, m, variant, 0, 3, 0x60));
	EXPECT_EQ(0x70, announce(_metadata, s, raw, m, variant, 0, 2, 0x70));
}

struct updater {
	int s;
	bool fd;
	bool stop;	/* set by the test, read by the updater */
};

static void *update_content(void *arg)
{
	struct updater *u = arg;
	struct bcm_msg m;
	int v;

	for (v = 1; v < 250 && !__atomic_load_n(&u->stop, __ATOMIC_RELAXED);
	     v++) {
		/* A frame of nothing but slab poison reads as an infoleak. */
		if (v == CT_POISON_BYTE)
			continue;
		bcm_head(&m, TX_SETUP, u->fd ? CAN_FD_FRAME : 0, 0x123, 1);
		memset(&m.fd[0], 0, sizeof(m.fd[0]));
		m.fd[0].can_id = 0x123;
		m.fd[0].len = u->fd ? 64 : 8;
		memset(m.fd[0].data, v, m.fd[0].len);
		if (bcm_write(u->s, &m) <= 0)
			break;
		usleep(1000);
	}
	return NULL;
}

TEST_F(tx, update_of_running_op_never_sends_a_mixed_frame)
{
	struct updater u = { .s = self->s, .fd = variant->fd };
	struct canfd_frame cf;
	int frames = 0, mixed = 0, backwards = 0, last = 0, i;
	pthread_t t;

	bcm_head(&self->m, TX_SETUP, SETTIMER | STARTTIMER | fd_flag(variant),
		 0x123, 1);
	self->m.head.ival2 = bcm_us(1000);
	put_frame(&self->m, variant, 0, 0x123, max_len(variant), 0);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	ASSERT_EQ(0, pthread_create(&t, NULL, update_content, &u));

	while (frames < 300 && raw_read(self->raw, &cf, 1000, NULL) > 0) {
		frames++;
		for (i = 1; i < cf.len; i++)
			mixed += cf.data[i] != cf.data[0];
		backwards += cf.data[0] < last;
		last = cf.data[0];
	}
	__atomic_store_n(&u.stop, true, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	EXPECT_EQ(300, frames);
	EXPECT_EQ(0, mixed);
	EXPECT_EQ(0, backwards);
	EXPECT_LT(1, last);
}

TEST_F(tx, countevt_reports_expiry_after_count_frames)
{
	struct canfd_frame cf;
	struct bcm_msg r;
	int n = 0;

	bcm_head(&self->m, TX_SETUP,
		 SETTIMER | STARTTIMER | TX_COUNTEVT | fd_flag(variant), 0x123, 1);
	self->m.head.count = 3;
	self->m.head.ival1 = bcm_us(10000);
	put_frame(&self->m, variant, 0, 0x123, 1, 1);
	ASSERT_LT(0, bcm_write(self->s, &self->m));

	ASSERT_LT(0, bcm_read(self->s, &r, 2000, NULL, NULL));
	EXPECT_EQ((unsigned int)TX_EXPIRED, r.head.opcode);
	EXPECT_EQ(0x123u, r.head.can_id);
	EXPECT_EQ(0u, r.head.count);
	EXPECT_EQ(0u, r.head.nframes);
	while (raw_read(self->raw, &cf, 200, NULL) > 0)
		n++;
	EXPECT_EQ(3, n);
	EXPECT_EQ(0, bcm_read(self->s, &r, 100, NULL, NULL));
}

TEST_F(tx, read_reports_settings_and_frames)
{
	struct bcm_msg r;
	int n;

	bcm_head(&self->m, TX_SETUP, SETTIMER | fd_flag(variant), 0x321, 2);
	self->m.head.count = 5;
	self->m.head.ival1 = bcm_us(1500000);
	self->m.head.ival2 = bcm_us(2000001);
	put_frame(&self->m, variant, 0, 0x321, 2, 0x11);
	put_frame(&self->m, variant, 1, 0x321, 3, 0x22);
	ASSERT_LT(0, bcm_write(self->s, &self->m));

	ASSERT_EQ((int)sizeof(r.head),
		  bcm_request(self->s, TX_READ, fd_flag(variant), 0x321));
	n = bcm_read(self->s, &r, 1000, NULL, NULL);
	ASSERT_EQ((int)sizeof(r.head) + 2 * frame_size(variant), n);
	EXPECT_EQ((unsigned int)TX_STATUS, r.head.opcode);
	EXPECT_EQ(SETTIMER | fd_flag(variant), r.head.flags);
	EXPECT_EQ(5u, r.head.count);
	EXPECT_EQ(1, r.head.ival1.tv_sec);
	EXPECT_EQ(500000, r.head.ival1.tv_usec);
	EXPECT_EQ(2, r.head.ival2.tv_sec);
	EXPECT_EQ(1, r.head.ival2.tv_usec);
	EXPECT_EQ(0x321u, r.head.can_id);
	EXPECT_EQ(2u, r.head.nframes);
	if (variant->fd) {
		EXPECT_EQ(3, r.fd[1].len);
		EXPECT_EQ(0x22, r.fd[1].data[2]);
	} else {
		EXPECT_EQ(3, r.cc[1].len);
		EXPECT_EQ(0x22, r.cc[1].data[2]);
	}
}

/* Enough operations that the socket indexes them (bcm_index.c). */
#define MANY_OPS 300

TEST_F(tx, many_operations_are_each_found_and_deleted_alone)
{
	struct bcm_msg r;
	canid_t id;
	__u8 byte;

	for (id = 0x100; id < 0x100 + MANY_OPS; id++) {
		bcm_head(&self->m, TX_SETUP, fd_flag(variant), id, 1);
		put_frame(&self->m, variant, 0, id, 1, id & 0xff);
		ASSERT_LT(0, bcm_write(self->s, &self->m));
	}
	/* Read back in another order than the one they were made in. */
	for (id = 0x100 + MANY_OPS - 1; id >= 0x100; id--) {
		ASSERT_EQ((int)sizeof(r.head),
			  bcm_request(self->s, TX_READ, fd_flag(variant), id));
		ASSERT_LT(0, bcm_read(self->s, &r, 1000, NULL, NULL));
		ASSERT_EQ(id, r.head.can_id);
		byte = variant->fd ? r.fd[0].data[0] : r.cc[0].data[0];
		ASSERT_EQ(id & 0xff, byte);
	}
	for (id = 0x100; id < 0x100 + MANY_OPS; id++) {
		ASSERT_EQ((int)sizeof(r.head),
			  bcm_request(self->s, TX_DELETE, fd_flag(variant), id));
		ASSERT_EQ(-EINVAL,
			  bcm_request(self->s, TX_READ, fd_flag(variant), id));
	}
	EXPECT_TRUE(quiet_for(self->raw, 100));
}

TEST_F(tx, every_sent_frame_counts_down)
{
	struct canfd_frame cf;
	struct bcm_msg r;

	bcm_head(&self->m, TX_SETUP, SETTIMER | TX_ANNOUNCE | fd_flag(variant),
		 0x123, 1);
	self->m.head.count = 5;
	self->m.head.ival1 = bcm_us(1000000);
	put_frame(&self->m, variant, 0, 0x123, 1, 1);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	ASSERT_LT(0, raw_read(self->raw, &cf, 1000, NULL));

	ASSERT_LT(0, bcm_request(self->s, TX_READ, fd_flag(variant), 0x123));
	ASSERT_LT(0, bcm_read(self->s, &r, 1000, NULL, NULL));
	EXPECT_EQ(4u, r.head.count);
}

TEST_F(tx, starttimer_flags_stay_in_status)
{
	struct bcm_msg r;

	bcm_head(&self->m, TX_SETUP, SETTIMER | STARTTIMER | fd_flag(variant),
		 0x123, 1);
	self->m.head.ival2 = bcm_us(1000000);
	put_frame(&self->m, variant, 0, 0x123, 1, 1);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	ASSERT_LT(0, bcm_request(self->s, TX_READ, fd_flag(variant), 0x123));
	ASSERT_LT(0, bcm_read(self->s, &r, 1000, NULL, NULL));
	EXPECT_EQ(SETTIMER | STARTTIMER | TX_ANNOUNCE | fd_flag(variant),
		  r.head.flags);
}

TEST_HARNESS_MAIN
