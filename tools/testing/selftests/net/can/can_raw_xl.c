// SPDX-License-Identifier: GPL-2.0
/*
 * CAN XL on CAN_RAW and vcan: XL frames need CAN_RAW_XL_FRAMES on the
 * socket and an XL MTU on the device; their size must be the header plus
 * their length field, XLF must be set, and every other flag and priority
 * bit passes unchanged, as in mainline. Sockets without the option never
 * see an XL frame, whatever its size. Packet sockets inject XL frames on
 * vcan (transmit path) and vxcan (receive path of the peer).
 */

#include "kselftest_harness.h"
#include "lib/can_test.h"

/* A recognisable frame: header fields and data derived from @len. */
static void xl_fill(struct canxl_frame *cxl, canid_t prio, int flags, int len)
{
	int i;

	memset(cxl, 0, sizeof(*cxl));
	cxl->prio = prio;
	cxl->flags = flags;
	cxl->sdt = 0x5a;
	cxl->len = len;
	cxl->af = 0x12345678 ^ len;
	for (i = 0; i < len && i < CANXL_MAX_DLEN; i++)
		cxl->data[i] = (i * 7 + len) & 0xff;
}

/* Write @size bytes of @cxl; 0 if all went, -errno if refused. */
static int xl_write(int fd, const struct canxl_frame *cxl, size_t size)
{
	ssize_t n = write(fd, cxl, size);

	if (n < 0)
		return -errno;
	return n == (ssize_t)size ? 0 : -EIO;
}

static int xl_send(int fd, canid_t prio, int flags, int len)
{
	struct canxl_frame cxl;

	xl_fill(&cxl, prio, flags, len);
	return xl_write(fd, &cxl, CANXL_HDR_SIZE + len);
}

/* Receive one frame into @got; its size, -ETIMEDOUT or -errno. */
static int xl_recv(int fd, struct canxl_frame *got, int ms)
{
	return ct_recv(fd, got, sizeof(*got), ms, NULL, NULL);
}

/* Whether @got is the frame xl_fill() makes for these values. */
static bool xl_is(const struct canxl_frame *got, canid_t prio, int flags,
		  int len)
{
	struct canxl_frame want;

	xl_fill(&want, prio, flags, len);
	return !memcmp(got, &want, CANXL_HDR_SIZE + len);
}

/* An XL vcan, an XL sender and receiver, an FD and a classic receiver. */
FIXTURE(xl)
{
	char ifname[IFNAMSIZ];
	int ifindex;
	int tx;
	int rx;
	int rx_fd;
	int rx_cc;
};

FIXTURE_VARIANT(xl)
{
	int mtu;
};

FIXTURE_VARIANT_ADD(xl, max_mtu) { .mtu = CANXL_MAX_MTU };
FIXTURE_VARIANT_ADD(xl, min_mtu) { .mtu = CANXL_MIN_MTU };

static int xl_socket(int ifindex, int opt)
{
	int fd = ct_raw_open(ifindex);

	if (fd >= 0 && opt && ct_setopt_int(fd, opt, 1)) {
		close(fd);
		return -1;
	}
	return fd;
}

FIXTURE_SETUP(xl)
{
	ct_ifname(self->ifname, 'x');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, variant->mtu, true));
	ASSERT_EQ(variant->mtu, ct_link_mtu(self->ifname));
	self->ifindex = if_nametoindex(self->ifname);
	self->tx = xl_socket(self->ifindex, CAN_RAW_XL_FRAMES);
	self->rx = xl_socket(self->ifindex, CAN_RAW_XL_FRAMES);
	self->rx_fd = xl_socket(self->ifindex, CAN_RAW_FD_FRAMES);
	self->rx_cc = xl_socket(self->ifindex, 0);
	ASSERT_LE(0, self->tx);
	ASSERT_LE(0, self->rx);
	ASSERT_LE(0, self->rx_fd);
	ASSERT_LE(0, self->rx_cc);
}

FIXTURE_TEARDOWN(xl)
{
	close(self->tx);
	close(self->rx);
	close(self->rx_fd);
	close(self->rx_cc);
	ct_link_del(self->ifname);
}

