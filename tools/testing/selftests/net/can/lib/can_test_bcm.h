/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the broadcast manager selftests and benchmark: vcan
 * interfaces made and removed with ip(8), BCM messages written and read
 * with timeouts, and raw sockets that play the other nodes on the bus.
 */

#ifndef _CAN_TEST_BCM_H
#define _CAN_TEST_BCM_H

#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/bcm.h>
#include <linux/can/raw.h>

#include "can_test.h"

#define BCM_T_MAX_FRAMES 257

/* A BCM message as it goes over the socket: the head, then the frames. */
struct bcm_msg {
	struct bcm_msg_head head;
	union {
		struct can_frame cc[BCM_T_MAX_FRAMES];
		struct canfd_frame fd[BCM_T_MAX_FRAMES];
	};
};

static inline struct bcm_timeval bcm_us(long us)
{
	struct bcm_timeval tv = { us / 1000000, us % 1000000 };

	return tv;
}

static inline long long ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

static inline int run_cmd(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Make an interface named after the test process; return its index. */
static inline int vcan_create(char name[IFNAMSIZ], int nr)
{
	snprintf(name, IFNAMSIZ, "bcm%d_%d", getpid() % 100000, nr);
	if (run_cmd("ip link add dev %s type vcan && ip link set %s up",
		    name, name))
		return -1;
	return if_nametoindex(name);
}

static inline void vcan_destroy(const char *name)
{
	run_cmd("ip link del dev %s 2>/dev/null", name);
}

/* A BCM socket connected to @ifindex (0: all interfaces). */
static inline int bcm_socket(int ifindex)
{
	struct sockaddr_can addr = { .can_family = AF_CAN,
				     .can_ifindex = ifindex };
	int s = socket(PF_CAN, SOCK_DGRAM, CAN_BCM);

	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&addr, sizeof(addr))) {
		int err = -errno;

		close(s);
		return err;
	}
	return s;
}

/* A raw socket on @ifindex that takes CAN FD frames and stamps them. */
static inline int raw_socket(int ifindex)
{
	struct sockaddr_can addr = { .can_family = AF_CAN,
				     .can_ifindex = ifindex };
	int one = 1;
	int s = socket(PF_CAN, SOCK_RAW, CAN_RAW);

	if (s < 0)
		return -errno;
	if (setsockopt(s, SOL_CAN_RAW, CAN_RAW_FD_FRAMES, &one, sizeof(one)) ||
	    setsockopt(s, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&addr, sizeof(addr))) {
		int err = -errno;

		close(s);
		return err;
	}
	return s;
}

/* Write a BCM message; return the byte count or -errno. */
static inline int bcm_write(int s, struct bcm_msg *m)
{
	size_t fsize = m->head.flags & CAN_FD_FRAME ? CANFD_MTU : CAN_MTU;
	ssize_t n;

	n = write(s, m, sizeof(m->head) + m->head.nframes * fsize);
	return n < 0 ? -errno : (int)n;
}

/* Fill in a request head; frames are left to the caller. */
static inline void bcm_head(struct bcm_msg *m, __u32 opcode, __u32 flags,
			    canid_t can_id, __u32 nframes)
{
	memset(&m->head, 0, sizeof(m->head));
	m->head.opcode = opcode;
	m->head.flags = flags;
	m->head.can_id = can_id;
	m->head.nframes = nframes;
}

/* Send a request without frames (delete, read). */
static inline int bcm_request(int s, __u32 opcode, __u32 flags, canid_t id)
{
	struct bcm_msg m;

	bcm_head(&m, opcode, flags, id, 0);
	return bcm_write(s, &m);
}

/* Set up a cyclic transmission of one classic frame every @ival_us. */
static inline int bcm_tx_cyclic(int s, canid_t id, long ival_us, __u8 len,
				__u8 fill)
{
	struct bcm_msg m;

	bcm_head(&m, TX_SETUP, SETTIMER | STARTTIMER, id, 1);
	m.head.ival2 = bcm_us(ival_us);
	memset(&m.cc[0], 0, sizeof(m.cc[0]));
	m.cc[0].can_id = id;
	m.cc[0].len = len;
	memset(m.cc[0].data, fill, len);
	return bcm_write(s, &m);
}

