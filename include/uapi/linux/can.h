/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * User-space interface of the PF_CAN protocol family: identifiers, frame
 * layouts for classic CAN, CAN FD and CAN XL, the socket address and the
 * receive filter shared by every CAN protocol.
 */

#ifndef _UAPI_CAN_H
#define _UAPI_CAN_H

#include <linux/types.h>
#include <linux/socket.h>
#include <linux/stddef.h>

/* The three top bits of a canid_t qualify the identifier below them. */
#define CAN_EFF_FLAG 0x80000000U /* 29-bit extended identifier */
#define CAN_RTR_FLAG 0x40000000U /* remote transmission request */
#define CAN_ERR_FLAG 0x20000000U /* error report, see can/error.h */

#define CAN_SFF_MASK 0x000007FFU
#define CAN_EFF_MASK 0x1FFFFFFFU
#define CAN_ERR_MASK 0x1FFFFFFFU
#define CANXL_PRIO_MASK CAN_SFF_MASK

typedef __u32 canid_t;

#define CAN_SFF_ID_BITS		11
#define CAN_EFF_ID_BITS		29
#define CANXL_PRIO_BITS		CAN_SFF_ID_BITS

/* One bit per error class of can/error.h, used by CAN_RAW_ERR_FILTER. */
typedef __u32 can_err_mask_t;

#define CAN_MAX_DLC 8
#define CAN_MAX_RAW_DLC 15
#define CAN_MAX_DLEN 8

#define CANFD_MAX_DLC 15
#define CANFD_MAX_DLEN 64

#define CANXL_MIN_DLC 0
#define CANXL_MAX_DLC 2047
#define CANXL_MAX_DLC_MASK 0x07FF
#define CANXL_MIN_DLEN 1
#define CANXL_MAX_DLEN 2048

/**
 * struct can_frame - a classic CAN 2.0 frame
 * @can_id: identifier with the EFF/RTR/ERR flags in its top bits
 * @len: payload length in bytes, 0 to 8
 * @can_dlc: the same byte as @len, under the name old programs use
 * @__pad: padding, must be zero
 * @__res0: reserved, must be zero
 * @len8_dlc: the raw DLC 9 to 15 when @len is 8 and the sender wants a
 *	DLC above 8 on the wire (needs CAN_CTRLMODE_CC_LEN8_DLC)
 * @data: payload, aligned so that it can be read as a 64-bit word
 */
struct can_frame {
	canid_t can_id;
	union {
		__u8 len;
		__u8 can_dlc;
	} __attribute__((packed));
	__u8 __pad;
	__u8 __res0;
	__u8 len8_dlc;
	__u8 data[CAN_MAX_DLEN] __attribute__((aligned(8)));
};

/* Bits of canfd_frame.flags */
#define CANFD_BRS 0x01 /* data phase at the second bitrate */
#define CANFD_ESI 0x02 /* the sender was error passive */
#define CANFD_FDF 0x04 /* marks a CAN FD frame where the layout is shared */

/**
 * struct canfd_frame - a CAN FD frame
 * @can_id: identifier with the EFF/RTR/ERR flags in its top bits
 * @len: payload length in bytes: 0 to 8, 12, 16, 20, 24, 32, 48 or 64
 * @flags: CANFD_* bits
 * @__res0: reserved, must be zero
 * @__res1: reserved, must be zero
 * @data: payload
 *
 * The first eight bytes line up with struct can_frame, so a receiver can
 * tell the two apart by the number of bytes read alone.
 */
struct canfd_frame {
	canid_t can_id;
	__u8    len;
	__u8    flags;
	__u8    __res0;
	__u8    __res1;
	__u8    data[CANFD_MAX_DLEN] __attribute__((aligned(8)));
};

/* Bits of canxl_frame.flags */
#define CANXL_XLF 0x80 /* always set in a CAN XL frame */
#define CANXL_SEC 0x01 /* simple extended content */

/**
 * struct canxl_frame - a CAN XL frame
 * @prio: 11-bit priority used for arbitration
 * @flags: CANXL_* bits, CANXL_XLF always set
 * @sdt: service data unit type
 * @len: payload length, 1 to 2048
 * @af: acceptance field
 * @data: payload
 */
struct canxl_frame {
	canid_t prio;
	__u8    flags;
	__u8    sdt;
	__u16   len;
	__u32   af;
	__u8    data[CANXL_MAX_DLEN];
};

#define CAN_MTU		(sizeof(struct can_frame))
#define CANFD_MTU	(sizeof(struct canfd_frame))
#define CANXL_MTU	(sizeof(struct canxl_frame))
#define CANXL_HDR_SIZE	(offsetof(struct canxl_frame, data))
#define CANXL_MIN_MTU	(CANXL_HDR_SIZE + 64)
#define CANXL_MAX_MTU	CANXL_MTU

/* Protocol numbers for socket(PF_CAN, type, protocol) */
#define CAN_RAW		1
#define CAN_BCM		2
#define CAN_TP16	3
#define CAN_TP20	4
#define CAN_MCNET	5
#define CAN_ISOTP	6
#define CAN_J1939	7
#define CAN_NPROTO	8

/* Each protocol's socket option level is SOL_CAN_BASE plus its number. */
#define SOL_CAN_BASE 100

/**
 * struct sockaddr_can - the address of a CAN socket
 * @can_family: AF_CAN
 * @can_ifindex: interface index, 0 meaning every CAN interface
 * @can_addr: protocol specific part (transport ids, J1939 name and PGN)
 */
struct sockaddr_can {
	__kernel_sa_family_t can_family;
	int         can_ifindex;
	union {
		struct { canid_t rx_id, tx_id; } tp;
		struct {
			__u64 name;
			__u32 pgn;
			__u8 addr;
		} j1939;
	} can_addr;
};

/**
 * struct can_filter - a receive filter
 * @can_id: identifier (and flags) to compare
 * @can_mask: the bits of the identifier that take part in the comparison
 *
 * A frame matches when (frame_id & can_mask) == (can_id & can_mask). With
 * CAN_INV_FILTER set in @can_id the result is inverted.
 */
struct can_filter {
	canid_t can_id;
	canid_t can_mask;
};

#define CAN_INV_FILTER 0x20000000U
#define CAN_RAW_FILTER_MAX 512

#endif /* !_UAPI_CAN_H */
