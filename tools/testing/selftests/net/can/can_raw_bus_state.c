// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_RAW_BUS_STATE (ours): the state and counters of the bound device,
 * read by any user: refused on unbound sockets, zeros on vcan but for
 * the core's counts of lost frames, and on a
 * controller of the virtual bus (can-vbus) the ERROR-PASSIVE of a node
 * alone, bus-off and restart, as ip -d link shows them.
 * CAN_RAW_STATE_EVENTS (ours): each state change as an error frame,
 * without an error filter, and nothing else.
 */

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/can.h>
#include <linux/can/netlink.h>
#include <linux/can/raw.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"

#define DBG "/sys/kernel/debug"
#define BERR_ON "ip link set %s down && ip link set %s type can berr-reporting on && ip link set %s up"
#define ADD_LONE_NODE "ip link add dev %s group 31337 type can bitrate 500000 restart-ms 0"

static int get_state(int fd, struct can_raw_bus_state *st, socklen_t *len)
{
	return getsockopt(fd, SOL_CAN_RAW, CAN_RAW_BUS_STATE, st, len);
}

static int sh(const char *fmt, const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), fmt, name, name, name);
	return system(cmd);
}

/* Reads the state until @want or about two seconds have passed. */
static bool wait_state(int fd, __u32 want, struct can_raw_bus_state *st)
{
	socklen_t len;
	int i;

	for (i = 0; i < 200; i++) {
		len = sizeof(*st);
		if (!get_state(fd, st, &len) && st->state == want)
			return true;
		usleep(10000);
	}
	return false;
}

TEST(unbound_and_bound_to_all_are_refused)
{
	struct can_raw_bus_state st;
	socklen_t len = sizeof(st);
	int fd = ct_raw_socket();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, get_state(fd, &st, &len));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ct_bind(fd, 0));
	EXPECT_EQ(-1, get_state(fd, &st, &len));
	EXPECT_EQ(EINVAL, errno);
	len = -1;
	EXPECT_EQ(-1, get_state(fd, &st, &len));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

FIXTURE(vcan) {
	char name[IFNAMSIZ];
	int fd;
};

FIXTURE_SETUP(vcan)
{
	ct_ifname(self->name, 's');
	ASSERT_EQ(0, ct_vcan_create(self->name, CAN_MTU, true));
	self->fd = ct_raw_open(if_nametoindex(self->name));
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(vcan)
{
	close(self->fd);
	ct_link_del(self->name);
}

TEST_F(vcan, no_controller_reads_active_and_zero)
{
	struct can_raw_bus_state st, zero = {};
	socklen_t len = sizeof(st) + 8;

	memset(&st, 0xa5, sizeof(st));
	ASSERT_EQ(0, get_state(self->fd, &st, &len));
	EXPECT_EQ(sizeof(st), len);
	EXPECT_EQ(CAN_STATE_ERROR_ACTIVE, st.state);
	zero.state = st.state;
	EXPECT_EQ(0, memcmp(&st, &zero, sizeof(st)));
}

TEST_F(vcan, short_buffer_gets_the_first_bytes)
{
	unsigned char buf[sizeof(struct can_raw_bus_state)];
	socklen_t len = 2;

	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, get_state(self->fd, (void *)buf, &len));
	EXPECT_EQ(2, len);
	EXPECT_EQ(0, buf[0]);
	EXPECT_EQ(0xa5, buf[2]);
	len = 0;
	ASSERT_EQ(0, get_state(self->fd, (void *)buf, &len));
	EXPECT_EQ(0, len);
}

/* The counts of lost frames are the core's, kept for vcan too; the
 * controller's (rx_over_errors) stays 0 there.
 */
