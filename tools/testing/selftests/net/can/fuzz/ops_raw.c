// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_RAW: socket, bind, connect, its socket options, sendmsg of frames
 * of every size to every address.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/raw.h>

#include "fuzz.h"

#ifndef CAN_RAW_XL_FRAMES
#define CAN_RAW_XL_FRAMES	7
#endif

static long raw_socket(struct fz_ctx *c, struct fz_draw *d)
{
	static const int types[] = { SOCK_RAW, SOCK_RAW, SOCK_DGRAM, SOCK_STREAM, 0 };
	int type = types[fz_below(d, FZ_ARRAY_SIZE(types))];
	int proto = fz_chance(d, 8) ? (int)fz_int(d) : CAN_RAW;
	int fd = fz_ret(c, "socket(CAN_RAW)", socket(PF_CAN, type | SOCK_CLOEXEC, proto));

	fz_fd_keep(c, d, FZ_RAW, fd);
	return fd;
}

/* A sockaddr_can of a random length, family and interface. */
static socklen_t raw_addr(struct fz_ctx *c, struct fz_draw *d,
			  struct sockaddr_can *a, size_t room)
{
	socklen_t len;

	memset(a, 0, room);
	a->can_family = fz_chance(d, 16) ? (__u16)fz_int(d) : AF_CAN;
	a->can_ifindex = fz_ifindex(c, d);
	if (fz_chance(d, 4))
		fz_fill(d, &a->can_addr, sizeof(a->can_addr));
	len = fz_chance(d, 2) ? sizeof(*a) : fz_len(d, room);
	fz_trace(c, "sockaddr_can{family %u, ifindex %d}, len %u", a->can_family,
		 a->can_ifindex, len);
	return len;
}

static long raw_bind(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_RAW);
	char buf[64];
	socklen_t len = raw_addr(c, d, (struct sockaddr_can *)buf, sizeof(buf));

	return fz_ret(c, "bind", bind(fd, (struct sockaddr *)buf, len));
}

static long raw_connect(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, fz_chance(d, 2) ? FZ_RAW : FZ_BCM);
	char buf[64];
	socklen_t len = raw_addr(c, d, (struct sockaddr_can *)buf, sizeof(buf));

	return fz_ret(c, "connect", connect(fd, (struct sockaddr *)buf, len));
}

static const int raw_opts[] = {
	CAN_RAW_FILTER, CAN_RAW_ERR_FILTER, CAN_RAW_LOOPBACK,
	CAN_RAW_RECV_OWN_MSGS, CAN_RAW_FD_FRAMES, CAN_RAW_JOIN_FILTERS,
	CAN_RAW_XL_FRAMES, CAN_RAW_BUS_STATE, CAN_RAW_STATE_EVENTS,
	CAN_RAW_TX_WAIT, CAN_RAW_TX_REPORT, CAN_RAW_TX_DEADLINE,
	CAN_RAW_TX_FLUSH_BUS_OFF, CAN_RAW_TX_REPORTS_LOST,
};

static long raw_setsockopt(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_RAW);
	int opt = fz_chance(d, 10) ? (int)fz_int(d) :
		  raw_opts[fz_below(d, FZ_ARRAY_SIZE(raw_opts))];
	int level = fz_chance(d, 16) ? (int)fz_int(d) : SOL_CAN_RAW;
	struct can_filter *flt;
	size_t n, i, len;
	long ret;

	if (opt == CAN_RAW_FILTER) {
		n = fz_chance(d, 4) ? fz_len(d, 600) : fz_below(d, 8);
		flt = calloc(n + 1, sizeof(*flt));
		if (!flt)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			flt[i].can_id = fz_can_id(d);
			flt[i].can_mask = fz_chance(d, 2) ? fz_can_id(d) :
					  (__u32)fz_u64(d);
			if (fz_chance(d, 4))
				flt[i].can_id |= CAN_INV_FILTER;
		}
		len = n * sizeof(*flt);
		if (fz_chance(d, 8))
			len = fz_len(d, (n + 1) * sizeof(*flt));
		fz_trace(c, "CAN_RAW_FILTER %zu filters, optlen %zu", n, len);
		ret = setsockopt(fd, level, opt, len ? flt : NULL, len);
		free(flt);
		return fz_ret(c, "setsockopt", ret);
	}
	if (opt == CAN_RAW_TX_DEADLINE && fz_chance(d, 2)) {
		/* A deadline that strikes: up to 50 ms, sometimes none. */
		__u32 us = fz_chance(d, 8) ? 0 : fz_below(d, 50000);

		fz_trace(c, "CAN_RAW_TX_DEADLINE %u us", us);
		return fz_ret(c, "setsockopt",
			      setsockopt(fd, level, opt, &us, sizeof(us)));
	}
	{
		__s64 v[2] = { fz_int(d), fz_int(d) };

		len = fz_chance(d, 2) ? sizeof(int) : fz_len(d, sizeof(v));
		fz_trace(c, "setsockopt level %d opt %d val %lld len %zu", level, opt,
			 (long long)v[0], len);
		return fz_ret(c, "setsockopt", setsockopt(fd, level, opt, v, len));
	}
}

static long raw_getsockopt(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_RAW);
	int opt = fz_chance(d, 10) ? (int)fz_int(d) :
		  raw_opts[fz_below(d, FZ_ARRAY_SIZE(raw_opts))];
	static __thread char buf[8192];
	socklen_t len = fz_chance(d, 3) ? sizeof(buf) : fz_len(d, sizeof(buf));

	long ret;

	if (fz_chance(d, 8))
		return fz_ret(c, "getsockopt(NULL len)",
			      getsockopt(fd, SOL_CAN_RAW, opt, buf, NULL));
	ret = fz_ret(c, "getsockopt", getsockopt(fd, SOL_CAN_RAW, opt, buf, &len));
	if (ret == 0)
		fz_leak_check(c, "getsockopt(SOL_CAN_RAW)", buf,
			      len < sizeof(buf) ? len : sizeof(buf));
	return ret;
}

