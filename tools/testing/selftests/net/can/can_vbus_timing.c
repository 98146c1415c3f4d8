// SPDX-License-Identifier: GPL-2.0
/*
 * Wire timing and arbitration of the virtual CAN bus (can-vbus).
 *
 * The test counts the bits of every frame itself, from the frame formats
 * of ISO 11898-1: classic frames with their CRC-15 and the bit stuffing
 * it causes, CAN FD frames with dynamic stuffing up to the end of the
 * data field and the fixed-stuffed CRC field, bits after BRS at the data
 * bitrate. Back-to-back frames must then follow each other on the
 * receiver exactly by that arithmetic, the sender's echo must carry the
 * receiver's timestamp, contending nodes must win arbitration by their
 * arbitration fields, and a node alone on the bus must stop at TEC 128.
 *
 * Each test runs in a network namespace of its own (the harness forks
 * each test), so its nodes make up a bus nobody else is on.
 */

#include <math.h>
#include <pthread.h>
#include <stdint.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"
#include "lib/can_test_vbus.h"

#define VB_MAX_NODES	6
/* Plenty of buffer, so that neither writer nor reader has to keep pace. */
#define VB_SOCKBUF	(8 << 20)

/* ---- the bits of a frame, from the frame formats --------------------- */

/* The bits of a frame before stuffing, and where BRS is among them. */
struct vb_stream {
	uint8_t bit[1 + 32 + 8 + 64 * 8 + 16];
	unsigned int len;
	int brs_at;		/* index of the BRS bit, -1 if none */
};

static void vb_put(struct vb_stream *s, uint32_t val, unsigned int nbits)
{
	while (nbits--)
		s->bit[s->len++] = (val >> nbits) & 1;
}

/* CRC-15/CAN: x^15 + x^14 + x^10 + x^8 + x^7 + x^4 + x^3 + 1, from 0. */
static uint16_t vb_crc15(const struct vb_stream *s)
{
	uint16_t crc = 0;
	unsigned int i;

	for (i = 0; i < s->len; i++) {
		bool top = ((crc >> 14) & 1) ^ s->bit[i];

		crc = (crc << 1) & 0x7fff;
		if (top)
			crc ^= 0x4599;
	}
	return crc;
}

static const uint8_t vb_fd_lens[16] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64
};

static unsigned int vb_fd_dlc(unsigned int len)
{
	unsigned int dlc;

	for (dlc = 0; dlc < 15 && vb_fd_lens[dlc] < len; dlc++)
		;
	return dlc;
}

/*
 * SOF up to the end of the data field (dominant = 0). Classic base:
 * SOF ID[11] RTR IDE r0 DLC[4]; classic extended: SOF ID[28:18] SRR IDE
 * ID[17:0] RTR r1 r0 DLC[4]. CAN FD replaces RTR by RRS (always dominant)
 * and r0/r1 by FDF (recessive) res BRS ESI.
 */
static void vb_header(struct vb_stream *s, const struct canfd_frame *cf,
		      bool fd)
{
	bool eff = cf->can_id & CAN_EFF_FLAG;
	bool rtr = !fd && (cf->can_id & CAN_RTR_FLAG);
	unsigned int i, dlc, ndata;

	s->len = 0;
	s->brs_at = -1;
	vb_put(s, 0, 1);				/* SOF */
	if (eff) {
		vb_put(s, (cf->can_id & CAN_EFF_MASK) >> 18, 11);
		vb_put(s, 1, 1);			/* SRR */
		vb_put(s, 1, 1);			/* IDE */
		vb_put(s, cf->can_id & 0x3ffff, 18);
	} else {
		vb_put(s, cf->can_id & CAN_SFF_MASK, 11);
	}
	vb_put(s, rtr, 1);				/* RTR / RRS */
	if (!eff)
		vb_put(s, 0, 1);			/* IDE */
	if (fd) {
		vb_put(s, 1, 1);			/* FDF */
		vb_put(s, 0, 1);			/* res */
		s->brs_at = s->len;
		vb_put(s, !!(cf->flags & CANFD_BRS), 1);
		vb_put(s, 0, 1);			/* ESI: error active */
		dlc = vb_fd_dlc(cf->len);
		ndata = vb_fd_lens[dlc];
	} else {
		if (eff)
			vb_put(s, 0, 1);		/* r1 */
		vb_put(s, 0, 1);			/* r0 */
		dlc = cf->len;
		ndata = rtr ? 0 : cf->len;
	}
	vb_put(s, dlc, 4);
	for (i = 0; i < ndata; i++)
		vb_put(s, i < cf->len ? cf->data[i] : 0, 8);
}

/*
 * Stuff bits the transmitter inserts into bits [0, end): one after every
 * five equal bits, itself the start of the next run. @after_last: whether
 * a stuff bit due after the last bit counts. @split: stuff bits that come
 * after bit @split go to *@late, the others are returned.
 */
static unsigned int vb_stuff(const struct vb_stream *s, unsigned int end,
			     bool after_last, int split, unsigned int *late)
{
	unsigned int i, run = 0, early = 0;
	int prev = -1;

	*late = 0;
	for (i = 0; i < end; i++) {
		if (s->bit[i] == prev) {
			run++;
		} else {
			run = 1;
			prev = s->bit[i];
		}
		if (run < 5 || (i == end - 1 && !after_last))
			continue;
		if (split >= 0 && (int)i >= split)
			(*late)++;
		else
			early++;
		prev = !prev;
		run = 1;
	}
	return early;
}

