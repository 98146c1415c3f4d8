// SPDX-License-Identifier: GPL-2.0
/*
 * The shared rings ops are recorded in, and replay files: one recorded
 * op per line, "gseq worker op seed mut_idx mut_val", run in file order.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

struct fz_shared *fz_shared_map(int nworkers)
{
	size_t size = sizeof(struct fz_shared) +
		      (size_t)nworkers * sizeof(struct fz_rec[FZ_RING]);
	struct fz_shared *sh;

	sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		  -1, 0);
	if (sh == MAP_FAILED)
		return NULL;
	sh->nworkers = nworkers;
	return sh;
}

void fz_op_exec(struct fz_ctx *c, const struct fz_rec *r)
{
	const struct fz_op *op = fz_op_get(r->op);
	struct fz_draw d = {
		.seed = r->seed, .mut_idx = r->mut_idx, .mut_val = r->mut_val,
	};

	if (op)
		op->run(c, &d);
}

int fz_prog_load(const char *path, struct fz_prog *p)
{
	char line[512], name[128];
	size_t cap = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	p->rec = NULL;
	p->n = 0;
	p->threads = 1;
	while (fgets(line, sizeof(line), f)) {
		struct fz_rec r = {};
		unsigned int w;
		int op;

		if (sscanf(line, "# threads %d", &p->threads) == 1)
			continue;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%llu %u %127s %llx %u %llx",
			   &r.gseq, &w, name, &r.seed, &r.mut_idx, &r.mut_val) != 6) {
			fprintf(stderr, "can_fuzz: %s: bad line: %s", path, line);
			continue;
		}
		op = fz_op_find(name);
		if (op < 0) {
			fprintf(stderr, "can_fuzz: %s: unknown op %s\n", path, name);
			continue;
		}
		r.op = op;
		r.worker = w;
		if (p->n == cap) {
			cap = cap ? cap * 2 : 256;
			p->rec = realloc(p->rec, cap * sizeof(*p->rec));
			if (!p->rec) {
				fclose(f);
				return -ENOMEM;
			}
		}
		p->rec[p->n++] = r;
	}
	fclose(f);
	return 0;
}

int fz_prog_save(const char *path, const struct fz_prog *p, const char *header)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -errno;
	fprintf(f, "%s", header);
	fprintf(f, "# threads %d\n", p->threads);
	fprintf(f, "# gseq worker op seed mut_idx mut_val\n");
	for (i = 0; i < p->n; i++) {
		const struct fz_rec *r = &p->rec[i];

		fprintf(f, "%llu %u %s %#llx %u %#llx\n",
			r->gseq, r->worker, fz_op_get(r->op)->name, r->seed,
			r->mut_idx, r->mut_val);
	}
	return fclose(f) ? -errno : 0;
}

/*
 * The same ops as a C program of its own: a table and a main() that
 * runs it with the op files of this directory (not with main.c).
 */
int fz_prog_save_c(const char *path, const struct fz_prog *p, const char *header)
{
	FILE *f = fopen(path, "w");
	const char *h;
	size_t i;

	if (!f)
		return -errno;
	fprintf(f, "// SPDX-%s: GPL-2.0\n/*\n", "License-Identifier");
	for (h = header; *h; h++) {
		if (h == header || h[-1] == '\n')
			fprintf(f, " *%s", *h == '#' ? "" : " ");
		if (*h != '#')
			fputc(*h, f);
	}
	fprintf(f, " *\n * Build next to can_fuzz's sources (fuzz/):\n"
		   " *   cc -D_GNU_SOURCE -I../../../../../../include/uapi -I. -o repro \\\n"
		   " *      repro.c $(ls *.c | grep -v main.c) -lpthread\n */\n\n"
		   "#include <stdio.h>\n#include <string.h>\n\n#include \"fuzz.h\"\n\n"
		   "static const struct { unsigned int worker; const char *op;\n"
		   "\tuint64_t seed; __u32 mut_idx; __u64 mut_val; } ops[] = {\n");
	for (i = 0; i < p->n; i++) {
		const struct fz_rec *r = &p->rec[i];

		fprintf(f, "\t{ %u, \"%s\", %#llxULL, %u, %#llxULL },\n",
			r->worker, fz_op_get(r->op)->name, r->seed, r->mut_idx,
			r->mut_val);
	}
	fprintf(f, "};\n\nint main(void)\n{\n"
		   "\tstatic struct fz_rec rec[sizeof(ops) / sizeof(ops[0])];\n"
		   "\tstruct fz_prog p = { rec, sizeof(ops) / sizeof(ops[0]), %d };\n"
		   "\tsize_t i;\n\n"
		   "\tfor (i = 0; i < p.n; i++) {\n"
		   "\t\trec[i].worker = ops[i].worker;\n"
		   "\t\trec[i].op = fz_op_find(ops[i].op);\n"
		   "\t\trec[i].seed = ops[i].seed;\n"
		   "\t\trec[i].mut_idx = ops[i].mut_idx;\n"
		   "\t\trec[i].mut_val = ops[i].mut_val;\n"
		   "\t}\n"
		   "\tfz_prog_run(&p, true, 0);\n"
		   "\treturn 0;\n}\n", p->threads);
	return fclose(f) ? -errno : 0;
}

/*
 * One thread runs every op in order; each op uses the descriptor table
 * of the process its worker belonged to, so ops of different processes
 * do not see each other's sockets.
 */
void fz_prog_run(const struct fz_prog *p, bool trace, unsigned int avoid)
{
	static struct fz_fds fds[64];
	struct fz_ctx c = { .trace = trace, .avoid = avoid };
	int threads = p->threads < 1 ? 1 : p->threads;
	size_t i;

	c.home_netns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	for (i = 0; i < p->n; i++) {
		const struct fz_rec *r = &p->rec[i];

		c.worker = r->worker;
		c.fds = &fds[(r->worker / threads) % 64];
		if (trace) {
			printf("%zu: worker %u %s seed %#llx\n", i, r->worker,
			       fz_op_get(r->op)->name, r->seed);
			fflush(stdout);
		}
		fz_op_exec(&c, r);
		if (trace)
			fflush(stdout);
	}
	for (i = 0; i < 64; i++)
		fz_fds_close_all(&fds[i]);
	if (c.home_netns >= 0) {
		setns(c.home_netns, CLONE_NEWNET);
		close(c.home_netns);
	}
}
