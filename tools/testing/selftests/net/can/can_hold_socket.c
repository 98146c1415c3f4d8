// SPDX-License-Identifier: GPL-2.0
/*
 * Helper for can_modules.sh: open a PF_CAN socket (which autoloads can
 * and the protocol module), say "ready" on stdout, and keep the socket
 * open until stdin reaches end of file.
 *
 *   can_hold_socket [raw|bcm|isotp]
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/can.h>

#ifndef PF_CAN
#define PF_CAN 29
#endif

/* The socket types and protocols as mainline's modules register them. */
static int open_can_socket(const char *proto)
{
	if (!strcmp(proto, "bcm"))
		return socket(PF_CAN, SOCK_DGRAM, CAN_BCM);
	if (!strcmp(proto, "isotp"))
		return socket(PF_CAN, SOCK_DGRAM, CAN_ISOTP);
	return socket(PF_CAN, SOCK_RAW, CAN_RAW);
}

int main(int argc, char **argv)
{
	char buf[64];
	int fd;

	fd = open_can_socket(argc > 1 ? argv[1] : "raw");
	if (fd < 0) {
		printf("error %s\n", strerror(errno));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}
