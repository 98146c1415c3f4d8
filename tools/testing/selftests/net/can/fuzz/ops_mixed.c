// SPDX-License-Identifier: GPL-2.0
/*
 * Mixed stacks, on purpose. A user may load Debian's mainline can.ko
 * and then our drivers or protocols (or the other way round), or run
 * our install script while the stack is in use; neither may crash the
 * kernel. mixed_core takes our core out when nothing holds it, loads
 * mainline's can.ko from /opt/mainline-can (where vmtest.sh
 * --keep-mainline keeps Debian's CAN modules, out of modprobe's sight;
 * Debian's kernel only: on the debug kernel the load is refused), then
 * some of our modules and mainline's can-raw, and sends frames.
 * mixed_install runs scripts/can-install.sh against a staging DESTDIR.
 * --avoid mixed-stack turns both into no-ops.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/raw.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "fuzz.h"

#define MAINLINE_DIR	"/opt/mainline-can/can"

static long mixed_finit(struct fz_ctx *c, int fd, const char *what)
{
	long ret;

	fz_trace(c, "finit_module %s", what);
	ret = fz_ret(c, "finit_module", syscall(SYS_finit_module, fd, "", 0));
	if (fd >= 0)
		close(fd);
	return ret;
}

static long mixed_load_mainline(struct fz_ctx *c, const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), MAINLINE_DIR "/%s.ko", name);
	return mixed_finit(c, open(path, O_RDONLY | O_CLOEXEC), path);
}

/*
 * Our users of the core first, then the core, and the virtual drivers
 * (their devices go with them), so that they load again on whatever
 * core comes next; each fails while in use.
 */
static void mixed_unload_core(struct fz_ctx *c)
{
	static const char *const mods[] = {
		"can_gw", "can_isotp", "can_bcm", "can_raw", "can_j1939", "can",
		"vcan", "vxcan",
	};
	size_t i;

	for (i = 0; i < FZ_ARRAY_SIZE(mods); i++)
		fz_ret(c, mods[i], syscall(SYS_delete_module, mods[i], O_NONBLOCK));
}

/* A vcan of whatever vcan module is loaded now, up. */
static void mixed_add_vcan(struct fz_ctx *c, const char *name)
{
	fz_ret(c, "link add vcan", fz_vcan_add(name));
	fz_ret(c, "link up", fz_link_up(fz_name_to_index(name)));
}

/* A few frames on every vcan the guest or the fuzzer made. */
static void mixed_send(struct fz_ctx *c, struct fz_draw *d)
{
	static const char *const devs[] = { "vcan0", "fzv0", "fzv1", "fzv2" };
	struct sockaddr_can a = { .can_family = AF_CAN };
	struct can_frame cf = { .len = CAN_MAX_DLEN };
	int fd = socket(PF_CAN, SOCK_RAW | SOCK_CLOEXEC, CAN_RAW);
	size_t i;

	fz_ret(c, "socket(CAN_RAW)", fd);
	for (i = 0; fd >= 0 && i < FZ_ARRAY_SIZE(devs); i++) {
		a.can_ifindex = fz_name_to_index(devs[i]);
		cf.can_id = fz_can_id(d);
		fz_fill(d, cf.data, sizeof(cf.data));
		fz_ret(c, "sendto", sendto(fd, &cf, sizeof(cf), MSG_DONTWAIT,
					   (struct sockaddr *)&a, sizeof(a)));
	}
	if (fd >= 0)
		close(fd);
}

