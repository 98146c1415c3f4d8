// SPDX-License-Identifier: GPL-2.0
/*
 * SAE J1939 (mainline's can-j1939 on our core): its sockets, bound and
 * connected to names, PGNs and addresses around every boundary (PDU1
 * and PDU2, the data pages, broadcast, idle, out of range), its socket
 * options with hostile lengths, messages of 0 to past 1785 bytes (single
 * frames, the transport protocol, the extended one) and reads of the
 * data and error queues; and raw frames put on the bus that speak the
 * transport protocols (TP.CM, TP.DT, ETP.CM, ETP.DT) to the addresses
 * the sockets here hold, mostly in order and sometimes not, so that the
 * receive side's sessions start, go on, time out and get aborted.
 *
 * The stack comes from guest.sh (insmod of the can-j1939 the build
 * made); without it every socket() fails and the ops cost nothing.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/j1939.h>
#include <linux/can/raw.h>

#include "fuzz.h"

/* The transport protocols' PGNs, control bytes and sizes. */
#define J_PGN_TP_CM	0x0ec00
#define J_PGN_TP_DT	0x0eb00
#define J_PGN_ETP_CM	0x0c800
#define J_PGN_ETP_DT	0x0c700
#define J_TP_RTS	16
#define J_TP_CTS	17
#define J_TP_EOMA	19
#define J_TP_BAM	32
#define J_ETP_RTS	20
#define J_ETP_CTS	21
#define J_ETP_DPO	22
#define J_ETP_EOMA	23
#define J_ABORT		255
#define J_TP_MAX	1785
#define J_ETP_MAX	(0xffffff * 7)

/* Local and remote addresses: few, so that frames and sockets meet. */
static __u8 j_addr(struct fz_draw *d)
{
	static const __u8 addrs[] = {
		0x80, 0x80, 0x81, 0x90, 0x90, 0x00, J1939_MAX_UNICAST_ADDR,
		J1939_IDLE_ADDR, J1939_NO_ADDR,
	};

	if (fz_chance(d, 10))
		return (__u8)fz_u64(d);
	return addrs[fz_below(d, FZ_ARRAY_SIZE(addrs))];
}

/* A PGN at a boundary: PDU1 (PS an address) or PDU2, data pages, out of range. */
static __u32 j_pgn(struct fz_draw *d)
{
	static const __u32 pgns[] = {
		0x12300, 0x1fe00, 0x0ef00, 0x0f000, 0x0efff, 0x0f001, 0x0feff,
		0x0ffff, 0x10000, 0x1ef00, 0x1f000, 0x2ef00, 0x3ef00, 0x3f000,
		J1939_PGN_PDU1_MAX, J1939_PGN_MAX, J1939_NO_PGN, J1939_NO_PGN + 1,
		J1939_PGN_REQUEST, J1939_PGN_ADDRESS_CLAIMED,
		J1939_PGN_ADDRESS_COMMANDED, J_PGN_TP_CM, J_PGN_TP_DT,
		J_PGN_ETP_CM, J_PGN_ETP_DT, 0, 0xffffffff, 0x80000000,
	};

	switch (fz_below(d, 8)) {
	case 0:
		return (__u32)fz_int(d);
	case 1:
		/* PDU1 with a destination in PS: the stack must clear it. */
		return (fz_below(d, 4) << 16) | (fz_below(d, 0xf0) << 8) | j_addr(d);
	default:
		return pgns[fz_below(d, FZ_ARRAY_SIZE(pgns))];
	}
}

static __u64 j_name(struct fz_draw *d)
{
	static const __u64 names[] = {
		J1939_NO_NAME, 1, 0x8000000000000000ULL, ~0ULL, 0x1234567890abcdefULL,
	};

	if (fz_chance(d, 4))
		return fz_u64(d);
	return names[fz_below(d, FZ_ARRAY_SIZE(names))];
}

