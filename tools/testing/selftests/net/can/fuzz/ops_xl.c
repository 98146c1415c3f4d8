// SPDX-License-Identifier: GPL-2.0
/*
 * CAN XL through CAN_RAW: frames with hostile headers (a length that
 * disagrees with the write, flags without XLF, any SDT and acceptance
 * field, priorities past 11 bits) from sockets that turn
 * CAN_RAW_XL_FRAMES (and FD frames) on and off, while the MTU of the
 * device they use moves between classic, FD, the XL minimum and
 * CANXL_MTU; over vcan, over a vxcan pair fzx0/fzx1 made for it, and
 * into can-gw routes that must leave XL frames alone.
 */

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/gw.h>
#include <linux/can/raw.h>
#include <linux/can/vxcan.h>
#include <linux/rtnetlink.h>

#include "fuzz.h"

#ifndef CAN_RAW_XL_FRAMES
#define CAN_RAW_XL_FRAMES	7
#endif

/* The vxcan pair of this file; fz_cleanup_devices() deletes it. */
#define XL_VX0	"fzx0"
#define XL_VX1	"fzx1"

static const char *xl_dev(struct fz_draw *d)
{
	static const char *const devs[] = { "vcan0", "vcan0", XL_VX0, XL_VX1, "fzv0", "fzv1" };

	return devs[fz_below(d, FZ_ARRAY_SIZE(devs))];
}

static int xl_mtu(struct fz_draw *d)
{
	static const int mtus[] = {
		CAN_MTU, CANFD_MTU, CANXL_MTU, CANXL_MTU, CANXL_MIN_MTU, CANXL_MTU + 1,
		CANXL_MIN_MTU - 1, CANXL_HDR_SIZE, 0,
	};

	return mtus[fz_below(d, FZ_ARRAY_SIZE(mtus))];
}

static int xl_set_link(int ifindex, int up, int mtu)
{
	struct fz_nlmsg m;
	struct ifinfomsg *ifi;

	fz_nl_init(&m, RTM_NEWLINK, 0, ifindex);
	ifi = NLMSG_DATA(&m.nh);
	if (up >= 0) {
		ifi->ifi_change = IFF_UP;
		ifi->ifi_flags = up ? IFF_UP : 0;
	}
	if (mtu >= 0)
		fz_nl_put(&m, IFLA_MTU, &mtu, sizeof(mtu));
	return fz_nl_talk(&m);
}

/* Raw socket with FD and XL frames drawn on or off, bound to @ifindex. */
static int xl_socket(struct fz_ctx *c, struct fz_draw *d, int ifindex)
{
	struct sockaddr_can a = { .can_family = AF_CAN, .can_ifindex = ifindex };
	int fd = socket(PF_CAN, SOCK_RAW | SOCK_CLOEXEC, CAN_RAW);
	int fdf = !fz_chance(d, 4), xlf = !fz_chance(d, 4);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FD_FRAMES, &fdf, sizeof(fdf));
	setsockopt(fd, SOL_CAN_RAW, CAN_RAW_XL_FRAMES, &xlf, sizeof(xlf));
	fz_trace(c, "raw socket fd %d fd-frames %d xl-frames %d ifindex %d", fd, fdf, xlf,
		 ifindex);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -errno;
	}
	return fd;
}

static __thread union {
	struct canxl_frame xl;
	char raw[CANXL_MTU + 64];
} xbuf;

/* An XL frame in xbuf; returns the number of bytes to write. */
static size_t xl_frame(struct fz_ctx *c, struct fz_draw *d)
{
	struct canxl_frame *xl = &xbuf.xl;
	size_t len = fz_chance(d, 3) ? fz_below(d, 65) : 1 + fz_below(d, CANXL_MAX_DLEN);
	size_t wlen;

	if (fz_chance(d, 6))
		len = fz_chance(d, 2) ? CANXL_MAX_DLEN : 1;
	fz_fill(d, xbuf.raw, CANXL_HDR_SIZE + len);
	xl->prio = fz_chance(d, 4) ? (__u32)fz_int(d) : fz_below(d, 0x800);
	if (fz_chance(d, 8))
		xl->prio |= CAN_EFF_FLAG;
	xl->flags = fz_chance(d, 4) ? (__u8)fz_u64(d) :
		    CANXL_XLF | (fz_chance(d, 2) ? CANXL_SEC : 0);
	xl->sdt = (__u8)fz_u64(d);
	xl->af = fz_chance(d, 2) ? 0 : (__u32)fz_u64(d);
	xl->len = len;
	if (fz_chance(d, 6))
		xl->len = fz_chance(d, 2) ? (__u16)fz_int(d) : len + fz_below(d, 3) - 1;
	wlen = CANXL_HDR_SIZE + len;
	switch (fz_below(d, 8)) {
	case 0:
		wlen = CANXL_MTU;
		break;
	case 1:
		wlen = fz_chance(d, 2) ? CAN_MTU : CANFD_MTU;
		break;
	case 2:
		wlen = fz_len(d, CANXL_MTU + 1);
		break;
	default:
		break;
	}
	fz_trace(c, "xl prio %#x flags %#x sdt %#x af %#x len %u, write %zu", xl->prio,
		 xl->flags, xl->sdt, xl->af, xl->len, wlen);
	return wlen;
}

