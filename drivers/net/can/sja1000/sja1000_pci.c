// SPDX-License-Identifier: GPL-2.0
/* Shared glue of the SJA1000 PCI boards. A board driver is an id table
 * whose driver_data points to a struct sja1000_pci_board, and this
 * probe and remove: map the BARs, let the board set up its bridge, then
 * register one CAN device per channel socket that holds a chip.
 */

#include <linux/io.h>
#include <linux/module.h>
#include "sja1000.h"
#include "sja1000_pci.h"

static u8 sja1000_pci_read(const struct sja1000_priv *priv, int reg)
{
	return ioread8(priv->reg_base + reg);
}

static void sja1000_pci_write(const struct sja1000_priv *priv, int reg,
			      u8 val)
{
	iowrite8(val, priv->reg_base + reg);
}

static void __iomem *channel_base(const struct sja1000_pci_card *card,
				  unsigned int i)
{
	const struct sja1000_pci_board *board = card->board;

	if (board->bar_per_channel)
		return card->bar[board->channel_bar + i];
	return card->bar[board->channel_bar] + i * board->channel_stride;
}

/* Return: 0, -ENODEV if socket @i holds no chip, or another error. */
static int add_channel(struct sja1000_pci_card *card, unsigned int i)
{
	const struct sja1000_pci_board *board = card->board;
	struct sja1000_priv *priv;
	struct net_device *dev;
	int err;

	dev = alloc_sja1000dev(0);
	if (!dev)
		return -ENOMEM;

	priv = netdev_priv(dev);
	priv->reg_base = channel_base(card, i);
	priv->read_reg = sja1000_pci_read;
	priv->write_reg = sja1000_pci_write;
	priv->can.clock.freq = board->clock;
	priv->ocr = board->ocr;
	priv->cdr = board->cdr;
	priv->irq_flags = IRQF_SHARED;
	dev->irq = card->pdev->irq;
	dev->dev_id = i;
	SET_NETDEV_DEV(dev, &card->pdev->dev);

	err = register_sja1000dev(dev);
	if (err) {
		free_sja1000dev(dev);
		return err;
	}
	card->dev[i] = dev;
	return 0;
}

static void remove_channels(struct sja1000_pci_card *card)
{
	unsigned int i = card->n_channels;

	while (i--) {
		unregister_sja1000dev(card->dev[i]);
		free_sja1000dev(card->dev[i]);
		card->dev[i] = NULL;
	}
	card->n_channels = 0;
}

/* Sockets in order; the first empty one ends the list, but channel 0
 * must be there.
 */
static int add_channels(struct sja1000_pci_card *card)
{
	unsigned int max = min_t(unsigned int, card->board->max_channels,
				 SJA1000_PCI_MAX_CHANNELS);
	int err;

	while (card->n_channels < max) {
		err = add_channel(card, card->n_channels);
		if (err == -ENODEV && card->n_channels)
			break;
		if (err == -ENODEV)
			dev_err(&card->pdev->dev, "no SJA1000 on channel 0\n");
		if (err) {
			remove_channels(card);
			return err;
		}
		card->n_channels++;
	}
	return 0;
}

/**
 * sja1000_pci_probe() - the probe of an SJA1000 PCI board driver
 * @pdev: the board
 * @id: its id table entry; driver_data is a struct sja1000_pci_board
 *
 * Process context. The BARs are device-managed and go after remove.
 *
 * Return: 0 or a negative errno.
 */
int sja1000_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	const struct sja1000_pci_board *board = (const void *)id->driver_data;
	struct sja1000_pci_card *card;
	int err;

	card = devm_kzalloc(&pdev->dev, sizeof(*card), GFP_KERNEL);
	if (!card)
		return -ENOMEM;
	card->pdev = pdev;
	card->board = board;

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	err = pcim_iomap_regions(pdev, board->bars, dev_driver_string(&pdev->dev));
	if (err)
		return err;
	card->bar = pcim_iomap_table(pdev);
	if (!card->bar)
		return -ENOMEM;

	if (board->enable) {
		err = board->enable(card);
		if (err)
			return err;
	}
	err = add_channels(card);
	if (err) {
		if (board->disable)
			board->disable(card);
		return err;
	}
	pci_set_drvdata(pdev, card);
	dev_info(&pdev->dev, "%u SJA1000 channel(s)\n", card->n_channels);
	return 0;
}
EXPORT_SYMBOL_GPL(sja1000_pci_probe);

/**
 * sja1000_pci_remove() - the remove of an SJA1000 PCI board driver
 * @pdev: a board sja1000_pci_probe() bound
 *
 * Process context. The board's interrupt goes off before the channels.
 */
void sja1000_pci_remove(struct pci_dev *pdev)
{
	struct sja1000_pci_card *card = pci_get_drvdata(pdev);

	if (card->board->disable)
		card->board->disable(card);
	remove_channels(card);
}
EXPORT_SYMBOL_GPL(sja1000_pci_remove);