/* Bit times of a frame at the nominal and the data bitrate. */
struct vb_bits {
	unsigned int nominal;
	unsigned int data;
};

static struct vb_bits vb_frame_bits(const struct canfd_frame *cf, bool fd)
{
	struct vb_stream s;
	struct vb_bits b = {};
	unsigned int late, crc_field;

	vb_header(&s, cf, fd);
	if (!fd) {
		/* CRC-15 joins the stuffed part; then CRC delimiter, ACK
		 * slot, ACK delimiter, EOF (7) and intermission (3).
		 */
		vb_put(&s, vb_crc15(&s), 15);
		b.nominal = s.len + vb_stuff(&s, s.len, true, -1, &late) + 13;
		return b;
	}
	/*
	 * CAN FD: dynamic stuffing ends with the data field (the fixed
	 * stuff bit that opens the CRC field takes the place of one due
	 * there). CRC field: stuff count (4), CRC-17 or CRC-21, a fixed
	 * stuff bit before the first and after every fourth bit: 4 + 17 +
	 * 6 = 27 or 4 + 21 + 7 = 32 bits. With BRS the bits after BRS up to
	 * the CRC delimiter are at the data bitrate.
	 */
	crc_field = vb_fd_lens[vb_fd_dlc(cf->len)] > 16 ? 32 : 27;
	if (cf->flags & CANFD_BRS) {
		b.nominal = s.brs_at + 1 +
			    vb_stuff(&s, s.len, false, s.brs_at, &late);
		b.data = s.len - (s.brs_at + 1) + late + crc_field + 1;
	} else {
		b.nominal = s.len + vb_stuff(&s, s.len, false, -1, &late) +
			    crc_field + 1;
	}
	b.nominal += 12;	/* ACK slot and delimiter, EOF, intermission */
	return b;
}

static double vb_frame_ns(const struct canfd_frame *cf, bool fd,
			  unsigned int bitrate, unsigned int dbitrate)
{
	struct vb_bits b = vb_frame_bits(cf, fd);

	return b.nominal * 1e9 / bitrate + (b.data ? b.data * 1e9 / dbitrate : 0);
}

/* ---- nodes and the bus ----------------------------------------------- */

struct vb_bus {
	char names[VB_MAX_NODES][IFNAMSIZ];
	int nodes;
	char dir[96];	/* the bus's debugfs directory */
};

/*
 * Load the module, move into a namespace of our own and see to debugfs.
 * Returns NULL or what went wrong.
 */
static const char *vb_enter(struct vb_bus *bus)
{
	const char *why;

	memset(bus, 0, sizeof(*bus));
	why = vbus_enter("can-vbus", bus->dir, sizeof(bus->dir));
	if (why)
		return why;
	if (access(VBUS_DEBUGFS "/can_vbus", F_OK))
		return "no can_vbus in debugfs";
	return NULL;
}

/* Create node vbtN (down) with @bitrate, CAN FD if @dbitrate. */
static int vb_node_add(struct vb_bus *bus, unsigned int bitrate,
		       unsigned int dbitrate, unsigned int txqlen)
{
	char *name = bus->names[bus->nodes];
	char fd[64] = "";

	snprintf(name, IFNAMSIZ, "vbt%d", bus->nodes);
	if (dbitrate)
		snprintf(fd, sizeof(fd), " fd on dbitrate %u", dbitrate);
	if (vbus_sh("ip link add dev %s txqueuelen %u type can bitrate %u%s",
		    name, txqlen, bitrate, fd))
		return -1;
	return bus->nodes++;
}

static void vb_leave(struct vb_bus *bus)
{
	while (bus->nodes > 0)
		vbus_sh("ip link del dev %s", bus->names[--bus->nodes]);
}

static long long vb_bus_stat(const struct vb_bus *bus, const char *key)
{
	return vbus_stat(bus->dir, key);
}

/* A node's counters: state (into @state), tec, rec; false if unreadable. */
static bool vb_counters(const struct vb_bus *bus, int node, char *state,
			int *tec, int *rec)
{
	char path[192], *text, *p;

	snprintf(path, sizeof(path), "%s/%s/counters", bus->dir,
		 bus->names[node]);
	text = ct_read_file(path);
	if (!text)
		return false;
	*tec = -1;
	*rec = -1;
	state[0] = '\0';
	p = strstr(text, "state ");
	if (p)
		sscanf(p + 6, "%31s", state);
	p = strstr(text, "tec ");
	if (p)
		*tec = atoi(p + 4);
	p = strstr(text, "rec ");
	if (p)
		*rec = atoi(p + 4);
	free(text);
	return *tec >= 0 && *rec >= 0 && state[0];
}

/* A CAN_RAW socket on node @node with nanosecond timestamps. */
static int vb_socket(const struct vb_bus *bus, int node, bool fd, bool own)
{
	int sock = ct_raw_open(if_nametoindex(bus->names[node]));
	int one = 1, size = VB_SOCKBUF;

	if (sock < 0)
		return -1;
	if (setsockopt(sock, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ||
	    setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) ||
	    setsockopt(sock, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) ||
	    (fd && ct_setopt_int(sock, CAN_RAW_FD_FRAMES, 1)) ||
	    (own && ct_setopt_int(sock, CAN_RAW_RECV_OWN_MSGS, 1))) {
		close(sock);
		return -1;
	}
	return sock;
}

