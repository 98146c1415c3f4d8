// SPDX-License-Identifier: GPL-2.0
/*
 * Background traffic: a thread that keeps frames flowing through the
 * receive path of every CAN interface in the fuzzer's first namespace.
 *
 * Most ops only change state (filters, subscriptions, devices); a bug in
 * how that state is published to or retired from the receive path (a
 * receiver freed without waiting for RCU readers, a table torn down while
 * softirq walks it) shows only when a frame is being delivered at that
 * moment on another CPU. The ops' own frames are too rare for that, so
 * this thread sends a steady stream with local loopback on, which makes
 * every send run the whole receive path for the sockets on that device.
 *
 * It is not recorded: a replay starts its own, so a race it exposed has
 * the same chance to show again.
 *
 * It keeps to a quarter of a CPU: after each burst it sleeps three times
 * as long as the burst took (the loopback receive work runs in its own
 * bottom-half enable, so that time counts too). Sending flat out, two
 * such threads on the debug kernel pushed softirq work to ksoftirqd,
 * which also runs RCU callbacks, and starved it: rcu_barrier() callers
 * (every device deletion, namespace cleanup) then waited for tens of
 * seconds with no grace period stalled, a flood the fuzzer would
 * measure instead of the bugs it is after.
 */

#include <stdio.h>
#include <stdlib.h>
#include <net/if.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/raw.h>

#include "fuzz.h"

#define TRAFFIC_MAX_DEVS	32
#define TRAFFIC_BURST		8

struct traffic_devs {
	int ifindex[TRAFFIC_MAX_DEVS];
	int n;
};

static bool is_can_dev(const char *name)
{
	char path[IF_NAMESIZE + 32], buf[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/type", name);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return atoi(buf) == 280;	/* ARPHRD_CAN */
}

/* The CAN interfaces of this netns now: they come and go under the ops. */
static void traffic_scan(struct traffic_devs *t)
{
	struct if_nameindex *ifs = if_nameindex(), *i;

	t->n = 0;
	if (!ifs)
		return;
	for (i = ifs; i->if_index && t->n < TRAFFIC_MAX_DEVS; i++)
		if (is_can_dev(i->if_name))
			t->ifindex[t->n++] = (int)i->if_index;
	if_freenameindex(ifs);
}

static void traffic_send(int fd, int ifindex, struct fz_draw *d)
{
	struct sockaddr_can a = { .can_family = AF_CAN, .can_ifindex = ifindex };
	/* The ids the ops' filters favour, so that some frames match. */
	struct can_frame cf = {
		.can_id = fz_can_id(d) & (CAN_EFF_FLAG | CAN_RTR_FLAG | CAN_EFF_MASK),
	};

	cf.len = (__u8)fz_below(d, CAN_MAX_DLEN + 1);
	fz_fill(d, cf.data, cf.len);
	sendto(fd, &cf, sizeof(cf), MSG_DONTWAIT, (struct sockaddr *)&a, sizeof(a));
}

/*
 * An unbound raw socket sends on any interface and, with no filter,
 * hears nothing. It is reopened at each rescan, so that an op can still
 * unload can_raw in between.
 */
static int traffic_socket(int old)
{
	int fd;

	if (old >= 0)
		close(old);
	fd = socket(PF_CAN, SOCK_RAW | SOCK_CLOEXEC, CAN_RAW);
	if (fd >= 0)
		setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, NULL, 0);
	return fd;
}

static __u64 traffic_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

/* Sleep three times @burst_ns, and at least 200 us. */
static void traffic_pause(__u64 burst_ns)
{
	__u64 ns = 3 * burst_ns;
	struct timespec pause;

	if (ns < 200 * 1000)
		ns = 200 * 1000;
	pause.tv_sec = (time_t)(ns / 1000000000ull);
	pause.tv_nsec = (long)(ns % 1000000000ull);
	nanosleep(&pause, NULL);
}

/* Set while an op needs can_raw unused (ops_mixed.c); per process. */
static int traffic_held;

void fz_traffic_hold(bool hold)
{
	__atomic_store_n(&traffic_held, hold, __ATOMIC_RELAXED);
}

static void *traffic_thread(void *arg)
{
	struct fz_draw d = { .seed = fz_mix((__u64)(unsigned long)arg) };
	struct traffic_devs t = { .n = 0 };
	unsigned int round;
	int fd = -1, i;
	__u64 start;

	for (round = 0;; round++) {
		if (__atomic_load_n(&traffic_held, __ATOMIC_RELAXED)) {
			if (fd >= 0)
				close(fd);
			fd = -1;
			round = 63;
			usleep(1000);
			continue;
		}
		if (round % 64 == 0) {
			traffic_scan(&t);
			fd = traffic_socket(fd);
		}
		start = traffic_now_ns();
		for (i = 0; fd >= 0 && i < t.n * TRAFFIC_BURST; i++)
			traffic_send(fd, t.ifindex[i % t.n], &d);
		traffic_pause(traffic_now_ns() - start);
	}
	return NULL;
}

void fz_traffic_start(__u64 seed)
{
	pthread_attr_t attr;
	pthread_t tid;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_create(&tid, &attr, traffic_thread, (void *)(unsigned long)seed);
	pthread_attr_destroy(&attr);
}
