// SPDX-License-Identifier: GPL-2.0
/*
 * Frames that did not come from a CAN socket: packet sockets inject
 * every size and protocol number into vcan's transmit path, and tc
 * redirects CAN FD frames from an FD vcan to a classic one, into its
 * transmit and its receive path. A frame its device cannot carry is
 * dropped and counted; every valid one goes through.
 */

#include "kselftest_harness.h"
#include "lib/can_test.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#ifndef ETH_P_CANXL
#define ETH_P_CANXL 0x000E
#endif

FIXTURE(inject)
{
	char fd_if[IFNAMSIZ];		/* MTU CANFD_MTU */
	char cc_if[IFNAMSIZ];		/* MTU CAN_MTU */
};

FIXTURE_SETUP(inject)
{
	ct_ifname(self->fd_if, 'f');
	ct_ifname(self->cc_if, 'c');
	ASSERT_EQ(0, ct_vcan_create(self->fd_if, CANFD_MTU, true));
	ASSERT_EQ(0, ct_vcan_create(self->cc_if, CAN_MTU, true));
}

FIXTURE_TEARDOWN(inject)
{
	ct_link_del(self->fd_if);
	ct_link_del(self->cc_if);
}

/* Valid CAN and CAN FD frames: their length fields in range. */
static void fill_frame(unsigned char *buf, size_t size, unsigned char len)
{
	memset(buf, 0, size);
	buf[offsetof(struct canfd_frame, len)] = len;
}

static bool is_valid(int proto, size_t size, int mtu, unsigned char len)
{
	if (proto == ETH_P_CAN)
		return size == CAN_MTU && len <= CAN_MAX_DLEN;
	if (proto == ETH_P_CANFD)
		return size == CANFD_MTU && mtu >= CANFD_MTU &&
		       len <= CANFD_MAX_DLEN;
	return false;
}

/*
 * Every protocol, every size up to one past CANFD_MTU and some CAN XL
 * sizes, with a valid and an oversized length field: the packet layer
 * refuses empty frames and what exceeds the MTU, the driver drops and
 * counts the rest unless the frame is valid.
 */
static void inject_all(struct __test_metadata *_metadata, const char *ifname,
		       int mtu)
{
	static const int protos[] = { ETH_P_CAN, ETH_P_CANFD, ETH_P_CANXL,
				      ETH_P_IP, 0x0001 };
	static const size_t xl_sizes[] = { 12, 13, 76, 2060, 2061 };
	static const unsigned char lens[] = { 8, 65 };
	long long pkts0 = ct_link_stat(ifname, "tx_packets");
	long long drop0 = ct_link_stat(ifname, "tx_dropped");
	unsigned char buf[2100];
	int sent = 0, valid = 0, p, l, err;
	size_t size, i;

	for (p = 0; p < (int)ARRAY_SIZE(protos); p++) {
		for (l = 0; l < 2; l++) {
			for (i = 0; i < CANFD_MTU + 2 + 5; i++) {
				size = i < CANFD_MTU + 2 ? i : xl_sizes[i - CANFD_MTU - 2];
				fill_frame(buf, sizeof(buf), lens[l]);
				err = ct_packet_send(ifname, protos[p], buf, size);
				if (!size) {
					EXPECT_EQ(-EINVAL, err);
					continue;
				}
				if (size > (size_t)mtu) {
					EXPECT_EQ(-EMSGSIZE, err);
					continue;
				}
				EXPECT_EQ(0, err);
				sent += !err;
				valid += !err && is_valid(protos[p], size, mtu, lens[l]);
			}
		}
	}
	EXPECT_EQ(valid, ct_link_stat(ifname, "tx_packets") - pkts0);
	EXPECT_EQ(sent - valid, ct_link_stat(ifname, "tx_dropped") - drop0);
}

TEST_F(inject, fd_vcan_drops_and_counts_every_invalid_injected_frame)
{
	inject_all(_metadata, self->fd_if, CANFD_MTU);
}

TEST_F(inject, classic_vcan_drops_and_counts_every_invalid_injected_frame)
{
	inject_all(_metadata, self->cc_if, CAN_MTU);
}

