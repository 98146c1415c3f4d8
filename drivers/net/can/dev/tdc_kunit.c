// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of transmitter delay compensation over netlink ("ip link
 * set DEV type can ... tdco N tdcv N tdcf N tdc-mode auto|manual|off"),
 * which none of our drivers offers: a stub CAN FD controller with TDC
 * limits takes the requests rtnetlink would hand to changelink, and a
 * link dump is read back.
 */

#include <kunit/test.h>
#include <linux/can/dev.h>
#include <net/netlink.h>

#include "stub_kunit.h"

static const struct can_bittiming_const stub_limits = {
	.name = "stub-tdc",
	.tseg1_min = 2, .tseg1_max = 64,
	.tseg2_min = 1, .tseg2_max = 32,
	.sjw_max = 16,
	.brp_min = 1, .brp_max = 256, .brp_inc = 1,
};

static const struct can_tdc_const stub_tdc = {
	.tdcv_min = 1, .tdcv_max = 127,
	.tdco_min = 2, .tdco_max = 127,
	.tdcf_min = 0, .tdcf_max = 127,
};

#define STUB_MEASURED_TDCV 33

static int stub_get_auto_tdcv(const struct net_device *dev, u32 *tdcv)
{
	*tdcv = STUB_MEASURED_TDCV;
	return 0;
}

/* An 80 MHz CAN FD controller with both TDC modes, or, without
 * @has_tdc, one with none.
 */
static struct net_device *tdc_stub_create(struct kunit *test, bool has_tdc)
{
	struct net_device *dev = alloc_candev(sizeof(struct can_priv), 0);
	struct can_priv *priv;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	priv = netdev_priv(dev);
	priv->clock.freq = 80000000;
	priv->ctrlmode_supported = CAN_CTRLMODE_FD;
	priv->bittiming_const = &stub_limits;
	priv->data_bittiming_const = &stub_limits;
	if (has_tdc) {
		priv->ctrlmode_supported |= CAN_CTRLMODE_TDC_MASK;
		priv->tdc_const = &stub_tdc;
		priv->do_get_auto_tdcv = stub_get_auto_tdcv;
	}
	dev->netdev_ops = &stub_netdev_ops;
	err = register_candev(dev);
	if (err)
		free_candev(dev);
	KUNIT_ASSERT_EQ(test, err, 0);
	return dev;
}

/* "fd on" with both bitrates, and the TDC modes @modes named in the
 * control mode's mask @mode_mask.
 */
static void put_fd_request(struct kunit *test, struct request *req,
			   u32 dbitrate, u32 mode_mask, u32 modes)
{
	struct can_ctrlmode cm = {
		.mask = CAN_CTRLMODE_FD | mode_mask,
		.flags = CAN_CTRLMODE_FD | modes,
	};

	put_attr(test, req, IFLA_CAN_CTRLMODE, &cm, sizeof(cm));
	put_bitrate(test, req, IFLA_CAN_BITTIMING, 500000);
	put_bitrate(test, req, IFLA_CAN_DATA_BITTIMING, dbitrate);
}

/* Values for the IFLA_CAN_TDC nest; a negative one is left out. */
struct tdc_values {
	s64 tdcv, tdco, tdcf;
};

static void put_tdc(struct kunit *test, struct request *req,
		    struct tdc_values v)
{
	const s64 vals[] = { v.tdcv, v.tdco, v.tdcf };
	const int types[] = { IFLA_CAN_TDC_TDCV, IFLA_CAN_TDC_TDCO,
			      IFLA_CAN_TDC_TDCF };
	int len = nla_total_size(0) + 3 * nla_total_size(sizeof(u32));
	struct nlattr *nest = kunit_kzalloc(test, len, GFP_KERNEL);
	struct nlattr *nla;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, nest);
	nest->nla_type = IFLA_CAN_TDC | NLA_F_NESTED;
	nest->nla_len = NLA_HDRLEN;
	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		if (vals[i] < 0)
			continue;
		nla = (void *)nest + nest->nla_len;
		nla->nla_type = types[i];
		nla->nla_len = nla_attr_size(sizeof(u32));
		*(u32 *)nla_data(nla) = vals[i];
		nest->nla_len += nla_total_size(sizeof(u32));
	}
	req->data[IFLA_CAN_TDC] = nest;
}

