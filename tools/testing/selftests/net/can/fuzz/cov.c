// SPDX-License-Identifier: GPL-2.0
/*
 * Coverage from KCOV (CONFIG_KCOV, our directories instrumented by the
 * debug kernel build): each worker thread traces the PCs its own system
 * calls reach (KCOV_TRACE_PC, task context only: softirq receive paths
 * are not seen). A shared set of PCs says which are new; an op that
 * found new ones goes into its worker's corpus, from which later ops
 * are drawn and mutated.
 *
 * PCs are addresses of module code, which moves when a module is
 * reloaded: the supervisor maps the new ones to functions every few
 * seconds, so the function counts stay right across reloads.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/kcov.h>

#include "fuzz.h"

#define KCOV_PATH	"/sys/kernel/debug/kcov"
#define COVER_WORDS	(64 * 1024)
#define PCSET_SIZE	0x40000u	/* 2^PCSET_BITS */

struct fz_pcset {
	__u64 count;
	__u64 slot[PCSET_SIZE];	/* open addressing, 0: empty */
	__u64 order[PCSET_SIZE];	/* PCs in the order they were found */
};

static struct fz_pcset *pcset;
static __thread unsigned long *cover;
static __thread int kcov_fd = -1;

bool fz_cov_available(void)
{
	return access(KCOV_PATH, R_OK | W_OK) == 0;
}

void fz_cov_shared_init(void)
{
	pcset = mmap(NULL, sizeof(*pcset), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pcset == MAP_FAILED)
		pcset = NULL;
}

__u64 fz_cov_pcs(void)
{
	return pcset ? __atomic_load_n(&pcset->count, __ATOMIC_RELAXED) : 0;
}

