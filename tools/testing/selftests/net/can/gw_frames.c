// SPDX-License-Identifier: GPL-2.0
/*
 * The CAN gateway (can-gw) on known frames: each modification and
 * checksum, classic and CAN FD jobs, the echo, timestamp and incoming
 * interface flags, the hop limit between two gateways, the counters, and
 * updates and removal by uid and by content. Jobs are made over rtnetlink
 * directly; gw_cangw.sh does the same through can-utils' cangw.
 */

#include <pthread.h>
#include <linux/net_tstamp.h>

#include "kselftest_harness.h"
#include "lib/can_test_gw.h"

FIXTURE(gw)
{
	char a[IFNAMSIZ], b[IFNAMSIZ];
	int ia, ib;
	int tx;		/* sends on a */
	int rx;		/* receives on b */
};

static int raw_fd_open(int ifindex)
{
	int fd = ct_raw_open(ifindex);

	if (fd >= 0)
		ct_setopt_int(fd, CAN_RAW_FD_FRAMES, 1);
	return fd;
}

FIXTURE_SETUP(gw)
{
	ASSERT_EQ(0, gw_setup_pair(self->a, self->b, &self->ia, &self->ib));
	self->tx = raw_fd_open(self->ia);
	self->rx = raw_fd_open(self->ib);
	ASSERT_LE(0, self->tx);
	ASSERT_LE(0, self->rx);
}

FIXTURE_TEARDOWN(gw)
{
	close(self->tx);
	close(self->rx);
	gw_flush();
	ct_link_del(self->a);
	ct_link_del(self->b);
}

static struct can_frame cc(canid_t id, int len, __u64 data)
{
	struct can_frame cf = { .can_id = id, .len = len };

	memcpy(cf.data, &data, sizeof(data));
	return cf;
}

/* Send @in (@size bytes) on @tx; @out gets the frame @rx receives, or
 * can_id 0xdead if none comes.
 */
static void route(int tx, int rx, const void *in, void *out, size_t size)
{
	memset(out, 0, size);
	if (write(tx, in, size) != (ssize_t)size ||
	    ct_recv(rx, out, size, CT_RX_TIMEOUT_MS, NULL, NULL) < 0)
		((struct can_frame *)out)->can_id = 0xdead;
}

static struct can_frame route_cc(int tx, int rx, struct can_frame in)
{
	struct can_frame out;

	route(tx, rx, &in, &out, sizeof(out));
	return out;
}

static struct canfd_frame route_fd(int tx, int rx, struct canfd_frame in)
{
	struct canfd_frame out;

	route(tx, rx, &in, &out, sizeof(out));
	return out;
}

static void put_cc_mod(struct gw_nlreq *req, int attr, __u8 modtype,
		       struct can_frame cf)
{
	struct cgw_frame_mod mod = { .cf = cf, .modtype = modtype };

	gw_put(req, attr, &mod, sizeof(mod));
}

/* A classic job with one modification, echoing on b. */
static int add_cc_mod(int a, int b, int attr, __u8 modtype, struct can_frame op)
{
	struct gw_nlreq req;

	gw_req_init(&req, RTM_NEWROUTE, CGW_FLAGS_CAN_ECHO);
	gw_put_route(&req, a, b);
	put_cc_mod(&req, attr, modtype, op);
	return gw_talk(&req);
}

TEST_F(gw, job_with_echo_delivers_frame_on_destination)
{
	struct can_frame out;

	ASSERT_EQ(0, gw_add(self->ia, self->ib, CGW_FLAGS_CAN_ECHO));
	out = route_cc(self->tx, self->rx, cc(0x123, 2, 0xbbaa));
	EXPECT_EQ(0x123, out.can_id);
	EXPECT_EQ(2, out.len);
	EXPECT_EQ(0xaa, out.data[0]);
	EXPECT_EQ(0xbb, out.data[1]);
}

