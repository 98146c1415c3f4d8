// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/can: the files exist, parse, and count what the test does.
 * Each test works in a fresh network namespace, so the counters and
 * receive lists hold only its own frames and filters.
 */

#include <sched.h>

#include "kselftest_harness.h"
#include "lib/can_test.h"

FIXTURE(proc)
{
	char ifname[IFNAMSIZ];
	int ifindex;
	int tx;
	int rx;
};

FIXTURE_SETUP(proc)
{
	self->tx = -1;
	self->rx = -1;
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ct_ifname(self->ifname, 'p');
	ASSERT_EQ(0, ct_vcan_create(self->ifname, 0, true));
	self->ifindex = if_nametoindex(self->ifname);
	self->tx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->tx);
	/* the sender listens to nothing, so it adds no list entry */
	ASSERT_EQ(0, ct_set_filters(self->tx, NULL, 0));
}

FIXTURE_TEARDOWN(proc)
{
	if (self->tx >= 0)
		close(self->tx);
	if (self->rx >= 0)
		close(self->rx);
	ct_link_del(self->ifname);
}

/*
 * Find the receive list entry of @dev with @id in /proc/net/can/@file and
 * return its "matches" column, or -1 if there is none. @mask, if not
 * NULL, must match too. Columns: device can_id can_mask function
 * userdata matches ident.
 */
static long rcvlist_entry(const char *file, const char *dev, const char *id,
			  const char *mask, const char *ident)
{
	char path[64], *text, *line, *save = NULL;
	long found = -1;

	snprintf(path, sizeof(path), "/proc/net/can/%s", file);
	text = ct_read_file(path);
	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char d[32], i[16], m[16], fn[32], ud[32], who[32];
		long matches;

		if (sscanf(line, "%31s %15s %15s %31s %31s %ld %31s", d, i, m,
			   fn, ud, &matches, who) != 7)
			continue;
		if (strcmp(d, dev) || strcmp(i, id) || strcmp(who, ident))
			continue;
		if (mask && strcmp(m, mask))
			continue;
		found = matches;
		break;
	}
	free(text);
	return found;
}

static void send_and_wait(struct __test_metadata *_metadata,
			  struct _test_data_proc *self, canid_t id, int count)
{
	int witness = ct_raw_open(self->ifindex), i;

	ASSERT_LE(0, witness);
	for (i = 0; i < count; i++) {
		ASSERT_EQ(0, ct_send(self->tx, id, 1));
		ASSERT_EQ(id, ct_recv_id(witness, CT_RX_TIMEOUT_MS));
	}
	close(witness);
}

TEST_F(proc, all_files_exist_and_are_readable)
{
	static const char *const files[] = {
		"stats", "reset_stats", "rcvlist_all", "rcvlist_fil",
		"rcvlist_inv", "rcvlist_sff", "rcvlist_eff", "rcvlist_err",
	};
	char path[64], *text;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "/proc/net/can/%s", files[i]);
		text = ct_read_file(path);
		EXPECT_NE(NULL, text) TH_LOG("%s", path);
		if (text)
			EXPECT_LT(0, strlen(text)) TH_LOG("%s is empty", path);
		free(text);
	}
}

TEST_F(proc, stats_have_every_counter_line)
{
	static const char *const tags[] = {
		"TXF", "RXF", "RXMF", "RXMR", "TXR", "RXR", "CRXMR", "CTXR",
		"CRXR", "MRXMR", "MTXR", "MRXR", "CRCV", "MRCV",
		"RXLCTL", "RXLQ", "RXNRCV", "RXLSK", "RXLOST", NULL,
	};
	const char *const *tag;

	for (tag = tags; *tag; tag++) {
		long val = ct_proc_stat(*tag);

		if (val < 0)
			fprintf(stderr, "# no (%s) line\n", *tag);
		EXPECT_LE(0, val);
	}
}

TEST_F(proc, stats_count_sent_and_received_frames)
{
	long tx = ct_proc_stat("TXF"), rx = ct_proc_stat("RXF");

	ASSERT_LE(0, tx);
	ASSERT_LE(0, rx);
	send_and_wait(_metadata, self, 0x10, 7);
	EXPECT_EQ(tx + 7, ct_proc_stat("TXF"));
	EXPECT_EQ(rx + 7, ct_proc_stat("RXF"));
}

TEST_F(proc, stats_matched_frames_count_only_frames_with_a_receiver)
{
	struct can_filter f = { 0x20, CAN_SFF_MASK };
	long matched = ct_proc_stat("RXMF");

	self->rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->rx);
	ASSERT_EQ(0, ct_set_filters(self->rx, &f, 1));
	/* the witness of send_and_wait matches everything; count before it */
	ASSERT_EQ(0, ct_send(self->tx, 0x10, 1));
	ASSERT_EQ(0, ct_send(self->tx, 0x20, 1));
	ASSERT_EQ(0x20, ct_recv_id(self->rx, CT_RX_TIMEOUT_MS));
	EXPECT_EQ(matched + 1, ct_proc_stat("RXMF"));
}

