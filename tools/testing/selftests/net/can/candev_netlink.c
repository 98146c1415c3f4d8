// SPDX-License-Identifier: GPL-2.0
/*
 * The errnos the CAN device layer's netlink interface returns for bad
 * or badly timed settings, on a QEMU kvaser_pci card (skipped without
 * one): unreachable bitrate, segments out of range, change while up,
 * unsupported control modes, restart in the wrong state, open without
 * bitrate; and that a request with one bad attribute changes nothing.
 */

#include <dirent.h>
#include <limits.h>
#include <linux/can/netlink.h>

#include "lib/can_test.h"
#include "kselftest_harness.h"

/* Name of the first interface the kvaser_pci driver owns, or "". */
static void find_kvaser(char name[IFNAMSIZ])
{
	char path[PATH_MAX], target[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	ssize_t n;

	name[0] = '\0';
	dir = opendir("/sys/class/net");
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver",
			 de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strstr(target, "/kvaser_pci") &&
		    strlen(de->d_name) < IFNAMSIZ) {
			strcpy(name, de->d_name);
			break;
		}
	}
	closedir(dir);
}

/* Send IFLA_INFO_DATA with one IFLA_CAN_* attribute to @name. */
static int can_set(const char *name, int type, const void *data, int len)
{
	struct rtattr *linkinfo, *info;
	struct ct_nlreq req;

	ct_nl_init(&req, RTM_NEWLINK, 0, if_nametoindex(name));
	linkinfo = ct_nla_put(&req, IFLA_LINKINFO, NULL, 0);
	ct_nla_put(&req, IFLA_INFO_KIND, "can", strlen("can"));
	info = ct_nla_put(&req, IFLA_INFO_DATA, NULL, 0);
	ct_nla_put(&req, type, data, len);
	ct_nla_end(&req, info);
	ct_nla_end(&req, linkinfo);
	return ct_nl_talk(&req.nh);
}

static int set_bitrate(const char *name, __u32 bitrate)
{
	struct can_bittiming bt = { .bitrate = bitrate };

	return can_set(name, IFLA_CAN_BITTIMING, &bt, sizeof(bt));
}

static int set_ctrlmode(const char *name, __u32 mask, __u32 flags)
{
	struct can_ctrlmode cm = { .mask = mask, .flags = flags };

	return can_set(name, IFLA_CAN_CTRLMODE, &cm, sizeof(cm));
}

static int set_u32(const char *name, int type, __u32 val)
{
	return can_set(name, type, &val, sizeof(val));
}

/* Send IFLA_INFO_DATA with the attributes in @attrs, each of @sizes[i]
 * bytes, in one request, so that they reach changelink together.
 */
static int can_set_many(const char *name, const int *types,
			const void *const *attrs, const int *sizes, int n)
{
	struct rtattr *linkinfo, *info;
	struct ct_nlreq req;
	int i;

	ct_nl_init(&req, RTM_NEWLINK, 0, if_nametoindex(name));
	linkinfo = ct_nla_put(&req, IFLA_LINKINFO, NULL, 0);
	ct_nla_put(&req, IFLA_INFO_KIND, "can", strlen("can"));
	info = ct_nla_put(&req, IFLA_INFO_DATA, NULL, 0);
	for (i = 0; i < n; i++)
		ct_nla_put(&req, types[i], attrs[i], sizes[i]);
	ct_nla_end(&req, info);
	ct_nla_end(&req, linkinfo);
	return ct_nl_talk(&req.nh);
}

/* Find attribute @type among the @len bytes of attributes at @rta. */
static struct rtattr *find_rta(struct rtattr *rta, int len, int type)
{
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if ((rta->rta_type & NLA_TYPE_MASK) == type)
			return rta;
	return NULL;
}

/* Copy the device's IFLA_CAN_* attribute @type into @buf (@size bytes).
 * Return: 0, or -1 if the link dump lacks it.
 */
