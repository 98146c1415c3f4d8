/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Netlink interface of CAN network devices (rtnl link kind "can"): the
 * IFLA_CAN_* attributes nested in IFLA_INFO_DATA and the structures they
 * carry. Layout and numbering are ABI shared with iproute2.
 */

#ifndef _UAPI_CAN_NETLINK_H
#define _UAPI_CAN_NETLINK_H

#include <linux/types.h>

/*
 * Timing of one bit. Times are in time quanta (TQ) unless noted; the
 * sample point is given in tenths of a percent of the bit time.
 */
struct can_bittiming {
	__u32 bitrate;		/* bits per second */
	__u32 sample_point;	/* 875 means 87.5 % */
	__u32 tq;		/* length of one TQ in ns */
	__u32 prop_seg;
	__u32 phase_seg1;
	__u32 phase_seg2;
	__u32 sjw;		/* resynchronisation jump width */
	__u32 brp;		/* clock prescaler giving one TQ */
};

/* The range of timing values a controller can be programmed with. */
struct can_bittiming_const {
	char name[16];		/* controller name, NUL terminated */
	__u32 tseg1_min;	/* tseg1 is prop_seg + phase_seg1 */
	__u32 tseg1_max;
	__u32 tseg2_min;	/* tseg2 is phase_seg2 */
	__u32 tseg2_max;
	__u32 sjw_max;
	__u32 brp_min;
	__u32 brp_max;
	__u32 brp_inc;
};

struct can_clock {
	__u32 freq;		/* controller input clock in Hz */
};

/* Fault confinement states, plus two for a controller not on the bus. */
enum can_state {
	CAN_STATE_ERROR_ACTIVE = 0,	/* both error counters below 96 */
	CAN_STATE_ERROR_WARNING,	/* a counter reached 96 */
	CAN_STATE_ERROR_PASSIVE,	/* a counter reached 128 */
	CAN_STATE_BUS_OFF,		/* transmit counter passed 255 */
	CAN_STATE_STOPPED,		/* interface down */
	CAN_STATE_SLEEPING,
	CAN_STATE_MAX
};

struct can_berr_counter {
	__u16 txerr;
	__u16 rxerr;
};

/* Change the modes in @mask to the values they have in @flags. */
struct can_ctrlmode {
	__u32 mask;
	__u32 flags;
};

#define CAN_CTRLMODE_LOOPBACK		0x01	/* internal loopback */
#define CAN_CTRLMODE_LISTENONLY		0x02	/* never drive the bus */
#define CAN_CTRLMODE_3_SAMPLES		0x04	/* sample each bit three times */
#define CAN_CTRLMODE_ONE_SHOT		0x08	/* no retransmission */
#define CAN_CTRLMODE_BERR_REPORTING	0x10	/* report every bus error */
#define CAN_CTRLMODE_FD			0x20	/* CAN FD */
#define CAN_CTRLMODE_PRESUME_ACK	0x40	/* a missing ACK is no error */
#define CAN_CTRLMODE_FD_NON_ISO		0x80	/* CAN FD before ISO 11898-1:2015 */
#define CAN_CTRLMODE_CC_LEN8_DLC	0x100	/* keep DLC values 9..15 */
#define CAN_CTRLMODE_TDC_AUTO		0x200	/* controller measures TDCV */
#define CAN_CTRLMODE_TDC_MANUAL		0x400	/* TDCV given by the user */

/* Event counters, reported as the link's extended statistics. */
struct can_device_stats {
	__u32 bus_error;
	__u32 error_warning;	/* entries into error warning */
	__u32 error_passive;	/* entries into error passive */
	__u32 bus_off;		/* entries into bus off */
	__u32 arbitration_lost;
	__u32 restarts;
};

/* Attributes inside IFLA_INFO_DATA of a CAN link. */
enum {
	IFLA_CAN_UNSPEC,
	IFLA_CAN_BITTIMING,
	IFLA_CAN_BITTIMING_CONST,
	IFLA_CAN_CLOCK,
	IFLA_CAN_STATE,
	IFLA_CAN_CTRLMODE,
	IFLA_CAN_RESTART_MS,
	IFLA_CAN_RESTART,
	IFLA_CAN_BERR_COUNTER,
	IFLA_CAN_DATA_BITTIMING,
	IFLA_CAN_DATA_BITTIMING_CONST,
	IFLA_CAN_TERMINATION,
	IFLA_CAN_TERMINATION_CONST,
	IFLA_CAN_BITRATE_CONST,
	IFLA_CAN_DATA_BITRATE_CONST,
	IFLA_CAN_BITRATE_MAX,
	IFLA_CAN_TDC,
	IFLA_CAN_CTRLMODE_EXT,

	__IFLA_CAN_MAX,
	IFLA_CAN_MAX = __IFLA_CAN_MAX - 1
};

/* Transmitter delay compensation, nested in IFLA_CAN_TDC (all u32). */
enum {
	IFLA_CAN_TDC_UNSPEC,
	IFLA_CAN_TDC_TDCV_MIN,
	IFLA_CAN_TDC_TDCV_MAX,
	IFLA_CAN_TDC_TDCO_MIN,
	IFLA_CAN_TDC_TDCO_MAX,
	IFLA_CAN_TDC_TDCF_MIN,
	IFLA_CAN_TDC_TDCF_MAX,
	IFLA_CAN_TDC_TDCV,
	IFLA_CAN_TDC_TDCO,
	IFLA_CAN_TDC_TDCF,

	__IFLA_CAN_TDC,
	IFLA_CAN_TDC_MAX = __IFLA_CAN_TDC - 1
};

/* Nested in IFLA_CAN_CTRLMODE_EXT. */
enum {
	IFLA_CAN_CTRLMODE_UNSPEC,
	IFLA_CAN_CTRLMODE_SUPPORTED,	/* u32, CAN_CTRLMODE_* bits */

	__IFLA_CAN_CTRLMODE,
	IFLA_CAN_CTRLMODE_MAX = __IFLA_CAN_CTRLMODE - 1
};

#define CAN_TERMINATION_DISABLED 0

#endif /* !_UAPI_CAN_NETLINK_H */
