// SPDX-License-Identifier: GPL-2.0
/*
 * Worker processes: each runs --threads threads that share its table of
 * descriptors, so that one thread closes or reconfigures a socket that
 * another is using. Thread t of process p is worker w = p * threads + t
 * and draws its ops from a generator seeded with seed + w: its sequence
 * of ops is the same in every run of a seed (with --no-cov; coverage
 * guidance draws from the corpus, which depends on what the kernel
 * reported), though the interleaving of workers is not.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

struct fz_thread {
	const struct fz_opts *o;
	struct fz_shared *sh;
	struct fz_fds *fds;
	int worker;
	int gen;
};

/* Next op: fresh, or (with coverage) a corpus entry with one value changed. */
static void next_op(struct fz_draw *g, bool guided, struct fz_rec *r)
{
	memset(r, 0, sizeof(*r));
	if (guided && fz_corpus_size() && fz_chance(g, 2)) {
		__u64 r1 = fz_u64(g), r2 = fz_u64(g);

		if (fz_corpus_pick(r1, r2, r)) {
			r->mut_idx = fz_chance(g, 4) ? 0 : 1 + fz_below(g, 16);
			r->mut_val = fz_chance(g, 2) ? (__u64)fz_int(g) : fz_u64(g);
			return;
		}
	}
	r->op = fz_op_pick(fz_u64(g));
	r->seed = fz_u64(g);
}

static void *worker_thread(void *arg)
{
	struct fz_thread *t = arg;
	struct fz_shared *sh = t->sh;
	struct fz_draw g = {
		.seed = fz_mix(t->o->seed + t->worker + ((__u64)t->gen << 32)),
	};
	struct fz_ctx c = {
		.worker = t->worker, .fds = t->fds, .avoid = t->o->avoid,
		.hold_on_leak = true,
	};
	bool guided = t->o->cov && fz_cov_open() == 0;
	__u64 pos = sh->ring_pos[t->worker];
	struct timespec t0, t1;
	struct fz_rec r, *slot;

	c.home_netns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		next_op(&g, guided, &r);
		r.worker = t->worker;
		r.gseq = __atomic_add_fetch(&sh->gseq, 1, __ATOMIC_RELAXED);
		slot = &sh->ring[t->worker][pos % FZ_RING];
		/* The record is complete before the op runs. */
		slot->gseq = 0;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		slot->seed = r.seed;
		slot->mut_idx = r.mut_idx;
		slot->mut_val = r.mut_val;
		slot->op = r.op;
		slot->worker = r.worker;
		slot->done = 0;
		__atomic_store_n(&slot->gseq, r.gseq, __ATOMIC_RELEASE);
		__atomic_store_n(&sh->ring_pos[t->worker], ++pos, __ATOMIC_RELEASE);
		__atomic_store_n(&sh->heartbeat[t->worker], r.gseq, __ATOMIC_RELEASE);

		clock_gettime(CLOCK_MONOTONIC, &t0);
		fz_cov_start();
		fz_op_exec(&c, &r);
		if (fz_cov_stop())
			fz_corpus_add(&r);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		__atomic_add_fetch(&sh->op_ns[r.op], (t1.tv_sec - t0.tv_sec) * 1000000000ULL +
				   t1.tv_nsec - t0.tv_nsec, __ATOMIC_RELAXED);
		__atomic_add_fetch(&sh->op_n[r.op], 1, __ATOMIC_RELAXED);
		__atomic_store_n(&slot->done, 1, __ATOMIC_RELEASE);
		__atomic_add_fetch(&sh->execs, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

void fz_worker_main(const struct fz_opts *o, struct fz_shared *sh, int proc, int gen)
{
	struct fz_thread t[16];
	pthread_t tid[16];
	struct fz_fds *fds = calloc(1, sizeof(*fds));
	int i, n = o->threads > 16 ? 16 : o->threads;
	int null = open("/dev/null", O_RDWR);

	/* Ops write to random descriptors: keep the console out of reach. */
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	close(null);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_IGN);
	if (o->traffic)
		fz_traffic_start(o->seed + proc);
	for (i = 0; i < n; i++) {
		t[i] = (struct fz_thread){
			.o = o, .sh = sh, .fds = fds, .worker = proc * n + i, .gen = gen,
		};
		pthread_create(&tid[i], NULL, worker_thread, &t[i]);
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	_exit(0);
}
