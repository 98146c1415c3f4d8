// SPDX-License-Identifier: GPL-2.0
/* CAN_ISOTP sending: a message that fits goes out as one single frame;
 * a longer one as a first frame, then, as the receiver's flow control
 * allows, blocks of consecutive frames spaced by its separation time.
 * Each frame sent comes back as an echo from the device once it is on
 * the bus; the next frame is timed from that echo.
 */

#include <linux/can/core.h>
#include <linux/can/skb.h>
#include <linux/mm.h>
#include <linux/skbuff.h>

#include "isotp-priv.h"

/**
 * isotp_tx_abort() - end the transfer, with an outcome
 * @so: the socket
 * @err: 0 once all was sent, else the positive errno its sendmsg() with
 *	CAN_ISOTP_WAIT_TX_DONE returns
 *
 * Context: under @so->lock.
 */
void isotp_tx_abort(struct isotp_sock *so, int err)
{
	lockdep_assert_held(&so->lock);
	isotp_timer_stop(so, &so->fc_timer);
	isotp_timer_stop(so, &so->echo_timer);
	isotp_timer_stop(so, &so->gap_timer);
	so->tx.state = ISOTP_TX_IDLE;
	so->tx.echo_tag = 0;
	if (so->tx.waiter) {
		so->tx.waiter->err = err;
		WRITE_ONCE(so->tx.waiter->done, true);
		so->tx.waiter = NULL;
	}
	wake_up_interruptible(&so->wait);
}

/* A failed transfer: the error is also the socket's pending error. */
static void isotp_tx_fail(struct isotp_sock *so, int err)
{
	isotp_tx_abort(so, err);
	isotp_report_error(so, err);
}

/* Copy as much of the message as fits behind @pci_len bytes of PCI and
 * address, padding a last frame that is short.
 */
static void isotp_tx_put_data(struct isotp_sock *so, struct canfd_frame *cf,
			      int pci_len)
{
	unsigned int space = so->ll.tx_dl - pci_len;
	unsigned int n = min(so->tx.len - so->tx.idx, space);

	cf->len = pci_len + n;
	if (n < space) {
		/* CAN FD lengths above 8 come in steps: always padded. */
		if (so->opt.flags & CAN_ISOTP_TX_PADDING) {
			cf->len = isotp_padded_len(cf->len);
			memset(cf->data, so->opt.txpad_content, cf->len);
		} else if (cf->len > CAN_MAX_DLEN) {
			cf->len = isotp_padded_len(cf->len);
			memset(cf->data, CAN_ISOTP_DEFAULT_PAD_CONTENT, cf->len);
		}
	}
	memcpy(&cf->data[pci_len], so->tx.buf + so->tx.idx, n);
	so->tx.idx += n;
	if (isotp_ae(so))
		cf->data[0] = so->opt.ext_address;
}

/* The frame's echo identifies it by the core's sequence number. */
static void isotp_tx_expect_echo(struct isotp_sock *so, struct sk_buff *skb)
{
	can_set_skb_uid(skb);
	so->tx.echo_tag = can_skb_prv(skb)->skbcnt;
	isotp_timer_arm(so, &so->echo_timer, ISOTP_ECHO_TIMEOUT);
}

static void isotp_tx_send_cf(struct isotp_sock *so)
{
	int ae = isotp_ae(so);
	struct canfd_frame *cf;
	struct sk_buff *skb;

	lockdep_assert_held(&so->lock);
	skb = isotp_alloc_frame(so, GFP_ATOMIC);
	if (!skb) {
		isotp_tx_fail(so, ECOMM);
		return;
	}
	cf = (struct canfd_frame *)skb->data;
	isotp_tx_put_data(so, cf, ae + 1);
	cf->data[ae] = ISOTP_PCI_CF | so->tx.sn;
	so->tx.sn = (so->tx.sn + 1) & 0x0F;
	so->tx.bs_count++;
	isotp_tx_expect_echo(so, skb);
	if (isotp_send_frame(so, skb))
		isotp_tx_fail(so, ECOMM);
}