/* Without a word on TDC, a device that measures the delay gets the
 * secondary sample point at the data sample point.
 */
static void auto_tdco_follows_the_data_sample_point(struct kunit *test)
{
	struct net_device *dev = tdc_stub_create(test, true);
	struct can_priv *priv = netdev_priv(dev);
	const struct can_bittiming *dbt = &priv->data_bittiming;
	struct request req = { };

	put_fd_request(test, &req, 2000000, 0, 0);
	KUNIT_ASSERT_EQ(test, send_request(dev, &req), 0);
	KUNIT_ASSERT_LE(test, dbt->brp, 2);
	KUNIT_EXPECT_EQ(test, priv->ctrlmode & CAN_CTRLMODE_TDC_MASK,
			CAN_CTRLMODE_TDC_AUTO);
	KUNIT_EXPECT_EQ(test, priv->tdc.tdco,
			(1 + dbt->prop_seg + dbt->phase_seg1) * dbt->brp);
	KUNIT_EXPECT_EQ(test, can_get_relative_tdco(priv), 0);
	stub_destroy(dev);
}

/* ISO 11898-1 has no TDC with a data prescaler above two. */
static void slow_data_phase_gets_no_tdc(struct kunit *test)
{
	struct net_device *dev = tdc_stub_create(test, true);
	struct can_priv *priv = netdev_priv(dev);
	struct request req = { };

	put_fd_request(test, &req, 125000, 0, 0);
	KUNIT_ASSERT_EQ(test, send_request(dev, &req), 0);
	KUNIT_ASSERT_GT(test, priv->data_bittiming.brp, 2);
	KUNIT_EXPECT_FALSE(test, can_tdc_is_enabled(priv));
	KUNIT_EXPECT_EQ(test, priv->tdc.tdco, 0);
	stub_destroy(dev);
}

static void manual_values_are_taken_at_the_limits(struct kunit *test)
{
	struct net_device *dev = tdc_stub_create(test, true);
	struct can_priv *priv = netdev_priv(dev);
	struct request req = { };

	put_fd_request(test, &req, 2000000, CAN_CTRLMODE_TDC_MASK,
		       CAN_CTRLMODE_TDC_MANUAL);
	put_tdc(test, &req, (struct tdc_values){ 1, 127, 127 });
	KUNIT_ASSERT_EQ(test, send_request(dev, &req), 0);
	KUNIT_EXPECT_EQ(test, priv->ctrlmode & CAN_CTRLMODE_TDC_MASK,
			CAN_CTRLMODE_TDC_MANUAL);
	KUNIT_EXPECT_EQ(test, priv->tdc.tdcv, 1);
	KUNIT_EXPECT_EQ(test, priv->tdc.tdco, 127);
	KUNIT_EXPECT_EQ(test, priv->tdc.tdcf, 127);

	put_tdc(test, &req, (struct tdc_values){ 127, 2, 0 });
	KUNIT_ASSERT_EQ(test, send_request(dev, &req), 0);
	KUNIT_EXPECT_EQ(test, priv->tdc.tdcv, 127);
	KUNIT_EXPECT_EQ(test, priv->tdc.tdco, 2);
	stub_destroy(dev);
}

