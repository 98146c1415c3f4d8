// SPDX-License-Identifier: GPL-2.0
/* The receive table: which subscribers want which frames. A subscription
 * goes where matching it is cheapest. Exact identifiers are found by
 * index (11 bit) or hash (29 bit); catch-alls need no compare. Id/mask
 * filters are hashed by their mask and the identifier bits it keeps,
 * all into one hash of the table, and a short record per distinct mask
 * (a mask group) says which masks to try: a frame costs one lookup per
 * distinct mask, however many filters share it (tuple space search).
 * Only inverted and error filters, which usually all match, are lists.
 *
 * Memory follows the filters, not the masks: a mask group holds no
 * slots of its own, only its mask and count (a 64-byte object), so a
 * socket that gives every filter a mask of its own pays 136 bytes per
 * filter, under twice mainline's, where groups with their own hash
 * slots cost kilobytes each. Filters that share a mask cost only their
 * subscription. Subscriptions and groups are charged to the memory
 * cgroup of the task that subscribes, a table to the one of the task
 * that creates its device or namespace, and groups are allocated before
 * the table's lock is taken (see can_rx_table_add), so that no user can
 * pin memory that is neither accounted nor reclaimable.
 *
 * Every list of subscriptions is singly linked. A subscription is only
 * ever removed by searching its list for it, which finds the predecessor
 * on the way, so a back pointer would be 8 bytes per filter for nothing.
 * Writers hold the namespace's rx_lock; readers follow ->next under RCU.
 * An unlinked entry keeps its ->next, so a reader standing on it walks
 * on, and is freed after a grace period.
 */

#include <linux/can.h>
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "af_can.h"

#define CAN_EFF_RTR_FLAGS (CAN_EFF_FLAG | CAN_RTR_FLAG)

/* Readers, under rcu_read_lock(). */
static struct can_receiver *can_rcv_first(const struct can_rcv_list *list)
{
	return rcu_dereference(list->first);
}

static struct can_receiver *can_rcv_next(const struct can_receiver *rcv)
{
	return rcu_dereference(rcv->next);
}

/* Readers that may hold the namespace's rx_lock instead. */
#define can_rcv_deref_check(p, table)					\
	rcu_dereference_check(p, lockdep_is_held(&(table)->cn->rx_lock))

/* Writers, with the namespace's rx_lock held. */
#define can_rcv_deref_locked(p, table)					\
	rcu_dereference_protected(p, lockdep_is_held(&(table)->cn->rx_lock))

/**
 * struct can_mask_group - a mask that id/mask filters of a table use
 * @node: link in &can_rx_table.mask_groups, in order of creation, which
 *	the receive path walks
 * @by_mask: link in the table's hash of groups by mask, which writers
 *	search, so that a table of many masks takes filters in O(1)
 * @rcu: deferred free once the last filter left
 * @mask: the mask, after can_rx_place()
 * @entries: filters with this mask in &can_rx_table.fil
 *
 * Created and freed under the namespace's rx_lock, read under RCU.
 */
struct can_mask_group {
	struct hlist_node node;
	struct hlist_node by_mask;
	struct rcu_head rcu;
	canid_t mask;
	unsigned int entries;
};

/**
 * can_mask_group_alloc() - allocate a mask group for can_rx_table_add()
 *
 * Context: process context, may sleep; charges the caller's memory cgroup.
 * Return: the group, or NULL if memory ran out.
 */
struct can_mask_group *can_mask_group_alloc(void)
{
	return kzalloc(sizeof(struct can_mask_group), GFP_KERNEL_ACCOUNT);
}

/* A group can_rx_table_add() did not need; never published. */
void can_mask_group_free(struct can_mask_group *group)
{
	kfree(group);
}

/* Filters of every mask share the table's hash: the mask takes part in
 * the key, so that many masks of few filters spread like one mask of
 * many filters.
 */
static struct can_rcv_list *can_fil_slot(struct can_rx_table *table,
					 canid_t can_id, canid_t mask)
{
	return &table->fil[hash_32(can_id ^ hash_32(mask, 32),
				   CAN_FIL_HASH_BITS)];
}

static struct hlist_head *can_group_bucket(struct can_rx_table *table,
					   canid_t mask)
{
	return &table->group_hash[hash_32(mask, CAN_GROUP_HASH_BITS)];
}

