/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PF_CAN core as the socket protocols see it: registering a protocol,
 * subscribing to received frames by identifier and mask, and sending.
 */

#ifndef _CAN_CORE_H
#define _CAN_CORE_H

#include <linux/bits.h>
#include <linux/can.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

/**
 * struct can_proto - a protocol served by PF_CAN sockets
 * @type: socket type (SOCK_RAW, SOCK_DGRAM)
 * @protocol: CAN_RAW, CAN_BCM, ...
 * @ops: socket operations
 * @prot: protocol descriptor, registered with proto_register() by the core
 */
struct can_proto {
	int type;
	int protocol;
	const struct proto_ops *ops;
	struct proto *prot;
};

/*
 * How many bytes of a user-supplied option or message reach up to and
 * including @member, for ABI versions that grew a structure at its end.
 */
#define CAN_REQUIRED_SIZE(type, member) offsetofend(type, member)

/* Name of a device for messages; NULL stands for all devices. */
static inline const char *can_dev_name(const struct net_device *dev)
{
	return dev ? dev->name : "any";
}

/**
 * typedef can_rx_func_t - a receiver's callback
 * @skb: the received frame; shared, the callee must not free or modify
 *	it and must clone it (or take it with can_rx_skb_get()) to keep it
 * @data: the pointer given to can_rx_register()
 *
 * Called in softirq context (or with bottom halves disabled) under
 * rcu_read_lock(). Must not sleep.
 */
typedef void (*can_rx_func_t)(struct sk_buff *skb, void *data);

struct sk_buff *can_rx_skb_get(struct sk_buff *skb);

int can_proto_register(const struct can_proto *cp);
void can_proto_unregister(const struct can_proto *cp);

/*
 * The frame types a subscription receives (can_rx_register_types()); ours,
 * not mainline's, whose protocols check each frame's type themselves.
 */
#define CAN_RX_TYPE_CC		BIT(0)	/* classic CAN (Classical CAN) */
#define CAN_RX_TYPE_FD		BIT(1)	/* CAN FD */
#define CAN_RX_TYPE_XL		BIT(2)	/* CAN XL */
#define CAN_RX_TYPES_ANY	(CAN_RX_TYPE_CC | CAN_RX_TYPE_FD | CAN_RX_TYPE_XL)

int can_rx_register(struct net *net, struct net_device *dev,
		    canid_t can_id, canid_t mask, can_rx_func_t func,
		    void *data, char *ident, struct sock *sk);
int can_rx_register_types(struct net *net, struct net_device *dev,
			  canid_t can_id, canid_t mask, can_rx_func_t func,
			  void *data, char *ident, struct sock *sk, u8 types);
void can_rx_unregister(struct net *net, struct net_device *dev,
		       canid_t can_id, canid_t mask, can_rx_func_t func,
		       void *data);

/**
 * struct can_drop_counts - frames a CAN device lost, by where
 * @controller: in the controller, its FIFO or buffers overran
 *	(rx_over_errors of the device)
 * @rx_queue: between interrupt and softirq: rx-offload or backlog full
 * @no_receiver: in the core: valid frames no subscription matched
 * @invalid: in the core: frames it refused as malformed
 * @sock_queue: in sockets: copies a full receive queue refused
 */
struct can_drop_counts {
	u64 controller;
	u64 rx_queue;
	u64 no_receiver;
	u64 invalid;
	u64 sock_queue;
};

void can_rx_queue_dropped(struct net_device *dev, unsigned int frames);
int can_netif_rx(struct sk_buff *skb);
void can_sock_rx_dropped(struct net_device *dev, int err);
void can_get_drop_counts(struct net_device *dev, struct can_drop_counts *c);

int can_send(struct sk_buff *skb, int loop);
void can_tx_room(struct net_device *dev);
unsigned int can_tx_room_seq(struct net_device *dev);
bool can_tx_has_room(struct net_device *dev);
int can_tx_wait(struct net_device *dev, unsigned int seq, long *timeo);
void can_tx_poll_add(struct net_device *dev, struct wait_queue_entry *entry);
void can_tx_poll_del(struct net_device *dev, struct wait_queue_entry *entry);
void can_set_skb_uid(struct sk_buff *skb);
void can_dev_link_ops_announce(const struct rtnl_link_ops *ops);
bool can_dev_is_ours(const struct net_device *dev);

/**
 * struct can_tx_report_args - what a sender tracks a frame for (ours)
 * @seq: the frame's number on its socket, reported in ee_data
 * @next_seq: if not NULL, @seq is taken from this counter once the
 *	tracker exists (so a frame that fails for want of memory takes no
 *	number), and can_tx_report_attach() stores it in @seq and clears
 *	@next_seq, so that the same frame sent again keeps its number
 * @deadline_us: drop the frame if it is not sent this long after the
 *	write; 0 for no deadline
 * @report: queue a report on the socket's error queue
 * @flush_bus_off: drop the frame if the device goes bus-off before it
 *	is sent
 * @lost: counts reports the socket had no room for; may be NULL
 */
struct can_tx_report_args {
	u32 seq;
	atomic_t *next_seq;
	u32 deadline_us;
	bool report;
	bool flush_bus_off;
	atomic_t *lost;
};

struct can_tx_report;
struct can_tx_report *can_tx_report_attach(struct sk_buff *skb,
					   struct can_tx_report_args *args);
void can_tx_report_sent(struct can_tx_report *tr, int err, bool again);
void can_tx_report_set(struct sk_buff *skb, int result);
int can_tx_report_stale(const struct sk_buff *skb, ktime_t bus_off_at);
void can_tx_report_destructor(struct sk_buff *skb);
void can_sock_destruct(struct sock *sk);

#endif /* !_CAN_CORE_H */