TEST_F(gw, job_without_echo_sends_but_is_not_looped_back)
{
	long long before = ct_link_stat(self->b, "tx_packets");
	struct can_frame in = cc(0x123, 1, 1);
	struct gw_listed j;

	ASSERT_EQ(0, gw_add(self->ia, self->ib, 0));
	ASSERT_EQ(sizeof(in), write(self->tx, &in, sizeof(in)));
	EXPECT_TRUE(ct_is_quiet(self->rx));
	ASSERT_EQ(1, gw_first(&j));
	EXPECT_EQ(1, j.handled);
	EXPECT_EQ(before + 1, ct_link_stat(self->b, "tx_packets"));
}

TEST_F(gw, filter_passes_only_matching_identifiers)
{
	struct can_filter f = { .can_id = 0x120, .can_mask = 0x7f0 };
	struct gw_nlreq req;

	gw_req_init(&req, RTM_NEWROUTE, CGW_FLAGS_CAN_ECHO);
	gw_put_route(&req, self->ia, self->ib);
	gw_put(&req, CGW_FILTER, &f, sizeof(f));
	ASSERT_EQ(0, gw_talk(&req));
	EXPECT_EQ(0xdead, route_cc(self->tx, self->rx, cc(0x200, 1, 0)).can_id);
	EXPECT_EQ(0x12f, route_cc(self->tx, self->rx, cc(0x12f, 1, 0)).can_id);
}

struct cc_case {
	const char *name;
	int attr;
	__u8 modtype;
	struct can_frame op, in, want;
};

#define D8(x) (0x##x##ULL)

static const struct cc_case cc_cases[] = {
	{ "and id", CGW_MOD_AND, CGW_MOD_ID, { .can_id = 0x0f0 },
	  { .can_id = 0x123, .len = 1 }, { .can_id = 0x020, .len = 1 } },
	{ "or id", CGW_MOD_OR, CGW_MOD_ID, { .can_id = 0x400 },
	  { .can_id = 0x123, .len = 1 }, { .can_id = 0x523, .len = 1 } },
	{ "xor id", CGW_MOD_XOR, CGW_MOD_ID, { .can_id = 0x001 },
	  { .can_id = 0x123, .len = 1 }, { .can_id = 0x122, .len = 1 } },
	{ "set id", CGW_MOD_SET, CGW_MOD_ID, { .can_id = 0x333 },
	  { .can_id = 0x123, .len = 1 }, { .can_id = 0x333, .len = 1 } },
	{ "and dlc", CGW_MOD_AND, CGW_MOD_DLC, { .len = 3 },
	  { .can_id = 1, .len = 7 }, { .can_id = 1, .len = 3 } },
	{ "or dlc", CGW_MOD_OR, CGW_MOD_DLC, { .len = 4 },
	  { .can_id = 1, .len = 1 }, { .can_id = 1, .len = 5 } },
	{ "xor dlc", CGW_MOD_XOR, CGW_MOD_DLC, { .len = 1 },
	  { .can_id = 1, .len = 5 }, { .can_id = 1, .len = 4 } },
	{ "set dlc", CGW_MOD_SET, CGW_MOD_DLC, { .len = 2 },
	  { .can_id = 1, .len = 6 }, { .can_id = 1, .len = 2 } },
	{ "set dlc 12 keeps it in len8_dlc", CGW_MOD_SET, CGW_MOD_DLC,
	  { .len = 12 }, { .can_id = 1, .len = 1 },
	  { .can_id = 1, .len = 8, .len8_dlc = 12 } },
	{ "and id+dlc", CGW_MOD_AND, CGW_MOD_ID | CGW_MOD_DLC,
	  { .can_id = 0x7f, .len = 6 }, { .can_id = 0x3ff, .len = 5 },
	  { .can_id = 0x7f, .len = 4 } },
};

static void cc_data(struct can_frame *cf, __u64 v)
{
	memcpy(cf->data, &v, 8);
}

