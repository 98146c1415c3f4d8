// SPDX-License-Identifier: GPL-2.0
/* What became of a sent frame (CAN_RAW_TX_REPORT, CAN_RAW_TX_DEADLINE).
 *
 * A socket that asks for it hangs a tracker on each frame it sends: the
 * frame's skb gets our destructor, and the tracker rides along in
 * skb_shinfo()->destructor_arg, which nothing on a CAN device's transmit
 * path uses otherwise. Whoever learns the frame's fate records it:
 * can-dev when the controller confirms the frame or drops it, the
 * receive path when an echo comes back, the sender when can_send()
 * refuses it. A frame freed with no fate recorded left when its driver
 * let go of it, unless the device was down (ENETDOWN) or had lost its
 * carrier (ECOMM: bus-off, when the stack empties the queue).
 *
 * The tracker holds two references: the skb's, dropped by the
 * destructor, and the sender's, dropped once can_send() returned. The
 * report goes out when the last one goes, so the sender's own errno
 * (ENOBUFS from the queue) wins over what the destructor guessed, and a
 * frame sent again after ENOBUFS (CAN_RAW_TX_WAIT) reports only once.
 */

#include <linux/can.h>
#include <linux/can/core.h>
#include <linux/errqueue.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/sch_generic.h>
#include <net/sock.h>

/* No fate recorded yet; every recorded fate is 0 or a negative errno. */
#define CAN_TX_UNDECIDED	1

/**
 * struct can_tx_report - the fate of one frame on its way out
 * @ref: the skb's reference and the sender's, see above
 * @result: CAN_TX_UNDECIDED, 0 (on the wire) or a negative errno;
 *	written by any context, read once @ref has dropped to zero
 * @args: what the sender asked for
 * @written: CLOCK_MONOTONIC time of the write, for @args.deadline_us and
 *	the flush on bus-off
 * @sent_at: when the frame was confirmed (realtime), 0 if not
 * @hw_sent_at: the controller's timestamp of that, 0 if it gave none
 * @silent: the sender tries again with a new skb; no report from this one
 * @sk: the sending socket, held until the report is queued
 * @report: the error queue message, allocated with the tracker so that
 *	the report cannot fail for want of memory later
 */
struct can_tx_report {
	refcount_t ref;
	int result;
	struct can_tx_report_args args;
	ktime_t written;
	ktime_t sent_at;
	ktime_t hw_sent_at;
	bool silent;
	struct sock *sk;
	struct sk_buff *report;
};

static struct can_tx_report *can_tx_report_of(const struct sk_buff *skb)
{
	if (skb->destructor != can_tx_report_destructor)
		return NULL;
	return skb_shinfo(skb)->destructor_arg;
}

static canid_t can_tx_report_id(const struct sk_buff *skb)
{
	if (skb->len >= CANXL_HDR_SIZE &&
	    (((const struct canxl_frame *)skb->data)->flags & CANXL_XLF))
		return ((const struct canxl_frame *)skb->data)->prio;
	return ((const struct can_frame *)skb->data)->can_id;
}

/* The report as the socket reads it: the frame, the outcome in a
 * struct sock_extended_err, the time of the outcome.
 */
static void can_tx_report_queue(struct can_tx_report *tr, int result)
{
	struct sk_buff *skb = tr->report;
	struct sock_exterr_skb *serr = SKB_EXT_ERR(skb);

	tr->report = NULL;
	memset(serr, 0, sizeof(*serr));
	serr->ee.ee_errno = -result;
	serr->ee.ee_origin = SO_EE_ORIGIN_LOCAL;
	serr->ee.ee_info = can_tx_report_id(skb);
	serr->ee.ee_data = tr->args.seq;
	skb->tstamp = tr->sent_at ?: ktime_get_real();
	if (tr->hw_sent_at)
		skb_hwtstamps(skb)->hwtstamp = tr->hw_sent_at;

	if (sock_flag(tr->sk, SOCK_DEAD)) {
		kfree_skb(skb);
		return;
	}
	if (sock_queue_err_skb(tr->sk, skb)) {
		kfree_skb(skb);
		if (tr->args.lost)
			atomic_inc(tr->args.lost);
	}
}

static void can_tx_report_put(struct can_tx_report *tr)
{
	int result;

	if (!refcount_dec_and_test(&tr->ref))
		return;
	result = READ_ONCE(tr->result);
	if (result == CAN_TX_UNDECIDED)
		result = 0;
	if (tr->args.report && !tr->silent)
		can_tx_report_queue(tr, result);
	kfree_skb(tr->report);
	sock_put(tr->sk);
	kfree(tr);
}

/* The fate of a frame freed without one recorded, see the top. A queue
 * still on noop_qdisc drops what it is given: the device was deactivated
 * when its carrier went (bus-off), and the link watch has not given it
 * its queue discipline back since the carrier returned, so the frame
 * never reached the driver although the carrier is on again.
 */
static int can_tx_report_guess(const struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;

	if (!dev)
		return 0;
	if (!netif_running(dev))
		return -ENETDOWN;
	if (!netif_carrier_ok(dev) ||
	    rcu_access_pointer(skb_get_tx_queue(dev, skb)->qdisc) == &noop_qdisc)
		return -ECOMM;
	return 0;
}