static int can_get(const char *name, int type, void *buf, size_t size)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct rtattr *linkinfo, *data, *attr;
	struct nlmsghdr *ans;
	static char answer[16384];
	struct ct_nlreq req;
	int fd, len, rc = -1;

	ct_nl_init(&req, RTM_GETLINK, NLM_F_REQUEST, if_nametoindex(name));
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -1;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		goto out;
	len = recv(fd, answer, sizeof(answer), 0);
	ans = (struct nlmsghdr *)answer;
	if (len < 0 || !NLMSG_OK(ans, len) || ans->nlmsg_type != RTM_NEWLINK)
		goto out;
	linkinfo = find_rta(IFLA_RTA(NLMSG_DATA(ans)), IFLA_PAYLOAD(ans),
			    IFLA_LINKINFO);
	data = linkinfo ? find_rta(RTA_DATA(linkinfo), RTA_PAYLOAD(linkinfo),
				   IFLA_INFO_DATA) : NULL;
	attr = data ? find_rta(RTA_DATA(data), RTA_PAYLOAD(data), type) : NULL;
	if (attr && RTA_PAYLOAD(attr) >= size) {
		memcpy(buf, RTA_DATA(attr), size);
		rc = 0;
	}
out:
	close(fd);
	return rc;
}

static __u32 current_bitrate(const char *name)
{
	struct can_bittiming bt = {};

	return can_get(name, IFLA_CAN_BITTIMING, &bt, sizeof(bt)) ? 0 :
		bt.bitrate;
}

static __u32 current_ctrlmode(const char *name)
{
	struct can_ctrlmode cm = {};

	return can_get(name, IFLA_CAN_CTRLMODE, &cm, sizeof(cm)) ? ~0u :
		cm.flags;
}

FIXTURE(candev) {
	char name[IFNAMSIZ];
};

FIXTURE_SETUP(candev)
{
	if (system("modprobe kvaser_pci 2>/dev/null"))
		SKIP(return, "kvaser_pci not loadable");
	find_kvaser(self->name);
	if (!self->name[0])
		SKIP(return, "no kvaser_pci card (QEMU -device kvaser_pci)");
	ASSERT_EQ(0, ct_link_set_up(self->name, false));
	ASSERT_EQ(0, set_u32(self->name, IFLA_CAN_RESTART_MS, 0));
}

FIXTURE_TEARDOWN(candev)
{
	if (self->name[0])
		ct_link_set_up(self->name, false);
}

TEST_F(candev, unreachable_bitrate_is_edom)
{
	EXPECT_EQ(-EDOM, set_bitrate(self->name, 1000));
	EXPECT_EQ(-EDOM, set_bitrate(self->name, 7000000));
}

TEST_F(candev, bitrate_with_tq_is_einval)
{
	struct can_bittiming bt = { .bitrate = 500000, .tq = 125,
				    .prop_seg = 6, .phase_seg1 = 7,
				    .phase_seg2 = 2 };

	EXPECT_EQ(-EINVAL, can_set(self->name, IFLA_CAN_BITTIMING, &bt,
				   sizeof(bt)));
}

TEST_F(candev, segments_beyond_limits_are_erange)
{
	struct can_bittiming bt = { .tq = 125, .prop_seg = 10,
				    .phase_seg1 = 10, .phase_seg2 = 2 };

	EXPECT_EQ(-ERANGE, can_set(self->name, IFLA_CAN_BITTIMING, &bt,
				   sizeof(bt)));
	bt.prop_seg = 6;
	bt.phase_seg1 = 7;
	bt.sjw = 5;
	EXPECT_EQ(-ERANGE, can_set(self->name, IFLA_CAN_BITTIMING, &bt,
				   sizeof(bt)));
}

TEST_F(candev, unsupported_ctrlmode_is_eopnotsupp)
{
	EXPECT_EQ(-EOPNOTSUPP, set_ctrlmode(self->name, CAN_CTRLMODE_FD,
					    CAN_CTRLMODE_FD));
	EXPECT_EQ(-EOPNOTSUPP, set_ctrlmode(self->name, 0x8000, 0x8000));
	/* Clearing a mode the device lacks asks for nothing. */
	EXPECT_EQ(0, set_ctrlmode(self->name, CAN_CTRLMODE_FD, 0));
}