/* One past a limit at either end is refused and changes nothing. */
static void values_one_past_a_limit_are_refused(struct kunit *test)
{
	static const struct tdc_values bad[] = {
		{ 0, 10, -1 }, { 128, 10, -1 }, { 10, 1, -1 },
		{ 10, 128, -1 }, { 10, 10, 128 }, { 10, 0xffffffffLL, -1 },
	};
	struct net_device *dev = tdc_stub_create(test, true);
	struct can_priv *priv = netdev_priv(dev);
	struct request req = { };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&req, 0, sizeof(req));
		put_fd_request(test, &req, 2000000, CAN_CTRLMODE_TDC_MASK,
			       CAN_CTRLMODE_TDC_MANUAL);
		put_tdc(test, &req, bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, send_request(dev, &req), -EINVAL,
				    "case %u", i);
		KUNIT_EXPECT_EQ(test, dev->mtu, CAN_MTU);
		KUNIT_EXPECT_EQ(test, priv->ctrlmode, 0);
		KUNIT_EXPECT_EQ(test, priv->data_bittiming.bitrate, 0);
	}
	stub_destroy(dev);
}

/* Requests of the wrong shape, whatever their values. */
static void malformed_requests_are_refused(struct kunit *test)
{
	static const struct {
		u32 modes;
		bool has_values;
		struct tdc_values v;
	} bad[] = {
		{ CAN_CTRLMODE_TDC_MASK, true, { 10, 10, -1 } },	/* both modes */
		{ CAN_CTRLMODE_TDC_AUTO, false, { } },		/* mode, no values */
		{ 0, true, { -1, 10, -1 } },			/* values, no mode */
		{ CAN_CTRLMODE_TDC_AUTO, true, { 10, 10, -1 } },	/* tdcv in auto */
		{ CAN_CTRLMODE_TDC_MANUAL, true, { -1, 10, -1 } },	/* no tdcv */
		{ CAN_CTRLMODE_TDC_MANUAL, true, { 10, -1, -1 } },	/* no tdco */
	};
	struct net_device *dev = tdc_stub_create(test, true);
	struct can_priv *priv = netdev_priv(dev);
	struct request req;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&req, 0, sizeof(req));
		put_fd_request(test, &req, 2000000, CAN_CTRLMODE_TDC_MASK,
			       bad[i].modes);
		if (bad[i].has_values)
			put_tdc(test, &req, bad[i].v);
		KUNIT_EXPECT_EQ_MSG(test, send_request(dev, &req), -EOPNOTSUPP,
				    "case %u", i);
		KUNIT_EXPECT_EQ(test, priv->ctrlmode, 0);
	}
	stub_destroy(dev);
}

static void device_without_tdc_refuses_it(struct kunit *test)
{
	struct net_device *dev = tdc_stub_create(test, false);
	struct can_priv *priv = netdev_priv(dev);
	struct request req = { };

	put_fd_request(test, &req, 2000000, CAN_CTRLMODE_TDC_MASK,
		       CAN_CTRLMODE_TDC_AUTO);
	put_tdc(test, &req, (struct tdc_values){ -1, 10, -1 });
	KUNIT_EXPECT_EQ(test, send_request(dev, &req), -EOPNOTSUPP);

	/* Without a word on TDC it runs without. */
	memset(&req, 0, sizeof(req));
	put_fd_request(test, &req, 2000000, 0, 0);
	KUNIT_EXPECT_EQ(test, send_request(dev, &req), 0);
	KUNIT_EXPECT_FALSE(test, can_tdc_is_enabled(priv));
	stub_destroy(dev);
}

/* "tdc-mode off" keeps compensation off; "fd off" clears it. */
static void off_and_fd_off_leave_no_tdc(struct kunit *test)
{
	struct net_device *dev = tdc_stub_create(test, true);
	struct can_priv *priv = netdev_priv(dev);
	struct can_ctrlmode fd_off = { .mask = CAN_CTRLMODE_FD };
	struct request req = { };

	put_fd_request(test, &req, 2000000, CAN_CTRLMODE_TDC_MASK, 0);
	KUNIT_ASSERT_EQ(test, send_request(dev, &req), 0);
	KUNIT_EXPECT_FALSE(test, can_tdc_is_enabled(priv));
	KUNIT_EXPECT_EQ(test, priv->tdc.tdco, 0);

	memset(&req, 0, sizeof(req));
	put_fd_request(test, &req, 2000000, CAN_CTRLMODE_TDC_MASK,
		       CAN_CTRLMODE_TDC_MANUAL);
	put_tdc(test, &req, (struct tdc_values){ 20, 30, 5 });
	KUNIT_ASSERT_EQ(test, send_request(dev, &req), 0);
	KUNIT_ASSERT_TRUE(test, can_tdc_is_enabled(priv));

	memset(&req, 0, sizeof(req));
	put_attr(test, &req, IFLA_CAN_CTRLMODE, &fd_off, sizeof(fd_off));
	KUNIT_ASSERT_EQ(test, send_request(dev, &req), 0);
	KUNIT_EXPECT_FALSE(test, can_tdc_is_enabled(priv));
	KUNIT_EXPECT_EQ(test, priv->tdc.tdcv, 0);
	KUNIT_EXPECT_EQ(test, priv->tdc.tdco, 0);
	KUNIT_EXPECT_EQ(test, priv->tdc.tdcf, 0);
	stub_destroy(dev);
}