TEST_F(gw, classic_modifications_rewrite_known_frames)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cc_cases); i++) {
		const struct cc_case *c = &cc_cases[i];
		struct can_frame out;

		ASSERT_EQ(0, gw_flush());
		ASSERT_EQ(0, add_cc_mod(self->ia, self->ib, c->attr, c->modtype, c->op));
		out = route_cc(self->tx, self->rx, c->in);
		EXPECT_EQ(0, memcmp(&out, &c->want, sizeof(out)))
			TH_LOG("%s: got %x len %u len8_dlc %u", c->name, out.can_id,
			       out.len, out.len8_dlc);
	}
}

TEST_F(gw, classic_data_operations_apply_in_order)
{
	struct can_frame op = {}, in = cc(0x10, 8, D8(8877665544332211)), out;
	struct gw_nlreq req;

	gw_req_init(&req, RTM_NEWROUTE, CGW_FLAGS_CAN_ECHO);
	gw_put_route(&req, self->ia, self->ib);
	cc_data(&op, D8(0f0f0f0f0f0f0f0f));
	put_cc_mod(&req, CGW_MOD_AND, CGW_MOD_DATA, op);
	cc_data(&op, D8(a0a0a0a0a0a0a0a0));
	put_cc_mod(&req, CGW_MOD_OR, CGW_MOD_DATA, op);
	cc_data(&op, D8(ff00000000000000));
	put_cc_mod(&req, CGW_MOD_XOR, CGW_MOD_DATA, op);
	ASSERT_EQ(0, gw_talk(&req));
	out = route_cc(self->tx, self->rx, in);
	EXPECT_EQ(D8(57a7a6a5a4a3a2a1), *(__u64 *)out.data);

	ASSERT_EQ(0, gw_flush());
	cc_data(&op, D8(0102030405060708));
	ASSERT_EQ(0, add_cc_mod(self->ia, self->ib, CGW_MOD_SET, CGW_MOD_DATA, op));
	out = route_cc(self->tx, self->rx, in);
	EXPECT_EQ(D8(0102030405060708), *(__u64 *)out.data);
}

/* CVE-2019-3701: a DLC past 15 must not reach a driver as a length. */
TEST_F(gw, dlc_pushed_past_15_is_deleted_and_counted)
{
	struct can_frame op = { .len = 0xf0 };
	struct gw_listed j;

	ASSERT_EQ(0, add_cc_mod(self->ia, self->ib, CGW_MOD_OR, CGW_MOD_DLC, op));
	EXPECT_EQ(0xdead, route_cc(self->tx, self->rx, cc(1, 8, 0)).can_id);
	ASSERT_EQ(1, gw_first(&j));
	EXPECT_EQ(1, j.deleted);
	EXPECT_EQ(0, j.handled);
}

static void put_xor(struct gw_nlreq *req, int from, int to, int res, int init)
{
	struct cgw_csum_xor x = { from, to, res, init };

	gw_put(req, CGW_CS_XOR, &x, sizeof(x));
}

/* A job whose only modification leaves the frame as it is (AND id all
 * ones), so that the checksum alone shows.
 */
static void init_csum_job(struct gw_nlreq *req, int a, int b, __u16 flags)
{
	struct can_frame keep = { .can_id = CAN_EFF_FLAG | CAN_EFF_MASK };
	struct cgw_fdframe_mod fdkeep = { .cf.can_id = keep.can_id,
					  .modtype = CGW_MOD_ID };

	gw_req_init(req, RTM_NEWROUTE, flags | CGW_FLAGS_CAN_ECHO);
	gw_put_route(req, a, b);
	if (flags & CGW_FLAGS_CAN_FD)
		gw_put(req, CGW_FDMOD_AND, &fdkeep, sizeof(fdkeep));
	else
		put_cc_mod(req, CGW_MOD_AND, CGW_MOD_ID, keep);
}

struct xor_case {
	int from, to, res, init, len;
	__u64 in, want;
};

