// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_RAW_TX_REPORT, CAN_RAW_TX_DEADLINE, CAN_RAW_TX_FLUSH_BUS_OFF and
 * CAN_RAW_TX_REPORTS_LOST: every frame a write hands to the stack ends in
 * exactly one report on the socket's error queue, numbered 0, 1, 2, ... in
 * the order of the writes, telling whether it went out (0) or why not.
 *
 * Each test runs in a network namespace of its own (the harness forks
 * each test): its vcan links and can-vbus nodes (group 0) are private.
 * A lone can-vbus node never gets an ACK and keeps its frames: its queue
 * holds 15 of them (TX FIFO 4, txqueuelen 10, and the one the queue
 * discipline took out while the driver's queue was stopped), the next
 * write fails with ENOBUFS.
 */
#define TR_PLACES	15
#define TR_FIFO		4

#include <pthread.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"
#include "lib/can_test_vbus.h"
#include <linux/errqueue.h>

#ifndef SO_EE_ORIGIN_LOCAL
#define SO_EE_ORIGIN_LOCAL	1
#endif

#define TR_SOCKBUF	(8 << 20)
#define TR_WAIT_MS	3000
#define TR_MAX		2048

/* ---- the error queue ------------------------------------------------- */

/* One message of the error queue, as the test sees it. */
struct tr_rep {
	int len;			/* bytes of data */
	int flags;			/* msg_flags */
	unsigned char data[CANFD_MTU];
	struct sock_extended_err ee;	/* of the CAN_RAW_TX_REPORT cmsg */
	int reports;			/* CAN_RAW_TX_REPORT cmsgs */
	int others;			/* any other cmsg but timestamps */
	long long ts;			/* SCM_TIMESTAMPNS, -1 without */
};

/* The next message of the error queue within @ms: 1, 0 if none came, or
 * -errno of recvmsg().
 */
static int tr_read(int fd, int ms, struct tr_rep *r)
{
	char ctrl[512];
	struct iovec iov = { .iov_base = r->data, .iov_len = sizeof(r->data) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl, .msg_controllen = sizeof(ctrl),
	};
	long long end = ct_now_ns(CLOCK_MONOTONIC) + ms * 1000000LL;
	struct cmsghdr *cm;
	struct timespec t;
	ssize_t n;

	for (;;) {
		n = recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
		if (n >= 0)
			break;
		if (errno != EAGAIN)
			return -errno;
		if (ct_now_ns(CLOCK_MONOTONIC) > end)
			return 0;
		usleep(1000);
	}
	memset(&r->ee, 0, sizeof(r->ee));
	r->len = n;
	r->flags = msg.msg_flags;
	r->reports = 0;
	r->others = 0;
	r->ts = -1;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level == SOL_CAN_RAW &&
		    cm->cmsg_type == CAN_RAW_TX_REPORT &&
		    cm->cmsg_len == CMSG_LEN(sizeof(r->ee))) {
			memcpy(&r->ee, CMSG_DATA(cm), sizeof(r->ee));
			r->reports++;
		} else if (cm->cmsg_level == SOL_SOCKET &&
			   cm->cmsg_type == SCM_TIMESTAMPNS) {
			memcpy(&t, CMSG_DATA(cm), sizeof(t));
			r->ts = t.tv_sec * 1000000000LL + t.tv_nsec;
		} else {
			r->others++;
		}
	}
	return 1;
}

/* Read up to @n reports, each within @ms of the one before; how many. */
static int tr_collect(int fd, struct tr_rep *reps, int n, int ms)
{
	int got = 0;

	while (got < n && tr_read(fd, ms, &reps[got]) == 1)
		got++;
	return got;
}

/* What @n reports say: per number, the errno; checks every report is
 * well formed (one CAN_RAW_TX_REPORT cmsg, origin local, classic frame
 * whose can_id is ee_info) and every number 0..@n-1 appears once.
 * Returns the number of bad reports, and counts errnos in @count.
 */
struct tr_tally {
	int by_seq[TR_MAX];	/* errno, -1 if not reported */
	int zero, enobufs, enetdown, ecomm, etimedout, ecanceled, other;
};

static int tr_tally(struct tr_rep *reps, int n, struct tr_tally *t)
{
	const struct can_frame *cf;
	int i, bad = 0;
	__u32 seq;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < TR_MAX; i++)
		t->by_seq[i] = -1;
	for (i = 0; i < n; i++) {
		cf = (const struct can_frame *)reps[i].data;
		seq = reps[i].ee.ee_data;
		if (reps[i].reports != 1 || reps[i].others ||
		    reps[i].len != CAN_MTU ||
		    !(reps[i].flags & MSG_ERRQUEUE) ||
		    reps[i].ee.ee_origin != SO_EE_ORIGIN_LOCAL ||
		    reps[i].ee.ee_info != cf->can_id || seq >= (__u32)n ||
		    t->by_seq[seq] != -1) {
			fprintf(stderr,
				"# bad report %d: cmsgs %d+%d len %d flags %#x origin %u info %#x id %#x seq %u\n",
				i, reps[i].reports, reps[i].others, reps[i].len,
				reps[i].flags, reps[i].ee.ee_origin,
				reps[i].ee.ee_info, cf->can_id, seq);
			bad++;
			continue;
		}
		t->by_seq[seq] = reps[i].ee.ee_errno;
		switch (reps[i].ee.ee_errno) {
		case 0:
			t->zero++;
			break;
		case ENOBUFS:
			t->enobufs++;
			break;
		case ENETDOWN:
			t->enetdown++;
			break;
		case ECOMM:
			t->ecomm++;
			break;
		case ETIMEDOUT:
			t->etimedout++;
			break;
		case ECANCELED:
			t->ecanceled++;
			break;
		default:
			t->other++;
		}
	}
	fprintf(stderr,
		"# %d reports: 0 x%d, ENOBUFS x%d, ENETDOWN x%d, ECOMM x%d, ETIMEDOUT x%d, ECANCELED x%d, other x%d\n",
		n, t->zero, t->enobufs, t->enetdown, t->ecomm, t->etimedout,
		t->ecanceled, t->other);
	return bad;
}

