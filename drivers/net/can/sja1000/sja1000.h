/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NXP SJA1000 stand-alone CAN controller in PeliCAN mode: register map
 * (from the datasheet) and the interface board glue drivers use.
 */

#ifndef _SJA1000_H
#define _SJA1000_H

#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/can/dev.h>
#include <linux/can/platform/sja1000.h>

/* Registers, PeliCAN mode */
#define SJA1000_MOD		0x00
#define SJA1000_CMR		0x01
#define SJA1000_SR		0x02
#define SJA1000_IR		0x03
#define SJA1000_IER		0x04
#define SJA1000_BTR0		0x06
#define SJA1000_BTR1		0x07
#define SJA1000_OCR		0x08
#define SJA1000_ALC		0x0b
#define SJA1000_ECC		0x0c
#define SJA1000_EWLR		0x0d
#define SJA1000_RXERR		0x0e
#define SJA1000_TXERR		0x0f
#define SJA1000_FI		0x10	/* frame information, operating mode */
#define SJA1000_ID1		0x11	/* then ID2..ID4 and data */
#define SJA1000_ACR0		0x10	/* acceptance code, reset mode */
#define SJA1000_AMR0		0x14	/* acceptance mask, reset mode */
#define SJA1000_RMC		0x1d
#define SJA1000_CDR		0x1f
#define SJA1000_SFF_DATA	0x13
#define SJA1000_EFF_DATA	0x15

/* MOD */
#define MOD_RM		0x01	/* reset mode */
#define MOD_LOM		0x02	/* listen only */
#define MOD_STM		0x04	/* self test: no ACK needed */
#define MOD_AFM		0x08	/* single acceptance filter */

/* CMR */
#define SJA1000_CMD_TR		0x01	/* transmission request */
#define SJA1000_CMD_AT		0x02	/* abort transmission */
#define SJA1000_CMD_RRB		0x04	/* release receive buffer */
#define SJA1000_CMD_CDO		0x08	/* clear data overrun */
#define SJA1000_CMD_SRR		0x10	/* self reception request */

/* SR */
#define SJA1000_SR_RBS		0x01	/* receive buffer holds a frame */
#define SJA1000_SR_DOS		0x02	/* data overrun */
#define SJA1000_SR_TBS		0x04	/* transmit buffer free */
#define SJA1000_SR_TCS		0x08	/* last transmission completed */
#define SJA1000_SR_RS		0x10
#define SJA1000_SR_TS		0x20
#define SJA1000_SR_ES		0x40	/* an error counter reached EWLR */
#define SJA1000_SR_BS		0x80	/* bus-off */

/* IR and IER */
#define SJA1000_IRQ_RI		0x01
#define SJA1000_IRQ_TI		0x02
#define SJA1000_IRQ_EI		0x04	/* error warning limit crossed */
#define SJA1000_IRQ_DOI		0x08
#define SJA1000_IRQ_WUI		0x10
#define SJA1000_IRQ_EPI		0x20	/* error passive entered or left */
#define SJA1000_IRQ_ALI		0x40
#define SJA1000_IRQ_BEI		0x80
#define SJA1000_IRQ_ALL		0xff
#define SJA1000_IRQ_ERRORS	(SJA1000_IRQ_EI | SJA1000_IRQ_DOI | \
				 SJA1000_IRQ_EPI | SJA1000_IRQ_ALI | \
				 SJA1000_IRQ_BEI)

/* ECC */
#define SJA1000_ECC_SEG		0x1f	/* same codes as CAN_ERR_PROT_LOC_* */
#define SJA1000_ECC_DIR_RX	0x20
#define SJA1000_ECC_CODE	0xc0
#define SJA1000_ECC_BIT		0x00
#define SJA1000_ECC_FORM	0x40
#define SJA1000_ECC_STUFF	0x80

/* FI */
#define SJA1000_FI_FF		0x80	/* extended frame */
#define SJA1000_FI_RTR		0x40
#define SJA1000_FI_DLC		0x0f

/* The controller's clock is half the crystal frequency. */
#define SJA1000_BTR0_SJW_SHIFT	6
#define SJA1000_BTR1_SAM	0x80
#define SJA1000_BTR1_TSEG2_SHIFT 4

/* Most interrupt causes one sja1000_interrupt() call serves: a stuck
 * line cannot hold a CPU for longer.
 */
#define SJA1000_MAX_IRQ		32

/* struct sja1000_priv.flags */
#define SJA1000_CUSTOM_IRQ_HANDLER	BIT(0)	/* the board calls sja1000_interrupt() */
#define SJA1000_QUIRK_NO_CDR_REG	BIT(1)	/* CDR is not wired: never touch it */

/**
 * struct sja1000_priv - one SJA1000 channel
 * @can: the CAN device layer's state, first
 * @dev: the network device
 * @reg_base: board mapping for the accessors, or NULL
 * @read_reg: read register @reg; set by the board glue, any context
 * @write_reg: write register @reg; set by the board glue, any context
 * @cmdreg_lock: serialises writes of CMR, done from xmit (softirq or
 *	process context) and from the interrupt handler
 * @mode_lock: serialises starting and stopping the chip: ndo_open and
 *	ndo_stop (RTNL) against a restart (work item, process context)
 * @open: the interface is up and the chip may be started; under @mode_lock
 * @ocr: output control value for the board's transceiver wiring
 * @cdr: clock divider value (CDR_PELICAN is added by the driver)
 * @irq_flags: flags for request_irq(), e.g. IRQF_SHARED
 * @flags: SJA1000_CUSTOM_IRQ_HANDLER, SJA1000_QUIRK_NO_CDR_REG
 * @pre_irq: called first by sja1000_interrupt(), or NULL; hard IRQ context
 * @post_irq: called last by sja1000_interrupt(), whether the chip had
 *	anything or not (boards acknowledge their own interrupt here), or NULL
 * @priv: the glue's own data, sizeof_priv bytes from alloc_sja1000dev()
 *
 * The members up to @priv are the interface mainline's board drivers
 * (plx_pci, ems_pci, peak_pci, sja1000_platform, ...) were written
 * against, with the same names and types.
 */
struct sja1000_priv {
	struct can_priv can;
	struct net_device *dev;
	void __iomem *reg_base;
	u8 (*read_reg)(const struct sja1000_priv *priv, int reg);
	void (*write_reg)(const struct sja1000_priv *priv, int reg, u8 val);
	void (*pre_irq)(const struct sja1000_priv *priv);
	void (*post_irq)(const struct sja1000_priv *priv);
	spinlock_t cmdreg_lock;	/* CMR writes: xmit vs. IRQ handler */
	struct mutex mode_lock;	/* chip start/stop: open, stop, restart */
	bool open;
	u8 ocr;
	u8 cdr;
	u16 flags;
	unsigned long irq_flags;
	void *priv;
};

struct net_device *alloc_sja1000dev(int sizeof_priv);
void free_sja1000dev(struct net_device *dev);
int register_sja1000dev(struct net_device *dev);
void unregister_sja1000dev(struct net_device *dev);
irqreturn_t sja1000_interrupt(int irq, void *dev_id);

#endif /* !_SJA1000_H */
