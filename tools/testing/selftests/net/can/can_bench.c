// SPDX-License-Identifier: GPL-2.0
/*
 * Receive dispatch benchmark: the cost per frame of sending on a vcan
 * interface with local loopback while many sockets hold receive filters.
 * Not a test. Meant to run in the VM under "qemu -icount shift=0", where
 * CLOCK_MONOTONIC counts executed instructions and repeats to about 0.1%.
 *
 *   can_bench IFNAME SCENARIO N [FRAMES]
 *
 * prints "SCENARIO N NS_PER_FRAME". Scenarios:
 *   loop        one receiver, classic frames      (N ignored)
 *   loopfd      one receiver, CAN FD frames       (N ignored)
 *   xl          one receiver, 2048-byte CAN XL frames (N ignored; the
 *               interface needs the XL MTU, 2060)
 *   report      "loop" with CAN_RAW_TX_REPORT on the sender, which reads
 *               each frame's report (ours); without the option (mainline)
 *               it is "loop", so the ratio is the cost of the reports
 *   sff         one matching receiver + N exact 11-bit filters that miss
 *   eff         the same with exact 29-bit filters
 *   mask        the same with mask filters of three distinct masks
 *   all         N receivers without filters, all of them read each frame
 *
 * Stages of one frame, for the breakdown in Documentation/networking/can.txt
 * (each leaves out or adds one stage of "loop"):
 *   send        no receiver and CAN_RAW_LOOPBACK off: write() to the driver
 *   echo        no receiver but the sender's own subscription: "send" plus
 *               the loopback (clone, backlog, softirq, can_rcv, dispatch)
 *   noread      N receivers without filters that do not read while the
 *               frames are timed: the receive queues are emptied between
 *               batches, untimed, so this is the kernel's side of "all"
 *   pkt         no CAN protocol: an AF_PACKET socket writes the frame and
 *               another one taps the device (ETH_P_ALL) and reads it, i.e.
 *               the syscalls, one skb, one clone and one socket queue
 *   pktsend     "pkt" without the tap: AF_PACKET write() to the driver
 *   invmix      one matching receiver + N filters: a third inverted (and
 *               missing), a third error-mask filters, a third exact
 *   regtime     guest ns to register N exact filters (one per socket)
 *   memsock     slab bytes per socket with one filter (N sockets)
 *   memfilt     slab bytes per filter (N filters on each of 20 sockets,
 *               N <= 512)
 *
 * The memory scenarios count slab objects, not pages, and leave out the
 * per-CPU memory of a socket (alloc_percpu, not slab).
 */

#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/can.h>
#include <linux/can/raw.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#define SENT_SFF_ID	0x7A5
#define SENT_EFF_ID	0x1ABCDEF0

static int ifindex;
static canid_t sent_id = SENT_SFF_ID;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void set_filters(int s, const struct can_filter *f, int nf)
{
	if (setsockopt(s, SOL_CAN_RAW, CAN_RAW_FILTER, f, nf * sizeof(*f)))
		die("CAN_RAW_FILTER");
}

static void bind_to_bench_if(int s)
{
	struct sockaddr_can addr = {
		.can_family = AF_CAN, .can_ifindex = ifindex,
	};

	if (bind(s, (struct sockaddr *)&addr, sizeof(addr)))
		die("bind");
}

/* The frames a scenario sends. */
enum frame_kind { FRAME_CC, FRAME_FD, FRAME_XL };

/* A bound raw socket for frames of @kind; @nf < 0 keeps the default filter. */
static int raw_socket(const struct can_filter *f, int nf, enum frame_kind kind)
{
	int s = socket(PF_CAN, SOCK_RAW, CAN_RAW);
	int on = 1;

	if (s < 0)
		die("socket");
	if (kind == FRAME_FD &&
	    setsockopt(s, SOL_CAN_RAW, CAN_RAW_FD_FRAMES, &on, sizeof(on)))
		die("CAN_RAW_FD_FRAMES");
	if (kind == FRAME_XL &&
	    setsockopt(s, SOL_CAN_RAW, CAN_RAW_XL_FRAMES, &on, sizeof(on)))
		die("CAN_RAW_XL_FRAMES");
	if (nf >= 0)
		set_filters(s, f, nf);
	bind_to_bench_if(s);
	return s;
}

