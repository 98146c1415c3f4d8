// SPDX-License-Identifier: GPL-2.0
/* CAN_ISOTP frame layout: data lengths a CAN FD frame can have, separation
 * times, padding checks, and the frames both state machines build and
 * send. Nothing here keeps state of its own.
 */

#include <linux/can/core.h>
#include <linux/can/skb.h>
#include <linux/skbuff.h>

#include "isotp-priv.h"

/**
 * isotp_padded_len() - smallest CAN FD data length that holds @len bytes
 * @len: payload bytes
 *
 * Return: 8 for up to 8 bytes, then 12, 16, 20, 24, 32, 48 or 64; 64 for
 * anything longer, which callers never ask for.
 */
u8 isotp_padded_len(unsigned int len)
{
	static const u8 fd_lengths[] = { 8, 12, 16, 20, 24, 32, 48, 64 };
	int i;

	for (i = 0; i < ARRAY_SIZE(fd_lengths); i++)
		if (len <= fd_lengths[i])
			return fd_lengths[i];
	return CANFD_MAX_DLEN;
}

/**
 * isotp_stmin_to_ns() - separation time of a flow control frame in ns
 * @stmin: the STmin byte: 0x00-0x7F ms, 0xF1-0xF9 100-900 us
 *
 * Reserved values count as the longest time, 127 ms, as ISO 15765-2 asks
 * of a sender.
 */
u64 isotp_stmin_to_ns(u8 stmin)
{
	if (stmin <= 0x7F)
		return (u64)stmin * NSEC_PER_MSEC;
	if (stmin >= 0xF1 && stmin <= 0xF9)
		return (u64)(stmin - 0xF0) * 100 * NSEC_PER_USEC;
	return 0x7F * NSEC_PER_MSEC;
}

/* A frame without padding must be as short as its content allows. */
static bool isotp_len_not_minimal(const struct canfd_frame *cf, int start)
{
	if (cf->len <= CAN_MAX_DLEN)
		return cf->len != start;
	return cf->len != isotp_padded_len(start);
}

/**
 * isotp_padding_is_bad() - check the padding of a received frame
 * @so: the receiving socket, with CAN_ISOTP_CHK_PAD_LEN or _DATA set
 * @cf: the frame
 * @start: index of the first byte after the content
 *
 * Without CAN_ISOTP_RX_PADDING a frame must not be padded at all, and a
 * content check has nothing to compare with: it fails, as in mainline.
 */
bool isotp_padding_is_bad(const struct isotp_sock *so,
			  const struct canfd_frame *cf, int start)
{
	u32 flags = so->opt.flags;
	int i;

	if (!(flags & CAN_ISOTP_RX_PADDING))
		return !(flags & CAN_ISOTP_CHK_PAD_LEN) ||
		       isotp_len_not_minimal(cf, start);

	if ((flags & CAN_ISOTP_CHK_PAD_LEN) &&
	    cf->len != isotp_padded_len(cf->len))
		return true;
	if (flags & CAN_ISOTP_CHK_PAD_DATA) {
		for (i = start; i < cf->len; i++)
			if (cf->data[i] != so->opt.rxpad_content)
				return true;
	}
	return false;
}

/**
 * isotp_init_frame() - make a new skb a zeroed frame of the socket's type
 * @so: the sending socket
 * @skb: just allocated, with room for struct can_skb_priv and at least
 *	ll.mtu (the first frame of a message has room for a CAN FD frame)
 *
 * The frame carries the socket's transmit identifier and CAN FD flags.
 */
void isotp_init_frame(struct isotp_sock *so, struct sk_buff *skb)
{
	struct canfd_frame *cf;

	can_skb_reserve(skb);
	can_skb_prv(skb)->skbcnt = 0;
	cf = skb_put_zero(skb, so->ll.mtu);
	cf->can_id = so->txid;
	cf->flags = so->ll.tx_flags;
}

/**
 * isotp_alloc_frame() - a frame of isotp_init_frame() from any context
 * @so: the sending socket
 * @gfp: allocation flags
 *
 * The frame is owned by the socket, so that its echo can be recognised.
 *
 * Return: the frame, or NULL without memory.
 */
struct sk_buff *isotp_alloc_frame(struct isotp_sock *so, gfp_t gfp)
{
	struct sk_buff *skb;

	skb = alloc_skb(so->ll.mtu + sizeof(struct can_skb_priv), gfp);
	if (!skb)
		return NULL;
	isotp_init_frame(so, skb);
	can_skb_set_owner(skb, &so->sk);
	return skb;
}

/**
 * isotp_send_frame() - send a frame of isotp_alloc_frame() on the binding
 * @so: the socket
 * @skb: the frame, consumed in every case
 *
 * Context: under @so->lock, which keeps @so->dev; any context can_send()
 * allows.
 * Return: 0, -ENODEV when the socket lost its device, or an error of
 * can_send().
 */
int isotp_send_frame(struct isotp_sock *so, struct sk_buff *skb)
{
	struct net_device *dev = so->dev;

	lockdep_assert_held(&so->lock);
	if (!dev) {
		kfree_skb(skb);
		return -ENODEV;
	}
	can_skb_prv(skb)->ifindex = dev->ifindex;
	skb->dev = dev;
	skb->priority = READ_ONCE(so->sk.sk_priority);
	return can_send(skb, true);
}

/**
 * isotp_report_error() - make @err the socket's pending error
 * @so: the socket
 * @err: positive errno
 *
 * The next blocking call, or SO_ERROR, returns it; pollers wake.
 */
void isotp_report_error(struct isotp_sock *so, int err)
{
	struct sock *sk = &so->sk;

	WRITE_ONCE(sk->sk_err, err);
	if (!sock_flag(sk, SOCK_DEAD))
		sk_error_report(sk);
}
