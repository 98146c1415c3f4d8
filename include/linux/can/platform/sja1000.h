/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Board description for SJA1000 controllers that are not found on a bus
 * (platform devices, ISA cards): the crystal, and how the board wires
 * the chip's clock output and its two transmit pins, as the values of
 * the clock divider (CDR) and output control (OCR) registers.
 */

#ifndef _CAN_PLATFORM_SJA1000_H
#define _CAN_PLATFORM_SJA1000_H

#include <linux/types.h>

/* CDR: PeliCAN mode (the driver always sets it), the input comparator
 * bypass for boards with their own receive comparator, TX1 used as
 * receive interrupt output, and the CLKOUT pin: off, or the crystal
 * divided by a code from CDR_CLKOUT_MASK.
 */
#define CDR_PELICAN		0x80
#define CDR_CBP			0x40
#define CDR_RXINPEN		0x20
#define CDR_CLK_OFF		0x08
#define CDR_CLKOUT_MASK		0x07

/* OCR, low two bits: the output mode; normal is what every board uses. */
#define OCR_MODE_MASK		0x03
#define OCR_MODE_BIPHASE	0x00
#define OCR_MODE_TEST		0x01
#define OCR_MODE_NORMAL		0x02
#define OCR_MODE_CLOCK		0x03

/* OCR, the rest: three bits for each transmit pin (TX0 from bit 2, TX1
 * from bit 5): invert, and the transistors that drive it. Push-pull is
 * both pull-down and pull-up.
 */
#define OCR_TX_SHIFT		2
#define OCR_TX_MASK		0xfc
#define OCR_TX0_PUSHPULL	0x18
#define OCR_TX1_PUSHPULL	0xc0
#define OCR_TX0_INVERT		0x04
#define OCR_TX1_INVERT		0x20
#define OCR_TX0_PULLDOWN	0x08
#define OCR_TX1_PULLDOWN	0x40
#define OCR_TX0_PULLUP		0x10
#define OCR_TX1_PULLUP		0x80

/**
 * struct sja1000_platform_data - an SJA1000 the board code describes
 * @osc_freq: crystal frequency in Hz; the chip runs at half of it
 * @ocr: OCR value for the board's transceiver wiring
 * @cdr: CDR value; CDR_PELICAN need not be given
 */
struct sja1000_platform_data {
	u32 osc_freq;
	u8 ocr;
	u8 cdr;
};

#endif /* !_CAN_PLATFORM_SJA1000_H */