/* ---- sockets and frames ---------------------------------------------- */

static int tr_getopt(int fd, int optname, long long *val)
{
	socklen_t len = sizeof(__u32);
	__u32 v = 0;

	if (getsockopt(fd, SOL_CAN_RAW, optname, &v, &len))
		return -errno;
	if (len != sizeof(v))
		return -EPROTO;
	*val = v;
	return 0;
}

static long long tr_lost(int fd)
{
	long long v = -1;

	return tr_getopt(fd, CAN_RAW_TX_REPORTS_LOST, &v) ? -1 : v;
}

static int tr_set_deadline(int fd, __u32 us)
{
	return setsockopt(fd, SOL_CAN_RAW, CAN_RAW_TX_DEADLINE, &us,
			  sizeof(us)) ? -errno : 0;
}

/* A raw socket on @ifname with big buffers and CAN_RAW_TX_REPORT on. */
static int tr_socket(const char *ifname)
{
	int size = TR_SOCKBUF, fd;

	fd = ct_raw_open(if_nametoindex(ifname));
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) ||
	    ct_setopt_int(fd, CAN_RAW_TX_REPORT, 1)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Frame @i of a test: its id and data tell it apart from the others. */
static struct can_frame tr_frame(unsigned int i)
{
	struct can_frame cf;

	memset(&cf, 0, sizeof(cf));
	cf.can_id = 0x100 + (i % 0x600);
	cf.len = 8;
	memcpy(cf.data, &i, sizeof(i));
	cf.data[4] = 0xa5;
	cf.data[7] = i * 7;
	return cf;
}

/* Write frame @i without blocking; 0 or -errno. */
static int tr_write(int fd, unsigned int i)
{
	struct can_frame cf = tr_frame(i);

	return send(fd, &cf, sizeof(cf), MSG_DONTWAIT) == sizeof(cf) ? 0 : -errno;
}

/* The frame number the test put into a reported frame. */
static unsigned int tr_frame_no(const struct tr_rep *r)
{
	unsigned int i;

	memcpy(&i, ((const struct can_frame *)r->data)->data, sizeof(i));
	return i;
}

/* ---- the bus ---------------------------------------------------------- */

struct tr_bus {
	char dir[96];		/* the bus's debugfs directory */
	int nodes;
	char mark[64];		/* in the kernel log before the test */
};

/* Modules, a namespace of our own, debugfs; NULL or what went wrong. */
static const char *tr_enter(struct tr_bus *bus)
{
	const char *why;

	memset(bus, 0, sizeof(*bus));
	why = vbus_enter("can-raw can-vbus vcan", bus->dir, sizeof(bus->dir));
	if (why)
		return why;
	snprintf(bus->mark, sizeof(bus->mark), "txreport-mark-%d-%lld",
		 getpid(), ct_now_ns(CLOCK_MONOTONIC));
	if (vbus_sh("echo %s > /dev/kmsg", bus->mark))
		return "cannot write /dev/kmsg";
	return NULL;
}

/* Nodes tr<nodes> .. tr<n-1> at @bitrate with @opts, up; 0 or -1. */
static int tr_nodes(struct tr_bus *bus, int n, unsigned int bitrate,
		    const char *opts)
{
	return vbus_nodes("tr", &bus->nodes, n, bitrate, opts);
}

/* Warnings, bugs and the like in the kernel log since tr_enter(). */
static int tr_klog_trouble(const struct tr_bus *bus)
{
	return ct_klog_count(bus->mark,
			     "WARNING\\|BUG\\|Oops\\|lockdep\\|circular\\|refcount_t");
}

static int tr_read_counters(const struct tr_bus *bus, const char *node,
			    char *buf, size_t size)
{
	char path[160], *text;

	snprintf(path, sizeof(path), "%s/%s/counters", bus->dir, node);
	text = ct_read_file(path);
	if (!text)
		return -1;
	snprintf(buf, size, "%s", text);
	free(text);
	return 0;
}

/* Wait up to @ms for node @node to be error-active again. */
static bool tr_wait_active(const struct tr_bus *bus, const char *node, int ms)
{
	char buf[128];

	for (; ms > 0; ms -= 10) {
		if (!tr_read_counters(bus, node, buf, sizeof(buf)) &&
		    strstr(buf, "state error-active"))
			return true;
		usleep(10000);
	}
	return false;
}

/* Wait up to @ms for @node to be out of bus-off, restarted. A lone node
 * with frames left after its restart climbs to error-warning within a
 * dozen attempts (10-15 ms at 125 kbit/s): error-active may not last
 * long enough to be seen.
 */
static bool tr_wait_restarted(const struct tr_bus *bus, const char *node,
			      int ms)
{
	char buf[128];

	for (; ms > 0; ms -= 10) {
		if (!tr_read_counters(bus, node, buf, sizeof(buf)) &&
		    strstr(buf, "state ") && !strstr(buf, "state bus-off"))
			return true;
		usleep(10000);
	}
	return false;
}

/* Wait up to @ms for @ifname to be operationally up (IFF_RUNNING: the
 * carrier is back and the link watch has seen it, which also gives the
 * device its queue discipline back). Not through /sys/class/net, which
 * shows the namespace sysfs was mounted in.
 */
