// SPDX-License-Identifier: GPL-2.0
/*
 * The broadcast manager under hostile input: every integer of the message
 * head at and around its limits gets mainline's errno; a user stalling
 * its own sendmsg() on a userfaultfd page cannot stall RTNL; and two RTR
 * filters cannot be set up to answer each other for ever. Tests that
 * could hang or wedge the kernel on a regression come last.
 */

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/userfaultfd.h>

#include "lib/can_test_bcm.h"
#include "lib/can_test.h"
#include "kselftest_harness.h"
#include "lib/can_test_bcm_fixtures.h"

#define HEAD_SIZE	((int)sizeof(struct bcm_msg_head))
#define CC_SIZE		((int)CAN_MTU)
#define FD_SIZE		((int)CANFD_MTU)
#define MAX_TIMER_SEC	(400L * 24 * 60 * 60)

/* Write @size bytes of @m, whatever its head says; byte count or -errno. */
static int bcm_write_size(int s, const struct bcm_msg *m, size_t size)
{
	ssize_t n = write(s, m, size);

	return n < 0 ? -errno : (int)n;
}

/* A head with @nframes valid classic (or FD) frames for @id behind it. */
static void bcm_valid(struct bcm_msg *m, __u32 opcode, __u32 flags,
		      canid_t id, __u32 nframes)
{
	__u32 i;

	memset(m, 0, sizeof(*m));
	bcm_head(m, opcode, flags, id, nframes);
	for (i = 0; i < nframes && i < BCM_T_MAX_FRAMES; i++) {
		if (flags & CAN_FD_FRAME) {
			m->fd[i].can_id = id;
			m->fd[i].len = 8;
		} else {
			m->cc[i].can_id = id;
			m->cc[i].len = 8;
		}
	}
}

TEST_F(bcm, every_unknown_or_reply_opcode_fails_einval)
{
	static const __u32 bad[] = {
		0, TX_STATUS, TX_EXPIRED, RX_STATUS, RX_TIMEOUT, RX_CHANGED,
		RX_CHANGED + 1, 0x7fffffff, 0x80000000, (__u32)-4095,
		(__u32)-1,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		bcm_valid(&self->m, bad[i], 0, 0x123, 1);
		EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m))
			TH_LOG("opcode %#x", bad[i]);
	}
}

TEST_F(bcm, unknown_flag_bits_are_ignored_and_read_back)
{
	__u32 flags = ~0xfffu;

	bcm_valid(&self->m, TX_SETUP, flags, 0x123, 1);
	ASSERT_EQ(HEAD_SIZE + CC_SIZE, bcm_write(self->s, &self->m));
	ASSERT_EQ(HEAD_SIZE, bcm_request(self->s, TX_READ, 0, 0x123));
	ASSERT_LT(0, bcm_read(self->s, &self->m, 1000, NULL, NULL));
	EXPECT_EQ((__u32)TX_STATUS, self->m.head.opcode);
	EXPECT_EQ(flags, self->m.head.flags);

	bcm_valid(&self->m, RX_SETUP, flags & ~RX_RTR_FRAME, 0x124, 1);
	EXPECT_EQ(HEAD_SIZE + CC_SIZE, bcm_write(self->s, &self->m));
}

TEST_F(bcm, any_count_is_accepted)
{
	static const __u32 counts[] = { 0, 1, 0x7fffffff, 0xffffffff };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		bcm_valid(&self->m, TX_SETUP, SETTIMER | TX_COUNTEVT, 0x123, 1);
		self->m.head.count = counts[i];
		self->m.head.ival1 = bcm_us(100000);
		EXPECT_EQ(HEAD_SIZE + CC_SIZE, bcm_write(self->s, &self->m))
			TH_LOG("count %u", counts[i]);
	}
}

/* Intervals outside 0 .. 400 days, microseconds outside 0 .. 999999. */
static const struct bcm_timeval bad_ivals[] = {
	{ -1, 0 }, { 0, -1 }, { 0, 1000000 }, { MAX_TIMER_SEC + 1, 0 },
	{ LONG_MAX, 0 }, { LONG_MIN, 0 }, { 0, LONG_MAX }, { 0, LONG_MIN },
	{ 1, 1000000 }, { LONG_MAX, LONG_MAX },
};

