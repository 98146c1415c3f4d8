// SPDX-License-Identifier: GPL-2.0
/*
 * Advantech PCM-3680i style PCI boards as QEMU emulates them
 * ("-device pcm3680_pci"): two SJA1000 channels, each alone in its own
 * I/O BAR, sharing one interrupt line. No bridge to program.
 */

#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include "sja1000.h"

#define PCM3680_PCI_VENDOR	0x13fe	/* Advantech */
#define PCM3680_PCI_DEVICE	0xc002
#define PCM3680_CHANNELS	2

/* 16 MHz crystal; the SJA1000 counts at half of it. */
#define PCM3680_CAN_CLOCK	(16000000 / 2)

struct pcm3680_board {
	struct net_device *dev[PCM3680_CHANNELS];
	unsigned int n_channels;
};

static u8 pcm3680_read_reg(const struct sja1000_priv *priv, int reg)
{
	return ioread8(priv->reg_base + reg);
}

static void pcm3680_write_reg(const struct sja1000_priv *priv, int reg,
			      u8 val)
{
	iowrite8(val, priv->reg_base + reg);
}

static void pcm3680_remove_channels(struct pcm3680_board *board)
{
	unsigned int i = board->n_channels;

	while (i--) {
		netdev_dbg(board->dev[i], "pcm3680_pci channel %u removed\n", i);
		sja1000_unregister(board->dev[i]);
		sja1000_free(board->dev[i]);
	}
	board->n_channels = 0;
}

static int pcm3680_add_channel(struct pci_dev *pdev,
			       struct pcm3680_board *board, unsigned int i)
{
	struct sja1000_priv *priv;
	struct net_device *dev;
	int err;

	dev = sja1000_alloc(0);
	if (!dev)
		return -ENOMEM;

	priv = netdev_priv(dev);
	priv->reg_base = pcim_iomap_table(pdev)[i];
	priv->read_reg = pcm3680_read_reg;
	priv->write_reg = pcm3680_write_reg;
	priv->can.clock.freq = PCM3680_CAN_CLOCK;
	priv->ocr = SJA1000_OCR_MODE_NORMAL | SJA1000_OCR_TX0_PUSHPULL;
	priv->cdr = SJA1000_CDR_CBP;
	priv->irq_flags = IRQF_SHARED;
	dev->irq = pdev->irq;
	dev->dev_id = i;
	SET_NETDEV_DEV(dev, &pdev->dev);

	err = sja1000_register(dev);
	if (err) {
		sja1000_free(dev);
		return err;
	}
	board->dev[i] = dev;
	netdev_dbg(dev, "pcm3680_pci channel %u registered\n", i);
	return 0;
}

static int pcm3680_pci_probe(struct pci_dev *pdev,
			     const struct pci_device_id *id)
{
	struct pcm3680_board *board;
	unsigned int i;
	int err;

	board = devm_kzalloc(&pdev->dev, sizeof(*board), GFP_KERNEL);
	if (!board)
		return -ENOMEM;
	err = pcim_enable_device(pdev);
	if (err)
		return err;
	err = pcim_iomap_regions(pdev, BIT(0) | BIT(1), KBUILD_MODNAME);
	if (err)
		return err;

	for (i = 0; i < PCM3680_CHANNELS; i++) {
		err = pcm3680_add_channel(pdev, board, i);
		if (err)
			goto remove_channels;
		board->n_channels++;
	}
	pci_set_drvdata(pdev, board);
	return 0;

remove_channels:
	pcm3680_remove_channels(board);
	return err;
}

static void pcm3680_pci_remove(struct pci_dev *pdev)
{
	pcm3680_remove_channels(pci_get_drvdata(pdev));
}

static const struct pci_device_id pcm3680_pci_ids[] = {
	{ PCI_DEVICE(PCM3680_PCI_VENDOR, PCM3680_PCI_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, pcm3680_pci_ids);

static struct pci_driver pcm3680_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = pcm3680_pci_ids,
	.probe = pcm3680_pci_probe,
	.remove = pcm3680_pci_remove,
};
module_pci_driver(pcm3680_pci_driver);

MODULE_DESCRIPTION("Advantech PCM-3680i style dual SJA1000 PCI boards");
MODULE_LICENSE("GPL");
