/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PCI boards with SJA1000 channels: one shared probe and remove, driven
 * by a description of the board in the id table's driver_data.
 */

#ifndef _SJA1000_PCI_H
#define _SJA1000_PCI_H

#include <linux/pci.h>

#define SJA1000_PCI_MAX_CHANNELS	4

struct sja1000_pci_card;

/**
 * struct sja1000_pci_board - what differs from one PCI board to the next
 * @bars: mask of the BARs to map
 * @channel_bar: BAR of channel 0
 * @bar_per_channel: channel i is alone in BAR @channel_bar + i, else all
 *	channels share @channel_bar, @channel_stride bytes apart
 * @channel_stride: distance of two channels in a shared BAR
 * @max_channels: channel sockets to probe, at most SJA1000_PCI_MAX_CHANNELS
 * @clock: the chips' clock in Hz (half the crystal)
 * @ocr: output control value for the board's transceivers
 * @cdr: clock divider value (the driver adds PeliCAN mode)
 * @enable: optional; set up the board's bridge once the BARs are mapped,
 *	before any channel is probed; process context
 * @disable: optional; undo @enable, before the channels go away
 */
struct sja1000_pci_board {
	u32 bars;
	u8 channel_bar;
	bool bar_per_channel;
	u16 channel_stride;
	unsigned int max_channels;
	u32 clock;
	u8 ocr;
	u8 cdr;
	int (*enable)(struct sja1000_pci_card *card);
	void (*disable)(struct sja1000_pci_card *card);
};

/**
 * struct sja1000_pci_card - one bound board
 * @pdev: the PCI device
 * @board: its description
 * @bar: the mapped BARs, indexed by BAR number
 * @dev: the channels' CAN devices, @n_channels of them
 * @n_channels: channels found
 */
struct sja1000_pci_card {
	struct pci_dev *pdev;
	const struct sja1000_pci_board *board;
	void __iomem *const *bar;
	struct net_device *dev[SJA1000_PCI_MAX_CHANNELS];
	unsigned int n_channels;
};

int sja1000_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id);
void sja1000_pci_remove(struct pci_dev *pdev);

#endif /* !_SJA1000_PCI_H */