TEST_F(candev, changes_while_up_are_ebusy)
{
	ASSERT_EQ(0, set_bitrate(self->name, 500000));
	ASSERT_EQ(0, ct_link_set_up(self->name, true));
	EXPECT_EQ(-EBUSY, set_bitrate(self->name, 250000));
	EXPECT_EQ(-EBUSY, set_ctrlmode(self->name, CAN_CTRLMODE_LOOPBACK,
				       CAN_CTRLMODE_LOOPBACK));
	EXPECT_EQ(-EBUSY, set_u32(self->name, IFLA_CAN_RESTART_MS, 100));
}

TEST_F(candev, restart_while_down_is_einval)
{
	ASSERT_EQ(0, set_bitrate(self->name, 500000));
	EXPECT_EQ(-EINVAL, set_u32(self->name, IFLA_CAN_RESTART, 1));
}

TEST_F(candev, restart_while_error_active_is_ebusy)
{
	ASSERT_EQ(0, set_bitrate(self->name, 500000));
	ASSERT_EQ(0, ct_link_set_up(self->name, true));
	EXPECT_EQ(-EBUSY, set_u32(self->name, IFLA_CAN_RESTART, 1));
}

TEST_F(candev, restart_with_restart_ms_is_einval)
{
	ASSERT_EQ(0, set_bitrate(self->name, 500000));
	ASSERT_EQ(0, set_u32(self->name, IFLA_CAN_RESTART_MS, 100));
	ASSERT_EQ(0, ct_link_set_up(self->name, true));
	EXPECT_EQ(-EINVAL, set_u32(self->name, IFLA_CAN_RESTART, 1));
}

/* 9 Mbit/s at the card's 8 MHz: unreachable like any other (mainline). */
TEST_F(candev, bitrate_above_the_clock_is_edom)
{
	EXPECT_EQ(-EDOM, set_bitrate(self->name, 9000000));
	EXPECT_EQ(-EDOM, set_bitrate(self->name, UINT_MAX));
}

/* "ip link set can0 type can bitrate 125000 fd on": refused as a whole. */
TEST_F(candev, unsupported_ctrlmode_keeps_the_bitrate)
{
	struct can_bittiming bt = { .bitrate = 125000 };
	struct can_ctrlmode cm = { .mask = CAN_CTRLMODE_FD,
				   .flags = CAN_CTRLMODE_FD };
	const int types[] = { IFLA_CAN_BITTIMING, IFLA_CAN_CTRLMODE };
	const void *const attrs[] = { &bt, &cm };
	const int sizes[] = { sizeof(bt), sizeof(cm) };

	ASSERT_EQ(0, set_bitrate(self->name, 500000));
	ASSERT_EQ(500000, current_bitrate(self->name));
	EXPECT_EQ(-EOPNOTSUPP, can_set_many(self->name, types, attrs, sizes, 2));
	EXPECT_EQ(500000, current_bitrate(self->name));
}

/* A bad attribute after two good ones: neither good one takes effect. */
TEST_F(candev, bad_restart_ms_keeps_bitrate_and_ctrlmode)
{
	struct can_bittiming bt = { .bitrate = 250000 };
	struct can_ctrlmode cm = { .mask = CAN_CTRLMODE_LOOPBACK,
				   .flags = CAN_CTRLMODE_LOOPBACK };
	__u32 ms = (__u32)INT_MAX + 1;
	const int types[] = { IFLA_CAN_BITTIMING, IFLA_CAN_CTRLMODE,
			      IFLA_CAN_RESTART_MS };
	const void *const attrs[] = { &bt, &cm, &ms };
	const int sizes[] = { sizeof(bt), sizeof(cm), sizeof(ms) };

	ASSERT_EQ(0, set_bitrate(self->name, 500000));
	ASSERT_EQ(0, set_ctrlmode(self->name, CAN_CTRLMODE_LOOPBACK, 0));
	EXPECT_EQ(-EINVAL, can_set_many(self->name, types, attrs, sizes, 3));
	EXPECT_EQ(500000, current_bitrate(self->name));
	EXPECT_EQ(0, current_ctrlmode(self->name) & CAN_CTRLMODE_LOOPBACK);
}

