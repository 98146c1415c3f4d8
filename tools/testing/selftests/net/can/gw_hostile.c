// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile requests to the CAN gateway: every attribute with every length
 * around its size, checksum indices at and past their bounds, hop limits
 * out of range, broken message heads and missing interfaces. Each gets
 * mainline's errno, and whatever is accepted must still route frames.
 */

#include "kselftest_harness.h"
#include "lib/can_test_gw.h"

FIXTURE(hostile)
{
	char a[IFNAMSIZ], b[IFNAMSIZ];
	int ia, ib;
};

FIXTURE_SETUP(hostile)
{
	ASSERT_EQ(0, gw_setup_pair(self->a, self->b, &self->ia, &self->ib));
}

FIXTURE_TEARDOWN(hostile)
{
	gw_flush();
	ct_link_del(self->a);
	ct_link_del(self->b);
}

/* The size below which mainline's policy refuses an attribute (-ERANGE). */
static int attr_min_len(int type)
{
	switch (type) {
	case CGW_MOD_AND ... CGW_MOD_SET:
		return sizeof(struct cgw_frame_mod);
	case CGW_FDMOD_AND ... CGW_FDMOD_SET:
		return sizeof(struct cgw_fdframe_mod);
	case CGW_CS_XOR:
		return sizeof(struct cgw_csum_xor);
	case CGW_CS_CRC8:
		return sizeof(struct cgw_csum_crc8);
	case CGW_SRC_IF:
	case CGW_DST_IF:
	case CGW_MOD_UID:
		return 4;
	case CGW_FILTER:
		return sizeof(struct can_filter);
	case CGW_LIM_HOPS:
		return 1;
	default:
		return 0;	/* counters and unknown types: ignored */
	}
}

/* What a request with the attribute, filled with 0x01 bytes, yields. */
static int attr_expect(int type, int len)
{
	if (len < attr_min_len(type))
		return -ERANGE;
	if (type == CGW_SRC_IF || type == CGW_DST_IF)
		return -ENODEV;		/* ifindex 0x01010101 */
	return 0;
}

TEST_F(hostile, every_attribute_with_every_length_gets_mainlines_answer)
{
	static const __u16 kinds[] = { 0, CGW_FLAGS_CAN_FD };
	static __u8 junk[400];
	unsigned int k;
	int type, len;

	memset(junk, 1, sizeof(junk));
	for (k = 0; k < 2; k++) {
		for (type = 1; type <= CGW_MAX + 1; type++) {
			int min = attr_min_len(type);

			for (len = 0; len <= min + 2; len++) {
				struct gw_nlreq req;
				int err;

				if (len > 2 && len < min - 2)
					continue;
				gw_req_init(&req, RTM_NEWROUTE, kinds[k]);
				gw_put_route(&req, self->ia, self->ib);
				gw_put(&req, type, junk, len);
				err = gw_talk(&req);
				EXPECT_EQ(attr_expect(type, len), err)
					TH_LOG("flags %u attribute %d length %d",
					       kinds[k], type, len);
				ASSERT_EQ(0, gw_flush());
			}
		}
	}
}

static int add_csum(int a, int b, __u16 flags, int csum, int from, int to,
		    int res)
{
	struct cgw_fdframe_mod fdm = { .modtype = CGW_MOD_ID };
	struct cgw_frame_mod m = { .modtype = CGW_MOD_ID };
	struct cgw_csum_crc8 crc = { .from_idx = from, .to_idx = to,
				     .result_idx = res };
	struct cgw_csum_xor xor = { .from_idx = from, .to_idx = to,
				    .result_idx = res };
	struct gw_nlreq req;

	gw_req_init(&req, RTM_NEWROUTE, flags);
	gw_put_route(&req, a, b);
	if (flags & CGW_FLAGS_CAN_FD)
		gw_put(&req, CGW_FDMOD_AND, &fdm, sizeof(fdm));
	else
		gw_put(&req, CGW_MOD_AND, &m, sizeof(m));
	if (csum == CGW_CS_XOR)
		gw_put(&req, CGW_CS_XOR, &xor, sizeof(xor));
	else
		gw_put(&req, CGW_CS_CRC8, &crc, sizeof(crc));
	return gw_talk(&req);
}