TEST_F(bcm, every_bad_interval_with_settimer_fails_einval)
{
	__u32 ops[] = { TX_SETUP, RX_SETUP };
	unsigned int i, o, which;

	for (o = 0; o < 2; o++) {
		for (which = 0; which < 2; which++) {
			for (i = 0; i < ARRAY_SIZE(bad_ivals); i++) {
				bcm_valid(&self->m, ops[o], SETTIMER, 0x123, 1);
				if (which)
					self->m.head.ival2 = bad_ivals[i];
				else
					self->m.head.ival1 = bad_ivals[i];
				EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m))
					TH_LOG("op %u ival%u {%ld, %ld}", ops[o],
					       which + 1, bad_ivals[i].tv_sec,
					       bad_ivals[i].tv_usec);
			}
		}
	}
}

TEST_F(bcm, bad_intervals_without_settimer_leave_timers_off)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_ivals); i++) {
		bcm_valid(&self->m, TX_SETUP, STARTTIMER, 0x200 + i, 1);
		self->m.head.ival1 = bad_ivals[i];
		self->m.head.ival2 = bad_ivals[i];
		EXPECT_EQ(HEAD_SIZE + CC_SIZE, bcm_write(self->s, &self->m));
		ASSERT_EQ(HEAD_SIZE, bcm_request(self->s, TX_READ, 0, 0x200 + i));
		ASSERT_LT(0, bcm_read_op(self->s, &self->m, TX_STATUS, 1000));
		EXPECT_EQ(0, self->m.head.ival1.tv_sec);
		EXPECT_EQ(0, self->m.head.ival2.tv_usec);
	}
}

TEST_F(bcm, longest_intervals_are_accepted)
{
	bcm_valid(&self->m, RX_SETUP, SETTIMER | STARTTIMER, 0x123, 1);
	self->m.head.ival1.tv_sec = MAX_TIMER_SEC;
	self->m.head.ival1.tv_usec = 999999;
	self->m.head.ival2 = self->m.head.ival1;
	EXPECT_EQ(HEAD_SIZE + CC_SIZE, bcm_write(self->s, &self->m));
	EXPECT_EQ(0, bcm_read(self->s, &self->m, 100, NULL, NULL));
}

TEST_F(bcm, identifiers_with_any_flag_bits_are_taken)
{
	static const canid_t ids[] = {
		0, CAN_SFF_MASK, CAN_EFF_FLAG | CAN_EFF_MASK, CAN_ERR_FLAG | 1,
		CAN_EFF_FLAG | CAN_RTR_FLAG | CAN_ERR_FLAG | CAN_EFF_MASK,
		0xffffffff,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		bcm_valid(&self->m, TX_SETUP, 0, ids[i], 1);
		EXPECT_EQ(HEAD_SIZE + CC_SIZE, bcm_write(self->s, &self->m));
		bcm_valid(&self->m, RX_SETUP, 0, ids[i], 1);
		EXPECT_EQ(HEAD_SIZE + CC_SIZE, bcm_write(self->s, &self->m));
		EXPECT_EQ(HEAD_SIZE, bcm_request(self->s, TX_DELETE, 0, ids[i]));
		EXPECT_EQ(HEAD_SIZE, bcm_request(self->s, RX_DELETE, 0, ids[i]));
	}
}

TEST_F(bcm, tx_setup_nframes_boundaries)
{
	bcm_valid(&self->m, TX_SETUP, 0, 0x100, 1);
	EXPECT_EQ(HEAD_SIZE + CC_SIZE, bcm_write(self->s, &self->m));
	bcm_valid(&self->m, TX_SETUP, 0, 0x101, 256);
	EXPECT_EQ(HEAD_SIZE + 256 * CC_SIZE, bcm_write(self->s, &self->m));
	bcm_valid(&self->m, TX_SETUP, CAN_FD_FRAME, 0x102, 256);
	EXPECT_EQ(HEAD_SIZE + 256 * FD_SIZE, bcm_write(self->s, &self->m));
	bcm_valid(&self->m, TX_SETUP, 0, 0x103, 0);
	EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m, HEAD_SIZE));
	bcm_valid(&self->m, TX_SETUP, 0, 0x103, 257);
	EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m));
	self->m.head.nframes = 0xffffffff;
	EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m,
					  HEAD_SIZE + 257 * CC_SIZE));
	self->m.head.nframes = 0x80000000;
	EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m, HEAD_SIZE));
}

TEST_F(bcm, rx_setup_nframes_boundaries)
{
	bcm_valid(&self->m, RX_SETUP, 0, 0x100, 257);
	EXPECT_EQ(HEAD_SIZE + 257 * CC_SIZE, bcm_write(self->s, &self->m));
	bcm_valid(&self->m, RX_SETUP, 0, 0x101, 257);
	self->m.head.nframes = 258;
	EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m,
					  HEAD_SIZE + 257 * CC_SIZE));
	self->m.head.nframes = 0xffffffff;
	EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m, HEAD_SIZE));
	/* A filter on the identifier alone ignores nframes and the rest. */
	self->m.head.flags = RX_FILTER_ID;
	EXPECT_EQ(HEAD_SIZE, bcm_write_size(self->s, &self->m, HEAD_SIZE));
}