/**
 * can_tx_report_destructor() - the destructor of a tracked frame
 * @skb: the frame, freed
 *
 * Records a guessed fate if none was recorded, does what the socket's
 * own destructor would have done and drops the frame's reference to the
 * tracker. Any context an skb may be freed in.
 */
void can_tx_report_destructor(struct sk_buff *skb)
{
	struct can_tx_report *tr = skb_shinfo(skb)->destructor_arg;

	if (READ_ONCE(tr->result) == CAN_TX_UNDECIDED)
		WRITE_ONCE(tr->result, can_tx_report_guess(skb));
	skb_shinfo(skb)->destructor_arg = NULL;
	sock_wfree(skb);
	can_tx_report_put(tr);
}
EXPORT_SYMBOL_GPL(can_tx_report_destructor);

/**
 * can_tx_report_attach() - track the fate of a frame about to be sent
 * @skb: the frame, owned by its socket through sock_wfree() (as
 *	sock_alloc_send_skb() leaves it), not yet handed to can_send()
 * @args: what the sender wants: report, deadline, flush on bus-off;
 *	its frame number is set here, see struct can_tx_report_args
 *
 * Process context; the caller holds a reference to the socket.
 *
 * Return: the tracker, with the sender's reference for
 * can_tx_report_sent(); ERR_PTR(-ENOMEM) if memory ran out (@skb is
 * untouched then).
 */
struct can_tx_report *can_tx_report_attach(struct sk_buff *skb,
					   struct can_tx_report_args *args)
{
	struct can_tx_report *tr;

	if (WARN_ON_ONCE(skb->destructor != sock_wfree))
		return ERR_PTR(-EINVAL);
	tr = kzalloc(sizeof(*tr), GFP_KERNEL);
	if (!tr)
		return ERR_PTR(-ENOMEM);
	if (args->report) {
		tr->report = alloc_skb(skb->len, GFP_KERNEL);
		if (!tr->report) {
			kfree(tr);
			return ERR_PTR(-ENOMEM);
		}
		skb_put_data(tr->report, skb->data, skb->len);
	}
	if (args->next_seq) {
		args->seq = atomic_fetch_inc(args->next_seq);
		args->next_seq = NULL;
	}
	refcount_set(&tr->ref, 2);
	tr->result = CAN_TX_UNDECIDED;
	tr->args = *args;
	tr->written = ktime_get();
	tr->sk = skb->sk;
	sock_hold(tr->sk);
	skb_shinfo(skb)->destructor_arg = tr;
	skb->destructor = can_tx_report_destructor;
	return tr;
}
EXPORT_SYMBOL_GPL(can_tx_report_attach);

/**
 * can_tx_report_sent() - the sender is done with a tracked frame
 * @tr: from can_tx_report_attach()
 * @err: what can_send() returned
 * @again: the frame is sent once more, in a new skb with a new tracker
 *	(CAN_RAW_TX_WAIT after ENOBUFS): this one must not report
 *
 * Drops the sender's reference; @tr may be gone on return.
 */
void can_tx_report_sent(struct can_tx_report *tr, int err, bool again)
{
	if (again)
		tr->silent = true;
	else if (err)
		WRITE_ONCE(tr->result, err);
	can_tx_report_put(tr);
}
EXPORT_SYMBOL_GPL(can_tx_report_sent);

/**
 * can_tx_report_set() - record what became of a frame
 * @skb: the frame, or the echo of it
 * @result: 0 if it left on the wire, else a negative errno
 *
 * For drivers and can-dev; does nothing for a frame nobody tracks. On
 * success the echo's timestamps become the report's. Any context.
 */
void can_tx_report_set(struct sk_buff *skb, int result)
{
	struct can_tx_report *tr = can_tx_report_of(skb);

	if (!tr)
		return;
	if (!result) {
		tr->sent_at = skb->tstamp ?: ktime_get_real();
		tr->hw_sent_at = skb_hwtstamps(skb)->hwtstamp;
	}
	WRITE_ONCE(tr->result, result);
}
EXPORT_SYMBOL_GPL(can_tx_report_set);

/**
 * can_tx_report_stale() - whether a frame must not be sent any more
 * @skb: a frame the driver is about to send
 * @bus_off_at: CLOCK_MONOTONIC time the device last went bus-off, 0 if
 *	never or unknown
 *
 * Any context.
 *
 * Return: 0 to send it; -ETIMEDOUT if its deadline passed; -ECANCELED if
 * it was written before the last bus-off and its sender asked for such
 * frames to be flushed.
 */
int can_tx_report_stale(const struct sk_buff *skb, ktime_t bus_off_at)
{
	const struct can_tx_report *tr = can_tx_report_of(skb);
	ktime_t now;

	if (!tr)
		return 0;
	if (tr->args.flush_bus_off && bus_off_at &&
	    ktime_before(tr->written, bus_off_at))
		return -ECANCELED;
	if (!tr->args.deadline_us)
		return 0;
	now = ktime_get();
	if (ktime_us_delta(now, tr->written) >= tr->args.deadline_us)
		return -ETIMEDOUT;
	return 0;
}
EXPORT_SYMBOL_GPL(can_tx_report_stale);
