// SPDX-License-Identifier: GPL-2.0
/*
 * What CAN_RAW hands out beside the frame: receive timestamps
 * (SO_TIMESTAMP, SO_TIMESTAMPNS, SIOCGSTAMP, SO_TIMESTAMPING for rx and
 * tx), the SO_RXQ_OVFL drop counter and the SO_MARK of the sender.
 */

#include <sys/time.h>
#include <time.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"

#ifndef SO_RCVMARK
#define SO_RCVMARK 75
#endif

FIXTURE(meta)
{
	char ifname[IFNAMSIZ];
	int ifindex;
	int tx;
	int rx;
};

FIXTURE_SETUP(meta)
{
	self->tx = -1;
	self->rx = -1;
	ct_ifname(self->ifname, 'm');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	self->ifindex = if_nametoindex(self->ifname);
	self->tx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->tx);
	self->rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->rx);
}

FIXTURE_TEARDOWN(meta)
{
	if (self->tx >= 0)
		close(self->tx);
	if (self->rx >= 0)
		close(self->rx);
	ct_link_del(self->ifname);
}

/* One frame with its control messages; returns the frame size or -err. */
struct rx_meta {
	struct can_frame cf;
	char control[512];
	struct msghdr msg;
};

static int recv_meta(int fd, struct rx_meta *m, int flags)
{
	struct iovec iov = { .iov_base = &m->cf, .iov_len = sizeof(m->cf) };
	ssize_t n;

	memset(&m->msg, 0, sizeof(m->msg));
	m->msg.msg_iov = &iov;
	m->msg.msg_iovlen = 1;
	m->msg.msg_control = m->control;
	m->msg.msg_controllen = sizeof(m->control);
	if (!(flags & MSG_ERRQUEUE) && !ct_wait_readable(fd, CT_RX_TIMEOUT_MS))
		return -ETIMEDOUT;
	n = recvmsg(fd, &m->msg, flags | MSG_DONTWAIT);
	return n < 0 ? -errno : n;
}

static void *find_cmsg(struct rx_meta *m, int level, int type)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(&m->msg); c; c = CMSG_NXTHDR(&m->msg, c))
		if (c->cmsg_level == level && c->cmsg_type == type)
			return CMSG_DATA(c);
	return NULL;
}

static long long tv_ns(const struct timeval *tv)
{
	return tv->tv_sec * 1000000000LL + tv->tv_usec * 1000LL;
}

static long long ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

TEST_F(meta, so_timestamp_is_present_monotonic_and_current)
{
	long long before, after, prev = 0, t;
	struct rx_meta m;
	struct timeval *tv;
	int i, on = 1;

	ASSERT_EQ(0, setsockopt(self->rx, SOL_SOCKET, SO_TIMESTAMP, &on, sizeof(on)));
	before = ct_now_ns(CLOCK_REALTIME) / 1000 * 1000;
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, ct_send(self->tx, 0x10 + i, 1));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(CAN_MTU, recv_meta(self->rx, &m, 0));
		tv = find_cmsg(&m, SOL_SOCKET, SO_TIMESTAMP);
		ASSERT_NE(NULL, tv);
		t = tv_ns(tv);
		EXPECT_LE(prev, t);
		prev = t;
	}
	after = ct_now_ns(CLOCK_REALTIME);
	EXPECT_LE(before, prev);
	EXPECT_GE(after, prev);
}

TEST_F(meta, so_timestampns_is_present_monotonic_and_current)
{
	long long before, after, prev = 0, t;
	struct rx_meta m;
	struct timespec *ts;
	int i, on = 1;

	ASSERT_EQ(0, setsockopt(self->rx, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)));
	before = ct_now_ns(CLOCK_REALTIME);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, ct_send(self->tx, 0x10 + i, 1));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(CAN_MTU, recv_meta(self->rx, &m, 0));
		ts = find_cmsg(&m, SOL_SOCKET, SO_TIMESTAMPNS);
		ASSERT_NE(NULL, ts);
		t = ts_ns(ts);
		EXPECT_LE(prev, t);
		prev = t;
	}
	after = ct_now_ns(CLOCK_REALTIME);
	EXPECT_LE(before, prev);
	EXPECT_GE(after, prev);
}

