/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * CAN_J1939: the user interface of the SAE J1939 protocol, the vehicle
 * network of trucks, buses and farm machines. A socket is named by
 * sockaddr_can.can_addr.j1939: a 64-bit NAME, a Parameter Group Number
 * (PGN) and an 8-bit address; messages longer than a frame travel by
 * the transport protocols (TP up to 1785 bytes, ETP beyond).
 *
 * The protocol module is mainline's net/can/j1939, which runs on our
 * core; this header carries its ABI.
 */

#ifndef _UAPI_CAN_J1939_H_
#define _UAPI_CAN_J1939_H_

#include <linux/types.h>
#include <linux/socket.h>
#include <linux/can.h>

/* Addresses: 0..0xfd belong to one ECU each. */
#define J1939_NO_ADDR		0xff	/* broadcast, or "none" in a bind */
#define J1939_IDLE_ADDR		0xfe	/* an ECU that has not claimed one */
#define J1939_MAX_UNICAST_ADDR	0xfd

/* A NAME of 0 means: address the peer by its address only. */
#define J1939_NO_NAME		0

/* PGNs: 18 significant bits (data page, PDU format, PDU specific). */
#define J1939_NO_PGN			0x40000	/* "any" in a bind */
#define J1939_PGN_MAX			0x3ffff
#define J1939_PGN_PDU1_MAX		0x3ff00	/* PDU1: PS is an address */
#define J1939_PGN_ADDRESS_COMMANDED	0x0fed8
#define J1939_PGN_ADDRESS_CLAIMED	0x0ee00
#define J1939_PGN_REQUEST		0x0ea00

/* Parameter Group Number: bits 0-7 PDU specific, 8-15 PDU format, 16
 * data page, 17 extended data page; the rest zero.
 */
typedef __u32 pgn_t;

/* Message priority, 0 (highest) to 7. */
typedef __u8 priority_t;

/* NAME, from bit 0 up: identity number (21 bits), manufacturer code
 * (11), ECU instance (3), function instance (5), function (8), a
 * reserved bit, vehicle system (7), vehicle system instance (4),
 * industry group (3), and in bit 63 whether the ECU may take any
 * address.
 */
typedef __u64 name_t;

#define SOL_CAN_J1939 (SOL_CAN_BASE + CAN_J1939)

/* Options at level SOL_CAN_J1939. */
enum {
	SO_J1939_FILTER = 1,	/* struct j1939_filter[], at most J1939_FILTER_MAX */
	SO_J1939_PROMISC = 2,	/* int: also receive what is not for us */
	SO_J1939_SEND_PRIO = 3,	/* int: priority of what is sent, 0..7 */
	SO_J1939_ERRQUEUE = 4,	/* int: report transfer progress on the
				 * error queue
				 */
};

/* Control messages that come with a received message. */
enum {
	SCM_J1939_DEST_ADDR = 1,	/* __u8 */
	SCM_J1939_DEST_NAME = 2,	/* __u64 */
	SCM_J1939_PRIO = 3,		/* __u8 */
	SCM_J1939_ERRQUEUE = 4,		/* netlink attributes below */
};

/* Attributes of an SCM_J1939_ERRQUEUE message. */
enum {
	J1939_NLA_PAD,
	J1939_NLA_BYTES_ACKED,
	J1939_NLA_TOTAL_SIZE,
	J1939_NLA_PGN,
	J1939_NLA_SRC_NAME,
	J1939_NLA_DEST_NAME,
	J1939_NLA_SRC_ADDR,
	J1939_NLA_DEST_ADDR,
};

/* ee_info of a J1939 error queue entry: what happened to a transfer. */
enum {
	J1939_EE_INFO_NONE,
	J1939_EE_INFO_TX_ABORT,
	J1939_EE_INFO_RX_RTS,
	J1939_EE_INFO_RX_DPO,
	J1939_EE_INFO_RX_ABORT,
};

/**
 * struct j1939_filter - one receive filter (SO_J1939_FILTER)
 * @name: NAME the sender must have, in the bits of @name_mask
 * @name_mask: NAME bits compared
 * @pgn: PGN wanted, in the bits of @pgn_mask
 * @pgn_mask: PGN bits compared
 * @addr: source address wanted, in the bits of @addr_mask
 * @addr_mask: address bits compared
 *
 * A message passes when it matches any one filter of the list.
 */
struct j1939_filter {
	name_t name;
	name_t name_mask;
	pgn_t pgn;
	pgn_t pgn_mask;
	__u8 addr;
	__u8 addr_mask;
};

/* The most filters one SO_J1939_FILTER call may set. */
#define J1939_FILTER_MAX	512

#endif /* !_UAPI_CAN_J1939_H_ */
