// SPDX-License-Identifier: GPL-2.0
/*
 * The vcan driver as user space sees it: link type and flags, the MTU
 * rules for switching between classic CAN and CAN FD, and the interface
 * statistics for looped, unlooped and malformed frames. can_vcan_echo.sh
 * runs this program again with the module parameter echo=1.
 */

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <net/if_arp.h>
#include <netpacket/packet.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"

#ifndef IFF_ECHO
#define IFF_ECHO 0x40000	/* linux/if.h, which clashes with net/if.h */
#endif

FIXTURE(vcan)
{
	char ifname[IFNAMSIZ];
	int ifindex;
	int tx;
};

FIXTURE_SETUP(vcan)
{
	self->tx = -1;
	ct_ifname(self->ifname, 'v');
	ASSERT_EQ(0, ct_vcan_add(self->ifname));
	self->ifindex = if_nametoindex(self->ifname);
	ASSERT_NE(0, self->ifindex);
}

FIXTURE_TEARDOWN(vcan)
{
	if (self->tx >= 0)
		close(self->tx);
	ct_link_del(self->ifname);
}

static long sysfs_value(const char *ifname, const char *attr)
{
	char path[128], *text;
	long val;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	text = ct_read_file(path);
	if (!text)
		return -1;
	val = strtol(text, NULL, 0);
	free(text);
	return val;
}

/* Bring the link up and open a sender on it. */
static int start(struct _test_data_vcan *self)
{
	int err = ct_link_set_up(self->ifname, true);

	if (err)
		return err;
	self->tx = ct_raw_open(self->ifindex);
	return self->tx < 0 ? self->tx : 0;
}

TEST_F(vcan, new_link_is_can_type_without_arp)
{
	EXPECT_EQ(ARPHRD_CAN, sysfs_value(self->ifname, "type"));
	EXPECT_TRUE(sysfs_value(self->ifname, "flags") & IFF_NOARP);
	EXPECT_EQ(0, sysfs_value(self->ifname, "addr_len"));
}

TEST_F(vcan, new_link_has_fd_mtu)
{
	EXPECT_EQ(CANFD_MTU, ct_link_mtu(self->ifname));
}

TEST_F(vcan, link_has_iff_echo_exactly_when_module_echoes)
{
	char *param = ct_read_file("/sys/module/vcan/parameters/echo");
	bool has_echo;

	ASSERT_NE(NULL, param);
	has_echo = param[0] == 'Y';
	free(param);
	EXPECT_EQ(has_echo, !!(sysfs_value(self->ifname, "flags") & IFF_ECHO));
}

TEST_F(vcan, mtu_switches_between_classic_and_fd_while_down)
{
	EXPECT_EQ(0, ct_link_set_mtu(self->ifname, CAN_MTU));
	EXPECT_EQ(CAN_MTU, ct_link_mtu(self->ifname));
	EXPECT_EQ(0, ct_link_set_mtu(self->ifname, CANFD_MTU));
	EXPECT_EQ(CANFD_MTU, ct_link_mtu(self->ifname));
}

TEST_F(vcan, mtu_of_other_size_fails_einval)
{
	/* CAN XL sizes (76 and up) are left out: some 6.1 trees accept them */
	static const int bad[] = { 0, 1, CAN_MTU - 1, CAN_MTU + 1, 64,
				   CANFD_MTU + 1, CANFD_MTU + 3 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int mtu = bad[i];

		EXPECT_EQ(-EINVAL, ct_link_set_mtu(self->ifname, mtu))
			TH_LOG("mtu %d", mtu);
	}
	EXPECT_EQ(CANFD_MTU, ct_link_mtu(self->ifname));
}

TEST_F(vcan, mtu_change_while_up_fails_ebusy)
{
	ASSERT_EQ(0, ct_link_set_up(self->ifname, true));
	EXPECT_EQ(-EBUSY, ct_link_set_mtu(self->ifname, CAN_MTU));
	EXPECT_EQ(CANFD_MTU, ct_link_mtu(self->ifname));
}

TEST_F(vcan, statistics_count_looped_frames_both_ways)
{
	int i;

	ASSERT_EQ(0, start(self));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, ct_send(self->tx, 0x10, 5));
	EXPECT_EQ(3, ct_link_stat(self->ifname, "tx_packets"));
	EXPECT_EQ(15, ct_link_stat(self->ifname, "tx_bytes"));
	EXPECT_EQ(3, ct_link_stat(self->ifname, "rx_packets"));
	EXPECT_EQ(15, ct_link_stat(self->ifname, "rx_bytes"));
}

