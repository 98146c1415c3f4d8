// SPDX-License-Identifier: GPL-2.0
/*
 * rtnetlink: vcan links and vxcan pairs (peer here or in another netns)
 * added and deleted, any of our devices set up, down, to a boundary MTU
 * (classic, FD, XL), into another netns, and the IFLA_CAN_*
 * attributes of can-dev devices (the VM's SJA1000 cards) with valid,
 * boundary and malformed payloads.
 */

#include <errno.h>
#include <net/if.h>
#include <string.h>

#include <linux/can.h>
#include <linux/can/netlink.h>
#include <linux/can/vxcan.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fuzz.h"

static const char *link_kind(struct fz_draw *d)
{
	static const char *const kinds[] = {
		"vcan", "vcan", "vcan", "vcan", "vcan", "vcan", "vxcan", "can", "",
	};

	return kinds[fz_below(d, FZ_ARRAY_SIZE(kinds))];
}

/* VXCAN_INFO_PEER: the other end's name, sometimes a namespace or an MTU,
 * sometimes an ifinfomsg cut short.
 */
static void vxcan_peer(struct fz_ctx *c, struct fz_draw *d, struct fz_nlmsg *m)
{
	const char *name = fz_vcan_name(d);
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	size_t data, peer;
	int v;

	data = fz_nl_put(m, IFLA_INFO_DATA, NULL, 0);
	if (fz_chance(d, 10))
		ifi.ifi_index = (int)fz_int(d);
	peer = fz_nl_put(m, VXCAN_INFO_PEER, &ifi,
			 fz_chance(d, 10) ? fz_len(d, sizeof(ifi)) : sizeof(ifi));
	if (!fz_chance(d, 6))
		fz_nl_put(m, IFLA_IFNAME, name, strlen(name) + 1);
	if (fz_chance(d, 3)) {
		v = fz_fd_get(c, d, FZ_NETNS);
		fz_nl_put(m, IFLA_NET_NS_FD, &v, sizeof(v));
	}
	if (fz_chance(d, 4)) {
		v = (int)fz_int(d);
		fz_nl_put(m, IFLA_MTU, &v, sizeof(v));
	}
	fz_nl_end(m, peer);
	fz_nl_end(m, data);
}