/* Send one frame, waiting out a full queue; 0 or -errno. */
static int vb_send(int sock, const struct canfd_frame *cf, bool fd)
{
	size_t size = fd ? CANFD_MTU : CAN_MTU;
	int tries;

	for (tries = 0; tries < 20000; tries++) {
		if (write(sock, cf, size) == (ssize_t)size)
			return 0;
		if (errno != ENOBUFS && errno != EAGAIN)
			return -errno;
		usleep(100);
	}
	return -ETIMEDOUT;
}

/* Receive a frame and its timestamp (ns, CLOCK_REALTIME); size or -err. */
static int vb_recv(int sock, struct canfd_frame *cf, long long *ts, int ms)
{
	char ctrl[CMSG_SPACE(sizeof(struct timespec)) * 2];
	struct iovec iov = { .iov_base = cf, .iov_len = sizeof(*cf) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl, .msg_controllen = sizeof(ctrl),
	};
	struct cmsghdr *cm;
	struct timespec t;
	ssize_t n;

	if (!ct_wait_readable(sock, ms))
		return -ETIMEDOUT;
	memset(cf, 0, sizeof(*cf));
	n = recvmsg(sock, &msg, MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	*ts = -1;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_TIMESTAMPNS) {
			memcpy(&t, CMSG_DATA(cm), sizeof(t));
			*ts = t.tv_sec * 1000000000LL + t.tv_nsec;
		}
	}
	return n;
}

static bool vb_same_frame(const struct canfd_frame *a,
			  const struct canfd_frame *b, bool fd)
{
	if (a->can_id != b->can_id || a->len != b->len)
		return false;
	if (!fd && (a->can_id & CAN_RTR_FLAG))
		return true;
	return !memcmp(a->data, b->data, a->len);
}

