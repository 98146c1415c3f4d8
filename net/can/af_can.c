// SPDX-License-Identifier: GPL-2.0
/* PF_CAN core: registers the protocol family, keeps the table of CAN
 * protocols (raw, bcm), routes received frames to the subscribers in the
 * receive tables and sends frames with local loopback.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/can.h>
#include <linux/can/can-ml.h>
#include <linux/can/core.h>
#include <linux/can/skb.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sch_generic.h>
#include <net/sock.h>

#include "af_can.h"

MODULE_DESCRIPTION("PF_CAN protocol family core");
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The CAN stack developers");
MODULE_ALIAS_NETPROTO(PF_CAN);

static unsigned int can_net_id __read_mostly;
static struct kmem_cache *can_receiver_cache __read_mostly;

/* The registered protocols, indexed by protocol number. Writers hold
 * can_proto_mutex (process context); socket creation reads a slot under
 * rcu_read_lock() and pins the protocol's module before leaving it.
 */
static const struct can_proto __rcu *can_protos[CAN_NPROTO];
static DEFINE_MUTEX(can_proto_mutex);

static const struct can_proto *can_proto_slot(int protocol)
{
	return rcu_dereference_protected(can_protos[protocol],
					 lockdep_is_held(&can_proto_mutex));
}

struct can_pernet *can_pernet(const struct net *net)
{
	return net_generic(net, can_net_id);
}

/* The core serves the devices whose driver declared them CAN by pointing
 * dev->ml_priv (type ML_PRIV_CAN) at a struct can_ml_priv in their
 * private area, not every device that has the type ARPHRD_CAN: a tun
 * can take that type and drop it again at any time, and no table may
 * depend on it. The notifier hangs the device's receive table in that
 * room when the device registers and takes it out under the namespace's
 * rx_lock when it unregisters; everything else finds the table there.
 * Readers on the receive path run under RCU, and the table is freed
 * only after a grace period. A device whose registration failed before
 * our notifier ran has no table to take out.
 *
 * Context: under RCU, in softirq or with bottom halves disabled (which
 * includes holding an rx_lock), or with RTNL held.
 */
struct can_rx_table *can_dev_rx_table(struct net_device *dev)
{
	struct can_ml_priv *ml = can_get_ml_priv(dev);

	if (!ml)
		return NULL;
	return rcu_dereference_check(ml->rx_table, rcu_read_lock_bh_held() ||
				     lockdep_rtnl_is_held());
}

/* See can-ml.h: the symbol that ties the drivers to this core. */
const size_t can_stack_core_v2 = sizeof(struct can_ml_priv);
EXPORT_SYMBOL(can_stack_core_v2);

/* Writers are serialised by RTNL. A table is taken out under its
 * namespace's rx_lock as well: can_rx_register() finds the table and
 * links into it under that lock, so after the pointer is cleared no
 * subscription can join the table being drained.
 *
 * Context: RTNL held; the table's rx_lock too when @table is NULL.
 */
static void can_dev_set_rx_table(struct net_device *dev,
				 struct can_rx_table *table)
{
	struct can_ml_priv *ml = can_get_ml_priv(dev);

	ASSERT_RTNL();
	if (!table)
		lockdep_assert_held(&rtnl_dereference(ml->rx_table)->cn->rx_lock);
	rcu_assign_pointer(ml->rx_table, table);
}

/* ---- protocols and sockets ---- */

static const struct can_proto *can_proto_get(int protocol)
{
	const struct can_proto *cp;

	rcu_read_lock();
	cp = rcu_dereference(can_protos[protocol]);
	if (cp && !try_module_get(cp->prot->owner))
		cp = NULL;
	rcu_read_unlock();
	return cp;
}

static void can_proto_put(const struct can_proto *cp)
{
	module_put(cp->prot->owner);
}

/**
 * can_sock_destruct() - free what a CAN socket still queues
 * @sk: the socket being destroyed, no longer reachable by anyone
 *
 * The core installs it as sk->sk_destruct of every CAN socket; a protocol
 * that needs its own destructor calls it from there. Frames still queued
 * for reading or on the error queue are freed.
 *
 * Context: any context, from the last sock_put().
 */
void can_sock_destruct(struct sock *sk)
{
	skb_queue_purge(&sk->sk_receive_queue);
	skb_queue_purge(&sk->sk_error_queue);
}
EXPORT_SYMBOL(can_sock_destruct);

/* Allocate the sock of a new socket and let its protocol set it up. */
static int can_sock_init(struct net *net, struct socket *sock,
			 const struct can_proto *cp, int kern)
{
	struct sock *sk = sk_alloc(net, PF_CAN, GFP_KERNEL, cp->prot, kern);
	int err;

	if (!sk)
		return -ENOMEM;

	sock->ops = cp->ops;
	sock_init_data(sock, sk);
	sk->sk_destruct = can_sock_destruct;

	err = sk->sk_prot->init ? sk->sk_prot->init(sk) : 0;
	if (err) {
		sock_orphan(sk);
		sock_put(sk);
		/* The caller releases @sock; it must not find the freed sk. */
		sock->sk = NULL;
	}
	return err;
}

/* socket(PF_CAN, type, protocol): load the protocol on first use. The
 * lookup is retried whatever request_module() says, since another task
 * may have loaded the module meanwhile.
 */
static int can_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	const struct can_proto *cp;
	int err;

	sock->state = SS_UNCONNECTED;
	if (protocol < 0 || protocol >= CAN_NPROTO)
		return -EINVAL;

	cp = can_proto_get(protocol);
	if (!cp) {
		request_module("can-proto-%d", protocol);
		cp = can_proto_get(protocol);
	}
	if (!cp)
		return -EPROTONOSUPPORT;

	if (cp->type == sock->type)
		err = can_sock_init(net, sock, cp, kern);
	else
		err = -EPROTOTYPE;

	can_proto_put(cp);
	return err;
}

