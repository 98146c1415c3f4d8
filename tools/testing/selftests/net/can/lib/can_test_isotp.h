/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the CAN_ISOTP selftests: open and bind ISO-TP sockets with
 * options, send and receive whole messages with a timeout, and speak the
 * protocol by hand through a CAN_RAW socket to play a peer that behaves
 * (or does not).
 */

#ifndef _CAN_TEST_ISOTP_H
#define _CAN_TEST_ISOTP_H

#include <linux/can/isotp.h>
#include <linux/sock_diag.h>

#include "can_test.h"
#include "can_test_bcm.h"	/* raw_send() */

#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif

#define IT_MAX_MSG	66000
#define IT_TX_ID	0x123
#define IT_RX_ID	0x321

/* Options of one socket; zeroed fields keep the kernel's defaults. */
struct it_opts {
	bool set_opts;
	struct can_isotp_options opt;
	bool set_fc;
	struct can_isotp_fc_options fc;
	bool set_ll;
	struct can_isotp_ll_options ll;
	__u32 tx_stmin;
	__u32 rx_stmin;
};

static inline int it_socket(void)
{
	return socket(PF_CAN, SOCK_DGRAM | SOCK_CLOEXEC, CAN_ISOTP);
}

static inline int it_setopt(int s, int name, const void *val, socklen_t len)
{
	return setsockopt(s, SOL_CAN_ISOTP, name, val, len) ? -errno : 0;
}

static inline int it_apply(int s, const struct it_opts *o)
{
	int err = 0;

	if (!o)
		return 0;
	if (o->set_opts)
		err = it_setopt(s, CAN_ISOTP_OPTS, &o->opt, sizeof(o->opt));
	if (!err && o->set_fc)
		err = it_setopt(s, CAN_ISOTP_RECV_FC, &o->fc, sizeof(o->fc));
	if (!err && o->set_ll)
		err = it_setopt(s, CAN_ISOTP_LL_OPTS, &o->ll, sizeof(o->ll));
	if (!err && o->tx_stmin)
		err = it_setopt(s, CAN_ISOTP_TX_STMIN, &o->tx_stmin, 4);
	if (!err && o->rx_stmin)
		err = it_setopt(s, CAN_ISOTP_RX_STMIN, &o->rx_stmin, 4);
	return err;
}

static inline int it_bind(int s, int ifindex, canid_t rx, canid_t tx)
{
	struct sockaddr_can addr = {
		.can_family = AF_CAN,
		.can_ifindex = ifindex,
	};

	addr.can_addr.tp.rx_id = rx;
	addr.can_addr.tp.tx_id = tx;
	return bind(s, (struct sockaddr *)&addr, sizeof(addr)) ? -errno : 0;
}

/* A bound ISO-TP socket with options @o (may be NULL), or -errno. */
static inline int it_open(int ifindex, canid_t rx, canid_t tx,
			  const struct it_opts *o)
{
	int s = it_socket();
	int err;

	if (s < 0)
		return -errno;
	err = it_apply(s, o);
	if (!err)
		err = it_bind(s, ifindex, rx, tx);
	if (err) {
		close(s);
		return err;
	}
	return s;
}

/* Deterministic content for a message of @len bytes. */
static inline void it_fill(unsigned char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 7 + seed + (i >> 8));
}

static inline int it_send(int s, const void *buf, size_t len)
{
	ssize_t n = send(s, buf, len, 0);

	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EIO;
}

/* One message within @ms: its length, -ETIMEDOUT, or -errno. */
static inline int it_recv(int s, void *buf, size_t size, int ms)
{
	ssize_t n;

	if (!ct_wait_readable(s, ms))
		return -ETIMEDOUT;
	n = recv(s, buf, size, MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	return ct_leaks_poison(buf, n) ? -EUCLEAN : (int)n;
}

/* Frames the socket dropped, as SO_MEMINFO reports them. */
static inline long it_drops(int s)
{
	__u32 mem[SK_MEMINFO_VARS] = {};
	socklen_t len = sizeof(mem);

	if (getsockopt(s, SOL_SOCKET, SO_MEMINFO, mem, &len))
		return -errno;
	return mem[SK_MEMINFO_DROPS];
}

/* ---- a hand-driven peer on CAN_RAW ---- */

/* A raw socket on @ifindex that sees CAN FD frames too. */
static inline int it_raw_open(int ifindex, canid_t only_id)
{
	struct can_filter f = { .can_id = only_id, .can_mask = CAN_SFF_MASK };
	int fd = ct_raw_socket();
	int on = 1;

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FD_FRAMES, &on, sizeof(on));
	if (only_id != (canid_t)-1)
		setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, &f, sizeof(f));
	if (ct_bind(fd, ifindex)) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* Receive one frame within @ms; its size or -errno / -ETIMEDOUT. */
static inline int it_raw_recv(int fd, struct canfd_frame *cf, int ms)
{
	memset(cf, 0, sizeof(*cf));
	return ct_recv(fd, cf, sizeof(*cf), ms, NULL, NULL);
}

/* Kernel arrival stamp of a frame on @raw, in ns; -1 on failure. */
static inline long long it_recv_stamped(int raw, int ms)
{
	char ctrl[CMSG_SPACE(sizeof(struct timespec))];
	struct canfd_frame cf;
	struct iovec iov = { .iov_base = &cf, .iov_len = sizeof(cf) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl, .msg_controllen = sizeof(ctrl),
	};
	struct cmsghdr *c;

	if (!ct_wait_readable(raw, ms) || recvmsg(raw, &msg, 0) < 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS) {
			struct timespec *ts = (struct timespec *)CMSG_DATA(c);

			return ts->tv_sec * 1000000000LL + ts->tv_nsec;
		}
	}
	return -1;
}

/* it_raw_open() with arrival stamps for it_recv_stamped(). */
static inline int it_raw_open_stamped(int ifindex, canid_t only_id)
{
	int fd = it_raw_open(ifindex, only_id);
	int on = 1;

	if (fd >= 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* A flow control frame: status, block size, STmin. */
static inline int it_raw_send_fc(int fd, canid_t id, int status, int bs,
				 int stmin)
{
	unsigned char d[3] = { 0x30 | status, bs, stmin };

	return raw_send(fd, id, d, 3, false);
}

#endif /* _CAN_TEST_ISOTP_H */
