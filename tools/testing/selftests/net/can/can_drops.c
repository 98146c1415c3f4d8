// SPDX-License-Identifier: GPL-2.0
/*
 * Frames lost in the core and in socket receive queues, caused on purpose
 * on vcan: a raw socket that does not read, flooded through a small
 * SO_RCVBUF; frames no socket subscribed to; a CAN FD frame redirected
 * into a classic vcan's receive path. Each count moves by exactly the
 * frames lost: the socket's own (SO_RXQ_OVFL), the device's row and the
 * totals of /proc/net/can/stats, and CAN_RAW_BUS_STATE of the device.
 * Each test works in a fresh network namespace.
 */

#include <sched.h>
#include <stddef.h>
#include <linux/can/raw.h>
#include <linux/filter.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"

/* The loss table of /proc/net/can/stats, columns in this order. */
enum { COL_CONTROLLER, COL_QUEUE, COL_NO_RECEIVER, COL_INVALID, COL_SOCKET,
	COLS };

/* Reads @dev's row; false if there is none. */
static bool proc_row(const char *dev, unsigned long long col[COLS])
{
	char *text = ct_read_file("/proc/net/can/stats");
	char *line, *save = NULL, name[IFNAMSIZ + 1];
	bool in_table = false, found = false;

	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "(RXLOST)")) {
			in_table = true;
			continue;
		}
		if (!in_table)
			continue;
		found = sscanf(line, "%16s %llu %llu %llu %llu %llu", name,
			       &col[0], &col[1], &col[2], &col[3], &col[4]) == 6 &&
			!strcmp(name, dev);
	}
	free(text);
	return found;
}

static int bus_state(int fd, struct can_raw_bus_state *st)
{
	socklen_t len = sizeof(*st);

	if (getsockopt(fd, SOL_CAN_RAW, CAN_RAW_BUS_STATE, st, &len))
		return -errno;
	return len == sizeof(*st) ? 0 : -EMSGSIZE;
}

/* A socket on @ifindex that subscribes to nothing. */
static int deaf_socket(int ifindex)
{
	int fd = ct_raw_socket();

	if (fd < 0)
		return -1;
	if (ct_set_filters(fd, NULL, 0) || ct_bind(fd, ifindex)) {
		close(fd);
		return -1;
	}
	return fd;
}

FIXTURE(drops)
{
	char ifname[IFNAMSIZ];
	int ifindex;
	int tx;		/* sends, subscribes to nothing */
	int probe;	/* reads the bus state, subscribes to nothing */
};

FIXTURE_SETUP(drops)
{
	self->tx = -1;
	self->probe = -1;
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ct_ifname(self->ifname, 'd');
	/* classic CAN: the FD frames of one test are invalid here */
	ASSERT_EQ(0, ct_vcan_create(self->ifname, CAN_MTU, true));
	self->ifindex = if_nametoindex(self->ifname);
	self->tx = deaf_socket(self->ifindex);
	ASSERT_LE(0, self->tx);
	self->probe = deaf_socket(self->ifindex);
	ASSERT_LE(0, self->probe);
}

FIXTURE_TEARDOWN(drops)
{
	if (self->tx >= 0)
		close(self->tx);
	if (self->probe >= 0)
		close(self->probe);
	ct_link_del(self->ifname);
}

TEST_F(drops, new_device_starts_at_zero)
{
	unsigned long long col[COLS];
	struct can_raw_bus_state st;
	int i;

	ASSERT_TRUE(proc_row(self->ifname, col));
	for (i = 0; i < COLS; i++)
		EXPECT_EQ(0, col[i]) TH_LOG("column %d", i);
	ASSERT_EQ(0, bus_state(self->probe, &st));
	EXPECT_EQ(0, st.rx_lost_controller);
	EXPECT_EQ(0, st.rx_lost_queue);
	EXPECT_EQ(0, st.rx_no_receiver);
	EXPECT_EQ(0, st.rx_invalid);
	EXPECT_EQ(0, st.rx_lost_socket);
	EXPECT_EQ(0, ct_proc_stat("RXLCTL"));
	EXPECT_EQ(0, ct_proc_stat("RXLQ"));
	EXPECT_EQ(0, ct_proc_stat("RXNRCV"));
	EXPECT_EQ(0, ct_proc_stat("RXLSK"));
}