/* xorshift32: the same frames on every run */
static uint32_t vb_rand(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

static void vb_random_frame(struct canfd_frame *cf, bool fd, bool brs,
			    uint32_t *seed)
{
	uint32_t r = vb_rand(seed);
	unsigned int i;

	memset(cf, 0, sizeof(*cf));
	if (r & 1)
		cf->can_id = (vb_rand(seed) & CAN_EFF_MASK) | CAN_EFF_FLAG;
	else
		cf->can_id = vb_rand(seed) & CAN_SFF_MASK;
	r = vb_rand(seed);
	if (fd) {
		/* mostly long frames, which let the FIFO bridge more */
		cf->len = vb_fd_lens[(r >> 4) & 1 ? 8 + r % 8 : r % 16];
		cf->flags = brs ? CANFD_BRS : 0;
	} else {
		cf->len = r % 9;
		if (!((r >> 8) & 7))
			cf->can_id |= CAN_RTR_FLAG;
	}
	/* all-zero and all-one bytes now and then: long stuffed runs */
	for (i = 0; i < cf->len; i++) {
		r = vb_rand(seed);
		cf->data[i] = (r & 0x300) == 0 ? 0 : (r & 0x300) == 0x100 ?
			      0xff : r & 0xff;
	}
	if (!fd && (cf->can_id & CAN_RTR_FLAG))
		memset(cf->data, 0, sizeof(cf->data));
}

/* ---- the bit arithmetic itself --------------------------------------- */

/*
 * Frames counted by hand, to pin the arithmetic the other tests rely on.
 * The CRC-15 is checked against the check value of the CRC catalogue.
 */
TEST(bit_arithmetic)
{
	struct canfd_frame cf = {};
	struct vb_stream s;
	struct vb_bits b;
	unsigned int late, i;

	/* CRC-15 of the unstuffed bits of SFF 0x000, len 0: all zero */
	vb_header(&s, &cf, false);
	ASSERT_EQ(19, s.len);
	EXPECT_EQ(0, vb_crc15(&s));
	/* 19 + 15 dominant bits: a recessive stuff bit after every fifth,
	 * none after the 34th (the fourth of its run): 6.
	 */
	vb_put(&s, 0, 15);
	EXPECT_EQ(6, vb_stuff(&s, s.len, true, -1, &late));
	b = vb_frame_bits(&cf, false);
	EXPECT_EQ(34 + 6 + 13, b.nominal);
	EXPECT_EQ(0, b.data);

	/* A stuff bit is the first bit of the next run:
	 * 0 0 0 0 0 [1] 1 1 1 1 [0] 1
	 */
	s.len = 0;
	vb_put(&s, 0, 5);
	vb_put(&s, 0xf, 4);
	EXPECT_EQ(2, vb_stuff(&s, s.len, true, -1, &late));
	/* one due after the last bit counts only where asked to */
	EXPECT_EQ(1, vb_stuff(&s, s.len, false, -1, &late));
	vb_put(&s, 1, 1);
	EXPECT_EQ(2, vb_stuff(&s, s.len, false, -1, &late));
	/* and one after bit @split goes to the late ones */
	EXPECT_EQ(1, vb_stuff(&s, s.len, true, 5, &late));
	EXPECT_EQ(1, late);

	/* "123456789" */
	s.len = 0;
	for (i = 0; i < 9; i++)
		vb_put(&s, '1' + i, 8);
	EXPECT_EQ(0x059e, vb_crc15(&s));

	/* An EFF frame is 20 bits longer before stuffing (SRR, IDE, 18 id
	 * bits, r1) and has no stuffing at all with alternating id bits.
	 */
	cf.can_id = CAN_EFF_FLAG | 0x0aaaaaaa;
	vb_header(&s, &cf, false);
	EXPECT_EQ(39, s.len);

	/* CAN FD, 64 bytes with BRS: 1 + 11 + RRS IDE FDF res BRS = 17 bits
	 * nominal before stuffing, ESI DLC 512 data bits, the 32-bit CRC
	 * field and the delimiter fast, 12 bits nominal after.
	 */
	memset(&cf, 0x55, sizeof(cf));
	cf.can_id = 0x555;
	cf.len = 64;
	cf.flags = CANFD_BRS;
	b = vb_frame_bits(&cf, true);
	EXPECT_EQ(17 + 12, b.nominal);
	/* ... ESI 0, DLC 1111, data 0101...: no stuffing anywhere */
	EXPECT_EQ(1 + 4 + 512 + 32 + 1, b.data);
	cf.len = 16;
	b = vb_frame_bits(&cf, true);
	EXPECT_EQ(1 + 4 + 128 + 27 + 1, b.data);
	cf.flags = 0;
	b = vb_frame_bits(&cf, true);
	EXPECT_EQ(17 + 1 + 4 + 128 + 27 + 1 + 12, b.nominal);
	EXPECT_EQ(0, b.data);
}

/* ---- stalls of the guest --------------------------------------------- */

/*
 * A guest on a busy host stops now and then for milliseconds: the bus's
 * timer runs late, the sender's FIFO (4 frames) is done long before the
 * stack gets to refill it, and the bus idles. That is the sender falling
 * behind, not the bus being slow. A thread that sleeps 500 us at a time
 * sees the same stalls as oversleeping by more than 100 us (short ones
 * are routine on a TCG guest, and its FIFO bridges no more than 4 frames
 * of 40 to 150 us at 1M/5M) and notes them (CLOCK_REALTIME,
 * as the frames' timestamps), so that idle time on the bus can be told
 * apart: idle within a stall is the guest's, idle outside one the bus's.
 */
#define VB_CANARY_NS		500000LL
#define VB_CANARY_LATE_NS	100000LL
#define VB_CANARY_MAX		4096

struct vb_canary {
	pthread_t thread;
	bool stop;		/* __atomic */
	unsigned int count;
	long long from[VB_CANARY_MAX];
	long long to[VB_CANARY_MAX];
};

static void *vb_canary_run(void *arg)
{
	struct timespec nap = { .tv_nsec = VB_CANARY_NS };
	struct vb_canary *c = arg;
	long long before, after;

	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED) &&
	       c->count < VB_CANARY_MAX) {
		before = ct_now_ns(CLOCK_REALTIME);
		nanosleep(&nap, NULL);
		after = ct_now_ns(CLOCK_REALTIME);
		if (after - before - VB_CANARY_NS > VB_CANARY_LATE_NS) {
			c->from[c->count] = before + VB_CANARY_NS;
			c->to[c->count++] = after;
		}
	}
	return NULL;
}

/*
 * Whether the canary saw the guest stalled while the bus idled over
 * [@from, @to). It only notices a stall when its nap ends, so a stall
 * that overlaps the idle time at all is taken to be its cause.
 */
static bool vb_stalled(const struct vb_canary *c, long long from, long long to)
{
	unsigned int i;

	for (i = 0; i < c->count; i++)
		if (c->from[i] - VB_CANARY_NS < to && c->to[i] > from)
			return true;
	return false;
}

/* ---- pacing of back-to-back frames ----------------------------------- */

#define VB_WARMUP	32

FIXTURE(pacing)
{
	struct vb_bus bus;
};

FIXTURE_VARIANT(pacing)
{
	const char *name;
	unsigned int bitrate;
	unsigned int dbitrate;	/* CAN FD if not 0 */
	bool brs;
	unsigned int frames;
};

FIXTURE_VARIANT_ADD(pacing, classic_125k) {
	.name = "classic 125k", .bitrate = 125000, .frames = 300,
};

FIXTURE_VARIANT_ADD(pacing, classic_500k) {
	.name = "classic 500k", .bitrate = 500000, .frames = 500,
};

FIXTURE_VARIANT_ADD(pacing, classic_1m) {
	.name = "classic 1M", .bitrate = 1000000, .frames = 800,
};

FIXTURE_VARIANT_ADD(pacing, fd_1m_5m_brs) {
	.name = "FD 1M/5M BRS", .bitrate = 1000000, .dbitrate = 5000000,
	.brs = true, .frames = 800,
};

FIXTURE_VARIANT_ADD(pacing, fd_1m_5m_nobrs) {
	.name = "FD 1M/5M no BRS", .bitrate = 1000000, .dbitrate = 5000000,
	.frames = 500,
};