static bool tr_wait_oper_up(const char *ifname, int ms)
{
	struct ifreq ifr = {};

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", ifname);
	for (; ms > 0; ms -= 10) {
		if (!ct_ifreq(SIOCGIFFLAGS, &ifr) && (ifr.ifr_flags & IFF_RUNNING))
			return true;
		usleep(10000);
	}
	return false;
}

/* Fill a lone node's queue: TR_PLACES writes that must work. */
static int tr_fill(int fd, unsigned int first)
{
	unsigned int i;
	int err;

	for (i = 0; i < TR_PLACES; i++) {
		err = tr_write(fd, first + i);
		if (err)
			return err;
	}
	return 0;
}

FIXTURE(txr) {
	struct tr_bus bus;
	struct tr_rep reps[TR_MAX];
	struct tr_tally t;
};

FIXTURE_SETUP(txr)
{
	const char *why = tr_enter(&self->bus);

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(txr)
{
	if (self->bus.mark[0])
		EXPECT_EQ(0, tr_klog_trouble(&self->bus));
}

/* ---- 1: off by default, option checks ------------------------------- */

TEST_F(txr, default_off_and_options)
{
	static const int opts[] = {
		CAN_RAW_TX_REPORT, CAN_RAW_TX_DEADLINE,
		CAN_RAW_TX_FLUSH_BUS_OFF, CAN_RAW_TX_REPORTS_LOST,
	};
	char name[IFNAMSIZ];
	__u64 wide = 1000;
	__u16 narrow = 1000;
	long long v;
	int fd, i;

	ASSERT_EQ(0x4003, CAN_RAW_TX_REPORT);
	ASSERT_EQ(0x4004, CAN_RAW_TX_DEADLINE);
	ASSERT_EQ(0x4005, CAN_RAW_TX_FLUSH_BUS_OFF);
	ASSERT_EQ(0x4006, CAN_RAW_TX_REPORTS_LOST);
	ct_ifname(name, 'r');
	ASSERT_EQ(0, ct_vcan_create(name, 0, true));
	fd = ct_raw_open(if_nametoindex(name));
	ASSERT_LE(0, fd);
	for (i = 0; i < 4; i++) {
		v = -1;
		EXPECT_EQ(0, tr_getopt(fd, opts[i], &v));
		EXPECT_EQ(0, v) TH_LOG("option %#x", opts[i]);
	}
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, tr_write(fd, i));
	EXPECT_EQ(0, tr_read(fd, 200, &self->reps[0]));
	EXPECT_EQ(0, tr_lost(fd));

	/* The deadline is a __u32 and nothing else. */
	EXPECT_EQ(-1, setsockopt(fd, SOL_CAN_RAW, CAN_RAW_TX_DEADLINE,
				 &narrow, sizeof(narrow)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_CAN_RAW, CAN_RAW_TX_DEADLINE,
				 &wide, sizeof(wide)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, tr_getopt(fd, CAN_RAW_TX_DEADLINE, &v));
	EXPECT_EQ(0, v);
	EXPECT_EQ(0, tr_set_deadline(fd, 4000000000u));
	EXPECT_EQ(0, tr_getopt(fd, CAN_RAW_TX_DEADLINE, &v));
	EXPECT_EQ(4000000000ll, v);
	EXPECT_EQ(0, tr_set_deadline(fd, 0));

	/* The lost count is read only. */
	EXPECT_EQ(-ENOPROTOOPT, ct_setopt_int(fd, CAN_RAW_TX_REPORTS_LOST, 0));
	/* Flags read back as 0 or 1. */
	EXPECT_EQ(0, ct_setopt_int(fd, CAN_RAW_TX_REPORT, 7));
	EXPECT_EQ(0, tr_getopt(fd, CAN_RAW_TX_REPORT, &v));
	EXPECT_EQ(1, v);
	EXPECT_EQ(0, ct_setopt_int(fd, CAN_RAW_TX_FLUSH_BUS_OFF, -3));
	EXPECT_EQ(0, tr_getopt(fd, CAN_RAW_TX_FLUSH_BUS_OFF, &v));
	EXPECT_EQ(1, v);

	/* Frames sent while the option was off have no number: the first
	 * tracked one is 0. A write refused before the frame exists (a
	 * size that is no frame) takes none either.
	 */
	EXPECT_EQ(0, ct_setopt_int(fd, CAN_RAW_TX_REPORT, 1));
	EXPECT_EQ(-1, write(fd, &wide, 7));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, tr_write(fd, 42));
	ASSERT_EQ(1, tr_read(fd, TR_WAIT_MS, &self->reps[0]));
	EXPECT_EQ(0, self->reps[0].ee.ee_errno);
	EXPECT_EQ(0, self->reps[0].ee.ee_data);
	EXPECT_EQ(42, tr_frame_no(&self->reps[0]));
	EXPECT_EQ(0, tr_read(fd, 100, &self->reps[0]));
	close(fd);
}

/* ---- 2: vcan ---------------------------------------------------------- */

#define TR_VCAN_FRAMES	100

/* N frames on a vcan, a filter that takes none of them and own frames
 * not received: exactly N reports, all "sent", numbered 0..N-1 in write
 * order, each carrying its frame; nothing on the receive queue.
 */
static void tr_vcan_reports(struct __test_metadata *_metadata,
			    struct tr_rep *reps, struct tr_tally *t)
{
	struct can_filter flt = { .can_id = 0x7ff, .can_mask = CAN_SFF_MASK };
	struct pollfd pfd = { .events = 0 };
	struct can_frame cf;
	char name[IFNAMSIZ];
	int fd, i, n;

