// SPDX-License-Identifier: GPL-2.0
/*
 * Module unload and reload (can_raw, can_bcm, vcan, can) while the other
 * workers use them. Unloading fails while a module is in use, which is
 * the common case; it succeeds in the gaps, and socket() loads the
 * protocols again on demand.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

static const char *const fz_mods[] = { "can_raw", "can_bcm", "vcan", "can" };

static long module_unload(struct fz_ctx *c, struct fz_draw *d)
{
	const char *m = fz_mods[fz_below(d, FZ_ARRAY_SIZE(fz_mods))];

	fz_trace(c, "delete_module %s", m);
	return fz_ret(c, "delete_module", syscall(SYS_delete_module, m, O_NONBLOCK));
}

static long module_load(struct fz_ctx *c, struct fz_draw *d)
{
	const char *m = fz_mods[fz_below(d, FZ_ARRAY_SIZE(fz_mods))];
	pid_t pid;
	int st;

	fz_trace(c, "modprobe %s", m);
	pid = fork();
	if (pid < 0)
		return fz_ret(c, "fork", -1);
	if (pid == 0) {
		execlp("modprobe", "modprobe", "-q", m, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return fz_ret(c, "modprobe", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static const struct fz_op module_ops[] = {
	{ "module_unload", module_unload, 1 },
	{ "module_load", module_load, 1 },
	{}
};

FZ_REGISTER(module_ops)
