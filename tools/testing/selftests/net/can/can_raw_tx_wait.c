// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_RAW_TX_WAIT on controllers of the virtual CAN bus (can-vbus): a
 * write waits for room in the device queue instead of failing with
 * ENOBUFS, bounded by SO_SNDTIMEO, ended by the device going down or
 * away; poll() reports POLLOUT only when a write would be queued; the
 * per-namespace sysctl net.can.raw_tx_wait gives it to new sockets.
 *
 * Each test runs in a network namespace of its own (the harness forks
 * each test), so its nodes, group 0, make up a bus nobody else is on.
 * A node's queue holds 15 frames: its TX FIFO of 4, txqueuelen 10 in
 * the queue discipline, and the one frame the queue discipline took out
 * while the driver's queue was stopped and keeps to hand over next.
 */
#define TW_PLACES	15

#include <pthread.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"
#include "lib/can_test_vbus.h"

#define TW_SYSCTL	"/proc/sys/net/can/raw_tx_wait"
#define TW_SOCKBUF	(8 << 20)
/* wire_speed: 300 frames at 20 kbit/s, about 6 ms each, so that the
 * controller's 4 frames outlast the pauses a loaded host gives a TCG
 * guest (the rate at 125k, 500k and 1M is make bench's, under -icount).
 */
#define TW_FRAMES	300
#define TW_WIRE_BITRATE	20000

struct tw_bus {
	char dir[96];		/* the bus's debugfs directory */
	int nodes;
};

/* Nodes tw0 .. tw<n-1> at @bitrate, up; 0 or -1. */
static int tw_nodes(struct tw_bus *bus, int n, unsigned int bitrate)
{
	return vbus_nodes("tw", &bus->nodes, n, bitrate, "");
}

/* A raw socket on node @node, big buffers, CAN_RAW_TX_WAIT @wait. */
static int tw_socket(int node, int wait, bool nonblock)
{
	char name[IFNAMSIZ];
	int size = TW_SOCKBUF, fd;

	snprintf(name, sizeof(name), "tw%d", node);
	fd = ct_raw_open(if_nametoindex(name));
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) ||
	    (wait >= 0 && ct_setopt_int(fd, CAN_RAW_TX_WAIT, wait)) ||
	    (nonblock && fcntl(fd, F_SETFL, O_NONBLOCK))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int tw_getopt(int fd)
{
	socklen_t len = sizeof(int);
	int val = -1;

	if (getsockopt(fd, SOL_CAN_RAW, CAN_RAW_TX_WAIT, &val, &len))
		return -errno;
	return val;
}

/* Frame @seq: id 0x123, 8 bytes, the sequence number in the first 4. */
static int tw_write(int fd, unsigned int seq)
{
	struct can_frame cf = { .can_id = 0x123, .len = 8 };

	memcpy(cf.data, &seq, sizeof(seq));
	return write(fd, &cf, sizeof(cf)) == sizeof(cf) ? 0 : -errno;
}

/* The sequence number of the next frame on @fd, -1 if none in @ms;
 * its receive timestamp (ns) in *@ts if @ts and SO_TIMESTAMPNS is on.
 */
static long long tw_read_seq_ts(int fd, int ms, long long *ts)
{
	char ctrl[CMSG_SPACE(sizeof(struct timespec))];
	struct can_frame cf;
	struct iovec iov = { .iov_base = &cf, .iov_len = sizeof(cf) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl, .msg_controllen = sizeof(ctrl),
	};
	struct cmsghdr *cm;
	struct timespec t;
	unsigned int seq;

	if (!ct_wait_readable(fd, ms) || recvmsg(fd, &msg, 0) != sizeof(cf))
		return -1;
	for (cm = CMSG_FIRSTHDR(&msg); ts && cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_TIMESTAMPNS) {
			memcpy(&t, CMSG_DATA(cm), sizeof(t));
			*ts = t.tv_sec * 1000000000LL + t.tv_nsec;
		}
	}
	memcpy(&seq, cf.data, sizeof(seq));
	return seq;
}

