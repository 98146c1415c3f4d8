// SPDX-License-Identifier: GPL-2.0
/*
 * Calls every socket has, made on descriptors of any kind: close,
 * recvmsg, ioctl, SOL_SOCKET options, shutdown, dup.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/can.h>

#include "fuzz.h"

static int any_kind(struct fz_draw *d)
{
	return 1 + fz_below(d, FZ_KINDS - 1);
}

static long sock_close(struct fz_ctx *c, struct fz_draw *d)
{
	struct fz_fds *f = c->fds;
	int s = fz_below(d, FZ_SLOTS);
	int fd = f->fd[s];

	f->fd[s] = 0;
	f->kind[s] = FZ_FREE;
	f->isotp_ifindex[s] = 0;
	return fz_ret(c, "close", fd > 0 ? close(fd) : 0);
}

static long sock_dup(struct fz_ctx *c, struct fz_draw *d)
{
	int kind = any_kind(d);
	int fd = dup(fz_fd_get(c, d, kind));

	fz_fd_put(c, d, kind, fd);
	return fz_ret(c, "dup", fd);
}

static long sock_recv(struct fz_ctx *c, struct fz_draw *d)
{
	static __thread char data[CANXL_MTU + 128], name[64], ctrl[512];
	int fd = fz_fd_get(c, d, any_kind(d));
	struct iovec iov[2] = {
		{ .iov_base = data, .iov_len = fz_len(d, sizeof(data) / 2) },
		{ .iov_base = data + sizeof(data) / 2, .iov_len = fz_len(d, sizeof(data) / 2) },
	};
	struct msghdr msg = {
		.msg_iov = iov, .msg_iovlen = 1 + fz_below(d, 2),
		.msg_name = fz_chance(d, 2) ? name : NULL,
		.msg_namelen = fz_len(d, sizeof(name)),
		.msg_control = fz_chance(d, 2) ? ctrl : NULL,
		.msg_controllen = fz_len(d, sizeof(ctrl)),
	};
	size_t name_room = msg.msg_namelen;
	int flags = MSG_DONTWAIT;
	char what[48];
	long ret;

	/* The kernel skips the padding between control messages. */
	memset(ctrl, 0, sizeof(ctrl));
	memset(name, 0, sizeof(name));
	if (fz_chance(d, 3))
		flags |= MSG_ERRQUEUE;
	if (fz_chance(d, 3))
		flags |= MSG_PEEK;
	if (fz_chance(d, 4))
		flags |= MSG_TRUNC;
	ret = fz_ret(c, "recvmsg", recvmsg(fd, &msg, flags));
	snprintf(what, sizeof(what), "recvmsg(flags %#x)", flags);
	fz_leak_check_msg(c, what, &msg, name_room, ret);
	return ret;
}

static long sock_ioctl(struct fz_ctx *c, struct fz_draw *d)
{
	static const unsigned long cmds[] = {
		SIOCGSTAMP_OLD, SIOCGSTAMPNS_OLD, SIOCGIFINDEX, SIOCGIFNAME,
		SIOCGIFFLAGS, SIOCGIFMTU, SIOCSIFMTU, SIOCSIFFLAGS, FIONREAD,
		SIOCOUTQ, SIOCINQ, SIOCGIFHWADDR, SIOCGIFTXQLEN,
	};
	int fd = fz_fd_get(c, d, any_kind(d));
	unsigned long cmd = fz_chance(d, 8) ? (unsigned long)fz_int(d) :
			    cmds[fz_below(d, FZ_ARRAY_SIZE(cmds))];
	struct ifreq ifr;

	fz_fill(d, &ifr, sizeof(ifr));
	if (fz_chance(d, 2))
		strncpy(ifr.ifr_name, fz_dev_name(d), IFNAMSIZ);
	if (cmd == SIOCSIFMTU)
		ifr.ifr_mtu = (int)fz_int(d);
	if (cmd == SIOCGIFNAME)
		ifr.ifr_ifindex = fz_ifindex(c, d);
	fz_trace(c, "ioctl %#lx on %s", cmd, ifr.ifr_name);
	return fz_ret(c, "ioctl", ioctl(fd, cmd, &ifr));
}

static long sock_sockopt(struct fz_ctx *c, struct fz_draw *d)
{
	static const int opts[] = {
		SO_RCVBUF, SO_SNDBUF, SO_TIMESTAMP, SO_TIMESTAMPNS,
		SO_TIMESTAMPING, SO_BINDTODEVICE, SO_PRIORITY, SO_MARK,
		SO_RCVLOWAT, SO_RXQ_OVFL, SO_BUSY_POLL, SO_ZEROCOPY,
		SO_TXTIME, SO_RCVBUFFORCE, SO_SNDBUFFORCE, SO_LINGER,
		SO_PEEK_OFF, SO_BINDTOIFINDEX, SO_DETACH_FILTER,
	};
	int fd = fz_fd_get(c, d, any_kind(d));
	int opt = opts[fz_below(d, FZ_ARRAY_SIZE(opts))];
	char val[IFNAMSIZ + 8];
	socklen_t len;

	if (fz_chance(d, 3)) {
		long ret;

		len = fz_len(d, sizeof(val));
		ret = fz_ret(c, "getsockopt", getsockopt(fd, SOL_SOCKET, opt, val, &len));
		if (ret == 0)
			fz_leak_check(c, "getsockopt(SOL_SOCKET)", val,
				      len < sizeof(val) ? len : sizeof(val));
		return ret;
	}
	memset(val, 0, sizeof(val));
	if (opt == SO_BINDTODEVICE) {
		strncpy(val, fz_dev_name(d), IFNAMSIZ);
		len = strlen(val) + 1;
	} else {
		int v = opt == SO_BINDTOIFINDEX ? fz_ifindex(c, d) : (int)fz_int(d);

		memcpy(val, &v, sizeof(v));
		len = fz_chance(d, 4) ? fz_len(d, sizeof(val)) : sizeof(int);
	}
	return fz_ret(c, "setsockopt", setsockopt(fd, SOL_SOCKET, opt, val, len));
}

static long sock_misc(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_fd_get(c, d, any_kind(d));
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLERR };
	char buf[64];
	socklen_t len = fz_len(d, sizeof(buf)), room;
	int op = fz_below(d, 6);
	long ret;

	switch (op) {
	case 0:
		return fz_ret(c, "shutdown", shutdown(fd, fz_below(d, 4)));
	case 1:
	case 2:
		room = len;
		ret = op == 1 ? getsockname(fd, (struct sockaddr *)buf, &len) :
				getpeername(fd, (struct sockaddr *)buf, &len);
		ret = fz_ret(c, op == 1 ? "getsockname" : "getpeername", ret);
		if (ret == 0)
			fz_leak_check(c, op == 1 ? "getsockname" : "getpeername", buf,
				      len < room ? len : room);
		return ret;
	case 3:
		return fz_ret(c, "poll", poll(&p, 1, 0));
	case 4:
		return fz_ret(c, "listen", listen(fd, (int)fz_int(d)));
	default:
		return fz_ret(c, "fcntl", fcntl(fd, F_SETFL, fz_chance(d, 2) ? O_NONBLOCK : 0));
	}
}

static const struct fz_op sock_ops[] = {
	{ "sock_close", sock_close, 6 },
	{ "sock_dup", sock_dup, 1 },
	{ "sock_recv", sock_recv, 8 },
	{ "sock_ioctl", sock_ioctl, 3 },
	{ "sock_sockopt", sock_sockopt, 4 },
	{ "sock_misc", sock_misc, 3 },
	{}
};

FZ_REGISTER(sock_ops)