static const struct xor_case xor_cases[] = {
	/* forward, backward, relative to the end, and starting value */
	{ 0, 3, 7, 0, 8, D8(0000000804030201), D8(0400000804030201) },
	{ 3, 0, 7, 0, 8, D8(0000000804030201), D8(0400000804030201) },
	{ -8, -2, -1, 0xff, 8, D8(0001000000000000), D8(fe01000000000000) },
	{ 0, 1, -1, 0, 3, D8(0000000000000201), D8(0000000000030201) },
	/* -4 from a 2-byte frame lies before the data: no checksum */
	{ -4, 0, 1, 0x55, 2, D8(0000000000003344), D8(0000000000003344) },
};

TEST_F(gw, xor_checksum_follows_its_index_rules)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(xor_cases); i++) {
		const struct xor_case *c = &xor_cases[i];
		struct can_frame out;
		struct gw_nlreq req;

		ASSERT_EQ(0, gw_flush());
		init_csum_job(&req, self->ia, self->ib, 0);
		put_xor(&req, c->from, c->to, c->res, c->init);
		ASSERT_EQ(0, gw_talk(&req));
		out = route_cc(self->tx, self->rx, cc(0x42, c->len, c->in));
		EXPECT_EQ(c->want, *(__u64 *)out.data) TH_LOG("case %u", i);
	}
}

/* CRC8 with polynomial 0x1d (SAE J1850), table computed here. */
static void crc8_table(__u8 *tab)
{
	int i, b;

	for (i = 0; i < 256; i++) {
		__u8 c = i;

		for (b = 0; b < 8; b++)
			c = c & 0x80 ? (c << 1) ^ 0x1d : c << 1;
		tab[i] = c;
	}
}

static __u8 crc8_ref(const __u8 *tab, __u8 crc, const __u8 *d, int from, int to)
{
	int step = from <= to ? 1 : -1, i;

	for (i = from; i != to + step; i += step)
		crc = tab[crc ^ d[i]];
	return crc;
}

TEST_F(gw, crc8_checksum_with_each_profile)
{
	static const __u8 data[8] = { 0x11, 0x25, 0x33, 0x44, 0x55, 0x66, 0x77 };
	struct cgw_csum_crc8 c = { .from_idx = 0, .to_idx = 6, .result_idx = 7,
				   .init_crc_val = 0xff, .final_xor_val = 0x0f };
	int profile;

	crc8_table(c.crctab);
	c.profile_data[0] = 0x9a;
	c.profile_data[5] = 0x5c;	/* data[1] & 0xf == 5 */
	for (profile = CGW_CRC8PRF_UNSPEC; profile <= CGW_CRC8PRF_MAX; profile++) {
		__u8 crc = crc8_ref(c.crctab, c.init_crc_val, data, 0, 6);
		struct can_frame in = { .can_id = 0x1234 & CAN_SFF_MASK, .len = 8 };
		struct can_frame out;
		struct gw_nlreq req;

		if (profile == CGW_CRC8PRF_1U8)
			crc = c.crctab[crc ^ 0x9a];
		if (profile == CGW_CRC8PRF_16U8)
			crc = c.crctab[crc ^ 0x5c];
		if (profile == CGW_CRC8PRF_SFFID_XOR)
			crc = c.crctab[crc ^ (in.can_id & 0xff) ^ (in.can_id >> 8)];
		memcpy(in.data, data, 8);
		c.profile = profile;
		ASSERT_EQ(0, gw_flush());
		init_csum_job(&req, self->ia, self->ib, 0);
		gw_put(&req, CGW_CS_CRC8, &c, sizeof(c));
		ASSERT_EQ(0, gw_talk(&req));
		out = route_cc(self->tx, self->rx, in);
		EXPECT_EQ(crc ^ 0x0f, out.data[7]) TH_LOG("profile %d", profile);
		EXPECT_EQ(0, memcmp(out.data, data, 7));
	}
}