TEST_F(meta, no_timestamp_cmsg_unless_asked)
{
	struct rx_meta m;

	ASSERT_EQ(0, ct_send(self->tx, 0x10, 1));
	ASSERT_EQ(CAN_MTU, recv_meta(self->rx, &m, 0));
	EXPECT_EQ(NULL, find_cmsg(&m, SOL_SOCKET, SO_TIMESTAMP));
	EXPECT_EQ(NULL, find_cmsg(&m, SOL_SOCKET, SO_TIMESTAMPNS));
}

TEST_F(meta, siocgstamp_without_received_frame_fails_enoent)
{
	struct timeval tv;

	EXPECT_EQ(-1, ioctl(self->rx, SIOCGSTAMP, &tv));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(meta, siocgstamp_reports_last_frame_time)
{
	long long before, after;
	struct can_frame cf;
	struct timeval tv;
	struct timespec ts;

	before = ct_now_ns(CLOCK_REALTIME) / 1000 * 1000;
	ASSERT_EQ(0, ct_send(self->tx, 0x10, 1));
	ASSERT_EQ(CAN_MTU, ct_recv(self->rx, &cf, sizeof(cf), CT_RX_TIMEOUT_MS,
				   NULL, NULL));
	ASSERT_EQ(0, ioctl(self->rx, SIOCGSTAMP, &tv));
	ASSERT_EQ(0, ioctl(self->rx, SIOCGSTAMPNS, &ts));
	after = ct_now_ns(CLOCK_REALTIME);
	EXPECT_LE(before, tv_ns(&tv));
	EXPECT_GE(after, tv_ns(&tv));
	EXPECT_LE(before, ts_ns(&ts));
	EXPECT_GE(after, ts_ns(&ts));
	EXPECT_EQ(tv_ns(&tv) / 1000, ts_ns(&ts) / 1000);
}

TEST_F(meta, so_timestamping_reports_software_rx_time)
{
	int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	long long before, after;
	struct scm_timestamping *tss;
	struct rx_meta m;
	int tries;

	ASSERT_EQ(0, setsockopt(self->rx, SOL_SOCKET, SO_TIMESTAMPING,
				&flags, sizeof(flags)));
	/* The first SO_TIMESTAMPING socket turns receive stamping on from
	 * a work item (net_enable_timestamp()), so a frame sent right away
	 * may pass unstamped and carry no cmsg; 6.12 lost that race.
	 */
	for (tries = 0; tries < 50; tries++) {
		before = ct_now_ns(CLOCK_REALTIME);
		ASSERT_EQ(0, ct_send(self->tx, 0x10, 1));
		ASSERT_EQ(CAN_MTU, recv_meta(self->rx, &m, 0));
		after = ct_now_ns(CLOCK_REALTIME);
		tss = find_cmsg(&m, SOL_SOCKET, SO_TIMESTAMPING);
		if (tss)
			break;
		usleep(10000);
	}
	ASSERT_NE(NULL, tss);
	EXPECT_LE(before, ts_ns(&tss->ts[0]));
	EXPECT_GE(after, ts_ns(&tss->ts[0]));
}

TEST_F(meta, so_timestamping_reports_software_tx_time_on_error_queue)
{
	int flags = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	struct scm_timestamping *tss;
	struct sock_extended_err *ee;
	long long before, after;
	struct rx_meta m;

	ASSERT_EQ(0, setsockopt(self->tx, SOL_SOCKET, SO_TIMESTAMPING,
				&flags, sizeof(flags)));
	before = ct_now_ns(CLOCK_REALTIME);
	ASSERT_EQ(0, ct_send(self->tx, 0x10, 4));
	ASSERT_TRUE(ct_wait_pollerr(self->tx, CT_RX_TIMEOUT_MS));
	after = ct_now_ns(CLOCK_REALTIME);
	ASSERT_EQ(CAN_MTU, recv_meta(self->tx, &m, MSG_ERRQUEUE));
	EXPECT_EQ(0x10, m.cf.can_id);
	tss = find_cmsg(&m, SOL_SOCKET, SO_TIMESTAMPING);
	ASSERT_NE(NULL, tss);
	EXPECT_LE(before, ts_ns(&tss->ts[0]));
	EXPECT_GE(after, ts_ns(&tss->ts[0]));
	ee = find_cmsg(&m, SOL_CAN_RAW, SCM_CAN_RAW_ERRQUEUE);
	ASSERT_NE(NULL, ee);
	EXPECT_EQ(ENOMSG, ee->ee_errno);
	EXPECT_EQ(SO_EE_ORIGIN_TIMESTAMPING, ee->ee_origin);
	EXPECT_EQ(SCM_TSTAMP_SND, ee->ee_info);
}

TEST_F(meta, rxq_ovfl_counts_frames_dropped_on_full_queue)
{
	int on = 1, small = 0, sent = 64, got = 0, witness;
	struct rx_meta m;
	__u32 *drops;

	witness = ct_raw_open(self->ifindex);
	ASSERT_LE(0, witness);
	ASSERT_EQ(0, setsockopt(self->rx, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)));
	ASSERT_EQ(0, setsockopt(self->rx, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof(on)));

	for (int i = 0; i < sent; i++) {
		ASSERT_EQ(0, ct_send(self->tx, 0x10, 8));
		/* keep the witness from overflowing too */
		ASSERT_EQ(0x10, ct_recv_id(witness, CT_RX_TIMEOUT_MS));
	}
	while (ct_wait_readable(self->rx, 0)) {
		ASSERT_EQ(CAN_MTU, recv_meta(self->rx, &m, 0));
		got++;
	}
	TH_LOG("%d of %d frames fit", got, sent);
	ASSERT_LT(0, got);
	ASSERT_GT(sent, got);

	/* the next frame carries the number dropped before it */
	ASSERT_EQ(0, ct_send(self->tx, 0x20, 8));
	ASSERT_EQ(CAN_MTU, recv_meta(self->rx, &m, 0));
	EXPECT_EQ(0x20, m.cf.can_id);
	drops = find_cmsg(&m, SOL_SOCKET, SO_RXQ_OVFL);
	ASSERT_NE(NULL, drops);
	EXPECT_EQ(sent - got, *drops);
	close(witness);
}