/* A filter that never matches the frames we send, for receiver i. */
static struct can_filter missing_filter(const char *scenario, int i)
{
	static const canid_t masks[] = { 0x7FE, 0x7F0, CAN_EFF_FLAG | 0x1FFFFF00 };
	struct can_filter f;

	if (!strcmp(scenario, "sff")) {
		f.can_id = (SENT_SFF_ID + 1 + i) % 0x800;
		if (f.can_id == SENT_SFF_ID)
			f.can_id = 0;
		f.can_mask = CAN_SFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG;
	} else if (!strcmp(scenario, "eff")) {
		f.can_id = CAN_EFF_FLAG | ((SENT_EFF_ID + 1 + i * 7919) & CAN_EFF_MASK);
		f.can_mask = CAN_EFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG;
	} else if (!strcmp(scenario, "mask")) {
		f.can_mask = masks[i % 3];
		if (f.can_mask & CAN_EFF_FLAG)
			f.can_id = CAN_EFF_FLAG | ((i * 2654435761u) & 0x1FFFFF00);
		else
			f.can_id = (i * 37) & f.can_mask;
		/* Never the id we send. */
		if ((f.can_id & f.can_mask) == (SENT_SFF_ID & f.can_mask))
			f.can_id ^= 0x100;
	} else { /* invmix */
		switch (i % 3) {
		case 0:	/* inverted exact filter on the sent id: misses */
			f.can_id = SENT_SFF_ID | CAN_INV_FILTER;
			f.can_mask = CAN_SFF_MASK | CAN_EFF_FLAG;
			break;
		case 1:	/* error frames only */
			f.can_id = CAN_ERR_FLAG;
			f.can_mask = CAN_ERR_MASK;
			break;
		default:
			f.can_id = (SENT_SFF_ID + 1 + i) % 0x800;
			if (f.can_id == SENT_SFF_ID)
				f.can_id = 0;
			f.can_mask = CAN_SFF_MASK | CAN_EFF_FLAG;
		}
	}
	return f;
}

/* The first number in a file of /sys/kernel/slab/NAME, or 0. */
static long slab_attr(const char *cache, const char *attr)
{
	char path[512];
	long val = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/%s", cache, attr);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &val) != 1)
		val = 0;
	fclose(f);
	return val;
}

static void slab_shrink(const char *cache)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", cache);
	f = fopen(path, "w");
	if (f) {
		fputs("1", f);
		fclose(f);
	}
}

/*
 * Bytes held by slab objects in use, over every cache: objects times the
 * space one takes there. SLUB counts the free objects of per-CPU slabs as
 * used, so each cache is shrunk first, which hands those slabs back.
 * Merged caches appear once as a directory and again as symlinks.
 */
static long slab_bytes(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	long total = 0;

	if (!d)
		die("/sys/kernel/slab");
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_type != DT_DIR)
			continue;
		slab_shrink(e->d_name);
		total += slab_attr(e->d_name, "objects") *
			 slab_attr(e->d_name, "slab_size");
	}
	closedir(d);
	return total;
}

/* The sum to subtract from. Reading a sysfs file for the first time gives
 * it an inode and a dentry, which are slab objects too, so the files are
 * read once before the sum that counts.
 */
static long slab_baseline(void)
{
	slab_bytes();
	return slab_bytes();
}

static void raise_fd_limit(int n)
{
	struct rlimit rl = { n + 64, n + 64 };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit");
}

union any_frame {
	struct can_frame cc;
	struct canfd_frame fd;
	struct canxl_frame xl;
};

/* Fill @f with the largest frame of @kind; returns its size. */
static size_t make_frame(union any_frame *f, enum frame_kind kind)
{
	memset(f, 0, sizeof(*f));
	switch (kind) {
	case FRAME_XL:
		f->xl.prio = sent_id;
		f->xl.flags = CANXL_XLF;
		f->xl.len = CANXL_MAX_DLEN;
		return CANXL_MTU;
	case FRAME_FD:
		f->fd.can_id = sent_id;
		f->fd.len = CANFD_MAX_DLEN;
		return CANFD_MTU;
	default:
		f->cc.can_id = sent_id;
		f->cc.len = CAN_MAX_DLEN;
		return CAN_MTU;
	}
}

