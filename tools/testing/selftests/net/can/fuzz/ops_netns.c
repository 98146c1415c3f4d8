// SPDX-License-Identifier: GPL-2.0
/*
 * Network namespaces: created (unshare in this thread, the namespace
 * kept by a descriptor), entered, left, deleted with CAN state inside
 * (a child process that sets up sockets and devices and exits), and
 * devices moved between them (link_set in ops_link.c).
 */

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/bcm.h>
#include <linux/can/raw.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "fuzz.h"

static long netns_new(struct fz_ctx *c, struct fz_draw *d)
{
	int fd;

	if (unshare(CLONE_NEWNET))
		return fz_ret(c, "unshare", -1);
	fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	fz_fd_put(c, d, FZ_NETNS, fd);
	/* Half the time stay: the next sockets and links are made in it. */
	if (fz_chance(d, 2) && c->home_netns >= 0)
		setns(c->home_netns, CLONE_NEWNET);
	return fz_ret(c, "netns new", fd);
}

static long netns_enter(struct fz_ctx *c, struct fz_draw *d)
{
	int fd = fz_chance(d, 2) ? c->home_netns : fz_fd_get(c, d, FZ_NETNS);

	return fz_ret(c, "setns", setns(fd, CLONE_NEWNET));
}

static void child_vcan(const char *name)
{
	fz_vcan_add(name);
	fz_link_up(fz_name_to_index(name));
}

/* CAN state in a namespace that dies with the child, sockets still open. */
static void child_body(struct fz_ctx *c, struct fz_draw *d)
{
	struct {
		struct bcm_msg_head h;
		struct can_frame f;
	} msg = {};
	struct sockaddr_can a = { .can_family = AF_CAN };
	struct can_frame f = { .can_id = 0x123, .len = 8 };
	struct fz_nlmsg m;
	int raw, bcm, i, n;

	if (unshare(CLONE_NEWNET))
		return;
	child_vcan("fzv0");
	if (fz_chance(d, 2))
		child_vcan("fzv1");
	a.can_ifindex = fz_chance(d, 4) ? 0 : fz_name_to_index("fzv0");
	raw = socket(PF_CAN, SOCK_RAW, CAN_RAW);
	bind(raw, (struct sockaddr *)&a, sizeof(a));
	bcm = socket(PF_CAN, SOCK_DGRAM, CAN_BCM);
	connect(bcm, (struct sockaddr *)&a, sizeof(a));
	n = fz_below(d, 4);
	for (i = 0; i < n; i++) {
		memset(&msg, 0, sizeof(msg));
		msg.h.opcode = fz_chance(d, 2) ? RX_SETUP : TX_SETUP;
		msg.h.flags = SETTIMER | STARTTIMER | (fz_chance(d, 2) ? RX_FILTER_ID : 0);
		msg.h.ival2.tv_usec = 1000 * fz_below(d, 20);
		msg.h.can_id = 0x100 + i;
		msg.h.nframes = 1;
		msg.f.can_id = 0x100 + i;
		msg.f.len = 8;
		write(bcm, &msg, sizeof(msg));
	}
	write(raw, &f, sizeof(f));
	/* Move a device out, to the namespace the worker came from. */
	if (fz_chance(d, 2) && c->home_netns >= 0) {
		fz_nl_init(&m, RTM_NEWLINK, 0, fz_name_to_index("fzv0"));
		fz_nl_put(&m, IFLA_NET_NS_FD, &c->home_netns, sizeof(int));
		fz_nl_talk(&m);
	}
	if (fz_chance(d, 2))
		usleep(fz_below(d, 20000));
}

static long netns_child(struct fz_ctx *c, struct fz_draw *d)
{
	struct timespec t0, t;
	pid_t pid;
	int st;

	pid = fork();
	if (pid < 0)
		return fz_ret(c, "fork", -1);
	if (pid == 0) {
		child_body(c, d);
		_exit(0);
	}
	/* Wait, but not for ever: a hang shows as a kernel report. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (waitpid(pid, &st, WNOHANG) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 20) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		usleep(2000);
	}
	return fz_ret(c, "netns child", 0);
}

static const struct fz_op netns_ops[] = {
	{ "netns_new", netns_new, 2 },
	{ "netns_enter", netns_enter, 2 },
	{ "netns_child", netns_child, 1 },
	{}
};

FZ_REGISTER(netns_ops)
