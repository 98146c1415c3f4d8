// SPDX-License-Identifier: GPL-2.0
/*
 * Advantech PCM-3680i style PCI boards as QEMU emulates them
 * ("-device pcm3680_pci"): two SJA1000 channels, each alone in its own
 * I/O BAR, sharing one interrupt line. No bridge to program.
 */

#include <linux/module.h>
#include <linux/pci.h>
#include "sja1000.h"
#include "sja1000_pci.h"

#define PCM3680_PCI_VENDOR	0x13fe	/* Advantech */
#define PCM3680_PCI_DEVICE	0xc002

/* 16 MHz crystal; the SJA1000 counts at half of it. */
static const struct sja1000_pci_board pcm3680 = {
	.bars = BIT(0) | BIT(1),
	.channel_bar = 0,
	.bar_per_channel = true,
	.max_channels = 2,
	.clock = 16000000 / 2,
	.ocr = OCR_MODE_NORMAL | OCR_TX0_PUSHPULL,
	.cdr = CDR_CBP,
};

static const struct pci_device_id pcm3680_pci_ids[] = {
	{ PCI_DEVICE(PCM3680_PCI_VENDOR, PCM3680_PCI_DEVICE),
	  .driver_data = (kernel_ulong_t)&pcm3680 },
	{ }
};
MODULE_DEVICE_TABLE(pci, pcm3680_pci_ids);

static struct pci_driver pcm3680_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = pcm3680_pci_ids,
	.probe = sja1000_pci_probe,
	.remove = sja1000_pci_remove,
};
module_pci_driver(pcm3680_pci_driver);

MODULE_DESCRIPTION("Advantech PCM-3680i style dual SJA1000 PCI boards");
MODULE_LICENSE("GPL");