static int max_len(int mtu)
{
	return mtu - CANXL_HDR_SIZE;
}

TEST_F(xl, xl_option_switches_fd_frames_on_and_keeps_them)
{
	int s = ct_raw_socket(), val = 0;
	socklen_t len = sizeof(val);

	ASSERT_LE(0, s);
	ASSERT_EQ(0, ct_setopt_int(s, CAN_RAW_XL_FRAMES, 1));
	ASSERT_EQ(0, getsockopt(s, SOL_CAN_RAW, CAN_RAW_FD_FRAMES, &val, &len));
	EXPECT_EQ(1, val);
	EXPECT_EQ(-EINVAL, ct_setopt_int(s, CAN_RAW_FD_FRAMES, 0));
	ASSERT_EQ(0, getsockopt(s, SOL_CAN_RAW, CAN_RAW_FD_FRAMES, &val, &len));
	EXPECT_EQ(1, val);
	EXPECT_EQ(0, ct_setopt_int(s, CAN_RAW_XL_FRAMES, 0));
	EXPECT_EQ(0, ct_setopt_int(s, CAN_RAW_FD_FRAMES, 0));
	close(s);
}

TEST_F(xl, every_length_arrives_unchanged)
{
	struct canxl_frame got;
	int len, bad = 0;

	for (len = CANXL_MIN_DLEN; len <= max_len(variant->mtu); len++) {
		ASSERT_EQ(0, xl_send(self->tx, 0x123, CANXL_XLF, len))
			TH_LOG("len %d", len);
		EXPECT_EQ(CANXL_HDR_SIZE + len,
			  xl_recv(self->rx, &got, CT_RX_TIMEOUT_MS));
		if (!xl_is(&got, 0x123, CANXL_XLF, len) && bad++ < 5)
			TH_LOG("len %d: frame changed on the way", len);
	}
	EXPECT_EQ(0, bad);
}

TEST_F(xl, length_beyond_the_mtu_fails_emsgsize)
{
	int len = max_len(variant->mtu) + 1;

	if (len > CANXL_MAX_DLEN)
		SKIP(return, "MTU %d carries every length", variant->mtu);
	EXPECT_EQ(-EMSGSIZE, xl_send(self->tx, 0x123, CANXL_XLF, len));
	EXPECT_EQ(-EMSGSIZE, xl_send(self->tx, 0x123, CANXL_XLF, CANXL_MAX_DLEN));
	EXPECT_TRUE(ct_is_quiet(self->rx));
}

/* Sizes other than header plus length, for every length: mainline too
 * takes the size written as the frame's and checks it against .len.
 */
