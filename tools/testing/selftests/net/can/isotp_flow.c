// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_ISOTP flow control against a peer played by hand on CAN_RAW: the
 * sender waits for flow control, honours block size, STmin (or its own
 * forced STmin and frame gap), wait frames, and ends the transfer with
 * mainline's errno on overflow, a malformed flow control or a time-out;
 * the receiver answers with its own block size and STmin, asks again
 * after each block, and reports a wrong sequence number or a missing
 * consecutive frame.
 */

#include <pthread.h>
#include <signal.h>

#include "lib/can_test_isotp.h"
#include "kselftest_harness.h"

FIXTURE(flow) {
	char ifname[IFNAMSIZ];
	int ifindex;
	int raw;	/* the peer: sends on IT_RX_ID, sees IT_TX_ID */
	unsigned char buf[IT_MAX_MSG];
};

FIXTURE_SETUP(flow)
{
	ct_ifname(self->ifname, 'f');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	self->ifindex = if_nametoindex(self->ifname);
	self->raw = it_raw_open_stamped(self->ifindex, IT_TX_ID);
	ASSERT_LE(0, self->raw);
	it_fill(self->buf, sizeof(self->buf), 1);
}

FIXTURE_TEARDOWN(flow)
{
	close(self->raw);
	ct_link_del(self->ifname);
}

/* An ISO-TP socket sending on IT_TX_ID with @flags and no frame gap. */
static int flow_sender(struct _test_data_flow *self, __u32 flags)
{
	struct it_opts o = { .set_opts = true };

	o.opt.flags = flags;
	o.opt.frame_txtime = CAN_ISOTP_FRAME_TXTIME_ZERO;
	return it_open(self->ifindex, IT_RX_ID, IT_TX_ID, &o);
}

/* Consecutive frames that arrive within @ms of each other. */
static int count_cfs(int raw, int ms)
{
	struct canfd_frame cf;
	int n = 0;

	while (it_raw_recv(raw, &cf, ms) > 0 && (cf.data[0] & 0xF0) == 0x20)
		n++;
	return n;
}

TEST_F(flow, sender_waits_for_flow_control_before_consecutive_frames)
{
	struct canfd_frame cf;
	int s = flow_sender(self, 0);

	ASSERT_LE(0, s);
	ASSERT_EQ(0, it_send(s, self->buf, 20));
	ASSERT_EQ(CAN_MTU, it_raw_recv(self->raw, &cf, 1000));
	EXPECT_EQ(0x10, cf.data[0]);
	EXPECT_EQ(20, cf.data[1]);
	EXPECT_TRUE(ct_is_quiet(self->raw));
	ASSERT_EQ(0, it_raw_send_fc(self->raw, IT_RX_ID, 0, 0, 0));
	ASSERT_EQ(CAN_MTU, it_raw_recv(self->raw, &cf, 1000));
	EXPECT_EQ(0x21, cf.data[0]);
	ASSERT_EQ(CAN_MTU, it_raw_recv(self->raw, &cf, 1000));
	EXPECT_EQ(0x22, cf.data[0]);
	EXPECT_EQ(8, cf.len);
	EXPECT_TRUE(ct_is_quiet(self->raw));
	close(s);
}

TEST_F(flow, sender_sends_one_block_per_flow_control)
{
	struct canfd_frame cf;
	int s = flow_sender(self, 0);

	ASSERT_LE(0, s);
	/* 6 bytes in the first frame, then 14 consecutive frames */
	ASSERT_EQ(0, it_send(s, self->buf, 6 + 14 * 7));
	ASSERT_EQ(CAN_MTU, it_raw_recv(self->raw, &cf, 1000));
	ASSERT_EQ(0, it_raw_send_fc(self->raw, IT_RX_ID, 0, 3, 0));
	EXPECT_EQ(3, count_cfs(self->raw, 300));
	ASSERT_EQ(0, it_raw_send_fc(self->raw, IT_RX_ID, 0, 3, 0));
	EXPECT_EQ(3, count_cfs(self->raw, 300));
	/* BS and STmin come from the first flow control only */
	ASSERT_EQ(0, it_raw_send_fc(self->raw, IT_RX_ID, 0, 10, 0));
	EXPECT_EQ(3, count_cfs(self->raw, 300));
	ASSERT_EQ(0, it_raw_send_fc(self->raw, IT_RX_ID, 0, 0, 0));
	EXPECT_EQ(3, count_cfs(self->raw, 300));
	ASSERT_EQ(0, it_raw_send_fc(self->raw, IT_RX_ID, 0, 0, 0));
	EXPECT_EQ(2, count_cfs(self->raw, 300));
	close(s);
}

