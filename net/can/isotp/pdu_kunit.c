// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of how CAN_ISOTP lays out its frames: the protocol control
 * information (PCI) of single, first, consecutive and flow control
 * frames, the escaped lengths of single frames longer than a classic
 * frame holds and of first frames above 4095 bytes, extended addressing,
 * padding and CAN FD lengths, both as sent and as received. Malformed
 * frames must be dropped.
 *
 * The protocol's code is compiled into this module. The sending side is
 * tested on a bare struct isotp_sock; the receiving side needs a real
 * socket to queue messages on, so it creates an unbound CAN_ISOTP socket
 * (loading can-isotp) and feeds frames to this module's copy of the
 * receive callback, as the CAN core would. Without a device, the flow
 * control and consecutive frames that receiving triggers are not sent.
 */

#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/can.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>

#include "pdu.c"
#include "timer.c"
#include "tx.c"
#include "rx.c"

#define PAD CAN_ISOTP_DEFAULT_PAD_CONTENT

/* ---- sending: frames built on a bare socket ---- */

static struct isotp_sock *tx_sock(struct kunit *test, u8 tx_dl, u32 flags,
				  unsigned int msg_len)
{
	struct isotp_sock *so;
	unsigned int i;

	so = kunit_kzalloc(test, sizeof(*so), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, so);
	so->ll.tx_dl = tx_dl;
	so->ll.mtu = tx_dl > CAN_MAX_DLEN ? CANFD_MTU : CAN_MTU;
	so->opt.flags = flags;
	so->opt.ext_address = 0xe5;
	so->opt.txpad_content = 0xaa;
	so->tx.buf = kunit_kzalloc(test, msg_len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, so->tx.buf);
	for (i = 0; i < msg_len; i++)
		so->tx.buf[i] = i;
	so->tx.len = msg_len;
	return so;
}

static struct canfd_frame *zero_frame(struct kunit *test)
{
	struct canfd_frame *cf = kunit_kzalloc(test, sizeof(*cf), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cf);
	return cf;
}

/* @n message bytes from @from at @at, as tx_sock() fills the message. */
static void expect_payload(struct kunit *test, const struct canfd_frame *cf,
			   int at, unsigned int from, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, cf->data[at + i], (u8)(from + i),
				    "data[%u]", at + i);
}

static void expect_pad(struct kunit *test, const struct canfd_frame *cf,
		       int from, u8 pad)
{
	int i;

	for (i = from; i < cf->len; i++)
		KUNIT_EXPECT_EQ_MSG(test, cf->data[i], pad, "pad data[%d]", i);
}

static void sf_classic(struct kunit *test)
{
	struct isotp_sock *so = tx_sock(test, 8, 0, 5);
	struct canfd_frame *cf = zero_frame(test);

	KUNIT_ASSERT_EQ(test, isotp_sf_room(so), 7);
	isotp_tx_build_sf(so, cf);
	KUNIT_EXPECT_EQ(test, cf->len, 6);
	KUNIT_EXPECT_EQ(test, cf->data[0], ISOTP_PCI_SF | 5);
	expect_payload(test, cf, 1, 0, 5);

	/* Padded to 8 with the socket's byte. */
	so = tx_sock(test, 8, CAN_ISOTP_TX_PADDING, 1);
	cf = zero_frame(test);
	isotp_tx_build_sf(so, cf);
	KUNIT_EXPECT_EQ(test, cf->len, 8);
	KUNIT_EXPECT_EQ(test, cf->data[0], ISOTP_PCI_SF | 1);
	expect_payload(test, cf, 1, 0, 1);
	expect_pad(test, cf, 2, 0xaa);
}

static void sf_extended_address(struct kunit *test)
{
	struct isotp_sock *so = tx_sock(test, 8, CAN_ISOTP_EXTEND_ADDR, 6);
	struct canfd_frame *cf = zero_frame(test);

	KUNIT_ASSERT_EQ(test, isotp_sf_room(so), 6);
	isotp_tx_build_sf(so, cf);
	KUNIT_EXPECT_EQ(test, cf->len, 8);
	KUNIT_EXPECT_EQ(test, cf->data[0], 0xe5);
	KUNIT_EXPECT_EQ(test, cf->data[1], ISOTP_PCI_SF | 6);
	expect_payload(test, cf, 2, 0, 6);
}

