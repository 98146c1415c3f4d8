/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receive offload for CAN controller drivers: frames taken from the
 * controller in its interrupt handler are queued, in time stamp order
 * if the controller stamps them, and handed to the stack from NAPI.
 */

#ifndef _CAN_RX_OFFLOAD_H
#define _CAN_RX_OFFLOAD_H

#include <linux/can.h>
#include <linux/netdevice.h>

/**
 * struct can_rx_offload - a driver's receive queue
 * @dev: the CAN device
 * @mailbox_read: read mailbox @mb (always 0 for a FIFO), return its frame
 *	and, through @timestamp, its time stamp; with @drop set, free the
 *	mailbox without keeping the frame and return an ERR_PTR. NULL for
 *	an empty mailbox, an ERR_PTR for a frame lost. Interrupt context.
 *	Unused (NULL) in manual mode.
 * @skb_queue: frames waiting for NAPI; its lock guards it
 * @skb_irq_queue: frames of the current interrupt, not yet visible to
 *	NAPI; only the interrupt handler touches it
 * @skb_queue_len_max: frames @skb_queue may hold before new ones drop
 * @mb_first: first mailbox to read, in timestamp mode
 * @mb_last: last mailbox to read; mailboxes are read from @mb_first
 *	towards it, which may count down
 * @napi: delivers @skb_queue to the stack
 * @inc: @mb_first is below @mb_last
 */
struct can_rx_offload {
	struct net_device *dev;

	struct sk_buff *(*mailbox_read)(struct can_rx_offload *offload,
					unsigned int mb, u32 *timestamp,
					bool drop);

	struct sk_buff_head skb_queue, skb_irq_queue;
	u32 skb_queue_len_max;

	unsigned int mb_first, mb_last;

	struct napi_struct napi;

	bool inc;
};

/* Set up, by how the driver reads the controller. */
int can_rx_offload_add_manual(struct net_device *dev,
			      struct can_rx_offload *offload,
			      unsigned int weight);
int can_rx_offload_add_fifo(struct net_device *dev,
			    struct can_rx_offload *offload,
			    unsigned int weight);
int can_rx_offload_add_timestamp(struct net_device *dev,
				 struct can_rx_offload *offload);
void can_rx_offload_enable(struct can_rx_offload *offload);
void can_rx_offload_del(struct can_rx_offload *offload);

int can_rx_offload_irq_offload_timestamp(struct can_rx_offload *offload,
					 u64 reg);
int can_rx_offload_irq_offload_fifo(struct can_rx_offload *offload);
int can_rx_offload_queue_timestamp(struct can_rx_offload *offload,
				   struct sk_buff *skb, u32 timestamp);
int can_rx_offload_queue_tail(struct can_rx_offload *offload,
			      struct sk_buff *skb);
unsigned int can_rx_offload_get_echo_skb(struct can_rx_offload *offload,
					 unsigned int idx, u32 timestamp,
					 unsigned int *frame_len_ptr);
void can_rx_offload_irq_finish(struct can_rx_offload *offload);
void can_rx_offload_threaded_irq_finish(struct can_rx_offload *offload);

/* Stop delivery, e.g. in ndo_stop; waits for a running poll. */
static inline void can_rx_offload_disable(struct can_rx_offload *offload)
{
	napi_disable(&offload->napi);
}

#endif /* !_CAN_RX_OFFLOAD_H */