/* The device: mostly vcan0, where the wire op sends, or one of ours. */
static int j_ifindex(struct fz_ctx *c, struct fz_draw *d)
{
	switch (fz_below(d, 8)) {
	case 0:
		return fz_ifindex(c, d);
	case 1:
	case 2:
		return fz_name_to_index(fz_vcan_name(d));
	default:
		return fz_name_to_index("vcan0");
	}
}

static socklen_t j_sockaddr(struct fz_ctx *c, struct fz_draw *d, struct sockaddr_can *a,
			    size_t room)
{
	socklen_t len;

	memset(a, 0, room);
	a->can_family = fz_chance(d, 32) ? (__u16)fz_int(d) : AF_CAN;
	a->can_ifindex = j_ifindex(c, d);
	a->can_addr.j1939.name = fz_chance(d, 2) ? J1939_NO_NAME : j_name(d);
	a->can_addr.j1939.pgn = fz_chance(d, 3) ? J1939_NO_PGN : j_pgn(d);
	a->can_addr.j1939.addr = j_addr(d);
	len = fz_chance(d, 8) ? fz_len(d, room) : sizeof(*a);
	fz_trace(c, "j1939 addr{ifindex %d name %#llx pgn %#x addr %#x} len %u",
		 a->can_ifindex, (unsigned long long)a->can_addr.j1939.name,
		 a->can_addr.j1939.pgn, a->can_addr.j1939.addr, len);
	return len;
}

static int j_open(struct fz_ctx *c)
{
	return fz_ret(c, "socket(CAN_J1939)",
		      socket(PF_CAN, SOCK_DGRAM | SOCK_CLOEXEC, CAN_J1939));
}

static long j1939_socket(struct fz_ctx *c, struct fz_draw *d)
{
	static const int types[] = { SOCK_DGRAM, SOCK_DGRAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET };
	int fd;

	if (fz_chance(d, 8))
		fd = fz_ret(c, "socket(J1939 odd)",
			    socket(PF_CAN, types[fz_below(d, FZ_ARRAY_SIZE(types))] |
				   SOCK_CLOEXEC, CAN_J1939));
	else
		fd = j_open(c);
	fz_fd_keep(c, d, FZ_J1939, fd);
	return fd;
}

static long j1939_bind(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_J1939);
	char buf[48];
	socklen_t len = j_sockaddr(c, d, (struct sockaddr_can *)buf, sizeof(buf));

	return fz_ret(c, "bind", bind(fd, (struct sockaddr *)buf, len));
}

static long j1939_connect(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_J1939);
	char buf[48];
	socklen_t len = j_sockaddr(c, d, (struct sockaddr_can *)buf, sizeof(buf));

	return fz_ret(c, "connect", connect(fd, (struct sockaddr *)buf, len));
}

/*
 * A fresh socket bound to a local address on vcan0 and connected to a
 * peer there: what the transport sessions need to get going.
 */
static long j1939_endpoint(struct fz_ctx *c, struct fz_draw *d)
{
	struct sockaddr_can a = { .can_family = AF_CAN };
	int fd = j_open(c), one = 1;

	if (fd < 0)
		return fd;
	if (fz_chance(d, 2))
		setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one));
	if (fz_chance(d, 3))
		setsockopt(fd, SOL_CAN_J1939, SO_J1939_PROMISC, &one, sizeof(one));
	if (fz_chance(d, 3))
		setsockopt(fd, SOL_CAN_J1939, SO_J1939_ERRQUEUE, &one, sizeof(one));
	a.can_ifindex = fz_name_to_index(fz_chance(d, 4) ? fz_vcan_name(d) : "vcan0");
	a.can_addr.j1939.name = J1939_NO_NAME;
	a.can_addr.j1939.pgn = fz_chance(d, 2) ? J1939_NO_PGN : j_pgn(d);
	a.can_addr.j1939.addr = fz_chance(d, 2) ? 0x80 : j_addr(d);
	fz_trace(c, "endpoint ifindex %d pgn %#x addr %#x", a.can_ifindex,
		 a.can_addr.j1939.pgn, a.can_addr.j1939.addr);
	if (fz_ret(c, "bind", bind(fd, (struct sockaddr *)&a, sizeof(a)))) {
		close(fd);
		return -EINVAL;
	}
	if (fz_chance(d, 2)) {
		a.can_addr.j1939.pgn = fz_chance(d, 2) ? 0x12300 : j_pgn(d);
		a.can_addr.j1939.addr = fz_chance(d, 2) ? 0x90 : j_addr(d);
		fz_ret(c, "connect", connect(fd, (struct sockaddr *)&a, sizeof(a)));
	}
	fz_fd_keep(c, d, FZ_J1939, fd);
	return fd;
}

