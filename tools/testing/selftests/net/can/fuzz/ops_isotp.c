// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_ISOTP: sockets, every option with sane and hostile values, bind on
 * a few identifiers that sockets share (so that they talk to each other),
 * messages of boundary and random lengths. Hand-made frames for them are
 * in ops_isotp_frames.c.
 */

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/isotp.h>

#include "fuzz.h"

/* Identifiers ISO-TP sockets and injected frames pick from. */
static canid_t isotp_id(struct fz_draw *d)
{
	if (fz_chance(d, 8))
		return fz_can_id(d);
	if (fz_chance(d, 6))
		return CAN_EFF_FLAG | (0x18DA0000 + fz_below(d, 4));
	return 0x10 + fz_below(d, 4);
}

static long isotp_socket(struct fz_ctx *c, struct fz_draw *d)
{
	int type = fz_chance(d, 8) ? SOCK_RAW : SOCK_DGRAM;
	int fd = fz_ret(c, "socket(CAN_ISOTP)",
			socket(PF_CAN, type | SOCK_CLOEXEC, CAN_ISOTP));

	fz_fd_keep(c, d, FZ_ISOTP, fd);
	return fd;
}

static long isotp_bind(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_ISOTP);
	struct sockaddr_can a = { .can_family = AF_CAN };
	socklen_t len = sizeof(a);
	long ret;

	a.can_ifindex = fz_ifindex(c, d);
	a.can_addr.tp.rx_id = isotp_id(d);
	a.can_addr.tp.tx_id = isotp_id(d);
	if (fz_chance(d, 8))
		len = fz_len(d, sizeof(a) + 4);
	fz_trace(c, "isotp bind ifindex %d rx %#x tx %#x len %u", a.can_ifindex,
		 a.can_addr.tp.rx_id, a.can_addr.tp.tx_id, len);
	ret = fz_ret(c, "bind", bind(fd, (struct sockaddr *)&a, len));
	if (ret == 0)
		fz_isotp_note(c, fd, a.can_ifindex, a.can_addr.tp.rx_id);
	return ret;
}

static void isotp_draw_opts(struct fz_draw *d, struct can_isotp_options *o)
{
	fz_fill(d, o, sizeof(*o));
	if (fz_chance(d, 2))
		o->flags &= 0x1FFF;
	/* Mostly no or short frame gaps: long ones only slow the run. */
	if (fz_chance(d, 2))
		o->frame_txtime = fz_chance(d, 2) ? CAN_ISOTP_FRAME_TXTIME_ZERO :
				  fz_below(d, 1000000);
	/* Waiting for the whole message blocks for up to two seconds. */
	if (!fz_chance(d, 16))
		o->flags &= ~CAN_ISOTP_WAIT_TX_DONE;
}

static void isotp_draw_ll(struct fz_draw *d, struct can_isotp_ll_options *ll)
{
	static const __u8 dl[] = { 8, 12, 16, 20, 24, 32, 48, 64 };

	ll->mtu = fz_chance(d, 2) ? CAN_MTU : CANFD_MTU;
	ll->tx_dl = fz_chance(d, 8) ? (__u8)fz_u64(d) : dl[fz_below(d, 8)];
	ll->tx_flags = fz_chance(d, 2) ? 0 : (__u8)fz_u64(d);
}

static long isotp_setopt(struct fz_ctx *c, struct fz_draw *d)
{
	union {
		struct can_isotp_options opt;
		struct can_isotp_fc_options fc;
		struct can_isotp_ll_options ll;
		__u32 ns;
		char raw[32];
	} v;
	int fd = fz_fd_get(c, d, FZ_ISOTP);
	int name = fz_chance(d, 10) ? (int)fz_int(d) : (int)(1 + fz_below(d, 5));
	int level = fz_chance(d, 16) ? (int)fz_int(d) : SOL_CAN_ISOTP;
	socklen_t len = sizeof(v.opt);

	fz_fill(d, &v, sizeof(v));
	switch (name) {
	case CAN_ISOTP_OPTS:
		isotp_draw_opts(d, &v.opt);
		break;
	case CAN_ISOTP_RECV_FC:
		len = sizeof(v.fc);
		if (fz_chance(d, 2))
			v.fc.stmin = fz_below(d, 3);
		break;
	case CAN_ISOTP_TX_STMIN:
	case CAN_ISOTP_RX_STMIN:
		len = sizeof(v.ns);
		if (fz_chance(d, 2))
			v.ns = fz_below(d, 2000000);
		break;
	case CAN_ISOTP_LL_OPTS:
		len = sizeof(v.ll);
		isotp_draw_ll(d, &v.ll);
		break;
	}
	if (fz_chance(d, 8))
		len = fz_len(d, sizeof(v));
	fz_trace(c, "isotp setsockopt level %d name %d len %u", level, name, len);
	return fz_ret(c, "setsockopt", setsockopt(fd, level, name, &v, len));
}

static long isotp_getopt(struct fz_ctx *c, struct fz_draw *d)
{
	char buf[64];
	int fd = fz_fd_get(c, d, FZ_ISOTP);
	socklen_t len = fz_chance(d, 8) ? (socklen_t)fz_int(d) : fz_len(d, sizeof(buf));

	socklen_t room;
	long ret;

	if (len > sizeof(buf) && len < 0x80000000u)
		len = sizeof(buf);
	room = len < sizeof(buf) ? len : sizeof(buf);
	ret = fz_ret(c, "getsockopt",
		     getsockopt(fd, SOL_CAN_ISOTP, fz_below(d, 7), buf, &len));
	if (ret == 0)
		fz_leak_check(c, "getsockopt(SOL_CAN_ISOTP)", buf, len < room ? len : room);
	return ret;
}

/* Message lengths at the protocol's boundaries, and random ones. */
static size_t isotp_msg_len(struct fz_draw *d)
{
	static const size_t lens[] = {
		0, 1, 6, 7, 8, 62, 63, 64, 4095, 4096, 66000, 66001,
	};

	if (fz_chance(d, 2))
		return lens[fz_below(d, FZ_ARRAY_SIZE(lens))];
	return fz_chance(d, 2) ? fz_len(d, 200) : fz_len(d, 70000);
}

static long isotp_send(struct fz_ctx *c, struct fz_draw *d)
{
	static __thread char buf[70000];
	int fd = fz_fd_get(c, d, FZ_ISOTP);
	size_t len = isotp_msg_len(d);
	int flags = fz_chance(d, 8) ? 0 : MSG_DONTWAIT;

	fz_fill(d, buf, len < 64 ? len : 64);
	fz_trace(c, "isotp send len %zu flags %#x", len, flags);
	return fz_ret(c, "send", send(fd, buf, len, flags));
}

static const struct fz_op isotp_ops[] = {
	{ "isotp_socket", isotp_socket, 5 },
	{ "isotp_setopt", isotp_setopt, 6 },
	{ "isotp_getopt", isotp_getopt, 2 },
	{ "isotp_bind", isotp_bind, 5 },
	{ "isotp_send", isotp_send, 10 },
	{}
};

FZ_REGISTER(isotp_ops)