TEST_F(vcan, core_loss_counts_are_kept_without_controller)
{
	struct can_raw_bus_state st;
	socklen_t len = sizeof(st);
	int tx = ct_raw_socket(), i;

	ASSERT_LE(0, tx);
	ASSERT_EQ(0, ct_set_filters(tx, NULL, 0));
	ASSERT_EQ(0, ct_bind(tx, if_nametoindex(self->name)));
	/* no subscriber at all: every frame counts as without receiver */
	ASSERT_EQ(0, ct_set_filters(self->fd, NULL, 0));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, ct_send(tx, 0x321, 1));
	ASSERT_EQ(0, get_state(tx, &st, &len));
	EXPECT_EQ(sizeof(st), len);
	EXPECT_EQ(CAN_STATE_ERROR_ACTIVE, st.state);
	EXPECT_EQ(0, st.bus_errors);
	EXPECT_EQ(0, st.rx_lost_controller);
	EXPECT_EQ(0, st.rx_lost_queue);
	EXPECT_EQ(4, st.rx_no_receiver);
	EXPECT_EQ(0, st.rx_invalid);
	EXPECT_EQ(0, st.rx_lost_socket);
	close(tx);
}

TEST_F(vcan, deleted_device_is_refused)
{
	struct can_raw_bus_state st;
	socklen_t len = sizeof(st);

	ASSERT_EQ(0, ct_link_del(self->name));
	EXPECT_EQ(-1, get_state(self->fd, &st, &len));
	EXPECT_TRUE(errno == EINVAL || errno == ENODEV);
}

FIXTURE(vbus) {
	char name[IFNAMSIZ];
	char peer[IFNAMSIZ];
	int fd;
};

