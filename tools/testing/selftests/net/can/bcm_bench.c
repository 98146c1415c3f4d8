// SPDX-License-Identifier: GPL-2.0
/*
 * Broadcast manager benchmark (not a test): the jitter of a cyclic
 * transmission as receive timestamps on the bus show it, and what 1000
 * concurrent receive filters cost to set up, per received frame and to
 * tear down, and in a steady state fed by as many cyclic transmissions.
 * Runs on a vcan it creates; prints one "key value" per line.
 *
 *   bcm_bench [-p PERIOD_US] [-t SECONDS] [-n OPS] [-r ROUNDS]
 */

#include <math.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "lib/can_test_bcm.h"

struct cpu_sample {
	unsigned long long busy;	/* jiffies not idle, all CPUs */
	unsigned long long total;
	long long wall_ns;
};

static void cpu_sample(struct cpu_sample *c)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int i;

	if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
			 &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			 &v[7]) != 8)
		memset(v, 0, sizeof(v));
	if (f)
		fclose(f);
	c->total = 0;
	for (i = 0; i < 8; i++)
		c->total += v[i];
	c->busy = c->total - v[3] - v[4];
	c->wall_ns = now_ns();
}

/* CPU time used between two samples, in ns, from USER_HZ ticks. */
static double cpu_used_ns(const struct cpu_sample *a, const struct cpu_sample *b)
{
	return (double)(b->busy - a->busy) * 1e9 / sysconf(_SC_CLK_TCK);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static int bench_jitter(int ifindex, long period_us, int seconds)
{
	int n_max = seconds * (1000000 / period_us) + 16;
	long long *t = calloc(n_max, sizeof(*t));
	long long *dev = calloc(n_max, sizeof(*dev));
	double sum = 0, sq = 0, mean, sd;
	struct canfd_frame cf;
	struct timespec ts;
	int s, raw, n = 0, i;

	s = bcm_socket(ifindex);
	raw = raw_socket(ifindex);
	if (!t || !dev || s < 0 || raw < 0)
		return -1;
	if (bcm_tx_cyclic(s, 0x42, period_us, 8, 0xaa) < 0)
		return -1;
	while (n < n_max && raw_read(raw, &cf, 1000, &ts) > 0) {
		t[n++] = ts_ns(&ts);
		if (t[n - 1] - t[0] >= seconds * 1000000000LL)
			break;
	}
	close(s);
	close(raw);
	if (n < 3)
		return -1;

	for (i = 1; i < n; i++) {
		long long gap = t[i] - t[i - 1];

		dev[i - 1] = llabs(gap - period_us * 1000LL);
		sum += gap;
		sq += (double)gap * gap;
	}
	mean = sum / (n - 1);
	sd = sqrt(sq / (n - 1) - mean * mean);
	qsort(dev, n - 1, sizeof(*dev), cmp_ll);

	printf("jitter.period_us %ld\n", period_us);
	printf("jitter.frames %d\n", n);
	printf("jitter.mean_gap_us %.3f\n", mean / 1000);
	printf("jitter.stddev_us %.3f\n", sd / 1000);
	printf("jitter.abs_dev_p50_us %.3f\n", dev[(n - 1) / 2] / 1000.0);
	printf("jitter.abs_dev_p99_us %.3f\n", dev[(n - 1) * 99 / 100] / 1000.0);
	printf("jitter.abs_dev_max_us %.3f\n", dev[n - 2] / 1000.0);
	/* How far the mean period is off, either way. */
	printf("jitter.abs_drift_ppm %.1f\n",
	       fabs((double)(t[n - 1] - t[0]) / (n - 1) / (period_us * 1000.0) - 1) * 1e6);
	free(t);
	free(dev);
	return 0;
}

/* 1000 filters, one per identifier, each watching byte 1. */
static int setup_filters(int s, int ops)
{
	struct bcm_msg m;
	int i;

	for (i = 0; i < ops; i++) {
		bcm_head(&m, RX_SETUP, SETTIMER | STARTTIMER, 0x100 + i, 1);
		m.head.ival1 = bcm_us(10000000);
		memset(&m.cc[0], 0, sizeof(m.cc[0]));
		m.cc[0].data[1] = 0xff;
		if (bcm_write(s, &m) <= 0)
			return -1;
	}
	return 0;
}

/*
 * Send @rounds frames to each of @ops identifiers; byte 1 changes every
 * tenth round, so one frame in ten is a change worth reporting.
 */
static long send_rounds(int raw, int s, int ops, int rounds, long *reports)
{
	char buf[sizeof(struct bcm_msg)];
	__u8 data[8] = { 0 };
	long sent = 0;
	int r, i;

	for (r = 0; r < rounds; r++) {
		data[0] = r;
		data[1] = r / 10;
		for (i = 0; i < ops; i++) {
			if (raw_send(raw, 0x100 + i, data, 8, false))
				usleep(100);	/* queue full: let it drain */
			else
				sent++;
		}
		while (s >= 0 && wait_readable(s, 0) > 0 &&
		       read(s, buf, sizeof(buf)) > 0)
			(*reports)++;
	}
	usleep(100000);
	while (s >= 0 && wait_readable(s, 0) > 0 && read(s, buf, sizeof(buf)) > 0)
		(*reports)++;
	return sent;
}

/* CPU per frame with and without @ops filters listening. */
static int bench_filters(int ifindex, int ops, int rounds)
{
	struct cpu_sample a, b, c, d, e;
	long reports = 0, base_sent, sent;
	int s, raw, big = 4 << 20;

	s = bcm_socket(ifindex);
	raw = raw_socket(ifindex);
	if (s < 0 || raw < 0)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));

	cpu_sample(&a);
	base_sent = send_rounds(raw, -1, ops, rounds, &reports);
	cpu_sample(&b);
	if (setup_filters(s, ops))
		return -1;
	cpu_sample(&c);
	sent = send_rounds(raw, s, ops, rounds, &reports);
	cpu_sample(&d);
	close(s);
	cpu_sample(&e);
	close(raw);

	printf("filters.ops %d\n", ops);
	printf("filters.setup_total_ms %.3f\n", (c.wall_ns - b.wall_ns) / 1e6);
	printf("filters.setup_per_op_us %.3f\n",
	       (c.wall_ns - b.wall_ns) / 1e3 / ops);
	printf("filters.frames %ld\n", sent);
	printf("filters.rx_changed %ld\n", reports);
	printf("filters.cpu_per_frame_no_filters_ns %.0f\n",
	       cpu_used_ns(&a, &b) / base_sent);
	printf("filters.cpu_per_frame_with_filters_ns %.0f\n",
	       cpu_used_ns(&c, &d) / sent);
	printf("filters.wall_per_frame_no_filters_ns %.0f\n",
	       (double)(b.wall_ns - a.wall_ns) / base_sent);
	printf("filters.wall_per_frame_with_filters_ns %.0f\n",
	       (double)(d.wall_ns - c.wall_ns) / sent);
	printf("filters.close_ms %.3f\n", (e.wall_ns - d.wall_ns) / 1e6);
	return 0;
}

