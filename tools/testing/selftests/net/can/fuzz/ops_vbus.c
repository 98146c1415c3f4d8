// SPDX-License-Identifier: GPL-2.0
/*
 * can-vbus: controllers made by "ip link add fzbN type can" (a drawn
 * device group, shared ones included, and IFLA_CAN_* attributes that are
 * mostly a working configuration, sometimes anything), set up and down,
 * reconfigured and restarted, and the debugfs knobs of their buses and
 * nodes (/sys/kernel/debug/can_vbus/) written with valid, near-valid and
 * random commands and read back, while the traffic thread and the other
 * workers send on them. Without can-vbus loaded (module_unload takes it
 * out now and then) the adds fail with EOPNOTSUPP and there is no tree.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/netlink.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fuzz.h"

#define VBUS_DEBUGFS	"/sys/kernel/debug/can_vbus"
#define VBUS_MAX_DIRS	16

/* The control modes can-vbus offers, and triple sampling, which it refuses. */
#define VBUS_CTRLMODES	(CAN_CTRLMODE_LOOPBACK | CAN_CTRLMODE_LISTENONLY | \
			 CAN_CTRLMODE_3_SAMPLES | CAN_CTRLMODE_ONE_SHOT | \
			 CAN_CTRLMODE_BERR_REPORTING | CAN_CTRLMODE_FD | \
			 CAN_CTRLMODE_PRESUME_ACK | CAN_CTRLMODE_FD_NON_ISO | \
			 CAN_CTRLMODE_CC_LEN8_DLC)

/* Mostly group 0 (one bus per namespace), then a few more buses. */
static __u32 vbus_group(struct fz_draw *d)
{
	static const __u32 groups[] = { 0, 0, 0, 1, 2, 0x10000, 0x10001, 0xffff };

	if (fz_chance(d, 16))
		return (__u32)fz_u64(d);
	return groups[fz_below(d, FZ_ARRAY_SIZE(groups))];
}

static void vbus_bitrate(struct fz_nlmsg *m, struct fz_draw *d, int type)
{
	static const __u32 rates[] = { 125000, 250000, 500000, 500000, 1000000 };
	static const __u32 drates[] = { 1000000, 2000000, 4000000, 8000000 };
	struct can_bittiming bt = {};

	if (type == IFLA_CAN_DATA_BITTIMING)
		bt.bitrate = drates[fz_below(d, FZ_ARRAY_SIZE(drates))];
	else
		bt.bitrate = rates[fz_below(d, FZ_ARRAY_SIZE(rates))];
	if (fz_chance(d, 4))
		bt.sample_point = 500 + fz_below(d, 400);
	fz_nl_put(m, type, &bt, sizeof(bt));
}

/* The IFLA_INFO_DATA of a controller: mostly one that comes up. */
static void vbus_config(struct fz_nlmsg *m, struct fz_draw *d)
{
	struct can_ctrlmode cm = {};
	size_t data = fz_nl_put(m, IFLA_INFO_DATA, NULL, 0);
	int i, n;
	__u32 v;

	if (!fz_chance(d, 8))
		vbus_bitrate(m, d, IFLA_CAN_BITTIMING);
	if (fz_chance(d, 2)) {
		cm.flags = (__u32)fz_u64(d) & VBUS_CTRLMODES;
		cm.mask = fz_chance(d, 4) ? (__u32)fz_u64(d) : cm.flags | fz_below(d, 0x200);
		fz_nl_put(m, IFLA_CAN_CTRLMODE, &cm, sizeof(cm));
		if ((cm.flags & CAN_CTRLMODE_FD) && !fz_chance(d, 8))
			vbus_bitrate(m, d, IFLA_CAN_DATA_BITTIMING);
	}
	if (fz_chance(d, 3)) {
		v = fz_chance(d, 2) ? fz_below(d, 3) * 10 : (__u32)fz_int(d);
		fz_nl_put(m, IFLA_CAN_RESTART_MS, &v, sizeof(v));
	}
	n = fz_chance(d, 3) ? 1 + fz_below(d, 2) : 0;
	for (i = 0; i < n; i++)
		fz_can_attr(m, d);
	fz_nl_end(m, data);
}