/* CAN FD: up to 7 bytes (6 with an address) keep the 4-bit length and
 * an 8-byte frame; longer ones escape it (0, then the length in the
 * next byte) in a frame padded up to a CAN FD length.
 */
static void sf_fd_escape(struct kunit *test)
{
	static const struct {
		u32 flags;
		unsigned int len;
		u8 frame_len;
	} cases[] = {
		{ 0, 7, 8 },
		{ 0, 8, 12 },
		{ 0, 10, 12 },
		{ 0, 11, 16 },
		{ 0, 46, 48 },
		{ 0, 47, 64 },
		{ 0, 62, 64 },
		{ CAN_ISOTP_EXTEND_ADDR, 6, 8 },
		{ CAN_ISOTP_EXTEND_ADDR, 7, 12 },
		{ CAN_ISOTP_EXTEND_ADDR, 61, 64 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct isotp_sock *so = tx_sock(test, 64, cases[i].flags, cases[i].len);
		struct canfd_frame *cf = zero_frame(test);
		int ae = isotp_ae(so);
		bool escaped = cases[i].len > 7 - ae;
		int start = ae + 1 + escaped;

		KUNIT_EXPECT_EQ(test, isotp_sf_room(so), 62 - ae);
		isotp_tx_build_sf(so, cf);
		KUNIT_EXPECT_EQ_MSG(test, cf->len, cases[i].frame_len, "case %u", i);
		if (ae)
			KUNIT_EXPECT_EQ(test, cf->data[0], 0xe5);
		if (escaped) {
			KUNIT_EXPECT_EQ_MSG(test, cf->data[ae], ISOTP_PCI_SF, "case %u", i);
			KUNIT_EXPECT_EQ_MSG(test, cf->data[ae + 1], cases[i].len, "case %u", i);
		} else {
			KUNIT_EXPECT_EQ_MSG(test, cf->data[ae], ISOTP_PCI_SF | cases[i].len,
					    "case %u", i);
		}
		expect_payload(test, cf, start, 0, cases[i].len);
		/* Above 8 bytes always padded, with the default byte. */
		if (cf->len > CAN_MAX_DLEN)
			expect_pad(test, cf, start + cases[i].len, PAD);
	}
}

/* Message length of a first frame in 12 bits up to 4095, else 0 and
 * 32 bits big-endian.
 */
static void ff_lengths(struct kunit *test)
{
	static const struct {
		u8 tx_dl;
		u32 flags;
		unsigned int len;
		u8 pci[7];
		int pci_len;
	} cases[] = {
		{ 8, 0, 8, { 0x10, 0x08 }, 2 },
		{ 8, 0, 100, { 0x10, 0x64 }, 2 },
		{ 8, 0, 4095, { 0x1f, 0xff }, 2 },
		{ 8, 0, 4096, { 0x10, 0x00, 0x00, 0x00, 0x10, 0x00 }, 6 },
		{ 8, 0, 66000, { 0x10, 0x00, 0x00, 0x01, 0x01, 0xd0 }, 6 },
		{ 8, CAN_ISOTP_EXTEND_ADDR, 300, { 0xe5, 0x11, 0x2c }, 3 },
		{ 8, CAN_ISOTP_EXTEND_ADDR, 5000,
		  { 0xe5, 0x10, 0x00, 0x00, 0x00, 0x13, 0x88 }, 7 },
		{ 64, 0, 63, { 0x10, 0x3f }, 2 },
		{ 64, 0, 5000, { 0x10, 0x00, 0x00, 0x00, 0x13, 0x88 }, 6 },
		{ 64, CAN_ISOTP_EXTEND_ADDR, 4095, { 0xe5, 0x1f, 0xff }, 3 },
	};
	unsigned int i;
	int j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct isotp_sock *so = tx_sock(test, cases[i].tx_dl, cases[i].flags,
						cases[i].len);
		struct canfd_frame *cf = zero_frame(test);
		unsigned int room = cases[i].tx_dl - cases[i].pci_len;

		isotp_tx_build_ff(so, cf);
		KUNIT_EXPECT_EQ_MSG(test, cf->len, cases[i].tx_dl, "case %u", i);
		for (j = 0; j < cases[i].pci_len; j++)
			KUNIT_EXPECT_EQ_MSG(test, cf->data[j], cases[i].pci[j],
					    "case %u byte %d", i, j);
		expect_payload(test, cf, cases[i].pci_len, 0, room);
		KUNIT_EXPECT_EQ(test, so->tx.idx, room);
		KUNIT_EXPECT_EQ(test, so->tx.sn, 1);
	}
}

