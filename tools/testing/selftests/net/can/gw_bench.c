// SPDX-License-Identifier: GPL-2.0
/*
 * CAN gateway benchmark: the cost per frame of sending on a vcan that a
 * gateway job routes to a second vcan, while N other jobs on the same
 * source have filters that miss the frame. Not a test. Meant for the VM
 * under "qemu -icount shift=0" (bench.sh), on mainline's can-gw and ours.
 *
 *   gw_bench SRC DST N [FRAMES]
 *
 * prints "gw N NS_PER_FRAME". The missing jobs use mask filters of three
 * distinct masks, as "cangw -f id:mask" makes them; the matching one has
 * an exact filter and no modification. It exits with 2 if DST did not
 * send every routed frame.
 */

#include <stdio.h>
#include <stdlib.h>

#include "lib/can_test_gw.h"

#define SENT_ID 0x7A5

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static int add_job(int src, int dst, struct can_filter f)
{
	struct gw_nlreq req;

	gw_req_init(&req, RTM_NEWROUTE, 0);
	gw_put_route(&req, src, dst);
	gw_put(&req, CGW_FILTER, &f, sizeof(f));
	return gw_talk(&req);
}

/* A filter with one of three masks that never matches SENT_ID. */
static struct can_filter missing_filter(int i)
{
	static const canid_t masks[] = { 0x7FE, 0x7F0, CAN_EFF_FLAG | 0x1FFFFF00 };
	struct can_filter f = { .can_mask = masks[i % 3] };

	if (f.can_mask & CAN_EFF_FLAG)
		f.can_id = CAN_EFF_FLAG | ((i * 2654435761u) & 0x1FFFFF00);
	else
		f.can_id = (i * 37) & f.can_mask;
	if ((f.can_id & f.can_mask) == (SENT_ID & f.can_mask))
		f.can_id ^= 0x100;
	return f;
}

int main(int argc, char **argv)
{
	struct can_filter match = { SENT_ID, CAN_SFF_MASK | CAN_EFF_FLAG };
	struct can_frame cf = { .can_id = SENT_ID, .len = 8 };
	long frames = 2000, i;
	long long start, sent;
	int src, dst, n, tx;

	if (argc < 4) {
		fprintf(stderr, "usage: %s SRC DST N [FRAMES]\n", argv[0]);
		return 2;
	}
	src = if_nametoindex(argv[1]);
	dst = if_nametoindex(argv[2]);
	n = atoi(argv[3]);
	if (argc > 4)
		frames = atol(argv[4]);
	if (!src || !dst)
		die("if_nametoindex");

	for (i = 0; i < n; i++) {
		errno = -add_job(src, dst, missing_filter(i));
		if (errno)
			die("RTM_NEWROUTE");
	}
	errno = -add_job(src, dst, match);
	if (errno)
		die("RTM_NEWROUTE");
	tx = ct_raw_open(src);
	if (tx < 0)
		die("socket");

	sent = ct_link_stat(argv[2], "tx_packets");
	start = ct_now_ns(CLOCK_MONOTONIC);
	for (i = 0; i < frames; i++) {
		cf.data[0] = i;
		if (write(tx, &cf, sizeof(cf)) != sizeof(cf))
			die("write");
	}
	printf("gw %d %.0f\n", n,
	       (double)(ct_now_ns(CLOCK_MONOTONIC) - start) / frames);
	if (ct_link_stat(argv[2], "tx_packets") - sent != frames) {
		fprintf(stderr, "gw_bench: %lld of %ld frames routed\n",
			ct_link_stat(argv[2], "tx_packets") - sent, frames);
		return 2;
	}
	gw_flush();
	return 0;
}