static const int j_opts[] = {
	SO_J1939_FILTER, SO_J1939_PROMISC, SO_J1939_SEND_PRIO, SO_J1939_ERRQUEUE,
};

static long j1939_setsockopt(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_J1939);
	int opt = fz_chance(d, 10) ? (int)fz_int(d) : j_opts[fz_below(d, FZ_ARRAY_SIZE(j_opts))];
	int level = fz_chance(d, 16) ? (int)fz_int(d) : SOL_CAN_J1939;
	struct j1939_filter *flt;
	size_t n, i, len;
	__s64 v[2];
	long ret;

	if (fz_chance(d, 8)) {
		/* The socket-level options J1939 reads: broadcast, priority. */
		static const int sol[] = { SO_BROADCAST, SO_PRIORITY, SO_TIMESTAMPING };
		int o = sol[fz_below(d, FZ_ARRAY_SIZE(sol))];
		int val = (int)fz_int(d);

		return fz_ret(c, "setsockopt(SOL_SOCKET)",
			      setsockopt(fd, SOL_SOCKET, o, &val, sizeof(val)));
	}
	if (opt == SO_J1939_FILTER) {
		n = fz_chance(d, 6) ? fz_len(d, J1939_FILTER_MAX + 2) : fz_below(d, 6);
		flt = calloc(n + 1, sizeof(*flt));
		if (!flt)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			flt[i].name = j_name(d);
			flt[i].name_mask = fz_chance(d, 2) ? 0 : fz_u64(d);
			flt[i].pgn = j_pgn(d);
			flt[i].pgn_mask = fz_chance(d, 2) ? J1939_PGN_MAX : (__u32)fz_u64(d);
			flt[i].addr = j_addr(d);
			flt[i].addr_mask = fz_chance(d, 2) ? 0 : (__u8)fz_u64(d);
		}
		len = n * sizeof(*flt);
		if (fz_chance(d, 6))
			len = fz_len(d, (n + 1) * sizeof(*flt));
		fz_trace(c, "SO_J1939_FILTER %zu filters, optlen %zu", n, len);
		ret = setsockopt(fd, level, opt, len || fz_chance(d, 2) ? flt : NULL, len);
		free(flt);
		return fz_ret(c, "setsockopt", ret);
	}
	v[0] = fz_chance(d, 2) ? (__s64)fz_below(d, 9) - 1 : fz_int(d);
	v[1] = fz_int(d);
	len = fz_chance(d, 2) ? sizeof(int) : fz_len(d, sizeof(v));
	fz_trace(c, "setsockopt level %d opt %d val %lld len %zu", level, opt,
		 (long long)v[0], len);
	return fz_ret(c, "setsockopt", setsockopt(fd, level, opt, v, len));
}

static long j1939_getsockopt(struct fz_ctx *c, struct fz_draw *d)
{
	static __thread char buf[64];
	int fd = fz_fd_get(c, d, FZ_J1939);
	int opt = fz_chance(d, 8) ? (int)fz_int(d) : j_opts[fz_below(d, FZ_ARRAY_SIZE(j_opts))];
	socklen_t len = fz_chance(d, 2) ? sizeof(int) : fz_len(d, sizeof(buf));
	long ret;

	ret = fz_ret(c, "getsockopt", getsockopt(fd, SOL_CAN_J1939, opt, buf, &len));
	if (ret == 0)
		fz_leak_check(c, "getsockopt(SOL_CAN_J1939)", buf,
			      len < sizeof(buf) ? len : sizeof(buf));
	return ret;
}