static long long tw_read_seq(int fd, int ms)
{
	return tw_read_seq_ts(fd, ms, NULL);
}

/* Write until a write fails; its -errno (0 if @max writes all worked). */
static int tw_fill(int fd, int max, int *written)
{
	int err = 0;

	for (*written = 0; *written < max; (*written)++) {
		err = tw_write(fd, *written);
		if (err)
			break;
	}
	return err;
}

/* Fill the queue of a node alone on the bus without waiting, whatever
 * the socket's mode: the number of frames it took, -1 on another error.
 */
static int tw_fill_nowait(int fd)
{
	struct can_frame cf = { .can_id = 0x123, .len = 8 };
	int n;

	for (n = 0; n < 1000; n++) {
		if (send(fd, &cf, sizeof(cf), MSG_DONTWAIT) == sizeof(cf))
			continue;
		return errno == EAGAIN ? n : -1;
	}
	return -1;
}

FIXTURE(txw) {
	struct tw_bus bus;
};

FIXTURE_SETUP(txw)
{
	const char *why;

	memset(&self->bus, 0, sizeof(self->bus));
	why = vbus_enter("can-vbus can-raw", self->bus.dir,
			 sizeof(self->bus.dir));

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(txw)
{
}

/* Mainline behaviour without the option: a writer gets ENOBUFS once the
 * places are taken. The node is alone, so no frame leaves and the count
 * does not depend on how fast the writer is (a debug kernel's writer let
 * the bus drain 31 frames meanwhile, with a peer).
 */
TEST_F(txw, default_off_enobufs)
{
	int fd, n, err;

	ASSERT_EQ(0, tw_nodes(&self->bus, 1, 125000));
	fd = tw_socket(0, -1, false);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, tw_getopt(fd));
	err = tw_fill(fd, 200, &n);
	TH_LOG("ENOBUFS after %d frames", n);
	EXPECT_EQ(-ENOBUFS, err);
	EXPECT_GE(n, TW_PLACES);
	EXPECT_LE(n, TW_PLACES + 1);
	close(fd);
}

/* One wire-speed run: @TW_FRAMES back-to-back writes on @tx, numbered
 * from @base, read in order on @rx. *@seen is the rate from the first
 * frame's end on the wire to the last one's (the receive timestamps of
 * can-vbus), less the time the bus rested because the CPU could not keep
 * pace (slip-ns: a starved guest, not a slow writer); *@wire the rate the
 * bus itself reports (frames / busy-ns). 0, or the frame that went wrong.
 */
static int tw_wire_run(const struct tw_bus *bus, int tx, int rx, int base,
		       double *seen, double *wire)
{
	long long t0 = -1, t1 = -1, frames, busy, slip;
	int i;

	frames = vbus_stat(bus->dir, "frames");
	busy = vbus_stat(bus->dir, "busy-ns");
	slip = vbus_stat(bus->dir, "slip-ns");
	for (i = 0; i < TW_FRAMES; i++)
		if (tw_write(tx, base + i))
			return base + i + 1;
	for (i = 0; i < TW_FRAMES; i++)
		if (tw_read_seq_ts(rx, 2000, i ? &t1 : &t0) != base + i)
			return base + i + 1;
	frames = vbus_stat(bus->dir, "frames") - frames;
	busy = vbus_stat(bus->dir, "busy-ns") - busy;
	slip = vbus_stat(bus->dir, "slip-ns") - slip;
	if (frames != TW_FRAMES || busy <= 0 || t1 - t0 - slip <= 0)
		return -1;
	*wire = frames * 1e9 / busy;
	*seen = (TW_FRAMES - 1) * 1e9 / (t1 - t0 - slip);
	return 0;
}

/* Back-to-back writes of a waiting socket: every frame arrives, in
 * order, and the bus never waits for the writer: the rate on the wire is
 * the one the bus reports, within 2%. The wire times, not when the test
 * reads the frames, so that a slow reader does not count. A guest the
 * host stops for longer than the controller's frames last (the queue
 * discipline's wait for the NET_TX softirq) shows a gap that is not the
 * option's: the bitrate is low, and a run that misses is tried once more.
 */
