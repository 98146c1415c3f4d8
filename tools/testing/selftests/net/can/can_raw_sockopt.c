// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_RAW socket options as user space sees them: defaults, the length
 * rules of setsockopt() and getsockopt(), the filter table limits and
 * the errors for unknown options and levels. No interface is needed:
 * options work the same on unbound sockets.
 */

#include "kselftest_harness.h"
#include "lib/can_test.h"

/* The int-valued options share every length rule. */
FIXTURE(int_opt)
{
	int fd;
};

FIXTURE_VARIANT(int_opt)
{
	int optname;
	int default_value;
};

FIXTURE_VARIANT_ADD(int_opt, loopback)
{
	.optname = CAN_RAW_LOOPBACK,
	.default_value = 1,
};

FIXTURE_VARIANT_ADD(int_opt, recv_own_msgs)
{
	.optname = CAN_RAW_RECV_OWN_MSGS,
	.default_value = 0,
};

FIXTURE_VARIANT_ADD(int_opt, fd_frames)
{
	.optname = CAN_RAW_FD_FRAMES,
	.default_value = 0,
};

FIXTURE_VARIANT_ADD(int_opt, join_filters)
{
	.optname = CAN_RAW_JOIN_FILTERS,
	.default_value = 0,
};

FIXTURE_SETUP(int_opt)
{
	self->fd = ct_raw_socket();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(int_opt)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(int_opt, default_value_is_mainlines)
{
	int val = -1;
	socklen_t len = sizeof(val);

	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, variant->optname,
				&val, &len));
	EXPECT_EQ(sizeof(int), len);
	EXPECT_EQ(variant->default_value, val);
}

TEST_F(int_opt, set_value_reads_back)
{
	int val = !variant->default_value, got = -1;
	socklen_t len = sizeof(got);

	ASSERT_EQ(0, setsockopt(self->fd, SOL_CAN_RAW, variant->optname,
				&val, sizeof(val)));
	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, variant->optname,
				&got, &len));
	EXPECT_EQ(val, got);
}

TEST_F(int_opt, short_set_length_fails_einval)
{
	int val = 1;

	EXPECT_EQ(-1, setsockopt(self->fd, SOL_CAN_RAW, variant->optname,
				 &val, sizeof(val) - 1));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(int_opt, long_set_length_fails_einval)
{
	long long val = 1;

	EXPECT_EQ(-1, setsockopt(self->fd, SOL_CAN_RAW, variant->optname,
				 &val, sizeof(val)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(int_opt, long_get_buffer_is_trimmed_to_int)
{
	long long val = -1;
	socklen_t len = sizeof(val);

	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, variant->optname,
				&val, &len));
	EXPECT_EQ(sizeof(int), len);
}

TEST_F(int_opt, short_get_buffer_gets_truncated_value)
{
	unsigned char val[2] = { 0xaa, 0xaa };
	socklen_t len = 1;

	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, variant->optname,
				val, &len));
	EXPECT_EQ(1, len);
	/* little-endian: the low byte of the int */
	EXPECT_EQ(variant->default_value, val[0]);
	EXPECT_EQ(0xaa, val[1]);
}

TEST_F(int_opt, negative_get_length_fails_einval)
{
	int val;
	socklen_t len = (socklen_t)-1;

	EXPECT_EQ(-1, getsockopt(self->fd, SOL_CAN_RAW, variant->optname,
				 &val, &len));
	EXPECT_EQ(EINVAL, errno);
}

/* Options with their own rules. */
FIXTURE(opt)
{
	int fd;
};

FIXTURE_SETUP(opt)
{
	self->fd = ct_raw_socket();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(opt)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(opt, default_filter_is_one_match_all_entry)
{
	struct can_filter f[2];
	socklen_t len = sizeof(f);

	memset(f, 0xff, sizeof(f));
	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_FILTER, f, &len));
	EXPECT_EQ(sizeof(struct can_filter), len);
	EXPECT_EQ(0, f[0].can_id);
	EXPECT_EQ(0, f[0].can_mask);
}

TEST_F(opt, filters_read_back_in_order)
{
	struct can_filter set[3] = {
		{ 0x123, CAN_SFF_MASK },
		{ 0x200 | CAN_INV_FILTER, 0x700 },
		{ 0x1234567 | CAN_EFF_FLAG, CAN_EFF_MASK | CAN_EFF_FLAG },
	};
	struct can_filter got[4];
	socklen_t len = sizeof(got);

	ASSERT_EQ(0, ct_set_filters(self->fd, set, 3));
	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_FILTER, got, &len));
	EXPECT_EQ(sizeof(set), len);
	EXPECT_EQ(0, memcmp(set, got, sizeof(set)));
}