/* Smallest gap between the @n consecutive frames after a flow control,
 * by the kernel's arrival stamps (user space may read two late frames
 * at once). @raw comes from it_raw_open_stamped().
 */
static long long min_gap_ns(int raw, int n)
{
	long long last = 0, now, min = -1;
	int i;

	for (i = 0; i < n; i++) {
		now = it_recv_stamped(raw, 2000);
		if (now < 0)
			return -1;
		if (last && (min < 0 || now - last < min))
			min = now - last;
		last = now;
	}
	return min;
}

/* Stamps are taken a little after sending, at varying delays: 10%. */
static void expect_gap(struct __test_metadata *_metadata, long long got,
		       long long want)
{
	EXPECT_LE(want - want / 10, got) TH_LOG("gap %lld ns, want %lld", got, want);
}

TEST_F(flow, sender_spaces_frames_by_the_peers_stmin_in_ms)
{
	int s = flow_sender(self, 0);
	struct canfd_frame cf;

	ASSERT_LE(0, s);
	ASSERT_EQ(0, it_send(s, self->buf, 6 + 5 * 7));
	ASSERT_EQ(CAN_MTU, it_raw_recv(self->raw, &cf, 1000));
	ASSERT_EQ(0, it_raw_send_fc(self->raw, IT_RX_ID, 0, 0, 20));
	expect_gap(_metadata, min_gap_ns(self->raw, 5), 20000000);
	close(s);
}

TEST_F(flow, sender_takes_reserved_stmin_as_127_ms)
{
	int s = flow_sender(self, 0);
	struct canfd_frame cf;

	ASSERT_LE(0, s);
	ASSERT_EQ(0, it_send(s, self->buf, 6 + 2 * 7));
	ASSERT_EQ(CAN_MTU, it_raw_recv(self->raw, &cf, 1000));
	ASSERT_EQ(0, it_raw_send_fc(self->raw, IT_RX_ID, 0, 0, 0x80));
	expect_gap(_metadata, min_gap_ns(self->raw, 2), 127000000);
	close(s);
}

TEST_F(flow, forced_tx_stmin_and_frame_gap_override_the_peer)
{
	struct it_opts o = { .set_opts = true, .tx_stmin = 15000000 };
	struct canfd_frame cf;
	int s;

	o.opt.flags = CAN_ISOTP_FORCE_TXSTMIN;
	o.opt.frame_txtime = 5000000;
	s = it_open(self->ifindex, IT_RX_ID, IT_TX_ID, &o);
	ASSERT_LE(0, s);
	ASSERT_EQ(0, it_send(s, self->buf, 6 + 4 * 7));
	ASSERT_EQ(CAN_MTU, it_raw_recv(self->raw, &cf, 1000));
	ASSERT_EQ(0, it_raw_send_fc(self->raw, IT_RX_ID, 0, 0, 0x7F));
	expect_gap(_metadata, min_gap_ns(self->raw, 4), 20000000);
	close(s);
}

TEST_F(flow, wait_frame_holds_the_sender_until_clear_to_send)
{
	int s = flow_sender(self, 0);
	struct canfd_frame cf;

	ASSERT_LE(0, s);
	ASSERT_EQ(0, it_send(s, self->buf, 20));
	ASSERT_EQ(CAN_MTU, it_raw_recv(self->raw, &cf, 1000));
	ASSERT_EQ(0, it_raw_send_fc(self->raw, IT_RX_ID, 1, 0, 0));
	EXPECT_TRUE(ct_is_quiet(self->raw));
	ASSERT_EQ(0, it_raw_send_fc(self->raw, IT_RX_ID, 0, 0, 0));
	EXPECT_EQ(2, count_cfs(self->raw, 300));
	EXPECT_EQ(0, ct_sock_error(s));
	close(s);
}

/* Send from another thread, which blocks with CAN_ISOTP_WAIT_TX_DONE. */
struct sender {
	pthread_t thread;
	int s;
	const void *buf;
	size_t len;
	int err;
};

