// SPDX-License-Identifier: GPL-2.0
/*
 * ISO-TP frames on the wire: every PCI (single frame, escaped single
 * frame, first frame, escaped first frame, consecutive frame, flow
 * control, an invalid PCI) in classic, FD and CAN XL frames, sent from
 * CAN_RAW sockets with FD and XL frames on, over vcans of every MTU, at
 * the identifiers this process's ISO-TP sockets listen on. XL frames of
 * 16 and 72 bytes are as long as classic and FD frames: a receiver that
 * checks only the length takes their header for a CAN identifier and a
 * length, so the PCI is drawn there too (the acceptance field sits
 * where classic and FD frames keep their data).
 */

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/isotp.h>
#include <linux/can/raw.h>
#include <linux/rtnetlink.h>

#include "fuzz.h"

#ifndef CAN_RAW_XL_FRAMES
#define CAN_RAW_XL_FRAMES	7
#endif

/* The devices ISO-TP sockets are bound to here: the guest's and ours. */
static const char *frames_dev(struct fz_draw *d)
{
	return fz_chance(d, 2) ? "vcan0" : fz_vcan_name(d);
}

/* Identifiers the sockets listen on: few, so that frames find them. */
static __u32 frames_id(struct fz_draw *d)
{
	if (fz_chance(d, 8))
		return CAN_EFF_FLAG | (0x18DA0000 + fz_below(d, 2));
	return 0x10 + fz_below(d, 4);
}

/* Down, MTU, up: vcan takes a new MTU only while it is down. */
static int frames_set_link(int ifindex, bool up, int mtu)
{
	struct fz_nlmsg m;
	struct ifinfomsg *ifi;

	fz_nl_init(&m, RTM_NEWLINK, 0, ifindex);
	ifi = NLMSG_DATA(&m.nh);
	ifi->ifi_change = IFF_UP;
	ifi->ifi_flags = up ? IFF_UP : 0;
	if (mtu)
		fz_nl_put(&m, IFLA_MTU, &mtu, sizeof(mtu));
	return fz_nl_talk(&m);
}

static long isotp_link_mtu(struct fz_ctx *c, struct fz_draw *d)
{
	static const int mtus[] = {
		CAN_MTU, CANFD_MTU, CANXL_MTU, CANXL_MTU, CANXL_MIN_MTU,
	};
	const char *name = frames_dev(d);
	int ifindex = fz_name_to_index(name);
	int mtu = mtus[fz_below(d, FZ_ARRAY_SIZE(mtus))];

	fz_trace(c, "%s (%d) down, mtu %d, up", name, ifindex, mtu);
	if (ifindex <= 0)
		return -ENODEV;
	fz_ret(c, "link down", frames_set_link(ifindex, false, 0));
	fz_ret(c, "link mtu", frames_set_link(ifindex, false, mtu));
	return fz_ret(c, "link up", frames_set_link(ifindex, true, 0));
}

/* A new ISO-TP socket, classic or FD, bound where isotp_wire sends. */
static long isotp_listen(struct fz_ctx *c, struct fz_draw *d)
{
	struct can_isotp_ll_options ll = { .mtu = CAN_MTU, .tx_dl = CAN_MAX_DLEN };
	struct can_isotp_options o = { .txpad_content = 0xCC, .rxpad_content = 0xCC };
	struct sockaddr_can a = { .can_family = AF_CAN };
	int fd = fz_ret(c, "socket(CAN_ISOTP)",
			socket(PF_CAN, SOCK_DGRAM | SOCK_CLOEXEC, CAN_ISOTP));
	long ret;

	if (fd < 0)
		return fd;
	if (fz_chance(d, 2)) {
		ll.mtu = CANFD_MTU;
		ll.tx_dl = fz_chance(d, 2) ? CANFD_MAX_DLEN : 8 + 4 * fz_below(d, 4);
		fz_ret(c, "CAN_ISOTP_LL_OPTS",
		       setsockopt(fd, SOL_CAN_ISOTP, CAN_ISOTP_LL_OPTS, &ll, sizeof(ll)));
	}
	if (fz_chance(d, 3)) {
		/* Extended addressing, padding and its checks, listen mode. */
		o.flags = fz_below(d, 0x40) | (fz_chance(d, 4) ? CAN_ISOTP_LISTEN_MODE : 0);
		o.ext_address = fz_below(d, 4);
		o.rx_ext_address = o.ext_address;
		fz_ret(c, "CAN_ISOTP_OPTS",
		       setsockopt(fd, SOL_CAN_ISOTP, CAN_ISOTP_OPTS, &o, sizeof(o)));
	}
	a.can_ifindex = fz_name_to_index(frames_dev(d));
	a.can_addr.tp.rx_id = frames_id(d);
	a.can_addr.tp.tx_id = frames_id(d);
	fz_trace(c, "isotp mtu %u flags %#x bind ifindex %d rx %#x tx %#x", ll.mtu, o.flags,
		 a.can_ifindex, a.can_addr.tp.rx_id, a.can_addr.tp.tx_id);
	ret = fz_ret(c, "bind", bind(fd, (struct sockaddr *)&a, sizeof(a)));
	if (ret) {
		close(fd);
		return ret;
	}
	fz_fd_keep(c, d, FZ_ISOTP, fd);
	fz_isotp_note(c, fd, a.can_ifindex, a.can_addr.tp.rx_id);
	return fd;
}

