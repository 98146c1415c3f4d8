// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of the device layer's bookkeeping around a controller: the
 * restart after bus-off (manual and automatic, a bus-off during the
 * restart itself, a restart left scheduled at close and free) and the
 * counting of frames dropped from the echo slots. The controller is a
 * stub whose do_set_mode can go bus-off again at once, as a controller
 * on a shorted bus does.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/can/can-ml.h>
#include <linux/can/dev.h>

#include "stub_kunit.h"

/* Controller starts seen since the test began; global, as the last
 * test counts starts that would run after the device is freed.
 */
static atomic_t stub_starts;

struct stub_priv {
	struct can_priv can;		/* first, as can-dev requires */
	int bus_offs_on_start;		/* starts that go bus-off at once */
};

static void stub_enter_bus_off(struct net_device *dev)
{
	can_change_state(dev, NULL, CAN_STATE_BUS_OFF, CAN_STATE_BUS_OFF);
	can_bus_off(dev);
}

static int stub_set_mode(struct net_device *dev, enum can_mode mode)
{
	struct stub_priv *stub = netdev_priv(dev);

	atomic_inc(&stub_starts);
	can_change_state(dev, NULL, CAN_STATE_ERROR_ACTIVE,
			 CAN_STATE_ERROR_ACTIVE);
	if (stub->bus_offs_on_start > 0) {
		stub->bus_offs_on_start--;
		stub_enter_bus_off(dev);
	}
	return 0;
}

/* A registered stub device, up if @up, with automatic restart after
 * @restart_ms (0: manual restart only).
 */
static struct net_device *stub_create(struct kunit *test, bool up,
				      int restart_ms)
{
	struct net_device *dev = alloc_candev(sizeof(struct stub_priv), 1);
	struct stub_priv *stub;
	int err;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	stub = netdev_priv(dev);
	stub->can.do_set_mode = stub_set_mode;
	stub->can.restart_ms = restart_ms;
	dev->netdev_ops = &stub_netdev_ops;
	err = register_candev(dev);
	if (err)
		free_candev(dev);
	KUNIT_ASSERT_EQ(test, err, 0);
	if (up) {
		rtnl_lock();
		err = dev_open(dev, NULL);
		rtnl_unlock();
		KUNIT_EXPECT_EQ(test, err, 0);
	}
	atomic_set(&stub_starts, 0);
	return dev;
}

static int restart_now(struct net_device *dev)
{
	int err;

	rtnl_lock();
	err = can_restart_now(dev);
	rtnl_unlock();
	return err;
}

/* A bus-off during the restart leaves the carrier off, so the user can
 * restart again (the carrier left on made that EBUSY).
 */
static void bus_off_during_manual_restart_can_be_restarted(struct kunit *test)
{
	struct net_device *dev = stub_create(test, true, 0);
	struct stub_priv *stub = netdev_priv(dev);

	stub_enter_bus_off(dev);
	KUNIT_EXPECT_FALSE(test, netif_carrier_ok(dev));

	stub->bus_offs_on_start = 1;
	KUNIT_EXPECT_EQ(test, restart_now(dev), 0);
	KUNIT_EXPECT_EQ(test, stub->can.state, CAN_STATE_BUS_OFF);
	KUNIT_EXPECT_FALSE(test, netif_carrier_ok(dev));

	KUNIT_EXPECT_EQ(test, restart_now(dev), 0);
	KUNIT_EXPECT_EQ(test, stub->can.state, CAN_STATE_ERROR_ACTIVE);
	KUNIT_EXPECT_TRUE(test, netif_carrier_ok(dev));
	KUNIT_EXPECT_EQ(test, atomic_read(&stub_starts), 2);
	KUNIT_EXPECT_EQ(test, stub->can.can_stats.restarts, 2);
	stub_destroy(dev);
}

static bool wait_for_starts(int starts, int ms)
{
	while (atomic_read(&stub_starts) < starts && ms > 0) {
		msleep(20);
		ms -= 20;
	}
	return atomic_read(&stub_starts) >= starts;
}

