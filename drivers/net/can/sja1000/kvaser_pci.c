// SPDX-License-Identifier: GPL-2.0
/* Kvaser PCIcan boards: up to four SJA1000 channels behind an AMCC S5920
 * PCI bridge. BAR 0 holds the bridge (its INTCSR passes the channels'
 * shared interrupt on), BAR 1 the channels 0x20 bytes apart, BAR 2 a
 * Xilinx register with the board revision. Older boards carry the
 * bridge's PCI id, newer ones Kvaser's own.
 */

#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include "sja1000.h"
#include "sja1000_pci.h"

#define KVASER_AMCC_VENDOR	0x10e8	/* AMCC, on the bridge */
#define KVASER_AMCC_DEVICE	0x8406
#define KVASER_VENDOR		0x1a07	/* Kvaser AB */
#define KVASER_DEVICE		0x0008

#define KVASER_BAR_S5920	0
#define KVASER_BAR_CHANNELS	1
#define KVASER_BAR_XILINX	2

#define KVASER_S5920_INTCSR	0x38
#define KVASER_INTCSR_ADDON_IRQ	0x2000	/* forward add-on interrupts */
/* S5920 pass-through configuration: 0x80 in each region's byte asserts
 * PTADR#, the address strobe the board's add-on logic decodes; the
 * other bits (wait states, burst, active mode) do not apply here.
 */
#define KVASER_S5920_PTCR	0x60
#define KVASER_PTCR_PTADR	0x80808080
#define KVASER_XILINX_VERINT	7	/* high nibble: revision */

static void kvaser_irq_enable(struct sja1000_pci_card *card, bool on)
{
	void __iomem *intcsr = card->bar[KVASER_BAR_S5920] + KVASER_S5920_INTCSR;
	u32 csr = ioread32(intcsr);

	if (on)
		csr |= KVASER_INTCSR_ADDON_IRQ;
	else
		csr &= ~KVASER_INTCSR_ADDON_IRQ;
	iowrite32(csr, intcsr);
}

/* Channels stay silent (IER 0) until their interface comes up. */
static int kvaser_enable(struct sja1000_pci_card *card)
{
	dev_info(&card->pdev->dev, "Kvaser PCIcan, Xilinx revision %u\n",
		 ioread8(card->bar[KVASER_BAR_XILINX] + KVASER_XILINX_VERINT) >> 4);
	iowrite32(KVASER_PTCR_PTADR, card->bar[KVASER_BAR_S5920] + KVASER_S5920_PTCR);
	kvaser_irq_enable(card, true);
	return 0;
}

static void kvaser_disable(struct sja1000_pci_card *card)
{
	kvaser_irq_enable(card, false);
}

/* 16 MHz crystal; the SJA1000 counts at half of it. */
static const struct sja1000_pci_board kvaser_pcican = {
	.bars = BIT(KVASER_BAR_S5920) | BIT(KVASER_BAR_CHANNELS) |
		BIT(KVASER_BAR_XILINX),
	.channel_bar = KVASER_BAR_CHANNELS,
	.channel_stride = 0x20,
	.max_channels = 4,
	.clock = 16000000 / 2,
	.ocr = OCR_MODE_NORMAL | OCR_TX0_PUSHPULL,
	.cdr = CDR_CBP,
	.enable = kvaser_enable,
	.disable = kvaser_disable,
};

static const struct pci_device_id kvaser_pci_ids[] = {
	{ PCI_DEVICE(KVASER_AMCC_VENDOR, KVASER_AMCC_DEVICE),
	  .driver_data = (kernel_ulong_t)&kvaser_pcican },
	{ PCI_DEVICE(KVASER_VENDOR, KVASER_DEVICE),
	  .driver_data = (kernel_ulong_t)&kvaser_pcican },
	{ }
};
MODULE_DEVICE_TABLE(pci, kvaser_pci_ids);

static struct pci_driver kvaser_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = kvaser_pci_ids,
	.probe = sja1000_pci_probe,
	.remove = sja1000_pci_remove,
};
module_pci_driver(kvaser_pci_driver);

MODULE_DESCRIPTION("Kvaser PCIcan (SJA1000) boards");
MODULE_LICENSE("GPL");
