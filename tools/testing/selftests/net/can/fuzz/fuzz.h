/* SPDX-License-Identifier: GPL-2.0 */
/*
 * can_fuzz: a syscall fuzzer for what PF_CAN exposes.
 *
 * An operation ("op") is a small function that makes one to a few system
 * calls. Every value it uses comes from its draw stream (struct fz_draw),
 * which is a pure function of a 64-bit seed, so an op is replayed exactly
 * by running it again with the same seed. A worker draws (op, seed) pairs
 * from its own generator seeded with seed + worker index, records each
 * pair in a shared-memory ring and only then runs it: after a kernel
 * report the rings say what every worker did last.
 *
 * Ops live in one file per concern (ops_raw.c, ops_bcm.c, ...) and
 * register themselves with FZ_REGISTER(); a new protocol is one more
 * file that does the same.
 */

#ifndef _CAN_FUZZ_H
#define _CAN_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <stdio.h>
#include <sys/types.h>

#include <linux/netlink.h>

struct msghdr;

#define FZ_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- draws ---------------------------------------------------------- */

/*
 * The values of one op: draw i is a hash of (seed, i), except draw
 * mut_idx, which is mut_val (a mutation of a corpus entry changes one
 * value and keeps all others).
 */
struct fz_draw {
	__u64 seed;
	__u32 n;
	__u32 mut_idx;	/* 0: no mutation */
	__u64 mut_val;
};

__u64 fz_mix(__u64 x);
/* A drawn value; none of its bytes is FZ_POISON (leak.c says why). */
__u64 fz_u64(struct fz_draw *d);
__u32 fz_below(struct fz_draw *d, __u32 n);
bool fz_chance(struct fz_draw *d, __u32 one_in);
/* An integer biased toward boundaries: 0, +-1, INT_MIN/MAX, sizes +-1, errnos. */
__s64 fz_int(struct fz_draw *d);
/* A length in [0, max], biased toward the CAN sizes +-1. */
__u32 fz_len(struct fz_draw *d, __u32 max);
/* A negative errno, -1..-4095, kernel-internal ones (512..530) more often. */
int fz_neg_errno(struct fz_draw *d);
void fz_fill(struct fz_draw *d, void *buf, size_t len);
/* A CAN identifier with random flag bits, biased toward id boundaries. */
__u32 fz_can_id(struct fz_draw *d);
/* Fill a classic, FD or XL frame of @len bytes with plausible fields. */
void fz_frame(struct fz_draw *d, void *buf, size_t len);

/* ---- per-process and per-worker state --------------------------------- */

enum fz_kind {
	FZ_FREE = 0,
	FZ_RAW,
	FZ_BCM,
	FZ_ISOTP,
	FZ_PACKET,
	FZ_TUN,
	FZ_NETNS,
	FZ_NETLINK,
	FZ_J1939,
	FZ_OTHER,
	FZ_KINDS
};

#define FZ_SLOTS	24

/*
 * File descriptors of one worker process, shared by its threads. For a
 * bound ISO-TP socket, the device and identifier it listens on, so that
 * ops can send frames where it hears them (0: not bound).
 */
struct fz_fds {
	int fd[FZ_SLOTS];
	int kind[FZ_SLOTS];
	int isotp_ifindex[FZ_SLOTS];
	__u32 isotp_rx_id[FZ_SLOTS];
};

struct fz_ctx {
	int worker;		/* global worker index */
	struct fz_fds *fds;	/* this thread's process table */
	int home_netns;		/* the netns the thread started in */
	bool trace;		/* print each call (--replay --trace) */
	bool hold_on_leak;	/* a fuzzing worker: stay in the op that saw a leak */
	unsigned int avoid;	/* FZ_AVOID_* */
};

/* Known bugs a run can be told to stay away from (--avoid NAME). */
#define FZ_AVOID_RAW_NEG_IFINDEX	0x1u
/* Debian's mainline can.ko under our modules (ops_mixed.c). */
#define FZ_AVOID_MIXED_STACK		0x2u