TEST_F(bcm, message_size_must_match_whole_frames)
{
	bcm_valid(&self->m, TX_SETUP, 0, 0x123, 1);
	EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m, HEAD_SIZE - 1));
	EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m, 0));
	EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m,
					  HEAD_SIZE + CC_SIZE - 1));
	EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m,
					  HEAD_SIZE + CC_SIZE + 1));
	/* Fewer frames than nframes: the copy runs out. */
	self->m.head.nframes = 2;
	EXPECT_EQ(-EFAULT, bcm_write_size(self->s, &self->m,
					  HEAD_SIZE + CC_SIZE));
	/* More: the extra frames are not consumed. */
	self->m.head.nframes = 1;
	EXPECT_EQ(HEAD_SIZE + CC_SIZE,
		  bcm_write_size(self->s, &self->m, HEAD_SIZE + 2 * CC_SIZE));
}

TEST_F(bcm, frame_size_follows_the_fd_flag)
{
	bcm_valid(&self->m, TX_SETUP, CAN_FD_FRAME, 0x123, 1);
	EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m,
					  HEAD_SIZE + CC_SIZE));
	EXPECT_EQ(HEAD_SIZE + FD_SIZE,
		  bcm_write_size(self->s, &self->m, HEAD_SIZE + FD_SIZE));
	bcm_valid(&self->m, TX_SETUP, 0, 0x124, 1);
	EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m,
					  HEAD_SIZE + FD_SIZE));
	/* 72 bytes are 4.5 classic frames; 144 are 9 of them. */
	self->m.head.nframes = 9;
	EXPECT_EQ(HEAD_SIZE + 2 * FD_SIZE,
		  bcm_write_size(self->s, &self->m, HEAD_SIZE + 2 * FD_SIZE));
}

TEST_F(bcm, tx_send_needs_exactly_one_frame)
{
	static const __u32 counts[] = { 0, 2, 256, 0xffffffff };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		bcm_valid(&self->m, TX_SEND, 0, 0x123, 1);
		self->m.head.nframes = counts[i];
		EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m,
						  HEAD_SIZE + CC_SIZE));
	}
	bcm_valid(&self->m, TX_SEND, 0, 0x123, 1);
	EXPECT_EQ(-EINVAL, bcm_write_size(self->s, &self->m,
					  HEAD_SIZE + 2 * CC_SIZE));
	EXPECT_EQ(HEAD_SIZE + CC_SIZE, bcm_write(self->s, &self->m));
}

/* Interface indexes no CAN device has: the errno range, INT_MIN, ... */
static const int bad_ifindexes[] = {
	-1, -2, -4, -12, -22, -529, -4095, -4096, INT_MIN, INT_MAX, 1,
};

TEST(connect_to_every_bad_ifindex_fails_enodev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_ifindexes); i++)
		EXPECT_EQ(-ENODEV, bcm_socket(bad_ifindexes[i]))
			TH_LOG("ifindex %d", bad_ifindexes[i]);
}

static int bcm_sendto(int s, const struct bcm_msg *m, size_t size,
		      int ifindex)
{
	struct sockaddr_can addr = { .can_family = AF_CAN,
				     .can_ifindex = ifindex };
	ssize_t n = sendto(s, m, size, 0, (struct sockaddr *)&addr,
			   sizeof(addr));

	return n < 0 ? -errno : (int)n;
}

TEST_F(any, sendto_every_bad_ifindex_fails_enodev)
{
	static const __u32 ops[] = {
		TX_SETUP, TX_SEND, RX_SETUP, TX_DELETE, RX_READ, 0xffffffff,
	};
	unsigned int i, o;

	for (o = 0; o < ARRAY_SIZE(ops); o++) {
		for (i = 0; i < ARRAY_SIZE(bad_ifindexes); i++) {
			bcm_valid(&self->m, ops[o], 0, 0x123, 1);
			EXPECT_EQ(-ENODEV,
				  bcm_sendto(self->s, &self->m,
					     HEAD_SIZE + CC_SIZE,
					     bad_ifindexes[i]))
				TH_LOG("op %#x ifindex %d", ops[o],
				       bad_ifindexes[i]);
		}
	}
}