/*
 * CPU time left over for the rest of the system: iterations of a spinner
 * at the lowest priority (SCHED_IDLE) in @seconds. Work done in softirq
 * and by normal tasks takes its time away, whatever the tick accounting
 * of /proc/stat makes of short bursts.
 */
static double spin_iterations(int seconds)
{
	struct sched_param sp = { 0 };
	unsigned long n = 0;
	double result = 0;
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		return 0;
	pid = fork();
	if (pid == 0) {
		long long end = now_ns() + seconds * 1000000000LL;

		sched_setscheduler(0, SCHED_IDLE, &sp);
		while (now_ns() < end)
			n++;
		result = n;
		if (write(fd[1], &result, sizeof(result)) != sizeof(result))
			_exit(1);
		_exit(0);
	}
	if (pid < 0 || read(fd[0], &result, sizeof(result)) != sizeof(result))
		result = 0;
	waitpid(pid, NULL, 0);
	close(fd[0]);
	close(fd[1]);
	return result;
}

/* Frames a raw socket sees on the interface in one second. */
static long bus_rate(int ifindex)
{
	long long end = now_ns() + 1000000000LL;
	struct canfd_frame cf;
	int raw = raw_socket(ifindex);
	long n = 0;

	while (raw >= 0 && now_ns() < end)
		if (raw_read(raw, &cf, 100, NULL) > 0)
			n++;
	close(raw);
	return n;
}