TEST_F(txw, wire_speed)
{
	double seen = 0, wire = 0;
	int tx, rx, try, err, one = 1;

	ASSERT_EQ(0, tw_nodes(&self->bus, 2, TW_WIRE_BITRATE));
	tx = tw_socket(0, 1, false);
	rx = tw_socket(1, -1, false);
	ASSERT_LE(0, tx);
	ASSERT_LE(0, rx);
	ASSERT_EQ(0, setsockopt(rx, SOL_SOCKET, SO_TIMESTAMPNS, &one,
				sizeof(one)));
	ASSERT_EQ(1, tw_getopt(tx));

	for (try = 0; try < 2; try++) {
		err = tw_wire_run(&self->bus, tx, rx, try * TW_FRAMES, &seen,
				  &wire);
		ASSERT_EQ(0, err) TH_LOG("frame %d lost, out of order or unsent",
					 err - 1);
		TH_LOG("try %d: %d frames: %.1f frames/s on the wire, bus %.1f",
		       try, TW_FRAMES, seen, wire);
		if (seen >= wire * 0.98 && seen <= wire * 1.02)
			break;
	}
	EXPECT_LE(seen, wire * 1.02);
	EXPECT_GE(seen, wire * 0.98);
	close(tx);
	close(rx);
}

/* A node alone on the bus never completes a frame: its queue stays
 * full. A non-blocking waiting socket then gets EAGAIN, never ENOBUFS,
 * and poll() does not call it writable; once a peer acknowledges, it is
 * writable again.
 */
TEST_F(txw, nonblock_full_queue)
{
	struct pollfd pfd = { .events = POLLOUT };
	int n, err;

	ASSERT_EQ(0, tw_nodes(&self->bus, 1, 125000));
	pfd.fd = tw_socket(0, 1, true);
	ASSERT_LE(0, pfd.fd);
	err = tw_fill(pfd.fd, 200, &n);
	TH_LOG("EAGAIN after %d frames", n);
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(TW_PLACES, n);
	ASSERT_EQ(0, poll(&pfd, 1, 300));
	EXPECT_EQ(-EAGAIN, tw_write(pfd.fd, 99));

	ASSERT_EQ(0, tw_nodes(&self->bus, 2, 125000));
	ASSERT_EQ(1, poll(&pfd, 1, 3000));
	EXPECT_TRUE(pfd.revents & POLLOUT);
	EXPECT_EQ(0, tw_write(pfd.fd, 100));
	close(pfd.fd);
}

/*
 * A non-blocking writer that writes only when poll() says POLLOUT, on a
 * bus that keeps up: no ENOBUFS at all, and a write after POLLOUT
 * refused with EAGAIN at most in 1% of the writes. With a single writer
 * nothing else takes the room poll() saw, and room only grows until the
 * write, so any EAGAIN there would be a POLLOUT reported too early; the
 * 1% leaves room for a queue discipline that counts its length apart
 * from its slots, none is expected. Every frame still arrives in order.
 */
TEST_F(txw, nonblock_poll)
{
	struct pollfd pfd = { .events = POLLOUT };
	int i, rx, err, eagain = 0, polls = 0;
	const int frames = 500;

	ASSERT_EQ(0, tw_nodes(&self->bus, 2, 125000));
	pfd.fd = tw_socket(0, 1, true);
	rx = tw_socket(1, -1, false);
	ASSERT_LE(0, pfd.fd);
	ASSERT_LE(0, rx);
	for (i = 0; i < frames; ) {
		ASSERT_EQ(1, poll(&pfd, 1, 3000)) TH_LOG("frame %d", i);
		ASSERT_TRUE(pfd.revents & POLLOUT);
		polls++;
		err = tw_write(pfd.fd, i);
		ASSERT_NE(-ENOBUFS, err);
		if (err == -EAGAIN) {
			eagain++;
			continue;
		}
		ASSERT_EQ(0, err);
		i++;
	}
	TH_LOG("%d frames, %d polls, %d EAGAIN after POLLOUT", frames, polls,
	       eagain);
	EXPECT_LE(eagain, frames / 100);
	for (i = 0; i < frames; i++)
		ASSERT_EQ(i, tw_read_seq(rx, 2000));
	close(pfd.fd);
	close(rx);
}

