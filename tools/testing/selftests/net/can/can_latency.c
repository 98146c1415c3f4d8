// SPDX-License-Identifier: GPL-2.0
/*
 * Latency under load, for "make bench" (not a test): the time from a
 * sender's write() of a frame to the moment the receiving thread returns
 * from read() with it, while other processes flood the same interface
 * with frames the receiver does not want.
 *
 *   can_latency IFNAME SAMPLES FLOODERS
 *
 * prints "lat_p50 FLOODERS NS", "lat_p99 FLOODERS NS", "lat_max
 * FLOODERS NS" and "lat_lost FLOODERS COUNT" (probes that never came).
 * The sender writes one probe per millisecond and puts the
 * CLOCK_MONOTONIC time just before its write() in the frame's data; the
 * receiver, one priority above the sender (SCHED_FIFO when allowed),
 * subtracts it from the time read() returned. Each flooder is a process
 * of normal priority that writes as fast as the device takes frames. On
 * a PREEMPT_RT kernel this is the delay an application with real-time
 * priority sees while a logger or a bulk transfer shares the bus.
 */

#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/raw.h>

#define PROBE_ID	0x100
#define FLOOD_ID	0x200
#define PROBE_GAP_NS	1000000LL
/* The first probes meet cold caches and a flood that is still starting. */
#define WARMUP		20

static int ifindex;
static long long *latency;
static int samples;
/* Probes the receiver got, and whether the sender has written them all. */
static int received;
static int sender_done;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A raw socket on the interface that receives only @id (none if 0). */
static int raw_socket(canid_t id)
{
	struct sockaddr_can addr = { .can_family = AF_CAN };
	struct can_filter f = { .can_id = id, .can_mask = CAN_SFF_MASK | CAN_EFF_FLAG };
	int s;

	s = socket(PF_CAN, SOCK_RAW, CAN_RAW);
	if (s < 0)
		die("socket");
	if (setsockopt(s, SOL_CAN_RAW, CAN_RAW_FILTER, &f, id ? sizeof(f) : 0))
		die("CAN_RAW_FILTER");
	addr.can_ifindex = ifindex;
	if (bind(s, (struct sockaddr *)&addr, sizeof(addr)))
		die("bind");
	return s;
}

/* Real-time priority where the kernel lets us; normal priority otherwise
 * (the figures then say what a normal process sees).
 */
static void set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}

static void flood(void)
{
	struct can_frame cf = { .can_id = FLOOD_ID, .len = 8 };
	int s = raw_socket(0);

	for (;;) {
		if (write(s, &cf, sizeof(cf)) < 0 && errno != ENOBUFS)
			die("flooder's write");
		cf.data[0]++;
	}
}

/* A probe the flood pushed out of a full backlog never comes: the read
 * times out, and once the sender is done the missing ones are counted.
 */
static void *receive(void *arg)
{
	struct timeval tv = { .tv_usec = 200000 };
	int s = *(int *)arg;
	struct can_frame cf;
	long long sent;

	set_fifo(51);
	if (setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		die("SO_RCVTIMEO");
	while (received < samples) {
		if (read(s, &cf, sizeof(cf)) != sizeof(cf)) {
			if (errno != EAGAIN)
				die("read");
			if (__atomic_load_n(&sender_done, __ATOMIC_ACQUIRE))
				break;
			continue;
		}
		memcpy(&sent, cf.data, sizeof(sent));
		latency[received++] = now_ns() - sent;
	}
	return NULL;
}

static void send_probes(int s)
{
	struct can_frame cf = { .can_id = PROBE_ID, .len = 8 };
	struct timespec next;
	long long t;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < samples; i++) {
		next.tv_nsec += PROBE_GAP_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		t = now_ns();
		memcpy(cf.data, &t, sizeof(t));
		/* A full queue delays the probe: that is part of its latency. */
		while (write(s, &cf, sizeof(cf)) < 0) {
			if (errno != ENOBUFS)
				die("probe write");
			sched_yield();
		}
	}
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int tx, rx, flooders, i, n;
	pthread_t thread;
	pid_t *pids;

	if (argc != 4) {
		fprintf(stderr, "usage: %s IFNAME SAMPLES FLOODERS\n", argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	samples = atoi(argv[2]);
	flooders = atoi(argv[3]);
	if (!ifindex || samples <= WARMUP || flooders < 0 || flooders > 64) {
		fprintf(stderr, "can_latency: bad interface, SAMPLES or FLOODERS\n");
		return 2;
	}
	latency = calloc(samples, sizeof(*latency));
	pids = calloc(flooders + 1, sizeof(*pids));
	if (!latency || !pids)
		die("calloc");

	rx = raw_socket(PROBE_ID);
	tx = raw_socket(0);
	for (i = 0; i < flooders; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (!pids[i])
			flood();
	}
	if (pthread_create(&thread, NULL, receive, &rx))
		die("pthread_create");
	set_fifo(50);
	send_probes(tx);
	__atomic_store_n(&sender_done, 1, __ATOMIC_RELEASE);
	pthread_join(thread, NULL);
	for (i = 0; i < flooders; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}

	printf("lat_lost %d %d\n", flooders, samples - received);
	n = received - WARMUP;
	if (n <= 0)
		return 1;
	qsort(latency + WARMUP, n, sizeof(*latency), cmp_ll);
	printf("lat_p50 %d %lld\n", flooders, latency[WARMUP + n / 2]);
	printf("lat_p99 %d %lld\n", flooders, latency[WARMUP + (int)((long long)n * 99 / 100)]);
	printf("lat_max %d %lld\n", flooders, latency[WARMUP + n - 1]);
	return 0;
}