/* Up to an ETP message of 8 KiB; the sizes where the protocols change. */
#define J_BUF	8192
static __thread char jbuf[J_BUF];

static size_t j_size(struct fz_draw *d)
{
	static const size_t sizes[] = {
		0, 1, 7, 8, 9, 14, 15, 16, 255, 256, 1784, J_TP_MAX, J_TP_MAX + 1,
		J_TP_MAX + 2, 1792, 2000, 4096, J_BUF,
	};

	if (fz_chance(d, 2))
		return sizes[fz_below(d, FZ_ARRAY_SIZE(sizes))];
	return fz_chance(d, 2) ? fz_below(d, 24) : fz_below(d, 2100);
}

static long j1939_send(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, FZ_J1939);
	char addr[48];
	struct iovec iov = { .iov_base = jbuf, .iov_len = j_size(d) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int flags = MSG_DONTWAIT;

	fz_fill(d, jbuf, iov.iov_len);
	if (!fz_chance(d, 4)) {
		msg.msg_name = addr;
		msg.msg_namelen = j_sockaddr(c, d, (struct sockaddr_can *)addr, sizeof(addr));
	}
	if (fz_chance(d, 8))
		flags |= (int)fz_u64(d) & (MSG_CONFIRM | MSG_EOR | MSG_MORE | MSG_NOSIGNAL |
					   MSG_ERRQUEUE | MSG_PEEK);
	if (fz_chance(d, 6))
		iov.iov_len = (size_t)fz_int(d) & 0xfffff;
	if (iov.iov_len > J_BUF)
		iov.iov_len = J_BUF;
	fz_trace(c, "sendmsg len %zu flags %#x", iov.iov_len, flags);
	return fz_ret(c, "sendmsg", sendmsg(fd, &msg, flags));
}

static long j1939_recv(struct fz_ctx *c, struct fz_draw *d)
{
	static __thread char data[J_BUF];
	static __thread char ctl[512];
	int fd = fz_fd_get(c, d, FZ_J1939);
	char name[48];
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int flags = MSG_DONTWAIT;
	long ret;

	memset(data, FZ_POISON ^ 1, 64);
	if (fz_chance(d, 3))
		flags |= MSG_ERRQUEUE;
	if (fz_chance(d, 4))
		flags |= MSG_TRUNC | (fz_chance(d, 2) ? MSG_PEEK : 0);
	if (fz_chance(d, 6))
		iov.iov_len = fz_len(d, sizeof(data));
	if (!fz_chance(d, 4)) {
		msg.msg_name = name;
		msg.msg_namelen = fz_chance(d, 4) ? fz_len(d, sizeof(name)) : sizeof(name);
	}
	if (!fz_chance(d, 4)) {
		msg.msg_control = ctl;
		msg.msg_controllen = fz_chance(d, 4) ? fz_len(d, sizeof(ctl)) : sizeof(ctl);
	}
	fz_trace(c, "recvmsg len %zu flags %#x", iov.iov_len, flags);
	ret = fz_ret(c, "recvmsg", recvmsg(fd, &msg, flags));
	fz_leak_check_msg(c, "recvmsg(J1939)", &msg, sizeof(name), ret);
	return ret;
}

/* ---- the transport protocols on the wire ------------------------------ */

struct j_wire {
	int fd;
	__u8 prio;
	__u8 src;	/* the remote node the frames come from */
	__u8 dst;	/* a local address, or broadcast */
};

static void j_put(struct fz_ctx *c, struct j_wire *w, __u32 pgn, const __u8 *data,
		  __u8 len)
{
	struct can_frame cf = { .len = len };

	if ((pgn & 0xff00) < 0xf000)
		pgn = (pgn & 0x3ff00) | w->dst;
	cf.can_id = CAN_EFF_FLAG | ((__u32)w->prio << 26) | (pgn << 8) | w->src;
	memcpy(cf.data, data, len > 8 ? 8 : len);
	if (write(w->fd, &cf, sizeof(cf)) < 0 && c->trace)
		fz_ret(c, "write", -1);
}

