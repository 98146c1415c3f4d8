// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_RAW must not let a user stall network configuration: a socket call
 * stuck on a user page (userfaultfd) holds no lock the device notifier
 * needs, changing filters forces no expedited RCU grace period under
 * rtnl_lock(), and closing sockets while their device is deleted and its
 * index reused leaves nothing behind to warn about.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"

/* How long `ip link set down` may take while a socket call is stuck. */
#define LINK_OP_BOUND_MS	3000

/* A socket call run by a thread, so that it can block on the page. */
struct blocked_call {
	pthread_t thread;
	int fd;
	int optname;
	int level;
	void *optval;
	socklen_t optlen;
	bool is_get;
	atomic_int ret;
};

static void *blocked_call_run(void *arg)
{
	struct blocked_call *c = arg;
	int ret;

	if (c->is_get)
		ret = getsockopt(c->fd, c->level, c->optname, c->optval,
				 &c->optlen);
	else
		ret = setsockopt(c->fd, c->level, c->optname, c->optval,
				 c->optlen);
	atomic_store(&c->ret, ret < 0 ? -errno : ret);
	return NULL;
}

/* `ip link set @ifname down` in a thread, timed. */
struct link_down {
	pthread_t thread;
	const char *ifname;
	atomic_bool done;
	int err;
};

static void *link_down_run(void *arg)
{
	struct link_down *l = arg;

	l->err = ct_link_set_up(l->ifname, false);
	atomic_store(&l->done, true);
	return NULL;
}

/* Whether the link went down within @ms. */
static bool link_down_within(struct link_down *l, int ms)
{
	long long end = ct_now_ns(CLOCK_MONOTONIC) + ms * 1000000LL;

	while (!atomic_load(&l->done) && ct_now_ns(CLOCK_MONOTONIC) < end)
		usleep(10000);
	return atomic_load(&l->done);
}

FIXTURE(locks)
{
	char ifname[IFNAMSIZ];
	int ifindex;
	int fd;
	struct ct_stall st;
};

FIXTURE_SETUP(locks)
{
	self->fd = -1;
	self->st.uffd = -1;
	self->st.page = NULL;
	ct_ifname(self->ifname, 'k');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	self->ifindex = if_nametoindex(self->ifname);
	ASSERT_NE(0, self->ifindex);
}

FIXTURE_TEARDOWN(locks)
{
	ct_stall_fini(&self->st);
	if (self->fd >= 0)
		close(self->fd);
	ct_link_del(self->ifname);
}

/*
 * Start @c, wait until it blocks on the page, take the link down, then
 * resolve the page with @data. True if the link went down in time.
 */
static bool link_down_beside(struct __test_metadata *_metadata,
			     const char *ifname, struct ct_stall *st,
			     struct blocked_call *c, const void *data,
			     size_t len)
{
	struct link_down l = { .ifname = ifname };
	bool in_time;

	atomic_store(&c->ret, 1);
	atomic_store(&l.done, false);
	EXPECT_EQ(0, pthread_create(&c->thread, NULL, blocked_call_run, c));
	EXPECT_TRUE(ct_stall_wait_fault(st, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(0, pthread_create(&l.thread, NULL, link_down_run, &l));
	in_time = link_down_within(&l, LINK_OP_BOUND_MS);
	EXPECT_EQ(0, ct_stall_resolve(st, data, len));
	pthread_join(l.thread, NULL);
	pthread_join(c->thread, NULL);
	EXPECT_EQ(0, l.err);
	return in_time;
}

/* Aim @c at the stalled page and at a new socket bound to @ifindex. */
static int aim_at_stall(struct blocked_call *c, struct ct_stall *st, int ifindex)
{
	c->optval = st->page;
	c->fd = ct_raw_open(ifindex);
	return c->fd;
}

TEST_F(locks, link_down_does_not_wait_for_getsockopt_on_stalled_page)
{
	struct can_filter f[2] = { { 0x11, CAN_SFF_MASK }, { 0x22, 0x7f0 } };
	struct can_filter zero[2] = {};
	struct blocked_call c = {
		.level = SOL_CAN_RAW, .optname = CAN_RAW_FILTER, .is_get = true,
		.optlen = sizeof(f),
	};

	/* The debug kernel has no userfaultfd. */
	if (ct_stall_init(&self->st))
		SKIP(return, "no userfaultfd");
	self->fd = aim_at_stall(&c, &self->st, self->ifindex);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ct_set_filters(self->fd, f, 2));
	EXPECT_TRUE(link_down_beside(_metadata, self->ifname,
				     &self->st, &c, zero, sizeof(zero)));
	EXPECT_EQ(0, atomic_load(&c.ret));
	EXPECT_EQ(sizeof(f), c.optlen);
	EXPECT_EQ(0, memcmp(self->st.page, f, sizeof(f)));
	EXPECT_EQ(ENETDOWN, ct_sock_error(self->fd));
}

TEST_F(locks, link_down_does_not_wait_for_setsockopt_on_stalled_page)
{
	struct can_filter f[2] = { { 0x33, CAN_SFF_MASK }, { 0x44, 0x7f0 } };
	struct can_filter got[2] = {};
	socklen_t len = sizeof(got);
	struct blocked_call c = {
		.level = SOL_CAN_RAW, .optname = CAN_RAW_FILTER,
		.optlen = sizeof(f),
	};

	/* The debug kernel has no userfaultfd. */
	if (ct_stall_init(&self->st))
		SKIP(return, "no userfaultfd");
	self->fd = aim_at_stall(&c, &self->st, self->ifindex);
	ASSERT_LE(0, self->fd);
	EXPECT_TRUE(link_down_beside(_metadata, self->ifname,
				     &self->st, &c, f, sizeof(f)));
	EXPECT_EQ(0, atomic_load(&c.ret));
	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_FILTER, got,
				&len));
	EXPECT_EQ(sizeof(f), len);
	EXPECT_EQ(0, memcmp(got, f, sizeof(f)));
}

