// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/can-bcm/: one read-only file per connected BCM socket, named by
 * the socket's inode number, listing its operations with their settings
 * and counters. Each network namespace has its own directory.
 */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "bcm-priv.h"

static const char *bcm_proc_ifname(struct net *net, int ifindex,
				   char buf[IFNAMSIZ])
{
	struct net_device *dev;

	if (!ifindex)
		return "any";

	rcu_read_lock();
	dev = dev_get_by_index_rcu(net, ifindex);
	strscpy(buf, dev ? dev->name : "???", IFNAMSIZ);
	rcu_read_unlock();
	return buf;
}

/* A snapshot of the numbers one line shows, taken under the op's lock. */
struct bcm_proc_line {
	u32 flags;
	u32 nframes;
	ktime_t ival1, ival2;
	unsigned long seen;
	unsigned long reported;
};

static void bcm_proc_snapshot(struct bcm_op *op, struct bcm_proc_line *l)
{
	spin_lock_bh(&op->lock);
	l->flags = op->flags;
	l->nframes = op->nframes;
	l->ival1 = op->kt_ival1;
	l->ival2 = op->kt_ival2;
	l->seen = op->frames_seen;
	l->reported = op->frames_reported;
	spin_unlock_bh(&op->lock);
}

/* Identifier, interface and frame count: [n] classic, (n) CAN FD. */
static void bcm_proc_show_op(struct seq_file *m, const char *kind,
			     const struct bcm_op *op,
			     const struct bcm_proc_line *l)
{
	char ifname[IFNAMSIZ];

	seq_printf(m, "%s: %03X %-5s ", kind, op->can_id,
		   bcm_proc_ifname(m->private, op->ifindex, ifname));
	seq_printf(m, op->is_fd ? "(%u) " : "[%u] ", l->nframes);
}

static void bcm_proc_show_rx(struct seq_file *m, struct bcm_op *op)
{
	struct bcm_proc_line l;
	unsigned long percent;

	bcm_proc_snapshot(op, &l);
	/* Filters that never matched a frame have nothing to tell. */
	if (!l.seen)
		return;

	bcm_proc_show_op(m, "rx_op", op, &l);
	seq_printf(m, "%c ", l.flags & RX_CHECK_DLC ? 'd' : ' ');
	if (l.ival1)
		seq_printf(m, "timeo=%lld ", ktime_to_us(l.ival1));
	if (l.ival2)
		seq_printf(m, "thr=%lld ", ktime_to_us(l.ival2));

	/* How much traffic the filter kept away from user space. */
	percent = 100 - div64_u64((u64)min(l.reported, l.seen) * 100, l.seen);
	seq_printf(m, "# recv %lu (%lu) => reduction: %s%lu%%\n", l.reported,
		   l.seen, percent == 100 ? "near " : "", percent);
}

static void bcm_proc_show_tx(struct seq_file *m, struct bcm_op *op)
{
	struct bcm_proc_line l;

	bcm_proc_snapshot(op, &l);
	bcm_proc_show_op(m, "tx_op", op, &l);
	if (l.ival1)
		seq_printf(m, "t1=%lld ", ktime_to_us(l.ival1));
	if (l.ival2)
		seq_printf(m, "t2=%lld ", ktime_to_us(l.ival2));
	seq_printf(m, "# sent %lu\n", l.seen);
}

/* The socket outlives this: bcm_proc_sock_remove() waits for running
 * readers. The operations are freed after an RCU grace period. A single
 * file of a namespace has the namespace itself as m->private.
 */
static int bcm_proc_show(struct seq_file *m, void *v)
{
	struct sock *sk = pde_data(file_inode(m->file));
	struct bcm_sock *bo = bcm_sk(sk);
	char ifname[IFNAMSIZ];
	struct bcm_op *op;

	seq_printf(m, ">>> socket %pK / sk %pK / bo %pK / dropped %lu / bound %s <<<\n",
		   sk->sk_socket, sk, bo, atomic_long_read(&bo->dropped),
		   bcm_proc_ifname(m->private, READ_ONCE(bo->ifindex),
				   ifname));

	rcu_read_lock();
	list_for_each_entry_rcu(op, &bo->rx_ops.list, list)
		bcm_proc_show_rx(m, op);
	list_for_each_entry_rcu(op, &bo->tx_ops.list, list)
		bcm_proc_show_tx(m, op);
	rcu_read_unlock();

	seq_putc(m, '\n');
	return 0;
}

/**
 * bcm_proc_net_init() - create /proc/net/can-bcm in a new namespace
 * @net: the namespace
 *
 * Without the directory, sockets just have no file; that is no error.
 *
 * Context: process, from the pernet operations.
 * Return: 0.
 */
int bcm_proc_net_init(struct net *net)
{
	struct bcm_net *bn = net_generic(net, bcm_net_id);

	bn->proc_dir = proc_net_mkdir(net, "can-bcm", net->proc_net);
	return 0;
}

/**
 * bcm_proc_net_exit() - remove /proc/net/can-bcm of a dying namespace
 * @net: the namespace, which has no BCM socket left
 *
 * Context: process, from the pernet operations.
 */
void bcm_proc_net_exit(struct net *net)
{
	struct bcm_net *bn = net_generic(net, bcm_net_id);

	if (bn->proc_dir)
		remove_proc_entry("can-bcm", net->proc_net);
}

/**
 * bcm_proc_sock_add() - give a socket that gets connected its file
 * @bo: the socket
 *
 * Context: process, the socket's bcm_sock.lock held.
 * Return: 0, or -ENOMEM if the file could not be created.
 */
int bcm_proc_sock_add(struct bcm_sock *bo)
{
	struct sock *sk = &bo->sk;
	struct bcm_net *bn = net_generic(sock_net(sk), bcm_net_id);

	lockdep_assert_held(&bo->lock);

	if (!bn->proc_dir)
		return 0;
	snprintf(bo->procname, sizeof(bo->procname), "%lu", sock_i_ino(sk));
	bo->pde = proc_create_net_single(bo->procname, 0644,
					 bn->proc_dir, bcm_proc_show,
					 sk);
	return bo->pde ? 0 : -ENOMEM;
}

/**
 * bcm_proc_sock_remove() - remove a socket's file, if it has one
 * @bo: the socket
 *
 * Waits for readers of the file to finish.
 *
 * Context: process, the socket's bcm_sock.lock held.
 */
void bcm_proc_sock_remove(struct bcm_sock *bo)
{
	struct bcm_net *bn = net_generic(sock_net(&bo->sk), bcm_net_id);

	lockdep_assert_held(&bo->lock);

	if (!bo->pde)
		return;
	remove_proc_entry(bo->procname, bn->proc_dir);
	bo->pde = NULL;
}