TEST_F(any, sendto_ifindex_zero_means_all_interfaces)
{
	bcm_valid(&self->m, TX_SETUP, 0, 0x123, 1);
	EXPECT_EQ(-ENODEV, bcm_sendto(self->s, &self->m, HEAD_SIZE + CC_SIZE, 0));
	bcm_valid(&self->m, TX_SEND, 0, 0x123, 1);
	EXPECT_EQ(-ENODEV, bcm_sendto(self->s, &self->m, HEAD_SIZE + CC_SIZE, 0));
	bcm_valid(&self->m, RX_SETUP, 0, 0x123, 1);
	EXPECT_EQ(HEAD_SIZE + CC_SIZE,
		  bcm_sendto(self->s, &self->m, HEAD_SIZE + CC_SIZE, 0));
}

/*
 * A thread writes a request whose frames lie on a page that userfaultfd
 * keeps missing, so its sendmsg() waits in the copy for as long as the
 * test likes. Meanwhile network configuration must go on.
 */
struct stalled_send {
	int s;
	int uffd;
	char *page;
	size_t page_size;
	struct bcm_msg_head head;
	pthread_t thread;
	bool started;
	bool resolved;
	int result;
};

static void *stalled_send_fn(void *arg)
{
	struct stalled_send *st = arg;
	struct iovec iov[2] = {
		{ &st->head, sizeof(st->head) },
		{ st->page, CAN_MTU },
	};
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t n = sendmsg(st->s, &msg, 0);

	st->result = n < 0 ? -errno : (int)n;
	return NULL;
}

/* 0, 1 without userfaultfd, or -errno. */
static int uffd_open_page(struct stalled_send *st)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	st->page_size = sysconf(_SC_PAGESIZE);
	st->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (st->uffd < 0)
		return 1;
	if (ioctl(st->uffd, UFFDIO_API, &api))
		return -errno;
	st->page = mmap(NULL, st->page_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->page == MAP_FAILED)
		return -errno;
	reg.range.start = (unsigned long)st->page;
	reg.range.len = st->page_size;
	if (ioctl(st->uffd, UFFDIO_REGISTER, &reg))
		return -errno;
	return 0;
}

/* Start the send and wait until it faults on the page. */
static int stalled_send_start(struct stalled_send *st)
{
	struct uffd_msg fault;

	if (pthread_create(&st->thread, NULL, stalled_send_fn, st))
		return -1;
	st->started = true;
	if (wait_readable(st->uffd, 5000) <= 0)
		return -1;
	if (read(st->uffd, &fault, sizeof(fault)) != sizeof(fault))
		return -1;
	return fault.event == UFFD_EVENT_PAGEFAULT ? 0 : -1;
}

/* Give the page one valid classic frame for @id and let the send go on. */
static void stalled_send_resolve(struct stalled_send *st, canid_t id)
{
	struct uffdio_copy copy = { .dst = (unsigned long)st->page,
				    .len = st->page_size };
	struct can_frame *cf;
	char *src;

	if (st->resolved)
		return;
	st->resolved = true;
	src = calloc(1, st->page_size);
	if (!src)
		return;
	cf = (struct can_frame *)src;
	cf->can_id = id;
	cf->len = 8;
	copy.src = (unsigned long)src;
	ioctl(st->uffd, UFFDIO_COPY, &copy);
	free(src);
}

/* Run ip(8) with @args; true if it ended within @ms milliseconds. */
static bool ip_finishes_within(const char *args, int ms)
{
	long long end = now_ns() + ms * 1000000LL;
	char cmd[128];
	pid_t pid;
	int status;

	snprintf(cmd, sizeof(cmd), "ip %s", args);
	pid = fork();
	if (pid < 0)
		return false;
	if (!pid) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (now_ns() < end) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return true;
		usleep(10000);
	}
	return false;
}

/* The change the main thread makes while the send is stalled. */
enum stall_action { SET_OWN_DOWN, DELETE_OTHER, DELETE_OWN };

FIXTURE(stall) {
	char own[IFNAMSIZ];
	char other[IFNAMSIZ];
	int own_ifindex;
	struct stalled_send st;
	bool ip_done;
};

FIXTURE_VARIANT(stall) {
	__u32 opcode;
	enum stall_action action;
	bool fails_enotconn;
};

FIXTURE_VARIANT_ADD(stall, tx_setup_own_down) {
	.opcode = TX_SETUP, .action = SET_OWN_DOWN,
};

FIXTURE_VARIANT_ADD(stall, rx_setup_own_down) {
	.opcode = RX_SETUP, .action = SET_OWN_DOWN,
};

FIXTURE_VARIANT_ADD(stall, tx_setup_other_deleted) {
	.opcode = TX_SETUP, .action = DELETE_OTHER,
};

