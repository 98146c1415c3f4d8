// SPDX-License-Identifier: GPL-2.0
/* The gateway's rtnetlink interface: RTM_NEWROUTE adds or updates a job,
 * RTM_DELROUTE removes one or all, RTM_GETROUTE lists them, each in family
 * PF_CAN with struct rtcanmsg as head. Every request is checked here, once,
 * and turned into a struct gw_request; the errors are mainline's.
 */

#include <linux/can.h>
#include <linux/can/gw.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <net/rtnetlink.h>
#include <net/sock.h>

#include "gw-priv.h"

/* Lengths are minimums: a longer attribute is read up to the size of its
 * structure, as mainline's liberal parsing does.
 */
static const struct nla_policy gw_policy[CGW_MAX + 1] = {
	[CGW_MOD_AND] = { .len = CGW_MODATTR_LEN },
	[CGW_MOD_OR] = { .len = CGW_MODATTR_LEN },
	[CGW_MOD_XOR] = { .len = CGW_MODATTR_LEN },
	[CGW_MOD_SET] = { .len = CGW_MODATTR_LEN },
	[CGW_CS_XOR] = { .len = CGW_CS_XOR_LEN },
	[CGW_CS_CRC8] = { .len = CGW_CS_CRC8_LEN },
	[CGW_SRC_IF] = { .type = NLA_U32 },
	[CGW_DST_IF] = { .type = NLA_U32 },
	[CGW_FILTER] = { .len = sizeof(struct can_filter) },
	[CGW_LIM_HOPS] = { .type = NLA_U8 },
	[CGW_MOD_UID] = { .type = NLA_U32 },
	[CGW_FDMOD_AND] = { .len = CGW_FDMODATTR_LEN },
	[CGW_FDMOD_OR] = { .len = CGW_FDMODATTR_LEN },
	[CGW_FDMOD_XOR] = { .len = CGW_FDMODATTR_LEN },
	[CGW_FDMOD_SET] = { .len = CGW_FDMODATTR_LEN },
};

/* The attribute of each operation, classic and CAN FD, by enum gw_op. */
static const int gw_cc_mod_attr[GW_OPS] = {
	CGW_MOD_AND, CGW_MOD_OR, CGW_MOD_XOR, CGW_MOD_SET
};

static const int gw_fd_mod_attr[GW_OPS] = {
	CGW_FDMOD_AND, CGW_FDMOD_OR, CGW_FDMOD_XOR, CGW_FDMOD_SET
};

/* Only the members a frame has are taken, so that requests compare
 * equal whatever they had in the reserved bytes.
 */
static void gw_parse_cc_mod(const struct nlattr *attr,
			    struct gw_mod_conf *conf, enum gw_op op)
{
	struct canfd_frame *operand = &conf->operand[op];
	struct cgw_frame_mod mod;

	nla_memcpy(&mod, attr, sizeof(mod));
	operand->can_id = mod.cf.can_id;
	operand->len = mod.cf.len;
	memcpy(operand->data, mod.cf.data, CAN_MAX_DLEN);
	conf->modtype[op] = mod.modtype;
	conf->fields[op] = mod.modtype & (CGW_MOD_ID | CGW_MOD_DLC | CGW_MOD_DATA);
}

static void gw_parse_fd_mod(const struct nlattr *attr,
			    struct gw_mod_conf *conf, enum gw_op op)
{
	struct canfd_frame *operand = &conf->operand[op];
	struct cgw_fdframe_mod mod;

	nla_memcpy(&mod, attr, sizeof(mod));
	operand->can_id = mod.cf.can_id;
	operand->len = mod.cf.len;
	operand->flags = mod.cf.flags;
	memcpy(operand->data, mod.cf.data, CANFD_MAX_DLEN);
	conf->modtype[op] = mod.modtype;
	conf->fields[op] = mod.modtype & (CGW_MOD_ID | CGW_MOD_LEN |
					  CGW_MOD_FLAGS | CGW_MOD_DATA);
}

/* The modifications of the job's kind; those of the other are ignored. */
static void gw_parse_mods(struct nlattr **tb, struct gw_mod_conf *conf)
{
	enum gw_op op;

	for (op = GW_OP_AND; op < GW_OPS; op++) {
		if (conf->is_fd && tb[gw_fd_mod_attr[op]])
			gw_parse_fd_mod(tb[gw_fd_mod_attr[op]], conf, op);
		else if (!conf->is_fd && tb[gw_cc_mod_attr[op]])
			gw_parse_cc_mod(tb[gw_cc_mod_attr[op]], conf, op);
	}
}

/* Read a checksum attribute into @csum (@size bytes) and check its
 * indices, which both checksum structures start with.
 */
static int gw_parse_csum(const struct nlattr *attr, void *csum, size_t size,
			 bool is_fd, struct netlink_ext_ack *extack)
{
	const struct cgw_csum_xor *idx = csum;

	BUILD_BUG_ON(offsetof(struct cgw_csum_crc8, from_idx) != 0 ||
		     offsetof(struct cgw_csum_crc8, to_idx) != 1 ||
		     offsetof(struct cgw_csum_crc8, result_idx) != 2);

	nla_memcpy(csum, attr, size);
	if (gw_csum_indices_check(idx->from_idx, idx->to_idx, idx->result_idx,
				  is_fd)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "CAN gateway: checksum index out of range");
		return -EINVAL;
	}
	return 0;
}

