// SPDX-License-Identifier: GPL-2.0
/* Receive offload: a controller's interrupt handler empties its
 * mailboxes or FIFO into a private queue at once, so that the hardware
 * does not overrun while the stack is busy, and NAPI delivers the
 * frames later. Controllers that stamp frames with a free running
 * counter get them delivered in stamp order, also across mailboxes and
 * across their own echo frames.
 *
 * Two queues: skb_irq_queue is filled by the interrupt handler alone,
 * without locking, and appended to skb_queue, under skb_queue's lock, in
 * one step at the end of the interrupt (can_rx_offload_irq_finish());
 * NAPI takes frames from skb_queue with the same lock. A frame that
 * arrives while skb_queue holds more than skb_queue_len_max is dropped,
 * and counted also by the core (can_rx_queue_dropped()), whose count
 * is of such losses only.
 */

#include <linux/can/core.h>
#include <linux/can/dev.h>
#include <linux/can/rx-offload.h>

/* The stamp a frame is sorted by, kept in skb->cb until delivery. */
struct rx_offload_cb {
	u32 timestamp;
};

static struct rx_offload_cb *rx_offload_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct rx_offload_cb) > sizeof(skb->cb));
	return (struct rx_offload_cb *)skb->cb;
}

/* Whether the frame stamped @a is older than the one stamped @b. The
 * difference is taken as signed, so a counter that wrapped around
 * between the two still orders them, as long as they are less than
 * half the counter's range apart.
 */
static bool stamped_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static bool rx_queue_is_full(const struct can_rx_offload *offload)
{
	return skb_queue_len(&offload->skb_queue) > offload->skb_queue_len_max;
}

/* Frames mostly come in order: search from the tail for the last frame
 * not younger than @skb and put it after that one.
 */
static void irq_queue_add_sorted(struct can_rx_offload *offload,
				 struct sk_buff *skb)
{
	struct sk_buff_head *q = &offload->skb_irq_queue;
	u32 stamp = rx_offload_cb(skb)->timestamp;
	struct sk_buff *pos;

	skb_queue_reverse_walk(q, pos) {
		if (!stamped_before(stamp, rx_offload_cb(pos)->timestamp)) {
			__skb_queue_after(q, pos, skb);
			return;
		}
	}
	__skb_queue_head(q, skb);
}

/* Context: softirq (NAPI). Error frames count in no packet counter, as
 * everywhere in can-dev; remote frames carry no bytes.
 */
static int rx_offload_poll(struct napi_struct *napi, int quota)
{
	struct can_rx_offload *offload =
		container_of(napi, struct can_rx_offload, napi);
	struct net_device_stats *stats = &offload->dev->stats;
	struct sk_buff *skb;
	int done = 0;

	while (done < quota && (skb = skb_dequeue(&offload->skb_queue))) {
		const struct can_frame *cf = (const struct can_frame *)skb->data;

		if (!(cf->can_id & CAN_ERR_FLAG)) {
			stats->rx_packets++;
			stats->rx_bytes += can_skb_get_data_len(skb);
		}
		netif_receive_skb(skb);
		done++;
	}
	/* A frame queued after the loop ended reschedules us. */
	if (done < quota && napi_complete_done(napi, done) &&
	    !skb_queue_empty(&offload->skb_queue))
		napi_schedule(napi);
	return done;
}

/* One mailbox's frame, stamped, or NULL if there is none to keep: the
 * mailbox was empty, or the frame was lost (counted) because the queue
 * is full or the driver could not read it.
 */
static struct sk_buff *read_mailbox(struct can_rx_offload *offload,
				    unsigned int mb, bool *was_empty)
{
	bool full = rx_queue_is_full(offload);
	struct sk_buff *skb;
	u32 stamp = 0;

	skb = offload->mailbox_read(offload, mb, &stamp, full);
	*was_empty = !skb;
	if (IS_ERR_OR_NULL(skb)) {
		if (skb) {
			offload->dev->stats.rx_dropped++;
			offload->dev->stats.rx_fifo_errors++;
			/* The core's count is of the queue's losses alone. */
			if (full)
				can_rx_queue_dropped(offload->dev, 1);
		}
		return NULL;
	}
	rx_offload_cb(skb)->timestamp = stamp;
	return skb;
}

/* The mailboxes from mb_first to mb_last, in the driver's direction. */
static unsigned int next_mailbox(const struct can_rx_offload *offload,
				 unsigned int mb)
{
	return offload->inc ? mb + 1 : mb - 1;
}

/**
 * can_rx_offload_irq_offload_timestamp() - read the mailboxes with news
 * @offload: the queue, set up with can_rx_offload_add_timestamp()
 * @reg: bit N set for each mailbox N that holds a frame
 *
 * Context: the driver's interrupt handler.
 *
 * Return: the number of frames queued.
 */