/* XL frames on a device while another socket reads what arrives. */
static long xl_send(struct fz_ctx *c, struct fz_draw *d)
{
	static __thread char rbuf[CANXL_MTU + 16];
	const char *dev = xl_dev(d);
	int ifindex = fz_chance(d, 16) ? 0 : fz_name_to_index(dev);
	int tx = xl_socket(c, d, ifindex), rx = -1;
	int i, n = 1 + fz_below(d, 4);
	long ret = 0, r;

	if (tx < 0)
		return tx;
	if (fz_chance(d, 2))
		rx = xl_socket(c, d, fz_chance(d, 2) ? ifindex : 0);
	for (i = 0; i < n; i++) {
		size_t wlen = xl_frame(c, d);

		ret = fz_ret(c, "write", write(tx, xbuf.raw, wlen));
		if (fz_chance(d, 4)) {
			/* XL frames switched off mid-stream, or on. */
			int v = fz_chance(d, 2);

			fz_ret(c, "CAN_RAW_XL_FRAMES",
			       setsockopt(fz_chance(d, 2) || rx < 0 ? tx : rx, SOL_CAN_RAW,
					  CAN_RAW_XL_FRAMES, &v, sizeof(v)));
		}
	}
	if (rx >= 0) {
		for (i = 0; i < n; i++) {
			memset(rbuf, FZ_POISON ^ 1, sizeof(rbuf));
			r = recv(rx, rbuf, fz_chance(d, 4) ? fz_len(d, sizeof(rbuf)) :
				 sizeof(rbuf), MSG_DONTWAIT);
			if (r <= 0)
				break;
			fz_leak_check(c, "recv(CAN_RAW XL)", rbuf, r);
		}
		close(rx);
	}
	/* Left open sometimes: the MTU may change under it. */
	if (fz_chance(d, 3))
		fz_fd_keep(c, d, FZ_RAW, tx);
	else
		close(tx);
	return ret;
}

/* MTU changes of a device, up (refused) or down then up. */
static long xl_link_mtu(struct fz_ctx *c, struct fz_draw *d)
{
	const char *dev = xl_dev(d);
	int ifindex = fz_name_to_index(dev), mtu = xl_mtu(d);

	fz_trace(c, "%s (%d) mtu %d", dev, ifindex, mtu);
	if (ifindex <= 0)
		return -ENODEV;
	if (fz_chance(d, 4))
		return fz_ret(c, "mtu while up", xl_set_link(ifindex, -1, mtu));
	fz_ret(c, "down", xl_set_link(ifindex, 0, -1));
	fz_ret(c, "mtu", xl_set_link(ifindex, -1, mtu));
	if (fz_chance(d, 8))
		return 0;
	return fz_ret(c, "up", xl_set_link(ifindex, 1, -1));
}

