// SPDX-License-Identifier: GPL-2.0
/*
 * The receive table: which subscribers want which frames. A subscription
 * goes into the list that makes matching it cheapest: exact identifiers
 * are found by index or hash, catch-all subscriptions need no compare,
 * and only real id/mask filters are tested one by one.
 */

#include <linux/can.h>
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "af_can.h"

#define CAN_EFF_RTR_FLAGS (CAN_EFF_FLAG | CAN_RTR_FLAG)

struct can_rx_table *can_rx_table_alloc(void)
{
	return kvzalloc(sizeof(struct can_rx_table), GFP_KERNEL);
}

/* The caller has emptied and unpublished the table; readers may remain. */
void can_rx_table_free(struct can_rx_table *table)
{
	kvfree_rcu(table, rcu);
}

static unsigned int can_rx_drain_list(struct can_rx_table *table,
				      struct hlist_head *head)
{
	struct can_receiver *rcv;
	struct hlist_node *next;
	unsigned int n = 0;

	hlist_for_each_entry_safe(rcv, next, head, node) {
		can_rx_table_del(table, rcv);
		can_receiver_free(rcv);
		n++;
	}
	return n;
}

/**
 * can_rx_table_drain() - unlink every subscription of a table
 * @table: table no longer reachable for new subscriptions
 *
 * Context: the namespace's rx_lock held.
 * Return: the number of subscriptions removed; each is freed after a
 * grace period.
 */
unsigned int can_rx_table_drain(struct can_rx_table *table)
{
	unsigned int i, n = 0;

	for (i = 0; i < CAN_RX_SFF; i++)
		n += can_rx_drain_list(table, &table->list[i]);
	for (i = 0; i < CAN_SFF_SLOTS; i++)
		n += can_rx_drain_list(table, &table->sff[i]);
	for (i = 0; i < CAN_EFF_SLOTS; i++)
		n += can_rx_drain_list(table, &table->eff[i]);
	return n;
}

static unsigned int can_eff_slot(canid_t can_id)
{
	return hash_32(can_id & CAN_EFF_MASK, CAN_EFF_HASH_BITS);
}

/* An exact subscription: all id bits, EFF and RTR compared, RTR clear. */
static bool can_is_exact(canid_t can_id, canid_t mask)
{
	canid_t id_mask = (can_id & CAN_EFF_FLAG) ? CAN_EFF_MASK : CAN_SFF_MASK;

	return mask == (id_mask | CAN_EFF_RTR_FLAGS) && !(can_id & CAN_RTR_FLAG);
}

/**
 * can_rx_place() - normalize a filter and choose its list
 * @can_id: identifier with flags, CAN_INV_FILTER included; reduced by
 *	the mask on return, so that matching is one AND and one compare
 * @mask: bits to compare; with CAN_ERR_FLAG, the error classes wanted.
 *	A filter that requires the EFF flag clear compares at most 11 id
 *	bits. Cleared of CAN_ERR_FLAG on return.
 * @slot: index inside the SFF or EFF list
 *
 * Return: the list the filter belongs in.
 */
static enum can_rx_list can_rx_place(canid_t *can_id, canid_t *mask,
				     unsigned int *slot)
{
	bool inverted = *can_id & CAN_INV_FILTER;

	*slot = 0;
	if (*mask & CAN_ERR_FLAG) {
		*mask &= CAN_ERR_MASK;
		return CAN_RX_ERR;
	}
	if ((*mask & CAN_EFF_FLAG) && !(*can_id & CAN_EFF_FLAG))
		*mask &= CAN_SFF_MASK | CAN_EFF_RTR_FLAGS;
	*can_id &= *mask;

	if (inverted)
		return CAN_RX_INV;
	if (!*mask)
		return CAN_RX_ALL;
	if (can_is_exact(*can_id, *mask)) {
		if (*can_id & CAN_EFF_FLAG) {
			*slot = can_eff_slot(*can_id);
			return CAN_RX_EFF;
		}
		*slot = *can_id;
		return CAN_RX_SFF;
	}
	return CAN_RX_FIL;
}

/**
 * can_rx_table_list() - one list of a table, for walking it
 * @table: the table
 * @which: the list
 * @slot: index for CAN_RX_SFF and CAN_RX_EFF, else ignored
 */
struct hlist_head *can_rx_table_list(struct can_rx_table *table,
				     enum can_rx_list which,
				     unsigned int slot)
{
	if (which == CAN_RX_SFF)
		return &table->sff[slot];
	if (which == CAN_RX_EFF)
		return &table->eff[slot];
	return &table->list[which];
}

/**
 * can_rx_table_add() - insert a subscription
 * @table: table of the device (or of all devices)
 * @rcv: the subscription with the caller's can_id and mask
 *
 * Context: the namespace's rx_lock held. Readers may walk the table.
 */