/*
 * SO_ATTACH_FILTER copies the program while holding the socket lock (the
 * socket core does that, not CAN_RAW). A socket not bound to the device
 * must not make its notifier wait for that lock.
 */
TEST_F(locks, link_down_does_not_wait_for_unrelated_socket_lock)
{
	struct sock_filter accept_all = BPF_STMT(BPF_RET | BPF_K, 0xffff);
	struct sock_fprog prog = { .len = 1 };
	struct blocked_call c = {
		.level = SOL_SOCKET, .optname = SO_ATTACH_FILTER,
		.optval = &prog, .optlen = sizeof(prog),
	};

	/* The debug kernel has no userfaultfd. */
	if (ct_stall_init(&self->st))
		SKIP(return, "no userfaultfd");
	prog.filter = (struct sock_filter *)self->st.page;
	self->fd = ct_raw_socket();
	ASSERT_LE(0, self->fd);
	c.fd = self->fd;
	EXPECT_TRUE(link_down_beside(_metadata, self->ifname,
				     &self->st, &c, &accept_all,
				     sizeof(accept_all)));
	EXPECT_EQ(0, atomic_load(&c.ret));
}

/* ---- expedited grace periods ---- */

#define TRACEFS		"/sys/kernel/tracing"
#define KPROBE_GROUP	"can_raw_locks"
#define KPROBE_EVENT	"can_raw_expgp"