	ct_ifname(name, 'r');
	ASSERT_EQ(0, ct_vcan_create(name, 0, true));
	fd = tr_socket(name);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ct_set_filters(fd, &flt, 1));
	ASSERT_EQ(0, ct_setopt_int(fd, CAN_RAW_RECV_OWN_MSGS, 0));
	for (i = 0; i < TR_VCAN_FRAMES; i++)
		ASSERT_EQ(0, tr_write(fd, i)) TH_LOG("frame %d", i);

	pfd.fd = fd;
	ASSERT_EQ(1, poll(&pfd, 1, TR_WAIT_MS));
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_FALSE(pfd.revents & POLLIN);

	n = tr_collect(fd, reps, TR_MAX, 300);
	EXPECT_EQ(TR_VCAN_FRAMES, n);
	EXPECT_EQ(0, tr_tally(reps, n, t));
	EXPECT_EQ(TR_VCAN_FRAMES, t->zero);
	for (i = 0; i < n; i++) {
		cf = tr_frame(reps[i].ee.ee_data);
		/* Reports come in the order the frames were sent. */
		EXPECT_EQ(i, reps[i].ee.ee_data);
		EXPECT_EQ(0, memcmp(&cf, reps[i].data, sizeof(cf)))
			TH_LOG("report %d: not the frame sent", i);
		EXPECT_EQ(cf.can_id, reps[i].ee.ee_info);
		EXPECT_EQ(0, reps[i].ee.ee_type);
		EXPECT_EQ(0, reps[i].ee.ee_code);
	}
	EXPECT_TRUE(ct_is_quiet(fd));
	EXPECT_EQ(0, tr_lost(fd));
	close(fd);
}

TEST_F(txr, vcan_every_frame_once)
{
	tr_vcan_reports(_metadata, self->reps, &self->t);
}

static int tr_reload_vcan(const char *params)
{
	return vbus_sh("rmmod vcan 2>/dev/null; modprobe vcan %s", params);
}

/* The same with vcan echoing frames itself (echo=1, IFF_ECHO): the
 * report comes from the echo. vcan is loaded without echo afterwards.
 */
TEST_F(txr, vcan_echo_every_frame_once)
{
	char *echo;
	bool on;

	if (tr_reload_vcan("echo=1"))
		SKIP(return, "cannot reload vcan with echo=1");
	echo = ct_read_file("/sys/module/vcan/parameters/echo");
	on = echo && echo[0] == 'Y';
	free(echo);
	if (on)
		tr_vcan_reports(_metadata, self->reps, &self->t);
	EXPECT_EQ(0, tr_reload_vcan(""));
	ASSERT_TRUE(on) TH_LOG("vcan did not take echo=1");
}

/* ---- 3: timestamps on the wire -------------------------------------- */

#define TR_TS_FRAMES	50

/* Two nodes: every report says "sent", and its time is the end of the
 * frame on the wire, the very timestamp the receiver got.
 */
TEST_F(txr, vbus_report_time_is_rx_time)
{
	long long rx_ts[TR_TS_FRAMES], prev = 0;
	int tx, rx, i, n, one = 1;
	struct tr_rep got;

	ASSERT_EQ(0, tr_nodes(&self->bus, 2, 125000, ""));
	tx = tr_socket("tr0");
	rx = tr_socket("tr1");
	ASSERT_LE(0, tx);
	ASSERT_LE(0, rx);
	ASSERT_EQ(0, ct_setopt_int(tx, CAN_RAW_TX_WAIT, 1));
	ASSERT_EQ(0, setsockopt(tx, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)));
	ASSERT_EQ(0, setsockopt(rx, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)));
	for (i = 0; i < TR_TS_FRAMES; i++) {
		struct can_frame cf = tr_frame(i);

		ASSERT_EQ(sizeof(cf), write(tx, &cf, sizeof(cf)));
	}
	for (i = 0; i < TR_TS_FRAMES; i++) {
		char ctrl[CMSG_SPACE(sizeof(struct timespec))];
		struct can_frame cf, want = tr_frame(i);
		struct iovec iov = { .iov_base = &cf, .iov_len = sizeof(cf) };
		struct msghdr msg = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctrl, .msg_controllen = sizeof(ctrl),
		};
		struct cmsghdr *cm;
		struct timespec t;

		rx_ts[i] = -1;
		ASSERT_TRUE(ct_wait_readable(rx, TR_WAIT_MS));
		ASSERT_EQ(sizeof(cf), recvmsg(rx, &msg, 0));
		ASSERT_EQ(0, memcmp(&want, &cf, sizeof(cf))) TH_LOG("rx frame %d", i);
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
			if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SCM_TIMESTAMPNS) {
				memcpy(&t, CMSG_DATA(cm), sizeof(t));
				rx_ts[i] = t.tv_sec * 1000000000LL + t.tv_nsec;
			}
		ASSERT_LT(0, rx_ts[i]);
	}
	n = tr_collect(tx, self->reps, TR_MAX, 300);
	ASSERT_EQ(TR_TS_FRAMES, n);
	ASSERT_EQ(0, tr_tally(self->reps, n, &self->t));
	EXPECT_EQ(TR_TS_FRAMES, self->t.zero);
	for (i = 0; i < n; i++) {
		got = self->reps[i];
		ASSERT_EQ(i, got.ee.ee_data);
		EXPECT_EQ(i, tr_frame_no(&got));
		EXPECT_EQ(rx_ts[i], got.ts) TH_LOG("frame %d: report %lld, rx %lld",
						   i, got.ts, rx_ts[i]);
		EXPECT_LT(prev, got.ts);
		prev = got.ts;
	}
	TH_LOG("first to last frame end: %.3f ms",
	       (rx_ts[TR_TS_FRAMES - 1] - rx_ts[0]) / 1e6);
	EXPECT_EQ(0, tr_lost(tx));
	close(tx);
	close(rx);
}