/* A consecutive frame's data after its PCI byte: full frames, then a
 * last one that is short unless padded, and on CAN FD padded up to a
 * CAN FD length.
 */
static void cf_payload_and_padding(struct kunit *test)
{
	struct isotp_sock *so = tx_sock(test, 8, 0, 20);
	struct canfd_frame *cf = zero_frame(test);

	so->tx.idx = 6;
	isotp_tx_put_data(so, cf, 1);
	KUNIT_EXPECT_EQ(test, cf->len, 8);
	expect_payload(test, cf, 1, 6, 7);
	KUNIT_EXPECT_EQ(test, so->tx.idx, 13);
	cf = zero_frame(test);
	isotp_tx_put_data(so, cf, 1);
	KUNIT_EXPECT_EQ(test, cf->len, 8);
	expect_payload(test, cf, 1, 13, 7);
	KUNIT_EXPECT_EQ(test, so->tx.idx, 20);

	/* Two bytes left: a frame of 3, or 8 with padding. */
	so->tx.idx = 18;
	cf = zero_frame(test);
	isotp_tx_put_data(so, cf, 1);
	KUNIT_EXPECT_EQ(test, cf->len, 3);
	expect_payload(test, cf, 1, 18, 2);

	so->opt.flags = CAN_ISOTP_TX_PADDING | CAN_ISOTP_EXTEND_ADDR;
	so->tx.idx = 18;
	cf = zero_frame(test);
	isotp_tx_put_data(so, cf, 2);
	KUNIT_EXPECT_EQ(test, cf->len, 8);
	KUNIT_EXPECT_EQ(test, cf->data[0], 0xe5);
	expect_payload(test, cf, 2, 18, 2);
	expect_pad(test, cf, 4, 0xaa);

	/* CAN FD: 63 bytes a frame; 30 left make a frame of 31, sent as 32. */
	so = tx_sock(test, 64, 0, 200);
	so->tx.idx = 170;
	cf = zero_frame(test);
	isotp_tx_put_data(so, cf, 1);
	KUNIT_EXPECT_EQ(test, cf->len, 32);
	expect_payload(test, cf, 1, 170, 30);
	expect_pad(test, cf, 31, PAD);
	so->tx.idx = 100;
	cf = zero_frame(test);
	isotp_tx_put_data(so, cf, 1);
	KUNIT_EXPECT_EQ(test, cf->len, 64);
	expect_payload(test, cf, 1, 100, 63);
	/* 5 left: 6 bytes fit a classic-length frame, no padding needed. */
	so->tx.idx = 195;
	cf = zero_frame(test);
	isotp_tx_put_data(so, cf, 1);
	KUNIT_EXPECT_EQ(test, cf->len, 6);
}

static void padded_len(struct kunit *test)
{
	static const u8 want[65] = {
		[0 ... 8] = 8, [9 ... 12] = 12, [13 ... 16] = 16, [17 ... 20] = 20,
		[21 ... 24] = 24, [25 ... 32] = 32, [33 ... 48] = 48, [49 ... 64] = 64,
	};
	unsigned int len;

	for (len = 0; len <= 64; len++)
		KUNIT_EXPECT_EQ_MSG(test, isotp_padded_len(len), want[len], "len %u", len);
	KUNIT_EXPECT_EQ(test, isotp_padded_len(65), 64);
}

static void stmin(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, isotp_stmin_to_ns(0x00), 0);
	KUNIT_EXPECT_EQ(test, isotp_stmin_to_ns(0x01), NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, isotp_stmin_to_ns(0x7f), 127 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, isotp_stmin_to_ns(0xf1), 100 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, isotp_stmin_to_ns(0xf9), 900 * NSEC_PER_USEC);
	/* Reserved: the longest time. */
	KUNIT_EXPECT_EQ(test, isotp_stmin_to_ns(0x80), 127 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, isotp_stmin_to_ns(0xf0), 127 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, isotp_stmin_to_ns(0xfa), 127 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, isotp_stmin_to_ns(0xff), 127 * NSEC_PER_MSEC);
}

