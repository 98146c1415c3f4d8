// SPDX-License-Identifier: GPL-2.0
/*
 * Network namespaces: each has its own CAN receive lists, so a frame in
 * one namespace never reaches a socket of another, even one bound to
 * all interfaces; a vcan moved to another namespace carries its traffic
 * there and unbinds the sockets it leaves behind.
 *
 * Every test runs in its own process (the harness forks), so it simply
 * unshares: the first namespace "one" is made in setup, "two" on demand.
 */

#include <sched.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"

FIXTURE(netns)
{
	int home;	/* the namespace the test started in */
	int one;
	int two;
	char ifname[IFNAMSIZ];
	int ifindex;
};

static int open_netns(void)
{
	return open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
}

/* Enter a fresh namespace; returns an fd for it. */
static int new_netns(void)
{
	if (unshare(CLONE_NEWNET))
		return -1;
	return open_netns();
}

FIXTURE_SETUP(netns)
{
	self->one = -1;
	self->two = -1;
	self->home = open_netns();
	ASSERT_LE(0, self->home);
	self->one = new_netns();
	ASSERT_LE(0, self->one);
	ct_ifname(self->ifname, 'n');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	self->ifindex = if_nametoindex(self->ifname);
}

FIXTURE_TEARDOWN(netns)
{
	/* a namespace's vcans die with it; remove them explicitly anyway */
	if (self->two >= 0) {
		setns(self->two, CLONE_NEWNET);
		ct_link_del(self->ifname);
		close(self->two);
	}
	if (self->one >= 0) {
		setns(self->one, CLONE_NEWNET);
		ct_link_del(self->ifname);
		close(self->one);
	}
	setns(self->home, CLONE_NEWNET);
	close(self->home);
}

TEST_F(netns, frame_in_one_netns_never_reaches_another)
{
	int any_one, any_two, tx_two, witness_two;

	any_one = ct_raw_open(0);
	ASSERT_LE(0, any_one);
	self->two = new_netns();
	ASSERT_LE(0, self->two);
	/* the same name in the second namespace */
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	tx_two = ct_raw_open(if_nametoindex(self->ifname));
	ASSERT_LE(0, tx_two);
	any_two = ct_raw_open(0);
	ASSERT_LE(0, any_two);
	witness_two = ct_raw_open(if_nametoindex(self->ifname));
	ASSERT_LE(0, witness_two);

	ASSERT_EQ(0, ct_send(tx_two, 0x222, 2));
	EXPECT_EQ(0x222, ct_recv_id(witness_two, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(0x222, ct_recv_id(any_two, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(ct_is_quiet(any_one));

	close(witness_two);
	close(any_two);
	close(tx_two);
	close(any_one);
}

TEST_F(netns, frame_in_first_netns_skips_second)
{
	int tx_one, witness_one, any_two;

	tx_one = ct_raw_open(self->ifindex);
	ASSERT_LE(0, tx_one);
	witness_one = ct_raw_open(self->ifindex);
	ASSERT_LE(0, witness_one);
	self->two = new_netns();
	ASSERT_LE(0, self->two);
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	any_two = ct_raw_open(0);
	ASSERT_LE(0, any_two);

	ASSERT_EQ(0, ct_send(tx_one, 0x111, 2));
	EXPECT_EQ(0x111, ct_recv_id(witness_one, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(ct_is_quiet(any_two));

	close(any_two);
	close(witness_one);
	close(tx_one);
}

TEST_F(netns, bind_to_ifindex_of_other_netns_fails_enodev)
{
	int ifindex_one = self->ifindex, fd;

	self->two = new_netns();
	ASSERT_LE(0, self->two);
	fd = ct_raw_socket();
	ASSERT_LE(0, fd);
	/* the new namespace has only lo (ifindex 1) */
	ASSERT_NE(1, ifindex_one);
	EXPECT_EQ(-ENODEV, ct_bind(fd, ifindex_one));
	close(fd);
}

TEST_F(netns, moving_vcan_away_unbinds_sockets_with_enodev)
{
	int fd = ct_raw_open(self->ifindex);

	ASSERT_LE(0, fd);
	self->two = new_netns();
	ASSERT_LE(0, self->two);
	ASSERT_EQ(0, setns(self->one, CLONE_NEWNET));
	ASSERT_EQ(0, ct_link_set_netns(self->ifname, self->two));
	EXPECT_EQ(0, if_nametoindex(self->ifname));
	EXPECT_TRUE(ct_wait_pollerr(fd, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(ENODEV, ct_sock_error(fd));
	close(fd);
}

TEST_F(netns, moved_vcan_carries_frames_in_new_netns_only)
{
	int any_one, tx_two, rx_two, ifindex_two;

	any_one = ct_raw_open(0);
	ASSERT_LE(0, any_one);
	self->two = new_netns();
	ASSERT_LE(0, self->two);
	ASSERT_EQ(0, setns(self->one, CLONE_NEWNET));
	ASSERT_EQ(0, ct_link_set_netns(self->ifname, self->two));
	ASSERT_EQ(0, setns(self->two, CLONE_NEWNET));

	ifindex_two = if_nametoindex(self->ifname);
	ASSERT_NE(0, ifindex_two);
	/* a move takes the link down */
	ASSERT_EQ(0, ct_link_set_up(self->ifname, true));
	tx_two = ct_raw_open(ifindex_two);
	ASSERT_LE(0, tx_two);
	rx_two = ct_raw_open(ifindex_two);
	ASSERT_LE(0, rx_two);
	ASSERT_EQ(0, ct_send(tx_two, 0x333, 1));
	EXPECT_EQ(0x333, ct_recv_id(rx_two, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(ct_is_quiet(any_one));

	close(rx_two);
	close(tx_two);
	close(any_one);
}

TEST_F(netns, each_netns_has_its_own_proc_stats)
{
	long rx_one, tx;
	int fd, witness;

	rx_one = ct_proc_stat("RXF");
	ASSERT_LE(0, rx_one);
	self->two = new_netns();
	ASSERT_LE(0, self->two);
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	fd = ct_raw_open(if_nametoindex(self->ifname));
	ASSERT_LE(0, fd);
	witness = ct_raw_open(if_nametoindex(self->ifname));
	ASSERT_LE(0, witness);
	for (tx = 0; tx < 5; tx++) {
		ASSERT_EQ(0, ct_send(fd, 0x10, 1));
		ASSERT_EQ(0x10, ct_recv_id(witness, CT_RX_TIMEOUT_MS));
	}
	EXPECT_EQ(5, ct_proc_stat("TXF"));
	EXPECT_EQ(5, ct_proc_stat("RXF"));
	ASSERT_EQ(0, setns(self->one, CLONE_NEWNET));
	EXPECT_EQ(rx_one, ct_proc_stat("RXF"));
	close(witness);
	close(fd);
}

TEST_HARNESS_MAIN
