// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_RAW against hostile input: every integer a caller passes (lengths,
 * interface indexes, sizes) at its boundaries, 0, +-1, INT_MIN, INT_MAX
 * and the whole -1..-4095 errno range, as root and as user nobody. Each
 * must get mainline's errno, never be taken for a result. The sendmsg()
 * index cases come last: a regression there crashes the kernel.
 */

#include <grp.h>
#include <limits.h>
#include <sys/wait.h>
#include <linux/sockios.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"

#define NOBODY		65534
#define MIN_NAMELEN	((int)(offsetof(struct sockaddr_can, can_ifindex) + \
			       sizeof(int)))

/* Indexes of no device: each errno value -1..-4095, INT_MIN, INT_MAX. */
#define N_BAD_IFINDEX	(4095 + 2)

static int bad_ifindex(int i)
{
	if (i < 4095)
		return -1 - i;
	return i == 4095 ? INT_MIN : INT_MAX;
}

static const int int_options[] = {
	CAN_RAW_ERR_FILTER, CAN_RAW_LOOPBACK, CAN_RAW_RECV_OWN_MSGS,
	CAN_RAW_FD_FRAMES, CAN_RAW_XL_FRAMES, CAN_RAW_JOIN_FILTERS,
};

static const int all_options[] = {
	CAN_RAW_FILTER, CAN_RAW_ERR_FILTER, CAN_RAW_LOOPBACK,
	CAN_RAW_RECV_OWN_MSGS, CAN_RAW_FD_FRAMES, CAN_RAW_XL_FRAMES,
	CAN_RAW_JOIN_FILTERS,
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Drop to @uid for good: groups, gid, then uid. */
static int become(uid_t uid)
{
	if (!uid)
		return 0;
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		return -errno;
	return getuid() == uid && geteuid() == uid ? 0 : -EPERM;
}

/*
 * Run @check in a child that became @uid; the test fails if it does. The
 * child reports its EXPECT_* failures through its exit status.
 */
#define RUN_AS(uid, check)						\
	do {								\
		pid_t __pid = fork();					\
		int __status = -1;					\
									\
		ASSERT_LE(0, __pid);					\
		if (!__pid) {						\
			if (become(uid))				\
				_exit(2);				\
			check;						\
			_exit(_metadata->passed ? 0 : 1);		\
		}							\
		ASSERT_EQ(__pid, waitpid(__pid, &__status, 0));		\
		EXPECT_TRUE(WIFEXITED(__status));			\
		EXPECT_EQ(0, WEXITSTATUS(__status));			\
	} while (0)

/* -errno of a call that returns -1 on failure, else its result. */
static long result(long ret)
{
	return ret < 0 ? -errno : ret;
}

static long send_to(int fd, const void *buf, size_t size, int ifindex,
		    int namelen)
{
	struct sockaddr_can addr = {
		.can_family = AF_CAN, .can_ifindex = ifindex,
	};

	return result(sendto(fd, buf, size, 0, (struct sockaddr *)&addr,
			     namelen));
}

static long bind_to(int fd, int family, int ifindex, int namelen)
{
	struct sockaddr_can addr = {
		.can_family = family, .can_ifindex = ifindex,
	};

	return result(bind(fd, (struct sockaddr *)&addr, namelen));
}

/* A new vcan of @mtu (0: default), up: its index, or -errno. */
static int vcan_up(char *ifname, char tag, int mtu)
{
	int err;

	ct_ifname(ifname, tag);
	err = ct_vcan_create(ifname, mtu, true);
	return err ?: (int)if_nametoindex(ifname);
}

FIXTURE(hostile)
{
	char ifname[IFNAMSIZ];
	int ifindex;
	int lo_index;
};

FIXTURE_VARIANT(hostile)
{
	uid_t uid;
};

FIXTURE_VARIANT_ADD(hostile, root) { .uid = 0 };
FIXTURE_VARIANT_ADD(hostile, nobody) { .uid = NOBODY };

FIXTURE_SETUP(hostile)
{
	self->ifindex = vcan_up(self->ifname, 'h', CAN_MTU);
	ASSERT_LT(0, self->ifindex);
	self->lo_index = if_nametoindex("lo");
	ASSERT_NE(0, self->lo_index);
}

FIXTURE_TEARDOWN(hostile)
{
	ct_link_del(self->ifname);
}

static void check_filter_lengths(struct __test_metadata *_metadata)
{
	static const struct { int optlen; int err; } cases[] = {
		{ 0, 0 },
		{ 1, -EINVAL },
		{ sizeof(struct can_filter) - 1, -EINVAL },
		{ sizeof(struct can_filter), 0 },
		{ sizeof(struct can_filter) + 1, -EINVAL },
		{ 2 * sizeof(struct can_filter), 0 },
		{ CAN_RAW_FILTER_MAX * sizeof(struct can_filter) - 1, -EINVAL },
		{ CAN_RAW_FILTER_MAX * sizeof(struct can_filter), 0 },
		{ (CAN_RAW_FILTER_MAX + 1) * sizeof(struct can_filter),
		  -EINVAL },
		{ INT_MAX & ~7, -EINVAL },
		{ INT_MAX, -EINVAL },
		{ -1, -EINVAL },
		{ -(int)sizeof(struct can_filter), -EINVAL },
		{ INT_MIN, -EINVAL },
	};
	struct can_filter *f = calloc(CAN_RAW_FILTER_MAX + 1, sizeof(*f));
	int fd = ct_raw_socket();
	unsigned int i;

	EXPECT_LE(0, fd);
	for (i = 0; f && i < ARRAY_LEN(cases); i++) {
		EXPECT_EQ(cases[i].err,
			  result(setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER,
					    f, cases[i].optlen)))
			TH_LOG("optlen %d", cases[i].optlen);
	}
	/* A valid length whose bytes are not there. */
	EXPECT_EQ(-EFAULT, result(setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER,
					     NULL, sizeof(*f))));
	EXPECT_EQ(-EFAULT, result(setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER,
					     NULL, 2 * sizeof(*f))));
	free(f);
	close(fd);
}