int can_rx_offload_irq_offload_timestamp(struct can_rx_offload *offload,
					 u64 reg)
{
	unsigned int mb = offload->mb_first;
	struct sk_buff *skb;
	bool empty;
	int queued = 0;

	for (;;) {
		if (reg & BIT_ULL(mb)) {
			skb = read_mailbox(offload, mb, &empty);
			if (skb) {
				irq_queue_add_sorted(offload, skb);
				queued++;
			}
		}
		if (mb == offload->mb_last)
			return queued;
		mb = next_mailbox(offload, mb);
	}
}
EXPORT_SYMBOL_GPL(can_rx_offload_irq_offload_timestamp);

/**
 * can_rx_offload_irq_offload_fifo() - empty the controller's FIFO
 * @offload: the queue, set up with can_rx_offload_add_fifo()
 *
 * Reads until the driver reports the FIFO empty; frames it could not
 * keep are counted and skipped. Context: the interrupt handler.
 *
 * Return: the number of frames queued.
 */
int can_rx_offload_irq_offload_fifo(struct can_rx_offload *offload)
{
	struct sk_buff *skb;
	bool empty = false;
	int queued = 0;

	while (!empty) {
		skb = read_mailbox(offload, 0, &empty);
		if (skb) {
			__skb_queue_tail(&offload->skb_irq_queue, skb);
			queued++;
		}
	}
	return queued;
}
EXPORT_SYMBOL_GPL(can_rx_offload_irq_offload_fifo);

/**
 * can_rx_offload_queue_timestamp() - queue a frame the driver built
 * @offload: the queue
 * @skb: the frame, e.g. an error frame or an echo; consumed
 * @timestamp: its stamp, which places it among the other frames
 *
 * Context: the interrupt handler.
 *
 * Return: 0, or -ENOBUFS if the queue is full: the frame is freed and
 * the caller counts the loss, as its kind of frame demands.
 */
int can_rx_offload_queue_timestamp(struct can_rx_offload *offload,
				   struct sk_buff *skb, u32 timestamp)
{
	if (rx_queue_is_full(offload)) {
		dev_kfree_skb_any(skb);
		can_rx_queue_dropped(offload->dev, 1);
		return -ENOBUFS;
	}
	rx_offload_cb(skb)->timestamp = timestamp;
	irq_queue_add_sorted(offload, skb);
	return 0;
}
EXPORT_SYMBOL_GPL(can_rx_offload_queue_timestamp);

/**
 * can_rx_offload_queue_tail() - queue a frame the driver built, last
 * @offload: the queue
 * @skb: the frame; consumed
 *
 * As can_rx_offload_queue_timestamp(), for queues without stamps.
 *
 * Return: 0, or -ENOBUFS if the queue is full (the frame is freed, the
 * caller counts the loss).
 */
int can_rx_offload_queue_tail(struct can_rx_offload *offload,
			      struct sk_buff *skb)
{
	if (rx_queue_is_full(offload)) {
		dev_kfree_skb_any(skb);
		can_rx_queue_dropped(offload->dev, 1);
		return -ENOBUFS;
	}
	__skb_queue_tail(&offload->skb_irq_queue, skb);
	return 0;
}
EXPORT_SYMBOL_GPL(can_rx_offload_queue_tail);

/**
 * can_rx_offload_get_echo_skb() - queue the echo of a sent frame
 * @offload: the queue
 * @idx: the echo slot, as given to can_put_echo_skb()
 * @timestamp: when the controller sent it
 * @frame_len_ptr: if not NULL, receives the frame's wire length
 *
 * The echo goes through the queue, so that local readers see it in bus
 * order among the received frames. One the full queue had no room for
 * counts as rx_errors and tx_fifo_errors. Context: the interrupt
 * handler.
 *
 * Return: the frame's payload length for tx_bytes, also when no socket
 * asked for the echo (mainline's returns 0 then); 0 for an empty slot.
 */
unsigned int can_rx_offload_get_echo_skb(struct can_rx_offload *offload,
					 unsigned int idx, u32 timestamp,
					 unsigned int *frame_len_ptr)
{
	struct net_device *dev = offload->dev;
	struct sk_buff *skb;
	unsigned int len;

	/* A frame nobody asked to see again still counts in tx_bytes. */
	skb = __can_get_echo_skb(dev, idx, &len, frame_len_ptr);
	if (!skb)
		return len;
	if (can_rx_offload_queue_timestamp(offload, skb, timestamp)) {
		dev->stats.rx_errors++;
		dev->stats.tx_fifo_errors++;
	}
	return len;
}
EXPORT_SYMBOL_GPL(can_rx_offload_get_echo_skb);

/* Hand this interrupt's frames to NAPI in one step. */
static bool publish_irq_queue(struct can_rx_offload *offload)
{
	unsigned long flags;

	if (skb_queue_empty_lockless(&offload->skb_irq_queue))
		return false;
	spin_lock_irqsave(&offload->skb_queue.lock, flags);
	skb_queue_splice_tail_init(&offload->skb_irq_queue, &offload->skb_queue);
	spin_unlock_irqrestore(&offload->skb_queue.lock, flags);
	return true;
}

