// SPDX-License-Identifier: GPL-2.0
/*
 * What id/mask filters cost in kernel memory, and who pays for it. Each
 * of 20 sockets sets 512 filters, every one with a mask no other filter
 * has: the worst case for a table that groups filters by mask. The
 * memory must stay within a small multiple of one subscription per
 * filter, and it must be charged to the memory cgroup of the task that
 * set the filters. So must each CAN device's receive table, which the
 * task that creates the device pays for.
 */

#include <sys/stat.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"

#define SOCKETS		20
#define FILTERS		512
/* Bytes per filter allowed: a subscription is 72, mainline's about 80. */
#define MAX_BYTES_PER_FILTER	256
/* Bytes per filter that must at least be charged to the cgroup. */
#define MIN_CHARGED_PER_FILTER	64

/* vcans created to weigh their receive tables. */
#define DEVICES		64
/*
 * The least a CAN device's receive table takes, one pointer per list
 * head: the error, catch-all, filter and inverted lists and the list of
 * mask groups, one list per 11-bit identifier, 1024 hash slots for
 * 29-bit identifiers and 1024 for id/mask filters, and 256 slots of the
 * hash of mask groups (net/can/af_can.h). The allocator rounds up.
 */
#define TABLE_BYTES	((5 + (1 << CAN_SFF_ID_BITS) + 1024 + 1024 + 256) * \
			 sizeof(void *))

#define CGROOT "/sys/fs/cgroup"

FIXTURE(mem)
{
	char ifname[IFNAMSIZ];
	char cgroup[128];
	int s[SOCKETS];
	char devs[DEVICES][IFNAMSIZ];
	int ndevs;
};

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -errno : 0;
}

static long long read_number(const char *path)
{
	char *text = ct_read_file(path);
	long long v;

	if (!text)
		return -1;
	v = strtoll(text, NULL, 10);
	free(text);
	return v;
}

/* Unreclaimable slab of the whole system, in bytes. */
static long long slab_unreclaimable(void)
{
	char *text = ct_read_file("/proc/meminfo"), *line;
	long long kb = -1;

	if (!text)
		return -1;
	line = strstr(text, "SUnreclaim:");
	if (line)
		kb = strtoll(line + strlen("SUnreclaim:"), NULL, 10);
	free(text);
	return kb * 1024;
}

/* Enter a new cgroup v2 group with the memory controller; 0 or -errno. */
static int enter_cgroup(char *path, size_t size)
{
	char file[200], pid[16];
	int err;

	if (access(CGROOT "/cgroup.controllers", R_OK))
		system("mount -t cgroup2 none " CGROOT " 2>/dev/null");
	err = write_file(CGROOT "/cgroup.subtree_control", "+memory");
	if (err)
		return err;
	snprintf(path, size, CGROOT "/canmem%d", getpid());
	if (mkdir(path, 0755))
		return -errno;
	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_file(file, pid);
}

static void settle(void)
{
	/* Deferred frees of earlier tests, then the slab caches' own. */
	system("echo 1 > /proc/sys/vm/drop_caches 2>/dev/null");
	usleep(200 * 1000);
}

FIXTURE_SETUP(mem)
{
	int i;

	for (i = 0; i < SOCKETS; i++)
		self->s[i] = -1;
	self->cgroup[0] = '\0';
	self->ndevs = 0;
	ct_ifname(self->ifname, 'm');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	if (enter_cgroup(self->cgroup, sizeof(self->cgroup)))
		SKIP(return, "no cgroup v2 memory controller");
}

FIXTURE_TEARDOWN(mem)
{
	char file[200], pid[16];
	bool left;
	int i;

	for (i = 0; i < SOCKETS; i++)
		if (self->s[i] >= 0)
			close(self->s[i]);
	for (i = 0; i < self->ndevs; i++)
		ct_link_del(self->devs[i]);
	ct_link_del(self->ifname);
	if (self->cgroup[0]) {
		snprintf(pid, sizeof(pid), "%d", getpid());
		write_file(CGROOT "/cgroup.procs", pid);
		/* The group goes only once it is empty (EBUSY before); it
		 * may not exist if the setup failed half way.
		 */
		snprintf(file, sizeof(file), "%s/cgroup.events", self->cgroup);
		left = access(file, F_OK) ||
		       ct_wait_file_has(file, "populated 0", CT_EVENT_TIMEOUT_MS);
		EXPECT_TRUE(left) TH_LOG("the task did not leave %s", self->cgroup);
		rmdir(self->cgroup);
	}
}