static struct kunit_case isotp_tx_cases[] = {
	KUNIT_CASE(sf_classic),
	KUNIT_CASE(sf_extended_address),
	KUNIT_CASE(sf_fd_escape),
	KUNIT_CASE(ff_lengths),
	KUNIT_CASE(cf_payload_and_padding),
	KUNIT_CASE(padded_len),
	KUNIT_CASE(stmin),
	{}
};

static struct kunit_suite isotp_tx_suite = {
	.name = "can-isotp-encode",
	.test_cases = isotp_tx_cases,
};

/* ---- receiving: frames fed to an unbound socket ---- */

struct rx_ctx {
	struct socket *sock;
	struct isotp_sock *so;
};

static int rx_init(struct kunit *test)
{
	struct rx_ctx *c;
	int err;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	err = sock_create_kern(&init_net, PF_CAN, SOCK_DGRAM, CAN_ISOTP, &c->sock);
	if (err) {
		kunit_err(test, "no CAN_ISOTP socket: %d\n", err);
		return err;
	}
	c->so = isotp_sk(c->sock->sk);
	/* bind() would allocate it; the socket frees it. */
	c->so->rx.buf = kvmalloc(ISOTP_MAX_MSG_LEN, GFP_KERNEL);
	if (!c->so->rx.buf) {
		sock_release(c->sock);
		return -ENOMEM;
	}
	test->priv = c;
	return 0;
}

static void rx_exit(struct kunit *test)
{
	struct rx_ctx *c = test->priv;

	spin_lock_bh(&c->so->lock);
	isotp_rx_abort(c->so);
	isotp_tx_abort(c->so, 0);
	spin_unlock_bh(&c->so->lock);
	sock_release(c->sock);
}

/* Hand a frame to the receive callback as the CAN core does. */
static void feed(struct kunit *test, const u8 *bytes, u8 len)
{
	struct rx_ctx *c = test->priv;
	struct canfd_frame *cf;
	struct sk_buff *skb;

	skb = alloc_skb(CANFD_MTU, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	cf = skb_put_zero(skb, CANFD_MTU);
	cf->len = len;
	memcpy(cf->data, bytes, len);
	skb->dev = init_net.loopback_dev;
	local_bh_disable();
	isotp_rcv(skb, c->so);
	local_bh_enable();
	kfree_skb(skb);
}

#define FEED(test, ...) do {						\
	const u8 __b[] = { __VA_ARGS__ };				\
	feed(test, __b, sizeof(__b));					\
} while (0)

static int drops(struct kunit *test)
{
	return atomic_read(&((struct rx_ctx *)test->priv)->so->sk.sk_drops);
}

/* The socket's pending error, cleared. */
static int pending_error(struct kunit *test)
{
	return -sock_error(&((struct rx_ctx *)test->priv)->so->sk);
}

/* The next message queued, or NULL. */
static struct sk_buff *next_msg(struct kunit *test)
{
	struct rx_ctx *c = test->priv;

	return skb_dequeue(&c->so->sk.sk_receive_queue);
}

static void expect_msg(struct kunit *test, const u8 *data, unsigned int len)
{
	struct sk_buff *skb = next_msg(test);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, skb->len, len);
	if (skb->len == len)
		KUNIT_EXPECT_EQ(test, memcmp(skb->data, data, len), 0);
	kfree_skb(skb);
}

static void expect_no_msg(struct kunit *test)
{
	struct sk_buff *skb = next_msg(test);

	KUNIT_EXPECT_NULL(test, skb);
	kfree_skb(skb);
}

static void rx_sf(struct kunit *test)
{
	static const u8 abc[] = { 'a', 'b', 'c' };
	static const u8 seven[] = { 1, 2, 3, 4, 5, 6, 7 };

	FEED(test, 0x03, 'a', 'b', 'c');
	expect_msg(test, abc, 3);
	FEED(test, 0x07, 1, 2, 3, 4, 5, 6, 7);
	expect_msg(test, seven, 7);
	/* Padding is fine unless checked. */
	FEED(test, 0x03, 'a', 'b', 'c', 0x55, 0x55, 0x55, 0x55);
	expect_msg(test, abc, 3);
	KUNIT_EXPECT_EQ(test, drops(test), 0);
}

