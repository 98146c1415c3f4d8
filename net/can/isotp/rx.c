// SPDX-License-Identifier: GPL-2.0
/* CAN_ISOTP receiving: frames on the socket's receive identifier are
 * single frames (a whole message), first frames (the start of a long one,
 * answered with flow control) and consecutive frames (the rest, in
 * sequence). Flow control frames for our own sending go to tx.c.
 */

#include <linux/can/core.h>
#include <linux/can/skb.h>
#include <linux/skbuff.h>

#include "isotp-priv.h"

/* A frame that breaks the protocol: dropped, and counted where
 * SO_MEMINFO (SK_MEMINFO_DROPS) and SO_RXQ_OVFL report drops.
 */
static void isotp_rx_drop(struct isotp_sock *so)
{
	atomic_inc(&so->sk.sk_drops);
}

/* Queue a whole message, with the interface it came from as address. */
static void isotp_rx_deliver(struct isotp_sock *so, const u8 *data,
			     unsigned int len, const struct sk_buff *frame)
{
	struct sockaddr_can *addr;
	struct sk_buff *skb;
	int err;

	skb = alloc_skb(len, GFP_ATOMIC);
	if (!skb) {
		isotp_rx_drop(so);
		return;
	}
	skb_put_data(skb, data, len);
	skb->tstamp = frame->tstamp;
	skb->dev = frame->dev;

	BUILD_BUG_ON(sizeof(*addr) > sizeof(skb->cb));
	addr = (struct sockaddr_can *)skb->cb;
	memset(addr, 0, sizeof(*addr));
	addr->can_family = AF_CAN;
	addr->can_ifindex = frame->dev->ifindex;

	err = sock_queue_rcv_skb(&so->sk, skb);
	if (err < 0) {
		can_sock_rx_dropped(frame->dev, err);
		kfree_skb(skb);
	}
}

/* Flow control from us as receiver; a failed send is not retried: the
 * sender's N_Bs time-out reports it there.
 */
static void isotp_rx_send_fc(struct isotp_sock *so, u8 status)
{
	int ae = isotp_ae(so);
	struct canfd_frame *cf;
	struct sk_buff *skb;

	lockdep_assert_held(&so->lock);
	skb = isotp_alloc_frame(so, GFP_ATOMIC);
	if (!skb)
		return;
	cf = (struct canfd_frame *)skb->data;
	if (so->opt.flags & CAN_ISOTP_TX_PADDING) {
		memset(cf->data, so->opt.txpad_content, CAN_MAX_DLEN);
		cf->len = CAN_MAX_DLEN;
	} else {
		cf->len = ae + ISOTP_FC_LEN;
	}
	if (ae)
		cf->data[0] = so->opt.ext_address;
	cf->data[ae] = ISOTP_PCI_FC | status;
	cf->data[ae + 1] = so->rxfc.bs;
	cf->data[ae + 2] = so->rxfc.stmin;
	isotp_send_frame(so, skb);
}

/* Ask for the next block: flow control, then wait for its frames. */
static void isotp_rx_request_block(struct isotp_sock *so)
{
	lockdep_assert_held(&so->lock);
	isotp_rx_send_fc(so, ISOTP_FS_CTS);
	so->rx.bs_count = 0;
	so->rx.last_cf = 0;
	isotp_timer_arm(so, &so->rx_timer, ISOTP_CF_TIMEOUT);
}

/**
 * isotp_rx_abort() - forget a message being received
 * @so: the socket
 *
 * Context: under @so->lock.
 */
void isotp_rx_abort(struct isotp_sock *so)
{
	lockdep_assert_held(&so->lock);
	isotp_timer_stop(so, &so->rx_timer);
	so->rx.state = ISOTP_RX_IDLE;
}

/* Padding after the content at @start, if the socket checks it. */
static bool isotp_rx_pad_ok(struct isotp_sock *so,
			    const struct canfd_frame *cf, int start)
{
	if (!(so->opt.flags & ISOTP_CHECK_PAD_FLAGS) ||
	    !isotp_padding_is_bad(so, cf, start))
		return true;
	isotp_rx_drop(so);
	isotp_report_error(so, EBADMSG);
	return false;
}

