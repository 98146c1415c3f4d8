// SPDX-License-Identifier: GPL-2.0
/*
 * Receive filters of the broadcast manager: which frames reach the reader
 * as RX_CHANGED (identifier, content under a mask, multiplex slots, DLC),
 * timeouts, answers to remote requests, RX_READ and RX_DELETE, and
 * filters on all interfaces. A raw socket plays the other nodes.
 */

#include "lib/can_test_bcm.h"
#include "kselftest_harness.h"

FIXTURE(rx) {
	char ifname[IFNAMSIZ];
	int ifindex;
	int s;
	int raw;
	struct bcm_msg m;
	struct bcm_msg r;
};

FIXTURE_VARIANT(rx) {
	bool fd;
};

FIXTURE_VARIANT_ADD(rx, classic) {
	.fd = false,
};

FIXTURE_VARIANT_ADD(rx, fd) {
	.fd = true,
};

FIXTURE_SETUP(rx)
{
	int one = 1;

	self->ifindex = vcan_create(self->ifname, 0);
	ASSERT_LT(0, self->ifindex);
	self->s = bcm_socket(self->ifindex);
	self->raw = raw_socket(self->ifindex);
	if (self->s < 0 || self->raw < 0)
		vcan_destroy(self->ifname);
	ASSERT_LE(0, self->s);
	ASSERT_LE(0, self->raw);
	ASSERT_EQ(0, setsockopt(self->s, SOL_SOCKET, SO_TIMESTAMPNS,
				&one, sizeof(one)));
}

FIXTURE_TEARDOWN(rx)
{
	close(self->s);
	close(self->raw);
	vcan_destroy(self->ifname);
}

static __u32 fd_flag(const struct _fixture_variant_rx *variant)
{
	return variant->fd ? CAN_FD_FRAME : 0;
}

static int frame_size(const struct _fixture_variant_rx *variant)
{
	return variant->fd ? CANFD_MTU : CAN_MTU;
}

/* The data bytes of frame @i of a message, whatever its layout. */
static __u8 *frame_data(struct bcm_msg *m, const struct _fixture_variant_rx *variant,
			unsigned int i)
{
	return variant->fd ? m->fd[i].data : m->cc[i].data;
}

static __u8 *frame_len(struct bcm_msg *m, const struct _fixture_variant_rx *variant,
		       unsigned int i)
{
	return variant->fd ? &m->fd[i].len : &m->cc[i].len;
}

/* An RX_SETUP with @n zeroed frames; the caller fills in masks. */
static void rx_request(struct bcm_msg *m, const struct _fixture_variant_rx *variant,
		       __u32 flags, canid_t id, unsigned int n)
{
	bcm_head(m, RX_SETUP, flags | fd_flag(variant), id, n);
	memset(m->fd, 0, sizeof(m->fd));
}

/* Send @id with the given first bytes, padded with zeros to 8 bytes. */
static void inject(int raw, const struct _fixture_variant_rx *variant, canid_t id,
		   __u8 b0, __u8 b1, __u8 len)
{
	__u8 data[64] = { b0, b1 };

	raw_send(raw, id, data, len, variant->fd);
}

/* Read the next RX_CHANGED within @ms; return its data[0], or -1. */
static int next_change(int s, struct bcm_msg *r,
		       const struct _fixture_variant_rx *variant, int ms)
{
	if (bcm_read_op(s, r, RX_CHANGED, ms) <= 0)
		return -1;
	return frame_data(r, variant, 0)[0];
}

TEST_F(rx, filter_id_reports_every_frame)
{
	int i;

	rx_request(&self->m, variant, RX_FILTER_ID, 0x123, 0);
	ASSERT_EQ((int)sizeof(self->m.head), bcm_write(self->s, &self->m));
	for (i = 0; i < 3; i++)
		inject(self->raw, variant, 0x123, 0x42, 0, 8);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0x42, next_change(self->s, &self->r, variant, 1000));
	EXPECT_EQ(1u, self->r.head.nframes);
	EXPECT_EQ(0x123u, self->r.head.can_id);
}

