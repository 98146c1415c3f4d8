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

/*
 * Options of this CAN stack that mainline Linux does not have. They are
 * numbered from CAN_RAW_OWN_OPTIONS on, far above mainline's, so that an
 * option mainline adds later can never take one of their numbers.
 */
#define CAN_RAW_OWN_OPTIONS	0x4000

enum {
	/* struct can_raw_bus_state of the bound device; get only */
	CAN_RAW_BUS_STATE = CAN_RAW_OWN_OPTIONS,
	/* int: the device's state changes arrive as error frames (0) */
	CAN_RAW_STATE_EVENTS,
	/* int: a write waits for room in the device queue, no ENOBUFS
	 * (net.can.raw_tx_wait)
	 */
	CAN_RAW_TX_WAIT,
	/* int: one report per sent frame on the error queue (0); also the
	 * cmsg type of a report
	 */
	CAN_RAW_TX_REPORT,
	/* __u32: microseconds a frame may wait to be sent, 0 for ever (0) */
	CAN_RAW_TX_DEADLINE,
	/* int: frames written before a bus-off are not sent after it (0) */
	CAN_RAW_TX_FLUSH_BUS_OFF,
	/* __u32: reports lost for want of receive buffer; get only */
	CAN_RAW_TX_REPORTS_LOST,
};

/**
 * struct can_raw_bus_state - what CAN_RAW_BUS_STATE reads
 * @state: enum can_state (linux/can/netlink.h) of the bound device
 * @txerr: its controller's transmit error counter, now
 * @rxerr: its receive error counter, now
 * @error_warning: how often it entered ERROR-WARNING
 * @error_passive: how often it entered ERROR-PASSIVE
 * @bus_off: how often it went BUS-OFF
 * @restarts: how often it was restarted after bus-off
 * @bus_errors: bus errors it saw
 * @arbitration_lost: frames of its that lost arbitration
 * @rx_lost_controller: received frames its controller lost (FIFO or
 *	buffer overrun; rx_over_errors of ip -s link)
 * @rx_lost_queue: frames lost between interrupt and softirq, the
 *	rx-offload or backlog queue being full
 * @rx_no_receiver: valid frames the core had no subscriber for
 * @rx_invalid: frames the core dropped as malformed
 * @rx_lost_socket: copies of its frames that a socket's full receive
 *	queue refused, over all sockets
 * @tx_pending: frames in its controller's TX slots, sent but not yet
 *	confirmed
 * @flags: CAN_RAW_BUS_* below
 *
 * A buffer shorter than the structure gets its first bytes; fields are
 * only ever added at the end. A device without a controller (vcan,
 * vxcan) reads as ERROR-ACTIVE with every controller count 0; the core's
 * counts (@rx_lost_queue and after) are kept for it too.
 */
struct can_raw_bus_state {
	__u32 state;
	__u16 txerr;
	__u16 rxerr;
	__u32 error_warning;
	__u32 error_passive;
	__u32 bus_off;
	__u32 restarts;
	__u32 bus_errors;
	__u32 arbitration_lost;
	__u64 rx_lost_controller;
	__u64 rx_lost_queue;
	__u64 rx_no_receiver;
	__u64 rx_invalid;
	__u64 rx_lost_socket;
	__u32 tx_pending;
	__u32 flags;
};

/* @flags of struct can_raw_bus_state */
/* Error-passive by its own transmissions, its transmit counter stuck at
 * 128 with a frame pending: nobody acknowledges its frames, the signature
 * of a node alone on the bus (or of a bus whose others cannot decode it:
 * another bitrate, a missing termination).
 */
#define CAN_RAW_BUS_ALONE	0x1

#endif /* !_UAPI_CAN_RAW_H */