/* restart-ms keeps trying while each restart meets a bus-off. */
static void bus_off_during_automatic_restart_is_retried(struct kunit *test)
{
	struct net_device *dev = stub_create(test, true, 10);
	struct stub_priv *stub = netdev_priv(dev);

	stub->bus_offs_on_start = 2;
	stub_enter_bus_off(dev);
	KUNIT_EXPECT_TRUE(test, wait_for_starts(3, 2000));
	/* The third start stays up; give a fourth a chance to show. */
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&stub_starts), 3);
	KUNIT_EXPECT_EQ(test, stub->can.state, CAN_STATE_ERROR_ACTIVE);
	KUNIT_EXPECT_TRUE(test, netif_carrier_ok(dev));
	stub_destroy(dev);
}

/* A restart scheduled when the interface goes down (a driver whose
 * bus-off interrupt came after its ndo_stop cancelled the work) must not
 * start the controller of a stopped interface.
 */
static void restart_scheduled_before_close_does_not_start(struct kunit *test)
{
	struct net_device *dev = stub_create(test, true, 50);

	stub_enter_bus_off(dev);
	rtnl_lock();
	dev_close(dev);		/* no ndo_stop: nothing cancels the work */
	rtnl_unlock();
	msleep(150);
	KUNIT_EXPECT_EQ(test, atomic_read(&stub_starts), 0);
	stub_destroy(dev);
}

/* A driver that programs its timing in ndo_open registers with limits
 * and no do_set_bittiming; a table without its length does not.
 */
static void register_checks_tables_not_timing_hook(struct kunit *test)
{
	static const struct can_bittiming_const limits = {
		.name = "stub", .tseg1_min = 1, .tseg1_max = 16,
		.tseg2_min = 1, .tseg2_max = 8, .sjw_max = 4,
		.brp_min = 1, .brp_max = 64, .brp_inc = 1,
	};
	static const u32 rates[] = { 125000, 500000 };
	struct net_device *dev = alloc_candev(sizeof(struct can_priv), 0);
	struct can_priv *priv;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	priv = netdev_priv(dev);
	dev->netdev_ops = &stub_netdev_ops;
	priv->bitrate_const = rates;
	KUNIT_EXPECT_EQ(test, register_candev(dev), -EINVAL);
	priv->bitrate_const = NULL;
	priv->termination_const_cnt = 1;
	KUNIT_EXPECT_EQ(test, register_candev(dev), -EINVAL);
	priv->termination_const_cnt = 0;
	priv->bittiming_const = &limits;
	KUNIT_EXPECT_EQ(test, register_candev(dev), 0);
	if (dev->reg_state == NETREG_REGISTERED)
		unregister_candev(dev);
	free_candev(dev);
}

/* close_candev() drops what waits for confirmation, counted as lost. */
static void close_drops_frames_in_flight(struct kunit *test)
{
	struct net_device *dev = stub_create(test, true, 0);
	struct stub_priv *stub = netdev_priv(dev);
	struct can_frame *cf;
	struct sk_buff *skb = alloc_can_skb(dev, &cf);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, can_put_echo_skb(skb, dev, 0, 0), 0);
	rtnl_lock();
	close_candev(dev);
	rtnl_unlock();
	KUNIT_EXPECT_NULL(test, stub->can.echo_skb[0]);
	KUNIT_EXPECT_EQ(test, dev->stats.tx_dropped, 1);
	KUNIT_EXPECT_EQ(test, dev->stats.tx_aborted_errors, 1);
	KUNIT_EXPECT_FALSE(test, netif_carrier_ok(dev));
	stub_destroy(dev);
}

/* Last: on the old code the restart ran on the freed device (KASAN). */
static void restart_scheduled_at_free_never_runs(struct kunit *test)
{
	struct net_device *dev = stub_create(test, true, 100);

	stub_enter_bus_off(dev);
	stub_destroy(dev);
	msleep(250);
	KUNIT_EXPECT_EQ(test, atomic_read(&stub_starts), 0);
}

