// SPDX-License-Identifier: GPL-2.0
/*
 * Module unload and reload (can_raw, can_bcm, can_isotp, vcan, can_vbus,
 * can, vxcan, can_gw, and mainline's can_j1939 on our core)
 * while the other workers use them. Unloading fails while a module is in
 * use, which is the common case; it succeeds in the gaps. The kernel's
 * own module requests fail while fuzzing (guest.sh), so only module_load
 * brings a module back.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fuzz.h"

static const char *const fz_mods[] = {
	"can_raw", "can_bcm", "can_isotp", "vcan", "can_vbus", "can", "can_j1939",
	"vxcan", "can_gw",
};

static const char *const fz_files[] = {
	"can-raw.ko", "can-bcm.ko", "can-isotp.ko", "vcan.ko", "can-vbus.ko", "can.ko",
	"can-j1939.ko", "vxcan.ko", "can-gw.ko",
};

static long module_unload(struct fz_ctx *c, struct fz_draw *d)
{
	const char *m = fz_mods[fz_below(d, FZ_ARRAY_SIZE(fz_mods))];

	fz_trace(c, "delete_module %s", m);
	return fz_ret(c, "delete_module", syscall(SYS_delete_module, m, O_NONBLOCK));
}

/*
 * Our module @file (updates/ on Debian's kernel, the tree on the debug
 * kernel; can-j1939 from $CAN_FUZZ_J1939), open for finit_module():
 * exec'ing modprobe takes a second in the VM. -1 if there is none.
 */
int fz_module_open(const char *file)
{
	static const char *const dirs[] = {
		"updates", "kernel/net/can", "kernel/net/can/raw", "kernel/net/can/bcm",
		"kernel/net/can/isotp",
		"kernel/net/can/gw",
		"kernel/drivers/net/can", "kernel/drivers/net/can/dev",
		"kernel/drivers/net/can/vbus",
	};
	struct utsname u;
	char path[256];
	size_t i;
	int fd = -1;

	/* Not among the kernel's modules: guest.sh says where it is. */
	if (!strcmp(file, "can-j1939.ko"))
		return getenv("CAN_FUZZ_J1939") ?
		       open(getenv("CAN_FUZZ_J1939"), O_RDONLY | O_CLOEXEC) : -1;
	uname(&u);
	for (i = 0; i < FZ_ARRAY_SIZE(dirs) && fd < 0; i++) {
		snprintf(path, sizeof(path), "/lib/modules/%s/%s/%s", u.release, dirs[i], file);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return fd;
}

/* Dependencies are not loaded first; without them the load fails. */
static long module_load(struct fz_ctx *c, struct fz_draw *d)
{
	const char *f = fz_files[fz_below(d, FZ_ARRAY_SIZE(fz_files))];
	int fd = fz_module_open(f);
	long ret;

	fz_trace(c, "finit_module %s", f);
	ret = fz_ret(c, "finit_module", syscall(SYS_finit_module, fd, "", 0));
	if (fd >= 0)
		close(fd);
	return ret;
}

static const struct fz_op module_ops[] = {
	{ "module_unload", module_unload, 1 },
	{ "module_load", module_load, 1 },
	{}
};

FZ_REGISTER(module_ops)
