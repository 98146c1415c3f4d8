// SPDX-License-Identifier: GPL-2.0
/*
 * The supervisor starts the worker processes, watches /dev/kmsg for
 * anything the kernel's checkers print, restarts a worker process that
 * died or stopped making progress, and on a report stops the workers,
 * writes their recorded ops as replay files and shrinks the ops of the
 * worker(s) involved to a small program that still triggers a report
 * (delta debugging, each try a fresh child process in the same boot).
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#define FZ_MAX_PROCS	16
#define REPORT_MAX	16384

/* What the kernel's checkers print first when they fire. */
static const char *const report_patterns[] = {
	"BUG:", "kernel BUG at", "Oops", "general protection fault", "KASAN:",
	"UBSAN:", "WARNING:", "possible recursive locking",
	"possible circular locking", "inconsistent lock state",
	"suspicious RCU usage", "detected stall", "detected stalls",
	"blocked for more than", "kmemleak:", "ODEBUG:", "list_add corruption",
	"list_del corruption", "Kernel panic", "unreferenced object",
	"refcount_t:", "Call Trace:", "Poison overwritten", "Object already free",
	"Redzone overwritten", "Freepointer corrupt",
	/* A reference nobody drops holds unregister_netdevice(), and RTNL. */
	"to become free",
	/* Slab poison handed to user space (leak.c). */
	"can_fuzz: infoleak:",
};

/*
 * Reports the kernel gives once per boot (lockdep turns itself off,
 * UBSAN and WARN_ONCE report a place once, kmemleak and the hang
 * checkers fire late): a replay in the same boot cannot show them
 * again, so they are not minimized.
 */
static const char *const once_patterns[] = {
	"possible recursive", "possible circular", "inconsistent lock",
	"suspicious RCU", "UBSAN:", "stall", "blocked for more than",
	"kmemleak", "unreferenced object", "to become free",
};

static struct fz_shared *sh;
static const struct fz_opts *opts;
static pid_t procs[FZ_MAX_PROCS];
static int gens[FZ_MAX_PROCS];
static int kmsg = -1;
static struct timespec t_start;

static double elapsed(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t_start.tv_sec) + (t.tv_nsec - t_start.tv_nsec) / 1e9;
}

static bool contains_any(const char *msg, const char *const *pat, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strstr(msg, pat[i]))
			return true;
	return false;
}

static bool is_report(const char *msg)
{
	return contains_any(msg, report_patterns, FZ_ARRAY_SIZE(report_patterns));
}

static bool is_once(const char *msg)
{
	return contains_any(msg, once_patterns, FZ_ARRAY_SIZE(once_patterns));
}

