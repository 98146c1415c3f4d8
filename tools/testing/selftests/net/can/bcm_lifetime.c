// SPDX-License-Identifier: GPL-2.0
/*
 * Life cycle of broadcast manager sockets and operations: removal and
 * shutdown of the device under running operations, closing with timers
 * and traffic in flight, /proc/net/can-bcm per socket and per namespace,
 * module unload, and an audit that every operation created is freed.
 */

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lib/can_test_bcm.h"
#include "lib/can_test.h"
#include "kselftest_harness.h"

FIXTURE(life) {
	char ifname[IFNAMSIZ];
	int ifindex;
	int s;
	int raw;
	bool removed;
	struct bcm_msg m;
};

FIXTURE_SETUP(life)
{
	self->ifindex = vcan_create(self->ifname, 0);
	ASSERT_LT(0, self->ifindex);
	self->s = bcm_socket(self->ifindex);
	self->raw = raw_socket(self->ifindex);
	if (self->s < 0 || self->raw < 0)
		vcan_destroy(self->ifname);
	ASSERT_LE(0, self->s);
	ASSERT_LE(0, self->raw);
}

FIXTURE_TEARDOWN(life)
{
	if (self->s >= 0)
		close(self->s);
	close(self->raw);
	if (!self->removed)
		vcan_destroy(self->ifname);
}

/* A fast cyclic transmission and a filter with a timeout on it. */
static void start_ops(struct __test_metadata *_metadata, int s, canid_t id)
{
	struct bcm_msg m;

	ASSERT_LT(0, bcm_tx_cyclic(s, id, 1000, 8, 1));
	bcm_head(&m, RX_SETUP, RX_FILTER_ID | SETTIMER | STARTTIMER, id, 0);
	m.head.ival1 = bcm_us(2000);
	m.head.ival2 = bcm_us(3000);
	ASSERT_LT(0, bcm_write(s, &m));
}

static int sock_error(int s)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len))
		return -errno;
	return err;
}

static int wait_error(int s, int timeout_ms)
{
	long long end = now_ns() + timeout_ms * 1000000LL;
	struct pollfd pfd = { .fd = s, .events = 0 };

	while (now_ns() < end) {
		if (poll(&pfd, 1, 50) > 0 && (pfd.revents & POLLERR))
			return sock_error(s);
		drain(s);
	}
	return 0;
}

TEST_F(life, device_removal_stops_ops_and_reports_enodev)
{
	struct canfd_frame cf;
	int raw2;

	start_ops(_metadata, self->s, 0x10);
	ASSERT_LT(0, raw_read(self->raw, &cf, 1000, NULL));
	/* Another interface shows whether frames still go anywhere. */
	raw2 = raw_socket(0);
	ASSERT_LE(0, raw2);

	vcan_destroy(self->ifname);
	self->removed = true;
	EXPECT_EQ(ENODEV, wait_error(self->s, 2000));
	drain(raw2);
	EXPECT_EQ(0, raw_read(raw2, &cf, 200, NULL));
	/* The socket is no longer connected. */
	EXPECT_EQ(-ENOTCONN, bcm_request(self->s, TX_READ, 0, 0x10));
	close(raw2);
}

TEST_F(life, device_down_reports_enetdown)
{
	start_ops(_metadata, self->s, 0x10);
	ASSERT_EQ(0, run_cmd("ip link set %s down", self->ifname));
	EXPECT_EQ(ENETDOWN, wait_error(self->s, 2000));
	/* Still connected: TX_READ works. */
	EXPECT_EQ((int)sizeof(self->m.head),
		  bcm_request(self->s, TX_READ, 0, 0x10));
}

TEST_F(life, ops_on_all_interfaces_survive_a_device_removal)
{
	char ifname2[IFNAMSIZ];
	int any, ifindex2, raw2, ifindex = 0;

	any = bcm_socket(0);
	ASSERT_LE(0, any);
	bcm_head(&self->m, RX_SETUP, RX_FILTER_ID, 0x20, 0);
	ASSERT_LT(0, bcm_write(any, &self->m));

	vcan_destroy(self->ifname);
	self->removed = true;
	ifindex2 = vcan_create(ifname2, 1);
	ASSERT_LT(0, ifindex2);
	raw2 = raw_socket(ifindex2);
	EXPECT_LE(0, raw2);
	EXPECT_EQ(0, raw_send_byte(raw2, 0x20, 7));
	EXPECT_LT(0, bcm_read(any, &self->m, 1000, &ifindex, NULL));
	EXPECT_EQ((unsigned int)RX_CHANGED, self->m.head.opcode);
	EXPECT_EQ(ifindex2, ifindex);
	EXPECT_EQ(0, sock_error(any));
	close(raw2);
	close(any);
	vcan_destroy(ifname2);
}