/* ---- 4: ENOBUFS, then ENETDOWN --------------------------------------- */

#define TR_WRITES	20

/* Non-blocking writes to a lone node: each one that fails reports ENOBUFS
 * at once, with its number; the frames that got in report ENETDOWN when
 * the device is deleted. Every number once, no frame "sent".
 */
TEST_F(txr, enobufs_then_enetdown)
{
	int werr[TR_WRITES], i, n, fd, failed = 0;

	ASSERT_EQ(0, tr_nodes(&self->bus, 1, 125000, ""));
	fd = tr_socket("tr0");
	ASSERT_LE(0, fd);
	for (i = 0; i < TR_WRITES; i++) {
		werr[i] = tr_write(fd, i);
		ASSERT_TRUE(!werr[i] || werr[i] == -ENOBUFS) TH_LOG("write %d: %d", i, werr[i]);
		failed += !!werr[i];
	}
	TH_LOG("%d writes failed with ENOBUFS", failed);
	EXPECT_EQ(TR_WRITES - TR_PLACES, failed);
	for (i = 0; i < TR_PLACES; i++)
		EXPECT_EQ(0, werr[i]);

	n = tr_collect(fd, self->reps, TR_MAX, 300);
	ASSERT_EQ(failed, n);
	for (i = 0; i < n; i++) {
		unsigned int seq = self->reps[i].ee.ee_data;

		ASSERT_LT(seq, TR_WRITES);
		EXPECT_EQ(ENOBUFS, self->reps[i].ee.ee_errno);
		EXPECT_EQ(-ENOBUFS, werr[seq]) TH_LOG("frame %u", seq);
		EXPECT_EQ(seq, tr_frame_no(&self->reps[i]));
	}

	ASSERT_EQ(0, vbus_sh("ip link del tr0"));
	self->bus.nodes = 0;
	n += tr_collect(fd, self->reps + n, TR_MAX - n, TR_WAIT_MS);
	ASSERT_EQ(TR_WRITES, n);
	ASSERT_EQ(0, tr_tally(self->reps, n, &self->t));
	EXPECT_EQ(TR_WRITES - failed, self->t.enetdown);
	EXPECT_EQ(failed, self->t.enobufs);
	for (i = 0; i < TR_WRITES; i++)
		EXPECT_EQ(werr[i] ? ENOBUFS : ENETDOWN, self->t.by_seq[i])
			TH_LOG("frame %d", i);
	EXPECT_EQ(0, tr_read(fd, 100, &self->reps[0]));
	EXPECT_EQ(0, tr_lost(fd));
	close(fd);
}

/* ---- 5: deadlines ----------------------------------------------------- */

#define TR_DEADLINE_US	20000

/* A lone node never gets a frame out: with a 20 ms deadline, the frames
 * that got in report ETIMEDOUT, not before 20 ms after their write, the
 * others ENOBUFS; the queue is empty afterwards.
 */
TEST_F(txr, deadline_alone)
{
	long long written[TR_WRITES], late, min_late = -1;
	int werr[TR_WRITES], i, n, fd, one = 1, failed = 0;

	ASSERT_EQ(0, tr_nodes(&self->bus, 1, 125000, ""));
	fd = tr_socket("tr0");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tr_set_deadline(fd, TR_DEADLINE_US));
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one,
				sizeof(one)));
	for (i = 0; i < TR_WRITES; i++) {
		written[i] = ct_now_ns(CLOCK_REALTIME);
		werr[i] = tr_write(fd, i);
		ASSERT_TRUE(!werr[i] || werr[i] == -ENOBUFS) TH_LOG("write %d: %d", i, werr[i]);
		failed += !!werr[i];
	}
	n = tr_collect(fd, self->reps, TR_MAX, TR_WAIT_MS);
	ASSERT_EQ(TR_WRITES, n);
	ASSERT_EQ(0, tr_tally(self->reps, n, &self->t));
	TH_LOG("%d writes failed with ENOBUFS", failed);
	EXPECT_EQ(0, self->t.zero);
	EXPECT_EQ(failed, self->t.enobufs);
	EXPECT_EQ(TR_WRITES - failed, self->t.etimedout);
	for (i = 0; i < n; i++) {
		unsigned int seq = self->reps[i].ee.ee_data;

		EXPECT_EQ(werr[seq] ? ENOBUFS : ETIMEDOUT, self->reps[i].ee.ee_errno);
		if (self->reps[i].ee.ee_errno != ETIMEDOUT)
			continue;
		late = self->reps[i].ts - written[seq];
		if (min_late < 0 || late < min_late)
			min_late = late;
	}
	TH_LOG("earliest ETIMEDOUT %.3f ms after its write", min_late / 1e6);
	EXPECT_GE(min_late, TR_DEADLINE_US * 1000LL);
	/* Nothing is left: the whole queue is free again. */
	EXPECT_EQ(0, tr_fill(fd, 100));
	close(fd);
}