TEST_F(rx, setup_without_frames_becomes_filter_id)
{
	rx_request(&self->m, variant, 0, 0x123, 0);
	ASSERT_EQ((int)sizeof(self->m.head), bcm_write(self->s, &self->m));
	ASSERT_LT(0, bcm_request(self->s, RX_READ, fd_flag(variant), 0x123));
	ASSERT_LT(0, bcm_read(self->s, &self->r, 1000, NULL, NULL));
	EXPECT_EQ((unsigned int)RX_STATUS, self->r.head.opcode);
	EXPECT_EQ(RX_FILTER_ID | fd_flag(variant), self->r.head.flags);
	EXPECT_EQ(0u, self->r.head.nframes);
}

TEST_F(rx, content_filter_reports_changes_of_masked_bits_only)
{
	rx_request(&self->m, variant, 0, 0x123, 1);
	frame_data(&self->m, variant, 0)[0] = 0xf0;
	ASSERT_LT(0, bcm_write(self->s, &self->m));

	inject(self->raw, variant, 0x123, 0x10, 0x01, 8);
	EXPECT_EQ(0x10, next_change(self->s, &self->r, variant, 1000));
	inject(self->raw, variant, 0x123, 0x10, 0x01, 8);
	inject(self->raw, variant, 0x123, 0x1f, 0x02, 8);
	EXPECT_EQ(-1, next_change(self->s, &self->r, variant, 200));
	inject(self->raw, variant, 0x123, 0x20, 0x03, 8);
	EXPECT_EQ(0x20, next_change(self->s, &self->r, variant, 1000));
	/* The report carries the whole frame, unmasked bytes too. */
	EXPECT_EQ(0x03, frame_data(&self->r, variant, 0)[1]);
}

TEST_F(rx, changed_message_names_interface_and_receive_time)
{
	struct timespec stamp = { 0 }, now;
	int ifindex = 0;
	int n;

	rx_request(&self->m, variant, RX_FILTER_ID, 0x123, 0);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	inject(self->raw, variant, 0x123, 1, 2, 5);
	n = bcm_read(self->s, &self->r, 1000, &ifindex, &stamp);
	ASSERT_EQ((int)sizeof(self->r.head) + frame_size(variant), n);
	clock_gettime(CLOCK_REALTIME, &now);
	EXPECT_EQ((unsigned int)RX_CHANGED, self->r.head.opcode);
	EXPECT_EQ(self->ifindex, ifindex);
	EXPECT_EQ(5, *frame_len(&self->r, variant, 0));
	EXPECT_LT(0, stamp.tv_sec);
	EXPECT_GE(ts_ns(&now), ts_ns(&stamp));
	EXPECT_GT(5LL * 1000000000, ts_ns(&now) - ts_ns(&stamp));
}

TEST_F(rx, check_dlc_reports_a_new_length)
{
	rx_request(&self->m, variant, RX_CHECK_DLC, 0x123, 1);
	frame_data(&self->m, variant, 0)[0] = 0xff;
	ASSERT_LT(0, bcm_write(self->s, &self->m));

	inject(self->raw, variant, 0x123, 7, 0, 8);
	EXPECT_EQ(7, next_change(self->s, &self->r, variant, 1000));
	inject(self->raw, variant, 0x123, 7, 0, 2);
	EXPECT_EQ(7, next_change(self->s, &self->r, variant, 1000));
	EXPECT_EQ(2, *frame_len(&self->r, variant, 0));
}

TEST_F(rx, new_length_alone_is_no_change_without_check_dlc)
{
	rx_request(&self->m, variant, 0, 0x123, 1);
	frame_data(&self->m, variant, 0)[0] = 0xff;
	ASSERT_LT(0, bcm_write(self->s, &self->m));

	inject(self->raw, variant, 0x123, 7, 0, 8);
	EXPECT_EQ(7, next_change(self->s, &self->r, variant, 1000));
	inject(self->raw, variant, 0x123, 7, 0, 2);
	EXPECT_EQ(-1, next_change(self->s, &self->r, variant, 200));
}