FIXTURE_SETUP(pacing)
{
	const char *err = vb_enter(&self->bus);

	ASSERT_EQ(NULL, err) TH_LOG("%s", err);
	/* the sender's qdisc holds the whole train */
	ASSERT_EQ(0, vb_node_add(&self->bus, variant->bitrate,
				 variant->dbitrate, 2 * variant->frames));
	ASSERT_EQ(1, vb_node_add(&self->bus, variant->bitrate,
				 variant->dbitrate, 10));
	ASSERT_EQ(0, ct_link_set_up(self->bus.names[0], true));
	ASSERT_EQ(0, ct_link_set_up(self->bus.names[1], true));
}

FIXTURE_TEARDOWN(pacing)
{
	vb_leave(&self->bus);
}

/*
 * Node 0 sends a train of frames, node 1 receives them. The whole train
 * waits in node 0's plug qdisc and is released at once, so from then on
 * only the stack refills the sender's FIFO and each frame starts when
 * the one before ends: the gap between two receive timestamps is the
 * later frame's duration by the bit arithmetic, within 1%. A gap may be
 * longer where the FIFO ran dry (the guest stalled), never shorter; over
 * the whole train, with the idle time of stalls the canary saw taken
 * out, the rate must be the arithmetic's within 2%. The sender's own
 * echo carries the timestamp of the receiver's copy, to the nanosecond.
 */
TEST_F_TIMEOUT(pacing, back_to_back, 120)
{
	bool fd = variant->dbitrate;
	unsigned int n = variant->frames, i, chained = 0, slow = 0, fast = 0;
	unsigned int echo_equal = 0;
	struct canfd_frame *sent, got;
	long long *rx_ts, *echo_ts, ts, stalled_ns = 0;
	double expect_ns = 0, err, max_err = 0, sum_abs_err = 0, measured_ns;
	double worst_fast = 0, busy_ns, busy_err;
	struct vb_canary *canary = calloc(1, sizeof(*canary));
	bool stall;
	uint32_t seed = 0x1badb002 ^ variant->bitrate ^ variant->brs;
	int tx, rx, len;

	sent = calloc(n, sizeof(*sent));
	rx_ts = calloc(n, sizeof(*rx_ts));
	echo_ts = calloc(n, sizeof(*echo_ts));
	ASSERT_TRUE(sent && rx_ts && echo_ts && canary);
	/* The debug kernel has no tc qdiscs (no CONFIG_NET_SCHED). */
	if (vbus_sh("modprobe -q sch_plug 2>/dev/null"))
		SKIP(return, "no plug qdisc (sch_plug): the train cannot be held back");
	for (i = 0; i < n; i++)
		vb_random_frame(&sent[i], fd, variant->brs, &seed);

	tx = vb_socket(&self->bus, 0, fd, true);
	rx = vb_socket(&self->bus, 1, fd, false);
	ASSERT_LE(0, tx);
	ASSERT_LE(0, rx);

	/* A first train runs the code paths once (TCG translates them),
	 * then the measured one goes to the plug in one piece and leaves
	 * it at once: from then on only the stack refills the FIFO.
	 */
	for (i = 0; i < VB_WARMUP; i++)
		ASSERT_EQ(0, vb_send(tx, &sent[i], fd));
	for (i = 0; i < VB_WARMUP; i++) {
		ASSERT_LT(0, vb_recv(rx, &got, &ts, CT_RX_TIMEOUT_MS));
		ASSERT_LT(0, vb_recv(tx, &got, &ts, CT_RX_TIMEOUT_MS));
	}
	ASSERT_EQ(0, vbus_sh("tc qdisc replace dev %s root plug limit 10000000",
			     self->bus.names[0]))
		TH_LOG("no plug qdisc (sch_plug)");
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, vb_send(tx, &sent[i], fd)) TH_LOG("frame %u", i);
		expect_ns += vb_frame_ns(&sent[i], fd, variant->bitrate,
					 variant->dbitrate);
	}
	ASSERT_EQ(0, pthread_create(&canary->thread, NULL, vb_canary_run,
				    canary));
	ASSERT_EQ(0, vbus_sh("tc qdisc change dev %s root plug release_indefinite",
			     self->bus.names[0]));
	/* and the reader keeps out of the way until the train is over */
	usleep(expect_ns / 1000 + 20000);
	expect_ns = 0;

	for (i = 0; i < n; i++) {
		len = vb_recv(rx, &got, &rx_ts[i], CT_RX_TIMEOUT_MS);
		ASSERT_LT(0, len) TH_LOG("frame %u of %u not received: %d",
					 i, n, len);
		ASSERT_TRUE(vb_same_frame(&got, &sent[i], fd))
			TH_LOG("frame %u: id %x len %u, sent id %x len %u", i,
			       got.can_id, got.len, sent[i].can_id, sent[i].len);
		ASSERT_LT(0, rx_ts[i]);
	}
	__atomic_store_n(&canary->stop, true, __ATOMIC_RELAXED);
	pthread_join(canary->thread, NULL);
	EXPECT_TRUE(ct_is_quiet(rx));
	for (i = 0; i < n; i++) {
		len = vb_recv(tx, &got, &echo_ts[i], CT_RX_TIMEOUT_MS);
		ASSERT_LT(0, len) TH_LOG("echo %u of %u missing: %d", i, n, len);
		ASSERT_TRUE(vb_same_frame(&got, &sent[i], fd))
			TH_LOG("echo %u: id %x", i, got.can_id);
		if (echo_ts[i] == rx_ts[i])
			echo_equal++;
		else if (i - echo_equal < 5)
			TH_LOG("echo %u at %lld, received at %lld", i,
			       echo_ts[i], rx_ts[i]);
	}

	for (i = 1; i < n; i++) {
		double want = vb_frame_ns(&sent[i], fd, variant->bitrate,
					  variant->dbitrate);

		ts = rx_ts[i] - rx_ts[i - 1];
		expect_ns += want;
		err = (ts - want) / want;
		if (err < -0.01) {
			fast++;
			if (err < worst_fast)
				worst_fast = err;
			if (fast <= 5)
				TH_LOG("frame %u (id %x len %u): gap %lld ns, expected %.0f ns",
				       i, sent[i].can_id, sent[i].len, ts, want);
		} else if (err > 0.01) {
			/* the bus idled from rx_ts[i - 1] for ts - want */
			slow++;
			stall = vb_stalled(canary, rx_ts[i - 1],
					   rx_ts[i] - (long long)want);
			if (stall)
				stalled_ns += ts - want;
			if (slow <= 10 || !stall)
				TH_LOG("frame %u: %.0f us late, %s",
				       i, (ts - want) / 1e3,
				       stall ? "the guest stalled" :
				       "no stall of the guest seen");
		} else {
			chained++;
			sum_abs_err += fabs(err);
			if (fabs(err) > max_err)
				max_err = fabs(err);
		}
	}
	measured_ns = rx_ts[n - 1] - rx_ts[0];
	err = (expect_ns / measured_ns - 1) * 100;
	busy_ns = measured_ns - stalled_ns;
	busy_err = (expect_ns / busy_ns - 1) * 100;
	TH_LOG("%s: %u frames in %.3f ms, arithmetic %.3f ms: %.1f vs %.1f frames/s (%+.3f%%)",
	       variant->name, n, measured_ns / 1e6, expect_ns / 1e6,
	       (n - 1) * 1e9 / measured_ns, (n - 1) * 1e9 / expect_ns, err);
	TH_LOG("%s: guest stalls (%u seen) idled the bus for %.3f ms;",
	       variant->name, canary->count, stalled_ns / 1e6);
	TH_LOG("%s: without them %.1f frames/s (%+.3f%%)",
	       variant->name, (n - 1) * 1e9 / busy_ns, busy_err);
	TH_LOG("%s: gaps within 1%%: %u (max error %.4f%%, mean %.4f%%),",
	       variant->name, chained, max_err * 100,
	       chained ? sum_abs_err * 100 / chained : 0.0);
	TH_LOG("%s: longer: %u, shorter: %u; echo = rx timestamp: %u/%u",
	       variant->name, slow, fast, echo_equal, n);

	EXPECT_EQ(0, fast) TH_LOG("worst gap %.2f%% short", worst_fast * 100);
	/* the bus's own rate: idle time outside stalls of the guest counts */
	EXPECT_GE(2.0, fabs(busy_err));
	/* a train that never chained measured nothing */
	EXPECT_LE(n / 2, chained);
	EXPECT_EQ(n, echo_equal);

	close(tx);
	close(rx);
	free(sent);
	free(rx_ts);
	free(echo_ts);
	free(canary);
}

