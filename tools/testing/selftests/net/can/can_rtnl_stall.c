// SPDX-License-Identifier: GPL-2.0
/*
 * No CAN socket lets a user hold RTNL. SO_ATTACH_FILTER copies the
 * program from user memory with the socket lock held (the socket core
 * does that), and a user can stall that copy on a userfaultfd page for
 * as long as they like. Deleting the device the socket is bound to must
 * still finish, and so must any RTNL operation while a second thread
 * binds the stalled socket. One variant per protocol: raw, BCM, ISO-TP.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <linux/can/bcm.h>
#include <linux/can/isotp.h>
#include <linux/filter.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"

/* How long an RTNL operation may take while a socket call is stalled. */
#define RTNL_OP_BOUND_MS	5000
/* How long a thread must stay asleep in a lock to count as blocked. */
#define BLOCKED_FOR_MS		200

#define ISOTP_TX_ID		0x123
#define ISOTP_RX_ID		0x321

/* A call that a thread makes, so that the test can time it. */
struct async {
	pthread_t thread;
	int (*fn)(struct async *a);
	int fd;
	int protocol;
	int ifindex;
	char ifname[IFNAMSIZ];
	struct sock_fprog prog;
	atomic_int tid;
	atomic_bool done;
	atomic_int ret;
};

static void *async_run(void *arg)
{
	struct async *a = arg;

	atomic_store(&a->tid, gettid());
	atomic_store(&a->ret, a->fn(a));
	atomic_store(&a->done, true);
	return NULL;
}

static int async_start(struct async *a, int (*fn)(struct async *a))
{
	a->fn = fn;
	atomic_store(&a->tid, 0);
	atomic_store(&a->done, false);
	atomic_store(&a->ret, 1);
	return pthread_create(&a->thread, NULL, async_run, a);
}

/* Whether @a finished within @ms. */
static bool async_done_within(struct async *a, int ms)
{
	long long end = ct_now_ns(CLOCK_MONOTONIC) + ms * 1000000LL;

	while (!atomic_load(&a->done) && ct_now_ns(CLOCK_MONOTONIC) < end)
		usleep(10000);
	return atomic_load(&a->done);
}

/* Whether thread @tid sleeps uninterruptibly, as a lock waiter does. */
static bool thread_in_d_state(int tid)
{
	char path[64], *stat, *end;
	bool asleep;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	stat = ct_read_file(path);
	if (!stat)
		return false;
	end = strrchr(stat, ')');
	asleep = end && end[1] == ' ' && end[2] == 'D';
	free(stat);
	return asleep;
}

/*
 * Wait up to @ms until @a finished or has slept in D state for
 * BLOCKED_FOR_MS on end; true if either happened.
 */
static bool async_settled_within(struct async *a, int ms)
{
	long long end = ct_now_ns(CLOCK_MONOTONIC) + ms * 1000000LL;
	int asleep_ms = 0;

	while (ct_now_ns(CLOCK_MONOTONIC) < end) {
		if (atomic_load(&a->done))
			return true;
		if (atomic_load(&a->tid) && thread_in_d_state(a->tid))
			asleep_ms += 10;
		else
			asleep_ms = 0;
		if (asleep_ms >= BLOCKED_FOR_MS)
			return true;
		usleep(10000);
	}
	return false;
}

/* Bind a raw or ISO-TP socket, connect a BCM one: 0 or -errno. */
static int attach(int fd, int protocol, int ifindex)
{
	struct sockaddr_can addr = {
		.can_family = AF_CAN,
		.can_ifindex = ifindex,
	};
	int ret;

	if (protocol == CAN_ISOTP) {
		addr.can_addr.tp.tx_id = ISOTP_TX_ID;
		addr.can_addr.tp.rx_id = ISOTP_RX_ID;
	}
	if (protocol == CAN_BCM)
		ret = connect(fd, (struct sockaddr *)&addr, sizeof(addr));
	else
		ret = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
	return ret ? -errno : 0;
}

static int attach_filter_fn(struct async *a)
{
	return setsockopt(a->fd, SOL_SOCKET, SO_ATTACH_FILTER, &a->prog,
			  sizeof(a->prog)) ? -errno : 0;
}

static int rebind_fn(struct async *a)
{
	return attach(a->fd, a->protocol, a->ifindex);
}

static int delete_link_fn(struct async *a)
{
	return ct_link_del(a->ifname);
}

/* An RTNL operation that has nothing to do with the stalled socket. */
static int churn_link_fn(struct async *a)
{
	int err = ct_vcan_add(a->ifname);

	return err ?: ct_link_del(a->ifname);
}

/*
 * What a socket tells about its binding: the interface a raw or ISO-TP
 * socket is bound to (getsockname), or what a BCM socket answers to a
 * request (0 or -errno).
 */
static int binding_state(int fd, int protocol)
{
	struct bcm_msg_head head = { .opcode = TX_READ, .can_id = 0x10 };
	struct sockaddr_can addr = {};
	socklen_t len = sizeof(addr);

	if (protocol == CAN_BCM)
		return write(fd, &head, sizeof(head)) < 0 ? -errno : 0;
	if (getsockname(fd, (struct sockaddr *)&addr, &len))
		return -errno;
	return addr.can_ifindex;
}

FIXTURE(stall)
{
	char ifname[IFNAMSIZ];
	char other[IFNAMSIZ];
	int ifindex;
	int fd;
	struct ct_stall st;
	bool has_uffd;
	/* The stalled SO_ATTACH_FILTER. */
	struct async filter;
};

