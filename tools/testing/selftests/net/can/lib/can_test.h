/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the CAN selftests: create and remove vcan links over
 * rtnetlink, open and bind CAN_RAW sockets, send frames and wait for them
 * with poll() and a timeout. Each helper returns -errno (or a negative
 * value with errno set) so that tests can compare errors by name.
 */

#ifndef _CAN_TEST_H
#define _CAN_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/can.h>
#include <linux/can/error.h>
#include <linux/can/raw.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/userfaultfd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/*
 * EXPECT_EQ(sizeof(x), call()) is the natural way to write many checks
 * here; the harness compares the two values exactly, so the sign
 * mismatch warning only adds noise.
 */
#pragma GCC diagnostic ignored "-Wsign-compare"

#ifndef PF_CAN
#define PF_CAN 29
#define AF_CAN PF_CAN
#endif

/* How long to wait for a frame that must arrive (a TCG guest is slow). */
#define CT_RX_TIMEOUT_MS	3000
/* How long to watch for a frame that must not arrive, after a witness. */
#define CT_QUIET_MS		50
/*
 * How long to wait for a state the kernel shows in a file or counter (a
 * line in /proc, a receiver bound): a debug kernel under TCG on a busy
 * host is many times slower than the usual few milliseconds.
 */
#define CT_EVENT_TIMEOUT_MS	5000

/* ---- rtnetlink ------------------------------------------------------- */

struct ct_nlreq {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char attrs[512];
};

