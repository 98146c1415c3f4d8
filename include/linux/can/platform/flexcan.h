/* SPDX-License-Identifier: GPL-2.0 */
/* Board data for Freescale FlexCAN controllers on machines without a
 * device tree. ColdFire MCF5441x board code (arch/m68k/coldfire) passes
 * it with its FlexCAN platform devices; the layout is the kernel's
 * existing interface for those boards.
 */

#ifndef _LINUX_CAN_PLATFORM_FLEXCAN_H
#define _LINUX_CAN_PLATFORM_FLEXCAN_H

#include <linux/types.h>

/**
 * struct flexcan_platform_data - clocking of one FlexCAN controller
 * @clock_frequency: rate of the clock that drives the CAN protocol
 *	engine, in Hz; bit timing is computed from it
 * @clk_src: value of the CLKSRC bit (bit 13) of the controller's CTRL
 *	register: 1 clocks the protocol engine from the peripheral bus
 *	clock, 0 from the oscillator
 */
struct flexcan_platform_data {
	u32 clock_frequency;
	u8 clk_src;
};

#endif /* _LINUX_CAN_PLATFORM_FLEXCAN_H */
