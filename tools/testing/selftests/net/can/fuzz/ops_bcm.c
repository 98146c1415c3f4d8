// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_BCM: sockets, connect, and messages of random opcode, flags,
 * frame count, intervals and frames.
 */

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/bcm.h>

#include "fuzz.h"

static long bcm_socket(struct fz_ctx *c, struct fz_draw *d)
{
	int type = fz_chance(d, 8) ? SOCK_RAW : SOCK_DGRAM;
	int fd = fz_ret(c, "socket(CAN_BCM)", socket(PF_CAN, type | SOCK_CLOEXEC, CAN_BCM));

	fz_fd_keep(c, d, FZ_BCM, fd);
	return fd;
}

static long bcm_connect(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_BCM);
	struct sockaddr_can a = { .can_family = AF_CAN };
	socklen_t len = sizeof(a);

	a.can_ifindex = fz_ifindex(c, d);
	if (fz_chance(d, 8))
		len = fz_len(d, sizeof(a) + 4);
	fz_trace(c, "connect ifindex %d len %u", a.can_ifindex, len);
	return fz_ret(c, "connect", connect(fd, (struct sockaddr *)&a, len));
}

/*
 * Intervals: mostly none or a few milliseconds; rarely the boundaries
 * (a 1 us cyclic timer is legal but would starve the guest, so it stays
 * rare and is bounded by a count).
 */
static void bcm_ival(struct fz_draw *d, struct bcm_timeval *tv)
{
	switch (fz_below(d, 8)) {
	case 0:
	case 1:
		tv->tv_sec = 0;
		tv->tv_usec = 0;
		break;
	case 2:
		tv->tv_sec = fz_int(d);
		tv->tv_usec = fz_int(d);
		break;
	case 3:
		tv->tv_sec = 0;
		tv->tv_usec = 1 + fz_below(d, 999);
		break;
	default:
		tv->tv_sec = fz_chance(d, 8);
		tv->tv_usec = 1000 * (1 + fz_below(d, 200));
		break;
	}
}

static long bcm_send(struct fz_ctx *c, struct fz_draw *d)
{
	static const __u32 flag_bits[] = {
		SETTIMER, STARTTIMER, TX_COUNTEVT, TX_ANNOUNCE, TX_CP_CAN_ID,
		RX_FILTER_ID, RX_CHECK_DLC, RX_NO_AUTOTIMER, RX_ANNOUNCE_RESUME,
		TX_RESET_MULTI_IDX, RX_RTR_FRAME, CAN_FD_FRAME,
	};
	static __thread char buf[sizeof(struct bcm_msg_head) + 300 * CANFD_MTU];
	struct bcm_msg_head *h = (struct bcm_msg_head *)buf;
	struct sockaddr_can a = { .can_family = AF_CAN };
	struct msghdr msg = {};
	struct iovec iov = { .iov_base = buf };
	size_t fsize, len, i;
	__u32 nframes;
	int fd = fz_fd_get(c, d, FZ_BCM);

	memset(h, 0, sizeof(*h));
	h->opcode = fz_chance(d, 10) ? (__u32)fz_int(d) : 1 + fz_below(d, 12);
	for (i = 0; i < FZ_ARRAY_SIZE(flag_bits); i++)
		if (fz_chance(d, 3))
			h->flags |= flag_bits[i];
	if (fz_chance(d, 16))
		h->flags = (__u32)fz_u64(d);
	h->count = fz_chance(d, 2) ? fz_below(d, 5) : (__u32)fz_int(d);
	/* Unbounded cyclic sending at short intervals would only flood. */
	bcm_ival(d, &h->ival1);
	bcm_ival(d, &h->ival2);
	if (h->ival1.tv_sec == 0 && h->ival1.tv_usec > 0 && h->ival1.tv_usec < 1000 &&
	    (h->count == 0 || h->count > 64))
		h->count = 1 + fz_below(d, 64);
	if (h->ival2.tv_sec == 0 && h->ival2.tv_usec > 0 && h->ival2.tv_usec < 1000)
		h->ival2.tv_usec = 1000;
	h->can_id = fz_can_id(d);
	nframes = fz_chance(d, 3) ? fz_below(d, 4) : fz_len(d, 300);
	h->nframes = fz_chance(d, 10) ? (__u32)fz_int(d) : nframes;
	fsize = (h->flags & CAN_FD_FRAME) ? CANFD_MTU : CAN_MTU;
	if (nframes > 300)
		nframes = 300;
	for (i = 0; i < nframes; i++) {
		fz_frame(d, buf + sizeof(*h) + i * fsize, fsize);
		if (fz_chance(d, 2))
			((struct can_frame *)(buf + sizeof(*h) + i * fsize))->can_id = h->can_id;
	}
	len = sizeof(*h) + nframes * fsize;
	if (fz_chance(d, 8))
		len = fz_len(d, len + fsize);
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (fz_chance(d, 4)) {
		a.can_ifindex = fz_ifindex(c, d);
		msg.msg_name = &a;
		msg.msg_namelen = fz_chance(d, 4) ? fz_len(d, sizeof(a)) : sizeof(a);
	}
	fz_trace(c, "bcm op %u flags %#x count %u ival1 %lld.%06lld ival2 %lld.%06lld",
		 h->opcode, h->flags, h->count, (long long)h->ival1.tv_sec,
		 (long long)h->ival1.tv_usec, (long long)h->ival2.tv_sec,
		 (long long)h->ival2.tv_usec);
	fz_trace(c, "bcm id %#x nframes %u len %zu", h->can_id, h->nframes, len);
	return fz_ret(c, "sendmsg", sendmsg(fd, &msg, MSG_DONTWAIT));
}