static struct kunit_case restart_cases[] = {
	KUNIT_CASE(bus_off_during_manual_restart_can_be_restarted),
	KUNIT_CASE(bus_off_during_automatic_restart_is_retried),
	KUNIT_CASE(restart_scheduled_before_close_does_not_start),
	KUNIT_CASE(close_drops_frames_in_flight),
	KUNIT_CASE(register_checks_tables_not_timing_hook),
	KUNIT_CASE(restart_scheduled_at_free_never_runs),
	{ }
};

static struct kunit_suite restart_suite = {
	.name = "can-dev-restart",
	.test_cases = restart_cases,
};

/* Each echo case gets a device with three echo slots, never registered. */
static int echo_init(struct kunit *test)
{
	test->priv = alloc_candev(sizeof(struct can_priv), 3);
	return test->priv ? 0 : -ENOMEM;
}

static void echo_exit(struct kunit *test)
{
	free_candev(test->priv);
}

/* Fill echo slot @idx with a frame of @frame_len bytes on the wire, as
 * a driver's xmit would.
 */
static void put_frame_len(struct kunit *test, unsigned int idx,
			  unsigned int frame_len)
{
	struct net_device *dev = test->priv;
	struct can_frame *cf;
	struct sk_buff *skb = alloc_can_skb(dev, &cf);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, can_put_echo_skb(skb, dev, idx, frame_len), 0);
}

static void put_frame(struct kunit *test, unsigned int idx)
{
	put_frame_len(test, idx, 0);
}

static void expect_lost(struct kunit *test, unsigned long frames)
{
	struct net_device *dev = test->priv;

	KUNIT_EXPECT_EQ(test, dev->stats.tx_dropped, frames);
	KUNIT_EXPECT_EQ(test, dev->stats.tx_aborted_errors, frames);
	KUNIT_EXPECT_EQ(test, dev->stats.tx_errors, 0);
}

/* Mainline counts a frame lost at bus-off or stop once as dropped and
 * once as aborted; not twice in either.
 */
static void flushed_frames_count_dropped_and_aborted(struct kunit *test)
{
	put_frame(test, 0);
	put_frame(test, 2);
	can_flush_echo_skb(test->priv);
	expect_lost(test, 2);
	can_flush_echo_skb(test->priv);
	expect_lost(test, 2);
}

static void dropped_frame_is_counted_once(struct kunit *test)
{
	put_frame(test, 1);
	KUNIT_EXPECT_TRUE(test, can_drop_echo_skb(test->priv, 1));
	KUNIT_EXPECT_FALSE(test, can_drop_echo_skb(test->priv, 1));
	can_flush_echo_skb(test->priv);
	expect_lost(test, 1);
}

/* A frame the driver frees itself (one-shot failure) is its to count. */
static void freed_frame_is_not_counted(struct kunit *test)
{
	put_frame(test, 0);
	can_free_echo_skb(test->priv, 0, NULL);
	can_flush_echo_skb(test->priv);
	expect_lost(test, 0);
}

/* The wire length given at xmit comes back at completion, for BQL. */
static void frame_len_comes_back_on_completion(struct kunit *test)
{
	unsigned int frame_len = 1;

	put_frame_len(test, 0, 17);
	put_frame_len(test, 1, 9);
	can_free_echo_skb(test->priv, 0, &frame_len);
	KUNIT_EXPECT_EQ(test, frame_len, 17);
	KUNIT_EXPECT_EQ(test, can_get_echo_skb(test->priv, 1, &frame_len), 0);
	KUNIT_EXPECT_EQ(test, frame_len, 9);
	KUNIT_EXPECT_EQ(test, can_get_echo_skb(test->priv, 1, &frame_len), 0);
	KUNIT_EXPECT_EQ(test, frame_len, 9);
	can_free_echo_skb(test->priv, 2, &frame_len);
	KUNIT_EXPECT_EQ(test, frame_len, 0);
}

/* A received CAN FD frame is one on every count the stack checks. */
static void canfd_skb_is_an_fd_frame(struct kunit *test)
{
	struct canfd_frame *cfd;
	struct sk_buff *skb = alloc_canfd_skb(test->priv, &cfd);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, ntohs(skb->protocol), ETH_P_CANFD);
	KUNIT_EXPECT_EQ(test, skb->len, CANFD_MTU);
	KUNIT_EXPECT_TRUE(test, can_is_canfd_skb(skb));
	KUNIT_EXPECT_EQ(test, cfd->flags, CANFD_FDF);
	KUNIT_EXPECT_EQ(test, cfd->len, 0);
	kfree_skb(skb);
}