TEST_F(proc, receive_list_entries_follow_sockets)
{
	struct can_filter f[3] = {
		{ 0x1, CAN_SFF_MASK }, { 0x2, CAN_SFF_MASK }, { 0x3, CAN_SFF_MASK },
	};
	long before = ct_proc_stat("CRCV");

	ASSERT_LE(0, before);
	self->rx = ct_raw_socket();
	ASSERT_LE(0, self->rx);
	ASSERT_EQ(0, ct_set_filters(self->rx, f, 3));
	ASSERT_EQ(0, ct_set_err_mask(self->rx, CAN_ERR_BUSOFF));
	ASSERT_EQ(0, ct_bind(self->rx, self->ifindex));
	EXPECT_EQ(before + 4, ct_proc_stat("CRCV"));
	EXPECT_LE(before + 4, ct_proc_stat("MRCV"));
	close(self->rx);
	self->rx = -1;
	EXPECT_EQ(before, ct_proc_stat("CRCV"));
}

TEST_F(proc, rcvlist_sff_shows_exact_id_filter)
{
	struct can_filter f = { 0x123, CAN_SFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG };

	EXPECT_EQ(-1, rcvlist_entry("rcvlist_sff", self->ifname, "123", NULL, "raw"));
	self->rx = ct_raw_socket();
	ASSERT_LE(0, self->rx);
	ASSERT_EQ(0, ct_set_filters(self->rx, &f, 1));
	ASSERT_EQ(0, ct_bind(self->rx, self->ifindex));
	EXPECT_EQ(0, rcvlist_entry("rcvlist_sff", self->ifname, "123",
				   "c00007ff", "raw"));
	close(self->rx);
	self->rx = -1;
	EXPECT_EQ(-1, rcvlist_entry("rcvlist_sff", self->ifname, "123", NULL, "raw"));
}

TEST_F(proc, rcvlist_sff_counts_matches)
{
	struct can_filter f = { 0x123, CAN_SFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG };

	self->rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->rx);
	ASSERT_EQ(0, ct_set_filters(self->rx, &f, 1));
	send_and_wait(_metadata, self, 0x123, 3);
	send_and_wait(_metadata, self, 0x124, 2);
	EXPECT_EQ(3, rcvlist_entry("rcvlist_sff", self->ifname, "123", NULL, "raw"));
}

TEST_F(proc, rcvlist_eff_shows_exact_eff_filter)
{
	struct can_filter f = {
		0x12345678 | CAN_EFF_FLAG, CAN_EFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG,
	};

	self->rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->rx);
	ASSERT_EQ(0, ct_set_filters(self->rx, &f, 1));
	EXPECT_EQ(0, rcvlist_entry("rcvlist_eff", self->ifname, "92345678",
				   "dfffffff", "raw"));
}

TEST_F(proc, rcvlist_fil_shows_mask_filter)
{
	struct can_filter f = { 0x120, 0x7f0 };

	self->rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->rx);
	ASSERT_EQ(0, ct_set_filters(self->rx, &f, 1));
	EXPECT_EQ(0, rcvlist_entry("rcvlist_fil", self->ifname, "120",
				   "000007f0", "raw"));
}

TEST_F(proc, rcvlist_inv_shows_inverted_filter)
{
	struct can_filter f = { 0x123 | CAN_INV_FILTER, CAN_SFF_MASK };

	self->rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->rx);
	ASSERT_EQ(0, ct_set_filters(self->rx, &f, 1));
	EXPECT_EQ(0, rcvlist_entry("rcvlist_inv", self->ifname, "123",
				   "000007ff", "raw"));
}

TEST_F(proc, rcvlist_all_shows_default_filter)
{
	self->rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->rx);
	EXPECT_EQ(0, rcvlist_entry("rcvlist_all", self->ifname, "000",
				   "00000000", "raw"));
}

TEST_F(proc, rcvlist_err_shows_error_mask)
{
	self->rx = ct_raw_open(self->ifindex);
	ASSERT_LE(0, self->rx);
	ASSERT_EQ(0, ct_set_err_mask(self->rx, CAN_ERR_BUSOFF));
	EXPECT_EQ(0, rcvlist_entry("rcvlist_err", self->ifname, "000",
				   "00000040", "raw"));
}

TEST_F(proc, rcvlist_names_socket_bound_to_all_any)
{
	self->rx = ct_raw_open(0);
	ASSERT_LE(0, self->rx);
	EXPECT_EQ(0, rcvlist_entry("rcvlist_all", "any", "000", "00000000", "raw"));
}

TEST_F(proc, rcvlist_says_no_entry_for_device_without_filters)
{
	char *text = ct_read_file("/proc/net/can/rcvlist_fil");
	char want[64];

	ASSERT_NE(NULL, text);
	snprintf(want, sizeof(want), "(%s: no entry)", self->ifname);
	EXPECT_NE(NULL, strstr(text, want)) TH_LOG("%s", text);
	free(text);
}