/* With a peer and a deadline of a second, every frame makes it. */
TEST_F(txr, deadline_generous)
{
	const int frames = 100;
	int fd, i, n;

	ASSERT_EQ(0, tr_nodes(&self->bus, 2, 125000, ""));
	fd = tr_socket("tr0");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tr_set_deadline(fd, 1000000));
	ASSERT_EQ(0, ct_setopt_int(fd, CAN_RAW_TX_WAIT, 1));
	for (i = 0; i < frames; i++) {
		struct can_frame cf = tr_frame(i);

		ASSERT_EQ(sizeof(cf), write(fd, &cf, sizeof(cf)));
	}
	n = tr_collect(fd, self->reps, TR_MAX, TR_WAIT_MS);
	ASSERT_EQ(frames, n);
	ASSERT_EQ(0, tr_tally(self->reps, n, &self->t));
	EXPECT_EQ(frames, self->t.zero);
	close(fd);
}

/* ---- 6: bus-off -------------------------------------------------------- */

static int tr_bus_off(const struct tr_bus *bus, const char *node)
{
	return vbus_sh("echo bus-off > %s/%s/fault", bus->dir, node);
}

/* Without automatic restart the device keeps its carrier off: the frames
 * in the controller are lost at bus-off, those in the queue when the
 * stack empties it, all with ECOMM. After a manual restart, a frame to a
 * peer goes out and takes the next number.
 */
TEST_F(txr, bus_off_manual_restart_ecomm)
{
	int fd, n;

	ASSERT_EQ(0, tr_nodes(&self->bus, 1, 125000, "restart-ms 0"));
	fd = tr_socket("tr0");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tr_fill(fd, 0));
	EXPECT_EQ(0, tr_read(fd, 50, &self->reps[0]));
	ASSERT_EQ(0, tr_bus_off(&self->bus, "tr0"));
	n = tr_collect(fd, self->reps, TR_MAX, TR_WAIT_MS);
	ASSERT_EQ(TR_PLACES, n);
	ASSERT_EQ(0, tr_tally(self->reps, n, &self->t));
	EXPECT_EQ(TR_PLACES, self->t.ecomm);
	/* The controller's four first. */
	for (n = 0; n < TR_FIFO; n++)
		EXPECT_EQ(n, self->reps[n].ee.ee_data);

	ASSERT_EQ(0, vbus_sh("ip link set tr0 type can restart"));
	ASSERT_TRUE(tr_wait_active(&self->bus, "tr0", 2000));
	ASSERT_TRUE(tr_wait_oper_up("tr0", 2000));
	ASSERT_EQ(0, tr_nodes(&self->bus, 2, 125000, ""));
	ASSERT_TRUE(tr_wait_oper_up("tr1", CT_EVENT_TIMEOUT_MS));
	ASSERT_EQ(0, tr_write(fd, 99));
	ASSERT_EQ(1, tr_read(fd, TR_WAIT_MS, &self->reps[0]));
	EXPECT_EQ(0, self->reps[0].ee.ee_errno);
	EXPECT_EQ(TR_PLACES, self->reps[0].ee.ee_data);
	EXPECT_EQ(99, tr_frame_no(&self->reps[0]));
	EXPECT_EQ(0, tr_read(fd, 100, &self->reps[0]));
	close(fd);
}

/* With restart-ms and CAN_RAW_TX_FLUSH_BUS_OFF: the controller's frames
 * report ECOMM; the queued ones ECOMM if the stack emptied the queue
 * before the restart, else ECANCELED when the driver takes them; none
 * goes out. A frame written after the bus-off is sent.
 */
TEST_F(txr, bus_off_flush)
{
	int fd, n, i;

	ASSERT_EQ(0, tr_nodes(&self->bus, 1, 125000, "restart-ms 100"));
	fd = tr_socket("tr0");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ct_setopt_int(fd, CAN_RAW_TX_FLUSH_BUS_OFF, 1));
	ASSERT_EQ(0, tr_fill(fd, 0));
	EXPECT_EQ(0, tr_read(fd, 50, &self->reps[0]));
	ASSERT_EQ(0, tr_bus_off(&self->bus, "tr0"));
	n = tr_collect(fd, self->reps, TR_MAX, TR_WAIT_MS);
	ASSERT_EQ(TR_PLACES, n);
	ASSERT_EQ(0, tr_tally(self->reps, n, &self->t));
	EXPECT_EQ(TR_PLACES, self->t.ecomm + self->t.ecanceled);
	EXPECT_LE(TR_FIFO, self->t.ecomm);
	for (i = 0; i < TR_FIFO; i++)
		EXPECT_EQ(ECOMM, self->t.by_seq[i]) TH_LOG("frame %d", i);

	ASSERT_TRUE(tr_wait_active(&self->bus, "tr0", 2000));
	ASSERT_TRUE(tr_wait_oper_up("tr0", 2000));
	ASSERT_EQ(0, tr_nodes(&self->bus, 2, 125000, ""));
	ASSERT_TRUE(tr_wait_oper_up("tr1", CT_EVENT_TIMEOUT_MS));
	ASSERT_EQ(0, tr_write(fd, 99));
	ASSERT_EQ(1, tr_read(fd, TR_WAIT_MS, &self->reps[0]));
	EXPECT_EQ(0, self->reps[0].ee.ee_errno);
	EXPECT_EQ(TR_PLACES, self->reps[0].ee.ee_data);
	EXPECT_EQ(0, tr_read(fd, 100, &self->reps[0]));
	close(fd);
}

/* The same without the flush: the controller's frames report ECOMM; the
 * queued ones either ECOMM (queue emptied) or, once a peer acks, 0.
 * Every number once.
 */