static inline int wait_readable(int s, int timeout_ms)
{
	struct pollfd pfd = { .fd = s, .events = POLLIN };
	int n = poll(&pfd, 1, timeout_ms);

	if (n < 0)
		return -errno;
	return n;
}

/*
 * Read one message within @timeout_ms. Return its size, 0 on timeout or
 * -errno; @ifindex and @stamp (receive time) may be NULL.
 */
static inline int bcm_read(int s, struct bcm_msg *m, int timeout_ms,
			   int *ifindex, struct timespec *stamp)
{
	struct sockaddr_can addr = { 0 };
	char ctrl[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr msg = {
		.msg_name = &addr, .msg_namelen = sizeof(addr),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl, .msg_controllen = sizeof(ctrl),
	};
	struct cmsghdr *c;
	ssize_t n;
	int ready;

	ready = wait_readable(s, timeout_ms);
	if (ready <= 0)
		return ready;
	n = recvmsg(s, &msg, 0);
	if (n < 0)
		return -errno;
	if (ct_leaks_poison(m, n))
		return -EUCLEAN;
	if (ifindex)
		*ifindex = addr.can_ifindex;
	for (c = CMSG_FIRSTHDR(&msg); c && stamp; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS)
			memcpy(stamp, CMSG_DATA(c), sizeof(*stamp));
	return (int)n;
}

/* Wait for the next message with @opcode, skipping others. */
static inline int bcm_read_op(int s, struct bcm_msg *m, __u32 opcode,
			      int timeout_ms)
{
	long long end = now_ns() + timeout_ms * 1000000LL;
	int n;

	do {
		int left = (int)((end - now_ns()) / 1000000);

		n = bcm_read(s, m, left > 0 ? left : 0, NULL, NULL);
		if (n > 0 && m->head.opcode == opcode)
			return n;
	} while (n > 0);
	return n;
}

/* Send a frame from a raw socket; @len up to 64 makes it a CAN FD frame. */
static inline int raw_send(int s, canid_t id, const void *data, __u8 len,
			   bool fd)
{
	struct canfd_frame cf = { .can_id = id, .len = len };
	size_t size = fd ? CANFD_MTU : CAN_MTU;

	memcpy(cf.data, data, len);
	return write(s, &cf, size) == (ssize_t)size ? 0 : -errno;
}

/* Send an 8-byte classic frame: @byte0, then zeros. The bytes are a
 * compound literal, not a named local, which the harness's setjmp() in
 * the calling test could clobber once this is inlined (-Wclobbered).
 */
static inline int raw_send_byte(int s, canid_t id, __u8 byte0)
{
	return raw_send(s, id, (const __u8[8]) { byte0 }, 8, false);
}

/*
 * Read one frame within @timeout_ms. Return its size (CAN_MTU or
 * CANFD_MTU), 0 on timeout or -errno; @stamp gets the receive time.
 */
static inline int raw_read(int s, struct canfd_frame *cf, int timeout_ms,
			   struct timespec *stamp)
{
	char ctrl[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { cf, sizeof(*cf) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl, .msg_controllen = sizeof(ctrl),
	};
	struct cmsghdr *c;
	ssize_t n;
	int ready;

	ready = wait_readable(s, timeout_ms);
	if (ready <= 0)
		return ready;
	n = recvmsg(s, &msg, 0);
	if (n < 0)
		return -errno;
	if (ct_leaks_poison(cf, n))
		return -EUCLEAN;
	for (c = CMSG_FIRSTHDR(&msg); c && stamp; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS)
			memcpy(stamp, CMSG_DATA(c), sizeof(*stamp));
	return (int)n;
}

/* Drop whatever is queued on @s. */
static inline void drain(int s)
{
	char buf[sizeof(struct bcm_msg)];

	while (wait_readable(s, 0) > 0 && read(s, buf, sizeof(buf)) > 0)
		;
}

#endif /* _CAN_TEST_BCM_H */