/**
 * can_proto_register() - make a CAN protocol available to socket()
 * @cp: the protocol; must stay valid until can_proto_unregister(). The
 *	core registers @cp->prot with proto_register(); sockets of the
 *	protocol pin @cp->prot->owner while they exist.
 *
 * Context: process context, may sleep; takes can_proto_mutex.
 * Return: 0; -EINVAL if the protocol number is out of range; -EBUSY if
 * another protocol has the number; the error of proto_register()
 * (-ENOBUFS, -ENOMEM) otherwise.
 */
int can_proto_register(const struct can_proto *cp)
{
	int proto = cp->protocol;
	int err;

	if (proto < 0 || proto >= CAN_NPROTO) {
		pr_err("protocol number %d out of range\n", proto);
		return -EINVAL;
	}

	err = proto_register(cp->prot, 0);
	if (err)
		return err;

	mutex_lock(&can_proto_mutex);
	if (can_proto_slot(proto)) {
		pr_err("protocol %d already registered\n", proto);
		err = -EBUSY;
	} else {
		rcu_assign_pointer(can_protos[proto], cp);
	}
	mutex_unlock(&can_proto_mutex);

	if (err)
		proto_unregister(cp->prot);
	return err;
}
EXPORT_SYMBOL(can_proto_register);

/**
 * can_proto_unregister() - withdraw a protocol registered earlier
 * @cp: the protocol, as given to can_proto_register()
 *
 * New sockets can no longer be created once this returns; existing ones
 * keep the protocol's module pinned, so none exists when a module calls
 * this from its exit function. The grace period waited for ensures that
 * no socket creation still looks at @cp before @cp->prot goes.
 *
 * Context: process context; takes can_proto_mutex and sleeps for an RCU
 * grace period.
 */
void can_proto_unregister(const struct can_proto *cp)
{
	int proto = cp->protocol;

	mutex_lock(&can_proto_mutex);
	WARN_ON_ONCE(can_proto_slot(proto) != cp);
	RCU_INIT_POINTER(can_protos[proto], NULL);
	mutex_unlock(&can_proto_mutex);

	synchronize_rcu();
	proto_unregister(cp->prot);
}
EXPORT_SYMBOL(can_proto_unregister);

/* ---- subscriptions ---- */

/* The table for @dev in @net, or NULL if the device has none (any more)
 * or has one in another namespace, whose rx_lock the caller does not
 * hold: a device that moved took none of its subscriptions along.
 */
static struct can_rx_table *can_rx_table_of(struct net *net,
					    struct net_device *dev)
{
	struct can_pernet *cn = can_pernet(net);
	struct can_rx_table *table;

	lockdep_assert_held(&cn->rx_lock);

	if (!dev)
		return cn->all_devs;
	table = can_dev_rx_table(dev);
	return table && table->cn == cn ? table : NULL;
}

/**
 * can_rx_register_types() - subscribe to received frames of some types
 * @net: namespace of @dev
 * @dev: device whose frames are wanted, or NULL for every CAN device of
 *	@net
 * @can_id: identifier (with EFF/RTR flags; CAN_INV_FILTER inverts)
 * @mask: identifier bits to compare; CAN_ERR_FLAG in @mask subscribes to
 *	the error frame classes set in it instead
 * @func: called for every matching frame, see can_rx_func_t
 * @data: passed to @func
 * @ident: short subscriber name shown in /proc/net/can
 * @sk: socket owning the subscription, or NULL; held until the
 *	subscription is gone and no frame can still be delivered to it
 * @types: CAN_RX_TYPE_* bits of the frame types to receive; other
 *	frames pass by the subscription as if it did not match
 *
 * A frame matches when (frame can_id & @mask) == (@can_id & @mask); the
 * EFF and RTR flags take part where @mask has them. If @mask has
 * CAN_EFF_FLAG but @can_id does not, only standard frames match and at
 * most their 11 identifier bits are compared. Error frames reach error
 * subscriptions only. Delivery starts before this returns and may run on
 * any CPU. @ident must outlive the subscription (a string constant).
 *
 * Context: process context, may sleep; takes the namespace's rx_lock
 * with bottom halves disabled.
 * Return: 0; -EINVAL if @types names no frame type; -ENOMEM; -ENODEV if
 * @dev is not a CAN device of @net or is being unregistered.
 */
int can_rx_register_types(struct net *net, struct net_device *dev,
			  canid_t can_id, canid_t mask, can_rx_func_t func,
			  void *data, char *ident, struct sock *sk, u8 types)
{
	struct can_pernet *cn = can_pernet(net);
	struct can_mask_group *spare = NULL;
	struct can_rx_table *table;
	struct can_receiver *rcv;
	int err;

	if (WARN_ON_ONCE(!(types & CAN_RX_TYPES_ANY)))
		return -EINVAL;
	if (dev && (dev->type != ARPHRD_CAN || !net_eq(net, dev_net(dev))))
		return -ENODEV;

	/* Set field by field: the list insertion sets ->next, call_rcu()
	 * ->rcu, so zeroing would be wasted on a path run per filter.
	 */
	rcv = kmem_cache_alloc(can_receiver_cache, GFP_KERNEL);
	if (!rcv)
		return -ENOMEM;
	rcv->matches = 0;
	rcv->frame_types = types;
	rcv->can_id = can_id;
	rcv->mask = mask;
	rcv->func = func;
	rcv->data = data;
	rcv->ident = ident;
	rcv->sk = sk;

	/* A filter with a mask new to the table needs a mask group, which
	 * is allocated without the lock and the lookup done again.
	 */
	for (;;) {
		spin_lock_bh(&cn->rx_lock);
		table = can_rx_table_of(net, dev);
		err = table ? can_rx_table_add(table, rcv, &spare) : -ENODEV;
		if (!err) {
			if (sk)
				sock_hold(sk);
			cn->entries++;
			cn->max_entries = max(cn->max_entries, cn->entries);
		}
		spin_unlock_bh(&cn->rx_lock);
		if (err != -EAGAIN || spare)
			break;
		spare = can_mask_group_alloc();
		if (!spare) {
			err = -ENOMEM;
			break;
		}
	}

	can_mask_group_free(spare);
	if (err)
		kmem_cache_free(can_receiver_cache, rcv);
	return err;
}
EXPORT_SYMBOL(can_rx_register_types);