FIXTURE_VARIANT_ADD(stall, rx_setup_other_deleted) {
	.opcode = RX_SETUP, .action = DELETE_OTHER,
};

FIXTURE_VARIANT_ADD(stall, rx_setup_own_deleted) {
	.opcode = RX_SETUP, .action = DELETE_OWN, .fails_enotconn = true,
};

FIXTURE_SETUP(stall)
{
	int err;

	self->st.uffd = -1;
	self->st.s = -1;
	self->own_ifindex = vcan_create(self->own, 0);
	ASSERT_LT(0, vcan_create(self->other, 1));
	ASSERT_LT(0, self->own_ifindex);
	err = uffd_open_page(&self->st);
	if (err == 1)
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, err);
	self->st.s = bcm_socket(self->own_ifindex);
	ASSERT_LE(0, self->st.s);
	self->st.head.opcode = variant->opcode;
	self->st.head.can_id = 0x321;
	self->st.head.nframes = 1;
}

FIXTURE_TEARDOWN(stall)
{
	if (self->st.started) {
		stalled_send_resolve(&self->st, 0x321);
		pthread_join(self->st.thread, NULL);
	}
	if (self->st.s >= 0)
		close(self->st.s);
	if (self->st.uffd >= 0)
		close(self->st.uffd);
	vcan_destroy(self->own);
	vcan_destroy(self->other);
}

TEST_F_TIMEOUT(stall, network_changes_do_not_wait_for_a_stalled_send, 60)
{
	char args[64];

	switch (variant->action) {
	case SET_OWN_DOWN:
		snprintf(args, sizeof(args), "link set %s down", self->own);
		break;
	case DELETE_OTHER:
		snprintf(args, sizeof(args), "link del %s", self->other);
		break;
	case DELETE_OWN:
		snprintf(args, sizeof(args), "link del %s", self->own);
		break;
	}

	ASSERT_EQ(0, stalled_send_start(&self->st));
	self->ip_done = ip_finishes_within(args, 5000);
	stalled_send_resolve(&self->st, 0x321);
	pthread_join(self->st.thread, NULL);
	self->st.started = false;

	EXPECT_TRUE(self->ip_done) TH_LOG("'ip %s' waited for the send", args);
	EXPECT_EQ(variant->fails_enotconn ? -ENOTCONN : HEAD_SIZE + CC_SIZE,
		  self->st.result);
}

/*
 * Last, in a fixture of its own (the harness runs tests fixture by
 * fixture): on a kernel that lets two RTR filters answer each other with
 * remote requests, the frames loop in softirq until the socket closes.
 */
FIXTURE(rtr_loop) {
	char ifname[IFNAMSIZ];
	int ifindex;
	int s;
	int raw;
	struct bcm_msg m;
};

FIXTURE_SETUP(rtr_loop)
{
	self->raw = -1;
	self->ifindex = vcan_create(self->ifname, 0);
	ASSERT_LT(0, self->ifindex);
	self->s = bcm_socket(self->ifindex);
	ASSERT_LE(0, self->s);
	self->raw = raw_socket(self->ifindex);
	ASSERT_LE(0, self->raw);
}

FIXTURE_TEARDOWN(rtr_loop)
{
	close(self->s);
	close(self->raw);
	vcan_destroy(self->ifname);
}

TEST_F(rtr_loop, rtr_filters_cannot_answer_each_other_for_ever)
{
	const canid_t x = 0x111 | CAN_RTR_FLAG, y = 0x222 | CAN_RTR_FLAG;
	long long before, after;
	int a, b;

	bcm_valid(&self->m, RX_SETUP, RX_RTR_FRAME, x, 1);
	self->m.cc[0].can_id = y;
	self->m.cc[0].len = 0;
	a = bcm_write(self->s, &self->m);
	bcm_valid(&self->m, RX_SETUP, RX_RTR_FRAME, y, 1);
	self->m.cc[0].can_id = x;
	self->m.cc[0].len = 0;
	b = bcm_write(self->s, &self->m);
	EXPECT_EQ(-EINVAL, a);
	EXPECT_EQ(-EINVAL, b);

	before = ct_link_stat(self->ifname, "tx_packets");
	ASSERT_EQ(0, raw_send(self->raw, x, (const __u8[1]) { 0 }, 0, false));
	usleep(1000000);
	after = ct_link_stat(self->ifname, "tx_packets");
	/* Closing the socket deletes the filters and ends any loop. */
	close(self->s);
	self->s = -1;
	EXPECT_GT(100, after - before)
		TH_LOG("%lld frames in 1 s", after - before);
}

TEST_HARNESS_MAIN