FIXTURE_VARIANT(stall)
{
	int type;
	int protocol;
	/* What binding the bound socket a second time returns. */
	int rebind_err;
	/* binding_state() once the device is gone. */
	int unbound_state;
};

FIXTURE_VARIANT_ADD(stall, raw)
{
	.type = SOCK_RAW,
	.protocol = CAN_RAW,
	.rebind_err = 0,
};

FIXTURE_VARIANT_ADD(stall, bcm)
{
	.type = SOCK_DGRAM,
	.protocol = CAN_BCM,
	.rebind_err = EISCONN,
	.unbound_state = -ENOTCONN,
};

FIXTURE_VARIANT_ADD(stall, isotp)
{
	.type = SOCK_DGRAM,
	.protocol = CAN_ISOTP,
	.rebind_err = EINVAL,
};

FIXTURE_SETUP(stall)
{
	self->fd = -1;
	self->st.uffd = -1;
	self->st.page = NULL;
	ct_ifname(self->ifname, 's');
	ct_ifname(self->other, 's');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	self->ifindex = if_nametoindex(self->ifname);
	ASSERT_NE(0, self->ifindex);

	self->fd = socket(PF_CAN, variant->type | SOCK_CLOEXEC,
			  variant->protocol);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, attach(self->fd, variant->protocol, self->ifindex));
	/*
	 * A bound raw socket readies duplicate detection, waiting for an
	 * RCU grace period, the first time its binding changes. Have that
	 * done here, so that a rebind in a test sleeps in locks only.
	 */
	ASSERT_EQ(-variant->rebind_err,
		  attach(self->fd, variant->protocol, self->ifindex));

	self->has_uffd = !ct_stall_init(&self->st);
}

FIXTURE_TEARDOWN(stall)
{
	ct_stall_fini(&self->st);
	if (self->fd >= 0)
		close(self->fd);
	ct_link_del(self->other);
	ct_link_del(self->ifname);
}

/* Start SO_ATTACH_FILTER on @fd and wait until it is stalled on @st. */
static void stall_attach_filter(struct __test_metadata *_metadata,
				struct async *filter, int fd,
				struct ct_stall *st)
{
	filter->fd = fd;
	filter->prog.len = 1;
	filter->prog.filter = (struct sock_filter *)st->page;
	ASSERT_EQ(0, async_start(filter, attach_filter_fn));
	ASSERT_TRUE(ct_stall_wait_fault(st, CT_RX_TIMEOUT_MS));
}

/*
 * Let the stalled SO_ATTACH_FILTER finish: it installs a filter that
 * accepts everything, and so returns 0.
 */
static void resolve_stall(struct __test_metadata *_metadata,
			  struct async *filter, struct ct_stall *st)
{
	struct sock_filter accept_all = BPF_STMT(BPF_RET | BPF_K, 0xffff);

	EXPECT_EQ(0, ct_stall_resolve(st, &accept_all, sizeof(accept_all)));
	pthread_join(filter->thread, NULL);
	EXPECT_EQ(0, atomic_load(&filter->ret));
}

TEST_F(stall, deleting_bound_device_does_not_wait_for_stalled_socket)
{
	struct async del = {};
	bool in_time;

	/* The debug kernel has no userfaultfd. */
	if (!self->has_uffd)
		SKIP(return, "no userfaultfd");
	stall_attach_filter(_metadata, &self->filter, self->fd, &self->st);
	snprintf(del.ifname, IFNAMSIZ, "%s", self->ifname);
	ASSERT_EQ(0, async_start(&del, delete_link_fn));
	in_time = async_done_within(&del, RTNL_OP_BOUND_MS);
	/* Before any verdict: a lost race must not leave RTNL taken. */
	resolve_stall(_metadata, &self->filter, &self->st);
	pthread_join(del.thread, NULL);

	EXPECT_TRUE(in_time);
	EXPECT_EQ(0, atomic_load(&del.ret));
	/* What every protocol reports once its device is gone. */
	EXPECT_EQ(ENODEV, ct_sock_error(self->fd));
	EXPECT_EQ(variant->unbound_state,
		  binding_state(self->fd, variant->protocol));
}

TEST_F(stall, rtnl_does_not_wait_for_bind_behind_stalled_socket)
{
	struct async rebind = {
		.fd = self->fd,
		.protocol = variant->protocol,
		.ifindex = self->ifindex,
	};
	struct async churn = {};
	bool settled, in_time;

	if (!self->has_uffd)
		SKIP(return, "no userfaultfd");
	stall_attach_filter(_metadata, &self->filter, self->fd, &self->st);
	snprintf(churn.ifname, IFNAMSIZ, "%s", self->other);
	ASSERT_EQ(0, async_start(&rebind, rebind_fn));
	settled = async_settled_within(&rebind, CT_RX_TIMEOUT_MS);
	EXPECT_EQ(0, async_start(&churn, churn_link_fn));
	in_time = async_done_within(&churn, RTNL_OP_BOUND_MS);
	resolve_stall(_metadata, &self->filter, &self->st);
	pthread_join(churn.thread, NULL);
	pthread_join(rebind.thread, NULL);

	EXPECT_TRUE(settled);
	EXPECT_TRUE(in_time);
	EXPECT_EQ(0, atomic_load(&churn.ret));
	EXPECT_EQ(-variant->rebind_err, atomic_load(&rebind.ret));
}

TEST_HARNESS_MAIN
