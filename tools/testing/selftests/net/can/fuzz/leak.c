// SPDX-License-Identifier: GPL-2.0
/*
 * The infoleak detector. The guest boots with slub_debug=P and
 * init_on_alloc=0 (fuzz.sh), so a fresh slab object holds SLUB's free
 * poison (0x6b, the last byte 0xa5) until someone writes it; the fuzzer
 * never sends that byte (fz_u64() maps it away). A run of poison bytes
 * in what a socket call hands back therefore came from memory no frame
 * and no option ever filled: kernel memory that leaked. KASAN cannot
 * see such a read when it stays inside the object.
 *
 * One poison byte alone is no proof: lengths, timestamps, counters and
 * frames the kernel builds (an ISO-TP first frame announcing 107 bytes)
 * may hold 0x6b. FZ_POISON_RUN of them in a row is the report.
 */

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"

static int leaks;

int fz_leak_count(void)
{
	return __atomic_load_n(&leaks, __ATOMIC_RELAXED);
}

long fz_poison_find(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i, run = 0;

	for (i = 0; i < len; i++) {
		run = p[i] == FZ_POISON ? run + 1 : 0;
		if (run == FZ_POISON_RUN)
			return (long)(i + 1 - run);
	}
	return -1;
}

/* The report line: what, where, how many, and the bytes from just before it. */
static void leak_report(const char *what, const unsigned char *p, size_t len,
			size_t at)
{
	size_t i, from = at > 8 ? at - 8 : 0, count = 0;
	char line[512];
	int used, fd;

	for (i = at; i < len; i++)
		count += p[i] == FZ_POISON;
	used = snprintf(line, sizeof(line),
			"can_fuzz: infoleak: %s: %zu bytes, poison from offset %zu (%zu poison bytes from there):",
			what, len, at, count);
	for (i = from; i < len && i < from + 32 && used < (int)sizeof(line) - 5; i++)
		used += snprintf(line + used, sizeof(line) - used, " %02x", p[i]);
	snprintf(line + used, sizeof(line) - used, "\n");
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		/* Nothing to do if the log refuses it: the trace has it too. */
		(void)!write(fd, line, strlen(line));
		close(fd);
	}
	printf("    %s", line);
	fflush(stdout);
}

/* All of it, for --trace: where the poison ends and what follows. */
static void leak_dump(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		printf("%s%02x%s", i % 16 ? " " : "      ", p[i],
		       i % 16 == 15 || i + 1 == len ? "\n" : "");
}

bool fz_leak_check(struct fz_ctx *c, const char *what, const void *buf, size_t len)
{
	long at = fz_poison_find(buf, len);

	if (at < 0)
		return false;
	__atomic_add_fetch(&leaks, 1, __ATOMIC_RELAXED);
	leak_report(what, buf, len, (size_t)at);
	if (c->trace)
		leak_dump(buf, len);
	/*
	 * The supervisor takes the workers that are still in their op when
	 * a report comes as the ones that caused it: stay here to be one.
	 */
	while (c->hold_on_leak)
		pause();
	return true;
}

void fz_leak_check_msg(struct fz_ctx *c, const char *what, const struct msghdr *msg,
		       size_t name_room, long ret)
{
	char field[128];
	size_t left, n, i;

	if (ret < 0)
		return;
	/* MSG_TRUNC returns the whole length: only what was copied counts. */
	left = (size_t)ret;
	for (i = 0; i < msg->msg_iovlen && left; i++) {
		n = msg->msg_iov[i].iov_len < left ? msg->msg_iov[i].iov_len : left;
		snprintf(field, sizeof(field), "%s data", what);
		fz_leak_check(c, field, msg->msg_iov[i].iov_base, n);
		left -= n;
	}
	if (msg->msg_name) {
		snprintf(field, sizeof(field), "%s msg_name", what);
		/* msg_namelen says how long the address was, not what was copied. */
		fz_leak_check(c, field, msg->msg_name, msg->msg_namelen < name_room ?
			      msg->msg_namelen : name_room);
	}
	if (msg->msg_control) {
		snprintf(field, sizeof(field), "%s msg_control", what);
		fz_leak_check(c, field, msg->msg_control, msg->msg_controllen);
	}
}
