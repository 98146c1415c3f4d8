// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_ISOTP sockets outlive what they depend on, and go away cleanly
 * whatever they were doing: close() with a signal arriving while a message
 * is in flight, a sendmsg() with CAN_ISOTP_WAIT_TX_DONE cut short by a
 * signal, a device deleted under a bound socket and under a transfer,
 * close() after the device is gone, many sockets closed mid-transfer, and
 * a socket rebound between classic CAN and CAN FD under a sender.
 */

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/time.h>

#include "lib/can_test_isotp.h"
#include "kselftest_harness.h"

static void on_alarm(int sig)
{
}

/* SIGALRM interrupts system calls instead of restarting them. */
static void arm_alarm_ms(int ms)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, ms * 1000 } };

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

FIXTURE(life) {
	char ifname[IFNAMSIZ];
	int ifindex;
	unsigned char buf[4096];
};

FIXTURE_SETUP(life)
{
	ct_ifname(self->ifname, 'l');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	self->ifindex = if_nametoindex(self->ifname);
	it_fill(self->buf, sizeof(self->buf), 5);
}

FIXTURE_TEARDOWN(life)
{
	ct_link_del(self->ifname);
}

static int open_sender(struct _test_data_life *self, __u32 flags)
{
	struct it_opts o = { .set_opts = true };

	o.opt.flags = flags;
	o.opt.frame_txtime = CAN_ISOTP_FRAME_TXTIME_ZERO;
	return it_open(self->ifindex, IT_RX_ID, IT_TX_ID, &o);
}

TEST_F(life, close_waits_for_a_message_in_flight)
{
	int s = open_sender(self, 0);
	long long t0;

	ASSERT_LE(0, s);
	ASSERT_EQ(0, it_send(s, self->buf, 100));	/* no peer: waits for FC */
	t0 = ct_now_ns(CLOCK_MONOTONIC);
	EXPECT_EQ(0, close(s));
	/* until the flow control time-out ended it */
	EXPECT_LE(500000000LL, ct_now_ns(CLOCK_MONOTONIC) - t0);
}

TEST_F(life, close_with_a_signal_arriving_gives_up_waiting)
{
	int s = open_sender(self, 0);
	long long t0;

	ASSERT_LE(0, s);
	ASSERT_EQ(0, it_send(s, self->buf, 100));
	arm_alarm_ms(50);
	t0 = ct_now_ns(CLOCK_MONOTONIC);
	EXPECT_EQ(0, close(s));
	EXPECT_GT(800000000LL, ct_now_ns(CLOCK_MONOTONIC) - t0);
}

TEST_F(life, wait_tx_done_send_interrupted_by_signal_cancels_the_message)
{
	int s = open_sender(self, CAN_ISOTP_WAIT_TX_DONE);
	int raw = it_raw_open(self->ifindex, IT_TX_ID);
	struct canfd_frame cf;

	ASSERT_LE(0, s);
	ASSERT_LE(0, raw);
	arm_alarm_ms(100);
	EXPECT_EQ(-EINTR, it_send(s, self->buf, 100));
	ASSERT_LT(0, it_raw_recv(raw, &cf, 1000));	/* the first frame */
	/* cancelled: the socket is free for the next message at once */
	ASSERT_EQ(0, it_raw_send_fc(raw, IT_RX_ID, 0, 0, 0));
	EXPECT_TRUE(ct_is_quiet(raw));
	arm_alarm_ms(100);
	EXPECT_EQ(-EINTR, it_send(s, self->buf, 100));
	close(raw);
	close(s);
}