/* A control frame: @ctl, then fields in the place each one has. */
static void j_cm(struct fz_ctx *c, struct fz_draw *d, struct j_wire *w, bool etp, __u8 ctl,
		 __u32 a, __u32 b, __u32 pgn)
{
	__u8 f[8] = { ctl };

	if (etp) {
		/* RTS: size (4 bytes); CTS: count, next (3); DPO: count, offset (3). */
		if (ctl == J_ETP_RTS || ctl == J_ABORT) {
			memcpy(&f[1], &a, 4);
		} else {
			f[1] = (__u8)b;
			f[2] = a;
			f[3] = a >> 8;
			f[4] = a >> 16;
		}
	} else {
		/* RTS/BAM: size (2), packets, max per CTS; CTS: count, next. */
		if (ctl == J_TP_CTS) {
			f[1] = (__u8)b;
			f[2] = (__u8)a;
			f[3] = 0xff;
			f[4] = 0xff;
		} else {
			f[1] = a;
			f[2] = a >> 8;
			f[3] = (__u8)b;
			f[4] = ctl == J_TP_BAM ? 0xff : (__u8)fz_below(d, 256);
		}
	}
	f[5] = pgn;
	f[6] = pgn >> 8;
	f[7] = pgn >> 16;
	if (fz_chance(d, 16))
		f[fz_below(d, 8)] = (__u8)fz_u64(d);
	fz_trace(c, "%s ctl %u a %u b %u pgn %#x", etp ? "ETP.CM" : "TP.CM", ctl, a, b, pgn);
	j_put(c, w, etp ? J_PGN_ETP_CM : J_PGN_TP_CM, f,
	      fz_chance(d, 16) ? fz_below(d, 9) : 8);
}

static void j_dt(struct fz_ctx *c, struct fz_draw *d, struct j_wire *w, bool etp, __u8 seq)
{
	__u8 f[8];

	fz_fill(d, f, sizeof(f));
	f[0] = seq;
	j_put(c, w, etp ? J_PGN_ETP_DT : J_PGN_TP_DT, f, fz_chance(d, 16) ? fz_below(d, 9) : 8);
}