/* Whether @tx reports its frames: set by the "report" scenario. */
static int reporting;

/* Read the report of the frame just sent, which vcan (no echo) gives
 * before write() returns.
 */
static void read_report(int tx)
{
	char frame[CANXL_MTU], control[256];
	struct iovec iov = { frame, sizeof(frame) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};

	if (recvmsg(tx, &msg, MSG_ERRQUEUE) < 0)
		die("recvmsg(MSG_ERRQUEUE)");
}

/* Send FRAMES frames, each read back by every socket in rx[]. */
static double run_traffic(int tx, int *rx, int nrx, enum frame_kind kind,
			  long frames)
{
	static union any_frame out, in;
	size_t mtu = make_frame(&out, kind);
	unsigned char *first = kind == FRAME_XL ? out.xl.data : out.fd.data;
	long long start;
	long i;
	int r;

	start = now_ns();
	for (i = 0; i < frames; i++) {
		*first = i;
		if (write(tx, &out, mtu) != (ssize_t)mtu)
			die("write");
		if (reporting)
			read_report(tx);
		for (r = 0; r < nrx; r++)
			if (read(rx[r], &in, sizeof(in)) != (ssize_t)mtu)
				die("read");
	}
	return (double)(now_ns() - start) / frames;
}

/* Frames "noread" sends between two emptyings of the receive queues: few
 * enough for the default SO_RCVBUF.
 */
#define NOREAD_BATCH 32

/* Like run_traffic(), but only the writes are timed: the receivers read
 * their frames after each batch, off the clock.
 */
static double run_noread(int tx, int *rx, int nrx, long frames)
{
	static union any_frame out, in;
	size_t mtu = make_frame(&out, FRAME_CC);
	long long spent = 0, start;
	long i, done = 0;
	int r;

	while (done < frames) {
		start = now_ns();
		for (i = 0; i < NOREAD_BATCH; i++) {
			out.cc.data[0] = done + i;
			if (write(tx, &out, mtu) != (ssize_t)mtu)
				die("write");
		}
		spent += now_ns() - start;
		for (r = 0; r < nrx; r++)
			for (i = 0; i < NOREAD_BATCH; i++)
				if (read(rx[r], &in, sizeof(in)) != (ssize_t)mtu)
					die("read");
		done += NOREAD_BATCH;
	}
	return (double)spent / done;
}

/* An AF_PACKET socket on the bench interface: ETH_P_CAN to send, ETH_P_ALL
 * to see every frame the device transmits.
 */
static int packet_socket(int protocol)
{
	struct sockaddr_ll addr = {
		.sll_family = AF_PACKET, .sll_protocol = htons(protocol),
		.sll_ifindex = ifindex,
	};
	int s = socket(AF_PACKET, SOCK_RAW, htons(protocol));

	if (s < 0)
		die("socket(AF_PACKET)");
	if (bind(s, (struct sockaddr *)&addr, sizeof(addr)))
		die("bind(AF_PACKET)");
	return s;
}

static int *open_missing(const char *scenario, int n)
{
	int *s = calloc(n + 1, sizeof(int));
	int i;

	for (i = 0; i < n; i++) {
		struct can_filter f = missing_filter(scenario, i);

		s[i] = raw_socket(&f, 1, FRAME_CC);
	}
	return s;
}

/*
 * Slab bytes per filter: MEMFILT_SOCKETS sockets get @n filters each, on
 * top of what a socket without filters costs, so that the measurement
 * noise (some kilobytes) spreads over many filters.
 */
#define MEMFILT_SOCKETS 20

static double filter_bytes(int n)
{
	struct can_filter *f = calloc(n, sizeof(*f));
	int s[MEMFILT_SOCKETS], i;
	long before;

	for (i = 0; i < n; i++)
		f[i] = missing_filter("sff", i);
	for (i = 0; i < MEMFILT_SOCKETS; i++) {
		s[i] = socket(PF_CAN, SOCK_RAW, CAN_RAW);
		if (s[i] < 0)
			die("socket");
		set_filters(s[i], NULL, 0);
	}
	before = slab_baseline();
	for (i = 0; i < MEMFILT_SOCKETS; i++) {
		set_filters(s[i], f, n);
		bind_to_bench_if(s[i]);
	}
	return (double)(slab_bytes() - before) / (MEMFILT_SOCKETS * n);
}