TEST_F(rx, multiplex_filter_keeps_one_state_per_mux_value)
{
	rx_request(&self->m, variant, 0, 0x123, 3);
	frame_data(&self->m, variant, 0)[0] = 0xff;	/* mux mask: byte 0 */
	frame_data(&self->m, variant, 1)[0] = 0x01;
	frame_data(&self->m, variant, 1)[1] = 0xff;	/* slot 1 watches byte 1 */
	frame_data(&self->m, variant, 2)[0] = 0x02;
	frame_data(&self->m, variant, 2)[1] = 0x0f;	/* slot 2: low nibble */
	ASSERT_LT(0, bcm_write(self->s, &self->m));

	inject(self->raw, variant, 0x123, 0x01, 0xa0, 8);
	EXPECT_EQ(0x01, next_change(self->s, &self->r, variant, 1000));
	inject(self->raw, variant, 0x123, 0x02, 0xa0, 8);
	EXPECT_EQ(0x02, next_change(self->s, &self->r, variant, 1000));
	/* Unchanged, unselected bits, unknown mux value: all quiet. */
	inject(self->raw, variant, 0x123, 0x01, 0xa0, 8);
	inject(self->raw, variant, 0x123, 0x02, 0xb0, 8);
	inject(self->raw, variant, 0x123, 0x03, 0x55, 8);
	EXPECT_EQ(-1, next_change(self->s, &self->r, variant, 200));
	inject(self->raw, variant, 0x123, 0x02, 0xb1, 8);
	EXPECT_EQ(0x02, next_change(self->s, &self->r, variant, 1000));
	EXPECT_EQ(0xb1, frame_data(&self->r, variant, 0)[1]);
	inject(self->raw, variant, 0x123, 0x01, 0xa1, 8);
	EXPECT_EQ(0x01, next_change(self->s, &self->r, variant, 1000));
}

TEST_F(rx, filter_sees_its_exact_identifier_only)
{
	rx_request(&self->m, variant, RX_FILTER_ID, 0x123, 0);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	inject(self->raw, variant, 0x124, 1, 0, 1);
	inject(self->raw, variant, 0x123 | CAN_EFF_FLAG, 2, 0, 1);
	inject(self->raw, variant, 0x123, 3, 0, 1);
	EXPECT_EQ(3, next_change(self->s, &self->r, variant, 1000));
	EXPECT_EQ(-1, next_change(self->s, &self->r, variant, 200));
}

TEST_F(rx, filter_ignores_frames_of_the_other_kind)
{
	FIXTURE_VARIANT(rx) other = { .fd = !variant->fd };

	rx_request(&self->m, variant, RX_FILTER_ID, 0x123, 0);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	inject(self->raw, &other, 0x123, 1, 0, 1);
	inject(self->raw, variant, 0x123, 2, 0, 1);
	EXPECT_EQ(2, next_change(self->s, &self->r, variant, 1000));
	EXPECT_EQ(-1, next_change(self->s, &self->r, variant, 200));
}

TEST_F(rx, timeout_is_reported_when_no_frame_comes)
{
	long long start = now_ns();

	rx_request(&self->m, variant, SETTIMER | STARTTIMER, 0x123, 0);
	self->m.head.ival1 = bcm_us(50000);
	ASSERT_LT(0, bcm_write(self->s, &self->m));

	ASSERT_LT(0, bcm_read(self->s, &self->r, 2000, NULL, NULL));
	EXPECT_EQ((unsigned int)RX_TIMEOUT, self->r.head.opcode);
	EXPECT_EQ(0x123u, self->r.head.can_id);
	EXPECT_EQ(0u, self->r.head.nframes);
	EXPECT_LE(50000000LL, now_ns() - start);
	/* The timeout is not periodic; a frame rearms it. */
	EXPECT_EQ(0, bcm_read(self->s, &self->r, 200, NULL, NULL));
}

TEST_F(rx, reception_rearms_the_timeout)
{
	int i;

	rx_request(&self->m, variant, RX_FILTER_ID | SETTIMER, 0x123, 0);
	self->m.head.ival1 = bcm_us(100000);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	/* No STARTTIMER: no timeout before the first frame. */
	EXPECT_EQ(0, bcm_read(self->s, &self->r, 250, NULL, NULL));

	for (i = 0; i < 10; i++) {
		inject(self->raw, variant, 0x123, i, 0, 1);
		EXPECT_EQ(i, next_change(self->s, &self->r, variant, 1000));
		usleep(20000);
	}
	ASSERT_LT(0, bcm_read(self->s, &self->r, 2000, NULL, NULL));
	EXPECT_EQ((unsigned int)RX_TIMEOUT, self->r.head.opcode);
}