/**
 * can_rx_register() - subscribe to received classic and CAN FD frames
 * @net: as for can_rx_register_types()
 * @dev: as for can_rx_register_types()
 * @can_id: as for can_rx_register_types()
 * @mask: as for can_rx_register_types()
 * @func: as for can_rx_register_types()
 * @data: as for can_rx_register_types()
 * @ident: as for can_rx_register_types()
 * @sk: as for can_rx_register_types()
 *
 * can_rx_register_types() for CAN_RX_TYPE_CC and CAN_RX_TYPE_FD, in the
 * same context and with the same errors. CAN XL frames never reach such a
 * subscription: a protocol written before CAN XL existed (mainline 6.1's)
 * would take an XL frame's flags for a classic frame's length.
 */
int can_rx_register(struct net *net, struct net_device *dev,
		    canid_t can_id, canid_t mask, can_rx_func_t func,
		    void *data, char *ident, struct sock *sk)
{
	return can_rx_register_types(net, dev, can_id, mask, func, data, ident,
				     sk, CAN_RX_TYPE_CC | CAN_RX_TYPE_FD);
}
EXPORT_SYMBOL(can_rx_register);

static void can_receiver_free_rcu(struct rcu_head *head)
{
	struct can_receiver *rcv = container_of(head, struct can_receiver, rcu);

	if (rcv->sk)
		sock_put(rcv->sk);
	kmem_cache_free(can_receiver_cache, rcv);
}

/* Free @rcv, already unlinked, once no reader can reach it. */
void can_receiver_free(struct can_receiver *rcv)
{
	call_rcu(&rcv->rcu, can_receiver_free_rcu);
}

/**
 * can_rx_unregister() - cancel a subscription made by can_rx_register()
 * @net: namespace given at registration
 * @dev: device given at registration
 * @can_id: identifier given at registration
 * @mask: mask given at registration
 * @func: callback given at registration
 * @data: callback argument given at registration
 *
 * @func may still run for frames already being delivered until an RCU
 * grace period has passed; the socket held at registration is released
 * only then. A subscription to a device that unregistered meanwhile is
 * gone already, which is not an error.
 *
 * Context: process context; takes the namespace's rx_lock with bottom
 * halves disabled.
 */
void can_rx_unregister(struct net *net, struct net_device *dev,
		       canid_t can_id, canid_t mask, can_rx_func_t func,
		       void *data)
{
	struct can_pernet *cn = can_pernet(net);
	struct can_rx_table *table;
	struct can_receiver *rcv = NULL;

	spin_lock_bh(&cn->rx_lock);
	table = can_rx_table_of(net, dev);
	if (table)
		rcv = can_rx_table_remove(table, can_id, mask, func, data);
	if (rcv) {
		cn->entries--;
	} else if (table) {
		pr_warn("no subscription %03x/%03x on %s to remove\n",
			can_id, mask, can_dev_name(dev));
	}
	spin_unlock_bh(&cn->rx_lock);

	if (rcv)
		can_receiver_free(rcv);
}
EXPORT_SYMBOL(can_rx_unregister);

/* ---- receiving ---- */

/**
 * can_set_skb_uid() - give a received frame its sequence number
 * @skb: the frame; its struct can_skb_priv must be in place
 *
 * A socket subscribed several times sees the same skb once per matching
 * filter; the number lets it deliver the frame once. Numbers come from a
 * per-CPU sequence interleaved by CPU, so no two CPUs hand out the same
 * one and no cache line is shared between them. 0 means "unset" and is
 * never handed out; a frame that has a number keeps it.
 *
 * Context: any context; the receive path calls it in softirq context.
 */
void can_set_skb_uid(struct sk_buff *skb)
{
	static DEFINE_PER_CPU(u32, can_uid_seq);
	struct can_skb_priv *priv = can_skb_prv(skb);
	unsigned int cpu;
	u32 uid;

	if (priv->skbcnt)
		return;
	cpu = get_cpu();
	do {
		uid = __this_cpu_inc_return(can_uid_seq) * nr_cpu_ids + cpu;
	} while (!uid);
	put_cpu();
	priv->skbcnt = uid;
}
EXPORT_SYMBOL(can_set_skb_uid);

/* ETH_P_CAN, ETH_P_CANFD or ETH_P_CANXL for a frame whose size and
 * length field fit one of them, 0 for anything else.
 */
static __be16 can_frame_protocol(const struct sk_buff *skb)
{
	if (can_is_canxl_skb(skb))
		return htons(ETH_P_CANXL);
	if (can_is_can_skb(skb))
		return htons(ETH_P_CAN);
	if (can_is_canfd_skb(skb))
		return htons(ETH_P_CANFD);
	return 0;
}