/* The vxcan pair for XL frames, both ends up with an MTU drawn for each. */
static long xl_vxcan_add(struct fz_ctx *c, struct fz_draw *d)
{
	struct ifinfomsg peer_ifi = { .ifi_family = AF_UNSPEC };
	int mtu0 = fz_chance(d, 2) ? (int)CANXL_MTU : xl_mtu(d);
	int mtu1 = fz_chance(d, 2) ? mtu0 : xl_mtu(d);
	struct fz_nlmsg m;
	size_t li, data, peer;
	long ret;

	fz_nl_init(&m, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	fz_nl_put(&m, IFLA_IFNAME, XL_VX0, sizeof(XL_VX0));
	fz_nl_put(&m, IFLA_MTU, &mtu0, sizeof(mtu0));
	li = fz_nl_put(&m, IFLA_LINKINFO, NULL, 0);
	fz_nl_put(&m, IFLA_INFO_KIND, "vxcan", 5);
	data = fz_nl_put(&m, IFLA_INFO_DATA, NULL, 0);
	peer = fz_nl_put(&m, VXCAN_INFO_PEER, &peer_ifi, sizeof(peer_ifi));
	fz_nl_put(&m, IFLA_IFNAME, XL_VX1, sizeof(XL_VX1));
	fz_nl_put(&m, IFLA_MTU, &mtu1, sizeof(mtu1));
	fz_nl_end(&m, peer);
	fz_nl_end(&m, data);
	fz_nl_end(&m, li);
	fz_trace(c, "vxcan %s mtu %d, peer %s mtu %d", XL_VX0, mtu0, XL_VX1, mtu1);
	ret = fz_ret(c, "vxcan add", fz_nl_talk(&m));
	if (ret && ret != -EEXIST)
		return ret;
	fz_ret(c, "up 0", xl_set_link(fz_name_to_index(XL_VX0), 1, -1));
	return fz_ret(c, "up 1", xl_set_link(fz_name_to_index(XL_VX1), 1, -1));
}

static long xl_vxcan_del(struct fz_ctx *c, struct fz_draw *d)
{
	const char *name = fz_chance(d, 2) ? XL_VX0 : XL_VX1;
	struct fz_nlmsg m;

	fz_nl_init(&m, RTM_DELLINK, 0, 0);
	fz_nl_put(&m, IFLA_IFNAME, name, strlen(name) + 1);
	return fz_ret(c, "vxcan del", fz_nl_talk(&m));
}

/* A can-gw route from one XL-capable device to another, then XL frames into it. */
static long xl_gw(struct fz_ctx *c, struct fz_draw *d)
{
	struct rtcanmsg r = { .can_family = AF_CAN, .gwtype = CGW_TYPE_CAN_CAN };
	__u32 src = fz_name_to_index(xl_dev(d)), dst = fz_name_to_index(xl_dev(d));
	struct fz_nlmsg m;
	__u8 hops = 1 + fz_below(d, 3);
	long ret;

	if (fz_chance(d, 2))
		r.flags = CGW_FLAGS_CAN_ECHO;
	if (fz_chance(d, 2))
		r.flags |= CGW_FLAGS_CAN_FD;
	if (fz_chance(d, 8))
		r.flags = (__u16)fz_u64(d);
	fz_nl_init(&m, RTM_NEWROUTE, 0, 0);
	memcpy(NLMSG_DATA(&m.nh), &r, sizeof(r));
	m.len = NLMSG_LENGTH(sizeof(r));
	fz_nl_put(&m, CGW_SRC_IF, &src, sizeof(src));
	fz_nl_put(&m, CGW_DST_IF, &dst, sizeof(dst));
	if (fz_chance(d, 2))
		fz_nl_put(&m, CGW_LIM_HOPS, &hops, sizeof(hops));
	fz_trace(c, "gw %u -> %u flags %#x", src, dst, r.flags);
	ret = fz_ret(c, "gw add", fz_nl_talk(&m));
	xl_send(c, d);
	if (!ret && !fz_chance(d, 4)) {
		fz_nl_init(&m, RTM_DELROUTE, 0, 0);
		memcpy(NLMSG_DATA(&m.nh), &r, sizeof(r));
		m.len = NLMSG_LENGTH(sizeof(r));
		fz_nl_put(&m, CGW_SRC_IF, &src, sizeof(src));
		fz_nl_put(&m, CGW_DST_IF, &dst, sizeof(dst));
		if (fz_chance(d, 2))
			fz_nl_put(&m, CGW_LIM_HOPS, &hops, sizeof(hops));
		fz_ret(c, "gw del", fz_nl_talk(&m));
	}
	return ret;
}

/* Many writes of every kind of frame while another op moves the MTU. */
static long xl_burst(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_RAW);
	int i, n = 4 + fz_below(d, 28);
	long ret = 0;

	for (i = 0; i < n; i++) {
		size_t wlen;

		switch (fz_below(d, 3)) {
		case 0:
			wlen = xl_frame(c, d);
			break;
		case 1:
			fz_frame(d, xbuf.raw, CANFD_MTU);
			wlen = CANFD_MTU;
			break;
		default:
			fz_frame(d, xbuf.raw, CAN_MTU);
			wlen = CAN_MTU;
			break;
		}
		ret = write(fd, xbuf.raw, wlen);
		if (ret < 0 && errno != ENOBUFS && errno != EAGAIN)
			break;
	}
	return fz_ret(c, "burst", ret);
}

static const struct fz_op xl_ops[] = {
	{ "xl_send", xl_send, 8 },
	{ "xl_link_mtu", xl_link_mtu, 3 },
	{ "xl_vxcan_add", xl_vxcan_add, 2 },
	{ "xl_vxcan_del", xl_vxcan_del, 1 },
	{ "xl_gw", xl_gw, 2 },
	{ "xl_burst", xl_burst, 3 },
	{}
};

FZ_REGISTER(xl_ops)