/* The frames that made it into the queue, and the socket's own count of
 * those that did not (SO_RXQ_OVFL, from the last frame read).
 */
static int read_all(int fd, __u32 *ovfl)
{
	char ctrl[CMSG_SPACE(sizeof(__u32))];
	struct can_frame cf;
	struct iovec iov = { &cf, sizeof(cf) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	struct cmsghdr *c;
	int n = 0;

	*ovfl = 0;
	for (;;) {
		msg.msg_control = ctrl;
		msg.msg_controllen = sizeof(ctrl);
		if (recvmsg(fd, &msg, MSG_DONTWAIT) != sizeof(cf))
			return n;
		n++;
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SO_RXQ_OVFL)
				memcpy(ovfl, CMSG_DATA(c), sizeof(*ovfl));
	}
}

TEST_F(drops, full_socket_queue_counts_every_refused_frame)
{
	unsigned long long col[COLS];
	struct can_raw_bus_state st;
	int rx, i, sent = 300, got;
	long sock0, norcv0;
	__u32 ovfl;

	rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, rx);
	/* The kernel's minimum, a few frames' worth. */
	ASSERT_EQ(0, setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &(int){ 1 },
				sizeof(int)));
	ASSERT_EQ(0, setsockopt(rx, SOL_SOCKET, SO_RXQ_OVFL, &(int){ 1 },
				sizeof(int)));
	sock0 = ct_proc_stat("RXLSK");
	norcv0 = ct_proc_stat("RXNRCV");
	ASSERT_LE(0, sock0);

	for (i = 0; i < sent; i++)
		ASSERT_EQ(0, ct_send(self->tx, 0x100 + (i & 0xff), 8));
	got = read_all(rx, &ovfl);
	TH_LOG("sent %d, readable %d", sent, got);
	ASSERT_LT(0, got);
	ASSERT_GT(sent, got);
	/* The socket's count travels with the next frame it queues. */
	ASSERT_EQ(0, ct_send(self->tx, 0x7ff, 1));
	ASSERT_TRUE(ct_wait_readable(rx, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(1, read_all(rx, &ovfl));
	EXPECT_EQ(sent - got, ovfl);
	EXPECT_EQ(sent - got, ct_proc_stat("RXLSK") - sock0);
	ASSERT_TRUE(proc_row(self->ifname, col));
	EXPECT_EQ(sent - got, col[COL_SOCKET]);
	EXPECT_EQ(0, col[COL_NO_RECEIVER]);
	EXPECT_EQ(0, col[COL_QUEUE]);
	EXPECT_EQ(norcv0, ct_proc_stat("RXNRCV"));
	ASSERT_EQ(0, bus_state(self->probe, &st));
	EXPECT_EQ(sent - got, st.rx_lost_socket);
	EXPECT_EQ(0, st.rx_no_receiver);
	close(rx);
}

TEST_F(drops, socket_filter_rejection_is_no_queue_loss)
{
	/* ret 0: a BPF socket filter that takes nothing */
	struct sock_filter none = { 0x06, 0, 0, 0 };
	struct sock_fprog prog = { 1, &none };
	unsigned long long col[COLS];
	int rx, i;

	rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, rx);
	ASSERT_EQ(0, setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
				sizeof(prog)));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, ct_send(self->tx, 0x10, 1));
	EXPECT_TRUE(ct_is_quiet(rx));
	ASSERT_TRUE(proc_row(self->ifname, col));
	EXPECT_EQ(0, col[COL_SOCKET]);
	EXPECT_EQ(0, ct_proc_stat("RXLSK"));
	close(rx);
}

