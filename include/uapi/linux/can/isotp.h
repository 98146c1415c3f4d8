/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * CAN_ISOTP: socket options of the ISO 15765-2 transport protocol, which
 * carries messages of up to 66000 bytes over CAN frames with flow control.
 * A socket is bound to one interface and a pair of identifiers
 * (sockaddr_can.can_addr.tp: rx_id it listens to, tx_id it sends with).
 */

#ifndef _UAPI_CAN_ISOTP_H
#define _UAPI_CAN_ISOTP_H

#include <linux/types.h>
#include <linux/can.h>

#define SOL_CAN_ISOTP (SOL_CAN_BASE + CAN_ISOTP)

/* Options at level SOL_CAN_ISOTP; all are refused once bound (EISCONN). */
#define CAN_ISOTP_OPTS		1	/* struct can_isotp_options */
#define CAN_ISOTP_RECV_FC	2	/* struct can_isotp_fc_options */
#define CAN_ISOTP_TX_STMIN	3	/* __u32 ns: gap used instead of the
					 * peer's STmin (FORCE_TXSTMIN)
					 */
#define CAN_ISOTP_RX_STMIN	4	/* __u32 ns: consecutive frames closer
					 * than this are ignored (FORCE_RXSTMIN)
					 */
#define CAN_ISOTP_LL_OPTS	5	/* struct can_isotp_ll_options */

/**
 * struct can_isotp_options - protocol behaviour (CAN_ISOTP_OPTS)
 * @flags: CAN_ISOTP_* flags below
 * @frame_txtime: ns added to every gap between consecutive frames (N_As);
 *	0 keeps the current value, CAN_ISOTP_FRAME_TXTIME_ZERO sets 0
 * @ext_address: first data byte of every frame sent, with
 *	CAN_ISOTP_EXTEND_ADDR
 * @txpad_content: byte that pads frames sent, with CAN_ISOTP_TX_PADDING
 * @rxpad_content: byte expected as padding, with CAN_ISOTP_CHK_PAD_DATA
 * @rx_ext_address: first byte expected in received frames, with
 *	CAN_ISOTP_RX_EXT_ADDR (else @ext_address)
 */
struct can_isotp_options {
	__u32 flags;
	__u32 frame_txtime;
	__u8  ext_address;
	__u8  txpad_content;
	__u8  rxpad_content;
	__u8  rx_ext_address;
};

/**
 * struct can_isotp_fc_options - what this socket's flow control frames
 *	ask of a sender (CAN_ISOTP_RECV_FC)
 * @bs: block size, consecutive frames between flow controls; 0 = no limit
 * @stmin: separation time: 0x00-0x7F ms, 0xF1-0xF9 100-900 us
 * @wftmax: wait frames allowed; 0 = none
 */
struct can_isotp_fc_options {
	__u8  bs;
	__u8  stmin;
	__u8  wftmax;
};

/**
 * struct can_isotp_ll_options - the link layer (CAN_ISOTP_LL_OPTS)
 * @mtu: CAN_MTU (classic frames) or CANFD_MTU (CAN FD frames)
 * @tx_dl: data length of frames sent: 8, 12, 16, 20, 24, 32, 48 or 64;
 *	received frames may use any of them
 * @tx_flags: canfd_frame.flags of frames sent (e.g. CANFD_BRS)
 */
struct can_isotp_ll_options {
	__u8  mtu;
	__u8  tx_dl;
	__u8  tx_flags;
};

/* Flags of struct can_isotp_options */
#define CAN_ISOTP_LISTEN_MODE	0x0001	/* receive only, send no flow control */
#define CAN_ISOTP_EXTEND_ADDR	0x0002	/* extended addressing (first byte) */
#define CAN_ISOTP_TX_PADDING	0x0004	/* pad frames sent */
#define CAN_ISOTP_RX_PADDING	0x0008	/* received frames are padded */
#define CAN_ISOTP_CHK_PAD_LEN	0x0010	/* check the length of received padding */
#define CAN_ISOTP_CHK_PAD_DATA	0x0020	/* check the content of received padding */
#define CAN_ISOTP_HALF_DUPLEX	0x0040	/* either send or receive at a time */
#define CAN_ISOTP_FORCE_TXSTMIN	0x0080	/* CAN_ISOTP_TX_STMIN over the peer's */
#define CAN_ISOTP_FORCE_RXSTMIN	0x0100	/* ignore frames closer than RX_STMIN */
#define CAN_ISOTP_RX_EXT_ADDR	0x0200	/* rx_ext_address differs from tx */
#define CAN_ISOTP_WAIT_TX_DONE	0x0400	/* sendmsg() returns when all is sent */
#define CAN_ISOTP_SF_BROADCAST	0x0800	/* single frames only, to many */
#define CAN_ISOTP_CF_BROADCAST	0x1000	/* to many, without flow control */

/* Defaults of a new socket */
#define CAN_ISOTP_DEFAULT_FLAGS		0
#define CAN_ISOTP_DEFAULT_EXT_ADDRESS	0x00
#define CAN_ISOTP_DEFAULT_PAD_CONTENT	0xCC	/* few stuff bits */
#define CAN_ISOTP_DEFAULT_FRAME_TXTIME	50000	/* ns */
#define CAN_ISOTP_DEFAULT_RECV_BS	0
#define CAN_ISOTP_DEFAULT_RECV_STMIN	0x00
#define CAN_ISOTP_DEFAULT_RECV_WFTMAX	0
#define CAN_ISOTP_DEFAULT_LL_MTU	CAN_MTU
#define CAN_ISOTP_DEFAULT_LL_TX_DL	CAN_MAX_DLEN
#define CAN_ISOTP_DEFAULT_LL_TX_FLAGS	0

/* frame_txtime value that means zero (0 itself means "unchanged") */
#define CAN_ISOTP_FRAME_TXTIME_ZERO	0xFFFFFFFF

#endif /* !_UAPI_CAN_ISOTP_H */