static void rx_sf_malformed(struct kunit *test)
{
	/* Length 0, and longer than the frame. */
	FEED(test, 0x00, 1, 2, 3);
	FEED(test, 0x04, 1, 2, 3);
	/* An escape in a classic-length frame is length 0. */
	FEED(test, 0x00, 0x03, 1, 2, 3, 0, 0, 0);
	/* No PCI at all, and a PCI type above flow control. */
	feed(test, (const u8[]){ 0x01 }, 0);
	FEED(test, 0x41, 1);
	FEED(test, 0xf1, 1);
	expect_no_msg(test);
	KUNIT_EXPECT_EQ(test, drops(test), 6);
}

static void rx_sf_fd_escape(struct kunit *test)
{
	u8 frame[64] = { 0x00, 62 };
	int i;

	for (i = 2; i < 64; i++)
		frame[i] = i;
	feed(test, frame, 64);
	expect_msg(test, frame + 2, 62);

	/* 9 bytes in a frame of 12, padded. */
	frame[1] = 9;
	feed(test, frame, 12);
	expect_msg(test, frame + 2, 9);

	/* Longer than the frame; then a 4-bit length where the escape
	 * must be; then an escaped length of 0.
	 */
	frame[1] = 11;
	feed(test, frame, 12);
	frame[0] = 0x05;
	feed(test, frame, 12);
	frame[0] = 0x00;
	frame[1] = 0;
	feed(test, frame, 12);
	expect_no_msg(test);
	KUNIT_EXPECT_EQ(test, drops(test), 3);
}

static void rx_extended_address(struct kunit *test)
{
	struct rx_ctx *c = test->priv;
	static const u8 xy[] = { 'x', 'y' };

	c->so->opt.flags = CAN_ISOTP_EXTEND_ADDR | CAN_ISOTP_RX_EXT_ADDR;
	c->so->opt.rx_ext_address = 0xaa;
	FEED(test, 0xaa, 0x02, 'x', 'y');
	expect_msg(test, xy, 2);
	/* Another node's address: not ours, not a drop. */
	FEED(test, 0xbb, 0x02, 'x', 'y');
	expect_no_msg(test);
	KUNIT_EXPECT_EQ(test, drops(test), 0);
	/* The address, but no PCI. */
	FEED(test, 0xaa);
	/* 6 bytes is the most a classic frame holds after the address. */
	FEED(test, 0xaa, 0x07, 1, 2, 3, 4, 5, 6);
	expect_no_msg(test);
	KUNIT_EXPECT_EQ(test, drops(test), 2);
}

/* A first frame, then consecutive frames numbered from 1. */
static void rx_ff_cf(struct kunit *test)
{
	struct rx_ctx *c = test->priv;
	u8 msg[20];
	int i;

	for (i = 0; i < 20; i++)
		msg[i] = 0x30 + i;
	FEED(test, 0x10, 20, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35);
	KUNIT_EXPECT_EQ(test, c->so->rx.state, ISOTP_RX_WAIT_CF);
	FEED(test, 0x21, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c);
	expect_no_msg(test);
	/* The last one short, padding unchecked. */
	FEED(test, 0x22, 0x3d, 0x3e, 0x3f, 0x40, 0x41, 0x42, 0x43);
	expect_msg(test, msg, 20);
	KUNIT_EXPECT_EQ(test, c->so->rx.state, ISOTP_RX_IDLE);
	KUNIT_EXPECT_EQ(test, drops(test), 0);

	/* Without a first frame, consecutive frames are ignored. */
	FEED(test, 0x21, 1, 2, 3, 4, 5, 6, 7);
	expect_no_msg(test);
	KUNIT_EXPECT_EQ(test, drops(test), 0);
}

/* 5000 bytes: an escaped first frame with 2 bytes, then 714 consecutive
 * frames whose sequence number wraps from 15 to 0.
 */
static void rx_ff_escape_and_sn_wrap(struct kunit *test)
{
	struct rx_ctx *c = test->priv;
	unsigned int idx, i;
	u8 *msg, frame[8];
	u8 sn = 1;

	msg = kunit_kzalloc(test, 5000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, msg);
	for (i = 0; i < 5000; i++)
		msg[i] = i * 7;
	FEED(test, 0x10, 0x00, 0x00, 0x00, 0x13, 0x88, msg[0], msg[1]);
	KUNIT_ASSERT_EQ(test, c->so->rx.state, ISOTP_RX_WAIT_CF);
	KUNIT_EXPECT_EQ(test, c->so->rx.len, 5000);
	for (idx = 2; idx < 5000; idx += 7) {
		unsigned int n = min(7U, 5000 - idx);

		frame[0] = ISOTP_PCI_CF | sn;
		memcpy(frame + 1, msg + idx, n);
		feed(test, frame, n + 1);
		sn = (sn + 1) & 0x0f;
	}
	expect_msg(test, msg, 5000);
	KUNIT_EXPECT_EQ(test, drops(test), 0);
	KUNIT_EXPECT_EQ(test, pending_error(test), 0);
}