int main(int argc, char **argv)
{
	struct can_filter match = { SENT_SFF_ID, CAN_SFF_MASK | CAN_EFF_FLAG };
	const char *scenario;
	long frames = 2000;
	int n, tx, rx, i;
	double cost;

	if (argc < 4) {
		fprintf(stderr, "usage: %s IFNAME SCENARIO N [FRAMES]\n", argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex)
		die(argv[1]);
	scenario = argv[2];
	n = atoi(argv[3]);
	if (argc > 4)
		frames = atol(argv[4]);
	raise_fd_limit(n + 16);

	if (!strcmp(scenario, "loop") || !strcmp(scenario, "loopfd") ||
	    !strcmp(scenario, "xl")) {
		enum frame_kind kind = !strcmp(scenario, "xl") ? FRAME_XL :
				       !strcmp(scenario, "loopfd") ? FRAME_FD :
				       FRAME_CC;

		tx = raw_socket(NULL, 0, kind);
		rx = raw_socket(&match, 1, kind);
		cost = run_traffic(tx, &rx, 1, kind, frames);
	} else if (!strcmp(scenario, "report")) {
		int on = 1;

		tx = raw_socket(NULL, 0, FRAME_CC);
		rx = raw_socket(&match, 1, FRAME_CC);
		reporting = !setsockopt(tx, SOL_CAN_RAW, CAN_RAW_TX_REPORT,
					&on, sizeof(on));
		cost = run_traffic(tx, &rx, 1, FRAME_CC, frames);
	} else if (!strcmp(scenario, "all")) {
		int *rxs = calloc(n, sizeof(int));

		tx = raw_socket(NULL, 0, FRAME_CC);
		for (i = 0; i < n; i++)
			rxs[i] = raw_socket(NULL, -1, FRAME_CC);
		cost = run_traffic(tx, rxs, n, FRAME_CC, frames / (n > 10 ? 10 : 1));
	} else if (!strcmp(scenario, "noread")) {
		int *rxs = calloc(n, sizeof(int));

		tx = raw_socket(NULL, 0, FRAME_CC);
		for (i = 0; i < n; i++)
			rxs[i] = raw_socket(NULL, -1, FRAME_CC);
		cost = run_noread(tx, rxs, n, frames / (n > 10 ? 10 : 1));
	} else if (!strcmp(scenario, "send") || !strcmp(scenario, "echo")) {
		int loopback = !strcmp(scenario, "echo");

		tx = raw_socket(NULL, 0, FRAME_CC);
		if (setsockopt(tx, SOL_CAN_RAW, CAN_RAW_LOOPBACK, &loopback,
			       sizeof(loopback)))
			die("CAN_RAW_LOOPBACK");
		cost = run_traffic(tx, NULL, 0, FRAME_CC, frames);
	} else if (!strcmp(scenario, "pkt") || !strcmp(scenario, "pktsend")) {
		int tap = !strcmp(scenario, "pkt");

		tx = packet_socket(ETH_P_CAN);
		if (tap)
			rx = packet_socket(ETH_P_ALL);
		cost = run_traffic(tx, &rx, tap, FRAME_CC, frames);
	} else if (!strcmp(scenario, "regtime")) {
		long long start = now_ns();

		open_missing("sff", n);
		cost = now_ns() - start;
	} else if (!strcmp(scenario, "memsock")) {
		long before = slab_baseline();

		open_missing("sff", n);
		cost = (double)(slab_bytes() - before) / n;
	} else if (!strcmp(scenario, "memfilt")) {
		cost = filter_bytes(n);
	} else {
		if (!strcmp(scenario, "eff")) {
			sent_id = CAN_EFF_FLAG | SENT_EFF_ID;
			match.can_id = sent_id;
			match.can_mask = CAN_EFF_MASK | CAN_EFF_FLAG;
		}
		tx = raw_socket(NULL, 0, FRAME_CC);
		rx = raw_socket(&match, 1, FRAME_CC);
		open_missing(scenario, n);
		cost = run_traffic(tx, &rx, 1, FRAME_CC, frames);
	}
	printf("%s %d %.0f\n", scenario, n, cost);
	return 0;
}
