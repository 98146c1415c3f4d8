// SPDX-License-Identifier: GPL-2.0
/*
 * Two CAN_ISOTP sockets on one vcan exchange messages of 1, 7, 8, 4095,
 * 4096 and 66000 bytes (and the lengths around each frame boundary),
 * classic and CAN FD, with and without padding and extended addressing;
 * each arrives whole and unchanged, and the frames on the bus have the
 * lengths ISO 15765-2 asks for.
 */

#include "lib/can_test_isotp.h"
#include "kselftest_harness.h"

FIXTURE(xfer) {
	char ifname[IFNAMSIZ];
	int ifindex;
	int a, b, sniff;
	unsigned char *tx, *rx;
};

FIXTURE_VARIANT(xfer) {
	bool fd;
	bool pad;
	bool ext;
	__u32 frame_txtime;
};

FIXTURE_VARIANT_ADD(xfer, classic) { };

FIXTURE_VARIANT_ADD(xfer, classic_padded) { .pad = true };

FIXTURE_VARIANT_ADD(xfer, classic_extended) { .ext = true };

FIXTURE_VARIANT_ADD(xfer, classic_padded_extended) { .pad = true, .ext = true };

FIXTURE_VARIANT_ADD(xfer, classic_default_frame_gap) {
	.frame_txtime = CAN_ISOTP_DEFAULT_FRAME_TXTIME
};

FIXTURE_VARIANT_ADD(xfer, fd) { .fd = true };

FIXTURE_VARIANT_ADD(xfer, fd_padded) { .fd = true, .pad = true };

FIXTURE_VARIANT_ADD(xfer, fd_extended) { .fd = true, .ext = true };

FIXTURE_VARIANT_ADD(xfer, fd_padded_extended) {
	.fd = true, .pad = true, .ext = true
};

static void xfer_opts(const struct _fixture_variant_xfer *v, struct it_opts *o,
		      __u8 my_addr, __u8 peer_addr)
{
	memset(o, 0, sizeof(*o));
	o->set_opts = true;
	o->opt.frame_txtime = v->frame_txtime ?: CAN_ISOTP_FRAME_TXTIME_ZERO;
	o->opt.txpad_content = 0xCC;
	o->opt.rxpad_content = 0xCC;
	if (v->pad)
		o->opt.flags |= CAN_ISOTP_TX_PADDING | CAN_ISOTP_RX_PADDING |
				CAN_ISOTP_CHK_PAD_LEN | CAN_ISOTP_CHK_PAD_DATA;
	if (v->ext) {
		o->opt.flags |= CAN_ISOTP_EXTEND_ADDR | CAN_ISOTP_RX_EXT_ADDR;
		o->opt.ext_address = peer_addr;
		o->opt.rx_ext_address = my_addr;
	}
	if (v->fd) {
		o->set_ll = true;
		o->ll = (struct can_isotp_ll_options){ CANFD_MTU, 64, 0 };
	}
}

FIXTURE_SETUP(xfer)
{
	struct it_opts oa, ob;

	ct_ifname(self->ifname, 'x');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, variant->fd ? CANFD_MTU : 0,
				    true));
	self->ifindex = if_nametoindex(self->ifname);
	xfer_opts(variant, &oa, 0xA0, 0xB0);
	xfer_opts(variant, &ob, 0xB0, 0xA0);
	self->a = it_open(self->ifindex, IT_RX_ID, IT_TX_ID, &oa);
	ASSERT_LE(0, self->a);
	self->b = it_open(self->ifindex, IT_TX_ID, IT_RX_ID, &ob);
	ASSERT_LE(0, self->b);
	self->sniff = it_raw_open(self->ifindex, IT_TX_ID);
	ASSERT_LE(0, self->sniff);
	self->tx = malloc(IT_MAX_MSG + 1);
	self->rx = malloc(IT_MAX_MSG + 1);
	ASSERT_NE(NULL, self->tx);
	ASSERT_NE(NULL, self->rx);
}

FIXTURE_TEARDOWN(xfer)
{
	close(self->a);
	close(self->b);
	close(self->sniff);
	free(self->tx);
	free(self->rx);
	ct_link_del(self->ifname);
}

/* Send @len bytes from a to b; 0 if they arrived unchanged. */
static int xfer_one(struct _test_data_xfer *self, int len)
{
	int n, err;

	it_fill(self->tx, len, len);
	memset(self->rx, 0, len);
	err = it_send(self->a, self->tx, len);
	if (err)
		return err;
	n = it_recv(self->b, self->rx, IT_MAX_MSG + 1, 20000);
	if (n < 0)
		return n;
	if (n != len)
		return -EMSGSIZE;
	return memcmp(self->tx, self->rx, len) ? -EBADMSG : 0;
}

TEST_F(xfer, messages_of_the_required_sizes_arrive_whole)
{
	static const int sizes[] = { 1, 7, 8, 4095, 4096, IT_MAX_MSG };
	int i;

	for (i = 0; i < 6; i++)
		EXPECT_EQ(0, xfer_one(self, sizes[i])) TH_LOG("%d bytes", sizes[i]);
}