/* The value of the line that ends in "(@tag)" in @text, or -1. */
static long stat_in(const char *text, const char *tag)
{
	char want[16];
	const char *p;

	snprintf(want, sizeof(want), "(%s)\n", tag);
	p = strstr(text, want);
	if (!p)
		return -1;
	while (p > text && p[-1] != '\n')
		p--;
	return strtol(p, NULL, 10);
}

static int put_stat(char *buf, size_t size, long v, const char *what)
{
	return snprintf(buf, size, " %8ld %s\n", v, what);
}

/*
 * Mainline's part of the file, rebuilt from the values it shows in
 * mainline's format: ours must be that, byte for byte, with the new
 * lines only after it.
 */
TEST_F(proc, stats_start_with_mainline_lines_unchanged)
{
	static const char *const counts[][2] = {
		{ "TXF", "transmitted frames (TXF)" },
		{ "RXF", "received frames (RXF)" },
		{ "RXMF", "matched frames (RXMF)" },
		{ "RXINV", "dropped invalid frames (RXINV)" },
	};
	static const char *const rates[][2] = {
		{ "RXMR", "% total match ratio (RXMR)" },
		{ "TXR", "frames/s total tx rate (TXR)" },
		{ "RXR", "frames/s total rx rate (RXR)" },
		{ "CRXMR", "% current match ratio (CRXMR)" },
		{ "CTXR", "frames/s current tx rate (CTXR)" },
		{ "CRXR", "frames/s current rx rate (CRXR)" },
		{ "MRXMR", "% max match ratio (MRXMR)" },
		{ "MTXR", "frames/s max tx rate (MTXR)" },
		{ "MRXR", "frames/s max rx rate (MRXR)" },
	};
	char *text, want[4096];
	size_t n = 0;
	unsigned int i;
	long v;

	send_and_wait(_metadata, self, 0x10, 3);
	text = ct_read_file("/proc/net/can/stats");
	ASSERT_NE(NULL, text);

	n += snprintf(want + n, sizeof(want) - n, "\n");
	for (i = 0; i < ARRAY_SIZE(counts); i++)
		n += put_stat(want + n, sizeof(want) - n,
			      stat_in(text, counts[i][0]), counts[i][1]);
	n += snprintf(want + n, sizeof(want) - n, "\n");
	if (stat_in(text, "RXMR") >= 0) {
		for (i = 0; i < ARRAY_SIZE(rates); i++) {
			n += put_stat(want + n, sizeof(want) - n,
				      stat_in(text, rates[i][0]), rates[i][1]);
			if (i % 3 == 2)
				n += snprintf(want + n, sizeof(want) - n, "\n");
		}
	}
	n += put_stat(want + n, sizeof(want) - n, stat_in(text, "CRCV"),
		      "current receive list entries (CRCV)");
	n += put_stat(want + n, sizeof(want) - n, stat_in(text, "MRCV"),
		      "maximum receive list entries (MRCV)");
	v = stat_in(text, "STR");
	if (v >= 0) {
		n += snprintf(want + n, sizeof(want) - n, "\n");
		n += put_stat(want + n, sizeof(want) - n, v,
			      "statistic resets (STR)");
	}
	v = stat_in(text, "USTR");
	if (v >= 0)
		n += put_stat(want + n, sizeof(want) - n, v,
			      "user statistic resets (USTR)");
	n += snprintf(want + n, sizeof(want) - n, "\n");

	EXPECT_EQ(3, stat_in(text, "TXF"));
	EXPECT_EQ(0, strncmp(text, want, n)) TH_LOG("want:\n%s\ngot:\n%s", want, text);
	/* Then ours: the totals of lost frames and the table per device. */
	EXPECT_NE(NULL, strstr(text + n, "(RXLCTL)\n"));
	EXPECT_NE(NULL, strstr(text + n, "(RXLSK)\n"));
	EXPECT_NE(NULL, strstr(text + n, "(RXLOST)\n"));
	free(text);
}

TEST_F(proc, loss_table_has_a_row_per_can_device)
{
	char *text = ct_read_file("/proc/net/can/stats"), *table, want[128];

	ASSERT_NE(NULL, text);
	table = strstr(text, "(RXLOST)\n");
	ASSERT_NE(NULL, table);
	snprintf(want, sizeof(want), "\n %-16s %10d %10d %11d %10d %10d\n",
		 self->ifname, 0, 0, 0, 0, 0);
	/* Nothing was sent; a device that is not CAN has no row. */
	EXPECT_NE(NULL, strstr(table, want)) TH_LOG("%s", text);
	EXPECT_EQ(NULL, strstr(table, "\n lo ")) TH_LOG("%s", text);
	free(text);
}

TEST_F(proc, reading_reset_stats_announces_a_reset)
{
	char *text = ct_read_file("/proc/net/can/reset_stats");

	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "statistic reset #")) TH_LOG("%s", text);
	free(text);
}

TEST_HARNESS_MAIN