static double used_pct(double idle_rate, double rate)
{
	return idle_rate > 0 ? 100.0 * (1 - rate / idle_rate) : 0;
}

static long drain_count(int s)
{
	char buf[sizeof(struct bcm_msg)];
	long n = 0;

	while (wait_readable(s, 0) > 0 && read(s, buf, sizeof(buf)) > 0)
		n++;
	return n;
}

/*
 * Steady state without user space in the loop: @ops cyclic transmissions
 * at 100 ms feed @ops filters whose content never changes, so the kernel
 * does all the work and the reader sleeps. The CPU it takes is what a
 * spinner at the lowest priority loses, compared with an idle system and
 * with the transmissions alone.
 */
static int bench_steady(int ifindex, int ops, int seconds)
{
	double idle, tx_only, filters, frames = ops * 10.0 * seconds;
	int tx, rx, i, big = 4 << 20;
	long reports;

	tx = bcm_socket(ifindex);
	rx = bcm_socket(ifindex);
	if (tx < 0 || rx < 0)
		return -1;
	setsockopt(rx, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	idle = spin_iterations(seconds);

	/* Spread the cycles over the period, as independent nodes would be. */
	for (i = 0; i < ops; i++) {
		if (bcm_tx_cyclic(tx, 0x100 + i, 100000, 8, 0) < 0)
			return -1;
		usleep(100000 / ops);
	}
	tx_only = spin_iterations(seconds);
	printf("steady.bus_frames_per_s %ld\n", bus_rate(ifindex));

	if (setup_filters(rx, ops))
		return -1;
	usleep(300000);
	drain_count(rx);	/* each filter reports its first frame */
	filters = spin_iterations(seconds);
	reports = drain_count(rx);
	close(rx);
	close(tx);

	printf("steady.frames_per_s %d\n", ops * 10);
	printf("steady.cpu_pct_tx_only %.2f\n", used_pct(idle, tx_only));
	printf("steady.cpu_pct_tx_and_filters %.2f\n", used_pct(idle, filters));
	printf("steady.tx_cpu_per_frame_ns %.0f\n",
	       used_pct(idle, tx_only) / 100 * seconds * 1e9 / frames);
	printf("steady.filter_cpu_per_frame_ns %.0f\n",
	       (used_pct(idle, filters) - used_pct(idle, tx_only)) / 100 *
	       seconds * 1e9 / frames);
	printf("steady.rx_changed %ld\n", reports);
	return 0;
}

int main(int argc, char **argv)
{
	long period_us = 1000;
	int seconds = 5, ops = 1000, rounds = 50, opt, ifindex, err;
	char ifname[IFNAMSIZ];

	while ((opt = getopt(argc, argv, "p:t:n:r:")) != -1) {
		switch (opt) {
		case 'p':
			period_us = atol(optarg);
			break;
		case 't':
			seconds = atoi(optarg);
			break;
		case 'n':
			ops = atoi(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-p us] [-t s] [-n ops] [-r rounds]\n",
				argv[0]);
			return 2;
		}
	}
	if (period_us <= 0 || seconds <= 0 || ops <= 0 || ops > 0x600)
		return 2;

	ifindex = vcan_create(ifname, 0);
	if (ifindex <= 0) {
		fprintf(stderr, "bcm_bench: cannot create a vcan\n");
		return 1;
	}
	err = bench_jitter(ifindex, period_us, seconds);
	if (!err)
		err = bench_filters(ifindex, ops, rounds);
	if (!err)
		err = bench_steady(ifindex, ops, seconds);
	vcan_destroy(ifname);
	if (err)
		fprintf(stderr, "bcm_bench: failed\n");
	return err ? 1 : 0;
}