/* Checksums and the uid belong to modifications: a job that changes
 * nothing has none, as in mainline, which ignores them then.
 */
static int gw_parse_csums(struct nlattr **tb, struct gw_mod_conf *conf,
			  struct netlink_ext_ack *extack)
{
	int err;

	if (!memchr_inv(conf->fields, 0, sizeof(conf->fields)))
		return 0;

	if (tb[CGW_CS_CRC8]) {
		err = gw_parse_csum(tb[CGW_CS_CRC8], &conf->crc8,
				    sizeof(conf->crc8), conf->is_fd, extack);
		if (err)
			return err;
		conf->has_crc8 = true;
	}
	if (tb[CGW_CS_XOR]) {
		err = gw_parse_csum(tb[CGW_CS_XOR], &conf->xor,
				    sizeof(conf->xor), conf->is_fd, extack);
		if (err)
			return err;
		conf->has_xor = true;
	}
	if (tb[CGW_MOD_UID])
		conf->uid = nla_get_u32(tb[CGW_MOD_UID]);
	return 0;
}

static int gw_parse_hops(struct nlattr **tb, struct gw_request *req,
			 struct netlink_ext_ack *extack)
{
	if (!tb[CGW_LIM_HOPS])
		return 0;
	req->limit_hops = nla_get_u8(tb[CGW_LIM_HOPS]);
	if (req->limit_hops < 1 || req->limit_hops > gw_max_hops) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CGW_LIM_HOPS],
				    "CAN gateway: hop limit not within 1..max_hops");
		return -EINVAL;
	}
	return 0;
}

/* Both interfaces are needed; both 0 is the flush request. */
static int gw_parse_route(struct nlattr **tb, struct gw_request *req,
			  struct netlink_ext_ack *extack)
{
	if (tb[CGW_FILTER])
		nla_memcpy(&req->filter, tb[CGW_FILTER], sizeof(req->filter));

	if (!tb[CGW_SRC_IF] || !tb[CGW_DST_IF]) {
		NL_SET_ERR_MSG(extack, "CAN gateway: source and destination interface needed");
		return -ENODEV;
	}
	req->src_ifindex = nla_get_u32(tb[CGW_SRC_IF]);
	req->dst_ifindex = nla_get_u32(tb[CGW_DST_IF]);
	if (!req->src_ifindex != !req->dst_ifindex) {
		NL_SET_ERR_MSG(extack, "CAN gateway: only one interface index is 0");
		return -ENODEV;
	}
	return 0;
}

static int gw_parse(const struct nlmsghdr *nlh, struct gw_request *req,
		    struct netlink_ext_ack *extack)
{
	const struct rtcanmsg *r = nlmsg_data(nlh);
	struct nlattr *tb[CGW_MAX + 1];
	int err;

	err = nlmsg_parse_deprecated(nlh, sizeof(*r), tb, CGW_MAX, gw_policy,
				     extack);
	if (err < 0)
		return err;

	memset(req, 0, sizeof(*req));
	req->flags = r->flags;
	req->conf.is_fd = r->flags & CGW_FLAGS_CAN_FD;

	err = gw_parse_hops(tb, req, extack);
	if (err)
		return err;
	gw_parse_mods(tb, &req->conf);
	err = gw_parse_csums(tb, &req->conf, extack);
	if (err)
		return err;
	return gw_parse_route(tb, req, extack);
}

/* The checks before any attribute is read, in mainline's order. */
static int gw_check_request(struct sk_buff *skb, const struct nlmsghdr *nlh)
{
	const struct rtcanmsg *r = nlmsg_data(nlh);

	if (!netlink_capable(skb, CAP_NET_ADMIN))
		return -EPERM;
	if (nlmsg_len(nlh) < sizeof(*r))
		return -EINVAL;
	if (r->can_family != AF_CAN)
		return -EPFNOSUPPORT;
	return r->gwtype == CGW_TYPE_CAN_CAN ? 0 : -EINVAL;
}

/* Parse a request of either kind and hand it to @act under RTNL. */
static int gw_do_request(struct sk_buff *skb, struct nlmsghdr *nlh,
			 struct netlink_ext_ack *extack, bool create)
{
	struct net *net = sock_net(skb->sk);
	struct gw_request *req;
	int err;

	err = gw_check_request(skb, nlh);
	if (err)
		return err;

	req = kmalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	err = gw_parse(nlh, req, extack);
	if (!err && create)
		err = gw_job_create(net, req, extack);
	else if (!err)
		err = gw_job_remove(net, req);
	kfree(req);
	return err;
}

static int gw_newroute(struct sk_buff *skb, struct nlmsghdr *nlh,
		       struct netlink_ext_ack *extack)
{
	return gw_do_request(skb, nlh, extack, true);
}

static int gw_delroute(struct sk_buff *skb, struct nlmsghdr *nlh,
		       struct netlink_ext_ack *extack)
{
	return gw_do_request(skb, nlh, extack, false);
}