/* A J1939 socket that holds @addr on @ifindex (or takes broadcasts). */
static int j1939_receiver(struct fz_ctx *c, struct fz_draw *d, int ifindex, __u8 addr)
{
	struct sockaddr_can a = { .can_family = AF_CAN, .can_ifindex = ifindex };
	int fd = j_open(c), one = 1;

	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one));
	if (fz_chance(d, 4))
		setsockopt(fd, SOL_CAN_J1939, SO_J1939_PROMISC, &one, sizeof(one));
	a.can_addr.j1939.name = J1939_NO_NAME;
	a.can_addr.j1939.pgn = J1939_NO_PGN;
	a.can_addr.j1939.addr = addr;
	if (fz_ret(c, "bind receiver", bind(fd, (struct sockaddr *)&a, sizeof(a)))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * One transfer as a remote node would start it toward a local address
 * (or to all): announce it, then the data frames in order with one
 * skipped, repeated or out of place now and then, sometimes an answer
 * to our own sending (CTS, EOMA, abort) instead.
 */
static long j1939_wire(struct fz_ctx *c, struct fz_draw *d)
{
	struct sockaddr_can a = { .can_family = AF_CAN };
	struct j_wire w = {
		.prio = fz_below(d, 8), .src = fz_chance(d, 2) ? 0x90 : j_addr(d),
		.dst = fz_chance(d, 2) ? 0x80 : j_addr(d),
	};
	bool etp = fz_chance(d, 3);
	__u32 size, pgn = fz_chance(d, 2) ? 0x12300 : j_pgn(d), npk, i, n, off = 0;
	const char *dev = fz_chance(d, 4) ? fz_vcan_name(d) : "vcan0";
	int rx = -1;
	__u8 seq;

	a.can_ifindex = fz_name_to_index(dev);
	if (!fz_chance(d, 3)) {
		/* The receiver: the stack takes a transfer only to a local address. */
		rx = j1939_receiver(c, d, a.can_ifindex, w.dst);
		if (rx >= 0 && fz_chance(d, 2)) {
			fz_fd_keep(c, d, FZ_J1939, rx);
			rx = -1;
		}
	}
	w.fd = socket(PF_CAN, SOCK_RAW | SOCK_CLOEXEC, CAN_RAW);
	if (w.fd < 0 || bind(w.fd, (struct sockaddr *)&a, sizeof(a))) {
		if (w.fd >= 0)
			close(w.fd);
		if (rx >= 0)
			close(rx);
		return -ENODEV;
	}
	if (etp)
		size = fz_chance(d, 2) ? J_TP_MAX + 1 + fz_below(d, 400) : (__u32)fz_int(d);
	else
		size = fz_chance(d, 2) ? 9 + fz_below(d, 60) : (__u32)fz_int(d) & 0xffff;
	npk = (size + 6) / 7;
	if (fz_chance(d, 8))
		npk = fz_below(d, 256);
	fz_trace(c, "wire %s %s src %#x dst %#x size %u packets %u", dev, etp ? "ETP" : "TP",
		 w.src, w.dst, size, npk);

	switch (fz_below(d, 6)) {
	case 0:
		/* Answers to a transfer a local socket may have started. */
		for (i = 0, n = 1 + fz_below(d, 4); i < n; i++) {
			static const __u8 tp[] = { J_TP_CTS, J_TP_CTS, J_TP_EOMA, J_ABORT };
			static const __u8 xtp[] = { J_ETP_CTS, J_ETP_CTS, J_ETP_EOMA, J_ABORT };
			__u8 ctl = etp ? xtp[fz_below(d, 4)] : tp[fz_below(d, 4)];

			j_cm(c, d, &w, etp, ctl, fz_chance(d, 2) ? 1 + i : (__u32)fz_u64(d),
			     fz_below(d, 256), pgn);
		}
		break;
	case 1:
		/* Control bytes nobody defined, or aborts. */
		j_cm(c, d, &w, fz_chance(d, 2), fz_chance(d, 2) ? J_ABORT : (__u8)fz_u64(d),
		     (__u32)fz_u64(d), (__u32)fz_u64(d), pgn);
		break;
	default:
		if (!etp && (fz_chance(d, 2) || w.dst == J1939_NO_ADDR)) {
			w.dst = J1939_NO_ADDR;
			j_cm(c, d, &w, false, J_TP_BAM, size, npk, pgn);
		} else {
			j_cm(c, d, &w, etp, etp ? J_ETP_RTS : J_TP_RTS, size, npk, pgn);
		}
		if (fz_chance(d, 8))
			break;	/* the sender that never sends: a timeout */
		/* Mostly time for the answer (CTS) before the data. */
		if (!fz_chance(d, 3))
			usleep(1000 + fz_below(d, 4000));
		n = npk > 64 ? 64 : npk;
		for (i = 0; i < n; i++) {
			if (etp && i % 255 == 0)
				j_cm(c, d, &w, true, J_ETP_DPO,
				     fz_chance(d, 8) ? (__u32)fz_u64(d) : off,
				     fz_chance(d, 8) ? (__u32)fz_u64(d) : 255, pgn);
			seq = (i % 255) + 1;
			if (fz_chance(d, 24))
				seq = (__u8)fz_u64(d);
			j_dt(c, d, &w, etp, seq);
			if (fz_chance(d, 48))
				j_dt(c, d, &w, etp, seq);
			if (fz_chance(d, 64))
				j_cm(c, d, &w, etp, J_ABORT, fz_below(d, 8), 0, pgn);
		}
		off += n;
		break;
	}
	close(w.fd);
	if (rx >= 0) {
		static __thread char data[J_BUF];

		usleep(fz_below(d, 5000));
		fz_ret(c, "recv", recv(rx, data, sizeof(data), MSG_DONTWAIT));
		close(rx);
	}
	return 0;
}

/*
 * Two sockets on one device, one sending to the other: single frames,
 * TP with handshake, BAM and ETP across the loopback, then the receiver
 * reads (or does not, leaving the queue to the close).
 */
static long j1939_pair(struct fz_ctx *c, struct fz_draw *d)
{
	struct sockaddr_can a = { .can_family = AF_CAN };
	bool bcast = fz_chance(d, 3);
	int rx = j_open(c), tx = j_open(c), one = 1;
	size_t size = j_size(d);
	long ret = -EINVAL;

	if (rx < 0 || tx < 0)
		goto out;
	setsockopt(tx, SOL_SOCKET, SO_SNDTIMEO, &(struct timeval){ .tv_usec = 20000 },
		   sizeof(struct timeval));
	setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){ .tv_usec = 20000 },
		   sizeof(struct timeval));
	if (bcast) {
		setsockopt(tx, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one));
		setsockopt(rx, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one));
	}
	if (fz_chance(d, 2))
		setsockopt(tx, SOL_CAN_J1939, SO_J1939_ERRQUEUE, &one, sizeof(one));
	a.can_ifindex = fz_name_to_index(fz_chance(d, 4) ? fz_vcan_name(d) : "vcan0");
	a.can_addr.j1939.name = J1939_NO_NAME;
	a.can_addr.j1939.pgn = J1939_NO_PGN;
	a.can_addr.j1939.addr = bcast ? J1939_NO_ADDR : 0x81;
	if (fz_ret(c, "bind rx", bind(rx, (struct sockaddr *)&a, sizeof(a))))
		goto out;
	a.can_addr.j1939.addr = fz_chance(d, 8) ? j_addr(d) : 0x91;
	if (fz_ret(c, "bind tx", bind(tx, (struct sockaddr *)&a, sizeof(a))))
		goto out;
	a.can_addr.j1939.pgn = bcast ? 0x1fe00 : fz_chance(d, 4) ? j_pgn(d) : 0x12300;
	a.can_addr.j1939.addr = bcast ? J1939_NO_ADDR : 0x81;
	fz_fill(d, jbuf, size);
	fz_trace(c, "pair ifindex %d %s size %zu", a.can_ifindex, bcast ? "bcast" : "0x91->0x81",
		 size);
	ret = fz_ret(c, "sendto", sendto(tx, jbuf, size, 0, (struct sockaddr *)&a, sizeof(a)));
	if (ret >= 0 && !fz_chance(d, 4)) {
		static __thread char data[J_BUF];

		fz_ret(c, "recv", recv(rx, data, sizeof(data), 0));
	}
	if (fz_chance(d, 3)) {
		/* Keep one: a transfer then outlives the op. */
		fz_fd_keep(c, d, FZ_J1939, tx);
		tx = -1;
	}
out:
	if (rx >= 0)
		close(rx);
	if (tx >= 0)
		close(tx);
	return ret;
}

static const struct fz_op j1939_ops[] = {
	{ "j1939_socket", j1939_socket, 4 },
	{ "j1939_endpoint", j1939_endpoint, 4 },
	{ "j1939_bind", j1939_bind, 4 },
	{ "j1939_connect", j1939_connect, 2 },
	{ "j1939_setsockopt", j1939_setsockopt, 4 },
	{ "j1939_getsockopt", j1939_getsockopt, 1 },
	{ "j1939_send", j1939_send, 8 },
	{ "j1939_recv", j1939_recv, 4 },
	{ "j1939_wire", j1939_wire, 8 },
	{ "j1939_pair", j1939_pair, 4 },
	{}
};

FZ_REGISTER(j1939_ops)
