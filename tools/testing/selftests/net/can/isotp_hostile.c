// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_ISOTP against frames of the wrong type: a CAN XL frame whose size is
 * that of the socket's link layer (16 or 72 bytes) carries its flags where
 * a classic or FD frame keeps its length. ISO-TP must never take it for a
 * PDU; once it did, and an escaped single frame read past the frame.
 */

#include "lib/can_test_isotp.h"
#include "kselftest_harness.h"

#define XL_ID	0x321

FIXTURE(isotp_xl) {
	char ifname[IFNAMSIZ];
	int ifindex;
	int isotp;
	int raw;
	int observer;
};

/* The XL frame's data length that gives it the size of the ISO-TP
 * socket's frames, and the link layer that makes those frames.
 */
FIXTURE_VARIANT(isotp_xl) {
	int xl_len;
	struct can_isotp_ll_options ll;
};

FIXTURE_VARIANT_ADD(isotp_xl, classic) {
	.xl_len = CAN_MTU - CANXL_HDR_SIZE,
	.ll = { .mtu = CAN_MTU, .tx_dl = CAN_MAX_DLEN },
};

FIXTURE_VARIANT_ADD(isotp_xl, fd) {
	.xl_len = CANFD_MTU - CANXL_HDR_SIZE,
	.ll = { .mtu = CANFD_MTU, .tx_dl = CANFD_MAX_DLEN },
};

static int xl_raw_open(int ifindex)
{
	int s = ct_raw_open(ifindex);

	if (s >= 0 && ct_setopt_int(s, CAN_RAW_XL_FRAMES, 1)) {
		close(s);
		return -1;
	}
	return s;
}

FIXTURE_SETUP(isotp_xl)
{
	struct it_opts o = { .set_ll = true, .ll = variant->ll };

	ct_ifname(self->ifname, 'x');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, CANXL_MTU, true));
	self->ifindex = if_nametoindex(self->ifname);
	self->isotp = it_open(self->ifindex, XL_ID, 0x123, &o);
	ASSERT_LE(0, self->isotp);
	self->raw = xl_raw_open(self->ifindex);
	ASSERT_LE(0, self->raw);
	self->observer = xl_raw_open(self->ifindex);
	ASSERT_LE(0, self->observer);
}

FIXTURE_TEARDOWN(isotp_xl)
{
	close(self->observer);
	close(self->raw);
	close(self->isotp);
	ct_link_del(self->ifname);
}

/* The flags an XL frame may carry, each read as a length by a protocol
 * that mistakes it for a classic or FD frame: the least (128) and the
 * most (255).
 */
static const __u8 xl_flags[] = { CANXL_XLF, 0xFF };

/* Send an XL frame of @len bytes and @flags at the ISO-TP socket's rx id
 * whose bytes, seen as a struct canfd_frame, hold @pdu where that keeps
 * its data: in the XL frame's acceptance field and first data bytes.
 * Check that it was on the bus (the observer got it whole).
 */
static void send_xl(struct __test_metadata *_metadata, int raw, int observer,
		    int len, __u8 flags, const unsigned char *pdu, size_t pdu_len)
{
	union {
		struct canxl_frame xl;
		unsigned char bytes[CANXL_MTU];
	} frame = { .xl = { .prio = XL_ID, .flags = flags, .len = len } };
	struct canxl_frame got;
	size_t size = CANXL_HDR_SIZE + len;

	memcpy(frame.bytes + offsetof(struct canfd_frame, data), pdu, pdu_len);
	ASSERT_EQ((ssize_t)size, write(raw, &frame, size));
	ASSERT_EQ((int)size, ct_recv(observer, &got, sizeof(got),
				     CT_RX_TIMEOUT_MS, NULL, NULL));
	ASSERT_EQ(0, memcmp(&frame, &got, size));
}

/* An escaped single frame as long as the flags, read as a length, allow:
 * taken for a PDU, it would copy up to 253 bytes from beyond the frame.
 */
TEST_F(isotp_xl, escaped_single_frame_in_xl_frame_is_ignored)
{
	unsigned char buf[4096];
	unsigned char pdu[2];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(xl_flags); i++) {
		pdu[0] = 0x00;
		pdu[1] = xl_flags[i] - 2;
		send_xl(_metadata, self->raw, self->observer, variant->xl_len,
			xl_flags[i], pdu, sizeof(pdu));
		EXPECT_EQ(-ETIMEDOUT, it_recv(self->isotp, buf, sizeof(buf),
					      CT_QUIET_MS * 4));
	}
}

TEST_F(isotp_xl, short_single_frame_in_xl_frame_is_ignored)
{
	static const unsigned char pdu[] = { 0x00, 0x03, 'a', 'b', 'c' };
	unsigned char buf[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(xl_flags); i++) {
		send_xl(_metadata, self->raw, self->observer, variant->xl_len,
			xl_flags[i], pdu, sizeof(pdu));
		EXPECT_EQ(-ETIMEDOUT, it_recv(self->isotp, buf, sizeof(buf),
					      CT_QUIET_MS * 4));
	}
}

/* The same PDU in a frame of the socket's own type still arrives, so the
 * tests above cannot pass by the socket hearing nothing at all.
 */
TEST_F(isotp_xl, single_frame_of_own_type_arrives)
{
	struct canfd_frame cf = { .can_id = XL_ID, .len = 4,
				  .data = { 0x03, 'a', 'b', 'c' } };
	unsigned char buf[64];

	/* CAN_RAW_XL_FRAMES lets the raw socket send FD frames too. */
	ASSERT_EQ((ssize_t)variant->ll.mtu,
		  write(self->raw, &cf, variant->ll.mtu));
	ASSERT_EQ(3, it_recv(self->isotp, buf, sizeof(buf), CT_RX_TIMEOUT_MS));
	EXPECT_EQ(0, memcmp(buf, "abc", 3));
}

TEST_HARNESS_MAIN
