// SPDX-License-Identifier: GPL-2.0
/*
 * The broadcast manager refuses bad requests with the errno mainline Linux
 * gives for the same mistake, and the socket calls it does not support
 * fail the standard way.
 */

#include "lib/can_test_bcm.h"
#include "kselftest_harness.h"
#include "lib/can_test_bcm_fixtures.h"

/* A one-frame TX_SETUP request with a valid classic frame. */
static void tx_request(struct bcm_msg *m, __u32 flags)
{
	bcm_head(m, TX_SETUP, flags, 0x123, 1);
	memset(&m->fd[0], 0, sizeof(m->fd[0]));
	m->cc[0].can_id = 0x123;
	m->cc[0].len = 2;
}

TEST(sendmsg_on_unconnected_socket_fails_enotconn)
{
	struct bcm_msg m;
	int s = socket(PF_CAN, SOCK_DGRAM, CAN_BCM);

	ASSERT_LE(0, s);
	tx_request(&m, 0);
	EXPECT_EQ(-ENOTCONN, bcm_write(s, &m));
	close(s);
}

TEST(connect_with_short_address_fails_einval)
{
	struct sockaddr_can addr = { .can_family = AF_CAN };
	int s = socket(PF_CAN, SOCK_DGRAM, CAN_BCM);

	ASSERT_LE(0, s);
	EXPECT_EQ(-1, connect(s, (struct sockaddr *)&addr, 4));
	EXPECT_EQ(EINVAL, errno);
	close(s);
}

TEST(connect_to_unknown_ifindex_fails_enodev)
{
	EXPECT_EQ(-ENODEV, bcm_socket(0x7fffff));
}

TEST(connect_to_non_can_device_fails_enodev)
{
	EXPECT_EQ(-ENODEV, bcm_socket(if_nametoindex("lo")));
}

TEST(bind_is_not_supported)
{
	struct sockaddr_can addr = { .can_family = AF_CAN };
	int s = socket(PF_CAN, SOCK_DGRAM, CAN_BCM);

	ASSERT_LE(0, s);
	EXPECT_EQ(-1, bind(s, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EOPNOTSUPP, errno);
	close(s);
}

TEST_F(bcm, connect_twice_fails_eisconn)
{
	struct sockaddr_can addr = { .can_family = AF_CAN,
				     .can_ifindex = self->ifindex };

	EXPECT_EQ(-1, connect(self->s, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EISCONN, errno);
}

TEST_F(bcm, message_shorter_than_head_fails_einval)
{
	tx_request(&self->m, 0);
	EXPECT_EQ(-1, write(self->s, &self->m, sizeof(self->m.head) - 1));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(bcm, partial_frame_after_head_fails_einval)
{
	tx_request(&self->m, 0);
	EXPECT_EQ(-1, write(self->s, &self->m,
			    sizeof(self->m.head) + CAN_MTU - 1));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(bcm, classic_frame_size_with_fd_flag_fails_einval)
{
	tx_request(&self->m, CAN_FD_FRAME);
	EXPECT_EQ(-1, write(self->s, &self->m, sizeof(self->m.head) + CAN_MTU));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(bcm, unknown_opcode_fails_einval)
{
	EXPECT_EQ(-EINVAL, bcm_request(self->s, 0, 0, 0x123));
	EXPECT_EQ(-EINVAL, bcm_request(self->s, RX_CHANGED, 0, 0x123));
	EXPECT_EQ(-EINVAL, bcm_request(self->s, 99, 0, 0x123));
}

TEST_F(bcm, tx_setup_without_frames_fails_einval)
{
	bcm_head(&self->m, TX_SETUP, 0, 0x123, 0);
	EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m));
}

TEST_F(bcm, tx_setup_with_257_frames_fails_einval)
{
	int i;

	bcm_head(&self->m, TX_SETUP, 0, 0x123, 257);
	for (i = 0; i < 257; i++) {
		memset(&self->m.cc[i], 0, sizeof(self->m.cc[i]));
		self->m.cc[i].can_id = 0x123;
	}
	EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m));
	self->m.head.nframes = 256;
	EXPECT_EQ((int)(sizeof(self->m.head) + 256 * CAN_MTU),
		  bcm_write(self->s, &self->m));
}

TEST_F(bcm, tx_setup_with_nframes_beyond_message_fails_efault)
{
	tx_request(&self->m, 0);
	self->m.head.nframes = 3;
	/* The message carries one frame only. */
	EXPECT_EQ(-1, write(self->s, &self->m, sizeof(self->m.head) + CAN_MTU));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(bcm, tx_setup_with_classic_len_9_fails_einval)
{
	tx_request(&self->m, 0);
	self->m.cc[0].len = 9;
	EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m));
}