TEST_F(vcan, statistics_count_remote_request_as_zero_bytes)
{
	struct can_frame cf = ct_frame(0x10 | CAN_RTR_FLAG, 0);

	ASSERT_EQ(0, start(self));
	cf.len = 4;	/* requested length, nothing on the bus */
	ASSERT_EQ(CAN_MTU, write(self->tx, &cf, sizeof(cf)));
	EXPECT_EQ(1, ct_link_stat(self->ifname, "tx_packets"));
	EXPECT_EQ(0, ct_link_stat(self->ifname, "tx_bytes"));
	EXPECT_EQ(0, ct_link_stat(self->ifname, "rx_bytes"));
}

TEST_F(vcan, statistics_count_fd_payload)
{
	struct canfd_frame cfd = { .can_id = 0x10, .len = 64 };

	ASSERT_EQ(0, start(self));
	ASSERT_EQ(0, ct_setopt_int(self->tx, CAN_RAW_FD_FRAMES, 1));
	ASSERT_EQ(CANFD_MTU, write(self->tx, &cfd, sizeof(cfd)));
	EXPECT_EQ(64, ct_link_stat(self->ifname, "tx_bytes"));
	EXPECT_EQ(64, ct_link_stat(self->ifname, "rx_bytes"));
}

TEST_F(vcan, statistics_without_loopback_count_tx_only)
{
	ASSERT_EQ(0, start(self));
	ASSERT_EQ(0, ct_setopt_int(self->tx, CAN_RAW_LOOPBACK, 0));
	ASSERT_EQ(0, ct_send(self->tx, 0x10, 8));
	EXPECT_EQ(1, ct_link_stat(self->ifname, "tx_packets"));
	EXPECT_EQ(8, ct_link_stat(self->ifname, "tx_bytes"));
	EXPECT_EQ(0, ct_link_stat(self->ifname, "rx_packets"));
}

static int packet_send(int ifindex, const void *buf, size_t len)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = ifindex,
		.sll_protocol = htons(ETH_P_CAN),
	};
	int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_CAN));
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = sendto(fd, buf, len, 0, (struct sockaddr *)&sll, sizeof(sll));
	close(fd);
	return n < 0 ? -errno : (int)n;
}

TEST_F(vcan, malformed_frame_from_packet_socket_counts_tx_dropped)
{
	char junk[10] = { 1, 2, 3 };

	ASSERT_EQ(0, start(self));
	EXPECT_EQ(sizeof(junk), packet_send(self->ifindex, junk, sizeof(junk)));
	EXPECT_EQ(1, ct_link_stat(self->ifname, "tx_dropped"));
	EXPECT_EQ(0, ct_link_stat(self->ifname, "tx_packets"));
}

TEST_F(vcan, classic_frame_too_long_from_packet_socket_is_dropped)
{
	struct can_frame cf = ct_frame(0x10, 0);

	ASSERT_EQ(0, start(self));
	cf.len = CAN_MAX_DLEN + 1;
	EXPECT_EQ(CAN_MTU, packet_send(self->ifindex, &cf, sizeof(cf)));
	EXPECT_EQ(1, ct_link_stat(self->ifname, "tx_dropped"));
}

/*
 * A packet socket bypasses the core, so nobody asked for a local echo:
 * the frame is looped back only by a driver that echoes itself
 * (IFF_ECHO), as a real controller reports what it put on the bus.
 */
TEST_F(vcan, packet_socket_frame_is_looped_only_by_echoing_driver)
{
	struct can_frame cf = ct_frame(0x10, 2);
	bool has_echo;
	int rx;

	ASSERT_EQ(0, start(self));
	has_echo = sysfs_value(self->ifname, "flags") & IFF_ECHO;
	rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, rx);
	EXPECT_EQ(CAN_MTU, packet_send(self->ifindex, &cf, sizeof(cf)));
	EXPECT_EQ(1, ct_link_stat(self->ifname, "tx_packets"));
	EXPECT_EQ(has_echo, ct_link_stat(self->ifname, "rx_packets"));
	/* a looped marker follows; without echo it is the first to arrive */
	ASSERT_EQ(0, ct_send(self->tx, 0x20, 1));
	if (has_echo)
		EXPECT_EQ(0x10, ct_recv_id(rx, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(0x20, ct_recv_id(rx, CT_RX_TIMEOUT_MS));
	close(rx);
}

TEST_HARNESS_MAIN
