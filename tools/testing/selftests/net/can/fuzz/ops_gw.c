// SPDX-License-Identifier: GPL-2.0
/*
 * The CAN gateway (can-gw) over rtnetlink: RTM_NEWROUTE and RTM_DELROUTE
 * in PF_CAN with random heads and attributes (modifications, checksums
 * with indices around their bounds, filters, hop limits, uids) between
 * any of our devices, flushes, and listings while frames pass.
 */

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/can.h>
#include <linux/can/gw.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fuzz.h"

/* A checksum index: mostly near the bounds of classic and FD frames. */
static __s8 gw_index(struct fz_draw *d)
{
	static const int near[] = { -65, -64, -9, -8, -1, 0, 7, 8, 63, 64 };

	if (fz_chance(d, 4))
		return (__s8)fz_u64(d);
	return near[fz_below(d, FZ_ARRAY_SIZE(near))] + (int)fz_below(d, 3) - 1;
}

static size_t gw_mod(struct fz_draw *d, unsigned char *raw, bool fd)
{
	struct cgw_fdframe_mod m;

	fz_fill(d, &m, sizeof(m));
	if (fz_chance(d, 2))
		m.cf.len = fz_below(d, fd ? 80 : 20);
	if (!fd) {
		struct cgw_frame_mod cm;

		memcpy(&cm.cf, &m.cf, sizeof(cm.cf));
		cm.modtype = fz_below(d, 32);
		memcpy(raw, &cm, sizeof(cm));
		return sizeof(cm);
	}
	m.modtype = fz_below(d, 32);
	memcpy(raw, &m, sizeof(m));
	return sizeof(m);
}

static size_t gw_csum(struct fz_draw *d, unsigned char *raw, int type)
{
	struct cgw_csum_crc8 crc;
	struct cgw_csum_xor xor;

	fz_fill(d, &crc, sizeof(crc));
	crc.from_idx = gw_index(d);
	crc.to_idx = gw_index(d);
	crc.result_idx = gw_index(d);
	memcpy(&xor, &crc, sizeof(xor));
	crc.profile = fz_below(d, CGW_CRC8PRF_MAX + 3);
	if (type == CGW_CS_XOR) {
		memcpy(raw, &xor, sizeof(xor));
		return sizeof(xor);
	}
	memcpy(raw, &crc, sizeof(crc));
	return sizeof(crc);
}

/* One attribute, mostly well-formed, sometimes of a random size. */
static void gw_attr(struct fz_ctx *c, struct fz_nlmsg *m, struct fz_draw *d)
{
	int type = (int)fz_below(d, CGW_MAX + 3);
	unsigned char raw[400];
	size_t len;
	__u32 v;

	switch (type) {
	case CGW_MOD_AND ... CGW_MOD_SET:
		len = gw_mod(d, raw, false);
		break;
	case CGW_FDMOD_AND ... CGW_FDMOD_SET:
		len = gw_mod(d, raw, true);
		break;
	case CGW_CS_XOR:
	case CGW_CS_CRC8:
		len = gw_csum(d, raw, type);
		break;
	case CGW_FILTER:
		fz_fill(d, raw, sizeof(struct can_filter));
		len = sizeof(struct can_filter);
		break;
	case CGW_LIM_HOPS:
		raw[0] = fz_below(d, 9);
		len = 1;
		break;
	default:
		v = type == CGW_SRC_IF || type == CGW_DST_IF ? (__u32)fz_ifindex(c, d) :
		    type == CGW_MOD_UID ? fz_below(d, 4) : (__u32)fz_int(d);
		memcpy(raw, &v, sizeof(v));
		len = sizeof(v);
		break;
	}
	if (fz_chance(d, 8))
		len = fz_len(d, sizeof(raw));
	fz_nl_put(m, type, raw, len);
}

/* A request of @type: a head, a route between our devices, attributes. */
static void gw_request(struct fz_ctx *c, struct fz_draw *d, struct fz_nlmsg *m,
		       int type, int flags)
{
	struct rtcanmsg r = {
		.can_family = fz_chance(d, 16) ? (__u8)fz_u64(d) : AF_CAN,
		.gwtype = fz_chance(d, 16) ? (__u8)fz_u64(d) : CGW_TYPE_CAN_CAN,
		.flags = fz_chance(d, 8) ? (__u16)fz_u64(d) : fz_below(d, 16),
	};
	__u32 src = fz_ifindex(c, d), dst = fz_ifindex(c, d);
	int i, n = fz_below(d, 6);

	fz_nl_init(m, type, flags, 0);
	memcpy(NLMSG_DATA(&m->nh), &r, sizeof(r));
	m->len = NLMSG_LENGTH(fz_chance(d, 32) ? fz_below(d, sizeof(r)) : sizeof(r));
	if (!fz_chance(d, 16))
		fz_nl_put(m, CGW_SRC_IF, &src, sizeof(src));
	if (!fz_chance(d, 16))
		fz_nl_put(m, CGW_DST_IF, &dst, sizeof(dst));
	for (i = 0; i < n; i++)
		gw_attr(c, m, d);
}

static long gw_add(struct fz_ctx *c, struct fz_draw *d)
{
	struct fz_nlmsg m;

	gw_request(c, d, &m, RTM_NEWROUTE, 0);
	fz_trace(c, "RTM_NEWROUTE PF_CAN");
	return fz_ret(c, "gw add", fz_nl_talk(&m));
}

/* Mostly the removal of a job like one gw_add makes, sometimes a flush. */
static long gw_del(struct fz_ctx *c, struct fz_draw *d)
{
	struct fz_nlmsg m;
	__u32 zero = 0;

	gw_request(c, d, &m, RTM_DELROUTE, 0);
	if (fz_chance(d, 4)) {
		fz_nl_put(&m, CGW_SRC_IF, &zero, sizeof(zero));
		fz_nl_put(&m, CGW_DST_IF, &zero, sizeof(zero));
	}
	fz_trace(c, "RTM_DELROUTE PF_CAN");
	return fz_ret(c, "gw del", fz_nl_talk(&m));
}

static long gw_list(struct fz_ctx *c, struct fz_draw *d)
{
	struct rtcanmsg r = { .can_family = AF_CAN };
	struct fz_nlmsg m;

	fz_nl_init(&m, RTM_GETROUTE, NLM_F_DUMP, 0);
	memcpy(NLMSG_DATA(&m.nh), &r, sizeof(r));
	m.len = NLMSG_LENGTH(sizeof(r));
	fz_trace(c, "RTM_GETROUTE PF_CAN");
	return fz_ret(c, "gw list", fz_nl_talk(&m));
}

static const struct fz_op gw_ops[] = {
	{ "gw_add", gw_add, 4 },
	{ "gw_del", gw_del, 2 },
	{ "gw_list", gw_list, 1 },
	{}
};

FZ_REGISTER(gw_ops)