TEST_F(rx, no_autotimer_reception_cancels_the_timeout)
{
	rx_request(&self->m, variant,
		   RX_FILTER_ID | SETTIMER | STARTTIMER | RX_NO_AUTOTIMER,
		   0x123, 0);
	self->m.head.ival1 = bcm_us(500000);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	inject(self->raw, variant, 0x123, 1, 0, 1);
	EXPECT_EQ(1, next_change(self->s, &self->r, variant, 1000));
	EXPECT_EQ(0, bcm_read(self->s, &self->r, 800, NULL, NULL));
}

/* A content filter with a timeout; the same frame before and after it. */
static int same_frame_across_timeout(struct __test_metadata *_metadata,
				     struct _test_data_rx *self,
				     const struct _fixture_variant_rx *variant,
				     __u32 flags)
{
	rx_request(&self->m, variant, SETTIMER | flags, 0x123, 1);
	self->m.head.ival1 = bcm_us(50000);
	frame_data(&self->m, variant, 0)[0] = 0xff;
	EXPECT_LT(0, bcm_write(self->s, &self->m));
	inject(self->raw, variant, 0x123, 9, 0, 8);
	EXPECT_EQ(9, next_change(self->s, &self->r, variant, 1000));
	EXPECT_LT(0, bcm_read_op(self->s, &self->r, RX_TIMEOUT, 2000));
	inject(self->raw, variant, 0x123, 9, 0, 8);
	return next_change(self->s, &self->r, variant, 300);
}

TEST_F(rx, announce_resume_reports_same_content_after_timeout)
{
	EXPECT_EQ(9, same_frame_across_timeout(_metadata, self, variant,
					       RX_ANNOUNCE_RESUME));
}

TEST_F(rx, same_content_after_timeout_is_no_change_by_default)
{
	EXPECT_EQ(-1, same_frame_across_timeout(_metadata, self, variant, 0));
}

TEST_F(rx, rtr_filter_answers_remote_requests)
{
	struct canfd_frame cf;

	if (variant->fd)
		SKIP(return, "CAN FD has no remote frames");
	rx_request(&self->m, variant, RX_RTR_FRAME, 0x123 | CAN_RTR_FLAG, 1);
	self->m.cc[0].can_id = 0x123 | CAN_RTR_FLAG;
	self->m.cc[0].len = 2;
	self->m.cc[0].data[0] = 0xaa;
	self->m.cc[0].data[1] = 0xbb;
	ASSERT_LT(0, bcm_write(self->s, &self->m));

	inject(self->raw, variant, 0x123, 0, 0, 0);	/* not a request */
	inject(self->raw, variant, 0x123 | CAN_RTR_FLAG, 0, 0, 0);
	ASSERT_EQ((int)CAN_MTU, raw_read(self->raw, &cf, 1000, NULL));
	EXPECT_EQ(0x123u, cf.can_id);
	EXPECT_EQ(2, cf.len);
	EXPECT_EQ(0xbb, cf.data[1]);
	EXPECT_EQ(0, raw_read(self->raw, &cf, 200, NULL));
	/* The filter answers; it does not report. */
	EXPECT_EQ(0, bcm_read(self->s, &self->r, 100, NULL, NULL));
}

TEST_F(rx, rtr_reply_takes_its_own_id_unless_cp_can_id)
{
	struct canfd_frame cf;

	if (variant->fd)
		SKIP(return, "CAN FD has no remote frames");
	rx_request(&self->m, variant, RX_RTR_FRAME, 0x123 | CAN_RTR_FLAG, 1);
	self->m.cc[0].can_id = 0x456;
	self->m.cc[0].len = 1;
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	inject(self->raw, variant, 0x123 | CAN_RTR_FLAG, 0, 0, 0);
	ASSERT_LT(0, raw_read(self->raw, &cf, 1000, NULL));
	EXPECT_EQ(0x456u, cf.can_id);

	self->m.head.flags |= TX_CP_CAN_ID;
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	inject(self->raw, variant, 0x123 | CAN_RTR_FLAG, 0, 0, 0);
	ASSERT_LT(0, raw_read(self->raw, &cf, 1000, NULL));
	EXPECT_EQ(0x123u, cf.can_id);
}

