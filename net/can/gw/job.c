// SPDX-License-Identifier: GPL-2.0
/* Gateway jobs: the list each namespace keeps, creating, updating and
 * removing jobs, and the receive callback that sends a matching frame on
 * to the destination interface. Jobs subscribe to their source device
 * through can_rx_register(), so the core's filter tables pick the jobs a
 * frame concerns and the cost of a frame does not grow with the number
 * of jobs that do not match it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/can.h>
#include <linux/can/core.h>
#include <linux/can/skb.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "gw-priv.h"

/* The jobs of one namespace. Writers hold RTNL (rtnetlink requests, the
 * device notifier, namespace exit: all process context); the listing walks
 * the list under RCU. The newest job comes first, as mainline lists them.
 */
struct gw_pernet {
	struct hlist_head jobs;
};

static unsigned int gw_net_id __read_mostly;

struct hlist_head *gw_jobs(struct net *net)
{
	struct gw_pernet *gn = net_generic(net, gw_net_id);

	return &gn->jobs;
}

/* The job's modifications, for callers that hold RTNL. */
struct gw_mod *gw_job_mod_rtnl(struct gw_job *job)
{
	return rcu_dereference_protected(job->mod, lockdep_rtnl_is_held());
}

/* How many gateways a frame has passed. CAN frames never carry an IP
 * checksum (ip_summed is CHECKSUM_UNNECESSARY), so, as in mainline, the
 * count lives in skb->csum_start: clones and copies keep it, and a frame
 * looped back on the destination still has it when the next gateway sees
 * it. That is what stops two gateways routing a frame back and forth.
 */
static unsigned int gw_hops(const struct sk_buff *skb)
{
	return skb->ip_summed == CHECKSUM_UNNECESSARY ? skb->csum_start : 0;
}

/* A job with its own limit starts a fresh frame so many hops short of
 * max_hops that it can pass limit_hops gateways in all.
 */
static unsigned int gw_next_hops(const struct gw_job *job, unsigned int hops)
{
	if (job->limit_hops && hops == 0)
		return gw_max_hops - job->limit_hops + 1;
	return hops + 1;
}

static bool gw_job_takes(const struct gw_job *job, const struct sk_buff *skb)
{
	if (job->flags & CGW_FLAGS_CAN_FD)
		return can_is_canfd_skb(skb);
	return can_is_can_skb(skb);
}

static bool gw_mod_changes_frame(const struct gw_mod_conf *conf)
{
	return memchr_inv(conf->fields, 0, sizeof(conf->fields));
}

/* The gateway's copy of @skb: a private one if it is to be rewritten. */
static struct sk_buff *gw_copy_frame(struct sk_buff *skb, bool rewrite)
{
	return rewrite ? skb_copy(skb, GFP_ATOMIC) : skb_clone(skb, GFP_ATOMIC);
}

/* Send the rewritten copy @nskb on; the counters say what became of it. */
static void gw_forward(const struct gw_job *job, const struct gw_mod *mod,
		       struct sk_buff *nskb, bool rewrite)
{
	unsigned int max_len = nskb->len - offsetof(struct canfd_frame, data);

	if (rewrite &&
	    !gw_mod_apply(&mod->conf, (struct canfd_frame *)nskb->data, max_len)) {
		this_cpu_inc(job->stats->deleted);
		kfree_skb(nskb);
		return;
	}

	if (!(job->flags & CGW_FLAGS_CAN_SRC_TSTAMP))
		nskb->tstamp = 0;

	if (can_send(nskb, job->flags & CGW_FLAGS_CAN_ECHO))
		this_cpu_inc(job->stats->dropped);
	else
		this_cpu_inc(job->stats->handled);
}

/* The receive callback of every job, in softirq context under RCU. A frame
 * of the other kind (classic for an FD job) is not the job's and is not
 * counted; one past the hop limit is deleted; one the job cannot send is
 * dropped.
 */
static void gw_rcv(struct sk_buff *skb, void *data)
{
	struct gw_job *job = data;
	const struct gw_mod *mod;
	struct sk_buff *nskb;
	unsigned int hops;
	bool rewrite;

	if (!gw_job_takes(job, skb))
		return;

	hops = gw_hops(skb);
	if (hops >= gw_max_hops) {
		this_cpu_inc(job->stats->deleted);
		return;
	}

	if (!(job->dst->flags & IFF_UP)) {
		this_cpu_inc(job->stats->dropped);
		return;
	}

	if (!(job->flags & CGW_FLAGS_CAN_IIF_TX_OK) &&
	    can_skb_prv(skb)->ifindex == job->dst->ifindex)
		return;

	mod = rcu_dereference(job->mod);
	rewrite = gw_mod_changes_frame(&mod->conf);
	nskb = gw_copy_frame(skb, rewrite);
	if (!nskb) {
		this_cpu_inc(job->stats->dropped);
		return;
	}

	nskb->csum_start = gw_next_hops(job, hops);
	nskb->dev = job->dst;
	gw_forward(job, mod, nskb, rewrite);
}

