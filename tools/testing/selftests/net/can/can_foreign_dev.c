// SPDX-License-Identifier: GPL-2.0
/*
 * Devices that have the CAN type without being CAN devices: a tun whose
 * link type was set to ARPHRD_CAN with TUNSETLINK. The core serves only
 * devices whose driver made them CAN, so such a device never gets a
 * receive table, whatever order type changes, namespace moves and module
 * loads come in: sockets cannot subscribe to it, and nothing of the core
 * outlives it. A can-gw job may name it while it has the CAN type, but
 * must not hold it once it has another. The last test is the sequence
 * that used to end in a use-after-free of a BCM operation.
 */

#include <arpa/inet.h>
#include <net/if_arp.h>
#include <sched.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"
#include "lib/can_test_bcm.h"
#include "lib/can_test_gw.h"

/* After <net/if.h>, which <linux/if.h> knows to defer to. */
#include <linux/if_ether.h>
#include <linux/if_tun.h>

#define DYNDBG "/sys/kernel/debug/dynamic_debug/control"

FIXTURE(tun)
{
	char ifname[IFNAMSIZ];
	int tun;	/* the tun's file; closing it deletes the device */
	int home;	/* namespace the test started in */
	int other;	/* a second namespace, or -1 */
};

static int open_netns(void)
{
	return open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
}