int fz_fd_get(struct fz_ctx *c, struct fz_draw *d, int kind);
void fz_fd_put(struct fz_ctx *c, struct fz_draw *d, int kind, int fd);
/* fz_fd_put() for a new socket, with send and receive timeouts of 10 ms. */
void fz_fd_keep(struct fz_ctx *c, struct fz_draw *d, int kind, int fd);
void fz_fds_close_all(struct fz_fds *f);
/* Note that ISO-TP socket @fd listens for @rx_id on @ifindex. */
void fz_isotp_note(struct fz_ctx *c, int fd, int ifindex, __u32 rx_id);
/* A bound ISO-TP socket of this process: its @fd, device and rx identifier. */
bool fz_isotp_target(struct fz_ctx *c, struct fz_draw *d, int *fd, int *ifindex,
		     __u32 *rx_id);

/* Names of the devices ops create, delete and use. */
const char *fz_dev_name(struct fz_draw *d);
const char *fz_vcan_name(struct fz_draw *d);
/* A name for a can-vbus controller (ops_vbus.c). */
const char *fz_vbus_name(struct fz_draw *d);
/* An interface index: mostly an existing device's, sometimes a boundary value. */
int fz_ifindex(struct fz_ctx *c, struct fz_draw *d);
/* The index of device @name in this thread's netns, 0 if there is none. */
int fz_name_to_index(const char *name);
/* Set link @ifindex up; 0 or -errno. */
int fz_link_up(int ifindex);
int fz_vcan_add(const char *name);
/* Delete every device the fuzzer creates (between replays). */
void fz_cleanup_devices(void);

void fz_trace(struct fz_ctx *c, const char *fmt, ...);
/* Record a call's outcome for tracing: returns ret, or -errno when ret < 0. */
long fz_ret(struct fz_ctx *c, const char *what, long ret);

/* Our module @file ("vcan.ko") open for finit_module(), or -1. */
int fz_module_open(const char *file);

/* ---- infoleak detector (leak.c) ---------------------------------------- */

/* SLUB's POISON_FREE: what fills a fresh object when the guest boots
 * with slub_debug=P and init_on_alloc=0 (fuzz.sh).
 */
#define FZ_POISON	0x6b
/* This many poison bytes in a row in what the kernel gave back is a leak. */
#define FZ_POISON_RUN	4

/* Offset of the first run of FZ_POISON_RUN poison bytes in @buf, or -1. */
long fz_poison_find(const void *buf, size_t len);
/*
 * Check @len bytes the kernel wrote to user space (@what names the
 * call and the field). A poison run is reported on /dev/kmsg as
 * "can_fuzz: infoleak: ..." for the supervisor; a fuzzing worker then
 * stays in its op until it is stopped. Returns true on a leak.
 */
bool fz_leak_check(struct fz_ctx *c, const char *what, const void *buf, size_t len);
/* How many leaks this process has seen. */
int fz_leak_count(void);
/* fz_leak_check() of what recvmsg() filled in @msg when it returned @ret. */
void fz_leak_check_msg(struct fz_ctx *c, const char *what, const struct msghdr *msg,
		       size_t name_room, long ret);

/* ---- rtnetlink ------------------------------------------------------- */

struct fz_nlmsg {
	size_t len;
	union {
		struct nlmsghdr nh;	/* aligns the buffer for it */
		unsigned char buf[2048];
	};
};

/* Start a message: nlmsghdr of @type/@flags then an ifinfomsg. */
void fz_nl_init(struct fz_nlmsg *m, int type, int flags, int ifindex);
/* Append an attribute; returns its offset (for fz_nl_end of a nest). */
size_t fz_nl_put(struct fz_nlmsg *m, int type, const void *data, size_t len);
void fz_nl_end(struct fz_nlmsg *m, size_t nest);
/* Send on a fresh NETLINK_ROUTE socket; 0 or -errno from the ack. */
int fz_nl_talk(struct fz_nlmsg *m);
/* Append one IFLA_CAN_* attribute (ops_link.c): mostly well-formed. */
void fz_can_attr(struct fz_nlmsg *m, struct fz_draw *d);