TEST_F(rx, read_reports_filter_settings_and_frames)
{
	int n;

	rx_request(&self->m, variant, SETTIMER | RX_CHECK_DLC, 0x7ff, 2);
	self->m.head.ival1 = bcm_us(3000000);
	self->m.head.ival2 = bcm_us(250000);
	frame_data(&self->m, variant, 0)[0] = 0xff;
	frame_data(&self->m, variant, 1)[0] = 0x05;
	ASSERT_EQ((int)sizeof(self->m.head) + 2 * frame_size(variant),
		  bcm_write(self->s, &self->m));

	ASSERT_EQ((int)sizeof(self->m.head),
		  bcm_request(self->s, RX_READ, fd_flag(variant), 0x7ff));
	n = bcm_read(self->s, &self->r, 1000, NULL, NULL);
	ASSERT_EQ((int)sizeof(self->r.head) + 2 * frame_size(variant), n);
	EXPECT_EQ((unsigned int)RX_STATUS, self->r.head.opcode);
	EXPECT_EQ(SETTIMER | RX_CHECK_DLC | fd_flag(variant),
		  self->r.head.flags);
	EXPECT_EQ(3, self->r.head.ival1.tv_sec);
	EXPECT_EQ(250000, self->r.head.ival2.tv_usec);
	EXPECT_EQ(2u, self->r.head.nframes);
	EXPECT_EQ(0x05, frame_data(&self->r, variant, 1)[0]);
}

TEST_F(rx, delete_ends_the_reports)
{
	rx_request(&self->m, variant, RX_FILTER_ID, 0x123, 0);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	inject(self->raw, variant, 0x123, 1, 0, 1);
	EXPECT_EQ(1, next_change(self->s, &self->r, variant, 1000));
	ASSERT_EQ((int)sizeof(self->m.head),
		  bcm_request(self->s, RX_DELETE, fd_flag(variant), 0x123));
	inject(self->raw, variant, 0x123, 2, 0, 1);
	EXPECT_EQ(-1, next_change(self->s, &self->r, variant, 200));
	EXPECT_EQ(-EINVAL, bcm_request(self->s, RX_DELETE, fd_flag(variant),
				       0x123));
}

TEST_F(rx, update_forgets_what_the_filter_saw)
{
	rx_request(&self->m, variant, 0, 0x123, 1);
	frame_data(&self->m, variant, 0)[0] = 0xff;
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	inject(self->raw, variant, 0x123, 4, 0, 8);
	EXPECT_EQ(4, next_change(self->s, &self->r, variant, 1000));
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	inject(self->raw, variant, 0x123, 4, 0, 8);
	EXPECT_EQ(4, next_change(self->s, &self->r, variant, 1000));
}

/*
 * Enough filters that the socket indexes them (bcm_index.c): each must
 * still be found by its own identifier and frame type, deleted alone,
 * and report only its own frames.
 */
#define MANY_OPS 300

TEST_F(rx, many_filters_are_each_found_and_deleted_alone)
{
	canid_t id;
	int n;

	for (id = 0x100; id < 0x100 + MANY_OPS; id++) {
		rx_request(&self->m, variant, RX_FILTER_ID, id, 0);
		ASSERT_LT(0, bcm_write(self->s, &self->m));
	}
	for (id = 0x100; id < 0x100 + MANY_OPS; id++) {
		ASSERT_EQ((int)sizeof(self->m.head),
			  bcm_request(self->s, RX_READ, fd_flag(variant), id));
		n = bcm_read(self->s, &self->r, 1000, NULL, NULL);
		ASSERT_EQ((int)sizeof(self->r.head), n);
		ASSERT_EQ(id, self->r.head.can_id);
	}
	/* Another frame type or identifier names no filter. */
	EXPECT_EQ(-EINVAL, bcm_request(self->s, RX_READ,
				       fd_flag(variant) ^ CAN_FD_FRAME, 0x100));
	EXPECT_EQ(-EINVAL, bcm_request(self->s, RX_READ, fd_flag(variant),
				       0x100 + MANY_OPS));

	for (id = 0x100; id < 0x100 + MANY_OPS; id += 2)
		ASSERT_EQ((int)sizeof(self->m.head),
			  bcm_request(self->s, RX_DELETE, fd_flag(variant), id));
	for (id = 0x100; id < 0x100 + MANY_OPS; id++)
		ASSERT_EQ((id & 1) ? (int)sizeof(self->m.head) : -EINVAL,
			  bcm_request(self->s, RX_READ, fd_flag(variant), id));
	drain(self->s);

	inject(self->raw, variant, 0x100, 1, 0, 1);
	inject(self->raw, variant, 0x101, 2, 0, 1);
	ASSERT_EQ(2, next_change(self->s, &self->r, variant, 1000));
	EXPECT_EQ(0x101u, self->r.head.can_id);
	EXPECT_EQ(-1, next_change(self->s, &self->r, variant, 200));
}

