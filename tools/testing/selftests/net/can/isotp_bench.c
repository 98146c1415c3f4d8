// SPDX-License-Identifier: GPL-2.0
/*
 * CAN_ISOTP benchmark for bench.sh (not a test): on vcan interface ARGV[1],
 *  - the time one maximum-size message (66000 bytes) takes from send() to
 *    the receiver's recv(), with STmin 0, block size 0 and no frame gap,
 *    as bytes per second and virtual ns per consecutive frame, classic
 *    and CAN FD (tx_dl 64);
 *  - how exactly the sender keeps the separation time: the gaps between
 *    consecutive frames as the kernel stamped them on arrival, against a
 *    peer asking for STmin 1 ms, and 100 us with the default 50 us frame
 *    gap on top.
 * Prints "name value" lines.
 */

#include <math.h>
#include <stdint.h>

#include "lib/can_test_isotp.h"

#define ROUNDS 3
#define GAP_FRAMES 200

static int open_pair(int ifindex, bool fd, __u32 frame_txtime, int *a, int *b)
{
	struct it_opts o = { .set_opts = true };

	o.opt.frame_txtime = frame_txtime;
	if (fd) {
		o.set_ll = true;
		o.ll = (struct can_isotp_ll_options){ CANFD_MTU, 64, 0 };
	}
	*a = it_open(ifindex, IT_RX_ID, IT_TX_ID, &o);
	*b = it_open(ifindex, IT_TX_ID, IT_RX_ID, &o);
	return *a < 0 || *b < 0 ? -1 : 0;
}

/* Best of ROUNDS: ns for one maximum-size message end to end. */
static long long max_msg_ns(int ifindex, bool fd)
{
	static unsigned char tx[IT_MAX_MSG], rx[IT_MAX_MSG];
	long long best = -1, t0, t;
	int a, b, i;

	if (open_pair(ifindex, fd, CAN_ISOTP_FRAME_TXTIME_ZERO, &a, &b))
		return -1;
	it_fill(tx, sizeof(tx), 3);
	for (i = 0; i < ROUNDS; i++) {
		t0 = ct_now_ns(CLOCK_MONOTONIC);
		if (it_send(a, tx, sizeof(tx)) ||
		    it_recv(b, rx, sizeof(rx), 60000) != sizeof(tx))
			return -1;
		t = ct_now_ns(CLOCK_MONOTONIC) - t0;
		if (memcmp(tx, rx, sizeof(tx)))
			return -1;
		if (best < 0 || t < best)
			best = t;
	}
	close(a);
	close(b);
	return best;
}

static void report_throughput(int ifindex, bool fd)
{
	const char *tag = fd ? "isotp_fd" : "isotp";
	int per_cf = fd ? 63 : 7, first = fd ? 62 : 6;
	long long ns = max_msg_ns(ifindex, fd);
	long cfs = (IT_MAX_MSG - first + per_cf - 1) / per_cf;

	if (ns <= 0) {
		printf("%s.failed 1\n", tag);
		return;
	}
	printf("%s.max_msg_us %.1f\n", tag, ns / 1000.0);
	printf("%s.bytes_per_s %.0f\n", tag, IT_MAX_MSG * 1e9 / ns);
	printf("%s.cf_cost_ns %.0f\n", tag, (double)ns / cfs);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* Gaps between consecutive frames sent to a peer asking for @stmin. */
static void report_gap(int ifindex, const char *tag, __u8 stmin,
		       __u32 frame_txtime, long long want_ns)
{
	static unsigned char tx[6 + GAP_FRAMES * 7];
	long long dev[GAP_FRAMES], last = -1, t, sum = 0, ssq = 0;
	struct it_opts o = { .set_opts = true };
	int s, raw, n = 0, i;
	double mean;

	o.opt.frame_txtime = frame_txtime;
	s = it_open(ifindex, IT_RX_ID, IT_TX_ID, &o);
	raw = it_raw_open_stamped(ifindex, IT_TX_ID);
	if (s < 0 || raw < 0)
		goto fail;
	if (it_send(s, tx, sizeof(tx)) || it_recv_stamped(raw, 1000) < 0 ||
	    it_raw_send_fc(raw, IT_RX_ID, 0, 0, stmin))
		goto fail;
	for (i = 0; i < GAP_FRAMES; i++) {
		t = it_recv_stamped(raw, 2000);
		if (t < 0)
			goto fail;
		if (last >= 0) {
			dev[n] = t - last - want_ns;
			sum += t - last;
			ssq += dev[n] * dev[n] / 1000;
			n++;
		}
		last = t;
	}
	mean = (double)sum / n;
	for (i = 0; i < n; i++)
		dev[i] = llabs(dev[i]);
	qsort(dev, n, sizeof(dev[0]), cmp_ll);
	printf("%s.period_us %.0f\n", tag, want_ns / 1000.0);
	printf("%s.mean_gap_us %.3f\n", tag, mean / 1000.0);
	printf("%s.abs_dev_p50_us %.3f\n", tag, dev[n / 2] / 1000.0);
	printf("%s.abs_dev_p99_us %.3f\n", tag, dev[n * 99 / 100] / 1000.0);
	printf("%s.abs_dev_max_us %.3f\n", tag, dev[n - 1] / 1000.0);
	printf("%s.stddev_us %.3f\n", tag, sqrt((double)ssq * 1000 / n) / 1000.0);
	close(s);
	close(raw);
	return;
fail:
	printf("%s.failed 1\n", tag);
}

int main(int argc, char **argv)
{
	int ifindex;

	if (argc < 2) {
		fprintf(stderr, "usage: %s VCAN\n", argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex)
		return 2;
	report_throughput(ifindex, false);
	report_throughput(ifindex, true);
	report_gap(ifindex, "isotp_gap1ms", 0x01, CAN_ISOTP_FRAME_TXTIME_ZERO,
		   1000000);
	report_gap(ifindex, "isotp_gap150us", 0xF1,
		   CAN_ISOTP_DEFAULT_FRAME_TXTIME, 150000);
	return 0;
}
