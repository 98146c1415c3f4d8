// SPDX-License-Identifier: GPL-2.0
/*
 * CAN FD on CAN_RAW: FD frames need CAN_RAW_FD_FRAMES on the socket and
 * the FD MTU (72) on the device; classic frames pass everywhere and
 * reach FD sockets as classic frames. Each test runs on a classic
 * (MTU 16) and an FD (MTU 72) vcan.
 */

#include "kselftest_harness.h"
#include "lib/can_test.h"

FIXTURE(fd)
{
	char ifname[IFNAMSIZ];
	int ifindex;
	int tx;		/* CAN_RAW_FD_FRAMES on */
	int rx_fd;	/* CAN_RAW_FD_FRAMES on */
	int rx_classic;
};

FIXTURE_VARIANT(fd)
{
	int mtu;
	bool is_fd;
};

FIXTURE_VARIANT_ADD(fd, classic_device) { .mtu = CAN_MTU, .is_fd = false };
FIXTURE_VARIANT_ADD(fd, fd_device) { .mtu = CANFD_MTU, .is_fd = true };

FIXTURE_SETUP(fd)
{
	self->tx = -1;
	self->rx_fd = -1;
	self->rx_classic = -1;
	ct_ifname(self->ifname, 'd');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, variant->mtu, true));
	ASSERT_EQ(variant->mtu, ct_link_mtu(self->ifname));
	self->ifindex = if_nametoindex(self->ifname);
	self->tx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->tx);
	ASSERT_EQ(0, ct_setopt_int(self->tx, CAN_RAW_FD_FRAMES, 1));
	self->rx_fd = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->rx_fd);
	ASSERT_EQ(0, ct_setopt_int(self->rx_fd, CAN_RAW_FD_FRAMES, 1));
	self->rx_classic = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->rx_classic);
}

FIXTURE_TEARDOWN(fd)
{
	if (self->tx >= 0)
		close(self->tx);
	if (self->rx_fd >= 0)
		close(self->rx_fd);
	if (self->rx_classic >= 0)
		close(self->rx_classic);
	ct_link_del(self->ifname);
}

static struct canfd_frame fd_frame(canid_t id, int len, int flags)
{
	struct canfd_frame cfd = { .can_id = id, .len = len, .flags = flags };
	int i;

	for (i = 0; i < len; i++)
		cfd.data[i] = 0xa0 ^ i;
	return cfd;
}

TEST_F(fd, classic_frame_reaches_fd_socket_as_classic)
{
	struct canfd_frame got;

	ASSERT_EQ(0, ct_send(self->tx, 0x123, 8));
	EXPECT_EQ(CAN_MTU, ct_recv(self->rx_fd, &got, sizeof(got),
				   CT_RX_TIMEOUT_MS, NULL, NULL));
	EXPECT_EQ(0x123, got.can_id);
	EXPECT_EQ(8, got.len);
	EXPECT_EQ(CAN_MTU, ct_recv(self->rx_classic, &got, sizeof(got),
				   CT_RX_TIMEOUT_MS, NULL, NULL));
}

TEST_F(fd, fd_frame_from_socket_without_fd_option_fails_einval)
{
	struct canfd_frame cfd = fd_frame(0x123, 12, 0);

	ASSERT_EQ(0, ct_setopt_int(self->tx, CAN_RAW_FD_FRAMES, 0));
	EXPECT_EQ(-1, write(self->tx, &cfd, sizeof(cfd)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(fd, fd_frame_is_sent_only_on_fd_device)
{
	struct canfd_frame cfd = fd_frame(0x123, 64, CANFD_BRS);
	ssize_t n;

	errno = 0;
	n = write(self->tx, &cfd, sizeof(cfd));
	if (variant->is_fd) {
		EXPECT_EQ(CANFD_MTU, n);
	} else {
		EXPECT_EQ(-1, n);
		EXPECT_EQ(EINVAL, errno);
	}
}

TEST_F(fd, fd_frame_reaches_fd_socket_with_payload_and_flags)
{
	struct canfd_frame cfd = fd_frame(0x1abcdef | CAN_EFF_FLAG, 48,
					  CANFD_BRS | CANFD_ESI), got;

	if (!variant->is_fd)
		SKIP(return, "FD frames cannot be sent on a classic device");
	ASSERT_EQ(CANFD_MTU, write(self->tx, &cfd, sizeof(cfd)));
	ASSERT_EQ(CANFD_MTU, ct_recv(self->rx_fd, &got, sizeof(got),
				     CT_RX_TIMEOUT_MS, NULL, NULL));
	EXPECT_EQ(cfd.can_id, got.can_id);
	EXPECT_EQ(48, got.len);
	EXPECT_EQ(CANFD_BRS | CANFD_ESI, got.flags & (CANFD_BRS | CANFD_ESI));
	EXPECT_EQ(0, memcmp(cfd.data, got.data, 48));
}

TEST_F(fd, fd_frame_is_marked_with_fdf_flag)
{
	struct canfd_frame cfd = fd_frame(0x123, 8, 0), got;

	if (!variant->is_fd)
		SKIP(return, "FD frames cannot be sent on a classic device");
	ASSERT_EQ(CANFD_MTU, write(self->tx, &cfd, sizeof(cfd)));
	ASSERT_EQ(CANFD_MTU, ct_recv(self->rx_fd, &got, sizeof(got),
				     CT_RX_TIMEOUT_MS, NULL, NULL));
	EXPECT_TRUE(got.flags & CANFD_FDF);
}

TEST_F(fd, fd_frame_skips_classic_socket)
{
	struct canfd_frame cfd = fd_frame(0x123, 16, 0);

	if (!variant->is_fd)
		SKIP(return, "FD frames cannot be sent on a classic device");
	ASSERT_EQ(CANFD_MTU, write(self->tx, &cfd, sizeof(cfd)));
	ASSERT_EQ(CANFD_MTU, ct_recv(self->rx_fd, &cfd, sizeof(cfd),
				     CT_RX_TIMEOUT_MS, NULL, NULL));
	/* a classic marker behind it shows the FD frame was skipped */
	ASSERT_EQ(0, ct_send(self->tx, 0x200, 1));
	EXPECT_EQ(0x200, ct_recv_id(self->rx_classic, CT_RX_TIMEOUT_MS));
}

TEST_F(fd, fd_frame_longer_than_64_fails_einval)
{
	struct canfd_frame cfd = fd_frame(0x123, 0, 0);

	cfd.len = CANFD_MAX_DLEN + 1;
	EXPECT_EQ(-1, write(self->tx, &cfd, sizeof(cfd)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(fd, classic_size_write_from_fd_socket_is_classic)
{
	struct can_frame cf = ct_frame(0x42, 8);
	struct canfd_frame got;

	ASSERT_EQ(CAN_MTU, write(self->tx, &cf, CAN_MTU));
	EXPECT_EQ(CAN_MTU, ct_recv(self->rx_classic, &got, sizeof(got),
				   CT_RX_TIMEOUT_MS, NULL, NULL));
	EXPECT_EQ(0x42, got.can_id);
}

TEST_F(fd, fd_option_reads_back_per_socket)
{
	int val = -1;
	socklen_t len = sizeof(val);

	ASSERT_EQ(0, getsockopt(self->rx_classic, SOL_CAN_RAW,
				CAN_RAW_FD_FRAMES, &val, &len));
	EXPECT_EQ(0, val);
	ASSERT_EQ(0, getsockopt(self->rx_fd, SOL_CAN_RAW, CAN_RAW_FD_FRAMES,
				&val, &len));
	EXPECT_EQ(1, val);
}

TEST_HARNESS_MAIN