static long vbus_add(struct fz_ctx *c, struct fz_draw *d)
{
	const char *name = fz_vbus_name(d);
	struct fz_nlmsg m;
	__u32 group;
	size_t li;

	fz_nl_init(&m, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	fz_nl_put(&m, IFLA_IFNAME, name, strlen(name) + 1);
	if (!fz_chance(d, 3)) {
		group = vbus_group(d);
		fz_nl_put(&m, IFLA_GROUP, &group, sizeof(group));
	}
	li = fz_nl_put(&m, IFLA_LINKINFO, NULL, 0);
	fz_nl_put(&m, IFLA_INFO_KIND, "can", 3);
	if (!fz_chance(d, 16))
		vbus_config(&m, d);
	fz_nl_end(&m, li);
	fz_trace(c, "RTM_NEWLINK %s type can", name);
	if (fz_ret(c, "vbus add", fz_nl_talk(&m)) || fz_chance(d, 4))
		return 0;
	return fz_ret(c, "vbus up", fz_link_up(fz_name_to_index(name)));
}

/* IFF_UP on or off, sometimes with another group in the same request. */
static int vbus_updown(struct fz_ctx *c, struct fz_draw *d, int ifindex, bool up)
{
	struct ifinfomsg *ifi;
	struct fz_nlmsg m;
	__u32 group;

	fz_nl_init(&m, RTM_NEWLINK, 0, ifindex);
	ifi = NLMSG_DATA(&m.nh);
	ifi->ifi_change = IFF_UP;
	ifi->ifi_flags = up ? IFF_UP : 0;
	if (fz_chance(d, 6)) {
		group = vbus_group(d);
		fz_nl_put(&m, IFLA_GROUP, &group, sizeof(group));
	}
	fz_trace(c, "RTM_NEWLINK ifindex %d %s", ifindex, up ? "up" : "down");
	return fz_nl_talk(&m);
}

/*
 * Reconfigure a controller (EBUSY while up), restart it (EINVAL or
 * EBUSY unless it is bus-off), take it down and up again, or delete it.
 */
static long vbus_change(struct fz_ctx *c, struct fz_draw *d)
{
	const char *name = fz_vbus_name(d);
	int ifindex = fz_name_to_index(name);
	struct fz_nlmsg m;
	size_t li, data;
	__u32 one = 1;

	switch (fz_below(d, 5)) {
	case 0:
		return fz_ret(c, "vbus updown", vbus_updown(c, d, ifindex, fz_chance(d, 2)));
	case 2:
		fz_nl_init(&m, RTM_DELLINK, 0, 0);
		fz_nl_put(&m, IFLA_IFNAME, name, strlen(name) + 1);
		fz_trace(c, "RTM_DELLINK %s", name);
		return fz_ret(c, "vbus del", fz_nl_talk(&m));
	case 1:
		fz_ret(c, "vbus down", vbus_updown(c, d, ifindex, false));
		return fz_ret(c, "vbus up", vbus_updown(c, d, ifindex, true));
	default:
		break;
	}
	if (fz_chance(d, 2))
		fz_ret(c, "vbus down", vbus_updown(c, d, ifindex, false));
	fz_nl_init(&m, RTM_NEWLINK, 0, 0);
	fz_nl_put(&m, IFLA_IFNAME, name, strlen(name) + 1);
	li = fz_nl_put(&m, IFLA_LINKINFO, NULL, 0);
	fz_nl_put(&m, IFLA_INFO_KIND, "can", 3);
	if (fz_chance(d, 3)) {
		data = fz_nl_put(&m, IFLA_INFO_DATA, NULL, 0);
		fz_nl_put(&m, IFLA_CAN_RESTART, &one, sizeof(one));
		fz_nl_end(&m, data);
	} else {
		vbus_config(&m, d);
	}
	fz_nl_end(&m, li);
	fz_trace(c, "RTM_NEWLINK %s can attributes", name);
	fz_ret(c, "vbus change", fz_nl_talk(&m));
	if (!fz_chance(d, 3))
		return 0;
	return fz_ret(c, "vbus up", vbus_updown(c, d, ifindex, true));
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * Entries of @dir that are directories (buses, or the nodes of a bus),
 * sorted so that a draw picks the same one in the same state.
 */
static int vbus_subdirs(const char *dir, char names[][NAME_MAX + 1])
{
	struct dirent *e;
	int n = 0;
	DIR *dp;

	dp = opendir(dir);
	if (!dp)
		return 0;
	while (n < VBUS_MAX_DIRS && (e = readdir(dp))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(names[n++], NAME_MAX + 1, "%s", e->d_name);
	}
	closedir(dp);
	qsort(names, n, NAME_MAX + 1, name_cmp);
	return n;
}

/*
 * A bus's directory into @path, and with a chance one of its nodes'.
 * Returns 1 for a node, 0 for a bus, -1 if there is no bus.
 */
static int vbus_pick(struct fz_draw *d, char *path, size_t size)
{
	char names[VBUS_MAX_DIRS][NAME_MAX + 1];
	char bus[sizeof(VBUS_DEBUGFS) + NAME_MAX + 2];
	int n;

	n = vbus_subdirs(VBUS_DEBUGFS, names);
	if (!n)
		return -1;
	snprintf(bus, sizeof(bus), VBUS_DEBUGFS "/%s", names[fz_below(d, n)]);
	snprintf(path, size, "%s", bus);
	if (fz_chance(d, 3))
		return 0;
	n = vbus_subdirs(bus, names);
	if (!n)
		return 0;
	snprintf(path, size, "%s/%s", bus, names[fz_below(d, n)]);
	return 1;
}

/* A count: small mostly, else next to the limits (1000000, 60000) or any. */
static long long vbus_count(struct fz_draw *d)
{
	static const long long edges[] = { 0, 1, 60000, 60001, 1000000, 1000001 };

	switch (fz_below(d, 8)) {
	case 0:
		return edges[fz_below(d, FZ_ARRAY_SIZE(edges))];
	case 1:
		return fz_int(d);
	default:
		return fz_below(d, 6);
	}
}

/*
 * A command for a fault file: valid for the file, valid for the other
 * kind of file, near valid (a number out of range or not one, a word
 * missing or doubled, odd white space), at the 48-byte limit, or bytes.
 */
static size_t vbus_command(struct fz_draw *d, bool node, char *buf, size_t size)
{
	static const char *const node_words[] = {
		"bit-error", "form-error", "no-ack", "bus-off", "clear",
	};
	static const char *const bus_words[] = { "bit-error", "stuck-dominant", "clear" };
	static const char *const seps[] = { " ", "\t", "  ", "\n", "" };
	const char *word, *sep = " ";
	long long v;
	int len;

	if (node ^ fz_chance(d, 6))
		word = node_words[fz_below(d, FZ_ARRAY_SIZE(node_words))];
	else
		word = bus_words[fz_below(d, FZ_ARRAY_SIZE(bus_words))];
	v = vbus_count(d);
	/* A stuck bus blocks its nodes: mostly for a few milliseconds. */
	if (!strcmp(word, "stuck-dominant") && !fz_chance(d, 16))
		v = 1 + fz_below(d, 20);
	if (!strcmp(word, "no-ack") && fz_chance(d, 2))
		v = fz_below(d, 2);

	switch (fz_below(d, 10)) {
	case 0: case 1: case 2: case 3: case 4:
		if (!strcmp(word, "bus-off") || !strcmp(word, "clear"))
			len = snprintf(buf, size, "%s\n", word);
		else
			len = snprintf(buf, size, "%s %lld\n", word, v);
		break;
	case 5:
		/* Separators, a missing or extra number, hex and octal. */
		sep = seps[fz_below(d, FZ_ARRAY_SIZE(seps))];
		switch (fz_below(d, 5)) {
		case 0:
			len = snprintf(buf, size, "%s", word);
			break;
		case 1:
			len = snprintf(buf, size, "%s%s%lld%s%lld", word, sep, v, sep,
				       vbus_count(d));
			break;
		case 2:
			len = snprintf(buf, size, "%s%s0x%llx", word, sep, v);
			break;
		case 3:
			len = snprintf(buf, size, "%s%s0%llo\n", word, sep, v);
			break;
		default:
			len = snprintf(buf, size, "%s%s%s %lld", sep, word, sep, v);
			break;
		}
		break;
	case 6:
		/* A word cut short or with one byte changed. */
		len = snprintf(buf, size, "%s %lld", word, v);
		buf[fz_below(d, len)] = (char)fz_below(d, 256);
		if (fz_chance(d, 2))
			len = fz_below(d, len + 1);
		break;
	case 7:
		/* Around the parser's 48-byte buffer. */
		len = 44 + fz_below(d, 8);
		memset(buf, ' ', len);
		memcpy(buf + len - strlen(word) - 2, word, strlen(word));
		buf[len - 1] = '1';
		break;
	default:
		len = fz_len(d, size);
		fz_fill(d, buf, len);
		break;
	}
	if (len < 0)
		len = 0;
	return (size_t)len < size ? (size_t)len : size;
}

static long vbus_fault(struct fz_ctx *c, struct fz_draw *d)
{
	char path[PATH_MAX + 8], cmd[96];
	int node = vbus_pick(d, path, PATH_MAX);
	size_t len;
	long ret;
	int fd;

	if (node < 0)
		return -ENOENT;
	len = vbus_command(d, node, cmd, sizeof(cmd));
	strcat(path, "/fault");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return fz_ret(c, "open fault", -1);
	fz_trace(c, "write %s: %zu bytes \"%.*s\"", path, len, (int)len, cmd);
	ret = fz_ret(c, "write fault", write(fd, cmd, len));
	close(fd);
	return ret;
}

/* Read a bus's or node's files back, while they change or go away. */
static long vbus_read(struct fz_ctx *c, struct fz_draw *d)
{
	static const char *const bus_files[] = { "load", "stats", "fault" };
	static const char *const node_files[] = { "counters", "fault" };
	char path[PATH_MAX + 16], buf[256];
	int node = vbus_pick(d, path, PATH_MAX);
	const char *file;
	long ret;
	int fd;

	if (node < 0)
		return -ENOENT;
	file = node ? node_files[fz_below(d, FZ_ARRAY_SIZE(node_files))] :
		      bus_files[fz_below(d, FZ_ARRAY_SIZE(bus_files))];
	strcat(path, "/");
	strcat(path, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fz_ret(c, "open", -1);
	memset(buf, FZ_POISON, sizeof(buf));
	fz_trace(c, "read %s", path);
	ret = fz_ret(c, "read", read(fd, buf, fz_chance(d, 4) ? fz_len(d, sizeof(buf)) :
				     sizeof(buf)));
	if (ret > 0)
		fz_leak_check(c, "can_vbus debugfs read", buf, ret);
	close(fd);
	return ret;
}

static const struct fz_op vbus_ops[] = {
	{ "vbus_add", vbus_add, 3 },
	{ "vbus_change", vbus_change, 3 },
	{ "vbus_fault", vbus_fault, 3 },
	{ "vbus_read", vbus_read, 1 },
	{}
};

FZ_REGISTER(vbus_ops)