TEST_F(opt, filter_length_not_multiple_of_entry_fails_einval)
{
	struct can_filter f[2] = {};

	EXPECT_EQ(-1, setsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_FILTER, f,
				 sizeof(f) - 1));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(opt, filter_table_of_512_is_accepted)
{
	struct can_filter f[CAN_RAW_FILTER_MAX];
	socklen_t len = sizeof(f);
	int i;

	for (i = 0; i < CAN_RAW_FILTER_MAX; i++) {
		f[i].can_id = i;
		f[i].can_mask = CAN_SFF_MASK;
	}
	ASSERT_EQ(0, ct_set_filters(self->fd, f, CAN_RAW_FILTER_MAX));
	memset(f, 0, sizeof(f));
	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_FILTER, f, &len));
	EXPECT_EQ(sizeof(f), len);
	EXPECT_EQ(CAN_RAW_FILTER_MAX - 1, f[CAN_RAW_FILTER_MAX - 1].can_id);
}

TEST_F(opt, filter_table_of_513_fails_einval)
{
	struct can_filter f[CAN_RAW_FILTER_MAX + 1] = {};

	EXPECT_EQ(-EINVAL, ct_set_filters(self->fd, f, CAN_RAW_FILTER_MAX + 1));
}

TEST_F(opt, zero_filters_read_back_as_empty)
{
	struct can_filter f;
	socklen_t len = sizeof(f);

	ASSERT_EQ(0, ct_set_filters(self->fd, NULL, 0));
	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_FILTER, &f, &len));
	EXPECT_EQ(0, len);
}

TEST_F(opt, small_filter_buffer_fails_erange_with_needed_length)
{
	struct can_filter set[3] = {
		{ 0x1, CAN_SFF_MASK }, { 0x2, CAN_SFF_MASK }, { 0x3, CAN_SFF_MASK },
	};
	struct can_filter got[2];
	socklen_t len = sizeof(got);

	ASSERT_EQ(0, ct_set_filters(self->fd, set, 3));
	EXPECT_EQ(-1, getsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_FILTER, got, &len));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(sizeof(set), len);
}

TEST_F(opt, large_filter_buffer_gets_exact_length)
{
	struct can_filter set = { 0x7, CAN_SFF_MASK };
	struct can_filter got[8];
	socklen_t len = sizeof(got);

	ASSERT_EQ(0, ct_set_filters(self->fd, &set, 1));
	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_FILTER, got, &len));
	EXPECT_EQ(sizeof(set), len);
	EXPECT_EQ(0x7, got[0].can_id);
}

TEST_F(opt, filter_from_bad_address_fails_efault)
{
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_FILTER,
				 (void *)8, 2 * sizeof(struct can_filter)));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(opt, err_filter_defaults_to_zero)
{
	can_err_mask_t mask = 0xffffffff;
	socklen_t len = sizeof(mask);

	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_ERR_FILTER,
				&mask, &len));
	EXPECT_EQ(sizeof(mask), len);
	EXPECT_EQ(0, mask);
}

TEST_F(opt, err_filter_keeps_only_error_class_bits)
{
	can_err_mask_t mask = 0xffffffff;
	socklen_t len = sizeof(mask);

	ASSERT_EQ(0, ct_set_err_mask(self->fd, mask));
	ASSERT_EQ(0, getsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_ERR_FILTER,
				&mask, &len));
	EXPECT_EQ(CAN_ERR_MASK, mask);
}

TEST_F(opt, err_filter_with_wrong_length_fails_einval)
{
	unsigned long long mask = CAN_ERR_BUSOFF;

	EXPECT_EQ(-1, setsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_ERR_FILTER,
				 &mask, sizeof(mask)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_CAN_RAW, CAN_RAW_ERR_FILTER,
				 &mask, 2));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(opt, unknown_option_fails_enoprotoopt)
{
	int val = 0;
	socklen_t len = sizeof(val);

	EXPECT_EQ(-1, setsockopt(self->fd, SOL_CAN_RAW, 100, &val, sizeof(val)));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(-1, getsockopt(self->fd, SOL_CAN_RAW, 100, &val, &len));
	EXPECT_EQ(ENOPROTOOPT, errno);
}

TEST_F(opt, option_at_wrong_level_fails_einval)
{
	int val = 1;
	socklen_t len = sizeof(val);

	EXPECT_EQ(-1, setsockopt(self->fd, SOL_CAN_BASE + CAN_BCM,
				 CAN_RAW_LOOPBACK, &val, sizeof(val)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, getsockopt(self->fd, SOL_CAN_BASE + CAN_BCM,
				 CAN_RAW_LOOPBACK, &val, &len));
	EXPECT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
