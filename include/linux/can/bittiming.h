/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bit timing of CAN controllers: checking timing given by the user
 * against a controller's limits, and computing one from a bitrate.
 */

#ifndef _CAN_BITTIMING_H
#define _CAN_BITTIMING_H

#include <linux/can/netlink.h>
#include <linux/netlink.h>

/* Sync segment, always one time quantum. */
#define CAN_SYNC_SEG 1

/* Time quanta in one bit of timing @bt. */
static inline unsigned int can_bit_time(const struct can_bittiming *bt)
{
	return CAN_SYNC_SEG + bt->prop_seg + bt->phase_seg1 + bt->phase_seg2;
}

/* can_priv.bittiming.bitrate of a device not yet configured, and of one
 * whose driver cannot read back what the hardware runs at.
 */
#define CAN_BITRATE_UNSET 0
#define CAN_BITRATE_UNKNOWN (-1U)

/**
 * struct can_tdc - transmitter delay compensation of a CAN FD controller
 * @tdcv: delay from TX to RX pin in clock periods; 0 with
 *	CAN_CTRLMODE_TDC_AUTO, where the controller measures it
 * @tdco: offset of the secondary sample point from @tdcv, in clock periods
 * @tdcf: filter window: the smallest secondary sample point position at
 *	which compensation applies; 0 if unused
 *
 * At high data bitrates the transceiver's loop delay exceeds a bit, so
 * the controller checks its own bits at a secondary sample point.
 */
struct can_tdc {
	u32 tdcv;
	u32 tdco;
	u32 tdcf;
};

/* Either way of transmitter delay compensation in the data phase. */
#define CAN_CTRLMODE_TDC_MASK \
	(CAN_CTRLMODE_TDC_AUTO | CAN_CTRLMODE_TDC_MANUAL)

/**
 * struct can_tdc_const - a controller's limits for struct can_tdc
 * @tdco_min: smallest offset
 * @tdco_max: largest offset, never 0 for a controller with TDC
 * @tdcv_min: smallest manual @tdcv; ignored without CAN_CTRLMODE_TDC_MANUAL
 * @tdcv_max: largest manual @tdcv
 * @tdcf_min: smallest filter window
 * @tdcf_max: largest filter window; 0 if the controller has none
 */
struct can_tdc_const {
	u32 tdco_min;
	u32 tdco_max;
	u32 tdcv_min;
	u32 tdcv_max;
	u32 tdcf_min;
	u32 tdcf_max;
};

int can_bittiming_fill(struct can_bittiming *bt,
		       const struct can_bittiming_const *btc, u32 clock_hz,
		       struct netlink_ext_ack *extack);
void can_calc_tdco(struct can_tdc *tdc, const struct can_tdc_const *tdc_const,
		   const struct can_bittiming *dbt, u32 *ctrlmode,
		   u32 ctrlmode_supported);

#endif /* !_CAN_BITTIMING_H */