static bool can_frame_is_valid(struct sk_buff *skb, struct net_device *dev)
{
	__be16 protocol = can_frame_protocol(skb);

	if (dev->type != ARPHRD_CAN || !protocol || protocol != skb->protocol)
		return false;
	if (protocol == htons(ETH_P_CANFD) && dev->mtu < CANFD_MTU)
		return false;
	if (protocol == htons(ETH_P_CANXL) && !can_is_canxl_dev_mtu(dev->mtu))
		return false;
	return can_skb_headroom_valid(dev, skb);
}

/* The CAN_RX_TYPE_* bit of a frame can_frame_is_valid() accepted: its
 * protocol is then the one its size and flags say.
 */
static u8 can_rx_frame_type(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_CANXL))
		return CAN_RX_TYPE_XL;
	if (skb->protocol == htons(ETH_P_CANFD))
		return CAN_RX_TYPE_FD;
	return CAN_RX_TYPE_CC;
}

/**
 * can_rx_skb_get() - a frame of its own for a receive callback
 * @skb: the frame the callback was handed
 *
 * A callback that keeps the frame (queues it to a socket) calls this
 * instead of skb_clone(): the last subscriber of a frame nobody else
 * holds gets the frame itself, every other one a clone.
 *
 * Context: a receive callback, see can_rx_func_t.
 * Return: @skb or a clone of it, for the caller to keep or free; NULL if
 * memory ran out.
 */
struct sk_buff *can_rx_skb_get(struct sk_buff *skb)
{
	if (this_cpu_read(can_rx_spare_skb) == skb) {
		this_cpu_write(can_rx_spare_skb, NULL);
		return skb;
	}
	return skb_clone(skb, GFP_ATOMIC);
}
EXPORT_SYMBOL(can_rx_skb_get);

/* The packet handler for all three frame types. Only CAN devices have a
 * receive table, so a frame from any other device is dropped without
 * looking at it further. The table names the namespace whose
 * subscribers may see the frame: the device's.
 */
static int can_rcv(struct sk_buff *skb, struct net_device *dev,
		   struct packet_type *pt, struct net_device *orig_dev)
{
	struct can_rx_table *dev_table = can_dev_rx_table(dev);
	struct can_rx_delivery d;
	struct can_pernet *cn;
	unsigned int matches;
	u8 type;

	if (unlikely(!dev_table || !can_frame_is_valid(skb, dev))) {
		this_cpu_inc(can_pernet(dev_net(dev))->stats->rx_invalid);
		if (dev_table)
			this_cpu_inc(dev_table->drops->invalid);
		kfree_skb(skb);
		return NET_RX_DROP;
	}
	cn = dev_table->cn;

	/* A tracked frame coming back up was echoed: it is on the wire. */
	if (unlikely(skb->destructor == can_tx_report_destructor))
		can_tx_report_set(skb, 0);
	this_cpu_inc(cn->stats->rx_frames);
	can_set_skb_uid(skb);

	/* The last subscriber may keep the frame instead of a clone of it,
	 * unless someone else holds it too (a packet tap), or its sender
	 * waits for it to be freed to learn that it was sent.
	 */
	type = can_rx_frame_type(skb);
	can_rx_delivery_init(&d, skb, type);
	can_rx_table_collect(cn->all_devs, &d);
	can_rx_table_collect(dev_table, &d);
	matches = d.matches;
	if (!can_rx_delivery_finish(&d, !skb_shared(skb) &&
				    skb->destructor != can_tx_report_destructor))
		consume_skb(skb);

	if (matches) {
		this_cpu_inc(cn->stats->matches);
	} else {
		this_cpu_inc(cn->stats->rx_unmatched);
		this_cpu_inc(dev_table->drops->no_receiver);
	}
	return NET_RX_SUCCESS;
}

/* ---- frames lost on the way up ---- */

/* The table of @dev under rcu_read_lock(), from any context. */
static struct can_rx_table *can_dev_rx_table_rcu(struct net_device *dev)
{
	struct can_ml_priv *ml = can_get_ml_priv(dev);

	return ml ? rcu_dereference(ml->rx_table) : NULL;
}

/**
 * can_rx_queue_dropped() - count frames lost between interrupt and softirq
 * @dev: the CAN device that received them
 * @frames: how many
 *
 * For the device layer and drivers: a frame read from the controller
 * that its rx-offload queue or the CPU's backlog queue had no room for.
 * Counted for the device and its namespace; /proc/net/can/stats and
 * CAN_RAW_BUS_STATE show it. It is the caller's business to count the
 * frame in the device's own statistics, where the networking core has
 * not already done so (it counts a full backlog in rx_dropped).
 *
 * Context: any, hard interrupts included.
 */