static void rx_ff_malformed(struct kunit *test)
{
	struct rx_ctx *c = test->priv;

	/* Fits a single frame: no first frame. */
	FEED(test, 0x10, 6, 1, 2, 3, 4, 5, 6);
	/* Escaped, but fits 2 bytes. */
	FEED(test, 0x10, 0x00, 0x00, 0x00, 0x00, 0x02, 1, 2);
	/* A first frame fills its frame. */
	FEED(test, 0x10, 20, 1, 2, 3, 4, 5);
	/* On CAN FD, a CAN FD length: 10 is none. */
	{
		u8 fd[10] = { 0x10, 100 };

		feed(test, fd, 10);
	}
	/* Longer than any message. */
	FEED(test, 0x10, 0x00, 0x00, 0x01, 0x01, 0xd1, 1, 2);
	KUNIT_EXPECT_EQ(test, c->so->rx.state, ISOTP_RX_IDLE);
	expect_no_msg(test);
	KUNIT_EXPECT_EQ(test, drops(test), 5);
	/* 66000 is not. */
	FEED(test, 0x10, 0x00, 0x00, 0x01, 0x01, 0xd0, 1, 2);
	KUNIT_EXPECT_EQ(test, c->so->rx.state, ISOTP_RX_WAIT_CF);
	KUNIT_EXPECT_EQ(test, c->so->rx.len, 66000);
}

/* A CAN FD message: the first frame sets the length every consecutive
 * frame but the last must have.
 */
static void rx_fd_ff_cf(struct kunit *test)
{
	struct rx_ctx *c = test->priv;
	u8 msg[100], frame[64];
	int i;

	for (i = 0; i < 100; i++)
		msg[i] = 0x80 + i;
	frame[0] = 0x10;
	frame[1] = 100;
	memcpy(frame + 2, msg, 62);
	feed(test, frame, 64);
	KUNIT_ASSERT_EQ(test, c->so->rx.state, ISOTP_RX_WAIT_CF);
	KUNIT_EXPECT_EQ(test, c->so->rx.ll_dl, 64);

	/* 38 bytes left: a frame of 48 holds them. */
	memset(frame, PAD, sizeof(frame));
	frame[0] = 0x21;
	memcpy(frame + 1, msg + 62, 38);
	feed(test, frame, 48);
	expect_msg(test, msg, 100);
	KUNIT_EXPECT_EQ(test, drops(test), 0);

	/* A short consecutive frame that is not the last is dropped. */
	frame[0] = 0x10;
	frame[1] = 200;
	feed(test, frame, 64);
	frame[0] = 0x21;
	feed(test, frame, 32);
	KUNIT_EXPECT_EQ(test, drops(test), 1);
	KUNIT_EXPECT_EQ(test, c->so->rx.idx, 62);
	/* So is one longer than the first frame's. */
	c->so->rx.ll_dl = 32;
	feed(test, frame, 48);
	KUNIT_EXPECT_EQ(test, drops(test), 2);
	KUNIT_EXPECT_EQ(test, c->so->rx.idx, 62);
}

static void rx_cf_wrong_sn(struct kunit *test)
{
	struct rx_ctx *c = test->priv;

	FEED(test, 0x10, 20, 1, 2, 3, 4, 5, 6);
	FEED(test, 0x22, 1, 2, 3, 4, 5, 6, 7);
	KUNIT_EXPECT_EQ(test, c->so->rx.state, ISOTP_RX_IDLE);
	KUNIT_EXPECT_EQ(test, pending_error(test), EILSEQ);
	KUNIT_EXPECT_EQ(test, drops(test), 1);
	expect_no_msg(test);
}

