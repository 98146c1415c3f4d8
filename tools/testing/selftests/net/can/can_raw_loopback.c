// SPDX-License-Identifier: GPL-2.0
/*
 * Local loopback of sent frames: CAN_RAW_LOOPBACK, CAN_RAW_RECV_OWN_MSGS
 * and the MSG_DONTROUTE / MSG_CONFIRM flags that tell a receiver where a
 * frame came from. The same program runs again under vcan echo=1 (see
 * can_vcan_echo.sh), where the driver, not the core, loops frames back.
 */

#include "kselftest_harness.h"
#include "lib/can_test.h"

FIXTURE(loop)
{
	char ifname[IFNAMSIZ];
	int ifindex;
	int a;		/* the sender */
	int b;		/* another local socket */
};

FIXTURE_SETUP(loop)
{
	self->a = -1;
	self->b = -1;
	ct_ifname(self->ifname, 'l');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	self->ifindex = if_nametoindex(self->ifname);
	self->a = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->a);
	self->b = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->b);
}

FIXTURE_TEARDOWN(loop)
{
	if (self->a >= 0)
		close(self->a);
	if (self->b >= 0)
		close(self->b);
	ct_link_del(self->ifname);
}

TEST_F(loop, other_local_socket_receives_by_default)
{
	ASSERT_EQ(0, ct_send(self->a, 0x100, 1));
	EXPECT_EQ(0x100, ct_recv_id(self->b, CT_RX_TIMEOUT_MS));
}

TEST_F(loop, sender_does_not_receive_own_frame_by_default)
{
	ASSERT_EQ(0, ct_send(self->a, 0x100, 1));
	ASSERT_EQ(0x100, ct_recv_id(self->b, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(ct_is_quiet(self->a));
}

TEST_F(loop, loopback_off_hides_frame_from_local_sockets)
{
	int c = ct_raw_open(self->ifindex);

	ASSERT_LE(0, c);
	ASSERT_EQ(0, ct_setopt_int(self->a, CAN_RAW_LOOPBACK, 0));
	ASSERT_EQ(0, ct_send(self->a, 0x100, 1));
	/* a marker from c follows on the same device, in order */
	ASSERT_EQ(0, ct_send(c, 0x200, 1));
	EXPECT_EQ(0x200, ct_recv_id(self->b, CT_RX_TIMEOUT_MS));
	close(c);
}

TEST_F(loop, loopback_off_still_sends_the_frame)
{
	long long before = ct_link_stat(self->ifname, "tx_packets");

	ASSERT_LE(0, before);
	ASSERT_EQ(0, ct_setopt_int(self->a, CAN_RAW_LOOPBACK, 0));
	ASSERT_EQ(0, ct_send(self->a, 0x100, 1));
	EXPECT_EQ(before + 1, ct_link_stat(self->ifname, "tx_packets"));
}

TEST_F(loop, recv_own_msgs_delivers_own_frame_with_confirm_flag)
{
	struct can_frame cf;
	int flags = 0;

	ASSERT_EQ(0, ct_setopt_int(self->a, CAN_RAW_RECV_OWN_MSGS, 1));
	ASSERT_EQ(0, ct_send(self->a, 0x100, 3));
	ASSERT_EQ(CAN_MTU, ct_recv(self->a, &cf, sizeof(cf), CT_RX_TIMEOUT_MS,
				   &flags, NULL));
	EXPECT_EQ(0x100, cf.can_id);
	EXPECT_TRUE(flags & MSG_CONFIRM);
	EXPECT_TRUE(flags & MSG_DONTROUTE);
}

TEST_F(loop, other_socket_sees_dontroute_without_confirm)
{
	struct can_frame cf;
	int flags = 0;

	ASSERT_EQ(0, ct_setopt_int(self->a, CAN_RAW_RECV_OWN_MSGS, 1));
	ASSERT_EQ(0, ct_send(self->a, 0x100, 3));
	ASSERT_EQ(CAN_MTU, ct_recv(self->b, &cf, sizeof(cf), CT_RX_TIMEOUT_MS,
				   &flags, NULL));
	EXPECT_TRUE(flags & MSG_DONTROUTE);
	EXPECT_FALSE(flags & MSG_CONFIRM);
}

TEST_F(loop, recv_own_msgs_without_loopback_receives_nothing)
{
	ASSERT_EQ(0, ct_setopt_int(self->a, CAN_RAW_RECV_OWN_MSGS, 1));
	ASSERT_EQ(0, ct_setopt_int(self->a, CAN_RAW_LOOPBACK, 0));
	ASSERT_EQ(0, ct_send(self->a, 0x100, 1));
	ASSERT_EQ(0, ct_send(self->b, 0x200, 1));
	/* b's frame reaches a; a's own frame, if looped, would be first */
	EXPECT_EQ(0x200, ct_recv_id(self->a, CT_RX_TIMEOUT_MS));
}

TEST_F(loop, own_frame_is_filtered_like_any_other)
{
	struct can_filter f = { 0x300, CAN_SFF_MASK };

	ASSERT_EQ(0, ct_setopt_int(self->a, CAN_RAW_RECV_OWN_MSGS, 1));
	ASSERT_EQ(0, ct_set_filters(self->a, &f, 1));
	ASSERT_EQ(0, ct_send(self->a, 0x100, 1));
	ASSERT_EQ(0, ct_send(self->a, 0x300, 1));
	EXPECT_EQ(0x300, ct_recv_id(self->a, CT_RX_TIMEOUT_MS));
}

TEST_F(loop, frames_arrive_in_send_order)
{
	int i;

	for (i = 0; i < 50; i++)
		ASSERT_EQ(0, ct_send(self->a, i, 1));
	for (i = 0; i < 50; i++)
		ASSERT_EQ(i, ct_recv_id(self->b, CT_RX_TIMEOUT_MS));
}

TEST_HARNESS_MAIN