static long mixed_core(struct fz_ctx *c, struct fz_draw *d)
{
	static const char *const ours[] = {
		"can-dev.ko", "vcan.ko", "vxcan.ko", "can-raw.ko", "can-bcm.ko",
		"can-isotp.ko", "can-gw.ko",
	};
	size_t i;

	if (c->avoid & FZ_AVOID_MIXED_STACK)
		return 0;
	/* The traffic thread's socket alone keeps can_raw in. */
	fz_traffic_hold(true);
	for (i = 0; i < 20 && access("/sys/module/can", F_OK) == 0; i++) {
		mixed_unload_core(c);
		usleep(10000);
	}
	if (access("/sys/module/can", F_OK) == 0) {
		fz_traffic_hold(false);
		return -EBUSY;
	}
	mixed_load_mainline(c, "can");
	/* Ours on mainline's core, each with a chance, in table order. */
	for (i = 0; i < FZ_ARRAY_SIZE(ours); i++)
		if (fz_chance(d, 2))
			mixed_finit(c, fz_module_open(ours[i]), ours[i]);
	if (fz_chance(d, 2))
		mixed_load_mainline(c, "can-raw");
	mixed_add_vcan(c, "vcan0");
	mixed_send(c, d);
	/* Back to ours now and then; module_unload and module_load do the rest. */
	if (fz_chance(d, 2)) {
		mixed_unload_core(c);
		mixed_finit(c, fz_module_open("can.ko"), "can.ko");
	}
	fz_traffic_hold(false);
	return 0;
}

/* The tree: can_fuzz is TREE/build/fuzz/can_fuzz. */
static bool mixed_tree(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	int up;

	if (n <= 0)
		return false;
	buf[n] = 0;
	for (up = 0; up < 3; up++) {
		char *slash = strrchr(buf, '/');

		if (!slash)
			return false;
		*slash = 0;
	}
	return true;
}

/* Run @argv with its output discarded; kill it after 30 s. */
static long mixed_run(struct fz_ctx *c, char *const argv[])
{
	pid_t pid = fork();
	int st = 0, i;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		if (!c->trace) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	for (i = 0; i < 300 && waitpid(pid, &st, WNOHANG) != pid; i++)
		usleep(100000);
	if (i == 300) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -EINTR;
}

static long mixed_install(struct fz_ctx *c, struct fz_draw *d)
{
	static const char *const actions[] = { "install", "install", "check", "uninstall" };
	static const char *const mods[] = {
		"net/can/can.ko", "net/can/raw/can-raw.ko", "net/can/bcm/can-bcm.ko",
		"net/can/isotp/can-isotp.ko", "net/can/gw/can-gw.ko",
		"drivers/net/can/vcan.ko", "drivers/net/can/dev/can-dev.ko",
		"net/can/no-such.ko",
	};
	char tree[PATH_MAX], script[PATH_MAX + 32], dest[64];
	const char *action = actions[fz_below(d, FZ_ARRAY_SIZE(actions))];
	char *argv[24];
	struct utsname u;
	int n = 0;
	size_t i;

	/* A second or two of shell each time: a rare op, whatever its weight. */
	if ((c->avoid & FZ_AVOID_MIXED_STACK) || !fz_chance(d, 16) ||
	    !mixed_tree(tree, sizeof(tree)))
		return 0;
	uname(&u);
	snprintf(script, sizeof(script), "%s/scripts/can-install.sh", tree);
	snprintf(dest, sizeof(dest), "/tmp/can_fuzz_stage/%d", c->worker);
	argv[n++] = "/bin/bash";
	argv[n++] = script;
	argv[n++] = "--kver";
	argv[n++] = u.release;
	argv[n++] = "--destdir";
	argv[n++] = dest;
	if (fz_chance(d, 2))
		argv[n++] = "--force";
	argv[n++] = (char *)action;
	for (i = 0; i < FZ_ARRAY_SIZE(mods); i++)
		if (fz_chance(d, 2))
			argv[n++] = (char *)mods[i];
	argv[n] = NULL;
	fz_trace(c, "%s %s --destdir %s (%d modules)", script, action, dest, n - 8);
	return fz_ret(c, "can-install.sh", mixed_run(c, argv));
}

static const struct fz_op mixed_ops[] = {
	{ "mixed_core", mixed_core, 1 },
	{ "mixed_install", mixed_install, 1 },
	{}
};

FZ_REGISTER(mixed_ops)
