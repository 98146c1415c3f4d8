// SPDX-License-Identifier: GPL-2.0
/*
 * What every op file needs: the op registry, the per-process table of
 * file descriptors, device names, rtnetlink messages and tracing.
 */

#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fuzz.h"

#define FZ_MAX_OPS	256

static struct fz_op fz_ops[FZ_MAX_OPS];
static int fz_nops;
static unsigned int fz_total_weight;

void fz_register(const struct fz_op *ops)
{
	size_t i;

	for (i = 0; ops[i].name && fz_nops < FZ_MAX_OPS; i++) {
		fz_ops[fz_nops++] = ops[i];
		fz_total_weight += ops[i].weight;
	}
}

int fz_op_count(void)
{
	return fz_nops;
}

const struct fz_op *fz_op_get(int i)
{
	return i >= 0 && i < fz_nops ? &fz_ops[i] : NULL;
}

int fz_op_find(const char *name)
{
	int i;

	for (i = 0; i < fz_nops; i++)
		if (!strcmp(fz_ops[i].name, name))
			return i;
	return -1;
}

/* Op for a random number, each with the probability of its weight. */
int fz_op_pick(__u64 r)
{
	unsigned int w = r % (fz_total_weight ? fz_total_weight : 1);
	int i;

	for (i = 0; i < fz_nops; i++) {
		if (w < fz_ops[i].weight)
			return i;
		w -= fz_ops[i].weight;
	}
	return 0;
}

/* ---- file descriptor slots --------------------------------------------- */

/*
 * Mostly a descriptor of the kind asked for; sometimes any open one or
 * a descriptor that is not a socket at all, so that every call also
 * meets the wrong kind of file.
 */
int fz_fd_get(struct fz_ctx *c, struct fz_draw *d, int kind)
{
	struct fz_fds *f = c->fds;
	int start = fz_below(d, FZ_SLOTS);
	int i, s;

	switch (fz_below(d, 16)) {
	case 0:
		return (int)fz_int(d);
	case 1:
		return f->fd[start] > 0 ? f->fd[start] : -1;
	default:
		break;
	}
	for (i = 0; i < FZ_SLOTS; i++) {
		s = (start + i) % FZ_SLOTS;
		if (f->kind[s] == kind && f->fd[s] > 0)
			return f->fd[s];
	}
	return -1;
}

void fz_fd_put(struct fz_ctx *c, struct fz_draw *d, int kind, int fd)
{
	struct fz_fds *f = c->fds;
	int s = fz_below(d, FZ_SLOTS);
	int old;

	if (fd < 0)
		return;
	old = f->fd[s];
	f->fd[s] = fd;
	f->kind[s] = kind;
	f->isotp_ifindex[s] = 0;
	if (old > 0)
		close(old);
}

void fz_fd_keep(struct fz_ctx *c, struct fz_draw *d, int kind, int fd)
{
	struct timeval tv = { .tv_usec = 10000 };

	if (fd < 0)
		return;
	/* A full send buffer or an empty queue must not stall the worker. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	fz_fd_put(c, d, kind, fd);
}

void fz_fds_close_all(struct fz_fds *f)
{
	int s;

	for (s = 0; s < FZ_SLOTS; s++) {
		if (f->fd[s] > 0)
			close(f->fd[s]);
		f->fd[s] = 0;
		f->kind[s] = FZ_FREE;
		f->isotp_ifindex[s] = 0;
	}
}

void fz_isotp_note(struct fz_ctx *c, int fd, int ifindex, __u32 rx_id)
{
	struct fz_fds *f = c->fds;
	int s;

	for (s = 0; s < FZ_SLOTS; s++) {
		if (f->fd[s] != fd || f->kind[s] != FZ_ISOTP)
			continue;
		f->isotp_rx_id[s] = rx_id;
		f->isotp_ifindex[s] = ifindex;
	}
}

bool fz_isotp_target(struct fz_ctx *c, struct fz_draw *d, int *fd, int *ifindex,
		     __u32 *rx_id)
{
	struct fz_fds *f = c->fds;
	int start = fz_below(d, FZ_SLOTS);
	int i, s;

	for (i = 0; i < FZ_SLOTS; i++) {
		s = (start + i) % FZ_SLOTS;
		if (f->kind[s] == FZ_ISOTP && f->isotp_ifindex[s] > 0) {
			*fd = f->fd[s];
			*ifindex = f->isotp_ifindex[s];
			*rx_id = f->isotp_rx_id[s];
			return true;
		}
	}
	return false;
}

/* ---- devices ------------------------------------------------------------ */

/*
 * fzv* are vcan links the fuzzer creates, fzt* tun devices, fzb*
 * can-vbus controllers ("type can"); can0..can3 are the SJA1000 cards of
 * the VM (two kvaser_pci, one dual pcm3680); fzx0 and fzx1 are the vxcan
 * pair of ops_xl.c.
 */
static const char *const fz_vcans[] = { "fzv0", "fzv1", "fzv2" };
static const char *const fz_vbuses[] = { "fzb0", "fzb1", "fzb2", "fzb3" };
static const char *const fz_devs[] = {
	"fzv0", "fzv1", "fzv2", "fzt0", "fzt1", "can0", "can1", "can2",
	"can3", "lo", "vcan0", "fzb0", "fzb1", "fzb2", "fzb3",
};

const char *fz_vcan_name(struct fz_draw *d)
{
	return fz_vcans[fz_below(d, FZ_ARRAY_SIZE(fz_vcans))];
}

const char *fz_vbus_name(struct fz_draw *d)
{
	return fz_vbuses[fz_below(d, FZ_ARRAY_SIZE(fz_vbuses))];
}

const char *fz_dev_name(struct fz_draw *d)
{
	return fz_devs[fz_below(d, FZ_ARRAY_SIZE(fz_devs))];
}

int fz_ifindex(struct fz_ctx *c, struct fz_draw *d)
{
	int v;

	switch (fz_below(d, 8)) {
	case 0:
		return 0;
	case 1:
	case 2:
		v = (int)fz_int(d);
		break;
	case 3:
		v = fz_neg_errno(d);
		break;
	default:
		return fz_name_to_index(fz_dev_name(d));
	}
	/* --avoid raw-neg-ifindex: a known bug, until its fix is in. */
	if (v < 0 && (c->avoid & FZ_AVOID_RAW_NEG_IFINDEX))
		v = v == INT_MIN ? 0 : -v;
	return v;
}

/* Send @m on a fresh NETLINK_ROUTE socket; the first answer into @ans. */
static int nl_exchange(struct fz_nlmsg *m, struct nlmsghdr *ans, size_t size)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	int fd, len;

	m->nh.nlmsg_len = m->len;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	len = sendto(fd, m->buf, m->len, 0, (struct sockaddr *)&sa, sizeof(sa));
	if (len >= 0)
		len = recv(fd, ans, size, 0);
	if (len < 0)
		len = -errno;
	close(fd);
	return len;
}