static void isotp_rx_sf(struct isotp_sock *so, const struct canfd_frame *cf,
			const struct sk_buff *skb)
{
	int ae = isotp_ae(so);
	int start, len;

	if (cf->len <= CAN_MAX_DLEN) {
		len = cf->data[ae] & 0x0F;
		start = ae + 1;
	} else {
		/* Longer CAN FD single frames escape their length: 0 in
		 * the PCI, the length in the next byte.
		 */
		if (cf->data[ae] & 0x0F) {
			isotp_rx_drop(so);
			return;
		}
		len = cf->data[ae + 1];
		start = ae + 2;
	}

	isotp_rx_abort(so);
	if (!len || len > cf->len - start) {
		isotp_rx_drop(so);
		return;
	}
	if (isotp_rx_pad_ok(so, cf, start + len))
		isotp_rx_deliver(so, &cf->data[start], len, skb);
}

/* Message length and PCI size of a first frame (12- or 32-bit length). */
static unsigned int isotp_ff_len(const struct canfd_frame *cf, int ae,
				 int *pci_len)
{
	unsigned int len = ((cf->data[ae] & 0x0F) << 8) | cf->data[ae + 1];
	__be32 escape_len;

	if (len) {
		*pci_len = 2;
		return len;
	}
	*pci_len = 6;
	memcpy(&escape_len, &cf->data[ae + 2], sizeof(escape_len));
	return be32_to_cpu(escape_len);
}

static void isotp_rx_ff(struct isotp_sock *so, const struct canfd_frame *cf)
{
	int ae = isotp_ae(so);
	unsigned int len, room;
	int pci_len;

	isotp_rx_abort(so);

	/* A first frame fills its frame; that sets the sender's LL_DL. */
	so->rx.ll_dl = isotp_padded_len(cf->len);
	if (cf->len != so->rx.ll_dl) {
		isotp_rx_drop(so);
		return;
	}
	len = isotp_ff_len(cf, ae, &pci_len);
	room = so->rx.ll_dl - ae - pci_len;
	/* A message this short needs no consecutive frame. */
	if (len <= room) {
		isotp_rx_drop(so);
		return;
	}
	if (len > ISOTP_MAX_MSG_LEN) {
		isotp_rx_drop(so);
		if (!(so->opt.flags & CAN_ISOTP_LISTEN_MODE))
			isotp_rx_send_fc(so, ISOTP_FS_OVERFLOW);
		return;
	}

	memcpy(so->rx.buf, &cf->data[ae + pci_len], room);
	so->rx.len = len;
	so->rx.idx = room;
	so->rx.sn = 1;
	so->rx.state = ISOTP_RX_WAIT_CF;
	if (!(so->opt.flags & CAN_ISOTP_LISTEN_MODE))
		isotp_rx_request_block(so);
}

/* With CAN_ISOTP_FORCE_RXSTMIN: whether a frame came too early after the
 * previous one and is to be ignored. Frames carry no stamp unless some
 * socket asked for stamps; then the time of arrival here counts.
 */
static bool isotp_rx_too_early(struct isotp_sock *so,
			       const struct sk_buff *skb)
{
	ktime_t now = skb->tstamp ?: ktime_get_real();

	if (!(so->opt.flags & CAN_ISOTP_FORCE_RXSTMIN))
		return false;
	if (ktime_to_ns(ktime_sub(now, so->rx.last_cf)) < so->force_rx_stmin)
		return true;
	so->rx.last_cf = now;
	return false;
}

/* After a consecutive frame that did not end the message. */
static void isotp_rx_cf_next(struct isotp_sock *so)
{
	bool listens = so->opt.flags & CAN_ISOTP_LISTEN_MODE;

	if (so->rxfc.bs && ++so->rx.bs_count >= so->rxfc.bs && !listens)
		isotp_rx_request_block(so);
	else
		isotp_timer_arm(so, &so->rx_timer, ISOTP_CF_TIMEOUT);
}