/* SO_SNDTIMEO bounds the wait: alone on the bus, a blocking waiting
 * socket's write to the full queue fails with EAGAIN after about the
 * timeout.
 */
TEST_F(txw, sndtimeo)
{
	struct timeval tv = { .tv_usec = 300000 };
	long long t0, ms;
	int fd, n, err;

	ASSERT_EQ(0, tw_nodes(&self->bus, 1, 125000));
	fd = tw_socket(0, 1, false);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	n = tw_fill_nowait(fd);
	ASSERT_EQ(TW_PLACES, n);
	t0 = ct_now_ns(CLOCK_MONOTONIC);
	err = tw_write(fd, n);
	ms = (ct_now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	TH_LOG("write returned %d after %lld ms", err, ms);
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_GE(ms, 280);
	EXPECT_LE(ms, 800);
	close(fd);
}

/*
 * A child blocks in a write on a node alone on the bus (no timeout);
 * @action is run once it waits; the write must then fail with
 * @expect within 5 s. The kernel log after the mark must show no
 * warning.
 */
static void tw_waiter_ends(struct __test_metadata *_metadata,
			   struct tw_bus *bus, const char *action, int expect)
{
	int pipefd[2], fd, err, status;
	struct pollfd pfd;
	pid_t pid;

	ASSERT_EQ(0, tw_nodes(bus, 1, 125000));
	ASSERT_EQ(0, vbus_sh("echo txwait-mark-%d > /dev/kmsg", getpid()));
	ASSERT_EQ(0, pipe(pipefd));
	fd = tw_socket(0, 1, false);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (tw_fill_nowait(fd) != TW_PLACES)
			_exit(2);
		err = tw_write(fd, TW_PLACES);
		if (write(pipefd[1], &err, sizeof(err)) != sizeof(err))
			_exit(1);
		_exit(0);
	}
	close(fd);
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	/* Still waiting after half a second: it waits for room. */
	ASSERT_EQ(0, poll(&pfd, 1, 500));
	ASSERT_EQ(0, vbus_sh("%s", action)) TH_LOG("%s", action);
	ASSERT_EQ(1, poll(&pfd, 1, 5000)) TH_LOG("the writer still waits");
	ASSERT_EQ(sizeof(err), read(pipefd[0], &err, sizeof(err)));
	TH_LOG("%s: the write failed with %d (%s)", action, err, strerror(-err));
	EXPECT_EQ(expect, err);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("the queue did not take %d frames", TW_PLACES);
	usleep(200000);
	{
		char mark[64];

		snprintf(mark, sizeof(mark), "txwait-mark-%d", getpid());
		EXPECT_EQ(0, ct_klog_count(mark, "WARNING\\|BUG\\|Oops\\|lockdep\\|circular"));
	}
	close(pipefd[0]);
	close(pipefd[1]);
}

TEST_F(txw, waiter_device_down)
{
	tw_waiter_ends(_metadata, &self->bus, "ip link set tw0 down", -ENETDOWN);
}

TEST_F(txw, waiter_device_deleted)
{
	tw_waiter_ends(_metadata, &self->bus, "ip link del tw0", -ENODEV);
	self->bus.nodes = 0;
}

/* rmmod can-vbus deletes its devices: the waiter learns of it and lets
 * go of the device, so that the unload can finish.
 */
TEST_F(txw, waiter_module_unload)
{
	tw_waiter_ends(_metadata, &self->bus, "rmmod can-vbus", -ENODEV);
	self->bus.nodes = 0;
	EXPECT_EQ(0, vbus_sh("modprobe can-vbus"));
}

static int tw_sysctl_read(void)
{
	char *text = ct_read_file(TW_SYSCTL);
	int val = text ? atoi(text) : -1;

	free(text);
	return val;
}

