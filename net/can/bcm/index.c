// SPDX-License-Identifier: GPL-2.0
/*
 * The operations of one kind (transmissions or receive filters) that a
 * broadcast manager socket holds. Requests name an operation by its
 * identifier, interface and frame type, and a process that watches a
 * whole vehicle bus sets up a filter for each of a thousand identifiers:
 * looking each request up in a list would make setting them up quadratic.
 * So once a socket has more than a few operations, a hash of their
 * identifiers sits next to the list. The list stays, in order of
 * creation, for /proc and for walking all operations.
 *
 * Everything here runs under bcm_sock.lock; only the list is read without
 * it, under RCU, by /proc and by the netdevice notifier.
 */

#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "bcm-priv.h"

/* Up to this many operations a list walk is as cheap as a hash. */
#define BCM_INDEX_MIN_OPS	16
/* 4096 buckets: beyond that, chains lengthen rather than memory grows. */
#define BCM_INDEX_MAX_BITS	12

void bcm_ops_init(struct bcm_ops *ops, struct sock *sk)
{
	INIT_LIST_HEAD(&ops->list);
	ops->buckets = NULL;
	ops->bits = 0;
	ops->count = 0;
	ops->sk = sk;
}

static struct hlist_head *bcm_ops_bucket(struct bcm_ops *ops, canid_t can_id,
					 int ifindex)
{
	return &ops->buckets[hash_32(can_id ^ (u32)ifindex, ops->bits)];
}

/* Rebuild the index with 2^@bits buckets from the list. On allocation
 * failure the old index (or the list alone) keeps serving lookups.
 */
static void bcm_ops_reindex(struct bcm_ops *ops, unsigned int bits)
{
	struct hlist_head *buckets;
	struct bcm_op *op;
	unsigned int i;

	lockdep_assert_held(&bcm_sk(ops->sk)->lock);

	buckets = kvmalloc_array(BIT(bits), sizeof(*buckets), GFP_KERNEL);
	if (!buckets)
		return;
	for (i = 0; i < BIT(bits); i++)
		INIT_HLIST_HEAD(&buckets[i]);

	kvfree(ops->buckets);
	ops->buckets = buckets;
	ops->bits = bits;
	list_for_each_entry(op, &ops->list, list)
		hlist_add_head(&op->by_id,
			       bcm_ops_bucket(ops, op->can_id, op->ifindex));
}

/* Once operations outnumber buckets, make about four buckets for each. */
static void bcm_ops_grow(struct bcm_ops *ops)
{
	unsigned int bits = ops->buckets ? ops->bits : 0;

	if (ops->count <= BCM_INDEX_MIN_OPS || ops->count <= BIT(bits) ||
	    bits >= BCM_INDEX_MAX_BITS)
		return;
	bits = min_t(unsigned int, ilog2(ops->count) + 2, BCM_INDEX_MAX_BITS);
	bcm_ops_reindex(ops, bits);
}

/**
 * bcm_ops_add() - list and index a new operation
 * @ops: bcm_sock.tx_ops or .rx_ops
 * @op: the operation, on no list yet
 *
 * Context: process, the socket's bcm_sock.lock held; may sleep to grow the index.
 */
void bcm_ops_add(struct bcm_ops *ops, struct bcm_op *op)
{
	lockdep_assert_held(&bcm_sk(ops->sk)->lock);

	list_add_rcu(&op->list, &ops->list);
	ops->count++;
	if (ops->buckets)
		hlist_add_head(&op->by_id,
			       bcm_ops_bucket(ops, op->can_id, op->ifindex));
	bcm_ops_grow(ops);
}

/**
 * bcm_ops_del() - take an operation off its list and out of the index
 * @ops: the list it is on
 * @op: the operation
 *
 * /proc readers may still see @op on the list until a grace period ends.
 *
 * Context: process, the socket's bcm_sock.lock held.
 */
void bcm_ops_del(struct bcm_ops *ops, struct bcm_op *op)
{
	lockdep_assert_held(&bcm_sk(ops->sk)->lock);

	list_del_rcu(&op->list);
	if (ops->buckets)
		hlist_del(&op->by_id);
	ops->count--;
}

static bool bcm_op_is(const struct bcm_op *op, canid_t can_id, int ifindex,
		      bool is_fd)
{
	return op->can_id == can_id && op->ifindex == ifindex &&
	       op->is_fd == is_fd;
}

/**
 * bcm_ops_find() - look up the operation a request addresses
 * @ops: bcm_sock.tx_ops or .rx_ops
 * @req: the request
 *
 * An operation is named by its identifier, its interface and whether it
 * handles CAN FD frames.
 *
 * Context: the socket's bcm_sock.lock held.
 * Return: the operation or NULL.
 */
struct bcm_op *bcm_ops_find(struct bcm_ops *ops,
			    const struct bcm_request *req)
{
	bool is_fd = req->head.flags & CAN_FD_FRAME;
	canid_t can_id = req->head.can_id;
	struct bcm_op *op;

	lockdep_assert_held(&bcm_sk(ops->sk)->lock);

	if (!ops->buckets) {
		list_for_each_entry(op, &ops->list, list)
			if (bcm_op_is(op, can_id, req->ifindex, is_fd))
				return op;
		return NULL;
	}
	hlist_for_each_entry(op, bcm_ops_bucket(ops, can_id, req->ifindex),
			     by_id)
		if (bcm_op_is(op, can_id, req->ifindex, is_fd))
			return op;
	return NULL;
}

/**
 * bcm_ops_destroy() - free the index once every operation is gone
 * @ops: an empty set of operations
 *
 * Context: process, the socket's bcm_sock.lock held by its release.
 */
void bcm_ops_destroy(struct bcm_ops *ops)
{
	lockdep_assert_held(&bcm_sk(ops->sk)->lock);

	WARN_ON_ONCE(ops->count);
	kvfree(ops->buckets);
	ops->buckets = NULL;
}

/**
 * bcm_ops_use_ifindex() - whether an operation names an interface
 * @ops: bcm_sock.tx_ops or .rx_ops
 * @ifindex: the interface, or 0 for the operations on all of them
 *
 * Lets the netdevice notifier pass by sockets that have nothing on a
 * device without taking their lock. The answer may be stale by the time
 * it is used; callers cover operations being added meanwhile themselves.
 *
 * Context: any; takes rcu_read_lock(), as bcm_op.ifindex never changes
 * and operations are freed after a grace period.
 * Return: true if an operation on @ifindex is listed.
 */
bool bcm_ops_use_ifindex(struct bcm_ops *ops, int ifindex)
{
	struct bcm_op *op;
	bool found = false;

	rcu_read_lock();
	list_for_each_entry_rcu(op, &ops->list, list) {
		if (op->ifindex == ifindex) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}