static int gw_put_counters(struct sk_buff *skb, const struct gw_job *job)
{
	struct gw_stats sum;

	gw_job_stats(job, &sum);
	if (sum.handled && nla_put_u32(skb, CGW_HANDLED, sum.handled))
		return -EMSGSIZE;
	if (sum.dropped && nla_put_u32(skb, CGW_DROPPED, sum.dropped))
		return -EMSGSIZE;
	if (sum.deleted && nla_put_u32(skb, CGW_DELETED, sum.deleted))
		return -EMSGSIZE;
	return 0;
}

static int gw_put_mod(struct sk_buff *skb, const struct gw_mod_conf *conf,
		      enum gw_op op)
{
	const struct canfd_frame *operand = &conf->operand[op];

	struct cgw_fdframe_mod fd_mod = { .modtype = conf->modtype[op] };
	struct cgw_frame_mod cc_mod = { .modtype = conf->modtype[op] };

	if (conf->is_fd) {
		fd_mod.cf = *operand;
		return nla_put(skb, gw_fd_mod_attr[op], sizeof(fd_mod), &fd_mod);
	}

	cc_mod.cf.can_id = operand->can_id;
	cc_mod.cf.len = operand->len;
	memcpy(cc_mod.cf.data, operand->data, CAN_MAX_DLEN);
	return nla_put(skb, gw_cc_mod_attr[op], sizeof(cc_mod), &cc_mod);
}

/* Everything RTM_NEWROUTE would need to make the job again. */
static int gw_put_config(struct sk_buff *skb, const struct gw_mod_conf *conf)
{
	enum gw_op op;

	for (op = GW_OP_AND; op < GW_OPS; op++)
		if (conf->modtype[op] && gw_put_mod(skb, conf, op))
			return -EMSGSIZE;
	if (conf->uid && nla_put_u32(skb, CGW_MOD_UID, conf->uid))
		return -EMSGSIZE;
	if (conf->has_crc8 &&
	    nla_put(skb, CGW_CS_CRC8, sizeof(conf->crc8), &conf->crc8))
		return -EMSGSIZE;
	if (conf->has_xor &&
	    nla_put(skb, CGW_CS_XOR, sizeof(conf->xor), &conf->xor))
		return -EMSGSIZE;
	return 0;
}

static int gw_put_route(struct sk_buff *skb, const struct gw_job *job)
{
	if ((job->filter.can_id || job->filter.can_mask) &&
	    nla_put(skb, CGW_FILTER, sizeof(job->filter), &job->filter))
		return -EMSGSIZE;
	if (nla_put_u32(skb, CGW_SRC_IF, job->src_ifindex) ||
	    nla_put_u32(skb, CGW_DST_IF, job->dst_ifindex))
		return -EMSGSIZE;
	return 0;
}

/* One job as an RTM_NEWROUTE message, attributes in mainline's order. */
static int gw_fill_job(struct sk_buff *skb, struct gw_job *job,
		       struct netlink_callback *cb)
{
	const struct gw_mod *mod = rcu_dereference(job->mod);
	struct rtcanmsg *r;
	struct nlmsghdr *nlh;

	nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			RTM_NEWROUTE, sizeof(*r), NLM_F_MULTI);
	if (!nlh)
		return -EMSGSIZE;
	r = nlmsg_data(nlh);
	r->can_family = AF_CAN;
	r->gwtype = CGW_TYPE_CAN_CAN;
	r->flags = job->flags;

	if (gw_put_counters(skb, job) ||
	    (job->limit_hops &&
	     nla_put_u8(skb, CGW_LIM_HOPS, job->limit_hops)) ||
	    gw_put_config(skb, &mod->conf) || gw_put_route(skb, job)) {
		nlmsg_cancel(skb, nlh);
		return -EMSGSIZE;
	}
	nlmsg_end(skb, nlh);
	return 0;
}

/* cb->args[0] counts the jobs already sent in earlier parts of the dump. */
static int gw_getroute(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	long skip = cb->args[0], idx = 0;
	struct gw_job *job;

	rcu_read_lock();
	hlist_for_each_entry_rcu(job, gw_jobs(net), node) {
		if (idx >= skip && gw_fill_job(skb, job, cb))
			break;
		idx++;
	}
	rcu_read_unlock();

	cb->args[0] = idx;
	return skb->len;
}

static const struct rtnl_msg_handler gw_rtnl_handlers[] = {
	{ .owner = THIS_MODULE, .protocol = PF_CAN, .msgtype = RTM_GETROUTE,
	  .dumpit = gw_getroute },
	{ .owner = THIS_MODULE, .protocol = PF_CAN, .msgtype = RTM_NEWROUTE,
	  .doit = gw_newroute },
	{ .owner = THIS_MODULE, .protocol = PF_CAN, .msgtype = RTM_DELROUTE,
	  .doit = gw_delroute },
};

int gw_netlink_init(void)
{
	return rtnl_register_many(gw_rtnl_handlers);
}

void gw_netlink_exit(void)
{
	rtnl_unregister_many(gw_rtnl_handlers);
}
