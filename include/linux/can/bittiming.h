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

int can_bittiming_fill(struct can_bittiming *bt,
		       const struct can_bittiming_const *btc, u32 clock_hz,
		       struct netlink_ext_ack *extack);

#endif /* !_CAN_BITTIMING_H */
