// SPDX-License-Identifier: GPL-2.0
/*
 * tun and tap devices that change their link type to ARPHRD_CAN (280)
 * and back (TUNSETLINK), and frames written into them: the CAN core
 * must cope with a device that is CAN only for a while.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/can.h>

#include "fuzz.h"

#ifndef ARPHRD_CAN
#define ARPHRD_CAN	280
#endif

static long tun_open(struct fz_ctx *c, struct fz_draw *d)
{
	struct ifreq ifr = {};
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return fz_ret(c, "open /dev/net/tun", fd);
	strcpy(ifr.ifr_name, fz_chance(d, 2) ? "fzt0" : "fzt1");
	ifr.ifr_flags = (fz_chance(d, 2) ? IFF_TUN : IFF_TAP) |
			(fz_chance(d, 2) ? IFF_NO_PI : 0);
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		fz_ret(c, "TUNSETIFF", -1);
		close(fd);
		return -errno;
	}
	if (fz_chance(d, 2))
		fz_ret(c, "TUNSETLINK 280", ioctl(fd, TUNSETLINK, ARPHRD_CAN));
	fz_fd_put(c, d, FZ_TUN, fd);
	return 0;
}

static long tun_ioctl(struct fz_ctx *c, struct fz_draw *d)
{
	static const unsigned long types[] = { ARPHRD_CAN, ARPHRD_CAN, 1, 0xfffe, 0xffff };
	int fd = fz_fd_get(c, d, FZ_TUN);
	unsigned long v;

	switch (fz_below(d, 4)) {
	case 0:
	case 1:
		v = fz_chance(d, 8) ? (unsigned long)fz_int(d) :
		    types[fz_below(d, FZ_ARRAY_SIZE(types))];
		fz_trace(c, "TUNSETLINK %lu", v);
		return fz_ret(c, "TUNSETLINK", ioctl(fd, TUNSETLINK, v));
	case 2:
		return fz_ret(c, "TUNSETPERSIST", ioctl(fd, TUNSETPERSIST, fz_below(d, 2)));
	default:
		v = (unsigned long)fz_int(d);
		return fz_ret(c, "TUNSETTXFILTER/OFFLOAD",
			      ioctl(fd, fz_chance(d, 2) ? TUNSETOFFLOAD : TUNSETSNDBUF, &v));
	}
}

/* A frame of any length into the device: it arrives as a received skb. */
static long tun_write(struct fz_ctx *c, struct fz_draw *d)
{
	static __thread char buf[CANXL_MTU + 64];
	int fd = fz_fd_get(c, d, FZ_TUN);
	size_t len = fz_len(d, sizeof(buf));
	struct tun_pi *pi = (struct tun_pi *)buf;

	fz_frame(d, buf, len);
	if (len >= sizeof(*pi) && fz_chance(d, 2)) {
		static const __u16 protos[] = { ETH_P_CAN, ETH_P_CANFD, ETH_P_CANXL };

		pi->flags = 0;
		pi->proto = htons(protos[fz_below(d, 3)]);
	}
	fz_trace(c, "write tun len %zu", len);
	return fz_ret(c, "write tun", write(fd, buf, len));
}

static const struct fz_op tun_ops[] = {
	{ "tun_open", tun_open, 2 },
	{ "tun_ioctl", tun_ioctl, 3 },
	{ "tun_write", tun_write, 3 },
	{}
};

FZ_REGISTER(tun_ops)