static struct can_mask_group *can_group_find(struct can_rx_table *table,
					     canid_t mask)
{
	struct can_mask_group *group;

	lockdep_assert_held(&table->cn->rx_lock);
	hlist_for_each_entry(group, can_group_bucket(table, mask), by_mask)
		if (group->mask == mask)
			return group;
	return NULL;
}

/* The group of @mask, made of *@spare if there is none yet; NULL if a
 * group is needed and the caller has none to give.
 */
static struct can_mask_group *can_group_get(struct can_rx_table *table,
					    canid_t mask,
					    struct can_mask_group **spare)
{
	struct can_mask_group *group = can_group_find(table, mask);

	if (group || !*spare)
		return group;
	group = *spare;
	*spare = NULL;
	group->mask = mask;
	group->entries = 0;
	hlist_add_head(&group->by_mask, can_group_bucket(table, mask));
	hlist_add_tail_rcu(&group->node, &table->mask_groups);
	return group;
}

static void can_group_unlink(struct can_mask_group *group)
{
	hlist_del(&group->by_mask);
	hlist_del_rcu(&group->node);
	kfree_rcu(group, rcu);
}

static void can_group_put(struct can_mask_group *group)
{
	if (!--group->entries)
		can_group_unlink(group);
}

/**
 * can_rx_table_alloc() - allocate an empty receive table
 * @cn: the namespace it serves
 *
 * A table takes about 42 KiB, and whoever creates a CAN device or a
 * namespace makes one: it is charged to the memory cgroup of the task
 * that does, like the device itself.
 *
 * Context: process context, may sleep.
 * Return: the table, or NULL if memory ran out.
 */
struct can_rx_table *can_rx_table_alloc(struct can_pernet *cn)
{
	struct can_rx_table *table = kvzalloc(sizeof(*table), GFP_KERNEL_ACCOUNT);

	if (!table)
		return NULL;
	table->fil = kvcalloc(CAN_FIL_SLOTS, sizeof(*table->fil),
			      GFP_KERNEL_ACCOUNT);
	table->group_hash = kcalloc(CAN_GROUP_SLOTS, sizeof(*table->group_hash),
				    GFP_KERNEL_ACCOUNT);
	table->drops = alloc_percpu_gfp(struct can_dev_drops, GFP_KERNEL_ACCOUNT);
	if (!table->fil || !table->group_hash || !table->drops) {
		can_rx_table_destroy(table);
		return NULL;
	}
	table->cn = cn;
	return table;
}

/* Free an empty table no reader can reach any more. */
void can_rx_table_destroy(struct can_rx_table *table)
{
	free_percpu(table->drops);
	kfree(table->group_hash);
	kvfree(table->fil);
	kvfree(table);
}

static void can_rx_table_free_rcu(struct rcu_head *head)
{
	can_rx_table_destroy(container_of(head, struct can_rx_table, rcu));
}

/* The caller has emptied and unpublished the table; readers may remain. */
void can_rx_table_free(struct can_rx_table *table)
{
	call_rcu(&table->rcu, can_rx_table_free_rcu);
}

/* Link @rcv in at the head of @list. */
static void can_rcv_push(struct can_rx_table *table, struct can_rcv_list *list,
			 struct can_receiver *rcv)
{
	RCU_INIT_POINTER(rcv->next, can_rcv_deref_locked(list->first, table));
	rcu_assign_pointer(list->first, rcv);
	WRITE_ONCE(table->entries, table->entries + 1);
}

/* Unlink the entry that @link (a list head or a ->next) points to. Its
 * successor is published already, so readers need no barrier for it.
 */
static struct can_receiver *can_rcv_unlink(struct can_rx_table *table,
					   struct can_receiver __rcu **link)
{
	struct can_receiver *rcv = can_rcv_deref_locked(*link, table);

	RCU_INIT_POINTER(*link, can_rcv_deref_locked(rcv->next, table));
	WRITE_ONCE(table->entries, table->entries - 1);
	return rcv;
}

/* Unlink every entry of @list; the caller accounts for mask groups. */
static unsigned int can_rx_drain_list(struct can_rx_table *table,
				      struct can_rcv_list *list)
{
	unsigned int n = 0;