/*
 * if_nametoindex() asks with SIOCGIFINDEX, which for a missing device
 * has the kernel run modprobe for "netdev-NAME": ask rtnetlink instead.
 */
int fz_name_to_index(const char *name)
{
	union {
		struct nlmsghdr nh;
		char buf[2048];
	} ans;
	struct fz_nlmsg m;

	fz_nl_init(&m, RTM_GETLINK, 0, 0);
	m.nh.nlmsg_flags = NLM_F_REQUEST;
	fz_nl_put(&m, IFLA_IFNAME, name, strlen(name) + 1);
	if (nl_exchange(&m, &ans.nh, sizeof(ans)) < (int)NLMSG_LENGTH(sizeof(struct ifinfomsg)) ||
	    ans.nh.nlmsg_type != RTM_NEWLINK)
		return 0;
	return ((struct ifinfomsg *)NLMSG_DATA(&ans.nh))->ifi_index;
}

/* Create vcan @name; 0 or -errno from rtnetlink. */
int fz_vcan_add(const char *name)
{
	struct fz_nlmsg m;
	size_t li;

	fz_nl_init(&m, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	fz_nl_put(&m, IFLA_IFNAME, name, strlen(name) + 1);
	li = fz_nl_put(&m, IFLA_LINKINFO, NULL, 0);
	fz_nl_put(&m, IFLA_INFO_KIND, "vcan", 4);
	fz_nl_end(&m, li);
	return fz_nl_talk(&m);
}

int fz_link_up(int ifindex)
{
	struct fz_nlmsg m;
	struct ifinfomsg *ifi;

	fz_nl_init(&m, RTM_NEWLINK, 0, ifindex);
	ifi = NLMSG_DATA(&m.nh);
	ifi->ifi_change = IFF_UP;
	ifi->ifi_flags = IFF_UP;
	return fz_nl_talk(&m);
}

void fz_cleanup_devices(void)
{
	static const char *const names[] = {
		"fzv0", "fzv1", "fzv2", "fzt0", "fzt1", "fzb0", "fzb1", "fzb2", "fzb3",
		"fzx0", "fzx1",
	};
	struct fz_nlmsg m;
	size_t i;

	for (i = 0; i < FZ_ARRAY_SIZE(names); i++) {
		fz_nl_init(&m, RTM_DELLINK, 0, 0);
		fz_nl_put(&m, IFLA_IFNAME, names[i], strlen(names[i]) + 1);
		fz_nl_talk(&m);
	}
}

/* ---- rtnetlink ------------------------------------------------------------ */

void fz_nl_init(struct fz_nlmsg *m, int type, int flags, int ifindex)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)m->buf;
	struct ifinfomsg *ifi = NLMSG_DATA(nh);

	memset(m, 0, sizeof(*m));
	m->len = NLMSG_LENGTH(sizeof(*ifi));
	nh->nlmsg_type = type;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
}

size_t fz_nl_put(struct fz_nlmsg *m, int type, const void *data, size_t len)
{
	size_t off = NLMSG_ALIGN(m->len);
	struct rtattr *rta = (struct rtattr *)(m->buf + off);

	if (off + RTA_SPACE(len) > sizeof(m->buf))
		return off;
	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len && data)
		memcpy(RTA_DATA(rta), data, len);
	else if (len)
		memset(RTA_DATA(rta), 0, len);
	m->len = off + RTA_ALIGN(rta->rta_len);
	return off;
}

void fz_nl_end(struct fz_nlmsg *m, size_t nest)
{
	struct rtattr *rta = (struct rtattr *)(m->buf + nest);

	rta->rta_len = m->len - nest;
}

int fz_nl_talk(struct fz_nlmsg *m)
{
	union {
		struct nlmsghdr nh;
		char buf[4096];
	} ans;
	int len = nl_exchange(m, &ans.nh, sizeof(ans));

	if (len < 0)
		return len;
	if (len >= (int)NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
	    ans.nh.nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(&ans.nh))->error;
	return 0;
}

/* ---- tracing ------------------------------------------------------------------ */

void fz_trace(struct fz_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->trace)
		return;
	va_start(ap, fmt);
	printf("    ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

long fz_ret(struct fz_ctx *c, const char *what, long ret)
{
	long r = ret < 0 ? -errno : ret;

	if (c->trace)
		printf("    %s = %ld%s%s\n", what, r, r < 0 ? " " : "",
		       r < 0 ? strerror((int)-r) : "");
	return r;
}