int fz_cov_open(void)
{
	int fd;

	if (!pcset)
		return -ENODEV;
	fd = open(KCOV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Far from the small numbers ops pick as descriptors. */
	kcov_fd = fcntl(fd, F_DUPFD_CLOEXEC, 900);
	close(fd);
	if (kcov_fd < 0 || ioctl(kcov_fd, KCOV_INIT_TRACE, COVER_WORDS))
		return -errno;
	cover = mmap(NULL, COVER_WORDS * sizeof(unsigned long),
		     PROT_READ | PROT_WRITE, MAP_SHARED, kcov_fd, 0);
	if (cover == MAP_FAILED) {
		cover = NULL;
		return -errno;
	}
	if (ioctl(kcov_fd, KCOV_ENABLE, KCOV_TRACE_PC)) {
		munmap(cover, COVER_WORDS * sizeof(unsigned long));
		cover = NULL;
		return -errno;
	}
	return 0;
}

void fz_cov_start(void)
{
	if (cover)
		__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
}

/* Insert @pc; true when no worker had seen it. */
static bool pcset_add(__u64 pc)
{
	__u64 i = fz_mix(pc) & (PCSET_SIZE - 1);
	__u64 probe, cur, n;

	for (probe = 0; probe < 64; probe++, i = (i + 1) & (PCSET_SIZE - 1)) {
		cur = __atomic_load_n(&pcset->slot[i], __ATOMIC_RELAXED);
		if (cur == pc)
			return false;
		if (cur)
			continue;
		if (__atomic_compare_exchange_n(&pcset->slot[i], &cur, pc, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			n = __atomic_fetch_add(&pcset->count, 1, __ATOMIC_RELAXED);
			if (n < PCSET_SIZE)
				__atomic_store_n(&pcset->order[n], pc, __ATOMIC_RELEASE);
			return true;
		}
		if (cur == pc)
			return false;
	}
	return false;
}

unsigned int fz_cov_stop(void)
{
	unsigned long n, i;
	unsigned int fresh = 0;

	if (!cover)
		return 0;
	n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
	if (n >= COVER_WORDS)
		n = COVER_WORDS - 1;
	for (i = 0; i < n; i++)
		fresh += pcset_add(cover[i + 1]);
	return fresh;
}

/* ---- per-worker corpus ------------------------------------------------ */

#define CORPUS_MAX	2048

static __thread struct fz_rec *corpus;
static __thread __u64 corpus_n;

void fz_corpus_add(const struct fz_rec *r)
{
	if (!corpus)
		corpus = calloc(CORPUS_MAX, sizeof(*corpus));
	if (!corpus)
		return;
	corpus[corpus_n % CORPUS_MAX] = *r;
	corpus_n++;
}

bool fz_corpus_pick(__u64 r1, __u64 r2, struct fz_rec *out)
{
	__u64 n = corpus_n < CORPUS_MAX ? corpus_n : CORPUS_MAX;

	if (!n)
		return false;
	/* Recent finds more often: they sit at the edge of what is known. */
	if (r2 & 1)
		*out = corpus[(corpus_n - 1 - (r1 % (n < 32 ? n : 32))) % CORPUS_MAX];
	else
		*out = corpus[r1 % n];
	return true;
}

__u64 fz_corpus_size(void)
{
	return corpus_n;
}

/* ---- mapping PCs to functions ------------------------------------------ */

struct ksym {
	__u64 addr;
	char name[64];
	char mod[24];
};

static struct ksym *syms;
static size_t nsyms;
/* Functions reached so far, "module:function", kept across reloads. */
static char (*reached)[96];
static size_t nreached, reached_cap;
static __u64 resolved;

static const char *const fz_cov_mods[] = {
	"can", "can_raw", "can_bcm", "can_isotp", "can_gw", "vcan", "vxcan", "can_dev", "sja1000",
	"kvaser_pci",
	"pcm3680_pci", "mcp251x", "can_vbus", "can_j1939",
};

/*
 * Functions of each module, the most seen loaded at once: ops unload
 * modules (module_unload, mixed_core), and the report at the end must
 * not leave out one that happens to be out at that moment. The most,
 * not the last: a module caught in the middle of its load shows only
 * part of its symbols (can_gw once read "31 of 12").
 */
static size_t fz_cov_mod_total[FZ_ARRAY_SIZE(fz_cov_mods)];

static int mod_index(const char *mod)
{
	size_t i;

	for (i = 0; i < FZ_ARRAY_SIZE(fz_cov_mods); i++)
		if (!strcmp(mod, fz_cov_mods[i]))
			return i;
	return -1;
}

static bool our_module(const char *mod)
{
	return mod_index(mod) >= 0;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void count_mod_totals(void)
{
	size_t n[FZ_ARRAY_SIZE(fz_cov_mods)] = { 0 }, i;
	int m;

	for (i = 0; i < nsyms; i++) {
		m = mod_index(syms[i].mod);
		if (m >= 0)
			n[m]++;
	}
	for (i = 0; i < FZ_ARRAY_SIZE(fz_cov_mods); i++)
		if (n[i] > fz_cov_mod_total[i])
			fz_cov_mod_total[i] = n[i];
}

/* Every text symbol of our modules as loaded now. */
static void load_syms(void)
{
	char line[256], name[128], mod[64];
	unsigned long long addr;
	size_t cap = 0;
	char type;
	FILE *f;

	nsyms = 0;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s [%63[^]]]", &addr, &type, name, mod) != 4)
			continue;
		if ((type != 't' && type != 'T') || !our_module(mod) || !addr)
			continue;
		if (nsyms == cap) {
			cap = cap ? cap * 2 : 1024;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				break;
		}
		syms[nsyms].addr = addr;
		snprintf(syms[nsyms].name, sizeof(syms[nsyms].name), "%.63s", name);
		snprintf(syms[nsyms].mod, sizeof(syms[nsyms].mod), "%.23s", mod);
		nsyms++;
	}
	fclose(f);
	if (syms)
		qsort(syms, nsyms, sizeof(*syms), ksym_cmp);
	count_mod_totals();
}

static bool was_reached(const struct ksym *s)
{
	char key[96];
	size_t i;

	snprintf(key, sizeof(key), "%s:%s", s->mod, s->name);
	for (i = 0; i < nreached; i++)
		if (!strcmp(reached[i], key))
			return true;
	return false;
}

static void mark_reached(const struct ksym *s)
{
	if (was_reached(s))
		return;
	if (nreached == reached_cap) {
		reached_cap = reached_cap ? reached_cap * 2 : 256;
		reached = realloc(reached, reached_cap * sizeof(*reached));
		if (!reached)
			return;
	}
	snprintf(reached[nreached++], sizeof(reached[0]), "%s:%s", s->mod, s->name);
}

/* Map the PCs found since the last call; the supervisor calls it often. */
void fz_cov_resolve(void)
{
	__u64 n = fz_cov_pcs(), i;
	size_t lo, hi, mid;

	if (n > PCSET_SIZE)
		n = PCSET_SIZE;
	if (n == resolved)
		return;
	load_syms();
	for (i = resolved; i < n && nsyms; i++) {
		__u64 pc = __atomic_load_n(&pcset->order[i], __ATOMIC_ACQUIRE);

		if (!pc || pc < syms[0].addr)
			continue;
		lo = 0;
		hi = nsyms;
		while (hi - lo > 1) {
			mid = (lo + hi) / 2;
			if (syms[mid].addr <= pc)
				lo = mid;
			else
				hi = mid;
		}
		/* Past a module's last function is not ours. */
		if (pc - syms[lo].addr < 0x10000)
			mark_reached(&syms[lo]);
	}
	resolved = n;
}

/*
 * "can: 40 of 61 functions" for each module: the functions reached
 * while it was loaded, against its size when last seen (a module out
 * at the end is marked so).
 */
void fz_cov_report(FILE *out)
{
	size_t i, m, total, hit, all = 0, allhit = 0, len;
	bool loaded;

	fz_cov_resolve();
	load_syms();
	fprintf(out, "fuzz: coverage: %llu distinct PCs in net/can and drivers/net/can\n",
		(unsigned long long)fz_cov_pcs());
	for (m = 0; m < FZ_ARRAY_SIZE(fz_cov_mods); m++) {
		total = fz_cov_mod_total[m];
		len = strlen(fz_cov_mods[m]);
		hit = 0;
		loaded = false;
		for (i = 0; i < nsyms; i++)
			loaded |= !strcmp(syms[i].mod, fz_cov_mods[m]);
		for (i = 0; i < nreached; i++)
			hit += !strncmp(reached[i], fz_cov_mods[m], len) && reached[i][len] == ':';
		if (!total)
			continue;
		fprintf(out, "fuzz: coverage: %-12s %3zu of %3zu functions reached%s\n",
			fz_cov_mods[m], hit, total, loaded ? "" : " (not loaded at the end)");
		all += total;
		allhit += hit;
	}
	fprintf(out, "fuzz: coverage: all         %3zu of %3zu functions reached\n",
		allhit, all);
}

/*
 * The functions reached and not, for the record (--cov-list); of a
 * module not loaded now, those reached.
 */
void fz_cov_list(FILE *out)
{
	char mod[32];
	size_t i, j;
	bool loaded;

	for (i = 0; i < nsyms; i++)
		fprintf(out, "%s %s:%s\n", was_reached(&syms[i]) ? "+" : "-",
			syms[i].mod, syms[i].name);
	for (i = 0; i < nreached; i++) {
		snprintf(mod, sizeof(mod), "%.*s", (int)strcspn(reached[i], ":"), reached[i]);
		loaded = false;
		for (j = 0; j < nsyms && !loaded; j++)
			loaded = !strcmp(syms[j].mod, mod);
		if (!loaded)
			fprintf(out, "+ %s\n", reached[i]);
	}
}