/* A CAN XL frame is as long as its header and payload, and a payload
 * length outside 1..2048 gets no skb at all.
 */
static void canxl_skb_fits_its_payload(struct kunit *test)
{
	struct canxl_frame *cxl;
	struct sk_buff *skb = alloc_canxl_skb(test->priv, &cxl, 100);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, ntohs(skb->protocol), ETH_P_CANXL);
	KUNIT_EXPECT_EQ(test, skb->len, CANXL_HDR_SIZE + 100);
	KUNIT_EXPECT_TRUE(test, can_is_canxl_skb(skb));
	KUNIT_EXPECT_EQ(test, cxl->flags, CANXL_XLF);
	KUNIT_EXPECT_EQ(test, cxl->len, 100);
	kfree_skb(skb);

	KUNIT_EXPECT_NULL(test, alloc_canxl_skb(test->priv, &cxl, 0));
	KUNIT_EXPECT_NULL(test, cxl);
	KUNIT_EXPECT_NULL(test, alloc_canxl_skb(test->priv, &cxl,
						CANXL_MAX_DLEN + 1));
	skb = alloc_canxl_skb(test->priv, &cxl, CANXL_MAX_DLEN);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_TRUE(test, can_is_canxl_skb(skb));
	kfree_skb(skb);
}

/* The CAN protocols' room sits after the echo slots, zeroed. */
static void protocols_room_follows_the_echo_slots(struct kunit *test)
{
	struct net_device *dev = test->priv;
	struct can_priv *priv = netdev_priv(dev);
	struct can_ml_priv *ml = can_get_ml_priv(dev);

	KUNIT_ASSERT_NOT_NULL(test, ml);
	KUNIT_EXPECT_PTR_EQ(test, (void *)ml, (void *)(priv->echo_skb + 3));
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(ml->rx_table));
	KUNIT_EXPECT_NULL(test, ml->j1939_priv);
}

/* Sizes that would give a short private area are refused. */
static void impossible_private_sizes_are_refused(struct kunit *test)
{
	struct net_device *dev;

	KUNIT_EXPECT_NULL(test, alloc_candev(-1, 0));
	KUNIT_EXPECT_NULL(test, alloc_candev(INT_MIN, 0));
	KUNIT_EXPECT_NULL(test, alloc_candev(sizeof(struct can_priv) - 1, 0));
	KUNIT_EXPECT_NULL(test, alloc_candev(INT_MAX - 8, 1));
	KUNIT_EXPECT_NULL(test, alloc_candev(sizeof(struct can_priv), UINT_MAX));
	dev = alloc_candev(sizeof(struct can_priv), 0);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_NOT_NULL(test, can_get_ml_priv(dev));
	free_candev(dev);
}

static struct kunit_case echo_cases[] = {
	KUNIT_CASE(flushed_frames_count_dropped_and_aborted),
	KUNIT_CASE(dropped_frame_is_counted_once),
	KUNIT_CASE(freed_frame_is_not_counted),
	KUNIT_CASE(frame_len_comes_back_on_completion),
	KUNIT_CASE(canfd_skb_is_an_fd_frame),
	KUNIT_CASE(canxl_skb_fits_its_payload),
	KUNIT_CASE(protocols_room_follows_the_echo_slots),
	KUNIT_CASE(impossible_private_sizes_are_refused),
	{ }
};

static struct kunit_suite echo_suite = {
	.name = "can-dev-echo",
	.init = echo_init,
	.exit = echo_exit,
	.test_cases = echo_cases,
};

/* The echo suite first: the restart suite ends with the case that
 * crashed the old code.
 */
kunit_test_suites(&echo_suite, &restart_suite);

MODULE_DESCRIPTION("KUnit tests of the CAN device layer's restart and echo counting");
MODULE_LICENSE("GPL");