TEST_F(life, deleted_device_unbinds_the_socket_with_enodev)
{
	int s = open_sender(self, 0);
	char buf[8] = {};

	ASSERT_LE(0, s);
	ASSERT_EQ(0, ct_link_del(self->ifname));
	EXPECT_TRUE(ct_wait_pollerr(s, 2000));
	EXPECT_EQ(ENODEV, ct_sock_error(s));
	EXPECT_EQ(-EADDRNOTAVAIL, it_send(s, buf, 3));
	EXPECT_EQ(-1, recv(s, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	/* unbound again: options may change, and it binds elsewhere */
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	EXPECT_EQ(0, it_bind(s, if_nametoindex(self->ifname), IT_RX_ID, IT_TX_ID));
	EXPECT_EQ(0, close(s));
}

struct blocked_send {
	int s;
	const void *buf;
	int err;
};

static void *send_thread(void *arg)
{
	struct blocked_send *b = arg;

	b->err = it_send(b->s, b->buf, 100);
	return NULL;
}

TEST_F(life, device_deleted_under_a_waiting_sender_ends_it_with_ecomm)
{
	struct blocked_send b = { .buf = self->buf };
	int raw = it_raw_open(self->ifindex, IT_TX_ID);
	struct canfd_frame cf;
	pthread_t t;

	ASSERT_LE(0, raw);
	b.s = open_sender(self, CAN_ISOTP_WAIT_TX_DONE);
	ASSERT_LE(0, b.s);
	pthread_create(&t, NULL, send_thread, &b);
	ASSERT_LT(0, it_raw_recv(raw, &cf, 1000));
	close(raw);
	ASSERT_EQ(0, ct_link_del(self->ifname));
	pthread_join(t, NULL);
	EXPECT_EQ(-ECOMM, b.err);
	EXPECT_EQ(0, close(b.s));
}

TEST_F(life, close_after_device_gone_mid_transfer)
{
	int a = open_sender(self, 0);
	int r = it_open(self->ifindex, IT_TX_ID, IT_RX_ID, NULL);

	ASSERT_LE(0, a);
	ASSERT_LE(0, r);
	ASSERT_EQ(0, it_send(a, self->buf, sizeof(self->buf)));
	ASSERT_EQ(0, ct_link_del(self->ifname));
	EXPECT_EQ(0, close(a));
	EXPECT_EQ(0, close(r));
}

TEST_F(life, many_sockets_closed_mid_transfer_leave_nothing_behind)
{
	char none[64], *list;
	int a[16], r[16], i;

	for (i = 0; i < 16; i++) {
		a[i] = open_sender(self, 0);
		ASSERT_LE(0, a[i]);
		r[i] = it_open(self->ifindex, 0x600 + i, 0x700 + i, NULL);
		ASSERT_LE(0, r[i]);
		close(a[i]);
		a[i] = it_open(self->ifindex, 0x700 + i, 0x600 + i, NULL);
		ASSERT_LE(0, a[i]);
		ASSERT_EQ(0, it_send(a[i], self->buf, sizeof(self->buf)));
	}
	for (i = 0; i < 16; i++) {
		close(r[i]);
		arm_alarm_ms(10);
		close(a[i]);
	}
	/* every subscription is gone with its socket */
	list = ct_read_file("/proc/net/can/rcvlist_sff");
	ASSERT_NE(NULL, list);
	snprintf(none, sizeof(none), "(%s: no entry)", self->ifname);
	EXPECT_NE(NULL, strstr(list, none)) TH_LOG("%s", list);
	free(list);
}

#define REBINDS 150

struct racing_send {
	int s;
	bool stop;
	long sent, einval;
	int other;	/* an unexpected errno, 0 if none */
};

/* Single frames, as fast as the socket takes them, until told to stop. */
static void *racing_send_thread(void *arg)
{
	struct racing_send *r = arg;
	unsigned char msg[7] = { 1, 2, 3, 4, 5, 6, 7 };

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		int err = it_send(r->s, msg, sizeof(msg));

		if (!err)
			__atomic_add_fetch(&r->sent, 1, __ATOMIC_RELAXED);
		else if (err == -EINVAL)
			r->einval++;
		/* unbound, or the device went: what a rebind may cause */
		else if (err != -EADDRNOTAVAIL && err != -ENODEV &&
			 err != -ENETDOWN && err != -ECOMM)
			r->other = -err;
	}
	return NULL;
}

/* Link-layer options of a classic (tx_dl 8) or CAN FD (tx_dl 64) socket. */
static int set_ll(int s, bool fd)
{
	struct can_isotp_ll_options ll = {
		.mtu = fd ? CANFD_MTU : CAN_MTU,
		.tx_dl = fd ? CANFD_MAX_DLEN : CAN_MAX_DLEN,
	};

	return it_setopt(s, CAN_ISOTP_LL_OPTS, &ll, sizeof(ll));
}

/*
 * One thread sends single frames while the other deletes the socket's
 * device, which unbinds it, switches its link-layer options between CAN
 * FD and classic, and binds it to a new vcan of that kind. A send may
 * find the socket unbound, but it must never size its frame by one
 * binding and send it on the next: a CAN FD frame offered to a classic
 * vcan is refused with EINVAL. Both threads share one CPU, so that the
 * rebinding runs where the sender yields. The window is a few
 * instructions wide: this is a stress test, it rarely catches the race.
 */
TEST_F(life, rebinding_between_classic_and_fd_never_fails_a_send)
{
	struct racing_send r = { .s = it_socket() };
	char names[2][IFNAMSIZ];
	cpu_set_t one;
	pthread_t t;
	int i;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_LE(0, r.s);
	strcpy(names[0], self->ifname);
	ASSERT_EQ(0, it_bind(r.s, self->ifindex, IT_RX_ID, IT_TX_ID));
	ASSERT_EQ(0, pthread_create(&t, NULL, racing_send_thread, &r));
	/* The sender gets going first: on one CPU the loop below may
	 * otherwise finish before it ever runs.
	 */
	for (i = 0; i < 2000 && !__atomic_load_n(&r.sent, __ATOMIC_RELAXED); i++)
		usleep(1000);

	for (i = 1; i <= REBINDS; i++) {
		char *now = names[i % 2], *before = names[(i + 1) % 2];
		bool fd = i % 2;

		ct_ifname(now, 'r');
		if (ct_vcan_create(now, fd ? CANFD_MTU : CAN_MTU, true))
			break;
		ct_link_del(before);
		if (set_ll(r.s, fd) ||
		    it_bind(r.s, if_nametoindex(now), IT_RX_ID, IT_TX_ID))
			break;
	}
	__atomic_store_n(&r.stop, true, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	ct_link_del(names[i % 2]);
	close(r.s);
	strcpy(self->ifname, names[(i + 1) % 2]);

	TH_LOG("%d rebinds, %ld messages sent, %ld refused with EINVAL",
	       i - 1, r.sent, r.einval);
	EXPECT_EQ(REBINDS + 1, i);
	EXPECT_EQ(0, r.einval);
	EXPECT_EQ(0, r.other);
	EXPECT_LT(0, r.sent);
}

TEST_HARNESS_MAIN