TEST_F(txr, bus_off_no_flush)
{
	int fd, n, i;

	ASSERT_EQ(0, tr_nodes(&self->bus, 1, 125000, "restart-ms 100"));
	fd = tr_socket("tr0");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tr_fill(fd, 0));
	EXPECT_EQ(0, tr_read(fd, 50, &self->reps[0]));
	ASSERT_EQ(0, tr_bus_off(&self->bus, "tr0"));
	n = tr_collect(fd, self->reps, TR_FIFO, TR_WAIT_MS);
	ASSERT_EQ(TR_FIFO, n);
	ASSERT_TRUE(tr_wait_restarted(&self->bus, "tr0", 2000));
	ASSERT_EQ(0, tr_nodes(&self->bus, 2, 125000, ""));
	n += tr_collect(fd, self->reps + n, TR_MAX - n, TR_WAIT_MS);
	ASSERT_EQ(TR_PLACES, n);
	ASSERT_EQ(0, tr_tally(self->reps, n, &self->t));
	EXPECT_EQ(TR_PLACES, self->t.ecomm + self->t.zero);
	for (i = 0; i < TR_FIFO; i++)
		EXPECT_EQ(ECOMM, self->t.by_seq[i]) TH_LOG("frame %d", i);
	close(fd);
}

/* ---- 7: writers in parallel ----------------------------------------- */

#define TR_THREADS		4
#define TR_PER_THREAD		500

struct tr_writer {
	pthread_t thread;
	int fd;
	int index;
	int errors;
};

static void *tr_writer_run(void *arg)
{
	struct tr_writer *w = arg;
	unsigned int i;

	for (i = 0; i < TR_PER_THREAD; i++) {
		struct can_frame cf = tr_frame(w->index * TR_PER_THREAD + i);

		if (write(w->fd, &cf, sizeof(cf)) != sizeof(cf))
			w->errors++;
	}
	return NULL;
}

/* Four threads write through one waiting socket: every number from 0 to
 * 1999 once, every frame sent, and each thread's frames numbered in the
 * order that thread wrote them.
 */
TEST_F(txr, parallel_writers)
{
	struct tr_writer w[TR_THREADS];
	int last[TR_THREADS];
	const int total = TR_THREADS * TR_PER_THREAD;
	int fd, i, n, frame, order = 0;

	ASSERT_EQ(0, tr_nodes(&self->bus, 2, 1000000, ""));
	fd = tr_socket("tr0");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ct_setopt_int(fd, CAN_RAW_TX_WAIT, 1));
	for (i = 0; i < TR_THREADS; i++) {
		w[i] = (struct tr_writer){ .fd = fd, .index = i };
		ASSERT_EQ(0, pthread_create(&w[i].thread, NULL, tr_writer_run, &w[i]));
	}
	for (i = 0; i < TR_THREADS; i++) {
		ASSERT_EQ(0, pthread_join(w[i].thread, NULL));
		EXPECT_EQ(0, w[i].errors);
		last[i] = -1;
	}
	n = tr_collect(fd, self->reps, TR_MAX, TR_WAIT_MS);
	ASSERT_EQ(total, n);
	ASSERT_EQ(0, tr_tally(self->reps, n, &self->t));
	EXPECT_EQ(total, self->t.zero);
	for (i = 0; i < total; i++)
		EXPECT_EQ(0, self->t.by_seq[i]);
	/* The reports in number order; a thread's frames must rise. */
	for (i = 0; i < n; i++) {
		frame = tr_frame_no(&self->reps[i]);
		ASSERT_LT(frame, total);
		if ((int)(frame % TR_PER_THREAD) <= last[frame / TR_PER_THREAD])
			order++;
		last[frame / TR_PER_THREAD] = frame % TR_PER_THREAD;
	}
	EXPECT_EQ(0, order);
	EXPECT_EQ(0, tr_lost(fd));
	close(fd);
}

/* ---- 8: lost reports ------------------------------------------------- */

#define TR_LOST_FRAMES	200

/* The frames @ifname sent, from /proc/net/dev, which shows the links of
 * the reader's namespace (sysfs those of the one it was mounted in); -1
 * if @ifname is not there.
 */
static long long tr_tx_packets(const char *ifname)
{
	char *text = ct_read_file("/proc/net/dev"), *line, *colon, *save = NULL;
	long long sent = -1;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		if (strcmp(line + strspn(line, " "), ifname))
			continue;
		/* Eight receive counters, then bytes and packets sent. */
		if (sscanf(colon + 1, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %lld",
			   &sent) != 1)
			sent = -1;
		break;
	}
	free(text);
	return sent;
}

/* Wait up to @ms for @ifname to have sent @frames; the last count. */
static long long tr_wait_tx_packets(const char *ifname, long long frames,
				    int ms)
{
	long long end = ct_now_ns(CLOCK_MONOTONIC) + ms * 1000000LL;
	long long sent;

	while ((sent = tr_tx_packets(ifname)) < frames &&
	       ct_now_ns(CLOCK_MONOTONIC) < end)
		usleep(10000);
	return sent;
}

/* The smallest receive buffer: reports that did not fit are counted, and
 * with those read the sum is the frames sent.
 */