static void *sender_run(void *arg)
{
	struct sender *t = arg;

	t->err = it_send(t->s, t->buf, t->len);
	return NULL;
}

static int wait_tx_done_outcome(struct _test_data_flow *self, int status, int len)
{
	struct sender t = { .buf = self->buf, .len = 20 };
	struct canfd_frame cf;

	t.s = flow_sender(self, CAN_ISOTP_WAIT_TX_DONE);
	if (t.s < 0)
		return t.s;
	pthread_create(&t.thread, NULL, sender_run, &t);
	if (it_raw_recv(self->raw, &cf, 1000) > 0 && status >= 0) {
		unsigned char d[3] = { 0x30 | status, 0, 0 };

		raw_send(self->raw, IT_RX_ID, d, len, false);
	}
	pthread_join(t.thread, NULL);
	close(t.s);
	return t.err;
}

TEST_F(flow, overflow_flow_control_fails_send_emsgsize)
{
	EXPECT_EQ(-EMSGSIZE, wait_tx_done_outcome(self, 2, 3));
}

TEST_F(flow, reserved_flow_status_fails_send_ebadmsg)
{
	EXPECT_EQ(-EBADMSG, wait_tx_done_outcome(self, 3, 3));
	EXPECT_EQ(-EBADMSG, wait_tx_done_outcome(self, 0xF, 3));
}

TEST_F(flow, short_flow_control_fails_send_ebadmsg)
{
	EXPECT_EQ(-EBADMSG, wait_tx_done_outcome(self, 0, 2));
}

TEST_F(flow, missing_flow_control_fails_send_ecomm)
{
	long long t0 = ct_now_ns(CLOCK_MONOTONIC);

	EXPECT_EQ(-ECOMM, wait_tx_done_outcome(self, -1, 0));
	EXPECT_LE(900000000LL, ct_now_ns(CLOCK_MONOTONIC) - t0);
}

TEST_F(flow, clear_to_send_completes_wait_tx_done)
{
	EXPECT_EQ(0, wait_tx_done_outcome(self, 0, 3));
}

TEST_F(flow, missing_flow_control_sets_socket_error_ecomm)
{
	int s = flow_sender(self, 0);

	ASSERT_LE(0, s);
	ASSERT_EQ(0, it_send(s, self->buf, 20));
	EXPECT_TRUE(ct_wait_pollerr(s, 3000));
	EXPECT_EQ(ECOMM, ct_sock_error(s));
	/* idle again: the next message goes out */
	ASSERT_EQ(0, it_send(s, self->buf, 3));
	close(s);
}

