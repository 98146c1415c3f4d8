/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the CAN gateway shared by its files: the jobs and their
 * lifetime (job.c), the rewriting of frames (mod.c) and the
 * rtnetlink interface (netlink.c).
 */

#ifndef _NET_CAN_GW_PRIV_H
#define _NET_CAN_GW_PRIV_H

#include <linux/can.h>
#include <linux/can/gw.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

/* The hop limit of the module parameter max_hops: its range and default. */
#define GW_MIN_HOPS 1
#define GW_MAX_HOPS 6
#define GW_DEFAULT_HOPS 1

extern unsigned int gw_max_hops;

/* The operations of a modification, in the order they are applied. */
enum gw_op {
	GW_OP_AND,
	GW_OP_OR,
	GW_OP_XOR,
	GW_OP_SET,
	GW_OPS
};

/**
 * struct gw_mod_conf - what a job does to a frame, as the user gave it
 * @operand: the frame each operation combines with the received one
 * @modtype: per operation, the CGW_MOD_* parts it touches, as given
 * @fields: per operation, the parts it applies to for this kind of job
 *	(@modtype less what the kind has not: flags for classic CAN)
 * @is_fd: parsed for a CAN FD job (CGW_FDMOD_*) rather than classic
 * @has_xor: @xor is in use
 * @has_crc8: @crc8 is in use
 * @xor: XOR checksum, computed after the modifications
 * @crc8: CRC8 checksum, computed after the modifications and before @xor
 * @uid: CGW_MOD_UID, 0 for none
 *
 * Always zeroed before it is filled in, so that two requests that say the
 * same thing compare equal with memcmp(): that is how RTM_DELROUTE finds
 * the job to remove.
 */
struct gw_mod_conf {
	struct canfd_frame operand[GW_OPS];
	u8 modtype[GW_OPS];
	u8 fields[GW_OPS];
	bool is_fd;
	bool has_xor;
	bool has_crc8;
	struct cgw_csum_xor xor;
	struct cgw_csum_crc8 crc8;
	u32 uid;
};

/**
 * struct gw_mod - a job's modifications as the receive path reads them
 * @conf: the configuration
 * @rcu: frees a replaced configuration once no frame is using it
 */
struct gw_mod {
	struct gw_mod_conf conf;
	struct rcu_head rcu;
};

/**
 * struct gw_request - a parsed RTM_NEWROUTE or RTM_DELROUTE
 * @flags: CGW_FLAGS_*
 * @limit_hops: CGW_LIM_HOPS, 0 for none
 * @filter: CGW_FILTER, all zero (every frame) if not given
 * @src_ifindex: CGW_SRC_IF
 * @dst_ifindex: CGW_DST_IF; both 0 asks to flush every job
 * @conf: the modifications and checksums
 */
struct gw_request {
	u16 flags;
	u8 limit_hops;
	struct can_filter filter;
	u32 src_ifindex;
	u32 dst_ifindex;
	struct gw_mod_conf conf;
};

/* Frames one job counted, per CPU; summed when the job is listed. */
struct gw_stats {
	u32 handled;
	u32 dropped;
	u32 deleted;
};

/**
 * struct gw_job - one route from a source to a destination interface
 * @node: link in the namespace's job list; changed under RTNL, walked
 *	under RTNL or RCU
 * @rcu: frees the job once the receive path is done with it
 * @mod: modifications; replaced under RTNL (update by uid), read under
 *	RCU by the receive path
 * @stats: per-CPU frame counters
 * @src: source device, held while the job exists
 * @dst: destination device, held while the job exists
 * @filter: which frames of @src the job takes
 * @src_ifindex: @src's index as the user gave it, for listing and matching
 * @dst_ifindex: @dst's index as the user gave it
 * @flags: CGW_FLAGS_*
 * @limit_hops: the job's own hop limit, 0 for max_hops
 */
struct gw_job {
	struct hlist_node node;
	struct rcu_head rcu;
	struct gw_mod __rcu *mod;
	struct gw_stats __percpu *stats;
	struct net_device *src;
	struct net_device *dst;
	struct can_filter filter;
	u32 src_ifindex;
	u32 dst_ifindex;
	u16 flags;
	u8 limit_hops;
};

/* mod.c */
int gw_csum_indices_check(s8 from, s8 to, s8 result, bool is_fd);
bool gw_mod_apply(const struct gw_mod_conf *conf, struct canfd_frame *cf,
		  unsigned int max_len);

/* job.c */
struct hlist_head *gw_jobs(struct net *net);
int gw_job_create(struct net *net, const struct gw_request *req,
		  struct netlink_ext_ack *extack);
int gw_job_remove(struct net *net, const struct gw_request *req);
void gw_jobs_flush(struct net *net);
void gw_jobs_drop_dev(struct net_device *dev);
struct gw_mod *gw_job_mod_rtnl(struct gw_job *job);
void gw_job_stats(const struct gw_job *job, struct gw_stats *sum);
int gw_jobs_init(void);
void gw_jobs_exit(void);

/* netlink.c */
int gw_netlink_init(void);
void gw_netlink_exit(void);

#endif /* !_NET_CAN_GW_PRIV_H */
