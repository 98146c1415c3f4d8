// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_RAW sockets whose interface goes down or away: the errors they
 * report (sk_err through SO_ERROR and POLLERR), the unbinding that
 * follows removal, and removal while frames are being sent and read.
 */

#include <pthread.h>
#include <stdatomic.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"

FIXTURE(life)
{
	char ifname[IFNAMSIZ];
	int ifindex;
	int fd;
};

FIXTURE_SETUP(life)
{
	self->fd = -1;
	ct_ifname(self->ifname, 'x');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	self->ifindex = if_nametoindex(self->ifname);
	self->fd = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(life)
{
	if (self->fd >= 0)
		close(self->fd);
	ct_link_del(self->ifname);	/* -ENODEV when the test removed it */
}

TEST_F(life, interface_down_reports_enetdown_to_bound_socket)
{
	ASSERT_EQ(0, ct_link_set_up(self->ifname, false));
	EXPECT_TRUE(ct_wait_pollerr(self->fd, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(ENETDOWN, ct_sock_error(self->fd));
}

TEST_F(life, deleting_vcan_reports_enodev_to_bound_socket)
{
	ASSERT_EQ(0, ct_link_del(self->ifname));
	EXPECT_TRUE(ct_wait_pollerr(self->fd, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(ENODEV, ct_sock_error(self->fd));
}

TEST_F(life, deleting_vcan_unbinds_socket)
{
	struct sockaddr_can addr;
	socklen_t alen = sizeof(addr);

	ASSERT_EQ(0, ct_link_del(self->ifname));
	ASSERT_TRUE(ct_wait_pollerr(self->fd, CT_RX_TIMEOUT_MS));
	ct_sock_error(self->fd);
	ASSERT_EQ(0, getsockname(self->fd, (struct sockaddr *)&addr, &alen));
	EXPECT_EQ(0, addr.can_ifindex);
	/* unbound: no interface to send on */
	EXPECT_EQ(-ENXIO, ct_send(self->fd, 0x1, 1));
}

TEST_F(life, deleting_vcan_drops_socket_filters)
{
	struct can_filter f[2] = { { 0x1, CAN_SFF_MASK }, { 0x2, CAN_SFF_MASK } };
	socklen_t len = sizeof(f);

	ASSERT_EQ(0, ct_set_filters(self->fd, f, 2));
	ASSERT_EQ(0, ct_link_del(self->ifname));
	ASSERT_TRUE(ct_wait_pollerr(self->fd, CT_RX_TIMEOUT_MS));
	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_FILTER, f, &len));
	EXPECT_EQ(0, len);
}

TEST_F(life, socket_unbound_by_removal_can_bind_again)
{
	char other[IFNAMSIZ];
	int other_ifindex, tx;

	ASSERT_EQ(0, ct_link_del(self->ifname));
	ASSERT_TRUE(ct_wait_pollerr(self->fd, CT_RX_TIMEOUT_MS));
	ct_sock_error(self->fd);

	ct_ifname(other, 'X');
	ASSERT_EQ(0, ct_vcan_create(other, 0, true));
	other_ifindex = if_nametoindex(other);
	tx = ct_raw_open(other_ifindex);
	EXPECT_LE(0, tx);
	EXPECT_EQ(0, ct_bind(self->fd, other_ifindex));
	EXPECT_EQ(0, ct_send(self->fd, 0x5, 1));
	EXPECT_EQ(0x5, ct_recv_id(tx, CT_RX_TIMEOUT_MS));
	close(tx);
	ct_link_del(other);
}

TEST_F(life, socket_bound_to_all_survives_removal_of_one_vcan)
{
	char other[IFNAMSIZ];
	int any, tx;

	any = ct_raw_open(0);
	ASSERT_LE(0, any);
	ASSERT_EQ(0, ct_link_del(self->ifname));

	ct_ifname(other, 'X');
	ASSERT_EQ(0, ct_vcan_create(other, 0, true));
	tx = ct_raw_open(if_nametoindex(other));
	EXPECT_LE(0, tx);
	EXPECT_EQ(0, ct_send(tx, 0x7, 1));
	EXPECT_EQ(0x7, ct_recv_id(any, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(0, ct_sock_error(any));
	close(tx);
	close(any);
	ct_link_del(other);
}

static void *blocked_read(void *arg)
{
	int fd = *(int *)arg;
	struct can_frame cf;
	long ret;

	ret = read(fd, &cf, sizeof(cf)) < 0 ? errno : 0;
	return (void *)ret;
}

TEST_F(life, blocked_reader_wakes_with_error_when_vcan_deleted)
{
	pthread_t reader;
	void *ret;
	struct timespec deadline;

	/*
	 * Whether the reader is already asleep when the link goes or only
	 * gets there afterwards, it must come back with the error.
	 */
	ASSERT_EQ(0, pthread_create(&reader, NULL, blocked_read, &self->fd));
	ASSERT_EQ(0, ct_link_del(self->ifname));
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	ASSERT_EQ(0, pthread_timedjoin_np(reader, &ret, &deadline));
	EXPECT_TRUE((long)ret == ENODEV || (long)ret == ENETDOWN)
		TH_LOG("read failed with %ld", (long)ret);
}

/* Removal under traffic: a sender and a reader hammer the vcan. */
struct traffic {
	int tx, rx;
	atomic_int sent, received;
	int tx_errno, rx_errno;
};

static void *traffic_send(void *arg)
{
	struct traffic *t = arg;

	for (;;) {
		int err = ct_send(t->tx, 0x123, 8);

		if (err && err != -ENOBUFS) {
			t->tx_errno = -err;
			return NULL;
		}
		atomic_fetch_add(&t->sent, 1);
	}
}

static void *traffic_recv(void *arg)
{
	struct traffic *t = arg;
	struct can_frame cf;

	for (;;) {
		if (read(t->rx, &cf, sizeof(cf)) < 0) {
			t->rx_errno = errno;
			return NULL;
		}
		atomic_fetch_add(&t->received, 1);
	}
}

TEST_F_TIMEOUT(life, deleting_vcan_under_traffic_stops_both_ends_cleanly, 60)
{
	struct traffic t = { .tx = self->fd };
	pthread_t sender, reader;
	struct timespec deadline;
	int observer;
	long long until;

	t.rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, t.rx);
	observer = ct_raw_open(self->ifindex);
	ASSERT_LE(0, observer);
	ASSERT_EQ(0, ct_set_filters(observer, NULL, 0));
	ASSERT_EQ(0, pthread_create(&reader, NULL, traffic_recv, &t));
	ASSERT_EQ(0, pthread_create(&sender, NULL, traffic_send, &t));

	until = ct_now_ns(CLOCK_MONOTONIC) + 10000000000LL;
	while (atomic_load(&t.received) < 200 &&
	       ct_now_ns(CLOCK_MONOTONIC) < until)
		poll(NULL, 0, 5);
	ASSERT_LE(200, atomic_load(&t.received));
	ASSERT_EQ(0, ct_link_del(self->ifname));

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 10;
	ASSERT_EQ(0, pthread_timedjoin_np(sender, NULL, &deadline));
	ASSERT_EQ(0, pthread_timedjoin_np(reader, NULL, &deadline));
	TH_LOG("sent %d, received %d, tx errno %d, rx errno %d",
	       atomic_load(&t.sent), atomic_load(&t.received),
	       t.tx_errno, t.rx_errno);
	EXPECT_TRUE(t.tx_errno == ENETDOWN || t.tx_errno == ENODEV ||
		    t.tx_errno == ENXIO);
	EXPECT_TRUE(t.rx_errno == ENETDOWN || t.rx_errno == ENODEV);
	EXPECT_EQ(ENODEV, ct_sock_error(observer));
	close(observer);
	close(t.rx);
}

TEST_HARNESS_MAIN