TEST_F(drops, frames_nobody_subscribed_to_count_per_device)
{
	char other[IFNAMSIZ];
	unsigned long long col[COLS], ocol[COLS];
	struct can_raw_bus_state st;
	long norcv0 = ct_proc_stat("RXNRCV"), rxf0 = ct_proc_stat("RXF");
	long mf0 = ct_proc_stat("RXMF");
	int i, n = 17;

	ct_ifname(other, 'o');
	ASSERT_EQ(0, ct_vcan_create(other, 0, true));
	ASSERT_LE(0, norcv0);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, ct_send(self->tx, 0x200, 2));

	EXPECT_EQ(n, ct_proc_stat("RXNRCV") - norcv0);
	EXPECT_EQ(n, ct_proc_stat("RXF") - rxf0);
	EXPECT_EQ(mf0, ct_proc_stat("RXMF"));
	ASSERT_TRUE(proc_row(self->ifname, col));
	EXPECT_EQ(n, col[COL_NO_RECEIVER]);
	ASSERT_TRUE(proc_row(other, ocol));
	EXPECT_EQ(0, ocol[COL_NO_RECEIVER]);
	ASSERT_EQ(0, bus_state(self->probe, &st));
	EXPECT_EQ(n, st.rx_no_receiver);
	ct_link_del(other);
}

/* Everything @from sends arrives in @to's receive path. */
static int tc_redirect_ingress(const char *from, const char *to)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "tc qdisc add dev %s clsact", from);
	if (system(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "tc filter add dev %s egress matchall action mirred ingress redirect dev %s",
		 from, to);
	return system(cmd);
}

TEST_F(drops, invalid_frames_count_for_the_device_they_arrive_on)
{
	struct canfd_frame cfd = { .can_id = 0x123, .len = 64 };
	unsigned long long col[COLS];
	struct can_raw_bus_state st;
	char fd_if[IFNAMSIZ];
	long inv0 = ct_proc_stat("RXINV");
	int fdtx, i, n = 3;

	ct_ifname(fd_if, 'f');
	ASSERT_EQ(0, ct_vcan_create(fd_if, CANFD_MTU, true));
	if (system("command -v tc >/dev/null") ||
	    tc_redirect_ingress(fd_if, self->ifname)) {
		ct_link_del(fd_if);
		SKIP(return, "tc or act_mirred missing");
	}
	fdtx = deaf_socket(if_nametoindex(fd_if));
	ASSERT_LE(0, fdtx);
	ASSERT_EQ(0, ct_setopt_int(fdtx, CAN_RAW_FD_FRAMES, 1));
	for (i = 0; i < n; i++)
		ASSERT_EQ(sizeof(cfd), write(fdtx, &cfd, sizeof(cfd)));
	/* A classic frame the same way: valid, for nobody. */
	ASSERT_EQ(0, ct_send(fdtx, 0x124, 1));

	EXPECT_EQ(n, ct_proc_stat("RXINV") - inv0);
	ASSERT_TRUE(proc_row(self->ifname, col));
	EXPECT_EQ(n, col[COL_INVALID]);
	EXPECT_EQ(1, col[COL_NO_RECEIVER]);
	ASSERT_EQ(0, bus_state(self->probe, &st));
	EXPECT_EQ(n, st.rx_invalid);
	ASSERT_TRUE(proc_row(fd_if, col));
	EXPECT_EQ(0, col[COL_INVALID]);
	close(fdtx);
	ct_link_del(fd_if);
}

TEST_F(drops, old_size_of_bus_state_gets_the_old_fields)
{
	unsigned char buf[sizeof(struct can_raw_bus_state)];
	socklen_t len = offsetof(struct can_raw_bus_state, rx_lost_controller);

	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, getsockopt(self->probe, SOL_CAN_RAW, CAN_RAW_BUS_STATE,
				buf, &len));
	EXPECT_EQ(32, len);
	EXPECT_EQ(0xa5, buf[32]);
}

TEST_HARNESS_MAIN
