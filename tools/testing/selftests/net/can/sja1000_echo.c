// SPDX-License-Identifier: GPL-2.0
/*
 * Echo semantics of a real controller driver (IFF_ECHO) on two QEMU
 * kvaser_pci cards on one bus: the sender gets its frame back with
 * MSG_CONFIRM only if it asked (CAN_RAW_RECV_OWN_MSGS), other local
 * sockets get it without the flag, and with CAN_RAW_LOOPBACK off only
 * the other card sees it. Skips without the cards.
 */

#include <dirent.h>
#include <limits.h>

#include "lib/can_test.h"
#include "kselftest_harness.h"

/* The first two interfaces of the kvaser_pci driver, sorted by name. */
static int find_cards(char a[IFNAMSIZ], char b[IFNAMSIZ])
{
	char path[PATH_MAX], target[PATH_MAX];
	struct dirent **list;
	int i, n, found = 0;
	ssize_t len;

	n = scandir("/sys/class/net", &list, NULL, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver",
			 list[i]->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len > 0 && strlen(list[i]->d_name) < IFNAMSIZ) {
			target[len] = '\0';
			if (strstr(target, "/kvaser_pci") && found < 2)
				strcpy(found++ ? b : a, list[i]->d_name);
		}
		free(list[i]);
	}
	free(list);
	return found;
}

static int ip_link_set(const char *name, const char *args)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "ip link set %s %s", name, args);
	return system(cmd);
}

/* Configure a card afresh at 500 kbit/s and bring it up. */
static int card_up(const char *name)
{
	return ip_link_set(name, "down") ||
	       ip_link_set(name, "type can bitrate 500000") ||
	       ip_link_set(name, "up");
}

FIXTURE(echo) {
	int tx;		/* sender on card A */
	int peer;	/* another socket on card A */
	int far;	/* socket on card B */
};

FIXTURE_SETUP(echo)
{
	char a[IFNAMSIZ], b[IFNAMSIZ];

	self->tx = -1;
	self->peer = -1;
	self->far = -1;
	if (system("modprobe kvaser_pci 2>/dev/null") || find_cards(a, b) < 2)
		SKIP(return, "needs two QEMU kvaser_pci cards on one can-bus");
	ASSERT_EQ(0, card_up(a));
	ASSERT_EQ(0, card_up(b));

	self->tx = ct_raw_open(if_nametoindex(a));
	self->peer = ct_raw_open(if_nametoindex(a));
	self->far = ct_raw_open(if_nametoindex(b));
	ASSERT_LE(0, self->tx);
	ASSERT_LE(0, self->peer);
	ASSERT_LE(0, self->far);
}

FIXTURE_TEARDOWN(echo)
{
	if (self->tx >= 0)
		close(self->tx);
	if (self->peer >= 0)
		close(self->peer);
	if (self->far >= 0)
		close(self->far);
}

TEST_F(echo, sender_gets_own_frame_confirmed_when_asked)
{
	struct can_frame cf;
	int flags = 0;

	ASSERT_EQ(0, ct_setopt_int(self->tx, CAN_RAW_RECV_OWN_MSGS, 1));
	ASSERT_EQ(0, ct_send(self->tx, 0x123, 4));
	ASSERT_EQ(sizeof(cf), ct_recv(self->tx, &cf, sizeof(cf),
				      CT_RX_TIMEOUT_MS, &flags, NULL));
	EXPECT_EQ(0x123, cf.can_id);
	EXPECT_TRUE(flags & MSG_CONFIRM);
	ASSERT_EQ(sizeof(cf), ct_recv(self->peer, &cf, sizeof(cf),
				      CT_RX_TIMEOUT_MS, &flags, NULL));
	EXPECT_FALSE(flags & MSG_CONFIRM);
	EXPECT_EQ(0x123, ct_recv_id(self->far, CT_RX_TIMEOUT_MS));
}

TEST_F(echo, sender_does_not_get_own_frame_by_default)
{
	EXPECT_EQ(0, ct_send(self->tx, 0x124, 1));
	EXPECT_EQ(0x124, ct_recv_id(self->peer, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(0x124, ct_recv_id(self->far, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(ct_is_quiet(self->tx));
}

TEST_F(echo, loopback_off_reaches_only_the_other_card)
{
	ASSERT_EQ(0, ct_setopt_int(self->tx, CAN_RAW_LOOPBACK, 0));
	ASSERT_EQ(0, ct_send(self->tx, 0x125, 2));
	EXPECT_EQ(0x125, ct_recv_id(self->far, CT_RX_TIMEOUT_MS));
	/* The far card's frame is the witness that ours was sent. */
	EXPECT_TRUE(ct_is_quiet(self->peer));
}

TEST_HARNESS_MAIN