TEST_F(life, close_with_running_timers_and_traffic)
{
	int round, i, s;

	for (round = 0; round < 20; round++) {
		s = bcm_socket(self->ifindex);
		ASSERT_LE(0, s);
		for (i = 0; i < 10; i++)
			start_ops(_metadata, s, 0x100 + i);
		usleep(5000);
		close(s);
	}
	/* The device must still go away at once: no reference leaked. */
	drain(self->raw);
	EXPECT_EQ(0, run_cmd("timeout 10 ip link del dev %s", self->ifname));
	self->removed = true;
}

TEST_F(life, device_removal_then_close_leaves_nothing_behind)
{
	start_ops(_metadata, self->s, 0x30);
	bcm_head(&self->m, RX_SETUP, 0, 0x31, 3);
	memset(self->m.cc, 0, 3 * sizeof(self->m.cc[0]));
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	EXPECT_EQ(0, run_cmd("timeout 10 ip link del dev %s", self->ifname));
	self->removed = true;
	close(self->s);
	self->s = -1;
}

struct churn {
	int ifindex;
	bool stop;	/* set by the test, read by the threads */
};

static bool churn_stopped(struct churn *c)
{
	return __atomic_load_n(&c->stop, __ATOMIC_RELAXED);
}

/* Sockets that come and go with running operations on them. */
static void *churn_sockets(void *arg)
{
	struct churn *c = arg;
	struct bcm_msg m;
	int s, i;

	while (!churn_stopped(c)) {
		s = bcm_socket(c->ifindex);
		if (s < 0)
			break;
		for (i = 0; i < 4; i++) {
			bcm_tx_cyclic(s, 0x300 + i, 1000, 8, i);
			bcm_head(&m, RX_SETUP, SETTIMER | STARTTIMER, 0x300 + i, 1);
			m.head.ival1 = bcm_us(1000);
			m.head.ival2 = bcm_us(2000);
			memset(&m.cc[0], 0, sizeof(m.cc[0]));
			m.cc[0].data[0] = 0xff;
			bcm_write(s, &m);
		}
		usleep(2000);
		close(s);
	}
	return NULL;
}

/* Setup, update and delete over and over on one long-lived socket. */
static void *churn_ops(void *arg)
{
	struct churn *c = arg;
	struct bcm_msg m;
	int s = bcm_socket(c->ifindex), n = 0;

	while (s >= 0 && !churn_stopped(c)) {
		canid_t id = 0x300 + n % 4;

		bcm_head(&m, RX_SETUP, RX_FILTER_ID | SETTIMER | STARTTIMER,
			 id, 0);
		m.head.ival1 = bcm_us(500 + n % 1000);
		m.head.ival2 = bcm_us(n % 3 * 1000);
		bcm_write(s, &m);
		bcm_tx_cyclic(s, id, 1000 + n % 500, 8, n);
		if (n % 3 == 0) {
			bcm_request(s, RX_DELETE, 0, id);
			bcm_request(s, TX_DELETE, 0, id);
		}
		drain(s);
		n++;
	}
	if (s >= 0)
		close(s);
	return NULL;
}

TEST_F(life, churn_under_traffic_then_device_removal)
{
	struct churn c = { .ifindex = self->ifindex };
	pthread_t t[3];
	long long end = now_ns() + 2000000000LL;
	int i;

	ASSERT_EQ(0, pthread_create(&t[0], NULL, churn_sockets, &c));
	ASSERT_EQ(0, pthread_create(&t[1], NULL, churn_ops, &c));
	ASSERT_EQ(0, pthread_create(&t[2], NULL, churn_ops, &c));
	for (i = 0; now_ns() < end; i++) {
		raw_send_byte(self->raw, 0x300 + i % 4, i);
		drain(self->raw);
		usleep(200);
	}
	/* The device goes while everything still runs. */
	EXPECT_EQ(0, run_cmd("timeout 10 ip link del dev %s", self->ifname));
	self->removed = true;
	__atomic_store_n(&c.stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
}

static bool proc_has(const char *path, const char *needle)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return strstr(buf, needle);
}

static void proc_path(int s, char *path, size_t size)
{
	struct stat st;

	fstat(s, &st);
	snprintf(path, size, "/proc/net/can-bcm/%lu", (unsigned long)st.st_ino);
}

TEST_F(life, proc_lists_the_ops_of_each_socket)
{
	char path[64], line[64];

	proc_path(self->s, path, sizeof(path));
	ASSERT_EQ(0, access(path, R_OK));
	EXPECT_TRUE(proc_has(path, self->ifname));
	start_ops(_metadata, self->s, 0x123);
	snprintf(line, sizeof(line), "tx_op: 123 %s", self->ifname);
	EXPECT_TRUE(proc_has(path, line));
	/* A filter shows up once it has matched a frame: the first of the
	 * cyclic transmission, looped back to it a moment after the setup.
	 */
	EXPECT_TRUE(ct_wait_file_has(path, "rx_op: 123", CT_EVENT_TIMEOUT_MS))
		TH_LOG("no rx_op line in %s", path);
	EXPECT_TRUE(proc_has(path, "timeo=2000 thr=3000"));
	close(self->s);
	self->s = -1;
	EXPECT_NE(0, access(path, F_OK));
}