/* One /dev/kmsg record's text (after "prio,seq,ts,flags;"), or NULL. */
static const char *kmsg_read(char *buf, size_t size)
{
	ssize_t n;
	char *p;

	for (;;) {
		n = read(kmsg, buf, size - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records were overwritten: go on */
		if (n <= 0)
			return NULL;
		buf[n] = 0;
		p = strchr(buf, ';');
		if (!p)
			continue;
		p++;
		p[strcspn(p, "\n")] = 0;
		return p;
	}
}

/* Wait up to @ms for a report line; copy it (and what follows) to @out. */
static bool kmsg_wait_report(int ms, char *out, size_t size)
{
	struct pollfd p = { .fd = kmsg, .events = POLLIN };
	char buf[8192];
	const char *msg;
	double end = elapsed() + ms / 1000.0;
	bool found = false;
	size_t len = 0;

	if (out && size)
		out[0] = 0;
	while (elapsed() < end) {
		if (poll(&p, 1, 50) <= 0)
			continue;
		while ((msg = kmsg_read(buf, sizeof(buf)))) {
			if (!found && is_report(msg)) {
				found = true;
				/* Take the rest of the report, then stop. */
				end = elapsed() + 1.5;
			}
			if (found && out && len + strlen(msg) + 2 < size)
				len += snprintf(out + len, size - len, "%s\n", msg);
		}
		if (!found && ms == 0)
			break;
	}
	return found;
}

static void kmsg_drain(void)
{
	char buf[8192];

	while (kmsg_read(buf, sizeof(buf)))
		;
}

static void start_proc(int p)
{
	pid_t pid = fork();

	if (pid == 0) {
		close(kmsg);
		fz_worker_main(opts, sh, p, gens[p]);
	}
	procs[p] = pid;
}

static void stop_procs(void)
{
	int p, i, st;

	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	for (p = 0; p < opts->procs; p++)
		if (procs[p] > 0)
			kill(procs[p], SIGKILL);
	/* A task stuck in the kernel cannot be reaped: do not wait for ever. */
	for (i = 0; i < 100; i++) {
		bool left = false;

		for (p = 0; p < opts->procs; p++) {
			if (procs[p] <= 0)
				continue;
			if (waitpid(procs[p], &st, WNOHANG) == 0)
				left = true;
			else
				procs[p] = 0;
		}
		if (!left)
			break;
		usleep(50000);
	}
}

/* ---- replay files -------------------------------------------------------- */

static int rec_cmp(const void *a, const void *b)
{
	const struct fz_rec *x = a, *y = b;

	return x->gseq < y->gseq ? -1 : x->gseq > y->gseq;
}

/*
 * The recorded ops of workers @from..@to, oldest first, at most @max.
 * Workers of one process share their sockets, so a bug one thread met
 * may need the other threads' ops to happen again.
 */
static struct fz_prog ring_prog_range(int from, int to, size_t max)
{
	struct fz_prog p = { .threads = opts->threads };
	size_t i;
	int w;

	p.rec = calloc((size_t)(to - from + 1) * FZ_RING, sizeof(*p.rec));
	for (w = from; p.rec && w <= to; w++)
		for (i = 0; i < FZ_RING; i++)
			if (sh->ring[w][i].gseq)
				p.rec[p.n++] = sh->ring[w][i];
	if (p.rec)
		qsort(p.rec, p.n, sizeof(*p.rec), rec_cmp);
	if (p.n > max) {
		memmove(p.rec, p.rec + p.n - max, max * sizeof(*p.rec));
		p.n = max;
	}
	return p;
}

/* The recorded ops of @worker (-1: all), oldest first, at most @max. */
static struct fz_prog ring_prog(int worker, size_t max)
{
	if (worker < 0)
		return ring_prog_range(0, (int)sh->nworkers - 1, max);
	return ring_prog_range(worker, worker, max);
}

/* The recorded ops of every thread of @worker's process. */
static struct fz_prog ring_prog_proc(int worker, size_t max)
{
	int n = opts->threads > 16 ? 16 : opts->threads;
	int from = worker / n * n;

	return ring_prog_range(from, from + n - 1, max);
}

/*
 * Workers whose last op never finished, those that had not moved on
 * since the report began (@beat: their ops then) first: a task that
 * oopsed or hangs never returns from its op, the others are killed in
 * whatever op they had reached.
 */
static int suspects(const __u64 *beat, int *out, int max)
{
	int w, n = 0, pass;
	size_t i;

	for (pass = 0; pass < 2; pass++) {
		for (w = 0; w < (int)sh->nworkers && n < max; w++) {
			__u64 pos = sh->ring_pos[w];
			bool still = sh->heartbeat[w] == beat[w];

			if (!pos || still != !pass)
				continue;
			i = (pos - 1) % FZ_RING;
			if (!sh->ring[w][i].done)
				out[n++] = w;
		}
	}
	return n;
}

/* Run @p once more with --trace output into @path, for the reader. */
static void trace_to(const struct fz_prog *p, const char *path)
{
	pid_t pid = fork();
	int st, i;

	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		dup2(fd, 2);
		fz_cleanup_devices();
		fz_prog_run(p, true, opts->avoid);
		_exit(0);
	}
	for (i = 0; i < 300 && waitpid(pid, &st, WNOHANG) != pid; i++)
		usleep(100000);
	if (i == 300) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	kmsg_wait_report(1000, NULL, 0);
}

/*
 * Replay @p in a child (fresh devices, its own descriptors) and say
 * whether the kernel reported anything. A child that does not finish
 * in time is killed; if it cannot be, the kernel is hung: a report too.
 */
static bool replay_reports(const struct fz_prog *p, char *report, size_t size)
{
	pid_t pid;
	int st, i;

	kmsg_drain();
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 1);
		dup2(null, 2);
		fz_cleanup_devices();
		fz_prog_run(p, false, opts->avoid);
		_exit(0);
	}
	for (i = 0; i < 400; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		if (kmsg_wait_report(50, report, size)) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return true;
		}
	}
	if (i == 400) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	return kmsg_wait_report(500, report, size);
}

