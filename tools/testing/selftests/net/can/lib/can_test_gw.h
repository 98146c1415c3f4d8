/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the CAN gateway tests: build RTM_NEWROUTE and RTM_DELROUTE
 * requests attribute by attribute, send them, and list the jobs with
 * RTM_GETROUTE to read their counters.
 */

#ifndef _CAN_TEST_GW_H
#define _CAN_TEST_GW_H

#include <linux/can/gw.h>

#include "can_test.h"

struct gw_nlreq {
	struct nlmsghdr nh;
	struct rtcanmsg r;
	char attrs[2048];
};

static inline void gw_req_init(struct gw_nlreq *req, int type, __u16 flags)
{
	memset(req, 0, sizeof(*req));
	req->nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtcanmsg));
	req->nh.nlmsg_type = type;
	req->r.can_family = AF_CAN;
	req->r.gwtype = CGW_TYPE_CAN_CAN;
	req->r.flags = flags;
}

static inline void gw_put(struct gw_nlreq *req, int type, const void *data,
			  int len)
{
	struct rtattr *rta = (struct rtattr *)((char *)req +
					       NLMSG_ALIGN(req->nh.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	req->nh.nlmsg_len = NLMSG_ALIGN(req->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

static inline void gw_put_u32(struct gw_nlreq *req, int type, __u32 val)
{
	gw_put(req, type, &val, sizeof(val));
}

static inline void gw_put_route(struct gw_nlreq *req, int src, int dst)
{
	gw_put_u32(req, CGW_SRC_IF, src);
	gw_put_u32(req, CGW_DST_IF, dst);
}

static inline int gw_talk(struct gw_nlreq *req)
{
	return ct_nl_talk(&req->nh);
}

/* A plain job from @src to @dst; 0 or -errno. */
static inline int gw_add(int src, int dst, __u16 flags)
{
	struct gw_nlreq req;

	gw_req_init(&req, RTM_NEWROUTE, flags);
	gw_put_route(&req, src, dst);
	return gw_talk(&req);
}

static inline int gw_flush(void)
{
	struct gw_nlreq req;

	gw_req_init(&req, RTM_DELROUTE, 0);
	gw_put_route(&req, 0, 0);
	return gw_talk(&req);
}

/* What RTM_GETROUTE says of one job. */
struct gw_listed {
	__u16 flags;
	__u32 src, dst, uid;
	__u32 handled, dropped, deleted;
	int limit_hops;
	bool has_xor, has_crc8;
	int mods;
};

static inline void gw_parse_listed(struct nlmsghdr *nh, struct gw_listed *j)
{
	struct rtcanmsg *r = NLMSG_DATA(nh);
	int len = NLMSG_PAYLOAD(nh, sizeof(*r));
	struct rtattr *rta = (struct rtattr *)((char *)r + NLMSG_ALIGN(sizeof(*r)));
	__u32 v;

	memset(j, 0, sizeof(*j));
	j->flags = r->flags;
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		memcpy(&v, RTA_DATA(rta), RTA_PAYLOAD(rta) >= 4 ? 4 : 1);
		switch (rta->rta_type) {
		case CGW_SRC_IF:
			j->src = v;
			break;
		case CGW_DST_IF:
			j->dst = v;
			break;
		case CGW_MOD_UID:
			j->uid = v;
			break;
		case CGW_HANDLED:
			j->handled = v;
			break;
		case CGW_DROPPED:
			j->dropped = v;
			break;
		case CGW_DELETED:
			j->deleted = v;
			break;
		case CGW_LIM_HOPS:
			j->limit_hops = *(__u8 *)RTA_DATA(rta);
			break;
		case CGW_CS_XOR:
			j->has_xor = true;
			break;
		case CGW_CS_CRC8:
			j->has_crc8 = true;
			break;
		case CGW_MOD_AND ... CGW_MOD_SET:
		case CGW_FDMOD_AND ... CGW_FDMOD_SET:
			j->mods++;
			break;
		}
	}
}

/* List up to @max jobs into @jobs, newest first; their number or -errno. */
static inline int gw_list(struct gw_listed *jobs, int max)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct gw_nlreq req;
	static char buf[65536];
	int fd, n = 0, len;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	gw_req_init(&req, RTM_GETROUTE, 0);
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		goto fail;
	for (;;) {
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;

		len = recv(fd, buf, sizeof(buf), 0);
		if (len < 0)
			goto fail;
		for (; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type == NLMSG_DONE) {
				close(fd);
				return n;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				errno = -((struct nlmsgerr *)NLMSG_DATA(nh))->error;
				goto fail;
			}
			if (n < max)
				gw_parse_listed(nh, &jobs[n]);
			n++;
		}
	}
fail:
	n = -errno;
	close(fd);
	return n;
}

/* The only job's counters; -1 in @j->handled etc. is impossible, so a
 * test compares them directly. Returns the number of jobs.
 */
static inline int gw_first(struct gw_listed *j)
{
	return gw_list(j, 1);
}

/*
 * The setup of every gateway test: can-gw loaded, no job left from an
 * earlier test, and two CAN FD capable vcans @a and @b, up. 0 or -errno.
 */
static inline int gw_setup_pair(char *a, char *b, int *ia, int *ib)
{
	int err;

	if (system("modprobe can-gw"))
		return -ENOENT;
	err = gw_flush();
	ct_ifname(a, 'a');
	ct_ifname(b, 'b');
	if (!err)
		err = ct_vcan_create(a, CANFD_MTU, true);
	if (!err)
		err = ct_vcan_create(b, CANFD_MTU, true);
	*ia = if_nametoindex(a);
	*ib = if_nametoindex(b);
	return err;
}

#endif /* _CAN_TEST_GW_H */
