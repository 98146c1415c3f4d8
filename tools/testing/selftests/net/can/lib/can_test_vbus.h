/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the C selftests of the virtual CAN bus (can-vbus):
 * shell commands with printf-style arguments, a network namespace of
 * the test's own with the modules loaded and debugfs mounted, nodes
 * added and brought up with ip(8), and numbers read from the bus's
 * debugfs files.
 */

#ifndef _CAN_TEST_VBUS_H
#define _CAN_TEST_VBUS_H

#include <sched.h>
#include <stdarg.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "can_test.h"

#define VBUS_DEBUGFS	"/sys/kernel/debug"

/* Run a shell command built from @fmt; its exit status, -1 if it died. */
static inline int vbus_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/*
 * Load @modules (names separated by blanks, loaded in that order), move
 * into a network namespace of our own and mount debugfs unless can-vbus
 * is already visible there. The debugfs directory of the namespace's
 * bus of group 0 goes to @dir. Returns NULL or what went wrong.
 */
static inline const char *vbus_enter(const char *modules, char *dir,
				     size_t size)
{
	static char why[128];
	const char *p = modules;
	struct stat st;
	int len;

	for (;;) {
		p += strspn(p, " ");
		len = strcspn(p, " ");
		if (!len)
			break;
		if (vbus_sh("modprobe %.*s", len, p)) {
			snprintf(why, sizeof(why), "modprobe %.*s failed", len, p);
			return why;
		}
		p += len;
	}
	if (unshare(CLONE_NEWNET))
		return "unshare(CLONE_NEWNET) failed";
	if (access(VBUS_DEBUGFS "/can_vbus", F_OK) &&
	    mount("none", VBUS_DEBUGFS, "debugfs", 0, NULL))
		return "cannot mount debugfs";
	if (stat("/proc/self/ns/net", &st))
		return "no /proc/self/ns/net";
	snprintf(dir, size, VBUS_DEBUGFS "/can_vbus/net%lu-group0",
		 (unsigned long)st.st_ino);
	return NULL;
}

/*
 * Nodes <prefix><*nodes> .. <prefix><n - 1> at @bitrate with the further
 * ip-link "type can" options @opts (may be ""), each brought up; *@nodes
 * counts the nodes made. 0, or -1 when a command failed.
 */
static inline int vbus_nodes(const char *prefix, int *nodes, int n,
			     unsigned int bitrate, const char *opts)
{
	for (; *nodes < n; (*nodes)++)
		if (vbus_sh("ip link add dev %s%d type can bitrate %u %s && ip link set %s%d up",
			    prefix, *nodes, bitrate, opts, prefix, *nodes))
			return -1;
	return 0;
}

/* The number after "@key " at the start of a line of @path, -1 if none. */
static inline long long vbus_debugfs_val(const char *path, const char *key)
{
	char *text = ct_read_file(path), *p;
	long long val = -1;
	size_t n = strlen(key);

	if (!text)
		return -1;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, n) && p[n] == ' ') {
			val = strtoll(p + n + 1, NULL, 10);
			break;
		}
	}
	free(text);
	return val;
}

/* @key of the stats file of the bus whose debugfs directory is @dir. */
static inline long long vbus_stat(const char *dir, const char *key)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/stats", dir);
	return vbus_debugfs_val(path, key);
}

#endif /* _CAN_TEST_VBUS_H */