TEST_F(hostile, setsockopt_filter_length_gets_mainlines_errno)
{
	RUN_AS(variant->uid, check_filter_lengths(_metadata));
}

static void check_int_option_lengths(struct __test_metadata *_metadata)
{
	static const int lengths[] = {
		0, 1, sizeof(int) - 1, sizeof(int) + 1, 2 * sizeof(int),
		INT_MAX, -1, -(int)sizeof(int), INT_MIN,
	};
	int fd = ct_raw_socket(), val[4] = {};
	unsigned int i, j;

	EXPECT_LE(0, fd);
	for (i = 0; i < ARRAY_LEN(int_options); i++) {
		for (j = 0; j < ARRAY_LEN(lengths); j++)
			EXPECT_EQ(-EINVAL,
				  result(setsockopt(fd, SOL_CAN_RAW,
						    int_options[i], val,
						    lengths[j])))
				TH_LOG("option %d optlen %d", int_options[i],
				       lengths[j]);
		EXPECT_EQ(-EFAULT, result(setsockopt(fd, SOL_CAN_RAW,
						     int_options[i], NULL,
						     sizeof(int))));
		EXPECT_EQ(0, result(setsockopt(fd, SOL_CAN_RAW, int_options[i],
					       val, sizeof(int))));
	}
	EXPECT_EQ(-ENOPROTOOPT, result(setsockopt(fd, SOL_CAN_RAW, INT_MAX,
						  val, sizeof(int))));
	EXPECT_EQ(-ENOPROTOOPT, result(setsockopt(fd, SOL_CAN_RAW, -1,
						  val, sizeof(int))));
	EXPECT_EQ(-EINVAL, result(setsockopt(fd, SOL_CAN_BASE + 99,
					     CAN_RAW_LOOPBACK, val,
					     sizeof(int))));
	close(fd);
}

TEST_F(hostile, setsockopt_int_option_length_gets_einval)
{
	RUN_AS(variant->uid, check_int_option_lengths(_metadata));
}

static void check_getsockopt_lengths(struct __test_metadata *_metadata)
{
	static const int bad[] = { -1, -4, -529, -4095, INT_MIN };
	int fd = ct_raw_socket(), buf[4];
	unsigned int i, j;
	socklen_t len;

	EXPECT_LE(0, fd);
	for (i = 0; i < ARRAY_LEN(all_options); i++) {
		for (j = 0; j < ARRAY_LEN(bad); j++) {
			len = bad[j];
			EXPECT_EQ(-EINVAL,
				  result(getsockopt(fd, SOL_CAN_RAW,
						    all_options[i], buf, &len)))
				TH_LOG("option %d *optlen %d", all_options[i],
				       bad[j]);
			EXPECT_EQ(bad[j], (int)len);
		}
		EXPECT_EQ(-EFAULT, result(getsockopt(fd, SOL_CAN_RAW,
						     all_options[i], buf,
						     NULL)));
	}
	/* Options other than the filter copy what fits. */
	len = 0;
	EXPECT_EQ(0, result(getsockopt(fd, SOL_CAN_RAW, CAN_RAW_LOOPBACK,
				       buf, &len)));
	EXPECT_EQ(0, len);
	len = INT_MAX;
	EXPECT_EQ(0, result(getsockopt(fd, SOL_CAN_RAW, CAN_RAW_LOOPBACK,
				       buf, &len)));
	EXPECT_EQ(sizeof(int), len);
	/* The default filter does not fit in 0 or 7 bytes. */
	len = 0;
	EXPECT_EQ(-ERANGE, result(getsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER,
					     buf, &len)));
	EXPECT_EQ(sizeof(struct can_filter), len);
	len = sizeof(struct can_filter) - 1;
	EXPECT_EQ(-ERANGE, result(getsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER,
					     buf, &len)));
	len = INT_MAX;
	EXPECT_EQ(0, result(getsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER,
				       buf, &len)));
	EXPECT_EQ(sizeof(struct can_filter), len);
	len = sizeof(struct can_filter);
	EXPECT_EQ(-EFAULT, result(getsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER,
					     NULL, &len)));
	/* The level is checked before the length, as in mainline. */
	EXPECT_EQ(-EINVAL, result(getsockopt(fd, SOL_CAN_BASE + 99,
					     CAN_RAW_FILTER, buf, NULL)));
	len = sizeof(buf);
	EXPECT_EQ(-ENOPROTOOPT, result(getsockopt(fd, SOL_CAN_RAW, INT_MAX,
						  buf, &len)));
	close(fd);
}

