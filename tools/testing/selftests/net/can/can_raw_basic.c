// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_RAW basics: socket creation, bind, send and receive on a vcan,
 * the addresses user space sees, and the errors for bad addresses,
 * unknown or down interfaces and malformed frames.
 */

#include "kselftest_harness.h"
#include "lib/can_test.h"

FIXTURE(raw)
{
	char ifname[IFNAMSIZ];
	int ifindex;
	int tx;
	int rx;
};

FIXTURE_SETUP(raw)
{
	self->tx = -1;
	self->rx = -1;
	ct_ifname(self->ifname, 'b');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	self->ifindex = if_nametoindex(self->ifname);
	ASSERT_NE(0, self->ifindex);
	self->tx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->tx);
	self->rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->rx);
}

FIXTURE_TEARDOWN(raw)
{
	if (self->tx >= 0)
		close(self->tx);
	if (self->rx >= 0)
		close(self->rx);
	ct_link_del(self->ifname);
}

TEST(socket_with_wrong_type_fails_eprototype)
{
	int fd = socket(PF_CAN, SOCK_DGRAM, CAN_RAW);

	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EPROTOTYPE, errno);
	if (fd >= 0)
		close(fd);
}

TEST(socket_with_protocol_out_of_range_fails_einval)
{
	int fd = socket(PF_CAN, SOCK_RAW, CAN_NPROTO);

	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);
	if (fd >= 0)
		close(fd);
}

TEST(socket_for_unavailable_protocol_fails_eprotonosupport)
{
	int fd = socket(PF_CAN, SOCK_DGRAM, CAN_TP16);

	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EPROTONOSUPPORT, errno);
	if (fd >= 0)
		close(fd);
}

TEST_F(raw, sent_frame_reaches_other_socket_unchanged)
{
	struct can_frame sent = ct_frame(0x123, 8), got;

	ASSERT_EQ(sizeof(sent), write(self->tx, &sent, sizeof(sent)));
	ASSERT_EQ(CAN_MTU, ct_recv(self->rx, &got, sizeof(got),
				   CT_RX_TIMEOUT_MS, NULL, NULL));
	EXPECT_EQ(sent.can_id, got.can_id);
	EXPECT_EQ(sent.len, got.len);
	EXPECT_EQ(0, memcmp(sent.data, got.data, sent.len));
}

TEST_F(raw, eff_and_rtr_flags_survive_the_round_trip)
{
	canid_t ids[] = {
		0x1abcdef0 | CAN_EFF_FLAG,
		0x123 | CAN_RTR_FLAG,
		0x1abcdef0 | CAN_EFF_FLAG | CAN_RTR_FLAG,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		ASSERT_EQ(0, ct_send(self->tx, ids[i], 0));
		EXPECT_EQ(ids[i], ct_recv_id(self->rx, CT_RX_TIMEOUT_MS));
	}
}

TEST_F(raw, recvfrom_reports_family_and_receiving_ifindex)
{
	struct sockaddr_can addr;
	socklen_t alen = sizeof(addr);
	struct can_frame cf;

	memset(&addr, 0xff, sizeof(addr));
	ASSERT_EQ(0, ct_send(self->tx, 0x42, 1));
	ASSERT_TRUE(ct_wait_readable(self->rx, CT_RX_TIMEOUT_MS));
	ASSERT_EQ(CAN_MTU, recvfrom(self->rx, &cf, sizeof(cf), 0,
				    (struct sockaddr *)&addr, &alen));
	EXPECT_EQ(AF_CAN, addr.can_family);
	EXPECT_EQ(self->ifindex, addr.can_ifindex);
	/* mainline fills only up to can_ifindex */
	EXPECT_EQ(offsetof(struct sockaddr_can, can_addr), alen);
}

TEST_F(raw, getsockname_reports_bound_ifindex)
{
	struct sockaddr_can addr;
	socklen_t alen = sizeof(addr);

	memset(&addr, 0xff, sizeof(addr));
	ASSERT_EQ(0, getsockname(self->rx, (struct sockaddr *)&addr, &alen));
	EXPECT_EQ(AF_CAN, addr.can_family);
	EXPECT_EQ(self->ifindex, addr.can_ifindex);
	EXPECT_EQ(offsetof(struct sockaddr_can, can_addr), alen);
}

