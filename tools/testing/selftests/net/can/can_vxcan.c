// SPDX-License-Identifier: GPL-2.0
/*
 * vxcan pairs within one namespace: what one end sends the other end
 * receives, as a frame from elsewhere, while the sending end loops it
 * back to its own sockets as any CAN device does; each end has its own
 * MTU; the carrier is on while both ends are up; deleting either end
 * deletes both. Namespaces, can-utils and module unload: can_vxcan.sh.
 */

#include "kselftest_harness.h"
#include "lib/can_test.h"

FIXTURE(vxcan)
{
	char a[IFNAMSIZ];
	char b[IFNAMSIZ];
	int tx;		/* on a, CAN_RAW_XL_FRAMES on */
	int rx_a;	/* on a */
	int rx_b;	/* on b, CAN_RAW_XL_FRAMES on */
};

static int open_on(const char *ifname, bool xl)
{
	int fd = ct_raw_open(if_nametoindex(ifname));

	if (fd >= 0 && xl && ct_setopt_int(fd, CAN_RAW_XL_FRAMES, 1)) {
		close(fd);
		return -1;
	}
	return fd;
}

#define PROBE_ID 0x5aa

/* Send probes from @from until one arrives on @to. */
static int probe(const char *from, const char *to)
{
	int tx = open_on(from, false), rx = open_on(to, false);
	long long got = -1;
	int i;

	for (i = 0; tx >= 0 && rx >= 0 && i < 30 && got != PROBE_ID; i++) {
		if (ct_send(tx, PROBE_ID, 0))
			break;
		got = ct_recv_id(rx, 100);
	}
	if (tx >= 0)
		close(tx);
	if (rx >= 0)
		close(rx);
	return got == PROBE_ID ? 0 : -ETIMEDOUT;
}

/*
 * Wait until frames pass both ways, then throw away the probes (the
 * caller has collected pending socket errors, at which a drain stops).
 * Bringing an end up turns the carrier of both ends on, but the other
 * end's qdisc is re-activated later, by linkwatch from a work item; a
 * frame written in between meets the noop qdisc and vanishes. Nothing a
 * program can read tells that linkwatch has passed (the operstate may
 * still be the one from before the ends went down), so send until a
 * frame comes through.
 */
static int wait_for_path(struct _test_data_vxcan *self)
{
	int err = probe(self->a, self->b) ?: probe(self->b, self->a);

	if (self->tx >= 0)
		ct_drain(self->tx);
	if (self->rx_a >= 0)
		ct_drain(self->rx_a);
	if (self->rx_b >= 0)
		ct_drain(self->rx_b);
	return err;
}

FIXTURE_SETUP(vxcan)
{
	self->tx = -1;
	self->rx_a = -1;
	self->rx_b = -1;
	ct_ifname(self->a, 'a');
	ct_ifname(self->b, 'b');
	ASSERT_EQ(0, ct_vxcan_add(self->a, self->b, -1));
	ASSERT_EQ(0, ct_link_set_up(self->a, true));
	ASSERT_EQ(0, ct_link_set_up(self->b, true));
	ASSERT_EQ(0, wait_for_path(self));
	self->tx = open_on(self->a, true);
	self->rx_a = open_on(self->a, false);
	self->rx_b = open_on(self->b, true);
	ASSERT_LE(0, self->tx);
	ASSERT_LE(0, self->rx_a);
	ASSERT_LE(0, self->rx_b);
}

FIXTURE_TEARDOWN(vxcan)
{
	if (self->tx >= 0)
		close(self->tx);
	if (self->rx_a >= 0)
		close(self->rx_a);
	if (self->rx_b >= 0)
		close(self->rx_b);
	ct_link_del(self->a);
	ct_link_del(self->b);
}

/* /sys/class/net/NAME/carrier: 1, 0, or -errno (EINVAL while down). */
static int link_carrier(const char *name)
{
	char path[96], c = 0;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (read(fd, &c, 1) != 1)
		err = -errno;
	close(fd);
	return err ? err : c - '0';
}

static bool link_exists(const char *name)
{
	return if_nametoindex(name) != 0;
}

TEST_F(vxcan, frame_sent_on_one_end_arrives_on_the_other)
{
	int flags = -1, ifindex = 0;
	struct can_frame cf;

	ASSERT_EQ(0, ct_send(self->tx, 0x321, 4));
	ASSERT_EQ(CAN_MTU, ct_recv(self->rx_b, &cf, sizeof(cf), CT_RX_TIMEOUT_MS,
				   &flags, &ifindex));
	EXPECT_EQ(0x321, cf.can_id);
	EXPECT_EQ(4, cf.len);
	EXPECT_EQ(if_nametoindex(self->b), ifindex);
	/* Not a local frame on b: neither own nor looped back there. */
	EXPECT_EQ(0, flags & (MSG_DONTROUTE | MSG_CONFIRM));
	EXPECT_TRUE(ct_is_quiet(self->rx_b));
}