/*
 * A well-formed message: cyclic transmission or reception of a few small
 * identifiers, or their deletion. Random messages are nearly all
 * rejected; these keep frames flowing and operations coming and going,
 * which is where receive paths meet teardown.
 */
static long bcm_setup(struct fz_ctx *c, struct fz_draw *d)
{
	static const __u32 ops[] = {
		TX_SETUP, TX_SETUP, RX_SETUP, RX_SETUP, TX_DELETE, RX_DELETE,
		TX_SEND, TX_READ, RX_READ,
	};
	struct {
		struct bcm_msg_head h;
		struct can_frame f[4];
	} m = {};
	int fd = fz_fd_get(c, d, FZ_BCM);
	__u32 i, n = 1 + fz_below(d, 4);

	m.h.opcode = ops[fz_below(d, FZ_ARRAY_SIZE(ops))];
	m.h.can_id = fz_below(d, 16);
	m.h.nframes = m.h.opcode == TX_SEND ? 1 : n;
	if (m.h.opcode == TX_SETUP || m.h.opcode == RX_SETUP) {
		m.h.flags = SETTIMER | STARTTIMER;
		m.h.ival2.tv_usec = 1000 * (1 + fz_below(d, 20));
		if (m.h.opcode == RX_SETUP && fz_chance(d, 2)) {
			m.h.flags |= RX_FILTER_ID;
			m.h.nframes = 0;
		}
		if (fz_chance(d, 4))
			m.h.flags |= fz_chance(d, 2) ? TX_ANNOUNCE : RX_CHECK_DLC;
	}
	for (i = 0; i < m.h.nframes; i++) {
		m.f[i].can_id = m.h.opcode == RX_SETUP ? fz_can_id(d) : m.h.can_id;
		m.f[i].len = fz_below(d, 9);
		fz_fill(d, m.f[i].data, sizeof(m.f[i].data));
	}
	fz_trace(c, "bcm setup op %u flags %#x id %#x nframes %u", m.h.opcode, m.h.flags,
		 m.h.can_id, m.h.nframes);
	return fz_ret(c, "write", write(fd, &m, sizeof(m.h) + m.h.nframes * sizeof(m.f[0])));
}

static const struct fz_op bcm_ops[] = {
	{ "bcm_socket", bcm_socket, 5 },
	{ "bcm_connect", bcm_connect, 5 },
	{ "bcm_send", bcm_send, 12 },
	{ "bcm_setup", bcm_setup, 8 },
	{}
};

FZ_REGISTER(bcm_ops)
