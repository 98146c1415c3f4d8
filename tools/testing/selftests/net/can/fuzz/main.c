// SPDX-License-Identifier: GPL-2.0
/*
 * can_fuzz: run the fuzzer, or replay a recorded program.
 *
 *   can_fuzz [--seed N] [--duration S] [--procs P] [--threads T]
 *            [--out DIR] [--no-cov] [--no-traffic] [--keep-going]
 *            [--avoid NAME]...
 *   can_fuzz --replay FILE [--trace] [--repeat N] [--no-traffic] [--avoid NAME]...
 *   can_fuzz --list-ops
 *
 * NAME: raw-neg-ifindex, mixed-stack (see fuzz.h).
 * Exit status: 0 no kernel report, 1 a report (see DIR), 2 usage; a
 * replay: 0, or 1 if it saw an infoleak (leak.c).
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

static void print_usage(void)
{
	fprintf(stderr,
		"usage: can_fuzz [--seed N] [--duration S] [--procs P] [--threads T]\n"
		"                [--out DIR] [--no-cov] [--no-traffic] [--keep-going]\n"
		"                [--avoid raw-neg-ifindex] [--avoid mixed-stack]\n"
		"       can_fuzz --replay FILE [--trace] [--repeat N] [--no-traffic]\n"
		"                [--avoid NAME]\n"
		"       can_fuzz --list-ops\n");
	exit(2);
}

static int run_replay(const char *path, bool trace, int repeat,
		      const struct fz_opts *o)
{
	struct fz_prog p;
	int err = fz_prog_load(path, &p), i;

	if (err) {
		fprintf(stderr, "can_fuzz: %s: %s\n", path, strerror(-err));
		return 2;
	}
	printf("can_fuzz: replaying %zu ops from %s\n", p.n, path);
	fflush(stdout);
	/* A race the traffic exposed needs it again to show. */
	if (o->traffic)
		fz_traffic_start(o->seed);
	for (i = 0; i < repeat; i++) {
		fz_cleanup_devices();
		fz_prog_run(&p, trace, o->avoid);
	}
	printf("can_fuzz: replay done, %d infoleak reports\n", fz_leak_count());
	return fz_leak_count() ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "no-cov", no_argument, NULL, 'n' },
		{ "no-traffic", no_argument, NULL, 'N' },
		{ "keep-going", no_argument, NULL, 'k' },
		{ "avoid", required_argument, NULL, 'a' },
		{ "replay", required_argument, NULL, 'r' },
		{ "trace", no_argument, NULL, 'T' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "list-ops", no_argument, NULL, 'l' },
		{}
	};
	struct fz_opts o = {
		.seed = (__u64)time(NULL), .duration = 300, .procs = 2,
		.threads = 2, .outdir = "/tmp/can_fuzz", .cov = true,
		.traffic = true,
	};
	const char *replay_file = NULL;
	bool trace = false;
	int c, i, repeat = 1;

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			o.duration = atoi(optarg);
			break;
		case 'p':
			o.procs = atoi(optarg);
			break;
		case 't':
			o.threads = atoi(optarg);
			break;
		case 'o':
			o.outdir = optarg;
			break;
		case 'n':
			o.cov = false;
			break;
		case 'N':
			o.traffic = false;
			break;
		case 'k':
			o.keep_going = true;
			break;
		case 'a':
			if (!strcmp(optarg, "raw-neg-ifindex"))
				o.avoid |= FZ_AVOID_RAW_NEG_IFINDEX;
			else if (!strcmp(optarg, "mixed-stack"))
				o.avoid |= FZ_AVOID_MIXED_STACK;
			else
				print_usage();
			break;
		case 'r':
			replay_file = optarg;
			break;
		case 'T':
			trace = true;
			break;
		case 'R':
			repeat = atoi(optarg);
			break;
		case 'l':
			for (i = 0; i < fz_op_count(); i++)
				printf("%s %u\n", fz_op_get(i)->name, fz_op_get(i)->weight);
			return 0;
		default:
			print_usage();
		}
	}
	if (optind != argc || o.procs < 1 || o.threads < 1 || o.duration < 0)
		print_usage();
	if (replay_file)
		return run_replay(replay_file, trace, repeat, &o);
	if (o.cov && !fz_cov_available()) {
		printf("fuzz: no KCOV (/sys/kernel/debug/kcov): running without coverage\n");
		o.cov = false;
	}
	return fz_supervise(&o);
}