TEST_F(life, proc_file_goes_with_the_device)
{
	char path[64];

	proc_path(self->s, path, sizeof(path));
	ASSERT_EQ(0, access(path, R_OK));
	vcan_destroy(self->ifname);
	self->removed = true;
	EXPECT_EQ(ENODEV, wait_error(self->s, 2000));
	EXPECT_NE(0, access(path, F_OK));
}

/* The "dropped" field of the socket's /proc file. */
static long proc_dropped(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "r");
	char *p;

	if (!f)
		return -1;
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = 0;
	fclose(f);
	p = strstr(buf, "dropped ");
	return p ? atol(p + 8) : -1;
}

TEST_F(life, replies_lost_to_a_full_queue_are_counted)
{
	int small = 1, delivered = 0, i;
	char path[64];

	ASSERT_EQ(0, setsockopt(self->s, SOL_SOCKET, SO_RCVBUF, &small,
				sizeof(small)));
	bcm_head(&self->m, RX_SETUP, RX_FILTER_ID, 0x40, 0);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	for (i = 0; i < 200; i++)
		ASSERT_EQ(0, raw_send_byte(self->raw, 0x40, i));
	/* vcan loops the frames back through the backlog, after the writes
	 * returned. The filter's line counts the frames it saw, "(200) =>",
	 * under the lock it queues or drops each reply under: once it shows
	 * all 200, every reply was delivered or dropped.
	 */
	proc_path(self->s, path, sizeof(path));
	EXPECT_TRUE(ct_wait_file_has(path, "(200) =>", CT_EVENT_TIMEOUT_MS))
		TH_LOG("the filter did not see the 200 frames");
	while (bcm_read(self->s, &self->m, 0, NULL, NULL) > 0)
		delivered++;
	TH_LOG("%d delivered, %ld dropped", delivered, proc_dropped(path));
	EXPECT_LT(0, proc_dropped(path));
	EXPECT_EQ(200, delivered + proc_dropped(path));
}

/* In a new namespace, /proc/net/can-bcm lists that namespace's sockets. */
static int child_in_new_netns(const char *parent_entry)
{
	char path[64], entry[64];
	int s;

	if (unshare(CLONE_NEWNET))
		return 10;
	if (run_cmd("ip link add dev vcan0 type vcan && ip link set vcan0 up"))
		return 11;
	s = bcm_socket(if_nametoindex("vcan0"));
	if (s < 0)
		return 12;
	proc_path(s, path, sizeof(path));
	if (access(path, R_OK))
		return 13;
	snprintf(entry, sizeof(entry), "/proc/net/can-bcm/%s", parent_entry);
	if (!access(entry, F_OK))
		return 14;
	close(s);
	return 0;
}

TEST_F(life, proc_directory_is_per_namespace)
{
	char path[64];
	int status;
	pid_t pid;

	proc_path(self->s, path, sizeof(path));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(child_in_new_netns(strrchr(path, '/') + 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, access(path, R_OK));
}

#define DYNDBG "/sys/kernel/debug/dynamic_debug/control"

TEST_F(life, every_op_created_is_freed)
{
	char mark[64];
	int created, freed, i;

	run_cmd("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug");
	if (run_cmd("echo 'module can_bcm +p' > " DYNDBG " 2>/dev/null"))
		SKIP(return, "no dynamic debug");
	snprintf(mark, sizeof(mark), "bcm-audit-%d", getpid());
	run_cmd("echo %s > /dev/kmsg", mark);

	for (i = 0; i < 5; i++)
		start_ops(_metadata, self->s, 0x200 + i);
	/* One removed by request, the others by device removal and close. */
	EXPECT_LT(0, bcm_request(self->s, TX_DELETE, 0, 0x200));
	vcan_destroy(self->ifname);
	self->removed = true;
	close(self->s);
	self->s = -1;

	created = ct_klog_count(mark, "can_bcm: op .* created");
	freed = ct_klog_count(mark, "can_bcm: op .* freed");
	run_cmd("echo 'module can_bcm -p' > " DYNDBG);
	EXPECT_EQ(10, created);
	EXPECT_EQ(created, freed);
}

TEST(module_unloads_once_sockets_are_closed)
{
	int s;

	s = socket(PF_CAN, SOCK_DGRAM, CAN_BCM);
	ASSERT_LE(0, s);
	/* In use: the module stays. */
	EXPECT_NE(0, run_cmd("rmmod can_bcm 2>/dev/null"));
	close(s);
	/* The socket's last reference may drop a little later. */
	for (int i = 0; i < 50 && run_cmd("rmmod can_bcm 2>/dev/null"); i++)
		usleep(100000);
	EXPECT_NE(0, run_cmd("grep -q '^can_bcm ' /proc/modules"));
	/* And comes back when asked for. */
	s = socket(PF_CAN, SOCK_DGRAM, CAN_BCM);
	EXPECT_LE(0, s);
	close(s);
}

TEST_HARNESS_MAIN
