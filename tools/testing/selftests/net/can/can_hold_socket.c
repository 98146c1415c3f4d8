// SPDX-License-Identifier: GPL-2.0
/*
 * Helper for can_modules.sh: open a PF_CAN socket (which autoloads can
 * and the protocol module), say "ready" on stdout, and keep the socket
 * open until stdin reaches end of file.
 *
 *   can_hold_socket [raw|bcm]
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

int main(int argc, char **argv)
{
	int is_bcm = argc > 1 && !strcmp(argv[1], "bcm");
	char buf[64];
	int fd;

	fd = socket(PF_CAN, is_bcm ? SOCK_DGRAM : SOCK_RAW,
		    is_bcm ? CAN_BCM : CAN_RAW);
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