/* Per thread: workers of one process run ops at the same time. */
static __thread char frame[CANXL_MTU + 8];

/* sendmsg of a frame of a boundary size, to the bound or a given device. */
static long raw_send(struct fz_ctx *c, struct fz_draw *d)
{
	static const size_t sizes[] = { CAN_MTU, CANFD_MTU, CANXL_MIN_MTU, CANXL_MTU };
	int fd = fz_fd_get(c, d, FZ_RAW);
	char addr[32];
	struct iovec iov = { .iov_base = frame };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int flags = MSG_DONTWAIT;

	iov.iov_len = fz_chance(d, 2) ? sizes[fz_below(d, FZ_ARRAY_SIZE(sizes))] :
		      fz_len(d, sizeof(frame));
	fz_frame(d, frame, iov.iov_len);
	if (fz_chance(d, 2)) {
		msg.msg_name = addr;
		msg.msg_namelen = raw_addr(c, d, (struct sockaddr_can *)addr,
					   sizeof(addr));
	}
	if (fz_chance(d, 8))
		flags = (int)fz_u64(d) & ~(MSG_OOB | MSG_WAITALL);
	if (fz_chance(d, 10))
		iov.iov_len = (size_t)fz_int(d) & 0xffffff;
	if (iov.iov_len > sizeof(frame))
		iov.iov_len = sizeof(frame);
	fz_trace(c, "sendmsg len %zu flags %#x", iov.iov_len, flags);
	return fz_ret(c, "sendmsg", sendmsg(fd, &msg, flags | MSG_DONTWAIT));
}

static long raw_write(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_RAW);
	char frame[CANFD_MTU];

	fz_frame(d, frame, sizeof(frame));
	return fz_ret(c, "write", write(fd, frame, fz_chance(d, 2) ? CAN_MTU : CANFD_MTU));
}

/*
 * CAN_RAW_TX_REPORT and its companions on, then a burst of frames that
 * may fill the queue, meet the deadline or a bus-off, then some of the
 * reports read back (the rest stay queued for close() to find).
 */
static long raw_tx_report_burst(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_RAW);
	__u32 deadline = fz_chance(d, 2) ? fz_below(d, 30000) : 0;
	int on = 1, flush = fz_chance(d, 2), n = 1 + fz_below(d, 24), i;
	long ret = 0;

	fz_trace(c, "tx report burst: %d frames, deadline %u us, flush %d", n,
		 deadline, flush);
	if (!fz_chance(d, 8))
		fz_ret(c, "setsockopt(CAN_RAW_TX_REPORT)",
		       setsockopt(fd, SOL_CAN_RAW, CAN_RAW_TX_REPORT, &on, sizeof(on)));
	fz_ret(c, "setsockopt(CAN_RAW_TX_DEADLINE)",
	       setsockopt(fd, SOL_CAN_RAW, CAN_RAW_TX_DEADLINE, &deadline,
			  sizeof(deadline)));
	fz_ret(c, "setsockopt(CAN_RAW_TX_FLUSH_BUS_OFF)",
	       setsockopt(fd, SOL_CAN_RAW, CAN_RAW_TX_FLUSH_BUS_OFF, &flush,
			  sizeof(flush)));
	for (i = 0; i < n; i++) {
		fz_frame(d, frame, CAN_MTU);
		ret = fz_ret(c, "send", send(fd, frame, fz_chance(d, 4) ? CANFD_MTU : CAN_MTU,
					     MSG_DONTWAIT));
	}
	return ret;
}

/* recvmsg(MSG_ERRQUEUE) with a control buffer of any size, sometimes
 * too small for the report, and a data buffer cut short: what comes
 * back must hold no kernel memory.
 */
static long raw_errqueue(struct fz_ctx *c, struct fz_draw *d)
{
	static __thread char data[CANFD_MTU + 16], ctrl[256];
	int fd = fz_fd_get(c, d, FZ_RAW);
	struct iovec iov = {
		.iov_base = data,
		.iov_len = fz_chance(d, 2) ? sizeof(data) : fz_len(d, sizeof(data)),
	};
	size_t room = fz_chance(d, 2) ? sizeof(ctrl) : fz_len(d, sizeof(ctrl));
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int i, n = 1 + fz_below(d, 16);
	long ret = 0;

	for (i = 0; i < n; i++) {
		/* The kernel skips the padding between control messages. */
		memset(ctrl, 0, sizeof(ctrl));
		msg.msg_control = ctrl;
		msg.msg_controllen = room;
		msg.msg_flags = 0;
		ret = fz_ret(c, "recvmsg(MSG_ERRQUEUE)",
			     recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT));
		fz_leak_check_msg(c, "recvmsg(MSG_ERRQUEUE)", &msg, 0, ret);
		if (ret < 0)
			break;
	}
	return ret;
}

static const struct fz_op raw_ops[] = {
	{ "raw_socket", raw_socket, 6 },
	{ "raw_bind", raw_bind, 6 },
	{ "raw_connect", raw_connect, 1 },
	{ "raw_setsockopt", raw_setsockopt, 8 },
	{ "raw_getsockopt", raw_getsockopt, 3 },
	{ "raw_send", raw_send, 12 },
	{ "raw_write", raw_write, 3 },
	{ "raw_tx_report_burst", raw_tx_report_burst, 3 },
	{ "raw_errqueue", raw_errqueue, 3 },
	{}
};

FZ_REGISTER(raw_ops)