static struct canfd_frame fd(canid_t id, int len, __u8 flags)
{
	struct canfd_frame f = { .can_id = id, .len = len, .flags = flags };
	int i;

	for (i = 0; i < len; i++)
		f.data[i] = i + 1;
	return f;
}

TEST_F(gw, fd_modifications_touch_id_flags_length_and_all_64_bytes)
{
	struct cgw_fdframe_mod set = { .modtype = CGW_MOD_LEN | CGW_MOD_FLAGS },
			       xor = { .modtype = CGW_MOD_DATA | CGW_MOD_ID };
	struct canfd_frame out;
	struct gw_nlreq req;
	int i;

	set.cf.len = 12;
	set.cf.flags = CANFD_BRS | CANFD_ESI;
	xor.cf.can_id = 0x100;
	memset(xor.cf.data, 0xf0, sizeof(xor.cf.data));
	gw_req_init(&req, RTM_NEWROUTE, CGW_FLAGS_CAN_FD | CGW_FLAGS_CAN_ECHO);
	gw_put_route(&req, self->ia, self->ib);
	gw_put(&req, CGW_FDMOD_XOR, &xor, sizeof(xor));
	gw_put(&req, CGW_FDMOD_SET, &set, sizeof(set));
	ASSERT_EQ(0, gw_talk(&req));

	out = route_fd(self->tx, self->rx, fd(0x023, 64, 0));
	EXPECT_EQ(0x123, out.can_id);
	EXPECT_EQ(12, out.len);
	EXPECT_EQ(CANFD_BRS | CANFD_ESI, out.flags & (CANFD_BRS | CANFD_ESI));
	for (i = 0; i < 12; i++)
		EXPECT_EQ((i + 1) ^ 0xf0, out.data[i]);
}

TEST_F(gw, fd_length_pushed_past_64_is_deleted)
{
	struct cgw_fdframe_mod or = { .modtype = CGW_MOD_LEN, .cf.len = 0x80 };
	struct gw_nlreq req;
	struct gw_listed j;

	gw_req_init(&req, RTM_NEWROUTE, CGW_FLAGS_CAN_FD | CGW_FLAGS_CAN_ECHO);
	gw_put_route(&req, self->ia, self->ib);
	gw_put(&req, CGW_FDMOD_OR, &or, sizeof(or));
	ASSERT_EQ(0, gw_talk(&req));
	EXPECT_EQ(0xdead, route_fd(self->tx, self->rx, fd(1, 8, 0)).can_id);
	ASSERT_EQ(1, gw_first(&j));
	EXPECT_EQ(1, j.deleted);
}

TEST_F(gw, fd_checksum_reaches_byte_63)
{
	struct canfd_frame in = fd(7, 64, 0), out;
	struct gw_nlreq req;
	__u8 x = 0;
	int i;

	for (i = 0; i < 63; i++)
		x ^= in.data[i];
	init_csum_job(&req, self->ia, self->ib, CGW_FLAGS_CAN_FD);
	put_xor(&req, 0, -2, 63, 0);
	ASSERT_EQ(0, gw_talk(&req));
	out = route_fd(self->tx, self->rx, in);
	EXPECT_EQ(x, out.data[63]);
}

TEST_F(gw, job_takes_only_frames_of_its_kind)
{
	struct canfd_frame f = fd(5, 8, 0);

	ASSERT_EQ(0, gw_add(self->ia, self->ib, CGW_FLAGS_CAN_ECHO));
	EXPECT_EQ(0xdead, route_fd(self->tx, self->rx, f).can_id);
	ASSERT_EQ(0, gw_flush());
	ASSERT_EQ(0, gw_add(self->ia, self->ib, CGW_FLAGS_CAN_ECHO | CGW_FLAGS_CAN_FD));
	EXPECT_EQ(0xdead, route_cc(self->tx, self->rx, cc(5, 1, 0)).can_id);
	EXPECT_EQ(5, route_fd(self->tx, self->rx, f).can_id);
}