/* Separation time, taken from the first flow control of a message. */
static void isotp_tx_set_gap(struct isotp_sock *so, u8 stmin)
{
	u64 ns = so->frame_txtime;

	if (so->opt.flags & CAN_ISOTP_FORCE_TXSTMIN)
		ns += so->force_tx_stmin;
	else
		ns += isotp_stmin_to_ns(stmin);
	so->tx.gap = ns_to_ktime(ns);
}

/**
 * isotp_tx_on_fc() - a flow control frame arrived for our sending
 * @so: the socket
 * @cf: the frame, its PCI type checked
 *
 * Outside a wait for flow control it is ignored. A malformed one or a
 * reserved flow status ends the transfer with EBADMSG, an overflow with
 * EMSGSIZE, as in mainline.
 * Context: softirq, under @so->lock.
 */
void isotp_tx_on_fc(struct isotp_sock *so, const struct canfd_frame *cf)
{
	int ae = isotp_ae(so);

	lockdep_assert_held(&so->lock);
	if (so->tx.state != ISOTP_TX_WAIT_FIRST_FC &&
	    so->tx.state != ISOTP_TX_WAIT_FC)
		return;
	isotp_timer_stop(so, &so->fc_timer);

	if (cf->len < ae + ISOTP_FC_LEN ||
	    ((so->opt.flags & ISOTP_CHECK_PAD_FLAGS) &&
	     isotp_padding_is_bad(so, cf, ae + ISOTP_FC_LEN))) {
		isotp_tx_fail(so, EBADMSG);
		return;
	}
	if (so->tx.state == ISOTP_TX_WAIT_FIRST_FC) {
		so->tx.peer_bs = cf->data[ae + 1];
		isotp_tx_set_gap(so, cf->data[ae + 2]);
		so->tx.state = ISOTP_TX_WAIT_FC;
	}

	switch (cf->data[ae] & 0x0F) {
	case ISOTP_FS_CTS:
		so->tx.bs_count = 0;
		so->tx.state = ISOTP_TX_SENDING;
		isotp_tx_send_cf(so);
		break;
	case ISOTP_FS_WAIT:
		isotp_timer_arm(so, &so->fc_timer, ISOTP_FC_TIMEOUT);
		break;
	case ISOTP_FS_OVERFLOW:
		isotp_tx_fail(so, EMSGSIZE);
		break;
	default:
		isotp_tx_fail(so, EBADMSG);
	}
}

/* The last frame is on the bus: finish, wait for flow control, or send
 * the next consecutive frame now or after the separation time.
 */
static void isotp_tx_next(struct isotp_sock *so)
{
	if (so->tx.idx >= so->tx.len) {
		isotp_tx_abort(so, 0);
	} else if (so->tx.peer_bs && so->tx.bs_count >= so->tx.peer_bs) {
		so->tx.state = ISOTP_TX_WAIT_FC;
		isotp_timer_arm(so, &so->fc_timer, ISOTP_FC_TIMEOUT);
	} else if (!so->tx.gap) {
		isotp_tx_send_cf(so);
	} else {
		isotp_timer_arm(so, &so->gap_timer, ktime_to_ns(so->tx.gap));
	}
}

/* Receive callback for the socket's tx identifier: our own frames come
 * back here once sent, see can_rx_func_t.
 */
void isotp_rcv_echo(struct sk_buff *skb, void *data)
{
	struct isotp_sock *so = data;

	if (skb->sk != &so->sk)
		return;

	spin_lock(&so->lock);
	if (so->tx.echo_tag && so->tx.echo_tag == can_skb_prv(skb)->skbcnt) {
		so->tx.echo_tag = 0;
		isotp_timer_stop(so, &so->echo_timer);
		if (so->tx.state == ISOTP_TX_SENDING)
			isotp_tx_next(so);
	}
	spin_unlock(&so->lock);
}