TEST_F(txr, lost_reports_counted)
{
	struct can_filter none;
	char name[IFNAMSIZ];
	int fd, zero = 0, i, n;
	socklen_t len = sizeof(int);
	int rcvbuf = 0;

	ct_ifname(name, 'r');
	ASSERT_EQ(0, ct_vcan_create(name, 0, true));
	fd = ct_raw_open(if_nametoindex(name));
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, &none, 0));
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &zero, sizeof(zero)));
	ASSERT_EQ(0, getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len));
	ASSERT_EQ(0, ct_setopt_int(fd, CAN_RAW_TX_REPORT, 1));
	for (i = 0; i < TR_LOST_FRAMES; i++)
		ASSERT_EQ(0, tr_write(fd, i)) TH_LOG("frame %d", i);
	/* A report is queued, or counted lost, when vcan frees the frame,
	 * right after it counted the frame as sent; the queue discipline
	 * may hand frames to vcan after the write returned. Reading earlier
	 * would make room for reports that should be lost.
	 */
	EXPECT_EQ(TR_LOST_FRAMES, tr_wait_tx_packets(name, TR_LOST_FRAMES,
						     CT_EVENT_TIMEOUT_MS));
	n = tr_collect(fd, self->reps, TR_MAX, 300);
	TH_LOG("SO_RCVBUF %d: %d reports read, %lld lost", rcvbuf, n, tr_lost(fd));
	EXPECT_EQ(TR_LOST_FRAMES, n + tr_lost(fd));
	EXPECT_LT(0, tr_lost(fd));
	EXPECT_LT(0, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, self->reps[i].ee.ee_errno);
		EXPECT_EQ(i ? self->reps[i - 1].ee.ee_data + 1 : 0,
			  self->reps[i].ee.ee_data) TH_LOG("report %d", i);
	}
	close(fd);
}

/* ---- 9, 10: the socket or the module goes ---------------------------- */

static long tr_module_refs(const char *module)
{
	char path[96], *text;
	long refs;

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", module);
	text = ct_read_file(path);
	refs = text ? strtol(text, NULL, 10) : -1;
	free(text);
	return refs;
}

/* Wait up to @ms for the reference count of can_raw to fall to @refs. */
static long tr_wait_raw_refs(long refs, int ms)
{
	long now = -1;

	for (; ms > 0; ms -= 10) {
		now = tr_module_refs("can_raw");
		if (now == refs)
			break;
		usleep(10000);
	}
	return now;
}

/* The socket is closed with its frames in the queue, then the device is
 * deleted: the trackers let go of the socket, which is freed (can_raw's
 * reference count back where it was), and the kernel logs no warning.
 */
TEST_F(txr, close_with_frames_waiting)
{
	long refs;
	int fd;

	ASSERT_EQ(0, tr_nodes(&self->bus, 1, 125000, ""));
	refs = tr_module_refs("can_raw");
	ASSERT_LE(0, refs);
	fd = tr_socket("tr0");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ct_setopt_int(fd, CAN_RAW_TX_FLUSH_BUS_OFF, 1));
	ASSERT_EQ(0, tr_set_deadline(fd, 10000000));
	ASSERT_EQ(0, tr_fill(fd, 0));
	EXPECT_LT(refs, tr_module_refs("can_raw"));
	close(fd);
	usleep(100000);
	/* The frames still hold the socket. */
	EXPECT_LT(refs, tr_module_refs("can_raw"));
	ASSERT_EQ(0, vbus_sh("ip link del tr0"));
	self->bus.nodes = 0;
	EXPECT_EQ(refs, tr_wait_raw_refs(refs, 3000));
}

/* The same with the socket closed and the bus-off flush at work. */
TEST_F(txr, close_then_bus_off)
{
	long refs;
	int fd;

	ASSERT_EQ(0, tr_nodes(&self->bus, 1, 125000, "restart-ms 50"));
	refs = tr_module_refs("can_raw");
	fd = tr_socket("tr0");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ct_setopt_int(fd, CAN_RAW_TX_FLUSH_BUS_OFF, 1));
	ASSERT_EQ(0, tr_fill(fd, 0));
	close(fd);
	ASSERT_EQ(0, tr_bus_off(&self->bus, "tr0"));
	EXPECT_EQ(refs, tr_wait_raw_refs(refs, 3000));
	ASSERT_EQ(0, vbus_sh("ip link del tr0"));
	self->bus.nodes = 0;
}

/* Frames wait on a lone node while the socket stays open; the device is
 * deleted, every frame reports ENETDOWN, and can-vbus unloads.
 */
TEST_F(txr, module_unload_after_reports)
{
	int fd, n;

	ASSERT_EQ(0, tr_nodes(&self->bus, 1, 125000, ""));
	fd = tr_socket("tr0");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tr_fill(fd, 0));
	ASSERT_EQ(0, vbus_sh("ip link del tr0"));
	self->bus.nodes = 0;
	n = tr_collect(fd, self->reps, TR_MAX, TR_WAIT_MS);
	ASSERT_EQ(TR_PLACES, n);
	ASSERT_EQ(0, tr_tally(self->reps, n, &self->t));
	EXPECT_EQ(TR_PLACES, self->t.enetdown);
	EXPECT_EQ(0, vbus_sh("rmmod can-vbus"));
	EXPECT_EQ(0, vbus_sh("modprobe can-vbus"));
	close(fd);
}

/* rmmod can-vbus with the frames still waiting: the module deletes its
 * devices, every frame reports ENETDOWN, and the reports outlive it.
 */
TEST_F(txr, module_unload_with_frames_waiting)
{
	int fd, n;

	ASSERT_EQ(0, tr_nodes(&self->bus, 1, 125000, ""));
	fd = tr_socket("tr0");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tr_set_deadline(fd, 10000000));
	ASSERT_EQ(0, tr_fill(fd, 0));
	EXPECT_EQ(0, vbus_sh("rmmod can-vbus"));
	self->bus.nodes = 0;
	n = tr_collect(fd, self->reps, TR_MAX, TR_WAIT_MS);
	ASSERT_EQ(TR_PLACES, n);
	ASSERT_EQ(0, tr_tally(self->reps, n, &self->t));
	EXPECT_EQ(TR_PLACES, self->t.enetdown);
	EXPECT_EQ(0, vbus_sh("modprobe can-vbus"));
	close(fd);
}

TEST_HARNESS_MAIN
