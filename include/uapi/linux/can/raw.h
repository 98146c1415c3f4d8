/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * CAN_RAW: socket options of the raw CAN protocol, which hands whole
 * frames between user space and CAN interfaces.
 */

#ifndef _UAPI_CAN_RAW_H
#define _UAPI_CAN_RAW_H

#include <linux/can.h>

#define SOL_CAN_RAW (SOL_CAN_BASE + CAN_RAW)

enum {
	SCM_CAN_RAW_ERRQUEUE = 1,
};

/* Options at level SOL_CAN_RAW */
enum {
	CAN_RAW_FILTER = 1,	/* array of struct can_filter */
	CAN_RAW_ERR_FILTER,	/* can_err_mask_t of wanted error classes */
	CAN_RAW_LOOPBACK,	/* int: sent frames reach local sockets (1) */
	CAN_RAW_RECV_OWN_MSGS,	/* int: see the socket's own frames (0) */
	CAN_RAW_FD_FRAMES,	/* int: send and receive CAN FD frames (0) */
	CAN_RAW_JOIN_FILTERS,	/* int: a frame must pass every filter (0) */
	CAN_RAW_XL_FRAMES,	/* int: send and receive CAN XL frames (0) */
};

#endif /* !_UAPI_CAN_RAW_H */