TEST_F(hostile, getsockopt_length_gets_mainlines_errno)
{
	RUN_AS(variant->uid, check_getsockopt_lengths(_metadata));
}

static void check_bind(struct __test_metadata *_metadata, int ifindex,
		       int lo_index)
{
	int fd = ct_raw_socket(), i;

	EXPECT_LE(0, fd);
	for (i = 0; i < N_BAD_IFINDEX; i++)
		EXPECT_EQ(-ENODEV, bind_to(fd, AF_CAN, bad_ifindex(i),
					   sizeof(struct sockaddr_can)))
			TH_LOG("ifindex %d", bad_ifindex(i));
	EXPECT_EQ(-ENODEV, bind_to(fd, AF_CAN, lo_index,
				   sizeof(struct sockaddr_can)));
	EXPECT_EQ(-EINVAL, bind_to(fd, AF_CAN, ifindex, 0));
	EXPECT_EQ(-EINVAL, bind_to(fd, AF_CAN, ifindex, MIN_NAMELEN - 1));
	EXPECT_EQ(-EINVAL, bind_to(fd, AF_CAN, ifindex, -1));
	EXPECT_EQ(-EINVAL, bind_to(fd, AF_CAN, ifindex, INT_MIN));
	EXPECT_EQ(-EINVAL, bind_to(fd, AF_CAN, ifindex, INT_MAX));
	EXPECT_EQ(-EINVAL, bind_to(fd, AF_CAN + 1, ifindex,
				   sizeof(struct sockaddr_can)));
	EXPECT_EQ(-EINVAL, bind_to(fd, 0, ifindex,
				   sizeof(struct sockaddr_can)));
	EXPECT_EQ(0, bind_to(fd, AF_CAN, ifindex, MIN_NAMELEN));
	EXPECT_EQ(0, bind_to(fd, AF_CAN, 0, sizeof(struct sockaddr_can)));
	close(fd);
}

TEST_F(hostile, bind_to_no_device_gets_enodev)
{
	RUN_AS(variant->uid,
	       check_bind(_metadata, self->ifindex, self->lo_index));
}

static void check_other_calls(struct __test_metadata *_metadata)
{
	struct sockaddr_can addr = { .can_family = AF_CAN };
	socklen_t alen = sizeof(addr);
	struct timeval tv;
	int fd = ct_raw_socket();

	EXPECT_LE(0, fd);
	EXPECT_EQ(-EOPNOTSUPP, result(connect(fd, (struct sockaddr *)&addr,
					      sizeof(addr))));
	EXPECT_EQ(-EOPNOTSUPP, result(getpeername(fd, (struct sockaddr *)&addr,
						  &alen)));
	alen = 0;
	EXPECT_EQ(0, result(getsockname(fd, (struct sockaddr *)&addr, &alen)));
	EXPECT_EQ(-ENOTTY, result(ioctl(fd, 0x7fff1234, 0)));
	EXPECT_EQ(-ENOENT, result(ioctl(fd, SIOCGSTAMP, &tv)));
	EXPECT_EQ(-EPROTOTYPE, result(socket(PF_CAN, SOCK_DGRAM, CAN_RAW)));
	EXPECT_EQ(-EINVAL, result(socket(PF_CAN, SOCK_RAW, -1)));
	EXPECT_EQ(-EINVAL, result(socket(PF_CAN, SOCK_RAW, INT_MIN)));
	EXPECT_EQ(-EINVAL, result(socket(PF_CAN, SOCK_RAW, INT_MAX)));
	close(fd);
}

TEST_F(hostile, connect_getpeername_and_ioctl_get_mainlines_errno)
{
	RUN_AS(variant->uid, check_other_calls(_metadata));
}