/* And the good ones together take effect together. */
TEST_F(candev, good_attributes_apply_together)
{
	struct can_bittiming bt = { .bitrate = 250000 };
	struct can_ctrlmode cm = { .mask = CAN_CTRLMODE_LOOPBACK,
				   .flags = CAN_CTRLMODE_LOOPBACK };
	__u32 ms = 100;
	const int types[] = { IFLA_CAN_BITTIMING, IFLA_CAN_CTRLMODE,
			      IFLA_CAN_RESTART_MS };
	const void *const attrs[] = { &bt, &cm, &ms };
	const int sizes[] = { sizeof(bt), sizeof(cm), sizeof(ms) };

	ASSERT_EQ(0, set_ctrlmode(self->name, CAN_CTRLMODE_LOOPBACK, 0));
	EXPECT_EQ(0, can_set_many(self->name, types, attrs, sizes, 3));
	EXPECT_EQ(250000, current_bitrate(self->name));
	EXPECT_EQ(CAN_CTRLMODE_LOOPBACK,
		  current_ctrlmode(self->name) & CAN_CTRLMODE_LOOPBACK);
	EXPECT_EQ(0, set_ctrlmode(self->name, CAN_CTRLMODE_LOOPBACK, 0));
}

/* A classic controller keeps CAN_MTU, with mainline's errnos; there is
 * no MTU range (ip -d link shows minmtu 0 maxmtu 0 as in mainline).
 */
TEST_F(candev, mtu_change_is_refused)
{
	EXPECT_EQ(-EINVAL, ct_link_set_mtu(self->name, CANFD_MTU));
	EXPECT_EQ(-EINVAL, ct_link_set_mtu(self->name, 1500));
	EXPECT_EQ(-EINVAL, ct_link_set_mtu(self->name, 0));
	EXPECT_EQ(0, ct_link_set_mtu(self->name, CAN_MTU));
	ASSERT_EQ(0, set_bitrate(self->name, 500000));
	ASSERT_EQ(0, ct_link_set_up(self->name, true));
	EXPECT_EQ(-EBUSY, ct_link_set_mtu(self->name, CANFD_MTU));
	EXPECT_EQ(0, ct_link_set_mtu(self->name, CAN_MTU));
	EXPECT_EQ(CAN_MTU, ct_link_mtu(self->name));
}

/* As in mainline, unless our can-vbus (can_vbus.sh) offers itself. */
TEST_F(candev, creating_can_link_is_eopnotsupp)
{
	struct rtattr *linkinfo;
	struct ct_nlreq req;

	ASSERT_EQ(0, system("! grep -q '^can_vbus ' /proc/modules || rmmod can-vbus"));
	ct_nl_init(&req, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	ct_nla_put(&req, IFLA_IFNAME, "cdtest0", sizeof("cdtest0"));
	linkinfo = ct_nla_put(&req, IFLA_LINKINFO, NULL, 0);
	ct_nla_put(&req, IFLA_INFO_KIND, "can", strlen("can"));
	ct_nla_end(&req, linkinfo);
	EXPECT_EQ(-EOPNOTSUPP, ct_nl_talk(&req.nh));
}

/* A freshly probed card has no bitrate: reload the driver to get one. */
TEST(open_without_bitrate_is_einval)
{
	char name[IFNAMSIZ];

	if (system("modprobe -r kvaser_pci && modprobe kvaser_pci"))
		SKIP(return, "kvaser_pci not reloadable");
	find_kvaser(name);
	if (!name[0])
		SKIP(return, "no kvaser_pci card");
	EXPECT_EQ(-EINVAL, ct_link_set_up(name, true));
}

TEST_HARNESS_MAIN