TEST_F(flow, busy_sender_refuses_nonblocking_send_and_is_not_writable)
{
	struct pollfd pfd = { .events = POLLOUT };
	int s = flow_sender(self, 0);

	ASSERT_LE(0, s);
	ASSERT_EQ(0, it_send(s, self->buf, 20));
	EXPECT_EQ(-1, send(s, self->buf, 3, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	pfd.fd = s;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, it_raw_send_fc(self->raw, IT_RX_ID, 0, 0, 0));
	EXPECT_EQ(1, poll(&pfd, 1, 2000));
	close(s);
}

TEST_F(flow, cf_broadcast_sends_everything_without_flow_control)
{
	struct canfd_frame cf;
	int s = flow_sender(self, CAN_ISOTP_CF_BROADCAST);

	ASSERT_LE(0, s);
	ASSERT_EQ(0, it_send(s, self->buf, 6 + 20 * 7));
	ASSERT_EQ(CAN_MTU, it_raw_recv(self->raw, &cf, 1000));
	EXPECT_EQ(0x10, cf.data[0]);
	EXPECT_EQ(20, count_cfs(self->raw, 500));
	close(s);
}

TEST_F(flow, sf_broadcast_sends_single_frames_and_hears_nothing)
{
	struct canfd_frame cf;
	int s = flow_sender(self, CAN_ISOTP_SF_BROADCAST);
	unsigned char sf[8] = { 0x01, 0xAA };

	ASSERT_LE(0, s);
	ASSERT_EQ(0, it_send(s, self->buf, 7));
	ASSERT_EQ(CAN_MTU, it_raw_recv(self->raw, &cf, 1000));
	EXPECT_EQ(0x07, cf.data[0]);
	ASSERT_EQ(0, raw_send(self->raw, IT_RX_ID, sf, 2, false));
	EXPECT_TRUE(ct_is_quiet(s));
	close(s);
}

/* ---- receiving ---- */

FIXTURE(rx) {
	char ifname[IFNAMSIZ];
	int ifindex;
	int raw;	/* the peer: sends on IT_TX_ID, sees IT_RX_ID */
	int s;
	unsigned char msg[IT_MAX_MSG + 1];
};

FIXTURE_SETUP(rx)
{
	ct_ifname(self->ifname, 'r');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	self->ifindex = if_nametoindex(self->ifname);
	self->raw = it_raw_open(self->ifindex, IT_RX_ID);
	ASSERT_LE(0, self->raw);
	self->s = -1;
}

FIXTURE_TEARDOWN(rx)
{
	if (self->s >= 0)
		close(self->s);
	close(self->raw);
	ct_link_del(self->ifname);
}

static int rx_open(struct _test_data_rx *self, struct it_opts *o)
{
	self->s = it_open(self->ifindex, IT_TX_ID, IT_RX_ID, o);
	return self->s < 0 ? self->s : 0;
}

static int send8(int raw, const unsigned char *d)
{
	return raw_send(raw, IT_TX_ID, d, 8, false);
}

static const unsigned char ff20[8] = { 0x10, 20, 1, 2, 3, 4, 5, 6 };
static const unsigned char cf1[8] = { 0x21, 7, 8, 9, 10, 11, 12, 13 };
static const unsigned char cf2[8] = { 0x22, 14, 15, 16, 17, 18, 19, 20 };

TEST_F(rx, receiver_answers_with_its_block_size_and_stmin)
{
	struct it_opts o = { .set_fc = true, .fc = { 2, 0xF3, 0 } };
	struct canfd_frame cf;

	ASSERT_EQ(0, rx_open(self, &o));
	ASSERT_EQ(0, send8(self->raw, ff20));
	ASSERT_EQ(CAN_MTU, it_raw_recv(self->raw, &cf, 1000));
	EXPECT_EQ(3, cf.len);
	EXPECT_EQ(0x30, cf.data[0]);
	EXPECT_EQ(2, cf.data[1]);
	EXPECT_EQ(0xF3, cf.data[2]);
}

TEST_F(rx, receiver_asks_again_after_each_block)
{
	static const unsigned char ff[8] = { 0x10, 30, 1, 2, 3, 4, 5, 6 };
	struct it_opts o = { .set_fc = true, .fc = { 1, 0, 0 } };
	unsigned char c[8] = { 0x21 };
	struct canfd_frame cf;
	int i;

	ASSERT_EQ(0, rx_open(self, &o));
	ASSERT_EQ(0, send8(self->raw, ff));
	ASSERT_LT(0, it_raw_recv(self->raw, &cf, 1000));
	for (i = 1; i <= 3; i++) {
		c[0] = 0x20 | i;
		ASSERT_EQ(0, send8(self->raw, c));
		ASSERT_LT(0, it_raw_recv(self->raw, &cf, 1000)) TH_LOG("block %d", i);
		EXPECT_EQ(0x30, cf.data[0]);
	}
	c[0] = 0x24;
	ASSERT_EQ(0, send8(self->raw, c));
	EXPECT_EQ(30, it_recv(self->s, self->msg, sizeof(self->msg), 2000));
	/* the last frame ends the message: no further flow control */
	EXPECT_TRUE(ct_is_quiet(self->raw));
}

TEST_F(rx, message_from_first_and_consecutive_frames_arrives)
{
	int i;

	ASSERT_EQ(0, rx_open(self, NULL));
	ASSERT_EQ(0, send8(self->raw, ff20));
	ASSERT_EQ(0, send8(self->raw, cf1));
	ASSERT_EQ(0, send8(self->raw, cf2));
	ASSERT_EQ(20, it_recv(self->s, self->msg, sizeof(self->msg), 2000));
	for (i = 0; i < 20; i++)
		EXPECT_EQ(i + 1, self->msg[i]);
}

TEST_F(rx, wrong_sequence_number_reports_eilseq_and_drops)
{
	ASSERT_EQ(0, rx_open(self, NULL));
	ASSERT_EQ(0, send8(self->raw, ff20));
	ASSERT_EQ(0, send8(self->raw, cf2));
	EXPECT_TRUE(ct_wait_pollerr(self->s, 2000));
	EXPECT_EQ(EILSEQ, ct_sock_error(self->s));
	EXPECT_EQ(1, it_drops(self->s));
	ASSERT_EQ(0, send8(self->raw, cf1));
	EXPECT_EQ(-ETIMEDOUT, it_recv(self->s, self->msg, sizeof(self->msg), 100));
}

TEST_F(rx, missing_consecutive_frame_reports_etimedout)
{
	long long t0 = ct_now_ns(CLOCK_MONOTONIC);

	ASSERT_EQ(0, rx_open(self, NULL));
	ASSERT_EQ(0, send8(self->raw, ff20));
	ASSERT_EQ(0, send8(self->raw, cf1));
	EXPECT_TRUE(ct_wait_pollerr(self->s, 3000));
	EXPECT_EQ(ETIMEDOUT, ct_sock_error(self->s));
	EXPECT_LE(900000000LL, ct_now_ns(CLOCK_MONOTONIC) - t0);
}

TEST_F(rx, first_frame_beyond_66000_bytes_gets_overflow)
{
	static const unsigned char ff[8] = { 0x10, 0, 0, 1, 0x01, 0xD1, 1, 2 };
	struct canfd_frame cf;

	ASSERT_EQ(0, rx_open(self, NULL));
	ASSERT_EQ(0, send8(self->raw, ff));	/* 66001 bytes */
	ASSERT_LT(0, it_raw_recv(self->raw, &cf, 1000));
	EXPECT_EQ(0x32, cf.data[0]);
}

TEST_F(rx, listen_mode_receives_without_flow_control)
{
	struct it_opts o = { .set_opts = true };

	o.opt.flags = CAN_ISOTP_LISTEN_MODE;
	ASSERT_EQ(0, rx_open(self, &o));
	ASSERT_EQ(0, send8(self->raw, ff20));
	EXPECT_TRUE(ct_is_quiet(self->raw));
	ASSERT_EQ(0, send8(self->raw, cf1));
	ASSERT_EQ(0, send8(self->raw, cf2));
	EXPECT_EQ(20, it_recv(self->s, self->msg, sizeof(self->msg), 2000));
	EXPECT_TRUE(ct_is_quiet(self->raw));
}

TEST_F(rx, forced_rx_stmin_ignores_early_consecutive_frames)
{
	struct it_opts o = { .set_opts = true, .rx_stmin = 200000000 };

	o.opt.flags = CAN_ISOTP_FORCE_RXSTMIN;
	ASSERT_EQ(0, rx_open(self, &o));
	ASSERT_EQ(0, send8(self->raw, ff20));
	ASSERT_EQ(0, send8(self->raw, cf1));
	ASSERT_EQ(0, send8(self->raw, cf2));	/* too early: ignored */
	EXPECT_EQ(-ETIMEDOUT, it_recv(self->s, self->msg, sizeof(self->msg), 100));
	usleep(200000);
	ASSERT_EQ(0, send8(self->raw, cf2));
	EXPECT_EQ(20, it_recv(self->s, self->msg, sizeof(self->msg), 2000));
}

TEST_F(rx, bad_padding_content_reports_ebadmsg)
{
	static const unsigned char sf[8] = { 0x02, 1, 2, 0xCC, 0xCC, 0xCC, 0xCC, 0 };
	struct it_opts o = { .set_opts = true };

	o.opt.flags = CAN_ISOTP_RX_PADDING | CAN_ISOTP_CHK_PAD_DATA;
	o.opt.rxpad_content = 0xCC;
	ASSERT_EQ(0, rx_open(self, &o));
	ASSERT_EQ(0, send8(self->raw, sf));
	EXPECT_TRUE(ct_wait_pollerr(self->s, 2000));
	EXPECT_EQ(EBADMSG, ct_sock_error(self->s));
	EXPECT_EQ(-ETIMEDOUT, it_recv(self->s, self->msg, sizeof(self->msg), 50));
}

TEST_F(rx, unpadded_check_refuses_padded_frame)
{
	static const unsigned char sf[8] = { 0x02, 1, 2, 0xCC, 0xCC };
	struct it_opts o = { .set_opts = true };

	o.opt.flags = CAN_ISOTP_CHK_PAD_LEN;
	ASSERT_EQ(0, rx_open(self, &o));
	ASSERT_EQ(0, raw_send(self->raw, IT_TX_ID, sf, 3, false));
	EXPECT_EQ(2, it_recv(self->s, self->msg, sizeof(self->msg), 2000));
	ASSERT_EQ(0, raw_send(self->raw, IT_TX_ID, sf, 5, false));
	EXPECT_TRUE(ct_wait_pollerr(self->s, 2000));
	EXPECT_EQ(EBADMSG, ct_sock_error(self->s));
}

TEST_F(rx, extended_address_of_another_node_is_ignored)
{
	static const unsigned char other[8] = { 0x11, 0x02, 1, 2 };
	static const unsigned char mine[8] = { 0x22, 0x02, 3, 4 };
	struct it_opts o = { .set_opts = true };

	o.opt.flags = CAN_ISOTP_EXTEND_ADDR | CAN_ISOTP_RX_EXT_ADDR;
	o.opt.ext_address = 0x33;
	o.opt.rx_ext_address = 0x22;
	ASSERT_EQ(0, rx_open(self, &o));
	ASSERT_EQ(0, raw_send(self->raw, IT_TX_ID, other, 4, false));
	ASSERT_EQ(0, raw_send(self->raw, IT_TX_ID, mine, 4, false));
	ASSERT_EQ(2, it_recv(self->s, self->msg, sizeof(self->msg), 2000));
	EXPECT_EQ(3, self->msg[0]);
	EXPECT_EQ(0, it_drops(self->s));
}

TEST_F(rx, half_duplex_receiver_ignores_frames_while_sending)
{
	static const unsigned char sf[8] = { 0x02, 1, 2 };
	struct it_opts o = { .set_opts = true };
	struct canfd_frame cf;

	o.opt.flags = CAN_ISOTP_HALF_DUPLEX;
	ASSERT_EQ(0, rx_open(self, &o));
	ASSERT_EQ(0, it_send(self->s, self->msg, 20));	/* waits for FC */
	ASSERT_LT(0, it_raw_recv(self->raw, &cf, 1000));
	ASSERT_EQ(0, send8(self->raw, sf));
	EXPECT_EQ(-ETIMEDOUT, it_recv(self->s, self->msg, sizeof(self->msg), 100));
}

TEST_F(rx, first_frame_that_fits_a_single_frame_is_dropped)
{
	static const unsigned char ff[8] = { 0x10, 6, 1, 2, 3, 4, 5, 6 };

	ASSERT_EQ(0, rx_open(self, NULL));
	ASSERT_EQ(0, send8(self->raw, ff));
	EXPECT_TRUE(ct_is_quiet(self->raw));
	EXPECT_EQ(1, it_drops(self->s));
}

/* Every length of every PCI type and a few contents: nothing but drops,
 * errors and complete messages; afterwards the socket still works.
 */
TEST_F(rx, frames_of_every_length_and_type_leave_the_socket_working)
{
	static const unsigned char fill[] = { 0x00, 0x0F, 0x55, 0xFF };
	unsigned char d[8];
	int len, pci, f, n;

	ASSERT_EQ(0, rx_open(self, NULL));
	for (pci = 0; pci < 16; pci++)
		for (len = 0; len <= 8; len++)
			for (f = 0; f < 4; f++) {
				memset(d, fill[f], sizeof(d));
				d[0] = (pci << 4) | (fill[f] & 0x0F);
				ASSERT_EQ(0, raw_send(self->raw, IT_TX_ID,
						      d, len, false));
			}
	usleep(1100000);	/* all handled; a half-received one timed out */
	while (recv(self->s, self->msg, sizeof(self->msg), MSG_DONTWAIT) > 0 ||
	       errno != EAGAIN)
		;
	EXPECT_LT(0, it_drops(self->s));
	ASSERT_EQ(0, send8(self->raw, ff20));
	ASSERT_EQ(0, send8(self->raw, cf1));
	ASSERT_EQ(0, send8(self->raw, cf2));
	n = it_recv(self->s, self->msg, sizeof(self->msg), 2000);
	EXPECT_EQ(20, n);
}

TEST_HARNESS_MAIN