static void check_send_sizes(struct __test_metadata *_metadata, int ifindex)
{
	static const size_t sizes[] = {
		0, 1, CAN_MTU - 1, CAN_MTU + 1, CANFD_MTU - 1, CANFD_MTU,
		CANFD_MTU + 1, CANXL_MTU, CANXL_MTU + 1, 1 << 20,
	};
	size_t big = 1 << 20;
	char *buf = calloc(1, big);
	int fd = ct_raw_open(ifindex);
	unsigned int i;

	EXPECT_LE(0, fd);
	for (i = 0; buf && i < ARRAY_LEN(sizes); i++)
		EXPECT_EQ(-EINVAL, result(send(fd, buf, sizes[i], 0)))
			TH_LOG("size %zu", sizes[i]);
	/* CAN FD needs the option and a CAN FD device; this one is not. */
	EXPECT_EQ(0, ct_setopt_int(fd, CAN_RAW_FD_FRAMES, 1));
	EXPECT_EQ(-EINVAL, result(send(fd, buf, CANFD_MTU, 0)));
	EXPECT_EQ(CAN_MTU, result(send(fd, buf, CAN_MTU, 0)));
	free(buf);
	close(fd);
}

TEST_F(hostile, send_of_no_frame_size_gets_einval)
{
	RUN_AS(variant->uid, check_send_sizes(_metadata, self->ifindex));
}

static void check_send_addresses(struct __test_metadata *_metadata,
				 int ifindex, int lo_index)
{
	struct can_frame cf = ct_frame(0x12, 1);
	int fd = ct_raw_socket();

	EXPECT_LE(0, fd);
	EXPECT_EQ(-ENXIO, result(send(fd, &cf, sizeof(cf), 0)));
	EXPECT_EQ(-ENXIO, send_to(fd, &cf, sizeof(cf), 0, sizeof(struct sockaddr_can)));
	EXPECT_EQ(-EINVAL, send_to(fd, &cf, sizeof(cf), ifindex,
				   MIN_NAMELEN - 1));
	EXPECT_EQ(-EINVAL, send_to(fd, &cf, sizeof(cf), -1, MIN_NAMELEN - 1));
	EXPECT_EQ(-EPERM, send_to(fd, &cf, sizeof(cf), lo_index,
				  sizeof(struct sockaddr_can)));
	EXPECT_EQ(sizeof(cf), send_to(fd, &cf, sizeof(cf), ifindex,
				      MIN_NAMELEN));
	close(fd);
}

TEST_F(hostile, send_to_no_device_gets_enxio)
{
	RUN_AS(variant->uid,
	       check_send_addresses(_metadata, self->ifindex, self->lo_index));
}

/*
 * Last: an index taken for an error code here once returned -EIOCBQUEUED
 * from sendmsg() (-529), which is a kernel BUG in net/socket.c.
 */
FIXTURE(hostile_index)
{
	char ifname[IFNAMSIZ];
	int ifindex;
};

FIXTURE_SETUP(hostile_index)
{
	self->ifindex = vcan_up(self->ifname, 'i', 0);
	ASSERT_LT(0, self->ifindex);
}

FIXTURE_TEARDOWN(hostile_index)
{
	ct_link_del(self->ifname);
}

static void check_send_bad_index(struct __test_metadata *_metadata,
				 int bound_to)
{
	struct can_frame cf = ct_frame(0x34, 2);
	int fd = ct_raw_open(bound_to), i;

	EXPECT_LE(0, fd);
	for (i = 0; i < N_BAD_IFINDEX; i++)
		EXPECT_EQ(-ENXIO, send_to(fd, &cf, sizeof(cf), bad_ifindex(i),
					  sizeof(struct sockaddr_can)))
			TH_LOG("ifindex %d", bad_ifindex(i));
	/* A size no frame has is refused before the address is looked at. */
	EXPECT_EQ(-EINVAL, send_to(fd, &cf, 0, -529,
				   sizeof(struct sockaddr_can)));
	EXPECT_EQ(-EINVAL, send_to(fd, &cf, CANXL_HDR_SIZE, INT_MIN,
				   sizeof(struct sockaddr_can)));
	/* A size some frame has: the address decides, as in mainline. */
	EXPECT_EQ(-ENXIO, send_to(fd, &cf, CAN_MTU - 1, INT_MIN,
				  sizeof(struct sockaddr_can)));
	close(fd);
}

/* As root and as nobody, from an unbound and from a bound socket. */
TEST_F(hostile_index, sendto_every_negative_ifindex_gets_enxio)
{
	RUN_AS(0, check_send_bad_index(_metadata, 0));
	RUN_AS(0, check_send_bad_index(_metadata, self->ifindex));
	RUN_AS(NOBODY, check_send_bad_index(_metadata, 0));
	RUN_AS(NOBODY, check_send_bad_index(_metadata, self->ifindex));
}

TEST_HARNESS_MAIN