/**
 * can_rx_offload_irq_finish() - end of a hard interrupt handler
 * @offload: the queue
 *
 * Makes the frames queued during this interrupt visible to NAPI and
 * schedules it; NAPI runs once the interrupt returns.
 */
void can_rx_offload_irq_finish(struct can_rx_offload *offload)
{
	if (publish_irq_queue(offload))
		napi_schedule(&offload->napi);
}
EXPORT_SYMBOL_GPL(can_rx_offload_irq_finish);

/**
 * can_rx_offload_threaded_irq_finish() - end of a threaded handler
 * @offload: the queue
 *
 * As can_rx_offload_irq_finish(), for handlers that run in a thread:
 * scheduling NAPI there only raises a softirq, which would wait for
 * the next interrupt or tick, so bottom halves are disabled around it
 * and the poll runs when they are enabled again.
 */
void can_rx_offload_threaded_irq_finish(struct can_rx_offload *offload)
{
	if (!publish_irq_queue(offload))
		return;
	local_bh_disable();
	napi_schedule(&offload->napi);
	local_bh_enable();
}
EXPORT_SYMBOL_GPL(can_rx_offload_threaded_irq_finish);

/* Room for four NAPI rounds of @weight frames, at least 16 frames and
 * a power of two, as mainline sizes it.
 */
static void rx_offload_init(struct net_device *dev,
			    struct can_rx_offload *offload,
			    unsigned int weight)
{
	offload->dev = dev;
	offload->skb_queue_len_max = (2U << fls(weight)) * 4;
	skb_queue_head_init(&offload->skb_queue);
	__skb_queue_head_init(&offload->skb_irq_queue);
	netif_napi_add_weight(dev, &offload->napi, rx_offload_poll, weight);
}

/**
 * can_rx_offload_add_manual() - a queue the driver fills itself
 * @dev: the CAN device
 * @offload: the queue, with no mailbox_read
 * @weight: NAPI weight
 *
 * The driver queues frames with can_rx_offload_queue_tail() or
 * can_rx_offload_queue_timestamp(). Process context, before the device
 * opens.
 *
 * Return: 0, or -EINVAL if mailbox_read is set.
 */
int can_rx_offload_add_manual(struct net_device *dev,
			      struct can_rx_offload *offload,
			      unsigned int weight)
{
	if (offload->mailbox_read)
		return -EINVAL;
	rx_offload_init(dev, offload, weight);
	return 0;
}
EXPORT_SYMBOL_GPL(can_rx_offload_add_manual);

/**
 * can_rx_offload_add_fifo() - a queue fed from the controller's FIFO
 * @dev: the CAN device
 * @offload: the queue, with mailbox_read
 * @weight: NAPI weight
 *
 * Process context, before the device opens.
 *
 * Return: 0, or -EINVAL without mailbox_read.
 */
int can_rx_offload_add_fifo(struct net_device *dev,
			    struct can_rx_offload *offload,
			    unsigned int weight)
{
	if (!offload->mailbox_read)
		return -EINVAL;
	rx_offload_init(dev, offload, weight);
	return 0;
}
EXPORT_SYMBOL_GPL(can_rx_offload_add_fifo);

/**
 * can_rx_offload_add_timestamp() - a queue fed from stamped mailboxes
 * @dev: the CAN device
 * @offload: the queue, with mailbox_read, mb_first and mb_last set
 *
 * The mailboxes are read from mb_first to mb_last, which may be the
 * lower or the higher one; the NAPI weight is the span between them.
 * Process context, before the device opens.
 *
 * Return: 0, or -EINVAL without mailbox_read or with a mailbox number
 * that no 64-bit pending mask can name.
 */
int can_rx_offload_add_timestamp(struct net_device *dev,
				 struct can_rx_offload *offload)
{
	if (!offload->mailbox_read || offload->mb_first >= BITS_PER_LONG_LONG ||
	    offload->mb_last >= BITS_PER_LONG_LONG)
		return -EINVAL;
	offload->inc = offload->mb_first < offload->mb_last;
	rx_offload_init(dev, offload, offload->inc ?
			offload->mb_last - offload->mb_first :
			offload->mb_first - offload->mb_last);
	return 0;
}
EXPORT_SYMBOL_GPL(can_rx_offload_add_timestamp);

/**
 * can_rx_offload_del() - tear the queue down, freeing what it holds
 * @offload: the queue; NAPI disabled, the interrupt no longer running
 *
 * Process context.
 */
void can_rx_offload_del(struct can_rx_offload *offload)
{
	netif_napi_del(&offload->napi);
	skb_queue_purge(&offload->skb_queue);
	__skb_queue_purge(&offload->skb_irq_queue);
}
EXPORT_SYMBOL_GPL(can_rx_offload_del);

/**
 * can_rx_offload_enable() - start delivering, e.g. in ndo_open
 * @offload: the queue
 */
void can_rx_offload_enable(struct can_rx_offload *offload)
{
	napi_enable(&offload->napi);
}
EXPORT_SYMBOL_GPL(can_rx_offload_enable);