TEST_F(bcm, tx_setup_with_fd_len_65_fails_einval)
{
	tx_request(&self->m, CAN_FD_FRAME);
	self->m.fd[0].len = 65;
	EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m));
	self->m.fd[0].len = 64;
	EXPECT_EQ((int)(sizeof(self->m.head) + CANFD_MTU),
		  bcm_write(self->s, &self->m));
}

struct bad_timer {
	long sec1, usec1, sec2, usec2;
};

static const struct bad_timer bad_timers[] = {
	{ -1, 0, 0, 0 },
	{ 0, -1, 0, 0 },
	{ 0, 1000000, 0, 0 },
	{ 400L * 24 * 3600 + 1, 0, 0, 0 },
	{ 0, 0, -1, 0 },
	{ 0, 0, 0, -1 },
	{ 0, 0, 0, 1000000 },
	{ 0, 0, 400L * 24 * 3600 + 1, 0 },
};

TEST_F(bcm, tx_setup_with_bad_timer_fails_einval)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_timers); i++) {
		tx_request(&self->m, SETTIMER);
		self->m.head.ival1.tv_sec = bad_timers[i].sec1;
		self->m.head.ival1.tv_usec = bad_timers[i].usec1;
		self->m.head.ival2.tv_sec = bad_timers[i].sec2;
		self->m.head.ival2.tv_usec = bad_timers[i].usec2;
		EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m))
			TH_LOG("timer case %u", i);
	}
}

TEST_F(bcm, bad_timer_is_ignored_without_settimer)
{
	tx_request(&self->m, 0);
	self->m.head.ival1.tv_sec = -1;
	EXPECT_EQ((int)(sizeof(self->m.head) + CAN_MTU),
		  bcm_write(self->s, &self->m));
}

TEST_F(bcm, tx_setup_longest_timer_is_accepted)
{
	tx_request(&self->m, SETTIMER);
	self->m.head.ival2.tv_sec = 400L * 24 * 3600;
	self->m.head.ival2.tv_usec = 999999;
	EXPECT_EQ((int)(sizeof(self->m.head) + CAN_MTU),
		  bcm_write(self->s, &self->m));
}

TEST_F(bcm, tx_update_with_more_frames_fails_e2big)
{
	tx_request(&self->m, 0);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	self->m.head.nframes = 2;
	self->m.cc[1] = self->m.cc[0];
	EXPECT_EQ(-E2BIG, bcm_write(self->s, &self->m));
}

TEST_F(bcm, rx_setup_with_258_frames_fails_einval)
{
	bcm_head(&self->m, RX_SETUP, 0, 0x123, 258);
	memset(self->m.cc, 0, sizeof(self->m.cc));
	EXPECT_EQ(-1, write(self->s, &self->m,
			    sizeof(self->m.head) + 258 * CAN_MTU));
	EXPECT_EQ(EINVAL, errno);
	self->m.head.nframes = 257;
	EXPECT_EQ((int)(sizeof(self->m.head) + 257 * CAN_MTU),
		  bcm_write(self->s, &self->m));
}

TEST_F(bcm, rx_update_with_more_frames_fails_e2big)
{
	bcm_head(&self->m, RX_SETUP, 0, 0x123, 1);
	memset(self->m.cc, 0, sizeof(self->m.cc));
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	self->m.head.nframes = 2;
	EXPECT_EQ(-E2BIG, bcm_write(self->s, &self->m));
}

TEST_F(bcm, rx_setup_with_bad_timer_fails_einval)
{
	bcm_head(&self->m, RX_SETUP, SETTIMER, 0x123, 0);
	self->m.head.ival1.tv_usec = -5;
	EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m));
}

TEST_F(bcm, rx_rtr_filter_without_rtr_id_fails_einval)
{
	bcm_head(&self->m, RX_SETUP, RX_RTR_FRAME, 0x123, 1);
	memset(self->m.cc, 0, sizeof(self->m.cc));
	EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m));
}

TEST_F(bcm, rx_rtr_filter_with_two_frames_fails_einval)
{
	bcm_head(&self->m, RX_SETUP, RX_RTR_FRAME, 0x123 | CAN_RTR_FLAG, 2);
	memset(self->m.cc, 0, sizeof(self->m.cc));
	EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m));
}

TEST_F(bcm, rx_rtr_filter_with_reply_len_9_fails_einval)
{
	bcm_head(&self->m, RX_SETUP, RX_RTR_FRAME, 0x123 | CAN_RTR_FLAG, 1);
	memset(self->m.cc, 0, sizeof(self->m.cc));
	self->m.cc[0].len = 9;
	EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m));
}