/* A length an escaped single frame or a first frame may announce. */
static __u32 frames_msg_len(struct fz_draw *d)
{
	static const __u32 lens[] = {
		0, 1, 6, 7, 8, 62, 63, 64, 126, 127, 128, 253, 254, 255, 4095, 4096,
		0xffffffff,
	};

	if (fz_chance(d, 2))
		return lens[fz_below(d, FZ_ARRAY_SIZE(lens))];
	return fz_chance(d, 2) ? fz_below(d, 256) : (__u32)fz_u64(d);
}

/*
 * The protocol control information, from @p on (at least 6 bytes of
 * room): the kind of frame in the high nibble of the first byte.
 */
static const char *frames_pci(struct fz_draw *d, unsigned char *p)
{
	__u32 len = frames_msg_len(d);

	switch (fz_below(d, 7)) {
	case 0:
		p[0] = fz_chance(d, 4) ? fz_below(d, 16) : 1 + fz_below(d, 7);
		return "SF";
	case 1:
		p[0] = fz_chance(d, 8) ? fz_below(d, 16) : 0;
		p[1] = len;
		return "escaped SF";
	case 2:
		p[0] = 0x10 | ((len >> 8) & 0x0f);
		p[1] = len;
		return "FF";
	case 3:
		p[0] = 0x10;
		p[1] = 0;
		p[2] = len >> 24;
		p[3] = len >> 16;
		p[4] = len >> 8;
		p[5] = len;
		return "escaped FF";
	case 4:
		p[0] = 0x20 | fz_below(d, 16);
		return "CF";
	case 5:
		/* Clear to send, wait, overflow, and what is none of them. */
		p[0] = 0x30 | (fz_chance(d, 4) ? fz_below(d, 16) : fz_below(d, 3));
		p[1] = fz_chance(d, 2) ? 0 : fz_below(d, 256);
		p[2] = fz_chance(d, 2) ? fz_below(d, 0x80) : 0xf0 + fz_below(d, 16);
		return "FC";
	default:
		p[0] = (0x4 + fz_below(d, 12)) << 4 | fz_below(d, 16);
		return "invalid PCI";
	}
}

/* The frame, in @buf; its size is what goes to the socket. */
static size_t frames_build(struct fz_draw *d, __u32 id, unsigned char *buf,
			   const char **what)
{
	static const __u8 fd_lens[] = { 8, 12, 16, 20, 24, 32, 48, 64 };
	struct canfd_frame *cf = (struct canfd_frame *)buf;
	struct canxl_frame *xl = (struct canxl_frame *)buf;
	int ae = fz_chance(d, 4);
	size_t xl_len;

	switch (fz_below(d, 3)) {
	case 0:
		fz_fill(d, buf, CAN_MTU);
		cf->can_id = id;
		cf->len = fz_chance(d, 2) ? CAN_MAX_DLEN : fz_below(d, CAN_MAX_DLEN + 1);
		*what = frames_pci(d, cf->data + ae);
		return CAN_MTU;
	case 1:
		fz_fill(d, buf, CANFD_MTU);
		cf->can_id = id;
		cf->len = fz_chance(d, 4) ? fz_below(d, CANFD_MAX_DLEN + 1) :
			  fd_lens[fz_below(d, FZ_ARRAY_SIZE(fd_lens))];
		cf->flags = fz_chance(d, 2) ? CANFD_FDF | CANFD_BRS : fz_below(d, 16);
		*what = frames_pci(d, cf->data + ae);
		return CANFD_MTU;
	default:
		/* Mostly the two sizes that alias classic and FD frames. */
		switch (fz_below(d, 4)) {
		case 0:
			xl_len = CAN_MTU - CANXL_HDR_SIZE;
			break;
		case 1:
			xl_len = CANFD_MTU - CANXL_HDR_SIZE;
			break;
		case 2:
			xl_len = 1 + fz_below(d, 128);
			break;
		default:
			xl_len = 1 + fz_below(d, CANXL_MAX_DLEN);
		}
		fz_fill(d, buf, CANXL_HDR_SIZE + xl_len);
		*what = frames_pci(d, fz_chance(d, 2) ? xl->data + ae : cf->data + ae);
		xl->prio = id & CANXL_PRIO_MASK;
		xl->flags = fz_chance(d, 2) ? CANXL_XLF : CANXL_XLF | fz_below(d, 0x80);
		xl->len = xl_len;
		return CANXL_HDR_SIZE + xl_len;
	}
}