static long link_add(struct fz_ctx *c, struct fz_draw *d)
{
	const char *name = fz_vcan_name(d);
	const char *kind = link_kind(d);
	struct fz_nlmsg m;
	size_t li;
	int mtu;

	fz_nl_init(&m, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	fz_nl_put(&m, IFLA_IFNAME, name, strlen(name) + 1);
	if (fz_chance(d, 4)) {
		mtu = (int)fz_int(d);
		fz_nl_put(&m, IFLA_MTU, &mtu, sizeof(mtu));
	}
	li = fz_nl_put(&m, IFLA_LINKINFO, NULL, 0);
	fz_nl_put(&m, IFLA_INFO_KIND, kind, strlen(kind));
	if (!strcmp(kind, "vxcan") && !fz_chance(d, 4))
		vxcan_peer(c, d, &m);
	fz_nl_end(&m, li);
	fz_trace(c, "RTM_NEWLINK %s type %s", name, kind);
	if (fz_ret(c, "link add", fz_nl_talk(&m)) || fz_chance(d, 3))
		return 0;
	/* Mostly up at once: frames flow only on a device that is up. */
	return fz_ret(c, "link up", fz_link_up(fz_name_to_index(name)));
}

static long link_del(struct fz_ctx *c, struct fz_draw *d)
{
	const char *name = fz_chance(d, 8) ? fz_dev_name(d) : fz_vcan_name(d);
	struct fz_nlmsg m;

	/* The SJA1000 cards cannot be deleted, only tried. */
	fz_nl_init(&m, RTM_DELLINK, 0, 0);
	fz_nl_put(&m, IFLA_IFNAME, name, strlen(name) + 1);
	fz_trace(c, "RTM_DELLINK %s", name);
	return fz_ret(c, "link del", fz_nl_talk(&m));
}

/* Up, down, MTU, queue length and netns of any of our devices. */
/* An MTU next to one a CAN device may have, or any int. */
static int link_mtu(struct fz_draw *d)
{
	static const int mtus[] = { CAN_MTU, CANFD_MTU, CANXL_MIN_MTU, CANXL_MAX_MTU };

	if (fz_chance(d, 2))
		return (int)fz_int(d);
	return mtus[fz_below(d, FZ_ARRAY_SIZE(mtus))] + (int)fz_below(d, 3) - 1;
}

static long link_set(struct fz_ctx *c, struct fz_draw *d)
{
	struct fz_nlmsg m;
	struct ifinfomsg *ifi;
	int v, ifindex = fz_ifindex(c, d);

	fz_nl_init(&m, RTM_NEWLINK, 0, ifindex);
	ifi = NLMSG_DATA((struct nlmsghdr *)m.buf);
	switch (fz_below(d, 6)) {
	case 0:
	case 1:
		ifi->ifi_change = IFF_UP;
		ifi->ifi_flags = fz_chance(d, 2) ? IFF_UP : 0;
		break;
	case 2:
	case 3:
		v = link_mtu(d);
		fz_nl_put(&m, IFLA_MTU, &v, sizeof(v));
		break;
	case 4:
		v = (int)fz_int(d);
		fz_nl_put(&m, IFLA_TXQLEN, &v, sizeof(v));
		break;
	default:
		v = fz_fd_get(c, d, FZ_NETNS);
		if (fz_chance(d, 3))
			v = c->home_netns;
		fz_nl_put(&m, IFLA_NET_NS_FD, &v, sizeof(v));
		break;
	}
	fz_trace(c, "RTM_NEWLINK ifindex %d", ifindex);
	return fz_ret(c, "link set", fz_nl_talk(&m));
}

static void can_bittiming(struct fz_draw *d, struct can_bittiming *bt)
{
	static const __u32 rates[] = { 10000, 125000, 500000, 1000000, 2000000, 8000000 };

	memset(bt, 0, sizeof(*bt));
	if (fz_chance(d, 2)) {
		bt->bitrate = fz_chance(d, 2) ? rates[fz_below(d, FZ_ARRAY_SIZE(rates))] :
			      (__u32)fz_int(d);
		if (fz_chance(d, 3))
			bt->sample_point = fz_chance(d, 2) ? 875 : (__u32)fz_int(d);
		return;
	}
	bt->bitrate = fz_chance(d, 2) ? 0 : (__u32)fz_int(d);
	bt->tq = (__u32)fz_int(d);
	bt->prop_seg = (__u32)fz_int(d);
	bt->phase_seg1 = (__u32)fz_int(d);
	bt->phase_seg2 = (__u32)fz_int(d);
	bt->sjw = (__u32)fz_int(d);
	bt->brp = (__u32)fz_int(d);
}

/* One IFLA_CAN_* attribute, mostly well-formed, sometimes of a wrong size. */
void fz_can_attr(struct fz_nlmsg *m, struct fz_draw *d)
{
	int type = fz_chance(d, 8) ? (int)fz_below(d, IFLA_CAN_MAX + 3) :
		   (int)fz_below(d, IFLA_CAN_MAX + 1);
	unsigned char raw[64];
	size_t len;

	switch (type) {
	case IFLA_CAN_BITTIMING:
	case IFLA_CAN_DATA_BITTIMING: {
		struct can_bittiming bt;

		can_bittiming(d, &bt);
		memcpy(raw, &bt, sizeof(bt));
		len = sizeof(bt);
		break;
	}
	case IFLA_CAN_CTRLMODE: {
		struct can_ctrlmode cm = {
			.mask = fz_chance(d, 2) ? fz_below(d, 0x400) : (__u32)fz_u64(d),
			.flags = fz_chance(d, 2) ? fz_below(d, 0x400) : (__u32)fz_u64(d),
		};

		memcpy(raw, &cm, sizeof(cm));
		len = sizeof(cm);
		break;
	}
	case IFLA_CAN_TDC: {
		size_t nest = fz_nl_put(m, IFLA_CAN_TDC, NULL, 0);
		int i, n = fz_below(d, 4);

		for (i = 0; i < n; i++) {
			__u32 v = (__u32)fz_int(d);

			fz_nl_put(m, 1 + fz_below(d, 9), &v, sizeof(v));
		}
		fz_nl_end(m, nest);
		return;
	}
	default: {
		__u32 v = (__u32)fz_int(d);

		memcpy(raw, &v, sizeof(v));
		len = type == IFLA_CAN_TERMINATION ? 2 : sizeof(v);
		if (type == IFLA_CAN_TERMINATION && fz_chance(d, 2))
			v = fz_chance(d, 2) ? 120 : 0;
		memcpy(raw, &v, sizeof(v));
		break;
	}
	}
	if (fz_chance(d, 8))
		len = fz_len(d, sizeof(raw));
	fz_nl_put(m, type, raw, len);
}

static long link_can_attrs(struct fz_ctx *c, struct fz_draw *d)
{
	static const char *const cards[] = { "can0", "can1", "can2", "can3" };
	const char *name = fz_chance(d, 6) ? fz_dev_name(d) :
			   cards[fz_below(d, FZ_ARRAY_SIZE(cards))];
	struct fz_nlmsg m;
	size_t li, data;
	int i, n = 1 + fz_below(d, 3);

	fz_nl_init(&m, RTM_NEWLINK, 0, 0);
	fz_nl_put(&m, IFLA_IFNAME, name, strlen(name) + 1);
	li = fz_nl_put(&m, IFLA_LINKINFO, NULL, 0);
	fz_nl_put(&m, IFLA_INFO_KIND, "can", 3);
	data = fz_nl_put(&m, IFLA_INFO_DATA, NULL, 0);
	for (i = 0; i < n; i++)
		fz_can_attr(&m, d);
	fz_nl_end(&m, data);
	fz_nl_end(&m, li);
	fz_trace(c, "RTM_NEWLINK %s with %d IFLA_CAN_* attributes", name, n);
	return fz_ret(c, "can attrs", fz_nl_talk(&m));
}

/* Read every link's attributes back: the fill functions see odd state. */
static long link_get(struct fz_ctx *c, struct fz_draw *d)
{
	struct fz_nlmsg m;
	__u32 mask = fz_chance(d, 2) ? RTEXT_FILTER_VF : (__u32)fz_u64(d);

	fz_nl_init(&m, RTM_GETLINK, fz_chance(d, 2) ? NLM_F_DUMP : 0,
		   fz_ifindex(c, d));
	fz_nl_put(&m, IFLA_EXT_MASK, &mask, sizeof(mask));
	return fz_ret(c, "getlink", fz_nl_talk(&m));
}

static const struct fz_op link_ops[] = {
	{ "link_add", link_add, 4 },
	{ "link_del", link_del, 2 },
	{ "link_set", link_set, 5 },
	{ "link_can_attrs", link_can_attrs, 4 },
	{ "link_get", link_get, 1 },
	{}
};

FZ_REGISTER(link_ops)