static int tw_sysctl_write(const char *val)
{
	int fd = open(TW_SYSCTL, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* The sysctl gives new sockets of its namespace the option; another
 * namespace has its own, off. Out-of-range values are refused.
 */
TEST_F(txw, sysctl_per_netns)
{
	int before, after, fresh;

	ASSERT_EQ(0, tw_nodes(&self->bus, 1, 125000));
	ASSERT_EQ(0, tw_sysctl_read());
	before = tw_socket(0, -1, false);
	ASSERT_LE(0, before);
	ASSERT_EQ(0, tw_sysctl_write("1"));
	EXPECT_EQ(1, tw_sysctl_read());
	EXPECT_EQ(-EINVAL, tw_sysctl_write("2"));
	EXPECT_EQ(-EINVAL, tw_sysctl_write("-1"));
	after = tw_socket(0, -1, false);
	ASSERT_LE(0, after);
	EXPECT_EQ(0, tw_getopt(before));
	EXPECT_EQ(1, tw_getopt(after));
	EXPECT_EQ(0, ct_setopt_int(after, CAN_RAW_TX_WAIT, 0));
	EXPECT_EQ(0, tw_getopt(after));
	EXPECT_EQ(0, ct_setopt_int(after, CAN_RAW_TX_WAIT, 7));
	EXPECT_EQ(1, tw_getopt(after));

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	EXPECT_EQ(0, tw_sysctl_read());
	fresh = ct_raw_socket();
	ASSERT_LE(0, fresh);
	EXPECT_EQ(0, tw_getopt(fresh));
	close(fresh);
	close(before);
	close(after);
}

/* Unmodified cangen at full speed (-g 0) on a 500 kbit/s bus with the
 * sysctl on: it exits 0, never sees ENOBUFS, the bus carries all 3000
 * frames and candump on the peer gets every one (with a receive buffer
 * of 8 MiB, so that a slow guest does not drop them in its socket).
 */
TEST_F(txw, cangen_with_sysctl)
{
	char *log, line[64];
	int lines = 0;
	FILE *f;

	if (vbus_sh("command -v cangen >/dev/null && command -v candump >/dev/null"))
		SKIP(return, "can-utils not installed");
	ASSERT_EQ(0, tw_nodes(&self->bus, 2, 500000));
	ASSERT_EQ(0, tw_sysctl_write("1"));
	ASSERT_EQ(0, vbus_sh("rm -f /tmp/txw-dump /tmp/txw-gen"));
	ASSERT_EQ(0, vbus_sh("(timeout 60 candump -r %d -n 3000 tw1 > /tmp/txw-dump &)",
			     TW_SOCKBUF));
	/* candump binds last, its receive buffer set: from then on its
	 * receiver is in tw1's table and it gets every frame.
	 */
	EXPECT_TRUE(ct_wait_file_has("/proc/net/can/rcvlist_all", "   tw1 ",
				     CT_EVENT_TIMEOUT_MS))
		TH_LOG("candump did not bind to tw1");
	EXPECT_EQ(0, vbus_sh("timeout 60 cangen -g 0 -n 3000 -I 123 -L 8 tw0 2> /tmp/txw-gen"));
	/* candump exits after its 3000th frame. */
	EXPECT_EQ(0, vbus_sh("for i in $(seq 100); do pgrep -x candump >/dev/null || exit 0; "
			     "sleep 0.1; done; exit 1"));
	log = ct_read_file("/tmp/txw-gen");
	ASSERT_NE(NULL, log);
	EXPECT_EQ(NULL, strstr(log, "No buffer space")) TH_LOG("cangen: %s", log);
	free(log);
	f = fopen("/tmp/txw-dump", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		lines++;
	fclose(f);
	TH_LOG("candump received %d frames, the bus carried %lld", lines,
	       vbus_stat(self->bus.dir, "frames"));
	EXPECT_EQ(3000, vbus_stat(self->bus.dir, "frames"));
	EXPECT_EQ(3000, lines);
}

TEST_HARNESS_MAIN