TEST_F(bcm, delete_and_read_of_unknown_op_fail_einval)
{
	EXPECT_EQ(-EINVAL, bcm_request(self->s, TX_DELETE, 0, 0x555));
	EXPECT_EQ(-EINVAL, bcm_request(self->s, RX_DELETE, 0, 0x555));
	EXPECT_EQ(-EINVAL, bcm_request(self->s, TX_READ, 0, 0x555));
	EXPECT_EQ(-EINVAL, bcm_request(self->s, RX_READ, 0, 0x555));
}

TEST_F(bcm, ops_are_named_by_fd_flag_too)
{
	tx_request(&self->m, 0);
	ASSERT_LT(0, bcm_write(self->s, &self->m));
	EXPECT_EQ(-EINVAL, bcm_request(self->s, TX_DELETE, CAN_FD_FRAME, 0x123));
	EXPECT_EQ((int)sizeof(self->m.head),
		  bcm_request(self->s, TX_DELETE, 0, 0x123));
}

TEST_F(bcm, tx_send_with_two_frames_fails_einval)
{
	tx_request(&self->m, 0);
	self->m.head.opcode = TX_SEND;
	self->m.head.nframes = 2;
	self->m.cc[1] = self->m.cc[0];
	EXPECT_EQ(-EINVAL, bcm_write(self->s, &self->m));
}

TEST_F(bcm, tx_send_with_nframes_zero_fails_einval)
{
	tx_request(&self->m, 0);
	self->m.head.opcode = TX_SEND;
	self->m.head.nframes = 0;
	EXPECT_EQ(-1, write(self->s, &self->m, sizeof(self->m.head) + CAN_MTU));
	EXPECT_EQ(EINVAL, errno);
}

static int send_to(int s, struct bcm_msg *m, int family, int ifindex,
		   socklen_t len)
{
	struct sockaddr_can addr = { .can_family = family,
				     .can_ifindex = ifindex };
	ssize_t n = sendto(s, m, sizeof(m->head) + m->head.nframes * CAN_MTU,
			   0, (struct sockaddr *)&addr, len);

	return n < 0 ? -errno : (int)n;
}

TEST_F(any, tx_setup_without_interface_fails_enodev)
{
	tx_request(&self->m, 0);
	EXPECT_EQ(-ENODEV, bcm_write(self->s, &self->m));
}

TEST_F(any, tx_send_without_interface_fails_enodev)
{
	tx_request(&self->m, 0);
	self->m.head.opcode = TX_SEND;
	EXPECT_EQ(-ENODEV, bcm_write(self->s, &self->m));
}

TEST_F(any, sendto_with_short_address_fails_einval)
{
	tx_request(&self->m, 0);
	EXPECT_EQ(-EINVAL, send_to(self->s, &self->m, AF_CAN, self->ifindex, 6));
}

TEST_F(any, sendto_with_wrong_family_fails_einval)
{
	tx_request(&self->m, 0);
	EXPECT_EQ(-EINVAL, send_to(self->s, &self->m, AF_INET, self->ifindex,
				   sizeof(struct sockaddr_can)));
}

TEST_F(any, sendto_unknown_ifindex_fails_enodev)
{
	tx_request(&self->m, 0);
	EXPECT_EQ(-ENODEV, send_to(self->s, &self->m, AF_CAN, 0x7fffff,
				   sizeof(struct sockaddr_can)));
}

TEST_F(any, sendto_non_can_device_fails_enodev)
{
	tx_request(&self->m, 0);
	EXPECT_EQ(-ENODEV, send_to(self->s, &self->m, AF_CAN,
				   if_nametoindex("lo"),
				   sizeof(struct sockaddr_can)));
}

TEST_F(any, sendto_names_the_interface_of_the_op)
{
	tx_request(&self->m, 0);
	EXPECT_EQ((int)(sizeof(self->m.head) + CAN_MTU),
		  send_to(self->s, &self->m, AF_CAN, self->ifindex,
			  sizeof(struct sockaddr_can)));
	/* The op lives on that interface, not on "all". */
	EXPECT_EQ(-EINVAL, bcm_request(self->s, TX_DELETE, 0, 0x123));
	bcm_head(&self->m, TX_DELETE, 0, 0x123, 0);
	EXPECT_EQ((int)sizeof(self->m.head),
		  send_to(self->s, &self->m, AF_CAN, self->ifindex,
			  sizeof(struct sockaddr_can)));
}

TEST_HARNESS_MAIN