/* Delta debugging: drop chunks of ops for as long as the report stays. */
static void minimize(struct fz_prog *p, double budget)
{
	struct fz_prog t = { .threads = p->threads };
	size_t chunks = 2, size, i, start;
	double end = elapsed() + budget;
	int tries = 0;

	t.rec = calloc(p->n, sizeof(*t.rec));
	while (t.rec && p->n >= 2 && elapsed() < end) {
		bool reduced = false;

		size = (p->n + chunks - 1) / chunks;
		for (start = 0; start < p->n && elapsed() < end; start += size) {
			t.n = 0;
			for (i = 0; i < p->n; i++)
				if (i < start || i >= start + size)
					t.rec[t.n++] = p->rec[i];
			tries++;
			if (replay_reports(&t, NULL, 0)) {
				memcpy(p->rec, t.rec, t.n * sizeof(*t.rec));
				p->n = t.n;
				chunks = chunks > 2 ? chunks - 1 : 2;
				reduced = true;
				break;
			}
		}
		if (!reduced) {
			if (chunks >= p->n)
				break;
			chunks = chunks * 2 > p->n ? p->n : chunks * 2;
		}
	}
	printf("fuzz: minimized to %zu ops in %d replays\n", p->n, tries);
	free(t.rec);
}

static void save(const char *name, const struct fz_prog *p, const char *hdr, bool c_too)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s.replay", opts->outdir, name);
	fz_prog_save(path, p, hdr);
	if (c_too) {
		snprintf(path, sizeof(path), "%s/%s.c", opts->outdir, name);
		fz_prog_save_c(path, p, hdr);
	}
}

/* A report: record everything, then find the smallest program that repeats it. */
static void handle_report(int nreport, const char *report, const __u64 *beat)
{
	int sus[64], nsus, i, w;
	char hdr[1024], name[64], first[256], path[512];
	struct fz_prog all, cand = {}, best = {};
	bool found = false, once;
	FILE *f;

	/* Freeze the rings: no worker records anything from here on. */
	for (i = 0; i < opts->procs; i++)
		if (procs[i] > 0)
			kill(procs[i], SIGSTOP);
	nsus = suspects(beat, sus, 64);
	stop_procs();
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(report, "\n"), report);
	once = is_once(report);
	printf("fuzz: kernel report after %.0f s, %llu execs (seed %llu): %s\n",
	       elapsed(), (unsigned long long)sh->execs,
	       (unsigned long long)opts->seed, first);
	printf("fuzz: workers in the kernel at the time:");
	for (i = 0; i < nsus; i++)
		printf(" %d", sus[i]);
	printf("%s\n", nsus ? "" : " none");
	fflush(stdout);

	snprintf(path, sizeof(path), "%s/report-%d.txt", opts->outdir, nreport);
	f = fopen(path, "w");
	if (f) {
		fputs(report, f);
		fclose(f);
	}
	snprintf(hdr, sizeof(hdr),
		 "# can_fuzz replay: seed %llu, report %d: %s\n# run: can_fuzz --replay FILE [--trace]\n",
		 (unsigned long long)opts->seed, nreport, first);
	all = ring_prog(-1, 4 * FZ_RING);
	snprintf(name, sizeof(name), "all-%d", nreport);
	save(name, &all, hdr, false);

	if (!once) {
		/*
		 * The workers that were in the kernel first, each alone, then
		 * the first one's process, then all.
		 */
		for (i = 0; i <= nsus + 1 && !found; i++) {
			w = i < nsus ? sus[i] : -1;
			free(cand.rec);
			cand = (struct fz_prog){ .threads = opts->threads };
			if (i == nsus && (!nsus || opts->threads < 2))
				continue;
			if (i == nsus) {
				cand = ring_prog_proc(sus[0], 2 * FZ_RING);
				printf("fuzz: replaying %zu ops of worker %d's process\n", cand.n,
				       sus[0]);
			} else {
				cand = ring_prog(w, w < 0 ? 2048 : FZ_RING);
				if (w < 0)
					printf("fuzz: replaying the last %zu ops of all workers\n",
					       cand.n);
				else
					printf("fuzz: replaying %zu ops of worker %d\n", cand.n, w);
			}
			fflush(stdout);
			found = replay_reports(&cand, NULL, 0);
		}
	}
	if (found) {
		size_t from = cand.n;

		printf("fuzz: reproduced; minimizing\n");
		fflush(stdout);
		minimize(&cand, 240);
		snprintf(hdr, sizeof(hdr),
			 "# can_fuzz replay: seed %llu, report %d: %s\n"
			 "# minimized from %zu ops; run: can_fuzz --replay FILE [--trace]\n",
			 (unsigned long long)opts->seed, nreport, first, from);
		best = cand;
	} else {
		/* Not repeatable in this boot: the last ops of the suspects. */
		printf("fuzz: %s; keeping the last 64 ops of each worker involved\n",
		       once ? "a report the kernel gives once per boot" :
		       "the replays did not repeat it");
		free(cand.rec);
		cand = ring_prog(nsus ? sus[0] : -1, 64);
		best = cand;
		snprintf(hdr, sizeof(hdr),
			 "# can_fuzz replay: seed %llu, report %d: %s\n"
			 "# NOT minimized (last ops of worker %d); run: can_fuzz --replay FILE\n",
			 (unsigned long long)opts->seed, nreport, first, nsus ? sus[0] : -1);
	}
	snprintf(name, sizeof(name), "repro-%d", nreport);
	save(name, &best, hdr, true);
	if (found) {
		snprintf(path, sizeof(path), "%s/%s.trace", opts->outdir, name);
		trace_to(&best, path);
	}
	printf("fuzz: replay: %s/%s.replay (%zu ops), C program %s/%s.c\n",
	       opts->outdir, name, best.n, opts->outdir, name);
	fflush(stdout);
	free(all.rec);
	free(cand.rec);
}

