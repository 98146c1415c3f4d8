/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the PF_CAN core shared by its files: the receive table
 * that maps identifiers to subscribers, the per-namespace state and the
 * statistics that /proc/net/can shows.
 */

#ifndef _NET_CAN_AF_CAN_H
#define _NET_CAN_AF_CAN_H

#include <linux/bits.h>
#include <linux/can.h>
#include <linux/can/core.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

struct can_pernet;

/* The lists of a receive table; the order is that of /proc/net/can. */
enum can_rx_list {
	CAN_RX_ERR,	/* error frames, by class */
	CAN_RX_ALL,	/* every frame (mask 0) */
	CAN_RX_FIL,	/* id/mask filters */
	CAN_RX_INV,	/* inverted id/mask filters */
	CAN_RX_SFF,	/* one exact 11-bit id, indexed by id */
	CAN_RX_EFF,	/* one exact 29-bit id, hashed */
	CAN_RX_LISTS
};

/**
 * struct can_receiver - one subscription made with can_rx_register()
 * @next: the next entry of its list in a receive table, followed under
 *	RCU (see rx_table.c)
 * @rcu: deferred free once no reader can see the entry
 * @can_id: identifier, already reduced by @mask (see can_rx_table_add)
 * @mask: identifier bits compared; for error filters the error classes
 * @func: callback, see can_rx_func_t
 * @data: callback argument
 * @ident: short name of the subscriber, for /proc/net/can
 * @sk: socket that owns the subscription, held until @rcu has run
 * @matches: frames delivered, for /proc/net/can; wraps at 2^32
 * @frame_types: the CAN_RX_TYPE_* bits of the frames it receives
 *
 * There is one entry per filter, so it is kept small: 72 bytes on 64-bit,
 * which is why @matches has 32 bits only.
 * Which list it is in follows from @can_id and @mask as registered, and
 * removal finds its predecessor while searching for it, so the entry
 * stores neither.
 */
struct can_receiver {
	struct can_receiver __rcu *next;
	struct rcu_head rcu;
	canid_t can_id;
	canid_t mask;
	can_rx_func_t func;
	void *data;
	const char *ident;
	struct sock *sk;
	unsigned int matches;
	u8 frame_types;
};

/* The first entry of a singly linked list of subscriptions. */
struct can_rcv_list {
	struct can_receiver __rcu *first;
};

#define CAN_SFF_SLOTS	BIT(CAN_SFF_ID_BITS)
#define CAN_EFF_HASH_BITS 10
#define CAN_EFF_SLOTS	BIT(CAN_EFF_HASH_BITS)
#define CAN_FIL_HASH_BITS 10
#define CAN_FIL_SLOTS	BIT(CAN_FIL_HASH_BITS)
#define CAN_GROUP_HASH_BITS 8
#define CAN_GROUP_SLOTS	BIT(CAN_GROUP_HASH_BITS)

struct can_mask_group;

/**
 * struct can_dev_drops - frames one device lost after its controller
 * @rx_queue: lost between the interrupt and the softirq: the driver's
 *	rx-offload queue or the CPU's backlog queue was full
 * @no_receiver: valid frames no subscription matched
 * @invalid: frames the core refused (size, length or protocol wrong)
 * @sock_queue: copies a socket's full receive queue refused
 *
 * One set per CPU, in the device's receive table, incremented with
 * this_cpu_inc() from any context and summed for readers. A device that
 * changes its namespace gets a new table and starts from 0.
 */
struct can_dev_drops {
	unsigned long rx_queue;
	unsigned long no_receiver;
	unsigned long invalid;
	unsigned long sock_queue;
};

/**
 * struct can_rx_table - the subscribers of one device, or of all devices
 * @rcu: frees a device's table after readers are done with it (first,
 *	because kvfree_rcu() needs it near the start)
 * @list: the error, catch-all and inverted lists (CAN_RX_FIL is unused)
 * @mask_groups: the distinct masks of the id/mask filters, one group each
 *	(see rx_table.c)
 * @sff: exact 11-bit subscriptions, one list per identifier
 * @eff: exact 29-bit subscriptions, hashed by identifier
 * @fil: id/mask filters, hashed by mask and identifier (CAN_FIL_SLOTS)
 * @group_hash: the groups of @mask_groups again, hashed by mask, for
 *	writers only (CAN_GROUP_SLOTS)
 * @entries: number of subscriptions in the table
 * @cn: the namespace the table belongs to; a device that changes its
 *	namespace gets a new table
 * @drops: the device's loss counters (unused in the table of all devices)
 *
 * Writers hold the namespace's &can_pernet.rx_lock; readers walk the
 * lists under rcu_read_lock() and see each entry whole or not at all.
 */
struct can_rx_table {
	struct rcu_head rcu;
	struct can_rcv_list list[CAN_RX_SFF];
	struct hlist_head mask_groups;
	struct can_rcv_list sff[CAN_SFF_SLOTS];
	struct can_rcv_list eff[CAN_EFF_SLOTS];
	struct can_rcv_list *fil;
	struct hlist_head *group_hash;
	unsigned int entries;
	struct can_pernet *cn;
	struct can_dev_drops __percpu *drops;
};

/* Frame counters: one set per CPU, or the sum of all sets. The last
 * three are the namespace's totals of struct can_dev_drops.
 */
struct can_pcpu_stats {
	unsigned long tx_frames;
	unsigned long rx_frames;
	unsigned long matches;
	unsigned long rx_invalid;
	unsigned long rx_queue_drops;
	unsigned long rx_unmatched;
	unsigned long rx_sock_drops;
};

