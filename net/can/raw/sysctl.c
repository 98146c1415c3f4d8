// SPDX-License-Identifier: GPL-2.0
/* net.can.raw_tx_wait: the CAN_RAW_TX_WAIT a new raw socket of the
 * namespace starts with, so that an administrator can give programs that
 * do not know the option the waiting behaviour. Each namespace has its
 * own, 0 at its creation.
 */

#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "raw-priv.h"

struct raw_net {
	int tx_wait;
	struct ctl_table_header *sysctl;
};

static unsigned int raw_net_id;

static struct ctl_table raw_sysctl_table[] = {
	{
		.procname	= "raw_tx_wait",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
#ifndef CAN_SYSCTL_SZ
	{ }	/* before 6.6 the table ends with an empty entry */
#endif
};

/**
 * raw_tx_wait_default() - CAN_RAW_TX_WAIT for a new socket of @net
 * @net: the socket's namespace
 *
 * Context: any; the value is read without a lock.
 * Return: 0 or 1, net.can.raw_tx_wait of @net.
 */
int raw_tx_wait_default(struct net *net)
{
	struct raw_net *rn = net_generic(net, raw_net_id);

	return READ_ONCE(rn->tx_wait);
}

static struct ctl_table_header *raw_register_table(struct net *net,
						   struct ctl_table *table)
{
#ifdef CAN_SYSCTL_SZ
	return register_net_sysctl_sz(net, "net/can", table,
				      ARRAY_SIZE(raw_sysctl_table));
#else
	return register_net_sysctl(net, "net/can", table);
#endif
}

/* The initial namespace uses the static table, others a copy of it. */
static int __net_init raw_net_init(struct net *net)
{
	struct raw_net *rn = net_generic(net, raw_net_id);
	struct ctl_table *table = raw_sysctl_table;

	rn->tx_wait = 0;
	if (!net_eq(net, &init_net)) {
		table = kmemdup(raw_sysctl_table, sizeof(raw_sysctl_table),
				GFP_KERNEL);
		if (!table)
			return -ENOMEM;
	}
	table[0].data = &rn->tx_wait;
	rn->sysctl = raw_register_table(net, table);
	if (!rn->sysctl) {
		if (table != raw_sysctl_table)
			kfree(table);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit raw_net_exit(struct net *net)
{
	struct raw_net *rn = net_generic(net, raw_net_id);
	const struct ctl_table *table = rn->sysctl->ctl_table_arg;

	unregister_net_sysctl_table(rn->sysctl);
	if (table != raw_sysctl_table)
		kfree(table);
}

static struct pernet_operations raw_net_ops = {
	.init = raw_net_init,
	.exit = raw_net_exit,
	.id = &raw_net_id,
	.size = sizeof(struct raw_net),
};

/**
 * raw_sysctl_register() - net.can.raw_tx_wait in every namespace
 *
 * Context: module init.
 * Return: 0 or a negative error of register_pernet_subsys().
 */
int raw_sysctl_register(void)
{
	return register_pernet_subsys(&raw_net_ops);
}

/**
 * raw_sysctl_unregister() - undo raw_sysctl_register()
 *
 * Context: module exit, after the last socket is gone.
 */
void raw_sysctl_unregister(void)
{
	unregister_pernet_subsys(&raw_net_ops);
}