/* A tun of link type @type, down; its fd, or -errno. */
static int tun_create(char *ifname, int type)
{
	struct ifreq ifr = { .ifr_flags = IFF_TUN };
	int fd, err;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", ifname);
	if (ioctl(fd, TUNSETIFF, &ifr) || ioctl(fd, TUNSETLINK, type)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static int tun_set_type(int fd, int type)
{
	return ioctl(fd, TUNSETLINK, type) ? -errno : 0;
}

/* Inject a classic frame as if the tun had received it. */
static int tun_inject(int fd, canid_t id)
{
	struct {
		struct tun_pi pi;
		struct can_frame cf;
	} pkt = { .pi.proto = htons(ETH_P_CAN), .cf = ct_frame(id, 8) };

	return write(fd, &pkt, sizeof(pkt)) == sizeof(pkt) ? 0 : -errno;
}

/* Move @ifname from namespace @home to a new one, *@other, and enter it. */
static int move_to_new_netns(const char *ifname, int home, int *other)
{
	int err;

	if (unshare(CLONE_NEWNET))
		return -errno;
	*other = open_netns();
	if (*other < 0 || setns(home, CLONE_NEWNET))
		return -errno;
	err = ct_link_set_netns(ifname, *other);
	if (err)
		return err;
	return setns(*other, CLONE_NEWNET) ? -errno : 0;
}

/* True if any /proc/net/can/rcvlist_all line names the device. */
static bool rcvlists_name(const char *ifname)
{
	char *text = ct_read_file("/proc/net/can/rcvlist_all");
	bool named;

	if (!text)
		return false;
	named = strstr(text, ifname);
	free(text);
	return named;
}

FIXTURE_SETUP(tun)
{
	self->other = -1;
	self->home = open_netns();
	ASSERT_LE(0, self->home);
	run_cmd("modprobe tun 2>/dev/null");
	snprintf(self->ifname, IFNAMSIZ, "cttun%d", getpid() % 100000);
	self->tun = tun_create(self->ifname, ARPHRD_CAN);
	if (self->tun == -ENOENT || self->tun == -ENODEV)
		SKIP(return, "no /dev/net/tun");
	ASSERT_LE(0, self->tun);
}

FIXTURE_TEARDOWN(tun)
{
	if (self->tun >= 0)
		close(self->tun);
	setns(self->home, CLONE_NEWNET);
	if (self->other >= 0)
		close(self->other);
	close(self->home);
}

TEST_F(tun, raw_socket_cannot_bind_to_tun_of_can_type)
{
	EXPECT_EQ(-ENODEV, ct_raw_open(if_nametoindex(self->ifname)));
	EXPECT_FALSE(rcvlists_name(self->ifname));
}

TEST_F(tun, tun_moved_to_other_netns_gets_no_receive_table)
{
	ASSERT_EQ(0, move_to_new_netns(self->ifname, self->home, &self->other));
	EXPECT_EQ(-ENODEV, ct_raw_open(if_nametoindex(self->ifname)));
	EXPECT_FALSE(rcvlists_name(self->ifname));
}

TEST_F(tun, bcm_rx_setup_on_moved_tun_is_refused)
{
	struct bcm_msg m;
	int s;

	ASSERT_EQ(0, move_to_new_netns(self->ifname, self->home, &self->other));
	s = bcm_socket(if_nametoindex(self->ifname));
	ASSERT_LE(0, s);
	bcm_head(&m, RX_SETUP, RX_FILTER_ID, 0x123, 0);
	EXPECT_EQ(-ENODEV, bcm_write(s, &m));
	close(s);
}

/* can.ko loading replays the registration of every existing device. */
TEST_F(tun, core_loaded_after_tun_attaches_no_table)
{
	if (run_cmd("rmmod can_bcm can_raw can 2>/dev/null"))
		SKIP(return, "PF_CAN modules in use");
	ASSERT_EQ(0, run_cmd("modprobe can_raw && modprobe can_bcm"));
	EXPECT_EQ(-ENODEV, ct_raw_open(if_nametoindex(self->ifname)));
	EXPECT_FALSE(rcvlists_name(self->ifname));
}

/* How many can-gw jobs route from or to interface @ifindex, or -errno. */
static int gw_jobs_naming(int ifindex)
{
	struct gw_listed jobs[16];
	int n, i, named = 0;

	n = gw_list(jobs, 16);
	if (n < 0)
		return n;
	for (i = 0; i < n && i < 16; i++)
		if (jobs[i].src == ifindex || jobs[i].dst == ifindex)
			named++;
	return named;
}

/* Delete @ifname in a child; true once it has finished within @ms. */
static bool link_del_finishes(const char *ifname, pid_t *child, int ms)
{
	int status;

	*child = fork();
	if (*child == 0)
		_exit(ct_link_del(ifname) ? 1 : 0);
	if (*child < 0)
		return false;
	for (; ms > 0; ms -= 50) {
		if (waitpid(*child, &status, WNOHANG) == *child) {
			*child = 0;
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		}
		usleep(50 * 1000);
	}
	return false;
}

/*
 * A job to the tun, made while it had the CAN type, holds the device.
 * Once TUNSETLINK takes the type away the job must be gone, or deleting
 * the tun waits for ever in unregister_netdevice(). The deletion runs in
 * a child, so that a hang is a failure here; the jobs are then flushed,
 * which lets the stuck deletion end and the rest of the suite run.
 */
TEST_F(tun, gw_job_to_tun_goes_when_tun_stops_being_can)
{
	char src[IFNAMSIZ];
	int isrc, itun, status;
	pid_t child;

	if (run_cmd("modprobe can-gw"))
		SKIP(return, "no can-gw");
	ct_ifname(src, 'g');
	ASSERT_EQ(0, ct_vcan_create(src, 0, true));
	isrc = if_nametoindex(src);
	itun = if_nametoindex(self->ifname);
	ASSERT_EQ(0, gw_add(isrc, itun, 0));
	ASSERT_EQ(1, gw_jobs_naming(itun));

	ASSERT_EQ(0, tun_set_type(self->tun, ARPHRD_NONE));
	EXPECT_EQ(0, gw_jobs_naming(itun));
	EXPECT_TRUE(link_del_finishes(self->ifname, &child, 5000)) {
		TH_LOG("deleting %s still waits after 5 s", self->ifname);
		gw_flush();
		if (child > 0)
			waitpid(child, &status, 0);
	}
	EXPECT_EQ(0, gw_jobs_naming(itun));
	gw_flush();
	ct_link_del(src);
}

/*
 * Raw and BCM subscriptions through a moved tun, its type switched away
 * and back, a BCM op deleted, frames received, the device deleted: no
 * receive table may be left behind, and (on a KASAN kernel) no frame may
 * reach the freed op. Last: on the unfixed core this is the crash.
 */
TEST_F(tun, tun_switched_away_from_can_type_leaves_nothing_behind)
{
	struct bcm_msg m;
	char mark[64], what[64];
	int s, raw, ifindex, i;

	run_cmd("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug");
	if (run_cmd("echo 'module can +p' > " DYNDBG " 2>/dev/null"))
		SKIP(return, "no dynamic debug");
	snprintf(mark, sizeof(mark), "can-tun-audit-%d", getpid());
	run_cmd("echo %s > /dev/kmsg", mark);

	ASSERT_EQ(0, move_to_new_netns(self->ifname, self->home, &self->other));
	ifindex = if_nametoindex(self->ifname);
	raw = ct_raw_open(ifindex);
	s = bcm_socket(ifindex);
	ASSERT_LE(0, s);
	bcm_head(&m, RX_SETUP, RX_FILTER_ID, 0x123, 0);
	bcm_write(s, &m);

	ASSERT_EQ(0, tun_set_type(self->tun, ARPHRD_NONE));
	bcm_request(s, RX_DELETE, 0, 0x123);
	ASSERT_EQ(0, tun_set_type(self->tun, ARPHRD_CAN));
	ASSERT_EQ(0, ct_link_set_up(self->ifname, true));
	for (i = 0; i < 10; i++)
		EXPECT_EQ(0, tun_inject(self->tun, 0x123));
	ASSERT_EQ(0, ct_link_set_up(self->ifname, false));
	ASSERT_EQ(0, tun_set_type(self->tun, ARPHRD_NONE));
	close(self->tun);
	self->tun = -1;
	if (raw >= 0)
		close(raw);
	close(s);

	snprintf(what, sizeof(what), "%s: CAN receive table", self->ifname);
	EXPECT_EQ(0, ct_klog_count(mark, what));
	run_cmd("echo 'module can -p' > " DYNDBG);
}

TEST_HARNESS_MAIN