TEST_F(raw, getpeername_fails_eopnotsupp)
{
	struct sockaddr_can addr;
	socklen_t alen = sizeof(addr);

	EXPECT_EQ(-1, getpeername(self->rx, (struct sockaddr *)&addr, &alen));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

TEST_F(raw, short_read_returns_msg_trunc)
{
	char buf[4];
	int flags = 0;

	ASSERT_EQ(0, ct_send(self->tx, 0x77, 8));
	EXPECT_EQ(sizeof(buf), ct_recv(self->rx, buf, sizeof(buf),
				       CT_RX_TIMEOUT_MS, &flags, NULL));
	EXPECT_TRUE(flags & MSG_TRUNC);
}

TEST_F(raw, socket_bound_to_all_receives_from_every_vcan)
{
	char other[IFNAMSIZ];
	int any, other_tx, other_ifindex, ifindex = 0;
	struct can_frame cf;

	ct_ifname(other, 'B');
	ASSERT_EQ(0, ct_vcan_create(other, 0, true));
	other_ifindex = if_nametoindex(other);
	any = ct_raw_open(0);
	other_tx = ct_raw_open(other_ifindex);
	EXPECT_LE(0, any);
	EXPECT_LE(0, other_tx);

	EXPECT_EQ(0, ct_send(self->tx, 0x10, 1));
	EXPECT_EQ(CAN_MTU, ct_recv(any, &cf, sizeof(cf), CT_RX_TIMEOUT_MS,
				   NULL, &ifindex));
	EXPECT_EQ(self->ifindex, ifindex);
	EXPECT_EQ(0, ct_send(other_tx, 0x20, 1));
	EXPECT_EQ(CAN_MTU, ct_recv(any, &cf, sizeof(cf), CT_RX_TIMEOUT_MS,
				   NULL, &ifindex));
	EXPECT_EQ(other_ifindex, ifindex);
	EXPECT_EQ(0x20, cf.can_id);

	close(any);
	close(other_tx);
	ct_link_del(other);
}

TEST_F(raw, rebind_moves_socket_to_new_interface)
{
	char other[IFNAMSIZ];
	int other_tx, other_ifindex;

	ct_ifname(other, 'B');
	ASSERT_EQ(0, ct_vcan_create(other, 0, true));
	other_ifindex = if_nametoindex(other);
	other_tx = ct_raw_open(other_ifindex);
	EXPECT_LE(0, other_tx);

	EXPECT_EQ(0, ct_bind(self->rx, other_ifindex));
	EXPECT_EQ(0, ct_send(self->tx, 0x10, 1));
	EXPECT_EQ(0, ct_send(other_tx, 0x20, 1));
	/* frames of one device arrive in order: 0x10 would come first */
	EXPECT_EQ(0x20, ct_recv_id(self->rx, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(ct_is_quiet(self->rx));

	close(other_tx);
	ct_link_del(other);
}

TEST_F(raw, sendto_on_unbound_socket_uses_given_ifindex)
{
	struct sockaddr_can addr = {
		.can_family = AF_CAN, .can_ifindex = self->ifindex,
	};
	struct can_frame cf = ct_frame(0x321, 2);
	int fd = ct_raw_socket();

	ASSERT_LE(0, fd);
	EXPECT_EQ(sizeof(cf), sendto(fd, &cf, sizeof(cf), 0,
				     (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(0x321, ct_recv_id(self->rx, CT_RX_TIMEOUT_MS));
	close(fd);
}

TEST(send_on_unbound_socket_fails_enxio)
{
	struct can_frame cf = ct_frame(0x1, 1);
	int fd = ct_raw_socket();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, &cf, sizeof(cf)));
	EXPECT_EQ(ENXIO, errno);
	close(fd);
}

TEST_F(raw, sendto_unknown_ifindex_fails_enxio)
{
	struct sockaddr_can addr = {
		.can_family = AF_CAN, .can_ifindex = 0x7ffffff0,
	};
	struct can_frame cf = ct_frame(0x1, 1);

	EXPECT_EQ(-1, sendto(self->tx, &cf, sizeof(cf), 0,
			     (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(ENXIO, errno);
}

TEST_F(raw, sendto_short_address_fails_einval)
{
	struct sockaddr_can addr = {
		.can_family = AF_CAN, .can_ifindex = self->ifindex,
	};
	struct can_frame cf = ct_frame(0x1, 1);

	EXPECT_EQ(-1, sendto(self->tx, &cf, sizeof(cf), 0,
			     (struct sockaddr *)&addr,
			     offsetof(struct sockaddr_can, can_addr) - 1));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(raw, sendto_wrong_family_fails_einval)
{
	struct sockaddr_can addr = {
		.can_family = AF_INET, .can_ifindex = self->ifindex,
	};
	struct can_frame cf = ct_frame(0x1, 1);

	EXPECT_EQ(-1, sendto(self->tx, &cf, sizeof(cf), 0,
			     (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EINVAL, errno);
}

TEST(bind_unknown_ifindex_fails_enodev)
{
	int fd = ct_raw_socket();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENODEV, ct_bind(fd, 0x7ffffff0));
	close(fd);
}

TEST(bind_non_can_device_fails_enodev)
{
	int fd = ct_raw_socket();

	ASSERT_LE(0, fd);
	ASSERT_NE(0, if_nametoindex("lo"));
	EXPECT_EQ(-ENODEV, ct_bind(fd, if_nametoindex("lo")));
	close(fd);
}

TEST_F(raw, bind_short_address_fails_einval)
{
	struct sockaddr_can addr = {
		.can_family = AF_CAN, .can_ifindex = self->ifindex,
	};

	EXPECT_EQ(-1, bind(self->rx, (struct sockaddr *)&addr,
			   offsetof(struct sockaddr_can, can_addr) - 1));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(raw, bind_wrong_family_fails_einval)
{
	struct sockaddr_can addr = {
		.can_family = AF_INET, .can_ifindex = self->ifindex,
	};

	EXPECT_EQ(-1, bind(self->rx, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(raw, send_on_down_interface_fails_enetdown)
{
	ASSERT_EQ(0, ct_link_set_up(self->ifname, false));
	ct_sock_error(self->tx);	/* the notifier's ENETDOWN, tested elsewhere */
	EXPECT_EQ(-ENETDOWN, ct_send(self->tx, 0x1, 1));
}

TEST_F(raw, bind_to_down_interface_succeeds_and_reports_enetdown)
{
	int fd = ct_raw_socket();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ct_link_set_up(self->ifname, false));
	EXPECT_EQ(0, ct_bind(fd, self->ifindex));
	EXPECT_EQ(ENETDOWN, ct_sock_error(fd));
	close(fd);
}

TEST_F(raw, send_with_wrong_frame_size_fails_einval)
{
	static const size_t sizes[] = { 1, 8, CAN_MTU - 1, CAN_MTU + 1,
					CANFD_MTU - 1, CANFD_MTU + 1, 4096 };
	char buf[4096] = {};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		errno = 0;
		EXPECT_EQ(-1, write(self->tx, buf, sizes[i]))
			TH_LOG("size %zu", sizes[i]);
		EXPECT_EQ(EINVAL, errno) TH_LOG("size %zu", sizes[i]);
	}
}

TEST_F(raw, classic_frame_longer_than_8_fails_einval)
{
	struct can_frame cf = ct_frame(0x1, 0);

	cf.len = CAN_MAX_DLEN + 1;
	EXPECT_EQ(-1, write(self->tx, &cf, sizeof(cf)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(raw, poll_reports_writable_socket)
{
	struct pollfd pfd = { .fd = self->tx, .events = POLLOUT };

	EXPECT_EQ(1, poll(&pfd, 1, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(pfd.revents & POLLOUT);
}

TEST_HARNESS_MAIN