TEST_F(xl, size_other_than_header_plus_len_fails_einval)
{
	static unsigned char big[CANXL_MTU + 1];
	struct canxl_frame cxl;
	int len, bad = 0;

	for (len = CANXL_MIN_DLEN; len <= CANXL_MAX_DLEN; len++) {
		size_t size = CANXL_HDR_SIZE + len;

		xl_fill(&cxl, 0x123, CANXL_XLF, len);
		bad += xl_write(self->tx, &cxl, size - 1) != -EINVAL;
		if (size < CANXL_MTU)
			bad += xl_write(self->tx, &cxl, size + 1) != -EINVAL;
		if (size + 1 < CANXL_MTU)
			bad += xl_write(self->tx, &cxl, CANXL_MTU) != -EINVAL;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(-1, write(self->tx, big, sizeof(big)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_TRUE(ct_is_quiet(self->rx));
}

TEST_F(xl, length_field_out_of_range_fails_einval)
{
	static const int lens[] = { 0, CANXL_MAX_DLEN + 1, 0x7fff, 0xffff };
	struct canxl_frame cxl;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		xl_fill(&cxl, 0x123, CANXL_XLF, 8);
		cxl.len = lens[i];
		EXPECT_EQ(-EINVAL, xl_write(self->tx, &cxl, CANXL_HDR_SIZE + 8))
			TH_LOG("len %d", lens[i]);
		EXPECT_EQ(-EINVAL, xl_write(self->tx, &cxl, CANXL_MTU))
			TH_LOG("len %d", lens[i]);
	}
	EXPECT_TRUE(ct_is_quiet(self->rx));
}

/* XLF decides; SEC, RRS (0x02) and the reserved bits pass as they are. */
TEST_F(xl, every_flag_combination_with_xlf_passes_unchanged)
{
	struct canxl_frame got;
	int flags, bad = 0;

	for (flags = 0; flags < 256; flags++) {
		int err = xl_send(self->tx, 0x42, flags, 8);

		if (!(flags & CANXL_XLF)) {
			bad += err != -EINVAL;
			continue;
		}
		ASSERT_EQ(0, err) TH_LOG("flags %#x", flags);
		ASSERT_EQ(CANXL_HDR_SIZE + 8,
			  xl_recv(self->rx, &got, CT_RX_TIMEOUT_MS));
		bad += !xl_is(&got, 0x42, flags, 8);
	}
	EXPECT_EQ(0, bad);
	EXPECT_TRUE(ct_is_quiet(self->rx));
}

/* The priority field goes out as written, VCID and flag bits included. */
TEST_F(xl, priority_passes_unchanged)
{
	static const canid_t prios[] = {
		0, 1, 0x123, CANXL_PRIO_MASK, 0x800, 0xab0123,
		CAN_EFF_FLAG | 0x123, CAN_RTR_FLAG | 0x123,
	};
	struct canxl_frame got;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(prios); i++) {
		ASSERT_EQ(0, xl_send(self->tx, prios[i], CANXL_XLF, 3));
		ASSERT_EQ(CANXL_HDR_SIZE + 3,
			  xl_recv(self->rx, &got, CT_RX_TIMEOUT_MS));
		EXPECT_TRUE(xl_is(&got, prios[i], CANXL_XLF, 3))
			TH_LOG("prio %#x came as %#x", prios[i], got.prio);
	}
}

TEST_F(xl, filters_select_by_priority)
{
	struct can_filter f = { .can_id = 0x123, .can_mask = CAN_SFF_MASK };
	struct canxl_frame got;

	ASSERT_EQ(0, ct_set_filters(self->rx, &f, 1));
	ASSERT_EQ(0, xl_send(self->tx, 0x124, CANXL_XLF, 5));
	ASSERT_EQ(0, xl_send(self->tx, 0x123, CANXL_XLF, 6));
	ASSERT_EQ(CANXL_HDR_SIZE + 6, xl_recv(self->rx, &got, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(xl_is(&got, 0x123, CANXL_XLF, 6));
	EXPECT_TRUE(ct_is_quiet(self->rx));
}

TEST_F(xl, xl_frame_without_the_option_fails_einval)
{
	int s = xl_socket(self->ifindex, CAN_RAW_FD_FRAMES);

	ASSERT_LE(0, s);
	EXPECT_EQ(-EINVAL, xl_send(s, 0x123, CANXL_XLF, 8));
	EXPECT_EQ(-EINVAL, xl_send(self->rx_cc, 0x123, CANXL_XLF, 8));
	EXPECT_TRUE(ct_is_quiet(self->rx));
	close(s);
}

/* A 4-byte XL frame is as long as a classic one, a 60-byte one as an FD
 * frame: neither may reach a socket that did not ask for XL.
 */
TEST_F(xl, sockets_without_the_option_never_see_xl_frames)
{
	static const int lens[] = { 1, 4, 8, 60, 64 };
	struct canxl_frame got;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		ASSERT_EQ(0, xl_send(self->tx, 0x123, CANXL_XLF, lens[i]));
		EXPECT_EQ(CANXL_HDR_SIZE + lens[i],
			  xl_recv(self->rx, &got, CT_RX_TIMEOUT_MS));
	}
	EXPECT_TRUE(ct_is_quiet(self->rx_fd));
	EXPECT_TRUE(ct_is_quiet(self->rx_cc));
}

TEST_F(xl, classic_fd_and_xl_frames_mix_on_one_device)
{
	struct canfd_frame cfd = { .can_id = 0x200, .len = 64 };
	struct canxl_frame got;

	ASSERT_EQ(0, ct_send(self->tx, 0x100, 8));
	ASSERT_EQ(CANFD_MTU, write(self->tx, &cfd, sizeof(cfd)));
	ASSERT_EQ(0, xl_send(self->tx, 0x300, CANXL_XLF, 64));

	EXPECT_EQ(CAN_MTU, xl_recv(self->rx, &got, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(0x100, got.prio);
	EXPECT_EQ(CANFD_MTU, xl_recv(self->rx, &got, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(0x200, got.prio);
	EXPECT_EQ(CANXL_HDR_SIZE + 64, xl_recv(self->rx, &got, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(xl_is(&got, 0x300, CANXL_XLF, 64));

	EXPECT_EQ(CAN_MTU, xl_recv(self->rx_fd, &got, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(CANFD_MTU, xl_recv(self->rx_fd, &got, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(CAN_MTU, xl_recv(self->rx_cc, &got, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(ct_is_quiet(self->rx_fd));
	EXPECT_TRUE(ct_is_quiet(self->rx_cc));
}

TEST_F(xl, own_frames_and_loopback_follow_the_options)
{
	struct canxl_frame got;
	int flags = 0;

	ASSERT_EQ(0, ct_setopt_int(self->tx, CAN_RAW_RECV_OWN_MSGS, 1));
	ASSERT_EQ(0, xl_send(self->tx, 0x11, CANXL_XLF, 20));
	ASSERT_EQ(CANXL_HDR_SIZE + 20,
		  ct_recv(self->tx, &got, sizeof(got), CT_RX_TIMEOUT_MS, &flags, NULL));
	EXPECT_TRUE(flags & MSG_CONFIRM);
	ASSERT_EQ(CANXL_HDR_SIZE + 20, xl_recv(self->rx, &got, CT_RX_TIMEOUT_MS));

	ASSERT_EQ(0, ct_setopt_int(self->tx, CAN_RAW_LOOPBACK, 0));
	ASSERT_EQ(0, xl_send(self->tx, 0x12, CANXL_XLF, 20));
	EXPECT_TRUE(ct_is_quiet(self->rx));
	EXPECT_TRUE(ct_is_quiet(self->tx));
}

TEST_F(xl, statistics_count_xl_frames_and_payload)
{
	long tx0 = ct_proc_stat("TXF"), rx0 = ct_proc_stat("RXF");
	long long bytes0 = ct_link_stat(self->ifname, "tx_bytes");
	long long pkts0 = ct_link_stat(self->ifname, "tx_packets");
	int len = max_len(variant->mtu);

	ASSERT_EQ(0, xl_send(self->tx, 0x1, CANXL_XLF, len));
	ASSERT_EQ(0, xl_send(self->tx, 0x2, CANXL_XLF, 1));
	ASSERT_EQ(0, ct_send(self->tx, 0x3, 8));
	EXPECT_EQ(3, ct_link_stat(self->ifname, "tx_packets") - pkts0);
	EXPECT_EQ(len + 1 + 8, ct_link_stat(self->ifname, "tx_bytes") - bytes0);
	EXPECT_LE(3, ct_proc_stat("TXF") - tx0);
	EXPECT_LE(3, ct_proc_stat("RXF") - rx0);
}

/* Every length through a packet socket: a valid XL frame is sent and
 * counted, one whose size does not fit its length field or that lacks
 * XLF is dropped and counted.
 */
TEST_F_TIMEOUT(xl, injected_xl_frames_of_every_length_are_checked, 180)
{
	long long pkts0 = ct_link_stat(self->ifname, "tx_packets");
	long long drop0 = ct_link_stat(self->ifname, "tx_dropped");
	int len, good = 0, bad = 0;
	struct canxl_frame cxl;
	int pkt = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ASSERT_LE(0, pkt);
	for (len = CANXL_MIN_DLEN; len <= max_len(variant->mtu); len++) {
		size_t size = CANXL_HDR_SIZE + len;

		xl_fill(&cxl, 0x77, CANXL_XLF, len);
		ASSERT_EQ(0, ct_packet_sendto(pkt, self->ifindex, ETH_P_CANXL,
					      &cxl, size));
		good++;
		if (size < (size_t)variant->mtu) {
			ASSERT_EQ(0, ct_packet_sendto(pkt, self->ifindex,
						      ETH_P_CANXL, &cxl, size + 1));
			bad++;
		}
		cxl.flags = CANXL_SEC;
		ASSERT_EQ(0, ct_packet_sendto(pkt, self->ifindex, ETH_P_CANXL,
					      &cxl, size));
		bad++;
	}
	EXPECT_EQ(good, ct_link_stat(self->ifname, "tx_packets") - pkts0);
	EXPECT_EQ(bad, ct_link_stat(self->ifname, "tx_dropped") - drop0);
	close(pkt);
}

/* Devices without an XL MTU ---------------------------------------------- */

FIXTURE(no_xl)
{
	char ifname[IFNAMSIZ];
	int ifindex;
	int tx;
	int rx;
};

FIXTURE_VARIANT(no_xl)
{
	int mtu;
};

FIXTURE_VARIANT_ADD(no_xl, classic) { .mtu = CAN_MTU };
FIXTURE_VARIANT_ADD(no_xl, fd) { .mtu = CANFD_MTU };

FIXTURE_SETUP(no_xl)
{
	ct_ifname(self->ifname, 'n');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, variant->mtu, true));
	self->ifindex = if_nametoindex(self->ifname);
	self->tx = xl_socket(self->ifindex, CAN_RAW_XL_FRAMES);
	self->rx = xl_socket(self->ifindex, CAN_RAW_XL_FRAMES);
	ASSERT_LE(0, self->tx);
	ASSERT_LE(0, self->rx);
}

FIXTURE_TEARDOWN(no_xl)
{
	close(self->tx);
	close(self->rx);
	ct_link_del(self->ifname);
}

/* Also the lengths whose frames fit the device's MTU (1 to 4 on classic). */
TEST_F(no_xl, xl_frame_is_refused_einval)
{
	static const int lens[] = { 1, 4, 8, 60, 64, CANXL_MAX_DLEN };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++)
		EXPECT_EQ(-EINVAL, xl_send(self->tx, 0x123, CANXL_XLF, lens[i]))
			TH_LOG("len %d", lens[i]);
	EXPECT_EQ(0, ct_send(self->tx, 0x124, 8));
	EXPECT_EQ(CAN_MTU, ct_recv(self->rx, &(struct canxl_frame){}, CANXL_MTU,
				   CT_RX_TIMEOUT_MS, NULL, NULL));
	EXPECT_TRUE(ct_is_quiet(self->rx));
}

TEST_F(no_xl, injected_xl_frame_that_fits_the_mtu_is_dropped)
{
	long long pkts0 = ct_link_stat(self->ifname, "tx_packets");
	long long drop0 = ct_link_stat(self->ifname, "tx_dropped");
	struct canxl_frame cxl;

	xl_fill(&cxl, 0x77, CANXL_XLF, 4);
	ASSERT_EQ(0, ct_packet_send(self->ifname, ETH_P_CANXL, &cxl,
				    CANXL_HDR_SIZE + 4));
	EXPECT_EQ(0, ct_link_stat(self->ifname, "tx_packets") - pkts0);
	EXPECT_EQ(1, ct_link_stat(self->ifname, "tx_dropped") - drop0);
}

/* vcan's MTU ------------------------------------------------------------- */

FIXTURE(xl_mtu)
{
	char ifname[IFNAMSIZ];
};

FIXTURE_SETUP(xl_mtu)
{
	ct_ifname(self->ifname, 'm');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, false));
}

FIXTURE_TEARDOWN(xl_mtu)
{
	ct_link_del(self->ifname);
}

TEST_F(xl_mtu, every_xl_mtu_is_accepted_while_down)
{
	int mtu, bad = 0;

	for (mtu = CANXL_MIN_MTU; mtu <= CANXL_MAX_MTU; mtu++)
		bad += ct_link_set_mtu(self->ifname, mtu) ||
		       ct_link_mtu(self->ifname) != mtu;
	EXPECT_EQ(0, bad);
}

TEST_F(xl_mtu, sizes_next_to_the_xl_range_fail_einval)
{
	static const int bad[] = {
		CANFD_MTU + 1, CANXL_MIN_MTU - 1, CANXL_MAX_MTU + 1, 65535,
		-1, -(int)CANXL_MIN_MTU,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(-EINVAL, ct_link_set_mtu(self->ifname, bad[i]))
			TH_LOG("mtu %d", bad[i]);
	EXPECT_EQ(CANFD_MTU, ct_link_mtu(self->ifname));
}

TEST_F(xl_mtu, switches_back_to_classic_and_fd)
{
	ASSERT_EQ(0, ct_link_set_mtu(self->ifname, CANXL_MTU));
	ASSERT_EQ(0, ct_link_set_up(self->ifname, true));
	EXPECT_EQ(-EBUSY, ct_link_set_mtu(self->ifname, CAN_MTU));
	EXPECT_EQ(CANXL_MTU, ct_link_mtu(self->ifname));
	ASSERT_EQ(0, ct_link_set_up(self->ifname, false));
	EXPECT_EQ(0, ct_link_set_mtu(self->ifname, CAN_MTU));
	EXPECT_EQ(CAN_MTU, ct_link_mtu(self->ifname));
	EXPECT_EQ(0, ct_link_set_mtu(self->ifname, CANXL_MIN_MTU));
	EXPECT_EQ(0, ct_link_set_mtu(self->ifname, CANFD_MTU));
	EXPECT_EQ(CANFD_MTU, ct_link_mtu(self->ifname));
}

/* Injected on one vxcan end, received on the other ---------------------- */

FIXTURE(xl_inject_rx)
{
	char a[IFNAMSIZ];
	char b[IFNAMSIZ];
	int rx;
	int rx_fd;
};

FIXTURE_SETUP(xl_inject_rx)
{
	self->rx = -1;
	self->rx_fd = -1;
	ct_ifname(self->a, 'a');
	ct_ifname(self->b, 'b');
	ASSERT_EQ(0, ct_vxcan_add(self->a, self->b, -1));
	ASSERT_EQ(0, ct_link_set_mtu(self->a, CANXL_MTU));
	ASSERT_EQ(0, ct_link_set_mtu(self->b, CANXL_MTU));
	ASSERT_EQ(0, ct_link_set_up(self->a, true));
	ASSERT_EQ(0, ct_link_set_up(self->b, true));
	self->rx = xl_socket(if_nametoindex(self->b), CAN_RAW_XL_FRAMES);
	self->rx_fd = xl_socket(if_nametoindex(self->b), CAN_RAW_FD_FRAMES);
	ASSERT_LE(0, self->rx);
	ASSERT_LE(0, self->rx_fd);
}

FIXTURE_TEARDOWN(xl_inject_rx)
{
	if (self->rx >= 0)
		close(self->rx);
	if (self->rx_fd >= 0)
		close(self->rx_fd);
	ct_link_del(self->a);
}

TEST_F_TIMEOUT(xl_inject_rx, every_injected_length_is_received_once, 180)
{
	int pkt = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int a = if_nametoindex(self->a);
	struct canxl_frame cxl, got;
	int len, bad = 0;

	ASSERT_LE(0, pkt);
	for (len = CANXL_MIN_DLEN; len <= CANXL_MAX_DLEN; len++) {
		xl_fill(&cxl, 0x55, CANXL_XLF, len);
		ASSERT_EQ(0, ct_packet_sendto(pkt, a, ETH_P_CANXL, &cxl,
					      CANXL_HDR_SIZE + len));
		if (xl_recv(self->rx, &got, CT_RX_TIMEOUT_MS) != CANXL_HDR_SIZE + len ||
		    !xl_is(&got, 0x55, CANXL_XLF, len))
			if (bad++ < 5)
				TH_LOG("len %d: not received as sent", len);
	}
	EXPECT_EQ(0, bad);
	EXPECT_TRUE(ct_is_quiet(self->rx));
	EXPECT_TRUE(ct_is_quiet(self->rx_fd));
	close(pkt);
}

TEST_HARNESS_MAIN