	while (can_rcv_deref_locked(list->first, table)) {
		can_receiver_free(can_rcv_unlink(table, &list->first));
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
	struct can_mask_group *group;
	struct hlist_node *next;
	unsigned int i, n = 0;

	lockdep_assert_held(&table->cn->rx_lock);
	for (i = 0; i < CAN_RX_SFF; i++)
		n += can_rx_drain_list(table, &table->list[i]);
	for (i = 0; i < CAN_SFF_SLOTS; i++)
		n += can_rx_drain_list(table, &table->sff[i]);
	for (i = 0; i < CAN_EFF_SLOTS; i++)
		n += can_rx_drain_list(table, &table->eff[i]);
	for (i = 0; i < CAN_FIL_SLOTS; i++)
		n += can_rx_drain_list(table, &table->fil[i]);
	hlist_for_each_entry_safe(group, next, &table->mask_groups, node)
		can_group_unlink(group);
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

static unsigned int can_rx_list_slots(enum can_rx_list which)
{
	if (which == CAN_RX_SFF)
		return CAN_SFF_SLOTS;
	if (which == CAN_RX_EFF)
		return CAN_EFF_SLOTS;
	if (which == CAN_RX_FIL)
		return CAN_FIL_SLOTS;
	return 1;
}

/* A list of @which; @slot is an index or hash, 0 for single lists. */
static struct can_rcv_list *can_rx_list_head(struct can_rx_table *table,
					     enum can_rx_list which,
					     unsigned int slot)
{
	if (which == CAN_RX_SFF)
		return &table->sff[slot];
	if (which == CAN_RX_EFF)
		return &table->eff[slot];
	if (which == CAN_RX_FIL)
		return &table->fil[slot];
	return &table->list[which];
}

/**
 * can_rx_table_add() - insert a subscription
 * @table: table of the device (or of all devices)
 * @rcv: the subscription with the caller's can_id and mask; both are
 *	normalized (see can_rx_place) once it is inserted
 * @spare: a group from can_mask_group_alloc(), or NULL; taken (and set
 *	to NULL) if the filter's mask is new to the table
 *
 * Groups are allocated by the caller before it takes the lock, so that
 * the allocation may sleep and is charged to the caller; one without a
 * spare group is told to come back with one.
 *
 * Context: the namespace's rx_lock held. Readers may walk the table.
 * Return: 0, or -EAGAIN if the filter needs a new mask group and @spare
 * holds none; @rcv is left untouched then.
 */
int can_rx_table_add(struct can_rx_table *table, struct can_receiver *rcv,
		     struct can_mask_group **spare)
{
	canid_t can_id = rcv->can_id, mask = rcv->mask;
	struct can_mask_group *group;
	struct can_rcv_list *list;
	unsigned int slot;
	enum can_rx_list which = can_rx_place(&can_id, &mask, &slot);

	lockdep_assert_held(&table->cn->rx_lock);
	if (which == CAN_RX_FIL) {
		group = can_group_get(table, mask, spare);
		if (!group)
			return -EAGAIN;
		group->entries++;
		list = can_fil_slot(table, can_id, mask);
	} else {
		list = can_rx_list_head(table, which, slot);
	}
	rcv->can_id = can_id;
	rcv->mask = mask;
	can_rcv_push(table, list, rcv);
	return 0;
}

/**
 * can_rx_table_remove() - unlink the subscription made with these arguments
 * @table: table to search
 * @can_id: identifier as given to can_rx_register()
 * @mask: mask as given to can_rx_register()
 * @func: callback
 * @data: callback argument
 *
 * A mask group left empty goes with its last filter.
 *
 * Context: the namespace's rx_lock held. Readers may still see the entry
 * until a grace period has passed.
 * Return: the unlinked entry for the caller to free, or NULL.
 */
struct can_receiver *can_rx_table_remove(struct can_rx_table *table,
					 canid_t can_id, canid_t mask,
					 can_rx_func_t func, void *data)
{
	struct can_mask_group *group = NULL;
	struct can_receiver __rcu **link;
	struct can_receiver *rcv;
	struct can_rcv_list *list;
	unsigned int slot;
	enum can_rx_list which = can_rx_place(&can_id, &mask, &slot);

	lockdep_assert_held(&table->cn->rx_lock);
	if (which == CAN_RX_FIL) {
		group = can_group_find(table, mask);
		if (!group)
			return NULL;
		list = can_fil_slot(table, can_id, mask);
	} else {
		list = can_rx_list_head(table, which, slot);
	}

	for (link = &list->first; (rcv = can_rcv_deref_locked(*link, table));
	     link = &rcv->next) {
		if (rcv->can_id == can_id && rcv->mask == mask &&
		    rcv->func == func && rcv->data == data) {
			can_rcv_unlink(table, link);
			if (group)
				can_group_put(group);
			return rcv;
		}
	}
	return NULL;
}

static unsigned int can_rx_walk_list(struct can_rx_table *table,
				     struct can_rcv_list *list,
				     can_rx_walk_fn fn, void *arg)
{
	struct can_receiver *rcv = can_rcv_deref_check(list->first, table);
	unsigned int n = 0;

	for (; rcv; rcv = can_rcv_deref_check(rcv->next, table), n++)
		fn(rcv, arg);
	return n;
}

/**
 * can_rx_table_walk() - call @fn for every subscription of one list
 * @table: the table
 * @which: the list
 * @fn: called for each subscription
 * @arg: passed to @fn
 *
 * Context: rcu_read_lock() or the namespace's rx_lock held.
 * Return: the number of subscriptions visited.
 */
unsigned int can_rx_table_walk(struct can_rx_table *table,
			       enum can_rx_list which, can_rx_walk_fn fn,
			       void *arg)
{
	unsigned int i, n = 0;

	for (i = 0; i < can_rx_list_slots(which); i++)
		n += can_rx_walk_list(table, can_rx_list_head(table, which, i),
				      fn, arg);
	return n;
}

/* A subscriber sees only the frame types it asked for: a protocol that
 * reads a classic frame's length byte must never be handed an XL frame
 * of the same size, whose flags sit there.
 *
 * A match is not called at once but held until the next one turns up,
 * so that the last of a frame's subscribers is known when it is called
 * (see can_rx_delivery_finish()). The order of the calls stays that of
 * the matches.
 *
 * The match count is for display only: two CPUs delivering to the same
 * subscriber at once may lose an increment, which is cheaper than an
 * atomic on every delivery.
 */
static unsigned int can_rx_deliver(struct can_receiver *rcv,
				   struct can_rx_delivery *d)
{
	if (!(rcv->frame_types & d->type))
		return 0;
	if (d->held)
		d->held->func(d->skb, d->held->data);
	d->held = rcv;
	rcv->matches++;
	return 1;
}

/* Inverted filters: those whose compare fails. */
static unsigned int can_rx_deliver_inverted(struct can_rx_table *table,
					    struct can_rx_delivery *d,
					    canid_t can_id)
{
	struct can_receiver *rcv = can_rcv_first(&table->list[CAN_RX_INV]);
	unsigned int matches = 0;

	for (; rcv; rcv = can_rcv_next(rcv)) {
		if ((can_id & rcv->mask) != rcv->can_id)
			matches += can_rx_deliver(rcv, d);
	}
	return matches;
}

/* Id/mask filters: one hash lookup per distinct mask. */
static unsigned int can_rx_deliver_grouped(struct can_rx_table *table,
					   struct can_rx_delivery *d,
					   canid_t can_id)
{
	struct can_mask_group *group;
	struct can_receiver *rcv;
	unsigned int matches = 0;
	canid_t key;

	hlist_for_each_entry_rcu(group, &table->mask_groups, node) {
		key = can_id & group->mask;
		rcv = can_rcv_first(can_fil_slot(table, key, group->mask));
		for (; rcv; rcv = can_rcv_next(rcv)) {
			if (rcv->can_id == key && rcv->mask == group->mask)
				matches += can_rx_deliver(rcv, d);
		}
	}
	return matches;
}

static unsigned int can_rx_deliver_error(struct can_rx_table *table,
					 struct can_rx_delivery *d,
					 canid_t can_id)
{
	struct can_receiver *rcv = can_rcv_first(&table->list[CAN_RX_ERR]);
	unsigned int matches = 0;

	for (; rcv; rcv = can_rcv_next(rcv)) {
		if (can_id & rcv->mask)
			matches += can_rx_deliver(rcv, d);
	}
	return matches;
}

static unsigned int can_rx_deliver_exact(struct can_rx_table *table,
					 struct can_rx_delivery *d,
					 canid_t can_id)
{
	struct can_rcv_list *list;
	struct can_receiver *rcv;
	unsigned int matches = 0;

	if (can_id & CAN_RTR_FLAG)
		return 0;
	if (can_id & CAN_EFF_FLAG) {
		list = &table->eff[can_eff_slot(can_id)];
	} else {
		/* Bits above the 11 of a standard frame do not count. */
		can_id &= CAN_SFF_MASK;
		list = &table->sff[can_id];
	}

	for (rcv = can_rcv_first(list); rcv; rcv = can_rcv_next(rcv)) {
		if (rcv->can_id == can_id)
			matches += can_rx_deliver(rcv, d);
	}
	return matches;
}

/**
 * can_rx_table_collect() - hand a frame to every matching subscriber
 * @table: table of the receiving device, or of all devices
 * @d: the delivery, begun with can_rx_delivery_init(); a table's matches
 *	add to those of the tables collected before
 *
 * Error frames reach only error filters. Other frames reach catch-all
 * subscribers, matching and non-matching (inverted) filters, and exact
 * subscribers of their identifier. Of those, only subscribers of the
 * frame's type see it. The last match is held back for
 * can_rx_delivery_finish().
 *
 * Context: rcu_read_lock() held, bottom halves off.
 */
void can_rx_table_collect(struct can_rx_table *table,
			  struct can_rx_delivery *d)
{
	canid_t can_id = ((struct can_frame *)d->skb->data)->can_id;
	struct can_receiver *rcv;
	unsigned int matches = 0;

	if (!READ_ONCE(table->entries))
		return;
	if (can_id & CAN_ERR_FLAG) {
		d->matches += can_rx_deliver_error(table, d, can_id);
		return;
	}

	rcv = can_rcv_first(&table->list[CAN_RX_ALL]);
	for (; rcv; rcv = can_rcv_next(rcv))
		matches += can_rx_deliver(rcv, d);
	matches += can_rx_deliver_grouped(table, d, can_id);
	matches += can_rx_deliver_inverted(table, d, can_id);
	matches += can_rx_deliver_exact(table, d, can_id);
	d->matches += matches;
}

/* The frame a subscriber may keep instead of cloning it, per CPU: set
 * only while the last subscriber of a frame the core owns alone is
 * being called, see can_rx_skb_get() in af_can.c (which exports it; the
 * KUnit module compiles this file in and must not export it again).
 */
DEFINE_PER_CPU(struct sk_buff *, can_rx_spare_skb);

/**
 * can_rx_delivery_finish() - call the match held back, last
 * @d: the delivery, after its tables were collected
 * @may_keep: the caller owns @d->skb alone and lets the last subscriber
 *	keep it (can_rx_skb_get()) rather than free it
 *
 * Context: as can_rx_table_collect().
 * Return: true if a subscriber kept the frame; the caller must then not
 * touch it any more. False if the caller still has to free it.
 */
bool can_rx_delivery_finish(struct can_rx_delivery *d, bool may_keep)
{
	struct can_receiver *rcv = d->held;
	struct sk_buff *prev;
	bool kept;

	if (!rcv)
		return false;
	d->held = NULL;
	if (!may_keep) {
		rcv->func(d->skb, rcv->data);
		return false;
	}
	/* A subscriber that sends may make the core dispatch another
	 * frame on this CPU before it returns; that one has its own spare.
	 */
	prev = this_cpu_read(can_rx_spare_skb);
	this_cpu_write(can_rx_spare_skb, d->skb);
	rcv->func(d->skb, rcv->data);
	kept = this_cpu_read(can_rx_spare_skb) != d->skb;
	this_cpu_write(can_rx_spare_skb, prev);
	return kept;
}

/**
 * can_rx_table_deliver() - hand a frame to the subscribers of one table
 * @table: the table
 * @skb: the frame, not consumed
 * @type: its type, one CAN_RX_TYPE_* bit
 *
 * can_rx_table_collect() and can_rx_delivery_finish() for one table,
 * without letting a subscriber keep the frame.
 *
 * Context: rcu_read_lock() held, bottom halves off.
 * Return: number of deliveries.
 */
unsigned int can_rx_table_deliver(struct can_rx_table *table,
				  struct sk_buff *skb, u8 type)
{
	struct can_rx_delivery d;

	can_rx_delivery_init(&d, skb, type);
	can_rx_table_collect(table, &d);
	can_rx_delivery_finish(&d, false);
	return d.matches;
}