void can_rx_queue_dropped(struct net_device *dev, unsigned int frames)
{
	struct can_rx_table *table;

	rcu_read_lock();
	table = can_dev_rx_table_rcu(dev);
	if (table) {
		this_cpu_add(table->drops->rx_queue, frames);
		this_cpu_add(table->cn->stats->rx_queue_drops, frames);
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(can_rx_queue_dropped);

/**
 * can_netif_rx() - netif_rx() that counts a frame the backlog refused
 * @skb: a frame received by a CAN device (skb->dev set); consumed
 *
 * Context: as netif_rx(): any.
 * Return: what netif_rx() returned.
 */
int can_netif_rx(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	int ret = netif_rx(skb);

	if (ret == NET_RX_DROP)
		can_rx_queue_dropped(dev, 1);
	return ret;
}
EXPORT_SYMBOL_GPL(can_netif_rx);

/**
 * can_sock_rx_dropped() - count a frame a socket's receive queue refused
 * @dev: the device the frame came from
 * @err: what sock_queue_rcv_skb() returned
 *
 * Only a full queue counts (-ENOMEM, -ENOBUFS: the socket's buffer or
 * its memory accounting), not a frame its socket filter turned away.
 * The socket's own count (SO_RXQ_OVFL) is sock_queue_rcv_skb()'s.
 *
 * Context: softirq or process context; any, in fact.
 */
void can_sock_rx_dropped(struct net_device *dev, int err)
{
	struct can_rx_table *table;

	if (err != -ENOMEM && err != -ENOBUFS)
		return;
	rcu_read_lock();
	table = can_dev_rx_table_rcu(dev);
	if (table) {
		this_cpu_inc(table->drops->sock_queue);
		this_cpu_inc(table->cn->stats->rx_sock_drops);
	} else {
		this_cpu_inc(can_pernet(dev_net(dev))->stats->rx_sock_drops);
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(can_sock_rx_dropped);

/* Sum the per-CPU loss counters of a device's table. */
void can_dev_drops_sum(struct can_rx_table *table, struct can_dev_drops *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct can_dev_drops *d = per_cpu_ptr(table->drops, cpu);

		sum->rx_queue += READ_ONCE(d->rx_queue);
		sum->no_receiver += READ_ONCE(d->no_receiver);
		sum->invalid += READ_ONCE(d->invalid);
		sum->sock_queue += READ_ONCE(d->sock_queue);
	}
}

/**
 * can_get_drop_counts() - the frames @dev lost, stage by stage
 * @dev: any network device
 * @c: filled in; all 0 for a device the core does not serve
 *
 * @c->controller is the device's rx_over_errors, as ip -s link shows it;
 * the rest are the core's counts since the device registered or last
 * changed its namespace.
 *
 * Context: process context or under rcu_read_lock(); calls
 * dev_get_stats().
 */
void can_get_drop_counts(struct net_device *dev, struct can_drop_counts *c)
{
	struct rtnl_link_stats64 stats;
	struct can_rx_table *table;
	struct can_dev_drops d = {};

	rcu_read_lock();
	table = can_dev_rx_table_rcu(dev);
	if (table)
		can_dev_drops_sum(table, &d);
	rcu_read_unlock();

	memset(c, 0, sizeof(*c));
	if (!table)
		return;
	dev_get_stats(dev, &stats);
	c->controller = stats.rx_over_errors;
	c->rx_queue = d.rx_queue;
	c->no_receiver = d.no_receiver;
	c->invalid = d.invalid;
	c->sock_queue = d.sock_queue;
}
EXPORT_SYMBOL_GPL(can_get_drop_counts);

static struct packet_type can_packet __read_mostly = {
	.type = cpu_to_be16(ETH_P_CAN),
	.func = can_rcv,
};

static struct packet_type canfd_packet __read_mostly = {
	.type = cpu_to_be16(ETH_P_CANFD),
	.func = can_rcv,
};

static struct packet_type canxl_packet __read_mostly = {
	.type = cpu_to_be16(ETH_P_CANXL),
	.func = can_rcv,
};

/* ---- sending ---- */

/* The checks of can_send(), in mainline's order so that a frame with
 * several faults gets the same errno.
 */
static int can_send_check(struct sk_buff *skb, struct net_device *dev)
{
	skb->protocol = can_frame_protocol(skb);
	if (!skb->protocol)
		return -EINVAL;
	if (skb->len > dev->mtu)
		return -EMSGSIZE;
	/* Small XL frames fit a classic or FD MTU, but not such a device. */
	if (skb->protocol == htons(ETH_P_CANXL) && !can_is_canxl_dev_mtu(dev->mtu))
		return -EMSGSIZE;
	if (dev->type != ARPHRD_CAN)
		return -EPERM;
	if (!(dev->flags & IFF_UP))
		return -ENETDOWN;
	return 0;
}

/* The copy the core loops back for a device that does not echo. It
 * arrives like an echoed frame: as broadcast, owned by the sender.
 */
static struct sk_buff *can_loopback_clone(struct sk_buff *skb)
{
	struct sk_buff *echo = skb_clone(skb, GFP_ATOMIC);

	if (!echo)
		return NULL;
	can_skb_set_owner(echo, skb->sk);
	echo->pkt_type = PACKET_BROADCAST;
	return echo;
}

/**
 * can_send() - transmit a CAN frame
 * @skb: the frame, with skb->dev set and struct can_skb_priv reserved in
 *	front of it; consumed in every case, also on error
 * @loop: non-zero to also deliver the frame to local subscribers. The
 *	frame goes to the driver with pkt_type PACKET_LOOPBACK then
 *	(PACKET_HOST if not):
 *	a device with IFF_ECHO loops it back itself once it was sent; for
 *	any other device the core hands a clone to the receive path as
 *	soon as the driver accepted the frame.
 *
 * Local subscribers see a looped frame with pkt_type PACKET_BROADCAST and
 * skb->sk set to the sending socket, so that they can tell their own
 * frames. CAN FD frames get CANFD_FDF set in their flags.
 *
 * Context: process or softirq context; must not hold locks the driver's
 * transmit path takes.
 * Return: 0 once the driver has the frame (it may still fail to send
 * it), or
 * -EINVAL: not a CAN, CAN FD or CAN XL frame by size, length field and
 * (XL) flags;
 * -EMSGSIZE: the frame is larger than the device's MTU (an FD frame for
 * a classic CAN device), or an XL frame for a device without an XL MTU;
 * -EPERM: the device is not a CAN device;
 * -ENETDOWN: the device is down;
 * -ENOMEM: no memory for the loopback clone;
 * -ENOBUFS: the driver or queue discipline dropped the frame;
 * or another error of dev_queue_xmit().
 */
int can_send(struct sk_buff *skb, int loop)
{
	struct net_device *dev = skb->dev;
	struct sk_buff *echo = NULL;
	int err;

	err = can_send_check(skb, dev);
	if (err)
		goto free_skb;

	/* The frame layout is shared with CAN XL: mark what FD frames are. */
	if (skb->protocol == htons(ETH_P_CANFD))
		((struct canfd_frame *)skb->data)->flags |= CANFD_FDF;

	skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb_reset_mac_header(skb);
	skb_reset_network_header(skb);
	skb_reset_transport_header(skb);

	skb->pkt_type = loop ? PACKET_LOOPBACK : PACKET_HOST;
	if (loop && !(dev->flags & IFF_ECHO)) {
		echo = can_loopback_clone(skb);
		if (!echo) {
			err = -ENOMEM;
			goto free_skb;
		}
	}

	err = dev_queue_xmit(skb);
	if (err > 0)
		err = net_xmit_errno(err);
	if (err) {
		kfree_skb(echo);
		return err;
	}

	if (echo)
		netif_rx(echo);
	this_cpu_inc(can_pernet(dev_net(dev))->stats->tx_frames);
	return 0;

free_skb:
	kfree_skb(skb);
	return err;
}
EXPORT_SYMBOL(can_send);

/* ---- waiting for room in a device's TX queue (CAN_RAW_TX_WAIT) ---- */

/* A sleeper looks again this often even if nothing woke it: a driver
 * may let its queue run again on a path that does not report it.
 */
#define CAN_TX_RECHECK	(HZ / 10)

/**
 * can_tx_room() - tell those waiting to send on @dev that room may have come
 * @dev: a CAN device, or any device (then nothing happens)
 *
 * The device layer calls it whenever a frame leaves the controller's TX
 * slots (sent, dropped or flushed) and after a restart, the core when
 * the device goes down or away. Room in the queue discipline appears
 * only when the NET_TX softirq has moved the next frame to the driver,
 * which may be after this call: a woken writer that still finds no room
 * waits for the next call.
 *
 * Context: any context that may take a spinlock_t (the TX-done interrupt
 * or its thread, softirq, process); no lock of the waiters held.
 */
void can_tx_room(struct net_device *dev)
{
	struct can_ml_priv *ml = can_get_ml_priv(dev);

	if (!ml)
		return;
	atomic_inc(&ml->tx_room_seq);
	/* Its full barrier orders the increment before the sleeper check,
	 * pairing with the one in prepare_to_wait() of the sleeper.
	 */
	if (wq_has_sleeper(&ml->tx_wait))
		wake_up(&ml->tx_wait);
}
EXPORT_SYMBOL_GPL(can_tx_room);

/**
 * can_tx_room_seq() - the count of can_tx_room() calls for @dev so far
 * @dev: the device a frame is about to be sent on
 *
 * Read it before the attempt; can_tx_wait() then returns at once if
 * room was reported in between, so that no report is lost.
 *
 * Context: any.
 * Return: an opaque count; 0 for a device that is not CAN.
 */
unsigned int can_tx_room_seq(struct net_device *dev)
{
	struct can_ml_priv *ml = can_get_ml_priv(dev);

	return ml ? atomic_read(&ml->tx_room_seq) : 0;
}
EXPORT_SYMBOL_GPL(can_tx_room_seq);

/* Frames in the queue discipline of @txq; -1 if it holds none (noqueue).
 * The discipline may be replaced between the two looks; either one is a
 * fair answer. Context: rcu_read_lock_bh() held.
 */
static int can_txq_qlen(struct netdev_queue *txq)
{
	if (!rcu_dereference_bh(txq->qdisc)->enqueue)
		return -1;
	return qdisc_qlen_sum(rcu_dereference_bh(txq->qdisc));
}

/**
 * can_tx_has_room() - whether a frame sent on @dev now would be queued
 * @dev: the device
 *
 * With a queue discipline: it holds fewer frames than the device's
 * txqueuelen, the limit of the default ones (pfifo_fast counts every
 * band, so each band has room then). Without one: the driver's queue
 * runs. Another writer may take the room first.
 *
 * Context: process or softirq, no lock needed.
 * Return: true if there is room.
 */
bool can_tx_has_room(struct net_device *dev)
{
	struct netdev_queue *txq = netdev_get_tx_queue(dev, 0);
	bool room;
	int qlen;

	rcu_read_lock_bh();
	qlen = can_txq_qlen(txq);
	if (qlen >= 0)
		room = qlen < READ_ONCE(dev->tx_queue_len);
	else
		room = !netif_tx_queue_stopped(txq);
	rcu_read_unlock_bh();
	return room;
}
EXPORT_SYMBOL_GPL(can_tx_has_room);

static bool can_dev_usable(struct net_device *dev)
{
	return netif_running(dev) &&
	       READ_ONCE(dev->reg_state) == NETREG_REGISTERED;
}

static bool can_tx_woken(struct net_device *dev, struct can_ml_priv *ml,
			 unsigned int seq)
{
	return atomic_read(&ml->tx_room_seq) != seq || !can_dev_usable(dev);
}

/* The device stopped or is going away. Unregistering closes it first,
 * under RTNL; once we hold RTNL that is over and the state tells which.
 */
static int can_tx_dev_error(struct net_device *dev)
{
	int err;

	rtnl_lock();
	err = dev->reg_state == NETREG_REGISTERED ? -ENETDOWN : -ENODEV;
	rtnl_unlock();
	return err;
}

/**
 * can_tx_wait() - sleep until @dev reports room, or goes down or away
 * @dev: the device, held by the caller (dev_hold()) for the whole wait
 * @seq: can_tx_room_seq() as read before the attempt that found no room
 * @timeo: the time left to wait in jiffies (MAX_SCHEDULE_TIMEOUT for no
 *	limit), reduced by the time slept
 *
 * Returns when can_tx_room() was called since @seq was read, or after
 * a short recheck interval: the caller tries again then, and calls this
 * again if there is still no room.
 *
 * Context: process, no locks held. May sleep; takes RTNL if the device
 * stopped.
 * Return: 0 to try again; -EAGAIN when *@timeo is 0; -ERESTARTSYS on a
 * signal; -ENETDOWN if the device went down; -ENODEV if it is going
 * away (or is not a CAN device).
 */
int can_tx_wait(struct net_device *dev, unsigned int seq, long *timeo)
{
	struct can_ml_priv *ml = can_get_ml_priv(dev);
	long slice, left;

	might_sleep();
	if (!ml)
		return -ENODEV;
	if (!*timeo)
		return -EAGAIN;
	slice = min_t(long, *timeo, CAN_TX_RECHECK);
	left = wait_event_interruptible_timeout(ml->tx_wait,
						can_tx_woken(dev, ml, seq),
						slice);
	if (left < 0)
		return left;
	if (*timeo != MAX_SCHEDULE_TIMEOUT)
		*timeo -= slice - left;
	if (!can_dev_usable(dev))
		return can_tx_dev_error(dev);
	return 0;
}
EXPORT_SYMBOL_GPL(can_tx_wait);

/**
 * can_tx_poll_add() - have @entry woken with the writers of @dev
 * @dev: a CAN device
 * @entry: a wait entry whose function wakes the poller, not queued
 *	anywhere else; queued only once however often this is called
 *
 * The caller removes the entry with can_tx_poll_del() before @dev is
 * unregistered and before the entry is freed.
 *
 * Context: any; takes the wait queue's lock with interrupts off.
 */
void can_tx_poll_add(struct net_device *dev, struct wait_queue_entry *entry)
{
	struct can_ml_priv *ml = can_get_ml_priv(dev);
	unsigned long flags;

	if (!ml)
		return;
	spin_lock_irqsave(&ml->tx_wait.lock, flags);
	if (list_empty(&entry->entry))
		__add_wait_queue(&ml->tx_wait, entry);
	spin_unlock_irqrestore(&ml->tx_wait.lock, flags);
}
EXPORT_SYMBOL_GPL(can_tx_poll_add);

/**
 * can_tx_poll_del() - undo can_tx_poll_add()
 * @dev: the device @entry was added to
 * @entry: the entry, queued or not
 *
 * Context: any; takes the wait queue's lock with interrupts off.
 */
void can_tx_poll_del(struct net_device *dev, struct wait_queue_entry *entry)
{
	struct can_ml_priv *ml = can_get_ml_priv(dev);
	unsigned long flags;

	if (!ml)
		return;
	spin_lock_irqsave(&ml->tx_wait.lock, flags);
	list_del_init(&entry->entry);
	spin_unlock_irqrestore(&ml->tx_wait.lock, flags);
}
EXPORT_SYMBOL_GPL(can_tx_poll_del);

/* ---- devices and namespaces ---- */

/* The link ops of our CAN device layer. A protocol may read struct
 * can_priv of its devices (CAN_RAW_BUS_STATE); a device of another
 * can-dev, such as Debian's under our core, has the same link kind "can"
 * but another layout of that structure, and must not be read so.
 */
static const struct rtnl_link_ops *can_dev_link_ops;

/**
 * can_dev_link_ops_announce() - our can-dev tells its link ops
 * @ops: its rtnl_link_ops once registered, NULL before it unregisters them
 *
 * Module init and exit of can-dev, process context.
 */
void can_dev_link_ops_announce(const struct rtnl_link_ops *ops)
{
	WRITE_ONCE(can_dev_link_ops, ops);
}
EXPORT_SYMBOL_GPL(can_dev_link_ops_announce);

/**
 * can_dev_is_ours() - whether @dev is a device of our CAN device layer
 * @dev: any network device, held by the caller
 *
 * Return: true if its private area starts with our struct can_priv.
 */
bool can_dev_is_ours(const struct net_device *dev)
{
	const struct rtnl_link_ops *ops = READ_ONCE(can_dev_link_ops);

	return ops && dev->rtnl_link_ops == ops;
}
EXPORT_SYMBOL_GPL(can_dev_is_ours);

/* Whether @dev is a CAN device by its driver's word, see can_dev_rx_table. */
static bool can_dev_is_declared(struct net_device *dev)
{
	return dev->type == ARPHRD_CAN && can_get_ml_priv(dev);
}

/* A driver built against mainline's headers (Debian's can-dev under our
 * core) declares its device without our can_set_ml_priv(): the room is
 * zeroed but the wait queue of CAN_RAW_TX_WAIT was never set up. Set it
 * up at the first registration, when nobody can wait on the device yet;
 * a head already set up (our drivers, a device changing namespace) may
 * have waiters and is left alone.
 */
static void can_dev_init_tx_wait(struct can_ml_priv *ml)
{
	if (!ml->tx_wait.head.next)
		init_waitqueue_head(&ml->tx_wait);
}

/* Context: RTNL held, which is what keeps dev->ml_priv stable. */
static int can_dev_attach(struct net_device *dev)
{
	struct can_rx_table *table;

	ASSERT_RTNL();
	can_dev_init_tx_wait(can_get_ml_priv(dev));
	table = can_rx_table_alloc(can_pernet(dev_net(dev)));
	if (!table)
		return -ENOMEM;
	can_dev_set_rx_table(dev, table);
	netdev_dbg(dev, "CAN receive table created\n");
	return 0;
}

/* Protocols drop their subscriptions to a vanishing device from their own
 * notifiers, which run before ours (see can_netdev_notifier). Whatever is
 * left is unlinked here; later can_rx_unregister() calls for the device
 * find no table and return quietly. Readers still walking the table under
 * RCU keep it alive until the grace period ends. The table is the one
 * the device carries, whatever its type is now.
 *
 * Context: RTNL held.
 */
static void can_dev_detach(struct net_device *dev)
{
	struct can_rx_table *table = can_dev_rx_table(dev);
	struct can_pernet *cn;
	unsigned int left;

	ASSERT_RTNL();
	if (!table)
		return;
	cn = table->cn;
	spin_lock_bh(&cn->rx_lock);
	can_dev_set_rx_table(dev, NULL);
	left = can_rx_table_drain(table);
	cn->entries -= left;
	spin_unlock_bh(&cn->rx_lock);

	if (left)
		netdev_dbg(dev, "%u subscriptions dropped with the device\n", left);
	can_rx_table_free(table);
	netdev_dbg(dev, "CAN receive table released\n");
}

static int can_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_REGISTER:
		if (!can_dev_is_declared(dev))
			break;
		return notifier_from_errno(can_dev_attach(dev));
	case NETDEV_DOWN:
		/* Writers waiting for room learn that none will come. */
		can_tx_room(dev);
		break;
	case NETDEV_UNREGISTER:
		can_tx_room(dev);
		can_dev_detach(dev);
		break;
	}
	return NOTIFY_DONE;
}

/* Below the default priority: protocols see a device leave before we do. */
static struct notifier_block can_netdev_notifier = {
	.notifier_call = can_netdev_event,
	.priority = -1,
};

static int __net_init can_pernet_init(struct net *net)
{
	struct can_pernet *cn = can_pernet(net);
	int err;

	spin_lock_init(&cn->rx_lock);
	spin_lock_init(&cn->stats_lock);

	cn->all_devs = can_rx_table_alloc(cn);
	if (!cn->all_devs)
		return -ENOMEM;

	cn->stats = alloc_percpu_gfp(struct can_pcpu_stats, GFP_KERNEL_ACCOUNT);
	if (!cn->stats) {
		err = -ENOMEM;
		goto free_table;
	}

	err = can_proc_init(net);
	if (err)
		goto free_stats;

	can_stats_start(cn);
	pr_debug("state of namespace %u created\n", net->ns.inum);
	return 0;

free_stats:
	free_percpu(cn->stats);
free_table:
	can_rx_table_destroy(cn->all_devs);
	return err;
}

/* Sockets hold their namespace, so when this runs no socket and no
 * subscription of the namespace is left, and its devices are gone.
 */
static void __net_exit can_pernet_exit(struct net *net)
{
	struct can_pernet *cn = can_pernet(net);

	can_stats_stop(cn);
	can_proc_exit(net);
	free_percpu(cn->stats);
	WARN_ON_ONCE(cn->all_devs->entries);
	can_rx_table_destroy(cn->all_devs);
	pr_debug("state of namespace %u released\n", net->ns.inum);
}

static struct pernet_operations can_pernet_ops = {
	.init = can_pernet_init,
	.exit = can_pernet_exit,
	.id = &can_net_id,
	.size = sizeof(struct can_pernet),
};

static const struct net_proto_family can_family_ops = {
	.family = PF_CAN,
	.create = can_create,
	.owner = THIS_MODULE,
};

/* Each step makes the next one useful; the family is registered last so
 * that no socket exists before frames can be received and routed.
 */
static int __init can_init(void)
{
	int err;

	/* Users make subscriptions; their memory cgroups pay for them. */
	can_receiver_cache = KMEM_CACHE(can_receiver, SLAB_ACCOUNT);
	if (!can_receiver_cache)
		return -ENOMEM;

	err = register_pernet_subsys(&can_pernet_ops);
	if (err)
		goto destroy_cache;

	err = register_netdevice_notifier(&can_netdev_notifier);
	if (err)
		goto unregister_pernet;

	dev_add_pack(&can_packet);
	dev_add_pack(&canfd_packet);
	dev_add_pack(&canxl_packet);

	err = sock_register(&can_family_ops);
	if (err)
		goto remove_packets;

	pr_info("PF_CAN core loaded\n");
	return 0;

remove_packets:
	dev_remove_pack(&canxl_packet);
	dev_remove_pack(&canfd_packet);
	dev_remove_pack(&can_packet);
	unregister_netdevice_notifier(&can_netdev_notifier);
unregister_pernet:
	unregister_pernet_subsys(&can_pernet_ops);
destroy_cache:
	kmem_cache_destroy(can_receiver_cache);
	return err;
}

/* The mirror of can_init(). Protocol modules depend on this one, so no
 * protocol and no socket is left. Unregistering the notifier detaches
 * every device's table; rcu_barrier() then waits for the deferred frees
 * of tables and subscriptions before their cache goes.
 */
static void __exit can_exit(void)
{
	sock_unregister(PF_CAN);
	dev_remove_pack(&canxl_packet);
	dev_remove_pack(&canfd_packet);
	dev_remove_pack(&can_packet);
	unregister_netdevice_notifier(&can_netdev_notifier);
	unregister_pernet_subsys(&can_pernet_ops);
	rcu_barrier();
	kmem_cache_destroy(can_receiver_cache);
}

module_init(can_init);
module_exit(can_exit);