/* No flow control (N_Bs) or no echo (N_As) in time: ECOMM. */
static enum hrtimer_restart isotp_tx_timeout(struct isotp_sock *so,
					     struct isotp_timer *t)
{
	spin_lock(&so->lock);
	if (isotp_timer_fired(so, t) && so->tx.state != ISOTP_TX_IDLE)
		isotp_tx_fail(so, ECOMM);
	spin_unlock(&so->lock);
	return HRTIMER_NORESTART;
}

enum hrtimer_restart isotp_fc_timeout(struct hrtimer *hrt)
{
	struct isotp_sock *so = container_of(hrt, struct isotp_sock,
					     fc_timer.hrt);

	return isotp_tx_timeout(so, &so->fc_timer);
}

enum hrtimer_restart isotp_echo_timeout(struct hrtimer *hrt)
{
	struct isotp_sock *so = container_of(hrt, struct isotp_sock,
					     echo_timer.hrt);

	return isotp_tx_timeout(so, &so->echo_timer);
}

/* so->gap_timer: the separation time after a consecutive frame is over. */
enum hrtimer_restart isotp_gap_elapsed(struct hrtimer *hrt)
{
	struct isotp_sock *so = container_of(hrt, struct isotp_sock,
					     gap_timer.hrt);

	spin_lock(&so->lock);
	if (isotp_timer_fired(so, &so->gap_timer) &&
	    so->tx.state == ISOTP_TX_SENDING && !so->tx.echo_tag)
		isotp_tx_send_cf(so);
	spin_unlock(&so->lock);
	return HRTIMER_NORESTART;
}

/* ---- sendmsg ---- */

/* Largest message of one single frame: a CAN FD frame longer than 8
 * bytes spends a byte on the escaped length.
 */
static unsigned int isotp_sf_room(const struct isotp_sock *so)
{
	unsigned int pci = 1 + isotp_ae(so);

	if (so->ll.tx_dl > CAN_MAX_DLEN)
		pci++;
	return so->ll.tx_dl - pci;
}

static void isotp_tx_build_sf(struct isotp_sock *so, struct canfd_frame *cf)
{
	int ae = isotp_ae(so);

	/* Short enough for 8 bytes: no escape even with a longer tx_dl. */
	if (so->tx.len <= CAN_MAX_DLEN - 1 - ae) {
		isotp_tx_put_data(so, cf, ae + 1);
		cf->data[ae] = ISOTP_PCI_SF | so->tx.len;
		return;
	}
	isotp_tx_put_data(so, cf, ae + 2);
	cf->data[ae] = ISOTP_PCI_SF;
	cf->data[ae + 1] = so->tx.len;
}

/* First frames fill tx_dl; lengths above 4095 take the 32-bit form. */
static void isotp_tx_build_ff(struct isotp_sock *so, struct canfd_frame *cf)
{
	int ae = isotp_ae(so);
	int pci_len = so->tx.len > 4095 ? 6 : 2;
	unsigned int n = so->ll.tx_dl - ae - pci_len;

	cf->len = so->ll.tx_dl;
	if (ae)
		cf->data[0] = so->opt.ext_address;
	if (pci_len == 6) {
		__be32 len = cpu_to_be32(so->tx.len);

		cf->data[ae] = ISOTP_PCI_FF;
		cf->data[ae + 1] = 0;
		/* Byte-wise: <asm/unaligned.h> of 6.1 is <linux/...> in 6.12. */
		memcpy(&cf->data[ae + 2], &len, sizeof(len));
	} else {
		cf->data[ae] = ISOTP_PCI_FF | (so->tx.len >> 8);
		cf->data[ae + 1] = so->tx.len & 0xFF;
	}
	memcpy(&cf->data[ae + pci_len], so->tx.buf, n);
	so->tx.idx = n;
	so->tx.sn = 1;
}

/* Build the first (or only) frame and set the state and timer for what
 * comes next. Context: under @so->lock.
 */