/* ---- main loop ------------------------------------------------------------ */

static void progress(void)
{
	double t = elapsed();

	printf("fuzz: %4.0f s: %llu execs (%.0f/s)", t,
	       (unsigned long long)sh->execs, t > 0 ? sh->execs / t : 0.0);
	if (opts->cov)
		printf(", %llu PCs", (unsigned long long)fz_cov_pcs());
	printf("\n");
	fflush(stdout);
}

/* Where the time went: count and mean time of each op. */
static void print_profile(void)
{
	int i;

	printf("fuzz: op profile (count, mean ms):");
	for (i = 0; i < fz_op_count(); i++)
		if (sh->op_n[i])
			printf(" %s %llu %.1f", fz_op_get(i)->name,
			       (unsigned long long)sh->op_n[i],
			       sh->op_ns[i] / 1e6 / sh->op_n[i]);
	printf("\n");
}

/*
 * Copy the ops recorded since the last call to the output, so that a
 * kernel that dies outright still leaves the last ops of each worker
 * (fuzz.sh makes a replay file of them). An op that kills the kernel
 * within the same 200 ms may be missing.
 */
static void stream_rings(__u64 *shown)
{
	int w;

	for (w = 0; w < (int)sh->nworkers; w++) {
		__u64 pos = __atomic_load_n(&sh->ring_pos[w], __ATOMIC_ACQUIRE);

		if (pos - shown[w] > FZ_RING)
			shown[w] = pos - FZ_RING;
		for (; shown[w] < pos; shown[w]++) {
			const struct fz_rec *r = &sh->ring[w][shown[w] % FZ_RING];

			if (!r->gseq)
				continue;
			printf("FUZZ-RING %llu %u %s %#llx %u %#llx\n", r->gseq, r->worker,
			       fz_op_get(r->op)->name, r->seed, r->mut_idx, r->mut_val);
		}
	}
	fflush(stdout);
}

/* Print @path, each line prefixed, for the reader of the guest's log. */
static void show_file(const char *prefix, const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("%s%s", prefix, line);
	fclose(f);
}

/* Print the kernel stack of every thread of @pid; with @busy_only, only of
 * those running or in uninterruptible sleep, and with their names.
 */
static void show_threads(const char *pid, bool busy_only)
{
	char path[80], prefix[96], stat[256];
	struct dirent *e;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	dir = opendir(path);
	while (dir && (e = readdir(dir))) {
		char *state;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%.16s/stat", pid, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		stat[0] = 0;
		if (!fgets(stat, sizeof(stat), f))
			stat[0] = 0;
		fclose(f);
		state = strrchr(stat, ')');
		if (busy_only && (!state || (state[2] != 'R' && state[2] != 'D')))
			continue;
		if (state)
			state[1] = 0;
		snprintf(prefix, sizeof(prefix), "fuzz: %s %.16s %.40s: ",
			 busy_only ? "busy" : "stuck", e->d_name,
			 busy_only ? strchr(stat, '(') ?: "" : "");
		snprintf(path, sizeof(path), "/proc/%s/task/%.16s/stack", pid, e->d_name);
		show_file(prefix, path);
	}
	if (dir)
		closedir(dir);
}

/*
 * Where a stuck process's threads are, before it is killed: the kernel
 * stack of each (a wait for a lock, a grace period, a reference), what
 * else runs or waits uninterruptibly in the guest (a task that holds up
 * a grace period is usually there), and the load, which tells a hang
 * from a guest that is merely saturated.
 */