static inline struct rtattr *ct_nla_put(struct ct_nlreq *req, int type,
					const void *data, int len)
{
	struct nlmsghdr *nh = &req->nh;
	char *base = (char *)req;
	struct rtattr *rta = (struct rtattr *)(base + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

static inline void ct_nla_end(struct ct_nlreq *req, struct rtattr *nest)
{
	nest->rta_len = (char *)req + req->nh.nlmsg_len - (char *)nest;
}

/* Send one request and return the kernel's answer: 0 or -errno. */
static inline int ct_nl_talk(struct nlmsghdr *nh)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[4096];
	struct nlmsghdr *ans = (struct nlmsghdr *)buf;
	int fd, len, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	nh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nh->nlmsg_seq = 1;
	if (sendto(fd, nh, nh->nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	len = recv(fd, buf, sizeof(buf), 0);
	err = len < 0 ? -errno : -EPROTO;
	if (len >= (int)NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
	    ans->nlmsg_type == NLMSG_ERROR)
		err = ((struct nlmsgerr *)NLMSG_DATA(ans))->error;
	close(fd);
	return err;
}

static inline void ct_nl_init(struct ct_nlreq *req, int type, int flags,
			      int ifindex)
{
	memset(req, 0, sizeof(*req));
	req->nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	req->nh.nlmsg_type = type;
	req->nh.nlmsg_flags = flags;
	req->ifi.ifi_family = AF_UNSPEC;
	req->ifi.ifi_index = ifindex;
}

/* Create a vcan link called @name (down). Returns 0 or -errno. */
static inline int ct_vcan_add(const char *name)
{
	struct ct_nlreq req;
	struct rtattr *linkinfo;

	ct_nl_init(&req, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	ct_nla_put(&req, IFLA_IFNAME, name, strlen(name) + 1);
	linkinfo = ct_nla_put(&req, IFLA_LINKINFO, NULL, 0);
	ct_nla_put(&req, IFLA_INFO_KIND, "vcan", strlen("vcan"));
	ct_nla_end(&req, linkinfo);
	return ct_nl_talk(&req.nh);
}

/* Delete a link by name; -ENODEV if it is already gone. */
static inline int ct_link_del(const char *name)
{
	struct ct_nlreq req;

	ct_nl_init(&req, RTM_DELLINK, 0, 0);
	ct_nla_put(&req, IFLA_IFNAME, name, strlen(name) + 1);
	return ct_nl_talk(&req.nh);
}

/* Move link @name into the network namespace open at @netns_fd. */
static inline int ct_link_set_netns(const char *name, int netns_fd)
{
	struct ct_nlreq req;

	ct_nl_init(&req, RTM_NEWLINK, 0, 0);
	ct_nla_put(&req, IFLA_IFNAME, name, strlen(name) + 1);
	ct_nla_put(&req, IFLA_NET_NS_FD, &netns_fd, sizeof(netns_fd));
	return ct_nl_talk(&req.nh);
}

/*
 * Create a vxcan pair @name and @peer_name (both down). The peer goes to
 * the namespace open at @peer_netns_fd, or stays here if that is -1.
 * Returns 0 or -errno.
 */
static inline int ct_vxcan_add(const char *name, const char *peer_name,
			       int peer_netns_fd)
{
	struct ct_nlreq req;
	struct rtattr *linkinfo, *data, *peer;
	struct ifinfomsg peer_ifi = { .ifi_family = AF_UNSPEC };

	ct_nl_init(&req, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	ct_nla_put(&req, IFLA_IFNAME, name, strlen(name) + 1);
	linkinfo = ct_nla_put(&req, IFLA_LINKINFO, NULL, 0);
	ct_nla_put(&req, IFLA_INFO_KIND, "vxcan", strlen("vxcan"));
	data = ct_nla_put(&req, IFLA_INFO_DATA, NULL, 0);
	/* VXCAN_INFO_PEER: a struct ifinfomsg, then the peer's attributes. */
	peer = ct_nla_put(&req, 1, &peer_ifi, sizeof(peer_ifi));
	ct_nla_put(&req, IFLA_IFNAME, peer_name, strlen(peer_name) + 1);
	if (peer_netns_fd >= 0)
		ct_nla_put(&req, IFLA_NET_NS_FD, &peer_netns_fd,
			   sizeof(peer_netns_fd));
	ct_nla_end(&req, peer);
	ct_nla_end(&req, data);
	ct_nla_end(&req, linkinfo);
	return ct_nl_talk(&req.nh);
}

/* ---- interface ioctls ------------------------------------------------ */

static inline int ct_ifreq(unsigned long cmd, struct ifreq *ifr)
{
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, cmd, ifr) < 0)
		err = -errno;
	close(fd);
	return err;
}

static inline int ct_link_set_up(const char *name, bool up)
{
	struct ifreq ifr = {};
	int err;

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	err = ct_ifreq(SIOCGIFFLAGS, &ifr);
	if (err)
		return err;
	if (up)
		ifr.ifr_flags |= IFF_UP;
	else
		ifr.ifr_flags &= ~IFF_UP;
	return ct_ifreq(SIOCSIFFLAGS, &ifr);
}

static inline int ct_link_set_mtu(const char *name, int mtu)
{
	struct ifreq ifr = { .ifr_mtu = mtu };

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	return ct_ifreq(SIOCSIFMTU, &ifr);
}

static inline int ct_link_mtu(const char *name)
{
	struct ifreq ifr = {};
	int err;

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	err = ct_ifreq(SIOCGIFMTU, &ifr);
	return err ? err : ifr.ifr_mtu;
}

/* A name no other test uses at the same time: tests run in own processes. */
static inline void ct_ifname(char *buf, char tag)
{
	static unsigned int seq;

	snprintf(buf, IFNAMSIZ, "ct%c%u_%u", tag, (unsigned int)getpid() % 100000,
		 seq++);
}

/* Create vcan @name with @mtu (0: keep the default), bring it up. */
static inline int ct_vcan_create(const char *name, int mtu, bool up)
{
	int err = ct_vcan_add(name);

	if (!err && mtu)
		err = ct_link_set_mtu(name, mtu);
	if (!err && up)
		err = ct_link_set_up(name, true);
	if (err)
		ct_link_del(name);
	return err;
}

/* Read /sys/class/net/@name/statistics/@counter; -1 on error. */
static inline long long ct_link_stat(const char *name, const char *counter)
{
	char path[128];
	long long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", name, counter);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &val) != 1)
		val = -1;
	fclose(f);
	return val;
}

/* ---- CAN_RAW sockets ------------------------------------------------- */

static inline int ct_raw_socket(void)
{
	return socket(PF_CAN, SOCK_RAW | SOCK_CLOEXEC, CAN_RAW);
}

static inline int ct_bind(int fd, int ifindex)
{
	struct sockaddr_can addr = {
		.can_family = AF_CAN,
		.can_ifindex = ifindex,
	};

	return bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ? -errno : 0;
}

/* An open CAN_RAW socket bound to @ifindex, or -errno. */
static inline int ct_raw_open(int ifindex)
{
	int fd = ct_raw_socket();
	int err;

	if (fd < 0)
		return -errno;
	err = ct_bind(fd, ifindex);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

static inline int ct_setopt_int(int fd, int optname, int val)
{
	return setsockopt(fd, SOL_CAN_RAW, optname, &val, sizeof(val)) ? -errno : 0;
}

static inline int ct_set_filters(int fd, const struct can_filter *f, int count)
{
	return setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, f,
			  count * sizeof(*f)) ? -errno : 0;
}

static inline int ct_set_err_mask(int fd, can_err_mask_t mask)
{
	return setsockopt(fd, SOL_CAN_RAW, CAN_RAW_ERR_FILTER, &mask,
			  sizeof(mask)) ? -errno : 0;
}

static inline struct can_frame ct_frame(canid_t id, int len)
{
	struct can_frame cf = { .can_id = id, .len = len };
	int i;

	for (i = 0; i < len && i < CAN_MAX_DLEN; i++)
		cf.data[i] = (id + i) & 0xff;
	return cf;
}

/* Send a classic frame; 0 or -errno. */
static inline int ct_send(int fd, canid_t id, int len)
{
	struct can_frame cf = ct_frame(id, len);
	ssize_t n = write(fd, &cf, sizeof(cf));

	if (n < 0)
		return -errno;
	return n == sizeof(cf) ? 0 : -EIO;
}

/* Wait up to @ms for @fd to become readable; 1 if it did, 0 if not. */
static inline int ct_wait_readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	do {
		n = poll(&pfd, 1, ms);
	} while (n < 0 && errno == EINTR);
	return n > 0 && (pfd.revents & POLLIN);
}

/*
 * The infoleak check of every receive helper. The debug kernel's suite
 * and the fuzzer boot with slub_debug=P init_on_alloc=0, so a slab object
 * holds SLUB's free poison (0x6b) until it is written; no test sends a
 * run of that byte. A receive path that reads past a frame inside its
 * object (invisible to KASAN) hands such a run to user space.
 */
#define CT_POISON_BYTE	0x6b
#define CT_POISON_RUN	8

static inline char *ct_read_file(const char *path);

/* Whether this boot poisons new slab objects (slub_debug=P...). */
static inline bool ct_slab_is_poisoned(void)
{
	static int poisoned = -1;
	char *cmdline;

	if (poisoned < 0) {
		cmdline = ct_read_file("/proc/cmdline");
		poisoned = cmdline && strstr(cmdline, "slub_debug=P");
		free(cmdline);
	}
	return poisoned;
}

static inline bool ct_leaks_poison(const void *buf, ssize_t len)
{
	const unsigned char *p = buf;
	ssize_t i, run = 0;

	if (!ct_slab_is_poisoned())
		return false;
	for (i = 0; i < len; i++) {
		run = p[i] == CT_POISON_BYTE ? run + 1 : 0;
		if (run == CT_POISON_RUN) {
			fprintf(stderr, "# infoleak: slab poison at byte %zd of %zd received\n",
				i + 1 - run, len);
			return true;
		}
	}
	return false;
}

/*
 * Receive one frame within @ms into @buf (up to @size bytes). Returns the
 * frame size, -ETIMEDOUT if none came, or -errno from recvmsg().
 * @flags (may be NULL) gets msg_flags, @ifindex (may be NULL) the source.
 */
static inline int ct_recv(int fd, void *buf, size_t size, int ms, int *flags,
			  int *ifindex)
{
	struct sockaddr_can addr = {};
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr msg = {
		.msg_name = &addr, .msg_namelen = sizeof(addr),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t n;

	if (!ct_wait_readable(fd, ms))
		return -ETIMEDOUT;
	n = recvmsg(fd, &msg, MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	if (ct_leaks_poison(buf, n))
		return -EUCLEAN;
	if (flags)
		*flags = msg.msg_flags;
	if (ifindex)
		*ifindex = addr.can_ifindex;
	return n;
}

/* Receive a classic frame within the standard timeout; its can_id or -err. */
static inline long long ct_recv_id(int fd, int ms)
{
	struct can_frame cf;
	int n = ct_recv(fd, &cf, sizeof(cf), ms, NULL, NULL);

	return n < 0 ? n : (long long)cf.can_id;
}

/* True if nothing is waiting on @fd after a short grace period. */
static inline bool ct_is_quiet(int fd)
{
	return !ct_wait_readable(fd, CT_QUIET_MS);
}

/* Throw away whatever is queued on @fd. */
static inline void ct_drain(int fd)
{
	char buf[CANFD_MTU];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

static inline int ct_sock_error(int fd)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		return -errno;
	return err;
}

/* Wait up to @ms for POLLERR on @fd; true if it came. */
static inline bool ct_wait_pollerr(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = 0 };

	return poll(&pfd, 1, ms) > 0 && (pfd.revents & POLLERR);
}

static inline long long ct_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- packet sockets -------------------------------------------------- */

/* Send @len bytes with protocol @proto on @ifindex through packet
 * socket @fd; 0 or -errno.
 */
static inline int ct_packet_sendto(int fd, int ifindex, int proto,
				   const void *buf, size_t len)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(proto),
		.sll_ifindex = ifindex,
	};

	if (sendto(fd, buf, len, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return -errno;
	return 0;
}

/* The same through a packet socket of its own, by interface name. */
static inline int ct_packet_send(const char *ifname, int proto,
				 const void *buf, size_t len)
{
	int fd, err;

	fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = ct_packet_sendto(fd, if_nametoindex(ifname), proto, buf, len);
	close(fd);
	return err;
}

/* ---- /proc/net/can --------------------------------------------------- */

/* Read a whole file into a malloc'ed string (NULL on error). */
static inline char *ct_read_file(const char *path)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *nbuf = realloc(buf, cap * 2);

			if (!nbuf)
				break;
			buf = nbuf;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/*
 * Wait up to @ms for the file at @path to hold @needle: for a state the
 * kernel shows in /proc, sysfs or debugfs and tells of in no other way.
 * The file is read every 10 ms. True once it held @needle (a missing file
 * holds nothing), false at the deadline.
 */
static inline bool ct_wait_file_has(const char *path, const char *needle,
				    int ms)
{
	long long end = ct_now_ns(CLOCK_MONOTONIC) + ms * 1000000LL;
	bool found;
	char *text;

	for (;;) {
		text = ct_read_file(path);
		found = text && strstr(text, needle);
		free(text);
		if (found)
			return true;
		if (ct_now_ns(CLOCK_MONOTONIC) > end)
			return false;
		usleep(10000);
	}
}

/*
 * The number on the line of /proc/net/can/stats that ends in "(@tag)",
 * e.g. tag "RXF" for received frames; -1 if the line is missing.
 */
static inline long ct_proc_stat(const char *tag)
{
	char *text = ct_read_file("/proc/net/can/stats");
	char want[16], *line, *save = NULL;
	long val = -1;

	if (!text)
		return -1;
	snprintf(want, sizeof(want), "(%s)", tag);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, want)) {
			val = strtol(line, NULL, 10);
			break;
		}
	}
	free(text);
	return val;
}

