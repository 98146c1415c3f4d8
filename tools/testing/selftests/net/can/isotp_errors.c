// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_ISOTP refuses bad requests with mainline's errno: bind addresses,
 * option sizes and values, options changed once bound (EISCONN, the
 * CVE-2021-32606 path), messages of no or too many bytes, and calls on
 * an unbound socket. Options read back as they were set.
 */

#include "lib/can_test_isotp.h"
#include "kselftest_harness.h"

FIXTURE(isotp) {
	char ifname[IFNAMSIZ];
	int ifindex;
	int s;
};

FIXTURE_SETUP(isotp)
{
	ct_ifname(self->ifname, 'e');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	self->ifindex = if_nametoindex(self->ifname);
	self->s = it_socket();
	ASSERT_LE(0, self->s);
}

FIXTURE_TEARDOWN(isotp)
{
	close(self->s);
	ct_link_del(self->ifname);
}

TEST_F(isotp, bind_with_short_address_fails_einval)
{
	struct sockaddr_can addr = { .can_family = AF_CAN,
				     .can_ifindex = self->ifindex };

	EXPECT_EQ(-1, bind(self->s, (struct sockaddr *)&addr, 15));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(isotp, bind_with_wrong_family_fails_einval)
{
	struct sockaddr_can addr = { .can_family = AF_INET,
				     .can_ifindex = self->ifindex };

	EXPECT_EQ(-1, bind(self->s, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(isotp, bind_with_bits_outside_sff_id_fails_einval)
{
	EXPECT_EQ(-EINVAL, it_bind(self->s, self->ifindex, 0x321, 0x800));
	EXPECT_EQ(-EINVAL, it_bind(self->s, self->ifindex, 0x800, 0x123));
	EXPECT_EQ(-EINVAL, it_bind(self->s, self->ifindex, 0x321,
				   0x123 | CAN_RTR_FLAG));
}

TEST_F(isotp, bind_with_eff_ids_succeeds)
{
	EXPECT_EQ(0, it_bind(self->s, self->ifindex, CAN_EFF_FLAG | 0x18DAF110,
			     CAN_EFF_FLAG | 0x18DA10F1));
}

TEST_F(isotp, bind_to_ifindex_zero_fails_enodev)
{
	EXPECT_EQ(-ENODEV, it_bind(self->s, 0, IT_RX_ID, IT_TX_ID));
}

TEST_F(isotp, bind_to_unknown_or_non_can_device_fails_enodev)
{
	EXPECT_EQ(-ENODEV, it_bind(self->s, 0x7fffffff, IT_RX_ID, IT_TX_ID));
	EXPECT_EQ(-ENODEV, it_bind(self->s, if_nametoindex("lo"), IT_RX_ID,
				   IT_TX_ID));
}

TEST_F(isotp, bind_with_equal_ids_fails_eaddrnotavail)
{
	EXPECT_EQ(-EADDRNOTAVAIL, it_bind(self->s, self->ifindex, 0x123, 0x123));
}

TEST_F(isotp, broadcast_socket_may_use_any_rx_id)
{
	struct can_isotp_options opt = { .flags = CAN_ISOTP_SF_BROADCAST };

	ASSERT_EQ(0, it_setopt(self->s, CAN_ISOTP_OPTS, &opt, sizeof(opt)));
	EXPECT_EQ(0, it_bind(self->s, self->ifindex, 0xFFFFFFFF, 0x7DF));
}

TEST_F(isotp, second_bind_fails_einval)
{
	ASSERT_EQ(0, it_bind(self->s, self->ifindex, IT_RX_ID, IT_TX_ID));
	EXPECT_EQ(-EINVAL, it_bind(self->s, self->ifindex, 0x456, 0x654));
}

TEST_F(isotp, fd_socket_on_classic_device_fails_einval)
{
	struct can_isotp_ll_options ll = { CANFD_MTU, 64, 0 };
	char name[IFNAMSIZ];

	ct_ifname(name, 'c');
	ASSERT_EQ(0, ct_vcan_create(name, CAN_MTU, true));
	ASSERT_EQ(0, it_setopt(self->s, CAN_ISOTP_LL_OPTS, &ll, sizeof(ll)));
	EXPECT_EQ(-EINVAL, it_bind(self->s, if_nametoindex(name), IT_RX_ID,
				   IT_TX_ID));
	EXPECT_EQ(0, it_bind(self->s, self->ifindex, IT_RX_ID, IT_TX_ID));
	ct_link_del(name);
}

TEST_F(isotp, bind_to_device_that_is_down_reports_enetdown)
{
	ASSERT_EQ(0, ct_link_set_up(self->ifname, false));
	ASSERT_EQ(0, it_bind(self->s, self->ifindex, IT_RX_ID, IT_TX_ID));
	EXPECT_EQ(ENETDOWN, ct_sock_error(self->s));
}

TEST_F(isotp, getname_returns_the_binding)
{
	struct sockaddr_can addr = {};
	socklen_t len = sizeof(addr);

	ASSERT_EQ(0, it_bind(self->s, self->ifindex, IT_RX_ID, IT_TX_ID));
	ASSERT_EQ(0, getsockname(self->s, (struct sockaddr *)&addr, &len));
	EXPECT_EQ(16, len);
	EXPECT_EQ(self->ifindex, addr.can_ifindex);
	EXPECT_EQ(IT_RX_ID, addr.can_addr.tp.rx_id);
	EXPECT_EQ(IT_TX_ID, addr.can_addr.tp.tx_id);
	EXPECT_EQ(-1, getpeername(self->s, (struct sockaddr *)&addr, &len));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

TEST_F(isotp, every_option_after_bind_fails_eisconn)
{
	struct can_isotp_options opt = {};
	struct can_isotp_fc_options fc = {};
	struct can_isotp_ll_options ll = { CAN_MTU, 8, 0 };
	__u32 ns = 0;

	ASSERT_EQ(0, it_bind(self->s, self->ifindex, IT_RX_ID, IT_TX_ID));
	EXPECT_EQ(-EISCONN, it_setopt(self->s, CAN_ISOTP_OPTS, &opt, sizeof(opt)));
	EXPECT_EQ(-EISCONN, it_setopt(self->s, CAN_ISOTP_RECV_FC, &fc, sizeof(fc)));
	EXPECT_EQ(-EISCONN, it_setopt(self->s, CAN_ISOTP_TX_STMIN, &ns, 4));
	EXPECT_EQ(-EISCONN, it_setopt(self->s, CAN_ISOTP_RX_STMIN, &ns, 4));
	EXPECT_EQ(-EISCONN, it_setopt(self->s, CAN_ISOTP_LL_OPTS, &ll, sizeof(ll)));
	EXPECT_EQ(-EISCONN, it_setopt(self->s, 99, &ns, 4));
}

TEST_F(isotp, option_sizes_must_be_exact)
{
	struct can_isotp_options opt = {};
	__u64 big = 0;

	EXPECT_EQ(-EINVAL, it_setopt(self->s, CAN_ISOTP_OPTS, &opt, sizeof(opt) - 1));
	EXPECT_EQ(-EINVAL, it_setopt(self->s, CAN_ISOTP_OPTS, &opt, sizeof(opt) + 1));
	EXPECT_EQ(-EINVAL, it_setopt(self->s, CAN_ISOTP_RECV_FC, &opt, 2));
	EXPECT_EQ(-EINVAL, it_setopt(self->s, CAN_ISOTP_TX_STMIN, &big, 8));
	EXPECT_EQ(-EINVAL, it_setopt(self->s, CAN_ISOTP_RX_STMIN, &big, 3));
	EXPECT_EQ(-EINVAL, it_setopt(self->s, CAN_ISOTP_LL_OPTS, &big, 4));
	EXPECT_EQ(-EINVAL, it_setopt(self->s, CAN_ISOTP_OPTS, NULL, 0));
}

TEST_F(isotp, bad_option_pointer_fails_efault)
{
	EXPECT_EQ(-EFAULT, it_setopt(self->s, CAN_ISOTP_OPTS, (void *)8,
				     sizeof(struct can_isotp_options)));
	EXPECT_EQ(-EFAULT, it_setopt(self->s, CAN_ISOTP_TX_STMIN, (void *)8, 4));
}

TEST_F(isotp, unknown_option_or_level_is_refused)
{
	__u32 v = 0;
	socklen_t len = sizeof(v);

	EXPECT_EQ(-ENOPROTOOPT, it_setopt(self->s, 6, &v, 4));
	EXPECT_EQ(-1, setsockopt(self->s, SOL_CAN_RAW, CAN_ISOTP_OPTS, &v, 4));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, getsockopt(self->s, SOL_CAN_ISOTP, 0, &v, &len));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(-1, getsockopt(self->s, SOL_CAN_RAW, CAN_ISOTP_OPTS, &v, &len));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(isotp, both_broadcast_flags_fail_einval_and_keep_sf)
{
	struct can_isotp_options opt = {
		.flags = CAN_ISOTP_SF_BROADCAST | CAN_ISOTP_CF_BROADCAST,
	};
	socklen_t len = sizeof(opt);

	EXPECT_EQ(-EINVAL, it_setopt(self->s, CAN_ISOTP_OPTS, &opt, sizeof(opt)));
	memset(&opt, 0, sizeof(opt));
	ASSERT_EQ(0, getsockopt(self->s, SOL_CAN_ISOTP, CAN_ISOTP_OPTS, &opt, &len));
	EXPECT_EQ(CAN_ISOTP_SF_BROADCAST, opt.flags);
}

TEST_F(isotp, defaults_read_back_as_mainline_sets_them)
{
	struct can_isotp_options opt;
	struct can_isotp_fc_options fc;
	struct can_isotp_ll_options ll;
	socklen_t len = sizeof(opt);

	ASSERT_EQ(0, getsockopt(self->s, SOL_CAN_ISOTP, CAN_ISOTP_OPTS, &opt, &len));
	EXPECT_EQ(sizeof(opt), len);
	EXPECT_EQ(0, opt.flags);
	EXPECT_EQ(CAN_ISOTP_DEFAULT_FRAME_TXTIME, opt.frame_txtime);
	EXPECT_EQ(0xCC, opt.txpad_content);
	EXPECT_EQ(0xCC, opt.rxpad_content);
	len = sizeof(fc);
	ASSERT_EQ(0, getsockopt(self->s, SOL_CAN_ISOTP, CAN_ISOTP_RECV_FC, &fc, &len));
	EXPECT_EQ(0, fc.bs);
	EXPECT_EQ(0, fc.stmin);
	len = sizeof(ll);
	ASSERT_EQ(0, getsockopt(self->s, SOL_CAN_ISOTP, CAN_ISOTP_LL_OPTS, &ll, &len));
	EXPECT_EQ(CAN_MTU, ll.mtu);
	EXPECT_EQ(8, ll.tx_dl);
}

TEST_F(isotp, options_read_back_as_set_and_truncated)
{
	struct can_isotp_options opt = {
		.flags = CAN_ISOTP_EXTEND_ADDR, .ext_address = 0x55,
		.frame_txtime = 1234,
	};
	struct can_isotp_fc_options fc = { 4, 0xF5, 2 };
	__u32 ns = 777777, out = 0;
	socklen_t len = sizeof(opt);

	ASSERT_EQ(0, it_setopt(self->s, CAN_ISOTP_OPTS, &opt, sizeof(opt)));
	ASSERT_EQ(0, it_setopt(self->s, CAN_ISOTP_RECV_FC, &fc, sizeof(fc)));
	ASSERT_EQ(0, it_setopt(self->s, CAN_ISOTP_TX_STMIN, &ns, 4));
	memset(&opt, 0, sizeof(opt));
	ASSERT_EQ(0, getsockopt(self->s, SOL_CAN_ISOTP, CAN_ISOTP_OPTS, &opt, &len));
	EXPECT_EQ(CAN_ISOTP_EXTEND_ADDR, opt.flags);
	/* without CAN_ISOTP_RX_EXT_ADDR the rx address follows the tx one */
	EXPECT_EQ(0x55, opt.rx_ext_address);
	EXPECT_EQ(1234, opt.frame_txtime);
	memset(&fc, 0, sizeof(fc));
	len = 2;
	ASSERT_EQ(0, getsockopt(self->s, SOL_CAN_ISOTP, CAN_ISOTP_RECV_FC, &fc, &len));
	EXPECT_EQ(2, len);
	EXPECT_EQ(4, fc.bs);
	EXPECT_EQ(0xF5, fc.stmin);
	EXPECT_EQ(0, fc.wftmax);
	len = 4;
	ASSERT_EQ(0, getsockopt(self->s, SOL_CAN_ISOTP, CAN_ISOTP_TX_STMIN, &out, &len));
	EXPECT_EQ(ns, out);
}

TEST_F(isotp, getsockopt_negative_length_fails_einval)
{
	struct can_isotp_options opt;
	socklen_t len = -1;

	EXPECT_EQ(-1, getsockopt(self->s, SOL_CAN_ISOTP, CAN_ISOTP_OPTS, &opt, &len));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(isotp, ll_options_take_only_valid_lengths_and_mtus)
{
	static const int good_dl[] = { 8, 12, 16, 20, 24, 32, 48, 64 };
	struct can_isotp_ll_options ll;
	int i, dl;

	for (dl = 0; dl < 256; dl++) {
		bool good = false;

		for (i = 0; i < 8; i++)
			good |= dl == good_dl[i];
		ll = (struct can_isotp_ll_options){ CANFD_MTU, dl, 0 };
		EXPECT_EQ(good ? 0 : -EINVAL,
			  it_setopt(self->s, CAN_ISOTP_LL_OPTS, &ll, sizeof(ll)))
			TH_LOG("tx_dl %d", dl);
	}
	ll = (struct can_isotp_ll_options){ CAN_MTU, 12, 0 };
	EXPECT_EQ(-EINVAL, it_setopt(self->s, CAN_ISOTP_LL_OPTS, &ll, sizeof(ll)));
	ll = (struct can_isotp_ll_options){ CAN_MTU, 8, CANFD_BRS };
	EXPECT_EQ(-EINVAL, it_setopt(self->s, CAN_ISOTP_LL_OPTS, &ll, sizeof(ll)));
	ll = (struct can_isotp_ll_options){ CANXL_MTU & 0xff, 8, 0 };
	EXPECT_EQ(-EINVAL, it_setopt(self->s, CAN_ISOTP_LL_OPTS, &ll, sizeof(ll)));
	ll = (struct can_isotp_ll_options){ 0, 8, 0 };
	EXPECT_EQ(-EINVAL, it_setopt(self->s, CAN_ISOTP_LL_OPTS, &ll, sizeof(ll)));
}

TEST_F(isotp, send_and_recv_on_unbound_socket_fail_eaddrnotavail)
{
	char buf[8] = {};

	EXPECT_EQ(-1, send(self->s, buf, sizeof(buf), 0));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	EXPECT_EQ(-1, recv(self->s, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
}

TEST_F(isotp, message_of_zero_or_too_many_bytes_fails_einval)
{
	static char big[IT_MAX_MSG + 2];

	ASSERT_EQ(0, it_bind(self->s, self->ifindex, IT_RX_ID, IT_TX_ID));
	EXPECT_EQ(-EINVAL, it_send(self->s, big, 0));
	EXPECT_EQ(-EINVAL, it_send(self->s, big, IT_MAX_MSG + 1));
	EXPECT_EQ(-EINVAL, it_send(self->s, big, IT_MAX_MSG + 2));
}

TEST_F(isotp, send_from_bad_pointer_fails_efault)
{
	ASSERT_EQ(0, it_bind(self->s, self->ifindex, IT_RX_ID, IT_TX_ID));
	EXPECT_EQ(-EFAULT, it_send(self->s, (void *)8, 100));
	/* and the socket is not left busy */
	EXPECT_EQ(-EFAULT, it_send(self->s, (void *)8, 5));
}

TEST_F(isotp, sf_broadcast_message_longer_than_a_frame_fails_einval)
{
	struct can_isotp_options opt = { .flags = CAN_ISOTP_SF_BROADCAST };
	char buf[8] = {};

	ASSERT_EQ(0, it_setopt(self->s, CAN_ISOTP_OPTS, &opt, sizeof(opt)));
	ASSERT_EQ(0, it_bind(self->s, self->ifindex, 0, 0x7DF));
	EXPECT_EQ(-EINVAL, it_send(self->s, buf, 8));
	EXPECT_EQ(0, it_send(self->s, buf, 7));
}

TEST_F(isotp, recv_with_unknown_flags_fails_einval)
{
	char buf[8];

	ASSERT_EQ(0, it_bind(self->s, self->ifindex, IT_RX_ID, IT_TX_ID));
	EXPECT_EQ(-1, recv(self->s, buf, sizeof(buf), MSG_DONTWAIT | MSG_OOB));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, recv(self->s, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(isotp, send_on_device_that_is_down_fails_enetdown)
{
	char buf[4] = {};

	ASSERT_EQ(0, it_bind(self->s, self->ifindex, IT_RX_ID, IT_TX_ID));
	ASSERT_EQ(0, ct_link_set_up(self->ifname, false));
	EXPECT_EQ(ENETDOWN, ct_sock_error(self->s));
	EXPECT_EQ(-ENETDOWN, it_send(self->s, buf, sizeof(buf)));
	/* not left busy either */
	EXPECT_EQ(-ENETDOWN, it_send(self->s, buf, sizeof(buf)));
}

TEST(unsupported_socket_calls_fail_eopnotsupp)
{
	struct sockaddr_can addr = { .can_family = AF_CAN };
	int s = it_socket();

	ASSERT_LE(0, s);
	EXPECT_EQ(-1, connect(s, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, listen(s, 1));
	EXPECT_EQ(EOPNOTSUPP, errno);
	close(s);
}

TEST_HARNESS_MAIN