/* Per thread: workers of one process run ops at the same time. */
static __thread unsigned char frame[CANXL_MTU];
static __thread unsigned char msg[8192];

/*
 * A frame at a listening ISO-TP socket (sometimes at one nobody has
 * bound), then, half the time, a read of what that socket made of it.
 */
static long isotp_wire(struct fz_ctx *c, struct fz_draw *d)
{
	struct sockaddr_can a = { .can_family = AF_CAN };
	int isotp_fd = -1, fd, on = 1;
	bool fresh = fz_chance(d, 2);
	const char *what = "";
	char head[3 * 14 + 1];
	size_t size, i;
	__u32 id;
	long ret;

	if (!fz_isotp_target(c, d, &isotp_fd, &a.can_ifindex, &id) || fz_chance(d, 8)) {
		a.can_ifindex = fz_name_to_index(frames_dev(d));
		id = frames_id(d);
	}
	fd = fresh ? socket(PF_CAN, SOCK_RAW | SOCK_CLOEXEC, CAN_RAW) :
		     fz_fd_get(c, d, FZ_RAW);
	if (fresh)
		setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, NULL, 0);
	/* Now and then without, so that the refusals run too. */
	if (!fz_chance(d, 16))
		setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FD_FRAMES, &on, sizeof(on));
	if (!fz_chance(d, 16))
		setsockopt(fd, SOL_CAN_RAW, CAN_RAW_XL_FRAMES, &on, sizeof(on));
	size = frames_build(d, id, frame, &what);
	fz_trace(c, "%zu-byte frame, %s, id %#x, to ifindex %d", size, what, id,
		 a.can_ifindex);
	for (i = 0; i < 14; i++)
		snprintf(head + 3 * i, sizeof(head) - 3 * i, " %02x", frame[i]);
	fz_trace(c, "bytes 0-13:%s", head);
	ret = fz_ret(c, "sendto", sendto(fd, frame, size, MSG_DONTWAIT,
					 (struct sockaddr *)&a, sizeof(a)));
	if (fresh && fd >= 0)
		close(fd);
	if (isotp_fd >= 0 && fz_chance(d, 2)) {
		long n = fz_ret(c, "recv(CAN_ISOTP)", recv(isotp_fd, msg, sizeof(msg),
							   MSG_DONTWAIT));

		if (n > 0)
			fz_leak_check(c, "recv(CAN_ISOTP) after the frame", msg,
				      (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg));
	}
	return ret;
}

/* A message off any ISO-TP socket, into a buffer of any size. */
static long isotp_recv(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_ISOTP);
	size_t room = fz_chance(d, 2) ? sizeof(msg) : fz_len(d, sizeof(msg));
	int flags = MSG_DONTWAIT | (fz_chance(d, 4) ? MSG_TRUNC : 0);
	long n = fz_ret(c, "recv(CAN_ISOTP)", recv(fd, msg, room, flags));

	if (n > 0)
		fz_leak_check(c, "recv(CAN_ISOTP)", msg, (size_t)n < room ? (size_t)n : room);
	return n;
}

static const struct fz_op isotp_frame_ops[] = {
	{ "isotp_link_mtu", isotp_link_mtu, 3 },
	{ "isotp_listen", isotp_listen, 4 },
	{ "isotp_wire", isotp_wire, 12 },
	{ "isotp_recv", isotp_recv, 4 },
	{}
};

FZ_REGISTER(isotp_frame_ops)
