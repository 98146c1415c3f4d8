// SPDX-License-Identifier: GPL-2.0
/* Kvaser PCIcan boards: up to four SJA1000 channels behind an AMCC S5920
 * PCI bridge. BAR 0 holds the bridge (its INTCSR passes the channels'
 * shared interrupt on), BAR 1 the channels 0x20 bytes apart, BAR 2 a
 * Xilinx register with the board revision.
 */

#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include "sja1000.h"

#define KVASER_PCI_VENDOR	0x10e8	/* AMCC, on the bridge */
#define KVASER_PCI_DEVICE	0x8406

#define KVASER_MAX_CHANNELS	4
#define KVASER_CHANNEL_STRIDE	0x20
#define KVASER_S5920_INTCSR	0x38
#define KVASER_INTCSR_ADDON_IRQ	0x2000	/* forward add-on interrupts */
#define KVASER_XILINX_VERINT	7	/* high nibble: revision */

/* 16 MHz crystal; the SJA1000 counts at half of it. */
#define KVASER_CAN_CLOCK	(16000000 / 2)

struct kvaser_board {
	struct pci_dev *pdev;
	void __iomem *bridge;
	void __iomem *channels;
	void __iomem *xilinx;
	struct net_device *dev[KVASER_MAX_CHANNELS];
	unsigned int n_channels;
};

static u8 kvaser_read_reg(const struct sja1000_priv *priv, int reg)
{
	return ioread8(priv->reg_base + reg);
}

static void kvaser_write_reg(const struct sja1000_priv *priv, int reg, u8 val)
{
	iowrite8(val, priv->reg_base + reg);
}

static void kvaser_irq_enable(struct kvaser_board *board, bool on)
{
	u32 csr = ioread32(board->bridge + KVASER_S5920_INTCSR);

	if (on)
		csr |= KVASER_INTCSR_ADDON_IRQ;
	else
		csr &= ~KVASER_INTCSR_ADDON_IRQ;
	iowrite32(csr, board->bridge + KVASER_S5920_INTCSR);
}

/* Return: 0, -ENODEV if no chip sits at channel @i, or another error. */
static int kvaser_add_channel(struct kvaser_board *board, unsigned int i)
{
	struct sja1000_priv *priv;
	struct net_device *dev;
	int err;

	dev = sja1000_alloc(0);
	if (!dev)
		return -ENOMEM;

	priv = netdev_priv(dev);
	priv->reg_base = board->channels + i * KVASER_CHANNEL_STRIDE;
	priv->read_reg = kvaser_read_reg;
	priv->write_reg = kvaser_write_reg;
	priv->can.clock.freq = KVASER_CAN_CLOCK;
	priv->ocr = SJA1000_OCR_MODE_NORMAL | SJA1000_OCR_TX0_PUSHPULL;
	priv->cdr = SJA1000_CDR_CBP;
	priv->irq_flags = IRQF_SHARED;
	dev->irq = board->pdev->irq;
	SET_NETDEV_DEV(dev, &board->pdev->dev);
	dev->dev_id = i;

	err = sja1000_register(dev);
	if (err) {
		sja1000_free(dev);
		return err;
	}
	board->dev[i] = dev;
	netdev_dbg(dev, "kvaser_pci channel %u registered\n", i);
	return 0;
}

static void kvaser_remove_channels(struct kvaser_board *board)
{
	unsigned int i = board->n_channels;

	while (i--) {
		netdev_dbg(board->dev[i], "kvaser_pci channel %u removed\n", i);
		sja1000_unregister(board->dev[i]);
		sja1000_free(board->dev[i]);
		board->dev[i] = NULL;
	}
	board->n_channels = 0;
}

static int kvaser_add_channels(struct kvaser_board *board)
{
	unsigned int i;
	int err;

	for (i = 0; i < KVASER_MAX_CHANNELS; i++) {
		err = kvaser_add_channel(board, i);
		if (err == -ENODEV && i > 0)
			break;
		if (err == -ENODEV)
			dev_err(&board->pdev->dev, "no SJA1000 on channel 0\n");
		if (err)
			goto remove_channels;
		board->n_channels++;
	}
	return 0;

remove_channels:
	kvaser_remove_channels(board);
	return err;
}

static int kvaser_map_bars(struct kvaser_board *board)
{
	struct pci_dev *pdev = board->pdev;
	void __iomem * const *table;
	int err;

	err = pcim_iomap_regions(pdev, BIT(0) | BIT(1) | BIT(2), KBUILD_MODNAME);
	if (err)
		return err;
	table = pcim_iomap_table(pdev);
	if (!table)
		return -ENOMEM;
	board->bridge = table[0];
	board->channels = table[1];
	board->xilinx = table[2];
	return 0;
}

static int kvaser_pci_probe(struct pci_dev *pdev,
			    const struct pci_device_id *id)
{
	struct kvaser_board *board;
	int err;

	board = devm_kzalloc(&pdev->dev, sizeof(*board), GFP_KERNEL);
	if (!board)
		return -ENOMEM;
	board->pdev = pdev;

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	err = kvaser_map_bars(board);
	if (err)
		return err;

	dev_info(&pdev->dev, "Kvaser PCIcan, Xilinx revision %u\n",
		 ioread8(board->xilinx + KVASER_XILINX_VERINT) >> 4);

	/* Channels stay silent (IER 0) until their interface comes up. */
	kvaser_irq_enable(board, true);
	err = kvaser_add_channels(board);
	if (err) {
		kvaser_irq_enable(board, false);
		return err;
	}
	pci_set_drvdata(pdev, board);
	return 0;
}

/* Interrupts off first, then the devices; devres unmaps the BARs last. */
static void kvaser_pci_remove(struct pci_dev *pdev)
{
	struct kvaser_board *board = pci_get_drvdata(pdev);

	kvaser_irq_enable(board, false);
	kvaser_remove_channels(board);
}

static const struct pci_device_id kvaser_pci_ids[] = {
	{ PCI_DEVICE(KVASER_PCI_VENDOR, KVASER_PCI_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, kvaser_pci_ids);

static struct pci_driver kvaser_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = kvaser_pci_ids,
	.probe = kvaser_pci_probe,
	.remove = kvaser_pci_remove,
};
module_pci_driver(kvaser_pci_driver);

MODULE_DESCRIPTION("Kvaser PCIcan (SJA1000) boards");
MODULE_LICENSE("GPL");