/* ---- userfaultfd ----------------------------------------------------- */

/* A page whose first access blocks until the test resolves it; the
 * debug kernel has no userfaultfd, so ct_stall_init() may fail.
 */
struct ct_stall {
	int uffd;
	char *page;
	size_t size;
};

static inline int ct_stall_init(struct ct_stall *st)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {};

	st->size = sysconf(_SC_PAGESIZE);
	st->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (st->uffd < 0)
		return -errno;
	if (ioctl(st->uffd, UFFDIO_API, &api))
		return -errno;
	st->page = mmap(NULL, st->size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->page == MAP_FAILED)
		return -errno;
	reg.range.start = (unsigned long)st->page;
	reg.range.len = st->size;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	return ioctl(st->uffd, UFFDIO_REGISTER, &reg) ? -errno : 0;
}

/* Wait until someone is blocked on the page; true if that happened. */
static inline bool ct_stall_wait_fault(struct ct_stall *st, int ms)
{
	struct uffd_msg msg;

	if (!ct_wait_readable(st->uffd, ms))
		return false;
	return read(st->uffd, &msg, sizeof(msg)) == sizeof(msg) &&
	       msg.event == UFFD_EVENT_PAGEFAULT;
}

/* Fill the page with @data and let the blocked access go on. */
static inline int ct_stall_resolve(struct ct_stall *st, const void *data,
				   size_t len)
{
	char *src = calloc(1, st->size);
	struct uffdio_copy copy = {
		.dst = (unsigned long)st->page, .src = (unsigned long)src,
		.len = st->size,
	};
	int err;

	if (!src)
		return -ENOMEM;
	memcpy(src, data, len);
	err = ioctl(st->uffd, UFFDIO_COPY, &copy) ? -errno : 0;
	free(src);
	return err;
}

static inline void ct_stall_fini(struct ct_stall *st)
{
	if (st->page && st->page != MAP_FAILED)
		munmap(st->page, st->size);
	if (st->uffd >= 0)
		close(st->uffd);
}

/* ---- kernel log ------------------------------------------------------ */

/* Lines of the kernel log after the line holding @mark that hold @what. */
static inline int ct_klog_count(const char *mark, const char *what)
{
	char cmd[256], buf[32] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "dmesg | sed -n '/%s/,$p' | grep -c '%s'", mark, what);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (!fgets(buf, sizeof(buf), p))
		buf[0] = 0;
	pclose(p);
	return atoi(buf);
}

#endif /* _CAN_TEST_H */