TEST_F(rx, classic_and_fd_filters_on_one_id_are_two_filters)
{
	canid_t id;

	/* Enough others that the lookup goes through the index. */
	for (id = 0x200; id < 0x240; id++) {
		bcm_head(&self->m, RX_SETUP, RX_FILTER_ID, id, 0);
		ASSERT_LT(0, bcm_write(self->s, &self->m));
	}
	bcm_head(&self->m, RX_SETUP, RX_FILTER_ID, 0x123, 0);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	bcm_head(&self->m, RX_SETUP, RX_FILTER_ID | CAN_FD_FRAME, 0x123, 0);
	ASSERT_LT(0, bcm_write(self->s, &self->m));

	/* Each variant deletes its own kind first, then the other. */
	ASSERT_EQ((int)sizeof(self->m.head),
		  bcm_request(self->s, RX_DELETE, fd_flag(variant), 0x123));
	EXPECT_EQ(-EINVAL,
		  bcm_request(self->s, RX_DELETE, fd_flag(variant), 0x123));
	EXPECT_EQ((int)sizeof(self->m.head),
		  bcm_request(self->s, RX_DELETE,
			      fd_flag(variant) ^ CAN_FD_FRAME, 0x123));
}

/* A socket connected to all interfaces, and two interfaces. */
FIXTURE(all) {
	char ifname[2][IFNAMSIZ];
	int ifindex[2];
	int raw[2];
	int s;
	struct bcm_msg m;
};

FIXTURE_SETUP(all)
{
	int i;

	for (i = 0; i < 2; i++) {
		self->ifindex[i] = vcan_create(self->ifname[i], i);
		self->raw[i] = raw_socket(self->ifindex[i]);
	}
	self->s = bcm_socket(0);
	if (self->s < 0 || self->raw[0] < 0 || self->raw[1] < 0) {
		vcan_destroy(self->ifname[0]);
		vcan_destroy(self->ifname[1]);
	}
	ASSERT_LE(0, self->s);
	ASSERT_LE(0, self->raw[0]);
	ASSERT_LE(0, self->raw[1]);
}

FIXTURE_TEARDOWN(all)
{
	int i;

	close(self->s);
	for (i = 0; i < 2; i++) {
		close(self->raw[i]);
		vcan_destroy(self->ifname[i]);
	}
}

TEST_F(all, filter_on_all_interfaces_names_the_source)
{
	int ifindex = 0;

	bcm_head(&self->m, RX_SETUP, RX_FILTER_ID, 0x123, 0);
	ASSERT_LT(0, bcm_write(self->s, &self->m));

	ASSERT_EQ(0, raw_send_byte(self->raw[1], 0x123, 1));
	ASSERT_LT(0, bcm_read(self->s, &self->m, 1000, &ifindex, NULL));
	EXPECT_EQ((unsigned int)RX_CHANGED, self->m.head.opcode);
	EXPECT_EQ(self->ifindex[1], ifindex);

	ASSERT_EQ(0, raw_send_byte(self->raw[0], 0x123, 2));
	ASSERT_LT(0, bcm_read(self->s, &self->m, 1000, &ifindex, NULL));
	EXPECT_EQ(self->ifindex[0], ifindex);
	EXPECT_EQ(2, self->m.cc[0].data[0]);
}

TEST_F(all, filter_with_timeout_follows_the_first_interface)
{
	int ifindex = 0;

	bcm_head(&self->m, RX_SETUP, RX_FILTER_ID | SETTIMER, 0x123, 0);
	self->m.head.ival1 = bcm_us(5000000);
	ASSERT_LT(0, bcm_write(self->s, &self->m));

	ASSERT_EQ(0, raw_send_byte(self->raw[0], 0x123, 1));
	ASSERT_LT(0, bcm_read(self->s, &self->m, 1000, &ifindex, NULL));
	EXPECT_EQ(self->ifindex[0], ifindex);
	ASSERT_EQ(0, raw_send_byte(self->raw[1], 0x123, 2));
	EXPECT_EQ(0, bcm_read(self->s, &self->m, 200, NULL, NULL));
}

TEST_HARNESS_MAIN