TEST_F(meta, rxq_ovfl_absent_without_drops)
{
	int on = 1;
	struct rx_meta m;

	ASSERT_EQ(0, setsockopt(self->rx, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof(on)));
	ASSERT_EQ(0, ct_send(self->tx, 0x10, 8));
	ASSERT_EQ(CAN_MTU, recv_meta(self->rx, &m, 0));
	EXPECT_EQ(NULL, find_cmsg(&m, SOL_SOCKET, SO_RXQ_OVFL));
}

TEST_F(meta, so_mark_of_sender_reaches_receiver)
{
	int mark = 0x2a, on = 1;
	struct rx_meta m;
	__u32 *got;

	ASSERT_EQ(0, setsockopt(self->tx, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)));
	if (setsockopt(self->rx, SOL_SOCKET, SO_RCVMARK, &on, sizeof(on)))
		SKIP(return, "kernel has no SO_RCVMARK");
	ASSERT_EQ(0, ct_send(self->tx, 0x10, 8));
	ASSERT_EQ(CAN_MTU, recv_meta(self->rx, &m, 0));
	got = find_cmsg(&m, SOL_SOCKET, SO_MARK);
	ASSERT_NE(NULL, got);
	EXPECT_EQ(0x2a, *got);
}

TEST_HARNESS_MAIN