/**
 * struct can_rate - rates derived from the frame counters over a span
 * @rx: received frames per second
 * @tx: sent frames per second
 * @match_ratio: percentage of received frames that reached a subscriber
 */
struct can_rate {
	unsigned long rx;
	unsigned long tx;
	unsigned long match_ratio;
};

/**
 * struct can_rates - what /proc/net/can/stats shows besides raw counts
 * @base: the counters' sums at the last reset; the file shows the
 *	counts since then
 * @last: the sums at the previous timer tick
 * @jiffies_base: time of the last reset
 * @jiffies_last: time of the previous tick
 * @total: rates since the last reset
 * @recent: rates between the last two ticks
 * @peak: the highest @recent values since the last reset
 * @resets: resets since the namespace was set up
 * @user_resets: of @resets, those asked for by reading reset_stats
 *
 * Written by the statistics timer (softirq) and by readers of
 * reset_stats (process context), read by the stats file, all under
 * &can_pernet.stats_lock.
 */
struct can_rates {
	struct can_pcpu_stats base;
	struct can_pcpu_stats last;
	unsigned long jiffies_base;
	unsigned long jiffies_last;
	struct can_rate total;
	struct can_rate recent;
	struct can_rate peak;
	unsigned long resets;
	unsigned long user_resets;
};

/**
 * struct can_pernet - the core's state in one network namespace
 * @rx_lock: serialises writers of every receive table of the namespace
 *	(its devices' and @all_devs); taken in process context with
 *	bottom halves off, never by the receive path
 * @all_devs: subscriptions to frames of any device of the namespace
 * @entries: subscriptions in all tables of the namespace, under @rx_lock
 * @max_entries: highest value @entries had, under @rx_lock
 * @stats: per-CPU frame counters, incremented on the frame paths with
 *	this_cpu_inc() and summed by can_stats_sum()
 * @stats_lock: protects @rates; taken by the statistics timer (softirq)
 *	and by /proc readers (process context, bottom halves off)
 * @rates: derived statistics
 * @stats_timer: recomputes @rates once a second if the stats_timer
 *	module parameter is set
 * @proc_dir: /proc/net/can
 */
struct can_pernet {
	spinlock_t rx_lock; /* receive table writers, see above */
	struct can_rx_table *all_devs;
	unsigned int entries;
	unsigned int max_entries;
	struct can_pcpu_stats __percpu *stats;
	spinlock_t stats_lock; /* @rates, see above */
	struct can_rates rates;
	struct timer_list stats_timer;
	struct proc_dir_entry *proc_dir;
};

struct can_pernet *can_pernet(const struct net *net);
struct can_rx_table *can_dev_rx_table(struct net_device *dev);

struct can_rx_table *can_rx_table_alloc(struct can_pernet *cn);
void can_rx_table_free(struct can_rx_table *table);
void can_rx_table_destroy(struct can_rx_table *table);
unsigned int can_rx_table_drain(struct can_rx_table *table);
struct can_mask_group *can_mask_group_alloc(void);
void can_mask_group_free(struct can_mask_group *group);
int can_rx_table_add(struct can_rx_table *table, struct can_receiver *rcv,
		     struct can_mask_group **spare);
struct can_receiver *can_rx_table_remove(struct can_rx_table *table,
					 canid_t can_id, canid_t mask,
					 can_rx_func_t func, void *data);
void can_rx_normalize(canid_t *can_id, canid_t *mask);
unsigned int can_rx_table_deliver(struct can_rx_table *table,
				  struct sk_buff *skb, u8 type);

/**
 * struct can_rx_delivery - one frame on its way to the subscribers
 * @skb: the frame
 * @held: the last match, not called yet
 * @matches: matches so far
 * @type: the frame's CAN_RX_TYPE_* bit
 */
struct can_rx_delivery {
	struct sk_buff *skb;
	struct can_receiver *held;
	unsigned int matches;
	u8 type;
};

static inline void can_rx_delivery_init(struct can_rx_delivery *d,
					struct sk_buff *skb, u8 type)
{
	d->skb = skb;
	d->held = NULL;
	d->matches = 0;
	d->type = type;
}

void can_rx_table_collect(struct can_rx_table *table,
			  struct can_rx_delivery *d);
bool can_rx_delivery_finish(struct can_rx_delivery *d, bool may_keep);
DECLARE_PER_CPU(struct sk_buff *, can_rx_spare_skb);
typedef void (*can_rx_walk_fn)(struct can_receiver *rcv, void *arg);
unsigned int can_rx_table_walk(struct can_rx_table *table,
			       enum can_rx_list which, can_rx_walk_fn fn,
			       void *arg);
void can_receiver_free(struct can_receiver *rcv);
void can_dev_drops_sum(struct can_rx_table *table, struct can_dev_drops *sum);

/* /proc/net/can and the rate statistics it shows exist with procfs only. */
#ifdef CONFIG_PROC_FS
int can_proc_init(struct net *net);
void can_proc_exit(struct net *net);
void can_stats_start(struct can_pernet *cn);
void can_stats_stop(struct can_pernet *cn);
#else
static inline int can_proc_init(struct net *net)
{
	return 0;
}

static inline void can_proc_exit(struct net *net)
{
}

static inline void can_stats_start(struct can_pernet *cn)
{
}

static inline void can_stats_stop(struct can_pernet *cn)
{
}
#endif

#endif /* _NET_CAN_AF_CAN_H */