static void isotp_tx_start(struct isotp_sock *so, struct sk_buff *skb)
{
	struct canfd_frame *cf = (struct canfd_frame *)skb->data;

	so->tx.idx = 0;
	so->tx.bs_count = 0;
	if (so->tx.len <= isotp_sf_room(so)) {
		isotp_tx_build_sf(so, cf);
		so->tx.state = ISOTP_TX_SENDING;
		isotp_tx_expect_echo(so, skb);
		return;
	}
	isotp_tx_build_ff(so, cf);
	if (isotp_broadcast(so) == CAN_ISOTP_CF_BROADCAST) {
		/* No receiver answers: our own pace, no blocks. */
		so->tx.peer_bs = 0;
		so->tx.gap = ns_to_ktime(so->opt.flags & CAN_ISOTP_FORCE_TXSTMIN ?
					 so->force_tx_stmin : so->frame_txtime);
		so->tx.state = ISOTP_TX_SENDING;
		isotp_tx_expect_echo(so, skb);
		return;
	}
	so->tx.echo_tag = 0;
	so->tx.state = ISOTP_TX_WAIT_FIRST_FC;
	isotp_timer_arm(so, &so->fc_timer, ISOTP_FC_TIMEOUT);
}

static bool isotp_tx_is_idle(struct isotp_sock *so)
{
	return READ_ONCE(so->tx.state) == ISOTP_TX_IDLE;
}

/* One message at a time: wait for the one being sent to end. */
static int isotp_tx_wait_idle(struct isotp_sock *so, bool nonblock)
{
	if (isotp_tx_is_idle(so))
		return 0;
	if (nonblock)
		return -EAGAIN;
	return wait_event_interruptible(so->wait, isotp_tx_is_idle(so));
}

/* The message, copied before the transfer is claimed: no user memory is
 * touched with the state machine locked.
 */
static u8 *isotp_tx_copy_msg(struct msghdr *msg, size_t size, int *err)
{
	u8 *buf = kvmalloc(size, GFP_KERNEL);

	if (!buf) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = memcpy_from_msg(buf, msg, size);
	if (*err) {
		kvfree(buf);
		return NULL;
	}
	return buf;
}

/* The first frame's skb, room for a CAN FD frame whatever the binding:
 * the socket may be rebound with other options before it is claimed, so
 * isotp_tx_claim_and_send() lays the frame out, not this.
 */
static struct sk_buff *isotp_tx_alloc_first(struct isotp_sock *so,
					    struct msghdr *msg, int *err)
{
	/* Charged to the send buffer, and waits for room unless nonblocking */
	return sock_alloc_send_skb(&so->sk,
				   CANFD_MTU + sizeof(struct can_skb_priv),
				   msg->msg_flags & MSG_DONTWAIT, err);
}

/* Whether a message of @size can start now: -EADDRNOTAVAIL if unbound,
 * -EAGAIN if a concurrent sendmsg() claimed the socket first, -EINVAL if
 * it is too long for the single frame of SF_BROADCAST. A socket with a
 * device is bound, and its options change only while it is unbound, so
 * under @so->lock they are those of the binding the message goes out on.
 */
static int isotp_tx_claimable(struct isotp_sock *so, size_t size)
{
	lockdep_assert_held(&so->lock);
	if (!so->dev)
		return -EADDRNOTAVAIL;
	if (so->tx.state != ISOTP_TX_IDLE)
		return -EAGAIN;
	if (isotp_broadcast(so) == CAN_ISOTP_SF_BROADCAST &&
	    size > isotp_sf_room(so))
		return -EINVAL;
	return 0;
}

/* Claim the idle socket for @buf and send its first frame in @skb, laid
 * out by the options of the binding it is sent on. @buf and @skb are ours
 * in every case. Return: 0, an error of isotp_tx_claimable() (nothing
 * was sent), or a send error.
 */
static int isotp_tx_claim_and_send(struct isotp_sock *so, u8 *buf,
				   size_t size, struct sk_buff *skb,
				   struct isotp_tx_waiter *waiter)
{
	u8 *old;
	int err;

