// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of "ip link set DEV type can ..." for the settings none of
 * our drivers offers, so that no selftest reaches them: CAN FD data bit
 * timing and the MTU switch, bitrate lists and bus termination. Each test
 * registers a stub device with those features and calls its changelink
 * as rtnetlink would.
 */

#include <kunit/test.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/rtnetlink.h>
#include <linux/can/dev.h>

#include "stub_kunit.h"

static const struct can_bittiming_const stub_limits = {
	.name = "stub",
	.tseg1_min = 2, .tseg1_max = 64,
	.tseg2_min = 1, .tseg2_max = 32,
	.sjw_max = 16,
	.brp_min = 1, .brp_max = 256, .brp_inc = 1,
};

static const u32 stub_bitrates[] = { 125000, 500000 };
static const u16 stub_ohms[] = { CAN_TERMINATION_DISABLED, 120 };

static int stub_set_termination(struct net_device *dev, u16 ohms)
{
	return 0;
}

/* A CAN FD controller with switchable termination, or, with
 * @has_bitrate_list, a device that only takes the bitrates it lists.
 */
static struct net_device *stub_create(struct kunit *test,
				      bool has_bitrate_list)
{
	struct net_device *dev = alloc_candev(sizeof(struct can_priv), 0);
	struct can_priv *priv;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	priv = netdev_priv(dev);
	priv->clock.freq = 80000000;
	priv->ctrlmode_supported = CAN_CTRLMODE_FD;
	if (has_bitrate_list) {
		priv->bitrate_const = stub_bitrates;
		priv->bitrate_const_cnt = ARRAY_SIZE(stub_bitrates);
	} else {
		priv->bittiming_const = &stub_limits;
		priv->data_bittiming_const = &stub_limits;
	}
	priv->termination_const = stub_ohms;
	priv->termination_const_cnt = ARRAY_SIZE(stub_ohms);
	priv->do_set_termination = stub_set_termination;
	dev->netdev_ops = &stub_netdev_ops;
	err = register_candev(dev);
	if (err)
		free_candev(dev);
	KUNIT_ASSERT_EQ(test, err, 0);
	return dev;
}

static void put_fd(struct kunit *test, struct request *req, bool on)
{
	struct can_ctrlmode cm = {
		.mask = CAN_CTRLMODE_FD,
		.flags = on ? CAN_CTRLMODE_FD : 0,
	};

	put_attr(test, req, IFLA_CAN_CTRLMODE, &cm, sizeof(cm));
}

static void fd_on_needs_both_bitrates(struct kunit *test)
{
	struct net_device *dev = stub_create(test, false);
	struct request req = { };

	put_fd(test, &req, true);
	put_bitrate(test, &req, IFLA_CAN_BITTIMING, 500000);
	KUNIT_EXPECT_EQ(test, send_request(dev, &req), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, dev->mtu, CAN_MTU);

	memset(&req, 0, sizeof(req));
	put_bitrate(test, &req, IFLA_CAN_DATA_BITTIMING, 2000000);
	KUNIT_EXPECT_EQ(test, send_request(dev, &req), -EOPNOTSUPP);
	stub_destroy(dev);
}

static void fd_on_and_off_switch_the_mtu(struct kunit *test)
{
	struct net_device *dev = stub_create(test, false);
	struct can_priv *priv = netdev_priv(dev);
	struct request req = { };

	put_fd(test, &req, true);
	put_bitrate(test, &req, IFLA_CAN_BITTIMING, 500000);
	put_bitrate(test, &req, IFLA_CAN_DATA_BITTIMING, 2000000);
	KUNIT_ASSERT_EQ(test, send_request(dev, &req), 0);
	KUNIT_EXPECT_EQ(test, dev->mtu, CANFD_MTU);
	KUNIT_EXPECT_TRUE(test, priv->ctrlmode & CAN_CTRLMODE_FD);
	KUNIT_EXPECT_EQ(test, priv->bittiming.bitrate, 500000);
	KUNIT_EXPECT_EQ(test, priv->data_bittiming.bitrate, 2000000);

	memset(&req, 0, sizeof(req));
	put_fd(test, &req, false);
	KUNIT_ASSERT_EQ(test, send_request(dev, &req), 0);
	KUNIT_EXPECT_EQ(test, dev->mtu, CAN_MTU);
	KUNIT_EXPECT_EQ(test, priv->data_bittiming.bitrate, 0);
	stub_destroy(dev);
}

/* A data bitrate below the nominal one passes netlink, not open. */
static void open_refuses_slow_data_phase(struct kunit *test)
{
	struct net_device *dev = stub_create(test, false);
	struct request req = { };
	int err;

	put_fd(test, &req, true);
	put_bitrate(test, &req, IFLA_CAN_BITTIMING, 1000000);
	put_bitrate(test, &req, IFLA_CAN_DATA_BITTIMING, 500000);
	KUNIT_ASSERT_EQ(test, send_request(dev, &req), 0);
	rtnl_lock();
	err = open_candev(dev);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	stub_destroy(dev);
}

static void only_listed_bitrates_are_taken(struct kunit *test)
{
	struct net_device *dev = stub_create(test, true);
	struct can_priv *priv = netdev_priv(dev);
	struct request req = { };

	put_bitrate(test, &req, IFLA_CAN_BITTIMING, 250000);
	KUNIT_EXPECT_EQ(test, send_request(dev, &req), -EINVAL);
	KUNIT_EXPECT_EQ(test, priv->bittiming.bitrate, CAN_BITRATE_UNSET);

	put_bitrate(test, &req, IFLA_CAN_BITTIMING, 500000);
	KUNIT_EXPECT_EQ(test, send_request(dev, &req), 0);
	KUNIT_EXPECT_EQ(test, priv->bittiming.bitrate, 500000);
	stub_destroy(dev);
}

static void only_listed_termination_is_taken(struct kunit *test)
{
	struct net_device *dev = stub_create(test, false);
	struct can_priv *priv = netdev_priv(dev);
	struct request req = { };
	u16 ohms = 60;

	put_attr(test, &req, IFLA_CAN_TERMINATION, &ohms, sizeof(ohms));
	KUNIT_EXPECT_EQ(test, send_request(dev, &req), -EINVAL);
	KUNIT_EXPECT_EQ(test, priv->termination, CAN_TERMINATION_DISABLED);

	ohms = 120;
	put_attr(test, &req, IFLA_CAN_TERMINATION, &ohms, sizeof(ohms));
	KUNIT_EXPECT_EQ(test, send_request(dev, &req), 0);
	KUNIT_EXPECT_EQ(test, priv->termination, 120);
	stub_destroy(dev);
}

static struct kunit_case netlink_cases[] = {
	KUNIT_CASE(fd_on_needs_both_bitrates),
	KUNIT_CASE(fd_on_and_off_switch_the_mtu),
	KUNIT_CASE(open_refuses_slow_data_phase),
	KUNIT_CASE(only_listed_bitrates_are_taken),
	KUNIT_CASE(only_listed_termination_is_taken),
	{ }
};

static struct kunit_suite netlink_suite = {
	.name = "can-dev-netlink",
	.test_cases = netlink_cases,
};

kunit_test_suites(&netlink_suite);

MODULE_DESCRIPTION("KUnit tests of the CAN device layer's FD, bitrate list and termination settings");
MODULE_LICENSE("GPL");