static int write_str(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Count calls of synchronize_rcu_expedited() with a kprobe. */
static int expgp_probe_add(void)
{
	if (access(TRACEFS "/kprobe_events", W_OK))
		mount("nodev", TRACEFS, "tracefs", 0, NULL);
	if (write_str(TRACEFS "/kprobe_events",
		      "p:" KPROBE_GROUP "/" KPROBE_EVENT
		      " synchronize_rcu_expedited\n"))
		return -1;
	return write_str(TRACEFS "/events/" KPROBE_GROUP "/" KPROBE_EVENT
			 "/enable", "1\n");
}

static void expgp_probe_del(void)
{
	write_str(TRACEFS "/events/" KPROBE_GROUP "/" KPROBE_EVENT "/enable",
		  "0\n");
	write_str(TRACEFS "/kprobe_events",
		  "-:" KPROBE_GROUP "/" KPROBE_EVENT "\n");
}

static long expgp_hits(void)
{
	char *text = ct_read_file(TRACEFS "/kprobe_profile");
	char *line;
	long hits = -1;

	if (!text)
		return -1;
	line = strstr(text, KPROBE_EVENT);
	if (line)
		hits = strtol(line + strlen(KPROBE_EVENT), NULL, 10);
	free(text);
	return hits;
}

/*
 * The first change of filters on a bound socket prepares duplicate
 * detection, which waits for a grace period. Under rtnl_lock() that wait
 * is expedited, an IPI to every CPU, so any user could send them in a loop.
 */
TEST_F(locks, first_filter_change_forces_no_expedited_grace_period)
{
	struct can_filter f[2] = { { 0x55, CAN_SFF_MASK }, { 0x66, 0x7f0 } };
	const int rounds = 20;
	long before, after;
	int i, fd;

	if (expgp_probe_add()) {
		expgp_probe_del();
		SKIP(return, "no kprobe events in tracefs");
	}
	before = expgp_hits();
	for (i = 0; i < rounds; i++) {
		fd = ct_raw_open(self->ifindex);
		EXPECT_LE(0, fd);
		EXPECT_EQ(0, ct_set_filters(fd, f, 2));
		EXPECT_EQ(0, ct_set_err_mask(fd, CAN_ERR_BUSOFF));
		close(fd);
	}
	after = expgp_hits();
	expgp_probe_del();
	ASSERT_LE(0, before);
	TH_LOG("%ld expedited grace periods in %d first filter changes",
	       after - before, rounds);
	/* Others may start one now and then; one per change is ours. */
	EXPECT_GT(rounds / 4, after - before);
}

/* ---- close against device removal ---- */

/* Create vcan @name with interface index @ifindex, up. */
static int vcan_add_at(const char *name, int ifindex)
{
	struct ct_nlreq req;
	struct rtattr *linkinfo;
	int err;

	ct_nl_init(&req, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, ifindex);
	ct_nla_put(&req, IFLA_IFNAME, name, strlen(name) + 1);
	linkinfo = ct_nla_put(&req, IFLA_LINKINFO, NULL, 0);
	ct_nla_put(&req, IFLA_INFO_KIND, "vcan", strlen("vcan"));
	ct_nla_end(&req, linkinfo);
	err = ct_nl_talk(&req.nh);
	return err ?: ct_link_set_up(name, true);
}

#define CLOSE_SOCKETS	64

struct closer {
	pthread_t thread;
	int fds[CLOSE_SOCKETS];
};

static void *closer_run(void *arg)
{
	struct closer *c = arg;
	int i;

	for (i = 0; i < CLOSE_SOCKETS; i++)
		close(c->fds[i]);
	return NULL;
}

/* Lines of the kernel log from @fd on that contain @text. */
static int kmsg_count(int fd, const char *text)
{
	char buf[2048];
	int n = 0;
	ssize_t len;

	for (;;) {
		len = read(fd, buf, sizeof(buf) - 1);
		if (len < 0 && errno == EPIPE)
			continue;
		if (len <= 0)
			break;
		buf[len] = '\0';
		n += !!strstr(buf, text);
	}
	return n;
}

/*
 * A socket closing while its device is deleted and the index given to a
 * new device must not unsubscribe from the new one, where the core finds
 * nothing and warns for every filter.
 */
TEST(close_while_device_index_is_reused_warns_nothing)
{
	struct can_filter f = { 0x100, CAN_SFF_MASK };
	char name[IFNAMSIZ];
	struct closer c;
	int kmsg, ifindex, round, i;

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, kmsg);
	lseek(kmsg, 0, SEEK_END);
	ct_ifname(name, 'r');
	ASSERT_EQ(0, ct_vcan_create(name, 0, true));
	ifindex = if_nametoindex(name);
	ASSERT_NE(0, ifindex);

	for (round = 0; round < 40; round++) {
		for (i = 0; i < CLOSE_SOCKETS; i++) {
			c.fds[i] = ct_raw_socket();
			ASSERT_LE(0, c.fds[i]);
			ASSERT_EQ(0, ct_set_filters(c.fds[i], &f, 1));
			ASSERT_EQ(0, ct_bind(c.fds[i], ifindex));
		}
		ASSERT_EQ(0, pthread_create(&c.thread, NULL, closer_run, &c));
		usleep(round * 50);
		EXPECT_EQ(0, ct_link_del(name));
		EXPECT_EQ(0, vcan_add_at(name, ifindex));
		pthread_join(c.thread, NULL);
	}
	ct_link_del(name);
	EXPECT_EQ(0, kmsg_count(kmsg, "no subscription"));
	close(kmsg);
}

TEST_HARNESS_MAIN