TEST_F(vxcan, sending_end_loops_back_as_mainline)
{
	int flags = 0;
	struct can_frame cf;

	/* Other sockets on the sending end get the local loopback... */
	ASSERT_EQ(0, ct_send(self->tx, 0x11, 1));
	ASSERT_EQ(CAN_MTU, ct_recv(self->rx_a, &cf, sizeof(cf), CT_RX_TIMEOUT_MS,
				   &flags, NULL));
	EXPECT_EQ(0x11, cf.can_id);
	EXPECT_TRUE(flags & MSG_DONTROUTE);
	/* ...the sender only with CAN_RAW_RECV_OWN_MSGS... */
	EXPECT_TRUE(ct_is_quiet(self->tx));
	ASSERT_EQ(0, ct_setopt_int(self->tx, CAN_RAW_RECV_OWN_MSGS, 1));
	ASSERT_EQ(0, ct_send(self->tx, 0x12, 1));
	ASSERT_EQ(CAN_MTU, ct_recv(self->tx, &cf, sizeof(cf), CT_RX_TIMEOUT_MS,
				   &flags, NULL));
	EXPECT_TRUE(flags & MSG_CONFIRM);
	/* ...and nobody there without CAN_RAW_LOOPBACK; b gets all three. */
	ASSERT_EQ(0, ct_setopt_int(self->tx, CAN_RAW_LOOPBACK, 0));
	ct_drain(self->rx_a);
	ASSERT_EQ(0, ct_send(self->tx, 0x13, 1));
	EXPECT_EQ(0x11, ct_recv_id(self->rx_b, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(0x12, ct_recv_id(self->rx_b, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(0x13, ct_recv_id(self->rx_b, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(ct_is_quiet(self->rx_a));
	EXPECT_TRUE(ct_is_quiet(self->tx));
}

TEST_F(vxcan, both_directions_carry_frames)
{
	int back = open_on(self->b, false);

	ASSERT_LE(0, back);
	ASSERT_EQ(0, ct_send(back, 0x7ff, 8));
	EXPECT_EQ(0x7ff, ct_recv_id(self->tx, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(0x7ff, ct_recv_id(self->rx_a, CT_RX_TIMEOUT_MS));
	close(back);
}

TEST_F(vxcan, statistics_count_on_both_ends)
{
	long long tx0 = ct_link_stat(self->a, "tx_packets");
	long long rx0 = ct_link_stat(self->b, "rx_packets");
	long long rxb0 = ct_link_stat(self->b, "rx_bytes");

	ASSERT_EQ(0, ct_send(self->tx, 0x1, 5));
	ASSERT_EQ(0, ct_send(self->tx, 0x2, 3));
	ASSERT_EQ(0x1, ct_recv_id(self->rx_b, CT_RX_TIMEOUT_MS));
	ASSERT_EQ(0x2, ct_recv_id(self->rx_b, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(2, ct_link_stat(self->a, "tx_packets") - tx0);
	EXPECT_EQ(2, ct_link_stat(self->b, "rx_packets") - rx0);
	EXPECT_EQ(8, ct_link_stat(self->b, "rx_bytes") - rxb0);
}

TEST_F(vxcan, each_end_takes_every_frame_mtu_while_down)
{
	static const int mtus[] = { CAN_MTU, CANFD_MTU, CANXL_MIN_MTU, CANXL_MTU };
	unsigned int i;

	EXPECT_EQ(CANFD_MTU, ct_link_mtu(self->a));
	EXPECT_EQ(-EBUSY, ct_link_set_mtu(self->a, CAN_MTU));
	ASSERT_EQ(0, ct_link_set_up(self->a, false));
	ASSERT_EQ(0, ct_link_set_up(self->b, false));
	for (i = 0; i < ARRAY_SIZE(mtus); i++) {
		EXPECT_EQ(0, ct_link_set_mtu(self->a, mtus[i]));
		EXPECT_EQ(mtus[i], ct_link_mtu(self->a));
		EXPECT_EQ(0, ct_link_set_mtu(self->b, mtus[3 - i]));
		EXPECT_EQ(mtus[3 - i], ct_link_mtu(self->b));
	}
	EXPECT_EQ(-EINVAL, ct_link_set_mtu(self->a, CANFD_MTU + 1));
	EXPECT_EQ(-EINVAL, ct_link_set_mtu(self->b, CANXL_MAX_MTU + 1));
}

TEST_F(vxcan, xl_frames_cross_between_xl_ends)
{
	struct canxl_frame cxl = { .prio = 0x42, .flags = CANXL_XLF | CANXL_SEC,
				   .sdt = 3, .len = CANXL_MAX_DLEN, .af = 9 };
	struct canxl_frame got;

	ASSERT_EQ(0, ct_link_set_up(self->a, false));
	ASSERT_EQ(0, ct_link_set_up(self->b, false));
	ASSERT_EQ(0, ct_link_set_mtu(self->a, CANXL_MTU));
	ASSERT_EQ(0, ct_link_set_mtu(self->b, CANXL_MTU));
	ASSERT_EQ(0, ct_link_set_up(self->a, true));
	ASSERT_EQ(0, ct_link_set_up(self->b, true));
	/* Collect the ENETDOWN that going down left on the sockets. */
	EXPECT_EQ(ENETDOWN, ct_sock_error(self->tx));
	EXPECT_EQ(ENETDOWN, ct_sock_error(self->rx_a));
	EXPECT_EQ(ENETDOWN, ct_sock_error(self->rx_b));
	ASSERT_EQ(0, wait_for_path(self));
	memset(cxl.data, 0xc5, sizeof(cxl.data));

	ASSERT_EQ(CANXL_MTU, write(self->tx, &cxl, CANXL_MTU));
	ASSERT_EQ(CANXL_MTU, ct_recv(self->rx_b, &got, sizeof(got),
				     CT_RX_TIMEOUT_MS, NULL, NULL));
	EXPECT_EQ(0, memcmp(&cxl, &got, CANXL_MTU));
}

/* An end whose MTU cannot carry a frame does not receive it. */
TEST_F(vxcan, fd_frame_to_a_classic_end_is_not_received)
{
	struct canfd_frame cfd = { .can_id = 0x5, .len = 64 };
	int rx_fd;

	ASSERT_EQ(0, ct_link_set_up(self->b, false));
	ASSERT_EQ(0, ct_link_set_mtu(self->b, CAN_MTU));
	ASSERT_EQ(0, ct_link_set_up(self->b, true));
	EXPECT_EQ(ENETDOWN, ct_sock_error(self->rx_b));
	ASSERT_EQ(0, wait_for_path(self));
	rx_fd = open_on(self->b, true);
	ASSERT_LE(0, rx_fd);

	ASSERT_EQ(CANFD_MTU, write(self->tx, &cfd, sizeof(cfd)));
	ASSERT_EQ(0, ct_send(self->tx, 0x6, 1));
	EXPECT_EQ(0x6, ct_recv_id(rx_fd, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(ct_is_quiet(rx_fd));
	close(rx_fd);
}

TEST_F(vxcan, carrier_is_on_while_both_ends_are_up)
{
	EXPECT_EQ(1, link_carrier(self->a));
	EXPECT_EQ(1, link_carrier(self->b));
	ASSERT_EQ(0, ct_link_set_up(self->b, false));
	EXPECT_EQ(0, link_carrier(self->a));
	ASSERT_EQ(0, ct_link_set_up(self->b, true));
	EXPECT_EQ(1, link_carrier(self->a));
	EXPECT_EQ(1, link_carrier(self->b));
	ASSERT_EQ(0, ct_link_set_up(self->a, false));
	EXPECT_EQ(0, link_carrier(self->b));
}

TEST_F(vxcan, deleting_either_end_deletes_both)
{
	char c[IFNAMSIZ], d[IFNAMSIZ];

	ASSERT_EQ(0, ct_link_del(self->b));
	EXPECT_FALSE(link_exists(self->a));
	EXPECT_FALSE(link_exists(self->b));

	ct_ifname(c, 'c');
	ct_ifname(d, 'd');
	ASSERT_EQ(0, ct_vxcan_add(c, d, -1));
	ASSERT_EQ(0, ct_link_del(c));
	EXPECT_FALSE(link_exists(c));
	EXPECT_FALSE(link_exists(d));
}

TEST_F(vxcan, sockets_of_a_deleted_pair_get_enodev)
{
	ASSERT_EQ(0, ct_link_del(self->a));
	EXPECT_EQ(ENODEV, ct_sock_error(self->rx_b));
	EXPECT_EQ(ENODEV, ct_sock_error(self->tx));
	EXPECT_EQ(-ENXIO, ct_send(self->tx, 0x1, 1));
}

TEST_F(vxcan, taken_names_fail_eexist_and_leave_nothing)
{
	char c[IFNAMSIZ];

	ct_ifname(c, 'c');
	EXPECT_EQ(-EEXIST, ct_vxcan_add(c, self->a, -1));
	EXPECT_FALSE(link_exists(c));
	EXPECT_EQ(-EEXIST, ct_vxcan_add(self->b, c, -1));
	EXPECT_FALSE(link_exists(c));
	EXPECT_EQ(-EEXIST, ct_vxcan_add(c, c, -1));
	EXPECT_FALSE(link_exists(c));
}

TEST_HARNESS_MAIN