/* The receive timestamp of @fd's next frame, in ns; -1 if none. */
static long long rx_stamp(int fd)
{
	char buf[CANFD_MTU], ctrl[256];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctrl, .msg_controllen = sizeof(ctrl) };
	struct cmsghdr *cm;

	if (!ct_wait_readable(fd, CT_RX_TIMEOUT_MS) || recvmsg(fd, &msg, 0) < 0)
		return -1;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			return ts.tv_sec * 1000000000LL + ts.tv_nsec;
		}
	}
	return -1;
}

/*
 * Whether frames are stamped where they are received. SO_TIMESTAMPNS
 * turns on the kernel's stamping from a work item; until that has run,
 * skbs carry no stamp and each socket stamps its copy at recvmsg() time,
 * which tells nothing of the gateway. A frame that waited 50 ms before
 * being read shows which of the two happened.
 */
static bool stamped_on_receive(struct _test_data_gw *self, int mon)
{
	struct can_frame in = cc(9, 1, 0);
	long long stamp, read_at;

	if (write(self->tx, &in, sizeof(in)) != sizeof(in))
		return false;
	usleep(50000);
	read_at = ct_now_ns(CLOCK_REALTIME);
	stamp = rx_stamp(mon);
	ct_drain(self->rx);
	return stamp > 0 && read_at - stamp >= 25000000LL;
}