/* With padding checks: length 8 (or a CAN FD length) and the content. */
static void rx_padding_checks(struct kunit *test)
{
	struct rx_ctx *c = test->priv;
	static const u8 ab[] = { 'a', 'b' };

	c->so->opt.flags = CAN_ISOTP_RX_PADDING | CAN_ISOTP_CHK_PAD_LEN |
			   CAN_ISOTP_CHK_PAD_DATA;
	c->so->opt.rxpad_content = 0x55;
	FEED(test, 0x02, 'a', 'b', 0x55, 0x55, 0x55, 0x55, 0x55);
	expect_msg(test, ab, 2);
	FEED(test, 0x02, 'a', 'b');
	KUNIT_EXPECT_EQ(test, pending_error(test), EBADMSG);
	FEED(test, 0x02, 'a', 'b', 0x55, 0x55, 0x55, 0x55, 0x54);
	KUNIT_EXPECT_EQ(test, pending_error(test), EBADMSG);
	expect_no_msg(test);
	KUNIT_EXPECT_EQ(test, drops(test), 2);

	/* Length check only, and no padding expected: minimal frames. */
	c->so->opt.flags = CAN_ISOTP_CHK_PAD_LEN;
	FEED(test, 0x02, 'a', 'b');
	expect_msg(test, ab, 2);
	FEED(test, 0x02, 'a', 'b', 0);
	KUNIT_EXPECT_EQ(test, pending_error(test), EBADMSG);
	expect_no_msg(test);
	KUNIT_EXPECT_EQ(test, drops(test), 3);
}

/* Put the socket in a wait for flow control of a 20-byte message. */
static void wait_for_fc(struct kunit *test, enum isotp_tx_state state)
{
	struct isotp_sock *so = ((struct rx_ctx *)test->priv)->so;
	u8 *old, *buf = kvmalloc(20, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 0x77, 20);
	spin_lock_bh(&so->lock);
	old = so->tx.buf;
	so->tx.buf = buf;
	so->tx.len = 20;
	so->tx.idx = 6;
	so->tx.sn = 1;
	so->tx.state = state;
	spin_unlock_bh(&so->lock);
	kvfree(old);
}

/* Clear-to-send takes block size and STmin from the first flow control
 * and sends a consecutive frame at once; with no device to send on, the
 * transfer then fails with ECOMM.
 */
static void fc_cts(struct kunit *test)
{
	struct isotp_sock *so = ((struct rx_ctx *)test->priv)->so;

	wait_for_fc(test, ISOTP_TX_WAIT_FIRST_FC);
	FEED(test, 0x30, 5, 0x14);
	KUNIT_EXPECT_EQ(test, so->tx.peer_bs, 5);
	KUNIT_EXPECT_EQ(test, ktime_to_ns(so->tx.gap),
			20 * NSEC_PER_MSEC + CAN_ISOTP_DEFAULT_FRAME_TXTIME);
	KUNIT_EXPECT_EQ(test, so->tx.idx, 13);
	KUNIT_EXPECT_EQ(test, so->tx.sn, 2);
	KUNIT_EXPECT_EQ(test, so->tx.state, ISOTP_TX_IDLE);
	KUNIT_EXPECT_EQ(test, pending_error(test), ECOMM);

	/* Later flow control keeps the first one's values. */
	wait_for_fc(test, ISOTP_TX_WAIT_FC);
	so->tx.peer_bs = 5;
	FEED(test, 0x30, 9, 0xf3, 0xcc, 0xcc);
	KUNIT_EXPECT_EQ(test, so->tx.peer_bs, 5);
	KUNIT_EXPECT_EQ(test, so->tx.idx, 13);

	/* 100 us steps, and reserved STmin as 127 ms. */
	wait_for_fc(test, ISOTP_TX_WAIT_FIRST_FC);
	FEED(test, 0x30, 0, 0xf3);
	KUNIT_EXPECT_EQ(test, so->tx.peer_bs, 0);
	KUNIT_EXPECT_EQ(test, ktime_to_ns(so->tx.gap),
			300 * NSEC_PER_USEC + CAN_ISOTP_DEFAULT_FRAME_TXTIME);
	wait_for_fc(test, ISOTP_TX_WAIT_FIRST_FC);
	FEED(test, 0x30, 0, 0x80);
	KUNIT_EXPECT_EQ(test, ktime_to_ns(so->tx.gap),
			127 * NSEC_PER_MSEC + CAN_ISOTP_DEFAULT_FRAME_TXTIME);
}

