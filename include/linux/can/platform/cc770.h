/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Board description for Bosch CC770 and Intel AN82527 controllers
 * described by platform code: the oscillator, and the values the board's
 * wiring needs in three of the chip's configuration registers. The bit
 * names follow the datasheet; the cc770 driver programs the registers
 * from these values.
 */

#ifndef _CAN_PLATFORM_CC770_H
#define _CAN_PLATFORM_CC770_H

#include <linux/types.h>

/* CPU interface register, offset 0x02, from the top bit down: RST reads
 * back as set while the chip is held in hardware reset; system and
 * memory clock halved; power down and sleep; multiplexed address bus;
 * clock output on.
 */
#define CPUIF_RST	0x80
#define CPUIF_DSC	0x40
#define CPUIF_DMC	0x20
#define CPUIF_PWD	0x10
#define CPUIF_SLP	0x08
#define CPUIF_MUX	0x04
#define CPUIF_CEN	0x01

/* Clock out register, offset 0x1f: divider in the low nibble, slew rate
 * in the two bits above it.
 */
#define CLKOUT_SL_SHIFT	4
#define CLKOUT_SL_MASK	0x30
#define CLKOUT_CD_MASK	0x0f

/* Bus configuration register, offset 0x2f: the input comparator bypass
 * (CBY), the dominant level's polarity (POL), TX1 off (DT1), and which
 * receive input is cut off (DR1, which also gives silent mode, DR0).
 */
#define BUSCFG_CBY	0x40
#define BUSCFG_POL	0x20
#define BUSCFG_DT1	0x08
#define BUSCFG_DR1	0x02
#define BUSCFG_DR0	0x01

/**
 * struct cc770_platform_data - how a board wires its CC770
 * @osc_freq: oscillator frequency in Hz
 * @cir: CPU interface register value (CPUIF_*)
 * @cor: clock out register value (CLKOUT_*)
 * @bcr: bus configuration register value (BUSCFG_*)
 */
struct cc770_platform_data {
	u32 osc_freq;
	u8 cir;
	u8 cor;
	u8 bcr;
};

#endif /* !_CAN_PLATFORM_CC770_H */