/**
 * gw_job_stats() - the frame counters of a job, summed over all CPUs
 * @job: the job
 * @sum: filled in
 *
 * Context: any; the counters may move while they are read.
 */
void gw_job_stats(const struct gw_job *job, struct gw_stats *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct gw_stats *s = per_cpu_ptr(job->stats, cpu);

		sum->handled += READ_ONCE(s->handled);
		sum->dropped += READ_ONCE(s->dropped);
		sum->deleted += READ_ONCE(s->deleted);
	}
}

static void gw_job_free(struct gw_job *job)
{
	kfree(rcu_access_pointer(job->mod));
	free_percpu(job->stats);
	kfree(job);
}

/* The job is unreachable: no subscription, no list entry, no reader. */
static void gw_job_free_rcu(struct rcu_head *head)
{
	struct gw_job *job = container_of(head, struct gw_job, rcu);

	dev_put(job->src);
	dev_put(job->dst);
	gw_job_free(job);
}

/* Take the job away in the order readers reach it: from the list (for
 * listings), from the source's receive table (for frames), then free it
 * after a grace period, once neither kind of reader can still hold it.
 * The devices stay held until then, so a frame in flight can still look
 * at the destination.
 */
static void gw_job_unlink(struct gw_job *job)
{
	ASSERT_RTNL();
	hlist_del_rcu(&job->node);
	can_rx_unregister(dev_net(job->src), job->src, job->filter.can_id,
			  job->filter.can_mask, gw_rcv, job);
	call_rcu(&job->rcu, gw_job_free_rcu);
}

static struct gw_job *gw_job_find_uid(struct net *net, u32 uid)
{
	struct gw_job *job;

	ASSERT_RTNL();
	hlist_for_each_entry(job, gw_jobs(net), node)
		if (gw_job_mod_rtnl(job)->conf.uid == uid)
			return job;
	return NULL;
}

static bool gw_job_same_route(const struct gw_job *job,
			      const struct gw_request *req)
{
	return job->src_ifindex == req->src_ifindex &&
	       job->dst_ifindex == req->dst_ifindex &&
	       job->filter.can_id == req->filter.can_id &&
	       job->filter.can_mask == req->filter.can_mask;
}

static struct gw_mod *gw_mod_alloc(const struct gw_mod_conf *conf)
{
	struct gw_mod *mod = kzalloc(sizeof(*mod), GFP_KERNEL);

	if (mod)
		mod->conf = *conf;
	return mod;
}

/* A request naming a job's uid replaces its modifications and nothing
 * else. The new ones were checked against the request's kind of frame,
 * so a request of the other kind is refused: FD modifications and
 * checksum indices up to 63 on a job that copies 8-byte classic frames
 * would write past them.
 */
static int gw_job_update(struct gw_job *job, const struct gw_request *req,
			 struct netlink_ext_ack *extack)
{
	struct gw_mod *mod, *old;

	if (!gw_job_same_route(job, req)) {
		NL_SET_ERR_MSG(extack, "CAN gateway: uid names a job of another route");
		return -EINVAL;
	}
	if ((job->flags ^ req->flags) & CGW_FLAGS_CAN_FD) {
		NL_SET_ERR_MSG(extack, "CAN gateway: uid names a job of the other frame kind");
		return -EINVAL;
	}

	mod = gw_mod_alloc(&req->conf);
	if (!mod)
		return -ENOMEM;
	old = rcu_replace_pointer(job->mod, mod, lockdep_rtnl_is_held());
	kfree_rcu(old, rcu);
	return 0;
}

/* A CAN device of @net by index, or NULL. */
static struct net_device *gw_can_dev(struct net *net, u32 ifindex)
{
	struct net_device *dev = __dev_get_by_index(net, ifindex);

	return dev && dev->type == ARPHRD_CAN ? dev : NULL;
}

static struct gw_job *gw_job_alloc(const struct gw_request *req)
{
	struct gw_job *job = kzalloc(sizeof(*job), GFP_KERNEL);

	if (!job)
		return NULL;
	RCU_INIT_POINTER(job->mod, gw_mod_alloc(&req->conf));
	job->stats = alloc_percpu(struct gw_stats);
	if (!rcu_access_pointer(job->mod) || !job->stats) {
		gw_job_free(job);
		return NULL;
	}
	job->filter = req->filter;
	job->src_ifindex = req->src_ifindex;
	job->dst_ifindex = req->dst_ifindex;
	job->flags = req->flags;
	job->limit_hops = req->limit_hops;
	return job;
}