TEST_F(hostile, checksum_indices_outside_the_frame_are_refused)
{
	static const int csums[] = { CGW_CS_XOR, CGW_CS_CRC8 };
	unsigned int k, c;
	int pos;

	for (k = 0; k < 2; k++) {
		__u16 flags = k ? CGW_FLAGS_CAN_FD : 0;
		int n = k ? CANFD_MAX_DLEN : CAN_MAX_DLEN;
		int vals[] = { -128, -n - 1, -n, -1, 0, n - 1, n, 127 };

		for (c = 0; c < 2; c++) {
			for (pos = 0; pos < 3; pos++) {
				unsigned int v;

				for (v = 0; v < ARRAY_SIZE(vals); v++) {
					int idx[3] = { 0, 0, 0 }, want;

					idx[pos] = vals[v];
					want = vals[v] < -n || vals[v] >= n ? -EINVAL : 0;
					EXPECT_EQ(want, add_csum(self->ia, self->ib, flags,
								 csums[c], idx[0], idx[1],
								 idx[2]))
						TH_LOG("fd %u csum %d index %d = %d", k,
						       csums[c], pos, vals[v]);
					ASSERT_EQ(0, gw_flush());
				}
			}
		}
	}
}

TEST_F(hostile, hop_limit_outside_1_to_max_hops_is_refused)
{
	static const __u8 bad[] = { 0, 2, 7, 255 };
	struct gw_nlreq req;
	unsigned int i;
	__u8 one = 1;

	for (i = 0; i < sizeof(bad); i++) {
		gw_req_init(&req, RTM_NEWROUTE, 0);
		gw_put_route(&req, self->ia, self->ib);
		gw_put(&req, CGW_LIM_HOPS, &bad[i], 1);
		EXPECT_EQ(-EINVAL, gw_talk(&req)) TH_LOG("hops %u", bad[i]);
	}
	gw_req_init(&req, RTM_NEWROUTE, 0);
	gw_put_route(&req, self->ia, self->ib);
	gw_put(&req, CGW_LIM_HOPS, &one, 1);
	EXPECT_EQ(0, gw_talk(&req));
}

TEST_F(hostile, broken_message_heads_are_refused)
{
	static const int types[] = { RTM_NEWROUTE, RTM_DELROUTE };
	struct gw_nlreq req;
	unsigned int t;

	for (t = 0; t < 2; t++) {
		gw_req_init(&req, types[t], 0);
		req.nh.nlmsg_len = NLMSG_LENGTH(2);
		EXPECT_EQ(-EINVAL, gw_talk(&req));

		gw_req_init(&req, types[t], 0);
		gw_put_route(&req, self->ia, self->ib);
		req.r.gwtype = CGW_TYPE_UNSPEC;
		EXPECT_EQ(-EINVAL, gw_talk(&req));
		req.r.gwtype = CGW_TYPE_MAX + 1;
		EXPECT_EQ(-EINVAL, gw_talk(&req));
		req.r.gwtype = 0xff;
		EXPECT_EQ(-EINVAL, gw_talk(&req));
	}
}

TEST_F(hostile, missing_or_unusable_interfaces_are_refused)
{
	struct gw_nlreq req;

	gw_req_init(&req, RTM_NEWROUTE, 0);
	EXPECT_EQ(-ENODEV, gw_talk(&req));
	gw_put_u32(&req, CGW_SRC_IF, self->ia);
	EXPECT_EQ(-ENODEV, gw_talk(&req));

	EXPECT_EQ(-ENODEV, gw_add(0, self->ib, 0));
	EXPECT_EQ(-ENODEV, gw_add(self->ia, 0, 0));
	EXPECT_EQ(-ENODEV, gw_add(0, 0, 0));
	EXPECT_EQ(-ENODEV, gw_add(self->ia, 0x7fffffff, 0));
	EXPECT_EQ(-ENODEV, gw_add(0xffffffff, self->ib, 0));
	EXPECT_EQ(-ENODEV, gw_add(self->ia, if_nametoindex("lo"), 0));
	EXPECT_EQ(0, gw_list(NULL, 0));

	gw_req_init(&req, RTM_DELROUTE, 0);
	gw_put_route(&req, self->ia, self->ib);
	EXPECT_EQ(-EINVAL, gw_talk(&req));
}

TEST_HARNESS_MAIN