static int fd_socket(const char *ifname)
{
	int fd = ct_raw_socket();

	if (fd < 0)
		return -errno;
	if (ct_setopt_int(fd, CAN_RAW_FD_FRAMES, 1) ||
	    ct_bind(fd, if_nametoindex(ifname))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int fd_send(int fd, canid_t id, int len)
{
	struct canfd_frame cfd = { .can_id = id, .len = len };

	return write(fd, &cfd, sizeof(cfd)) == sizeof(cfd) ? 0 : -errno;
}

/* Redirect everything @from sends to @to's transmit or receive path. */
static int tc_redirect(const char *from, const char *to, const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "tc qdisc add dev %s clsact", from);
	if (system(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "tc filter add dev %s egress matchall action mirred %s redirect dev %s",
		 from, dir, to);
	return system(cmd);
}

TEST_F(inject, fd_frame_redirected_to_classic_vcan_is_dropped_and_counted)
{
	long long pkts0, drop0;
	int tx;

	if (system("command -v tc >/dev/null") ||
	    tc_redirect(self->fd_if, self->cc_if, "egress"))
		SKIP(return, "tc or act_mirred missing");
	tx = fd_socket(self->fd_if);
	ASSERT_LE(0, tx);
	pkts0 = ct_link_stat(self->cc_if, "tx_packets");
	drop0 = ct_link_stat(self->cc_if, "tx_dropped");

	EXPECT_EQ(0, fd_send(tx, 0x123, 64));
	EXPECT_EQ(0, ct_send(tx, 0x124, 8));

	/* The classic frame passes, the FD frame does not. */
	EXPECT_EQ(1, ct_link_stat(self->cc_if, "tx_packets") - pkts0);
	EXPECT_EQ(1, ct_link_stat(self->cc_if, "tx_dropped") - drop0);
	close(tx);
}

TEST_F(inject, fd_frame_redirected_into_classic_vcan_is_not_received)
{
	long invalid0;
	int tx, rx;

	if (system("command -v tc >/dev/null") ||
	    tc_redirect(self->fd_if, self->cc_if, "ingress"))
		SKIP(return, "tc or act_mirred missing");
	tx = fd_socket(self->fd_if);
	rx = fd_socket(self->cc_if);
	ASSERT_LE(0, tx);
	ASSERT_LE(0, rx);
	invalid0 = ct_proc_stat("RXINV");

	EXPECT_EQ(0, fd_send(tx, 0x123, 64));
	EXPECT_EQ(0, ct_send(tx, 0x124, 8));

	/* The classic frame is the witness that the FD one would be there. */
	EXPECT_EQ(0x124, ct_recv_id(rx, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(ct_is_quiet(rx));
	if (invalid0 >= 0)
		EXPECT_EQ(1, ct_proc_stat("RXINV") - invalid0);
	close(tx);
	close(rx);
}

/*
 * Every size with both CAN protocol numbers, through tc into a classic
 * vcan's receive path: the core delivers the valid classic frames and
 * drops and counts everything else, FD frames included.
 */
TEST_F(inject, every_frame_redirected_into_receive_path_is_checked)
{
	static const int protos[] = { ETH_P_CAN, ETH_P_CANFD };
	static const unsigned char lens[] = { 8, 65 };
	unsigned char buf[CANFD_MTU + 2];
	int sent = 0, valid = 0, received = 0, p, l, rx;
	long invalid0;
	size_t size;

	if (system("command -v tc >/dev/null") ||
	    tc_redirect(self->fd_if, self->cc_if, "ingress"))
		SKIP(return, "tc or act_mirred missing");
	rx = fd_socket(self->cc_if);
	ASSERT_LE(0, rx);
	invalid0 = ct_proc_stat("RXINV");
	ASSERT_LE(0, invalid0);

	for (p = 0; p < 2; p++) {
		for (l = 0; l < 2; l++) {
			for (size = 1; size <= CANFD_MTU + 1; size++) {
				fill_frame(buf, sizeof(buf), lens[l]);
				if (ct_packet_send(self->fd_if, protos[p], buf, size))
					continue;
				sent++;
				valid += is_valid(protos[p], size, CAN_MTU, lens[l]);
			}
		}
	}
	while (ct_recv(rx, buf, sizeof(buf), 500, NULL, NULL) == CAN_MTU)
		received++;
	/* Sizes up to the FD vcan's MTU pass the packet layer. */
	EXPECT_EQ(2 * 2 * CANFD_MTU, sent);
	EXPECT_EQ(valid, received);
	EXPECT_EQ(sent - valid, ct_proc_stat("RXINV") - invalid0);
	close(rx);
}

TEST_HARNESS_MAIN