static void stamps(struct _test_data_gw *self, long long *src, long long *dst)
{
	int i, on = 1, mon = ct_raw_open(self->ia);
	struct can_frame in = cc(9, 1, 0);

	setsockopt(mon, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
	setsockopt(self->rx, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
	*src = *dst = -1;
	for (i = 0; i < 40 && !stamped_on_receive(self, mon); i++)
		;
	if (write(self->tx, &in, sizeof(in)) == sizeof(in)) {
		*src = rx_stamp(mon);
		*dst = rx_stamp(self->rx);
	}
	close(mon);
}

TEST_F(gw, src_tstamp_keeps_the_receive_timestamp)
{
	long long src, dst;

	ASSERT_EQ(0, gw_add(self->ia, self->ib,
			    CGW_FLAGS_CAN_ECHO | CGW_FLAGS_CAN_SRC_TSTAMP));
	stamps(self, &src, &dst);
	ASSERT_NE(-1, src);
	EXPECT_EQ(src, dst);
}

TEST_F(gw, without_src_tstamp_the_frame_is_stamped_anew)
{
	long long src, dst;

	ASSERT_EQ(0, gw_add(self->ia, self->ib, CGW_FLAGS_CAN_ECHO));
	stamps(self, &src, &dst);
	ASSERT_NE(-1, src);
	ASSERT_NE(-1, dst);
	EXPECT_LT(src, dst);
}

TEST_F(gw, frame_returns_to_its_source_only_with_iif_tx_ok)
{
	int mon = ct_raw_open(self->ia);
	struct gw_listed j;

	ASSERT_LE(0, mon);
	ASSERT_EQ(0, gw_add(self->ia, self->ia, CGW_FLAGS_CAN_ECHO));
	EXPECT_EQ(0, ct_send(self->tx, 0x11, 1));
	EXPECT_EQ(0x11, ct_recv_id(mon, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(ct_is_quiet(mon));
	ASSERT_EQ(1, gw_first(&j));
	EXPECT_EQ(0, j.handled);

	ASSERT_EQ(0, gw_flush());
	ASSERT_EQ(0, gw_add(self->ia, self->ia,
			    CGW_FLAGS_CAN_ECHO | CGW_FLAGS_CAN_IIF_TX_OK));
	ct_drain(mon);
	EXPECT_EQ(0, ct_send(self->tx, 0x12, 1));
	EXPECT_EQ(0x12, ct_recv_id(mon, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(0x12, ct_recv_id(mon, CT_RX_TIMEOUT_MS));
	/* max_hops (1) ends the loop after one round */
	EXPECT_TRUE(ct_is_quiet(mon));
	ASSERT_EQ(1, gw_first(&j));
	EXPECT_EQ(1, j.handled);
	EXPECT_EQ(1, j.deleted);
	close(mon);
}

TEST_F(gw, hop_limit_stops_a_loop_between_two_gateways)
{
	struct gw_listed j[2];

	ASSERT_EQ(0, gw_add(self->ia, self->ib, CGW_FLAGS_CAN_ECHO));
	ASSERT_EQ(0, gw_add(self->ib, self->ia, CGW_FLAGS_CAN_ECHO));
	EXPECT_EQ(0, ct_send(self->tx, 0x77, 1));
	EXPECT_EQ(0x77, ct_recv_id(self->rx, CT_RX_TIMEOUT_MS));
	EXPECT_TRUE(ct_is_quiet(self->rx));
	ASSERT_EQ(2, gw_list(j, 2));
	/* newest first: b->a deleted the frame a->b had handled */
	EXPECT_EQ(self->ib, j[0].src);
	EXPECT_EQ(0, j[0].handled);
	EXPECT_EQ(1, j[0].deleted);
	EXPECT_EQ(1, j[1].handled);
}

TEST_F(gw, destination_down_counts_dropped)
{
	struct gw_listed j;

	ASSERT_EQ(0, gw_add(self->ia, self->ib, CGW_FLAGS_CAN_ECHO));
	ASSERT_EQ(0, ct_link_set_up(self->b, false));
	EXPECT_EQ(0, ct_send(self->tx, 1, 1));
	ASSERT_EQ(1, gw_first(&j));
	EXPECT_EQ(1, j.dropped);
	EXPECT_EQ(0, j.handled);
}

static int add_uid_job(int a, int b, __u16 flags, __u32 uid, canid_t set_id)
{
	struct gw_nlreq req;

	gw_req_init(&req, RTM_NEWROUTE, flags | CGW_FLAGS_CAN_ECHO);
	gw_put_route(&req, a, b);
	if (flags & CGW_FLAGS_CAN_FD) {
		struct cgw_fdframe_mod m = { .cf.can_id = set_id,
					     .modtype = CGW_MOD_ID | CGW_MOD_DATA };

		memset(m.cf.data, 0xee, sizeof(m.cf.data));
		gw_put(&req, CGW_FDMOD_SET, &m, sizeof(m));
		put_xor(&req, 0, 62, 63, 0);
	} else {
		put_cc_mod(&req, CGW_MOD_SET, CGW_MOD_ID, cc(set_id, 0, 0));
	}
	gw_put_u32(&req, CGW_MOD_UID, uid);
	return gw_talk(&req);
}

TEST_F(gw, uid_update_replaces_the_modifications_only)
{
	struct gw_listed j;

	ASSERT_EQ(0, add_uid_job(self->ia, self->ib, 0, 7, 0x100));
	EXPECT_EQ(0x100, route_cc(self->tx, self->rx, cc(1, 1, 0)).can_id);
	ASSERT_EQ(0, add_uid_job(self->ia, self->ib, 0, 7, 0x200));
	EXPECT_EQ(0x200, route_cc(self->tx, self->rx, cc(1, 1, 0)).can_id);
	ASSERT_EQ(1, gw_first(&j));
	EXPECT_EQ(7, j.uid);
	EXPECT_EQ(2, j.handled);
	/* same uid, other route */
	EXPECT_EQ(-EINVAL, add_uid_job(self->ib, self->ia, 0, 7, 0x300));
}

TEST_F(gw, delete_needs_the_same_modifications_or_uid)
{
	struct can_frame op = cc(0x55, 0, 0);
	struct gw_nlreq req;

	ASSERT_EQ(0, add_cc_mod(self->ia, self->ib, CGW_MOD_SET, CGW_MOD_ID, op));
	gw_req_init(&req, RTM_DELROUTE, CGW_FLAGS_CAN_ECHO);
	gw_put_route(&req, self->ia, self->ib);
	EXPECT_EQ(-EINVAL, gw_talk(&req));
	put_cc_mod(&req, CGW_MOD_SET, CGW_MOD_ID, op);
	EXPECT_EQ(0, gw_talk(&req));
	EXPECT_EQ(0, gw_list(NULL, 0));

	ASSERT_EQ(0, add_uid_job(self->ia, self->ib, 0, 9, 0x1));
	gw_req_init(&req, RTM_DELROUTE, CGW_FLAGS_CAN_ECHO);
	gw_put_route(&req, self->ia, self->ib);
	gw_put_u32(&req, CGW_MOD_UID, 9);
	put_cc_mod(&req, CGW_MOD_SET, CGW_MOD_ID, op);
	EXPECT_EQ(0, gw_talk(&req));
	EXPECT_EQ(0, gw_list(NULL, 0));
}

TEST_F(gw, flush_removes_every_job)
{
	int i;

	for (i = 0; i < 20; i++)
		ASSERT_EQ(0, gw_add(self->ia, self->ib, 0));
	EXPECT_EQ(20, gw_list(NULL, 0));
	EXPECT_EQ(0, gw_flush());
	EXPECT_EQ(0, gw_list(NULL, 0));
}

/* Jobs go with their devices, also while frames are passing. */
static void *blast(void *arg)
{
	int fd = *(int *)arg, i;

	for (i = 0; i < 20000; i++)
		if (ct_send(fd, i & 0x7ff, 8) == -ENODEV)
			break;
	return NULL;
}

TEST_F(gw, deleting_a_device_under_traffic_removes_its_jobs)
{
	pthread_t t;
	int i;

	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, gw_add(self->ia, self->ib, CGW_FLAGS_CAN_ECHO));
	ASSERT_EQ(0, gw_add(self->ib, self->ia, CGW_FLAGS_CAN_ECHO));
	ASSERT_EQ(0, pthread_create(&t, NULL, blast, &self->tx));
	usleep(20000);
	EXPECT_EQ(0, ct_link_del(self->b));
	EXPECT_EQ(0, gw_list(NULL, 0));
	pthread_join(t, NULL);

	/* and the source going away while it sends */
	ASSERT_EQ(0, ct_vcan_create(self->b, CANFD_MTU, true));
	self->ib = if_nametoindex(self->b);
	ASSERT_EQ(0, gw_add(self->ia, self->ib, CGW_FLAGS_CAN_ECHO));
	ASSERT_EQ(0, pthread_create(&t, NULL, blast, &self->tx));
	usleep(20000);
	EXPECT_EQ(0, ct_link_del(self->a));
	EXPECT_EQ(0, gw_list(NULL, 0));
	pthread_join(t, NULL);
}

/*
 * CVE-2026-31570: mainline's update by uid takes the new modifications
 * without checking they are of the job's kind, so a CAN FD request (64
 * data bytes, checksum indices up to 63) reaches past the 8-byte frames
 * of a classic job. It must be refused and the job must go on as it was.
 * Last: on a kernel with the bug this writes past the frame.
 */
TEST_F(gw, uid_update_of_the_other_frame_kind_is_refused)
{
	struct can_frame out;

	ASSERT_EQ(0, add_uid_job(self->ia, self->ib, 0, 5, 0x100));
	EXPECT_EQ(-EINVAL, add_uid_job(self->ia, self->ib, CGW_FLAGS_CAN_FD, 5, 0x200));
	out = route_cc(self->tx, self->rx, cc(1, 8, D8(1111111111111111)));
	EXPECT_EQ(0x100, out.can_id);
	EXPECT_EQ(D8(1111111111111111), *(__u64 *)out.data);
}

TEST_HARNESS_MAIN