	spin_lock_bh(&so->lock);
	err = isotp_tx_claimable(so, size);
	if (err) {
		spin_unlock_bh(&so->lock);
		kfree_skb(skb);
		kvfree(buf);
		return err;
	}
	old = so->tx.buf;
	so->tx.buf = buf;
	so->tx.len = size;
	isotp_init_frame(so, skb);
	isotp_tx_start(so, skb);
	so->tx.waiter = waiter;
	err = isotp_send_frame(so, skb);
	/* Nothing went out: no outcome to wait for. */
	if (err)
		isotp_tx_abort(so, 0);
	spin_unlock_bh(&so->lock);
	kvfree(old);
	return err ?: 0;
}

/* CAN_ISOTP_WAIT_TX_DONE: the outcome, or the transfer is cancelled by a
 * signal (mainline does the same).
 */
static int isotp_tx_wait_done(struct isotp_sock *so,
			      struct isotp_tx_waiter *waiter)
{
	int err;

	err = wait_event_interruptible(so->wait, READ_ONCE(waiter->done));
	if (err) {
		spin_lock_bh(&so->lock);
		if (so->tx.waiter == waiter)
			isotp_tx_abort(so, EINTR);
		spin_unlock_bh(&so->lock);
		if (!waiter->done || waiter->err == EINTR)
			return err;
	}
	/* The outcome is returned here, not left pending as well. */
	sock_error(&so->sk);
	return -waiter->err;
}

/**
 * isotp_sendmsg() - send one message
 * @sock: a bound CAN_ISOTP socket
 * @msg: the message
 * @size: its length, 1 to 66000 bytes
 *
 * Waits for an earlier message to be sent (unless MSG_DONTWAIT), and with
 * CAN_ISOTP_WAIT_TX_DONE for this one as well.
 * Context: process.
 * Return: @size, or -EADDRNOTAVAIL (unbound), -EAGAIN (busy, nonblocking),
 * -EINVAL (size, or too long for SF_BROADCAST), -EFAULT, -ENOMEM, an error
 * of sock_alloc_send_skb() or can_send(), -ERESTARTSYS; with
 * WAIT_TX_DONE also -ECOMM (time-out), -EMSGSIZE (receiver overflow),
 * -EBADMSG (malformed flow control).
 */
int isotp_sendmsg(struct socket *sock, struct msghdr *msg, size_t size)
{
	struct isotp_sock *so = isotp_sk(sock->sk);
	bool nonblock = msg->msg_flags & MSG_DONTWAIT;
	struct isotp_tx_waiter waiter = {};
	struct sk_buff *skb;
	bool wait_done;
	u8 *buf;
	int err;

	if (!READ_ONCE(so->bound))
		return -EADDRNOTAVAIL;
	/* Read once: a rebind may change it, and whether this call waits
	 * must match whether it left a waiter.
	 */
	wait_done = READ_ONCE(so->opt.flags) & CAN_ISOTP_WAIT_TX_DONE;
	do {
		err = isotp_tx_wait_idle(so, nonblock);
		if (err)
			return err;
		if (!size || size > ISOTP_MAX_MSG_LEN)
			return -EINVAL;
		/* Mainline's early answer; checked again once claimed. */
		if (isotp_broadcast(so) == CAN_ISOTP_SF_BROADCAST &&
		    size > isotp_sf_room(so))
			return -EINVAL;
		buf = isotp_tx_copy_msg(msg, size, &err);
		if (!buf)
			return err;
		skb = isotp_tx_alloc_first(so, msg, &err);
		if (!skb) {
			kvfree(buf);
			return err;
		}
		err = isotp_tx_claim_and_send(so, buf, size, skb,
					      wait_done ? &waiter : NULL);
		if (err != -EAGAIN || nonblock)
			break;
		/* Claimed by another sender meanwhile: copy again later. */
		iov_iter_revert(&msg->msg_iter, size);
	} while (true);
	if (err)
		return err;
	if (!wait_done)
		return size;
	err = isotp_tx_wait_done(so, &waiter);
	return err ?: size;
}