/* The link dump as "ip -d link show" reads it: limits, and the values
 * with the measured delay in auto mode; within what get_size promised.
 */
static void dump_shows_limits_and_values(struct kunit *test)
{
	struct net_device *dev = tdc_stub_create(test, true);
	struct can_priv *priv = netdev_priv(dev);
	struct nlattr *tb[IFLA_CAN_MAX + 1], *tdc[IFLA_CAN_TDC_MAX + 1];
	struct request req = { };
	struct sk_buff *skb;
	size_t size;
	int err;

	put_fd_request(test, &req, 2000000, 0, 0);
	KUNIT_ASSERT_EQ(test, send_request(dev, &req), 0);

	size = dev->rtnl_link_ops->get_size(dev);
	skb = alloc_skb(size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	rtnl_lock();
	err = dev->rtnl_link_ops->fill_info(skb, dev);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_LE(test, skb->len, size);

	KUNIT_ASSERT_EQ(test, nla_parse(tb, IFLA_CAN_MAX, (void *)skb->data,
					skb->len, NULL, NULL), 0);
	KUNIT_ASSERT_NOT_NULL(test, tb[IFLA_CAN_TDC]);
	KUNIT_ASSERT_EQ(test, nla_parse_nested(tdc, IFLA_CAN_TDC_MAX,
					       tb[IFLA_CAN_TDC], NULL, NULL), 0);
	KUNIT_ASSERT_NOT_NULL(test, tdc[IFLA_CAN_TDC_TDCV_MAX]);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tdc[IFLA_CAN_TDC_TDCV_MAX]), 127);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tdc[IFLA_CAN_TDC_TDCO_MIN]), 2);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tdc[IFLA_CAN_TDC_TDCF_MAX]), 127);
	KUNIT_ASSERT_NOT_NULL(test, tdc[IFLA_CAN_TDC_TDCO]);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tdc[IFLA_CAN_TDC_TDCO]),
			priv->tdc.tdco);
	KUNIT_ASSERT_NOT_NULL(test, tdc[IFLA_CAN_TDC_TDCV]);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tdc[IFLA_CAN_TDC_TDCV]),
			STUB_MEASURED_TDCV);
	kfree_skb(skb);
	stub_destroy(dev);
}

static struct kunit_case tdc_cases[] = {
	KUNIT_CASE(auto_tdco_follows_the_data_sample_point),
	KUNIT_CASE(slow_data_phase_gets_no_tdc),
	KUNIT_CASE(manual_values_are_taken_at_the_limits),
	KUNIT_CASE(values_one_past_a_limit_are_refused),
	KUNIT_CASE(malformed_requests_are_refused),
	KUNIT_CASE(device_without_tdc_refuses_it),
	KUNIT_CASE(off_and_fd_off_leave_no_tdc),
	KUNIT_CASE(dump_shows_limits_and_values),
	{ }
};

static struct kunit_suite tdc_suite = {
	.name = "can-dev-tdc",
	.test_cases = tdc_cases,
};

kunit_test_suites(&tdc_suite);

MODULE_DESCRIPTION("KUnit tests of CAN FD transmitter delay compensation over netlink");
MODULE_LICENSE("GPL");