static void show_stuck(pid_t pid)
{
	char self[16];
	struct dirent *e;
	DIR *dir;

	snprintf(self, sizeof(self), "%d", (int)pid);
	show_threads(self, false);
	dir = opendir("/proc");
	while (dir && (e = readdir(dir))) {
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && strcmp(e->d_name, self))
			show_threads(e->d_name, true);
	}
	if (dir)
		closedir(dir);
	show_file("fuzz: stuck: loadavg ", "/proc/loadavg");
	show_file("fuzz: stuck: ", "/proc/net/can/stats");
	fflush(stdout);
}

/* A worker process whose threads stopped moving (killed by an oops, stuck). */
static void check_workers(__u64 *last_beat, double *last_move)
{
	int p, w, st, n = opts->threads > 16 ? 16 : opts->threads;
	bool stuck;

	for (p = 0; p < opts->procs; p++) {
		stuck = false;
		for (w = p * n; w < (p + 1) * n; w++) {
			__u64 b = __atomic_load_n(&sh->heartbeat[w], __ATOMIC_RELAXED);

			if (b != last_beat[w]) {
				last_beat[w] = b;
				last_move[w] = elapsed();
			} else if (elapsed() - last_move[w] > 60) {
				stuck = true;
			}
		}
		if (procs[p] > 0 && waitpid(procs[p], &st, WNOHANG) == procs[p]) {
			printf("fuzz: worker process %d died (%s %d), restarting\n", p,
			       WIFSIGNALED(st) ? "signal" : "status",
			       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		} else if (stuck) {
			printf("fuzz: worker process %d stuck for 60 s, restarting\n", p);
			show_stuck(procs[p]);
			kill(procs[p], SIGKILL);
			waitpid(procs[p], &st, 0);
		} else {
			continue;
		}
		gens[p]++;
		for (w = p * n; w < (p + 1) * n; w++)
			last_move[w] = elapsed();
		start_proc(p);
	}
}

int fz_supervise(const struct fz_opts *o)
{
	int nworkers = o->procs * (o->threads > 16 ? 16 : o->threads);
	__u64 last_beat[64] = {}, beat[64], shown[64] = {};
	double last_move[64] = {}, next_progress = 10, next_resolve = 2;
	char *report = malloc(REPORT_MAX);
	int nreport = 0, p;

	opts = o;
	if (nworkers > 64 || o->procs > FZ_MAX_PROCS || !report) {
		fprintf(stderr, "can_fuzz: at most 64 workers in 16 processes\n");
		return 2;
	}
	mkdir(o->outdir, 0755);
	sh = fz_shared_map(nworkers);
	if (!sh)
		return 2;
	if (o->cov)
		fz_cov_shared_init();
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg < 0) {
		perror("can_fuzz: /dev/kmsg");
		return 2;
	}
	lseek(kmsg, 0, SEEK_END);
	signal(SIGPIPE, SIG_IGN);
	clock_gettime(CLOCK_MONOTONIC, &t_start);
	printf("fuzz: seed %llu, %d processes x %d threads, %d ops, %d s%s\n",
	       (unsigned long long)o->seed, o->procs, nworkers / o->procs,
	       fz_op_count(), o->duration, o->cov ? ", KCOV guided" : ", no coverage");
	fflush(stdout);
	for (p = 0; p < o->procs; p++)
		start_proc(p);

	while (elapsed() < o->duration) {
		memcpy(beat, sh->heartbeat, sizeof(beat));
		if (kmsg_wait_report(200, report, REPORT_MAX)) {
			handle_report(++nreport, report, beat);
			if (!o->keep_going || nreport >= 5)
				break;
			/* Carry on with fresh processes (a new generation). */
			__atomic_store_n(&sh->stop, 0, __ATOMIC_RELAXED);
			for (p = 0; p < o->procs; p++) {
				gens[p]++;
				start_proc(p);
			}
			continue;
		}
		check_workers(last_beat, last_move);
		stream_rings(shown);
		if (o->cov && elapsed() >= next_resolve) {
			fz_cov_resolve();
			next_resolve = elapsed() + 2;
		}
		if (elapsed() >= next_progress) {
			progress();
			next_progress += 10;
		}
	}
	if (!nreport)
		stop_procs();
	progress();
	print_profile();
	if (o->cov) {
		char path[512];
		FILE *f;

		fz_cov_report(stdout);
		snprintf(path, sizeof(path), "%s/coverage.txt", o->outdir);
		f = fopen(path, "w");
		if (f) {
			fz_cov_list(f);
			fclose(f);
		}
	}
	printf("fuzz: %llu execs in %.0f s (%.0f/s), %s\n",
	       (unsigned long long)sh->execs, elapsed(), sh->execs / elapsed(),
	       nreport ? "KERNEL REPORT" : "no kernel report");
	fflush(stdout);
	free(report);
	return nreport ? 1 : 0;
}