void can_rx_table_add(struct can_rx_table *table, struct can_receiver *rcv)
{
	unsigned int slot;
	enum can_rx_list which = can_rx_place(&rcv->can_id, &rcv->mask, &slot);

	hlist_add_head_rcu(&rcv->node, can_rx_table_list(table, which, slot));
	WRITE_ONCE(table->entries, table->entries + 1);
}

/**
 * can_rx_table_find() - the subscription made with these arguments
 * @table: table to search
 * @can_id: identifier as given to can_rx_register()
 * @mask: mask as given to can_rx_register()
 * @func: callback
 * @data: callback argument
 *
 * Context: the namespace's rx_lock held.
 * Return: the entry, or NULL.
 */
struct can_receiver *can_rx_table_find(struct can_rx_table *table,
				       canid_t can_id, canid_t mask,
				       can_rx_func_t func, void *data)
{
	struct can_receiver *rcv;
	unsigned int slot;
	enum can_rx_list which = can_rx_place(&can_id, &mask, &slot);

	hlist_for_each_entry(rcv, can_rx_table_list(table, which, slot), node) {
		if (rcv->can_id == can_id && rcv->mask == mask &&
		    rcv->func == func && rcv->data == data)
			return rcv;
	}
	return NULL;
}

/* Context: the namespace's rx_lock held; free @rcv after a grace period. */
void can_rx_table_del(struct can_rx_table *table, struct can_receiver *rcv)
{
	hlist_del_rcu(&rcv->node);
	WRITE_ONCE(table->entries, table->entries - 1);
}

/*
 * The match count is for display only: two CPUs delivering to the same
 * subscriber at once may lose an increment, which is cheaper than an
 * atomic on every delivery.
 */
static void can_rx_deliver(struct can_receiver *rcv, struct sk_buff *skb)
{
	rcv->func(skb, rcv->data);
	rcv->matches++;
}

/* Deliver to every entry of @head whose filter (in)equality holds. */
static unsigned int can_rx_deliver_masked(struct hlist_head *head,
					  struct sk_buff *skb, canid_t can_id,
					  bool want_equal)
{
	struct can_receiver *rcv;
	unsigned int matches = 0;

	hlist_for_each_entry_rcu(rcv, head, node) {
		if (((can_id & rcv->mask) == rcv->can_id) == want_equal) {
			can_rx_deliver(rcv, skb);
			matches++;
		}
	}
	return matches;
}

static unsigned int can_rx_deliver_error(struct can_rx_table *table,
					 struct sk_buff *skb, canid_t can_id)
{
	struct can_receiver *rcv;
	unsigned int matches = 0;

	hlist_for_each_entry_rcu(rcv, &table->list[CAN_RX_ERR], node) {
		if (can_id & rcv->mask) {
			can_rx_deliver(rcv, skb);
			matches++;
		}
	}
	return matches;
}

static unsigned int can_rx_deliver_exact(struct can_rx_table *table,
					 struct sk_buff *skb, canid_t can_id)
{
	struct can_receiver *rcv;
	struct hlist_head *head;
	unsigned int matches = 0;

	if (can_id & CAN_RTR_FLAG)
		return 0;
	if (can_id & CAN_EFF_FLAG)
		head = &table->eff[can_eff_slot(can_id)];
	else
		head = &table->sff[can_id & CAN_SFF_MASK];

	hlist_for_each_entry_rcu(rcv, head, node) {
		if (rcv->can_id == can_id) {
			can_rx_deliver(rcv, skb);
			matches++;
		}
	}
	return matches;
}

/**
 * can_rx_table_deliver() - hand a frame to every matching subscriber
 * @table: table of the receiving device, or of all devices
 * @skb: the received frame, not consumed
 *
 * Error frames reach only error filters. Other frames reach catch-all
 * subscribers, matching and non-matching (inverted) filters, and exact
 * subscribers of their identifier.
 *
 * Context: rcu_read_lock() held, bottom halves off.
 * Return: number of deliveries.
 */
unsigned int can_rx_table_deliver(struct can_rx_table *table,
				  struct sk_buff *skb)
{
	canid_t can_id = ((struct can_frame *)skb->data)->can_id;
	struct can_receiver *rcv;
	unsigned int matches = 0;

	if (!READ_ONCE(table->entries))
		return 0;
	if (can_id & CAN_ERR_FLAG)
		return can_rx_deliver_error(table, skb, can_id);

	hlist_for_each_entry_rcu(rcv, &table->list[CAN_RX_ALL], node) {
		can_rx_deliver(rcv, skb);
		matches++;
	}
	matches += can_rx_deliver_masked(&table->list[CAN_RX_FIL], skb,
					 can_id, true);
	matches += can_rx_deliver_masked(&table->list[CAN_RX_INV], skb,
					 can_id, false);
	matches += can_rx_deliver_exact(table, skb, can_id);
	return matches;
}