/* ---- arbitration ----------------------------------------------------- */

/*
 * The arbitration field as the bits a node drives, dominant (0) first
 * wins: base ID, RTR (SRR for EFF), IDE, then for EFF ID[17:0] and RTR.
 * @bits gets the field, the return value its length.
 */
static unsigned int vb_arb_field(canid_t id, uint8_t *bits)
{
	struct vb_stream s;
	struct canfd_frame cf = { .can_id = id };

	vb_header(&s, &cf, false);
	/* skip SOF; SFF: ID RTR IDE (13), EFF: ID SRR IDE ID RTR (32) */
	memcpy(bits, s.bit + 1, 32);
	return id & CAN_EFF_FLAG ? 32 : 13;
}

/* Whether @a's frame beats @b's when both start at the same bit. */
static bool vb_beats(canid_t a, canid_t b)
{
	uint8_t ba[32], bb[32];
	unsigned int la = vb_arb_field(a, ba), lb = vb_arb_field(b, bb), i;

	for (i = 0; i < la && i < lb; i++)
		if (ba[i] != bb[i])
			return ba[i] < bb[i];
	return false;
}

#define VB_ARB_MAX	4	/* frames per contender: its FIFO holds them */

struct vb_contender {
	canid_t ids[VB_ARB_MAX];
	unsigned int count;
};

FIXTURE(arbitration)
{
	struct vb_bus bus;
};

FIXTURE_VARIANT(arbitration)
{
	unsigned int nodes;
	struct vb_contender c[3];
};

/*
 * Each contender's frames go in its FIFO order. Pairs that meet at the
 * head of two FIFOs: SFF 0x123 and EFF with base 0x123, data and remote
 * SFF 0x200, data and remote EFF 0x1234567, lower id first otherwise.
 */
FIXTURE_VARIANT_ADD(arbitration, two_nodes) {
	.nodes = 2,
	.c = {
		{ { 0x123, 0x200, CAN_EFF_FLAG | 0x1234567, 0x7f0 }, 4 },
		{ { CAN_EFF_FLAG | (0x123 << 18) | 0x15, 0x200 | CAN_RTR_FLAG,
		    CAN_EFF_FLAG | CAN_RTR_FLAG | 0x1234567, 0x050 }, 4 },
	},
};