FIXTURE_SETUP(vbus)
{
	if (access(DBG "/can_vbus", F_OK))
		system("mount -t debugfs none " DBG " 2>/dev/null");
	ASSERT_EQ(0, system("modprobe can-vbus"));
	ct_ifname(self->name, 'b');
	ct_ifname(self->peer, 'p');
	/* A group of their own: no other test's node acknowledges. */
	ASSERT_EQ(0, sh(ADD_LONE_NODE " && ip link set %s up", self->name));
	self->fd = ct_raw_open(if_nametoindex(self->name));
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(vbus)
{
	close(self->fd);
	ct_link_del(self->peer);
	ct_link_del(self->name);
}

/* Any user may read it: it is the socket's own device. */
TEST_F(vbus, alone_reads_error_passive_as_unprivileged_user)
{
	struct can_raw_bus_state st;
	int status;
	pid_t pid;

	ASSERT_EQ(0, ct_send(self->fd, 0x123, 1));
	ASSERT_TRUE(wait_state(self->fd, CAN_STATE_ERROR_PASSIVE, &st));
	EXPECT_EQ(128, st.txerr);
	EXPECT_EQ(0, st.rxerr);
	EXPECT_EQ(1, st.error_warning);
	EXPECT_EQ(1, st.error_passive);
	EXPECT_EQ(0, st.bus_off);
	EXPECT_LE(16, st.bus_errors);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct can_raw_bus_state mine;
		socklen_t len = sizeof(mine);
		int fd;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		fd = ct_raw_open(if_nametoindex(self->name));
		if (fd < 0 || get_state(fd, &mine, &len))
			_exit(3);
		_exit(mine.state == CAN_STATE_ERROR_PASSIVE && mine.txerr == 128 ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* A lone node's frames wait in its TX slots, its TEC stuck at 128: the
 * signature CAN_RAW_BUS_ALONE names. A second node acknowledges, the
 * frames leave, the flag goes.
 */
TEST_F(vbus, alone_is_flagged_until_a_peer_acknowledges)
{
	struct can_raw_bus_state st;
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, ct_send(self->fd, 0x123, 1));
	ASSERT_TRUE(wait_state(self->fd, CAN_STATE_ERROR_PASSIVE, &st));
	EXPECT_EQ(3, st.tx_pending);
	EXPECT_EQ(CAN_RAW_BUS_ALONE, st.flags);

	ASSERT_EQ(0, sh("ip link add dev %s group 31337 type can bitrate 500000",
			self->peer));
	ASSERT_EQ(0, sh("ip link set %s up", self->peer));
	for (i = 0; i < 100; i++) {
		socklen_t len = sizeof(st);

		ASSERT_EQ(0, get_state(self->fd, &st, &len));
		if (!st.tx_pending)
			break;
		usleep(10000);
	}
	EXPECT_EQ(0, st.tx_pending);
	EXPECT_EQ(0, st.flags);
}

TEST_F(vbus, bus_off_and_restart_are_counted)
{
	struct can_raw_bus_state st;

	ASSERT_EQ(0, sh("d=$(echo " DBG "/can_vbus/net*-group31337/%s) && echo bus-off > $d/fault",
			self->name));
	ASSERT_TRUE(wait_state(self->fd, CAN_STATE_BUS_OFF, &st));
	EXPECT_EQ(1, st.bus_off);
	EXPECT_EQ(0, st.restarts);

	ASSERT_EQ(0, sh("ip link set %s type can restart", self->name));
	ASSERT_TRUE(wait_state(self->fd, CAN_STATE_ERROR_ACTIVE, &st));
	EXPECT_EQ(1, st.restarts);
	EXPECT_EQ(0, st.txerr);
}

TEST(state_events_is_a_flag_default_off)
{
	int fd = ct_raw_socket(), val = -1;
	socklen_t len = sizeof(val);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, getsockopt(fd, SOL_CAN_RAW, CAN_RAW_STATE_EVENTS, &val, &len));
	EXPECT_EQ(0, val);
	ASSERT_EQ(0, ct_setopt_int(fd, CAN_RAW_STATE_EVENTS, 5));
	ASSERT_EQ(0, getsockopt(fd, SOL_CAN_RAW, CAN_RAW_STATE_EVENTS, &val, &len));
	EXPECT_EQ(1, val);
	EXPECT_EQ(-1, setsockopt(fd, SOL_CAN_RAW, CAN_RAW_STATE_EVENTS, &val, 2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_CAN_RAW, CAN_RAW_BUS_STATE, &val, sizeof(val)));
	EXPECT_EQ(ENOPROTOOPT, errno);
	close(fd);
}

/* The next error frame within @ms, or 0. */
static canid_t next_error(int fd, struct can_frame *cf, int ms)
{
	int flags;

	if (ct_recv(fd, cf, sizeof(*cf), ms, &flags, NULL) != sizeof(*cf))
		return 0;
	return cf->can_id;
}

/* With berr-reporting on, the ACK errors of a lone node come as error
 * frames too: a state events socket sees only the two state changes.
 */
TEST_F(vbus, state_events_arrive_without_error_filter)
{
	struct can_frame cf;
	int events, quiet, tx;
	canid_t id;

	/* Sockets bound before a down would report ENETDOWN first. */
	ASSERT_EQ(0, sh(BERR_ON, self->name));
	events = ct_raw_open(if_nametoindex(self->name));
	quiet = ct_raw_open(if_nametoindex(self->name));
	tx = ct_raw_open(if_nametoindex(self->name));
	ASSERT_LE(0, events);
	ASSERT_LE(0, quiet);
	ASSERT_LE(0, tx);
	ASSERT_EQ(0, ct_set_filters(events, NULL, 0));
	ASSERT_EQ(0, ct_setopt_int(events, CAN_RAW_STATE_EVENTS, 1));
	ASSERT_EQ(0, ct_set_filters(quiet, NULL, 0));

	ASSERT_EQ(0, ct_send(tx, 0x123, 1));
	id = next_error(events, &cf, 2000);
	ASSERT_TRUE(id & CAN_ERR_CRTL);
	EXPECT_EQ(CAN_ERR_CRTL_TX_WARNING, cf.data[1]);
	EXPECT_EQ(96, cf.data[6]);
	id = next_error(events, &cf, 2000);
	ASSERT_TRUE(id & CAN_ERR_CRTL);
	EXPECT_EQ(CAN_ERR_CRTL_TX_PASSIVE, cf.data[1]);
	EXPECT_EQ(128, cf.data[6]);
	EXPECT_EQ(0, next_error(events, &cf, 300));

	ASSERT_EQ(0, sh("d=$(echo " DBG "/can_vbus/net*-group31337/%s) && echo bus-off > $d/fault",
			self->name));
	id = next_error(events, &cf, 2000);
	EXPECT_TRUE(id & CAN_ERR_BUSOFF);
	ASSERT_EQ(0, sh("ip link set %s type can restart", self->name));
	id = next_error(events, &cf, 2000);
	EXPECT_TRUE(id & CAN_ERR_RESTARTED);

	EXPECT_TRUE(ct_is_quiet(quiet));
	close(events);
	close(quiet);
	close(tx);
}

TEST_HARNESS_MAIN