/* ---- ops ------------------------------------------------------------ */

struct fz_op {
	const char *name;
	long (*run)(struct fz_ctx *c, struct fz_draw *d);
	unsigned int weight;
};

void fz_register(const struct fz_op *ops);
int fz_op_count(void);
const struct fz_op *fz_op_get(int i);
int fz_op_find(const char *name);
int fz_op_pick(__u64 r);

/*
 * Register a table of ops, ended by an entry without a name, when the
 * program starts (in link order, which the Makefile keeps sorted).
 */
#define FZ_CAT2(a, b)	a##b
#define FZ_CAT(a, b)	FZ_CAT2(a, b)
#define FZ_REGISTER(table)						\
	static void __attribute__((constructor)) FZ_CAT(fz_reg_, __LINE__)(void) \
	{								\
		fz_register(table);					\
	}

/* ---- recording and replay --------------------------------------------- */

/* One recorded op. */
struct fz_rec {
	__u64 gseq;		/* global order, 0: empty */
	__u64 seed;
	__u64 mut_val;
	__u32 mut_idx;
	__u16 op;
	__u16 worker;
	__s32 ret;
	__u32 done;		/* 0 while it runs */
};

#define FZ_RING		4096

/* Shared between the supervisor and every worker. */
struct fz_shared {
	__u64 gseq;
	__u64 execs;
	__u32 stop;
	__u32 nworkers;
	__u64 heartbeat[64];	/* gseq of each worker's current op */
	__u64 ring_pos[64];
	__u64 op_ns[256];	/* time spent in each op, for the profile */
	__u64 op_n[256];
	struct fz_rec ring[][FZ_RING];
};

struct fz_shared *fz_shared_map(int nworkers);

/* A list of ops to replay. */
struct fz_prog {
	struct fz_rec *rec;
	size_t n;
	int threads;		/* threads per worker process in the run */
};

int fz_prog_load(const char *path, struct fz_prog *p);
int fz_prog_save(const char *path, const struct fz_prog *p, const char *header);
int fz_prog_save_c(const char *path, const struct fz_prog *p, const char *header);
/* Run @p in order in this thread; ops of worker w use process w / threads. */
void fz_prog_run(const struct fz_prog *p, bool trace, unsigned int avoid);

void fz_op_exec(struct fz_ctx *c, const struct fz_rec *r);

/* ---- coverage (KCOV) -------------------------------------------------- */

bool fz_cov_available(void);
int fz_cov_open(void);
void fz_cov_start(void);
/* Stop collecting; returns the number of PCs not seen before by any worker. */
unsigned int fz_cov_stop(void);
void fz_cov_shared_init(void);
__u64 fz_cov_pcs(void);
void fz_cov_resolve(void);
void fz_cov_report(FILE *out);
void fz_cov_list(FILE *out);

/* Corpus of ops that found new PCs (shared). */
void fz_corpus_add(const struct fz_rec *r);
bool fz_corpus_pick(__u64 r1, __u64 r2, struct fz_rec *out);
__u64 fz_corpus_size(void);

/* ---- supervisor --------------------------------------------------------- */

struct fz_opts {
	__u64 seed;
	int duration;
	int procs;
	int threads;
	unsigned int avoid;
	const char *outdir;
	bool cov;
	bool keep_going;	/* go on after a report (up to 5) */
	bool traffic;		/* a background sender per process (traffic.c) */
};

int fz_supervise(const struct fz_opts *o);
/* Start a detached thread that sends frames on every CAN interface. */
void fz_traffic_start(__u64 seed);
/* Close this process's traffic socket and send nothing until released. */
void fz_traffic_hold(bool hold);
void fz_worker_main(const struct fz_opts *o, struct fz_shared *sh, int proc, int gen);

#endif