FIXTURE_VARIANT_ADD(arbitration, three_nodes) {
	.nodes = 3,
	.c = {
		{ { 0x123, 0x200, CAN_EFF_FLAG | 0x1234567, 0x7f0 }, 4 },
		{ { CAN_EFF_FLAG | (0x123 << 18) | 0x15, 0x200 | CAN_RTR_FLAG,
		    CAN_EFF_FLAG | CAN_RTR_FLAG | 0x1234567, 0x050 }, 4 },
		{ { 0x122 | CAN_RTR_FLAG, 0x124, CAN_EFF_FLAG | 0x1234566,
		    0x7f0 | CAN_RTR_FLAG }, 4 },
	},
};

/*
 * Node 0 holds the bus with frames that fit in its FIFO, at a bitrate
 * slow enough that they outlast the contenders' writes even on a guest
 * that stalls now and then: nothing has to refill a FIFO in time.
 */
#define VB_BLOCKERS	4
#define VB_ARB_BITRATE	5000

FIXTURE_SETUP(arbitration)
{
	const char *err = vb_enter(&self->bus);
	unsigned int i;

	ASSERT_EQ(NULL, err) TH_LOG("%s", err);
	/* node 0 blocks the bus, node 1 listens, the others contend */
	for (i = 0; i < 2 + variant->nodes; i++)
		ASSERT_EQ(i, vb_node_add(&self->bus, VB_ARB_BITRATE, 0, 10));
	for (i = 0; i < 2 + variant->nodes; i++)
		ASSERT_EQ(0, ct_link_set_up(self->bus.names[i], true));
}

FIXTURE_TEARDOWN(arbitration)
{
	vb_leave(&self->bus);
}

/* The order the bus must send the contenders' frames in. */
static unsigned int vb_arb_order(const struct vb_contender *c,
				 unsigned int nodes, canid_t *order,
				 unsigned int *losses)
{
	unsigned int head[3] = {}, n = 0, i, best, pending;

	*losses = 0;
	for (;;) {
		best = nodes;
		pending = 0;
		for (i = 0; i < nodes; i++) {
			if (head[i] == c[i].count)
				continue;
			pending++;
			if (best == nodes ||
			    vb_beats(c[i].ids[head[i]], c[best].ids[head[best]]))
				best = i;
		}
		if (best == nodes)
			return n;
		*losses += pending - 1;
		order[n++] = c[best].ids[head[best]++];
	}
}

/*
 * Node 0 sends a train of top-priority frames; while it holds the bus
 * the contenders fill their FIFOs. Once the train ends, every
 * arbitration has each contender's FIFO head in it, and the listener
 * must see the frames in the order of their arbitration fields.
 */
TEST_F_TIMEOUT(arbitration, lowest_field_wins, 60)
{
	canid_t order[3 * VB_ARB_MAX], got_ids[3 * VB_ARB_MAX];
	unsigned int expected, losses, i, j, attempt, got;
	int blocker, listener, sock[3];
	long long lost0, lost1, ts, done, train_end, first;
	struct canfd_frame cf;
	struct can_frame f;
	int len;

	expected = vb_arb_order(variant->c, variant->nodes, order, &losses);
	blocker = vb_socket(&self->bus, 0, false, false);
	listener = vb_socket(&self->bus, 1, false, false);
	ASSERT_LE(0, blocker);
	ASSERT_LE(0, listener);
	for (i = 0; i < variant->nodes; i++) {
		sock[i] = vb_socket(&self->bus, 2 + i, false, false);
		ASSERT_LE(0, sock[i]);
	}

	/* The train must outlast the contenders' writes: a guest that
	 * stalls longer than that gets another go.
	 */
	for (attempt = 0; attempt < 3; attempt++) {
		lost0 = vb_bus_stat(&self->bus, "arbitration-lost");
		ASSERT_LE(0, lost0);
		for (i = 0; i < VB_BLOCKERS; i++) {
			f = ct_frame(0, 8);
			ASSERT_EQ(0, vb_send(blocker, (void *)&f, false));
		}
		for (i = 0; i < variant->nodes; i++) {
			for (j = 0; j < variant->c[i].count; j++) {
				canid_t id = variant->c[i].ids[j];

				f = ct_frame(id, id & CAN_RTR_FLAG ? 2 : 4);
				ASSERT_EQ(sizeof(f), write(sock[i], &f, sizeof(f)))
					TH_LOG("contender %u frame %u", i, j);
			}
		}
		done = ct_now_ns(CLOCK_REALTIME);

		/* the contenders' frames, and when the last one of the
		 * train and the first one of theirs ended
		 */
		train_end = 0;
		first = 0;
		for (i = 0, got = 0; i < VB_BLOCKERS + expected; i++) {
			len = vb_recv(listener, &cf, &ts, CT_RX_TIMEOUT_MS);
			ASSERT_LT(0, len) TH_LOG("frame %u missing", i);
			if (cf.can_id == 0) {
				train_end = ts;
				continue;
			}
			ASSERT_GT(expected, got) TH_LOG("id %x", cf.can_id);
			if (!got)
				first = ts;
			got_ids[got++] = cf.can_id;
		}
		ASSERT_TRUE(ct_is_quiet(listener));
		ASSERT_EQ(expected, got);
		lost1 = vb_bus_stat(&self->bus, "arbitration-lost");
		if (done < train_end && train_end < first)
			break;
		/* The guest stalled: writes too slow, or the blocker's
		 * FIFO ran dry while its refill waited.
		 */
		TH_LOG("attempt %u: writes done %lld us after the train ended, train %s, again",
		       attempt, (done - train_end) / 1000,
		       train_end < first ? "whole" : "interrupted");
	}
	ASSERT_GT(3, attempt) TH_LOG("the guest never wrote in time");

	for (i = 0; i < expected; i++) {
		EXPECT_EQ(order[i], got_ids[i])
			TH_LOG("frame %u on the bus: %x, expected %x", i,
			       got_ids[i], order[i]);
	}
	TH_LOG("%u nodes: %u frames in arbitration order, writes done %lld us before the train",
	       variant->nodes, expected, (train_end - done) / 1000);
	TH_LOG("arbitration-lost +%lld (at least %u)", lost1 - lost0, losses);
	EXPECT_LE(losses, lost1 - lost0);

	for (i = 0; i < variant->nodes; i++)
		close(sock[i]);
	close(blocker);
	close(listener);
}