TEST_F(xfer, messages_around_frame_boundaries_arrive_whole)
{
	int len;

	for (len = 1; len <= 140; len++)
		ASSERT_EQ(0, xfer_one(self, len)) TH_LOG("%d bytes", len);
}

TEST_F(xfer, both_directions_work_in_turn)
{
	int n;

	ASSERT_EQ(0, xfer_one(self, 300));
	it_fill(self->tx, 500, 9);
	ASSERT_EQ(0, it_send(self->b, self->tx, 500));
	n = it_recv(self->a, self->rx, IT_MAX_MSG, 20000);
	ASSERT_EQ(500, n);
	EXPECT_EQ(0, memcmp(self->tx, self->rx, 500));
}

/* The frames on the bus: every one the sender's tx_dl long but the last,
 * which is padded only as asked, or as CAN FD lengths force.
 */
TEST_F(xfer, frames_on_the_bus_have_iso_lengths)
{
	int len = variant->fd ? 200 : 30;
	int ae = variant->ext ? 1 : 0;
	int dl = variant->fd ? 64 : 8;
	struct canfd_frame cf;
	int got = 0, n, frames = 0;

	ct_drain(self->sniff);
	ASSERT_EQ(0, xfer_one(self, len));
	while ((n = it_raw_recv(self->sniff, &cf, 200)) > 0) {
		int pci = cf.data[ae] & 0xF0;

		frames++;
		if (ae)
			EXPECT_EQ(0xB0, cf.data[0]);
		if (pci == 0x10) {
			EXPECT_EQ(dl, cf.len);
			EXPECT_EQ(len, ((cf.data[ae] & 0xF) << 8) | cf.data[ae + 1]);
			got += dl - ae - 2;
		} else {
			ASSERT_EQ(0x20, pci);
			if (got + dl - ae - 1 < len) {
				EXPECT_EQ(dl, cf.len);
			} else if (variant->pad) {
				EXPECT_TRUE(cf.len == 8 || cf.len > 8);
				EXPECT_EQ(0xCC, cf.data[cf.len - 1]);
			} else if (!variant->fd) {
				EXPECT_EQ(ae + 1 + len - got, cf.len);
			}
			got += dl - ae - 1;
		}
	}
	EXPECT_LE(len, got);
	EXPECT_LE(2, frames);
}

TEST_F(xfer, large_message_uses_32_bit_first_frame_length)
{
	int ae = variant->ext ? 1 : 0;
	struct canfd_frame cf;

	ct_drain(self->sniff);
	ASSERT_EQ(0, xfer_one(self, 4096));
	ASSERT_LT(0, it_raw_recv(self->sniff, &cf, 1000));
	EXPECT_EQ(0x10, cf.data[ae]);
	EXPECT_EQ(0, cf.data[ae + 1]);
	EXPECT_EQ(4096, (cf.data[ae + 2] << 24) | (cf.data[ae + 3] << 16) |
		  (cf.data[ae + 4] << 8) | cf.data[ae + 5]);
	ct_drain(self->sniff);
	ASSERT_EQ(0, xfer_one(self, 4095));
	ASSERT_LT(0, it_raw_recv(self->sniff, &cf, 1000));
	EXPECT_EQ(0x1F, cf.data[ae]);
	EXPECT_EQ(0xFF, cf.data[ae + 1]);
}

TEST_F(xfer, single_frame_is_padded_only_when_asked)
{
	int ae = variant->ext ? 1 : 0;
	struct canfd_frame cf;

	ct_drain(self->sniff);
	ASSERT_EQ(0, xfer_one(self, 3));
	ASSERT_LT(0, it_raw_recv(self->sniff, &cf, 1000));
	EXPECT_EQ(3, cf.data[ae]);
	EXPECT_EQ(variant->pad ? 8 : ae + 4, cf.len);
}

TEST_F(xfer, sender_with_wait_tx_done_returns_after_the_last_frame)
{
	struct can_isotp_options opt;
	socklen_t len = sizeof(opt);
	struct it_opts o;
	int s, n;

	ASSERT_EQ(0, getsockopt(self->a, SOL_CAN_ISOTP, CAN_ISOTP_OPTS, &opt, &len));
	close(self->a);
	xfer_opts(variant, &o, 0xA0, 0xB0);
	o.opt.flags |= CAN_ISOTP_WAIT_TX_DONE;
	s = it_open(self->ifindex, IT_RX_ID, IT_TX_ID, &o);
	ASSERT_LE(0, s);
	self->a = s;
	it_fill(self->tx, 5000, 3);
	ASSERT_EQ(0, it_send(s, self->tx, 5000));
	/* all sent: the receiver has it, or is about to queue it */
	n = it_recv(self->b, self->rx, IT_MAX_MSG, 1000);
	ASSERT_EQ(5000, n);
	EXPECT_EQ(0, memcmp(self->tx, self->rx, 5000));
}

TEST_HARNESS_MAIN
