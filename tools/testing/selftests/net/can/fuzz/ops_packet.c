// SPDX-License-Identifier: GPL-2.0
/*
 * AF_PACKET injection: frames of every length and protocol number sent
 * straight to a device's transmit path, around the CAN sockets' checks.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/can.h>

#include "fuzz.h"

static __u16 packet_proto(struct fz_draw *d)
{
	static const __u16 protos[] = {
		ETH_P_CAN, ETH_P_CANFD, ETH_P_CANXL, ETH_P_CAN, ETH_P_CANFD,
		ETH_P_ALL, 0, ETH_P_IP, 0xffff,
	};

	if (fz_chance(d, 8))
		return (__u16)fz_u64(d);
	return protos[fz_below(d, FZ_ARRAY_SIZE(protos))];
}

static long packet_socket(struct fz_ctx *c, struct fz_draw *d)
{
	int type = fz_chance(d, 2) ? SOCK_RAW : SOCK_DGRAM;
	int fd = socket(AF_PACKET, type | SOCK_CLOEXEC | SOCK_NONBLOCK,
			htons(packet_proto(d)));

	fz_fd_put(c, d, FZ_PACKET, fd);
	return fz_ret(c, "socket(AF_PACKET)", fd);
}

static long packet_send(struct fz_ctx *c, struct fz_draw *d)
{
	static const size_t sizes[] = {
		CAN_MTU, CANFD_MTU, CANXL_MIN_MTU, CANXL_MTU, CANXL_HDR_SIZE,
	};
	static __thread char buf[CANXL_MTU + 64];
	int fd = fz_fd_get(c, d, FZ_PACKET);
	struct sockaddr_ll a = { .sll_family = AF_PACKET };
	size_t len;

	len = fz_chance(d, 2) ? sizes[fz_below(d, FZ_ARRAY_SIZE(sizes))] +
				fz_below(d, 3) - 1 : fz_len(d, sizeof(buf));
	if (len > sizeof(buf))
		len = sizeof(buf);
	fz_frame(d, buf, len);
	a.sll_protocol = htons(packet_proto(d));
	a.sll_ifindex = fz_ifindex(c, d);
	fz_trace(c, "packet sendto ifindex %d proto %#x len %zu", a.sll_ifindex,
		 ntohs(a.sll_protocol), len);
	return fz_ret(c, "sendto", sendto(fd, buf, len, MSG_DONTWAIT,
					  (struct sockaddr *)&a, sizeof(a)));
}

static const struct fz_op packet_ops[] = {
	{ "packet_socket", packet_socket, 2 },
	{ "packet_send", packet_send, 6 },
	{}
};

FZ_REGISTER(packet_ops)