static void fc_wait_overflow_reserved(struct kunit *test)
{
	struct isotp_sock *so = ((struct rx_ctx *)test->priv)->so;

	wait_for_fc(test, ISOTP_TX_WAIT_FIRST_FC);
	FEED(test, 0x31, 0, 0);
	KUNIT_EXPECT_EQ(test, so->tx.state, ISOTP_TX_WAIT_FC);
	KUNIT_EXPECT_TRUE(test, so->fc_timer.armed);
	KUNIT_EXPECT_EQ(test, so->tx.idx, 6);
	KUNIT_EXPECT_EQ(test, pending_error(test), 0);

	FEED(test, 0x32, 0, 0);
	KUNIT_EXPECT_EQ(test, so->tx.state, ISOTP_TX_IDLE);
	KUNIT_EXPECT_EQ(test, pending_error(test), EMSGSIZE);

	wait_for_fc(test, ISOTP_TX_WAIT_FC);
	FEED(test, 0x33, 0, 0);
	KUNIT_EXPECT_EQ(test, so->tx.state, ISOTP_TX_IDLE);
	KUNIT_EXPECT_EQ(test, pending_error(test), EBADMSG);

	/* Too short for block size and STmin. */
	wait_for_fc(test, ISOTP_TX_WAIT_FIRST_FC);
	FEED(test, 0x30, 0);
	KUNIT_EXPECT_EQ(test, so->tx.state, ISOTP_TX_IDLE);
	KUNIT_EXPECT_EQ(test, pending_error(test), EBADMSG);

	/* Outside a wait for it, flow control is ignored. */
	wait_for_fc(test, ISOTP_TX_SENDING);
	FEED(test, 0x32, 0, 0);
	KUNIT_EXPECT_EQ(test, so->tx.state, ISOTP_TX_SENDING);
	KUNIT_EXPECT_EQ(test, pending_error(test), 0);
	KUNIT_EXPECT_EQ(test, drops(test), 0);
}

static void fc_extended_address(struct kunit *test)
{
	struct isotp_sock *so = ((struct rx_ctx *)test->priv)->so;

	so->opt.flags = CAN_ISOTP_EXTEND_ADDR;
	so->opt.rx_ext_address = 0x0e;
	wait_for_fc(test, ISOTP_TX_WAIT_FIRST_FC);
	/* Without the address the frame is too short. */
	FEED(test, 0x0e, 0x30, 3);
	KUNIT_EXPECT_EQ(test, pending_error(test), EBADMSG);
	wait_for_fc(test, ISOTP_TX_WAIT_FIRST_FC);
	FEED(test, 0x0e, 0x31, 3, 0x02);
	KUNIT_EXPECT_EQ(test, so->tx.state, ISOTP_TX_WAIT_FC);
	KUNIT_EXPECT_EQ(test, so->tx.peer_bs, 3);
	KUNIT_EXPECT_EQ(test, ktime_to_ns(so->tx.gap),
			2 * NSEC_PER_MSEC + CAN_ISOTP_DEFAULT_FRAME_TXTIME);
}

static struct kunit_case isotp_rx_cases[] = {
	KUNIT_CASE(rx_sf),
	KUNIT_CASE(rx_sf_malformed),
	KUNIT_CASE(rx_sf_fd_escape),
	KUNIT_CASE(rx_extended_address),
	KUNIT_CASE(rx_ff_cf),
	KUNIT_CASE(rx_ff_escape_and_sn_wrap),
	KUNIT_CASE(rx_ff_malformed),
	KUNIT_CASE(rx_fd_ff_cf),
	KUNIT_CASE(rx_cf_wrong_sn),
	KUNIT_CASE(rx_padding_checks),
	KUNIT_CASE(fc_cts),
	KUNIT_CASE(fc_wait_overflow_reserved),
	KUNIT_CASE(fc_extended_address),
	{}
};

static struct kunit_suite isotp_rx_suite = {
	.name = "can-isotp-decode",
	.init = rx_init,
	.exit = rx_exit,
	.test_cases = isotp_rx_cases,
};

kunit_test_suites(&isotp_tx_suite, &isotp_rx_suite);

MODULE_DESCRIPTION("KUnit tests of CAN_ISOTP's frame layout");
MODULE_LICENSE("GPL");