/* ---- a node alone ---------------------------------------------------- */

FIXTURE(alone)
{
	struct vb_bus bus;
};

FIXTURE_SETUP(alone)
{
	const char *err = vb_enter(&self->bus);

	ASSERT_EQ(NULL, err) TH_LOG("%s", err);
	ASSERT_EQ(0, vb_node_add(&self->bus, 125000, 0, 10));
	ASSERT_EQ(1, vb_node_add(&self->bus, 125000, 0, 10));
	ASSERT_EQ(0, ct_link_set_up(self->bus.names[0], true));
}

FIXTURE_TEARDOWN(alone)
{
	vb_leave(&self->bus);
}

/*
 * Nobody acknowledges: every attempt is an ACK error, TEC climbs by 8 to
 * 128 and stops there (error-passive, never bus-off) while the node
 * keeps trying. The frame goes through as soon as a second node joins,
 * and that success takes TEC to 127.
 */
TEST_F_TIMEOUT(alone, error_passive_until_acked, 60)
{
	long long start, passive_at = -1, up_at, ts, now;
	int tx, rx, tec = -1, rec, samples = 0, len;
	struct can_frame f = ct_frame(0x42, 8);
	struct canfd_frame got;
	char state[32];

	tx = vb_socket(&self->bus, 0, false, false);
	ASSERT_LE(0, tx);
	rx = vb_socket(&self->bus, 1, false, false);
	ASSERT_LE(0, rx);
	start = ct_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(sizeof(f), write(tx, &f, sizeof(f)));

	/* 16 ACK errors of about 1.2 ms each */
	while (ct_now_ns(CLOCK_MONOTONIC) - start < 3000000000LL) {
		ASSERT_TRUE(vb_counters(&self->bus, 0, state, &tec, &rec));
		ASSERT_GE(128, tec) TH_LOG("tec %d past 128", tec);
		if (tec == 128) {
			passive_at = ct_now_ns(CLOCK_MONOTONIC);
			break;
		}
		usleep(2000);
	}
	ASSERT_EQ(128, tec) TH_LOG("tec %d after 3 s alone", tec);
	ASSERT_STREQ("error-passive", state);

	/* and it stays there, retransmitting */
	do {
		usleep(20000);
		ASSERT_TRUE(vb_counters(&self->bus, 0, state, &tec, &rec));
		ASSERT_EQ(128, tec);
		ASSERT_STREQ("error-passive", state);
		samples++;
		now = ct_now_ns(CLOCK_MONOTONIC);
	} while (now - passive_at < 250000000LL);
	EXPECT_LE(5, samples);
	EXPECT_LT(0, vb_bus_stat(&self->bus, "errors"));
	EXPECT_EQ(0, vb_bus_stat(&self->bus, "frames"));

	up_at = ct_now_ns(CLOCK_REALTIME);
	ASSERT_EQ(0, ct_link_set_up(self->bus.names[1], true));
	/* bound while the device was down, the socket holds ENETDOWN */
	EXPECT_EQ(ENETDOWN, ct_sock_error(rx));
	len = vb_recv(rx, &got, &ts, CT_RX_TIMEOUT_MS);
	ASSERT_EQ(sizeof(f), len);
	EXPECT_EQ(0x42, got.can_id);
	TH_LOG("tec 128 after %.1f ms alone, held %d samples over %.0f ms",
	       (passive_at - start) / 1e6, samples, (now - passive_at) / 1e6);
	TH_LOG("frame received %.2f ms after the second node came up",
	       (ts - up_at) / 1e6);
	EXPECT_LT(up_at, ts);
	/* the attempt on the wire when it joined, then the next one */
	EXPECT_GT(100000000LL, ts - up_at);

	ASSERT_TRUE(vb_counters(&self->bus, 0, state, &tec, &rec));
	EXPECT_EQ(127, tec);
	EXPECT_STREQ("error-warning", state);
	EXPECT_EQ(1, vb_bus_stat(&self->bus, "frames"));
	close(tx);
	close(rx);
}

TEST_HARNESS_MAIN