/**
 * gw_job_create() - add a job, or update the one that has the request's uid
 * @net: the namespace of the request
 * @req: the parsed request
 * @extack: for error messages
 *
 * Context: process context, RTNL held.
 * Return: 0; -EINVAL if a uid names a job of another route or frame kind;
 * -ENODEV if an interface is not given or not a CAN device; -ENOMEM; or
 * an error of can_rx_register().
 */
int gw_job_create(struct net *net, const struct gw_request *req,
		  struct netlink_ext_ack *extack)
{
	struct net_device *src, *dst;
	struct gw_job *job;
	int err;

	ASSERT_RTNL();
	if (req->conf.uid) {
		job = gw_job_find_uid(net, req->conf.uid);
		if (job)
			return gw_job_update(job, req, extack);
	}

	src = gw_can_dev(net, req->src_ifindex);
	dst = gw_can_dev(net, req->dst_ifindex);
	if (!src || !dst) {
		NL_SET_ERR_MSG(extack, "CAN gateway: no such CAN interface");
		return -ENODEV;
	}

	job = gw_job_alloc(req);
	if (!job)
		return -ENOMEM;
	job->src = src;
	job->dst = dst;
	dev_hold(src);
	dev_hold(dst);

	err = can_rx_register(net, src, job->filter.can_id, job->filter.can_mask,
			      gw_rcv, job, "gw", NULL);
	if (err) {
		dev_put(dst);
		dev_put(src);
		gw_job_free(job);
		return err;
	}
	hlist_add_head_rcu(&job->node, gw_jobs(net));
	return 0;
}

static bool gw_job_matches(struct gw_job *job, const struct gw_request *req)
{
	const struct gw_mod_conf *conf = &gw_job_mod_rtnl(job)->conf;

	if (job->flags != req->flags || job->limit_hops != req->limit_hops ||
	    !gw_job_same_route(job, req))
		return false;
	if (conf->uid || req->conf.uid)
		return conf->uid == req->conf.uid;
	return !memcmp(conf, &req->conf, sizeof(*conf));
}

/**
 * gw_job_remove() - remove the first job a request describes
 * @net: the namespace of the request
 * @req: the parsed request; both interfaces 0 removes every job
 *
 * A job matches if flags, hop limit, interfaces and filter are the same,
 * and the uid if either has one, or else all modifications and checksums.
 *
 * Context: process context, RTNL held.
 * Return: 0, or -EINVAL if no job matches.
 */
int gw_job_remove(struct net *net, const struct gw_request *req)
{
	struct gw_job *job;

	ASSERT_RTNL();
	if (!req->src_ifindex && !req->dst_ifindex) {
		gw_jobs_flush(net);
		return 0;
	}

	hlist_for_each_entry(job, gw_jobs(net), node) {
		if (gw_job_matches(job, req)) {
			gw_job_unlink(job);
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * gw_jobs_flush() - remove every job of a namespace
 * @net: the namespace
 *
 * Context: process context, RTNL held.
 */
void gw_jobs_flush(struct net *net)
{
	struct hlist_node *next;
	struct gw_job *job;

	ASSERT_RTNL();
	hlist_for_each_entry_safe(job, next, gw_jobs(net), node)
		gw_job_unlink(job);
}

/**
 * gw_jobs_drop_dev() - remove the jobs from or to a device
 * @dev: a device being unregistered (or leaving its namespace), or one
 *	that stopped being CAN; of any type now, whatever it had when the
 *	jobs were made
 *
 * Context: process context, RTNL held (the device notifier).
 */
void gw_jobs_drop_dev(struct net_device *dev)
{
	struct hlist_node *next;
	struct gw_job *job;

	ASSERT_RTNL();
	hlist_for_each_entry_safe(job, next, gw_jobs(dev_net(dev)), node)
		if (job->src == dev || job->dst == dev)
			gw_job_unlink(job);
}

static int __net_init gw_pernet_init(struct net *net)
{
	INIT_HLIST_HEAD(gw_jobs(net));
	return 0;
}

/* The namespace's devices went first and took their jobs with them; this
 * catches anything left.
 */
static void __net_exit gw_pernet_exit_batch(struct list_head *net_list)
{
	struct net *net;

	rtnl_lock();
	list_for_each_entry(net, net_list, exit_list)
		gw_jobs_flush(net);
	rtnl_unlock();
}

static struct pernet_operations gw_pernet_ops = {
	.init = gw_pernet_init,
	.exit_batch = gw_pernet_exit_batch,
	.id = &gw_net_id,
	.size = sizeof(struct gw_pernet),
};

int gw_jobs_init(void)
{
	return register_pernet_subsys(&gw_pernet_ops);
}

/* Context: after the rtnetlink handlers and the notifier are gone. */
void gw_jobs_exit(void)
{
	unregister_pernet_subsys(&gw_pernet_ops);
	/* gw_job_free_rcu() is this module's code. */
	rcu_barrier();
}