static void isotp_rx_cf(struct isotp_sock *so, const struct canfd_frame *cf,
			const struct sk_buff *skb)
{
	int ae = isotp_ae(so);
	unsigned int left, n;

	if (so->rx.state != ISOTP_RX_WAIT_CF || isotp_rx_too_early(so, skb))
		return;

	left = so->rx.len - so->rx.idx;
	/* Never longer than the first frame; shorter only at the end. */
	if (cf->len > so->rx.ll_dl ||
	    (cf->len < so->rx.ll_dl && left > so->rx.ll_dl - ae - 1)) {
		isotp_rx_drop(so);
		return;
	}
	if ((cf->data[ae] & 0x0F) != so->rx.sn) {
		isotp_rx_abort(so);
		isotp_rx_drop(so);
		isotp_report_error(so, EILSEQ);
		return;
	}
	so->rx.sn = (so->rx.sn + 1) & 0x0F;

	n = min_t(unsigned int, left, cf->len - ae - 1);
	memcpy(so->rx.buf + so->rx.idx, &cf->data[ae + 1], n);
	so->rx.idx += n;
	if (so->rx.idx < so->rx.len) {
		isotp_rx_cf_next(so);
		return;
	}

	isotp_rx_abort(so);
	if (isotp_rx_pad_ok(so, cf, ae + 1 + n))
		isotp_rx_deliver(so, so->rx.buf, so->rx.len, skb);
}

/* With CAN_ISOTP_HALF_DUPLEX a socket either sends or receives. */
static bool isotp_half_duplex_refuses(struct isotp_sock *so, u8 pci)
{
	if (!(so->opt.flags & CAN_ISOTP_HALF_DUPLEX))
		return false;
	if (pci == ISOTP_PCI_FC)
		return so->rx.state != ISOTP_RX_IDLE;
	return so->tx.state != ISOTP_TX_IDLE;
}

/* Frames for another extended address belong to another node. Frames of
 * the other link layer type, another channel, never get here: the socket
 * subscribed to its own type only (isotp_subscribe()).
 */
static bool isotp_frame_is_ours(struct isotp_sock *so, struct sk_buff *skb)
{
	const struct canfd_frame *cf = (const struct canfd_frame *)skb->data;

	if (!isotp_ae(so) || cf->len < 1)
		return true;
	return cf->data[0] == so->opt.rx_ext_address;
}

/* Receive callback for the socket's rx identifier, see can_rx_func_t. */
void isotp_rcv(struct sk_buff *skb, void *data)
{
	struct isotp_sock *so = data;
	const struct canfd_frame *cf = (const struct canfd_frame *)skb->data;
	int ae = isotp_ae(so);
	u8 pci;

	if (!isotp_frame_is_ours(so, skb))
		return;
	/* Not even room for the PCI: the handlers check the rest. */
	if (cf->len < ae + 1) {
		isotp_rx_drop(so);
		return;
	}
	pci = cf->data[ae] & 0xF0;

	spin_lock(&so->lock);
	if (isotp_half_duplex_refuses(so, pci))
		goto unlock;
	switch (pci) {
	case ISOTP_PCI_FC:
		isotp_tx_on_fc(so, cf);
		break;
	case ISOTP_PCI_SF:
		isotp_rx_sf(so, cf, skb);
		break;
	case ISOTP_PCI_FF:
		isotp_rx_ff(so, cf);
		break;
	case ISOTP_PCI_CF:
		isotp_rx_cf(so, cf, skb);
		break;
	default:
		isotp_rx_drop(so);
	}
unlock:
	spin_unlock(&so->lock);
}

/* so->rx_timer: the next consecutive frame did not come (N_Cr). */
enum hrtimer_restart isotp_rx_timeout(struct hrtimer *hrt)
{
	struct isotp_sock *so = container_of(hrt, struct isotp_sock,
					     rx_timer.hrt);

	spin_lock(&so->lock);
	if (isotp_timer_fired(so, &so->rx_timer) &&
	    so->rx.state == ISOTP_RX_WAIT_CF) {
		so->rx.state = ISOTP_RX_IDLE;
		isotp_report_error(so, ETIMEDOUT);
	}
	spin_unlock(&so->lock);
	return HRTIMER_NORESTART;
}
