// SPDX-License-Identifier: GPL-2.0
/* The CAN gateway module (can-gw): routes frames between CAN interfaces
 * in the kernel, filtered and rewritten on the way, as jobs that can-utils'
 * cangw configures over rtnetlink. This file holds the module parameter,
 * the device notifier and module init and exit.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "gw-priv.h"

MODULE_DESCRIPTION("PF_CAN netlink gateway");
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The CAN stack developers");
MODULE_ALIAS("can-gw");

unsigned int gw_max_hops __read_mostly = GW_DEFAULT_HOPS;
module_param_named(max_hops, gw_max_hops, uint, 0444);
MODULE_PARM_DESC(max_hops,
		 "maximum can-gw routing hops for CAN frames (valid values: "
		 __stringify(GW_MIN_HOPS) "-" __stringify(GW_MAX_HOPS)
		 " hops, default: " __stringify(GW_DEFAULT_HOPS) ")");

/* Jobs hold their devices, so a device going away takes its jobs along
 * whatever its type is by then: a tun that had the CAN type when a job
 * named it may have another one now (TUNSETLINK), and a job left holding
 * it would keep unregister_netdevice() waiting for ever. A device that
 * stops being CAN loses its jobs at once, as the gateway only routes
 * between CAN devices.
 */
static int gw_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_UNREGISTER:
		gw_jobs_drop_dev(dev);
		break;
	case NETDEV_POST_TYPE_CHANGE:
		if (dev->type != ARPHRD_CAN)
			gw_jobs_drop_dev(dev);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block gw_notifier = {
	.notifier_call = gw_netdev_event,
};

static int __init gw_init(void)
{
	int err;

	gw_max_hops = clamp_t(unsigned int, gw_max_hops, GW_MIN_HOPS,
			      GW_MAX_HOPS);

	err = gw_jobs_init();
	if (err)
		return err;
	err = register_netdevice_notifier(&gw_notifier);
	if (err)
		goto exit_jobs;
	err = gw_netlink_init();
	if (err)
		goto unregister_notifier;

	pr_info("netlink gateway - max_hops=%u\n", gw_max_hops);
	return 0;

unregister_notifier:
	unregister_netdevice_notifier(&gw_notifier);
exit_jobs:
	gw_jobs_exit();
	return err;
}

static void __exit gw_exit(void)
{
	gw_netlink_exit();
	unregister_netdevice_notifier(&gw_notifier);
	gw_jobs_exit();
}

module_init(gw_init);
module_exit(gw_exit);