/* Socket @k's filters: 512 masks that no other filter shares. */
static void distinct_mask_filters(struct can_filter *f, int k)
{
	int i;

	for (i = 0; i < FILTERS; i++) {
		f[i].can_id = CAN_EFF_FLAG;
		f[i].can_mask = CAN_EFF_FLAG | (k * FILTERS + i + 1);
	}
}

TEST_F(mem, distinct_mask_filters_cost_little_and_are_charged)
{
	static struct can_filter f[FILTERS];
	long long slab0, slab1, charged0, charged1;
	char file[200];
	int ifindex = if_nametoindex(self->ifname), k;

	snprintf(file, sizeof(file), "%s/memory.current", self->cgroup);
	for (k = 0; k < SOCKETS; k++) {
		self->s[k] = ct_raw_open(ifindex);
		ASSERT_LE(0, self->s[k]);
		ASSERT_EQ(0, ct_set_filters(self->s[k], NULL, 0));
	}
	settle();
	slab0 = slab_unreclaimable();
	charged0 = read_number(file);
	for (k = 0; k < SOCKETS; k++) {
		distinct_mask_filters(f, k);
		ASSERT_EQ(0, ct_set_filters(self->s[k], f, FILTERS));
	}
	slab1 = slab_unreclaimable();
	charged1 = read_number(file);

	TH_LOG("%lld bytes of slab and %lld charged per filter",
	       (slab1 - slab0) / (SOCKETS * FILTERS),
	       (charged1 - charged0) / (SOCKETS * FILTERS));
	EXPECT_GT(MAX_BYTES_PER_FILTER * SOCKETS * FILTERS, slab1 - slab0);
	EXPECT_LT(MIN_CHARGED_PER_FILTER * SOCKETS * FILTERS,
		  charged1 - charged0);
}

/* The filters' memory goes with the socket. */
TEST_F(mem, closing_sockets_returns_filter_memory)
{
	static struct can_filter f[FILTERS];
	long long slab0, slab1;
	int ifindex = if_nametoindex(self->ifname), k;

	settle();
	slab0 = slab_unreclaimable();
	for (k = 0; k < SOCKETS; k++) {
		self->s[k] = ct_raw_open(ifindex);
		ASSERT_LE(0, self->s[k]);
		distinct_mask_filters(f, k);
		ASSERT_EQ(0, ct_set_filters(self->s[k], f, FILTERS));
	}
	for (k = 0; k < SOCKETS; k++) {
		close(self->s[k]);
		self->s[k] = -1;
	}
	usleep(500 * 1000);
	settle();
	slab1 = slab_unreclaimable();
	EXPECT_GT(32 * SOCKETS * FILTERS, slab1 - slab0);
}

/* Wait up to 5 s for the charge to fall to @target; the last reading. */
static long long charge_falls_to(const char *file, long long target)
{
	long long charged = read_number(file);
	int ms;

	for (ms = 0; ms < 5000 && charged > target; ms += 100) {
		usleep(100 * 1000);
		charged = read_number(file);
	}
	return charged;
}

/*
 * Every CAN device costs its creator a receive table; the table must be
 * charged to the creator's memory cgroup, and deleting the devices must
 * return the charge.
 */
TEST_F(mem, device_receive_tables_are_charged_and_returned)
{
	long long charged0, charged1, charged2;
	char file[200];
	int i;

	/* The fixture's SKIP ends its setup, not the test. */
	if (!self->cgroup[0])
		SKIP(return, "no cgroup v2 memory controller");
	snprintf(file, sizeof(file), "%s/memory.current", self->cgroup);
	settle();
	charged0 = read_number(file);
	ASSERT_LE(0, charged0);
	for (i = 0; i < DEVICES; i++) {
		ct_ifname(self->devs[i], 't');
		ASSERT_EQ(0, ct_vcan_add(self->devs[i]));
		self->ndevs++;
	}
	charged1 = read_number(file);
	for (i = 0; i < DEVICES; i++)
		ct_link_del(self->devs[i]);
	self->ndevs = 0;
	charged2 = charge_falls_to(file, charged1 - DEVICES * TABLE_BYTES);

	TH_LOG("%lld bytes charged per device, %lld returned; table %zu",
	       (charged1 - charged0) / DEVICES, (charged1 - charged2) / DEVICES,
	       TABLE_BYTES);
	EXPECT_LE(DEVICES * TABLE_BYTES, charged1 - charged0);
	EXPECT_LE(DEVICES * TABLE_BYTES, charged1 - charged2);
}

TEST_HARNESS_MAIN
