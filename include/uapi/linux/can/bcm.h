/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * User-space interface of the CAN broadcast manager (CAN_BCM): the message
 * head that carries every request to and every reply from a BCM socket,
 * the operation codes and the flags that tune cyclic transmission and
 * content filtering.
 */

#ifndef _UAPI_CAN_BCM_H
#define _UAPI_CAN_BCM_H

#include <linux/types.h>
#include <linux/can.h>

/**
 * struct bcm_timeval - an interval as the BCM takes and reports it
 * @tv_sec: whole seconds, 0 to 400 days
 * @tv_usec: microseconds, 0 to 999999
 *
 * Both members are a native long, so 32-bit and 64-bit programs see
 * different layouts; the kernel reads the one of its own word size.
 */
struct bcm_timeval {
	long tv_sec;
	long tv_usec;
};

/**
 * struct bcm_msg_head - what precedes the frames of every BCM message
 * @opcode: the request (TX_SETUP ... RX_READ) or reply (TX_STATUS ...)
 * @flags: SETTIMER, STARTTIMER, ... CAN_FD_FRAME, see below
 * @count: how many frames to send at @ival1 before switching to @ival2
 * @ival1: first transmission interval, or the receive timeout
 * @ival2: later transmission interval, or the receive throttle time
 * @can_id: identifier that names the operation within its socket
 * @nframes: number of frames that follow the head
 * @frames: @nframes struct can_frame, or struct canfd_frame when
 *	CAN_FD_FRAME is set in @flags
 */
struct bcm_msg_head {
	__u32 opcode;
	__u32 flags;
	__u32 count;
	struct bcm_timeval ival1, ival2;
	canid_t can_id;
	__u32 nframes;
	struct can_frame frames[];
};

/* Requests (1 to 7) and the replies and events the socket reads (8 to 12) */
enum {
	TX_SETUP = 1,	/* create or change a (cyclic) transmission */
	TX_DELETE,	/* remove a transmission */
	TX_READ,	/* ask for a transmission's settings, answer TX_STATUS */
	TX_SEND,	/* send one frame once, no operation is kept */
	RX_SETUP,	/* create or change a receive filter */
	RX_DELETE,	/* remove a receive filter */
	RX_READ,	/* ask for a filter's settings, answer RX_STATUS */
	TX_STATUS,	/* answer to TX_READ */
	TX_EXPIRED,	/* the @count frames at ival1 are out (TX_COUNTEVT) */
	RX_STATUS,	/* answer to RX_READ */
	RX_TIMEOUT,	/* no matching frame arrived within ival1 */
	RX_CHANGED	/* a matching frame with new relevant content */
};

#define SETTIMER            0x0001 /* take count, ival1, ival2 from the head */
#define STARTTIMER          0x0002 /* (re)start the timer now */
#define TX_COUNTEVT         0x0004 /* report TX_EXPIRED when count runs out */
#define TX_ANNOUNCE         0x0008 /* send the first frame right away */
#define TX_CP_CAN_ID        0x0010 /* put the head's can_id into the frames */
#define RX_FILTER_ID        0x0020 /* match on the identifier only */
#define RX_CHECK_DLC        0x0040 /* a new length is a change too */
#define RX_NO_AUTOTIMER     0x0080 /* do not rearm the timeout on reception */
#define RX_ANNOUNCE_RESUME  0x0100 /* after a timeout, report the next frame */
#define TX_RESET_MULTI_IDX  0x0200 /* restart a frame sequence at its first */
#define RX_RTR_FRAME        0x0400 /* answer remote requests with frames[0] */
#define CAN_FD_FRAME        0x0800 /* the frames are struct canfd_frame */

#endif /* !_UAPI_CAN_BCM_H */
