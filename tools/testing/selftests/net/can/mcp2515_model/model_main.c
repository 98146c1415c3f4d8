// SPDX-License-Identifier: GPL-2.0
/* Module setup of the MCP2515 model: the chips in reset state, the bus
 * timer, their interrupt lines, the SPI controller with one device per
 * chip (where the mcp251x driver binds), then the debugfs test
 * interface. Exit takes them down in the reverse order. What a board
 * fixes (chip variant, SPI wiring, interrupt trigger) is a module
 * parameter; what a test changes on the fly is in debugfs.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spi/spi.h>
#include "model.h"

static unsigned int chips = 2;
module_param(chips, uint, 0444);
MODULE_PARM_DESC(chips, "number of chips on the bus (1-8, default 2)");

static unsigned int clock_hz = 16000000;
module_param(clock_hz, uint, 0444);
MODULE_PARM_DESC(clock_hz, "oscillator frequency in Hz (default 16000000)");

static unsigned int variant = 0x2515;
module_param(variant, uint, 0444);
MODULE_PARM_DESC(variant, "chip: 0x2515 (default) or 0x2510 (no buffer instructions)");

static unsigned int spi_mode;
module_param(spi_mode, uint, 0444);
MODULE_PARM_DESC(spi_mode, "SPI mode bits of the board, e.g. 4: chip select active high (default 0)");

static bool edge_irq;
module_param(edge_irq, bool, 0444);
MODULE_PARM_DESC(edge_irq, "INT pins are edge-triggered lines (default: level)");

static unsigned int startup_us;
module_param(startup_us, uint, 0444);
MODULE_PARM_DESC(startup_us,
		 "oscillator start-up time after RESET in us (default: 128 clock cycles)");

static struct mcpm *mcpm_model;

static struct mcpm *alloc_model(void)
{
	struct mcpm *model;
	unsigned int i;

	model = kzalloc(sizeof(*model), GFP_KERNEL);
	if (!model)
		return NULL;
	model->chips = kcalloc(chips, sizeof(*model->chips), GFP_KERNEL);
	if (!model->chips) {
		kfree(model);
		return NULL;
	}
	mutex_init(&model->lock);
	model->nchips = chips;
	model->clock_hz = clock_hz;
	model->variant = variant;
	model->spi_mode = spi_mode;
	model->edge_irq = edge_irq;
	model->startup_us = startup_us ?:
			    DIV_ROUND_UP(128 * USEC_PER_SEC, clock_hz);
	mcpm_bus_init(model);

	mutex_lock(&model->lock);
	for (i = 0; i < chips; i++) {
		model->chips[i].model = model;
		model->chips[i].index = i;
		mcpm_chip_reset(&model->chips[i]);
	}
	mutex_unlock(&model->lock);
	return model;
}

static void free_model(struct mcpm *model)
{
	mutex_destroy(&model->lock);
	kfree(model->chips);
	kfree(model);
}

static int __init mcpm_init(void)
{
	struct mcpm *model;
	int err;

	if (chips < 1 || chips > MCPM_MAX_CHIPS || !clock_hz ||
	    (variant != 0x2515 && variant != 0x2510) ||
	    (spi_mode & ~(SPI_CPOL | SPI_CPHA | SPI_CS_HIGH)) ||
	    startup_us > USEC_PER_SEC)
		return -EINVAL;
	model = alloc_model();
	if (!model)
		return -ENOMEM;
	err = mcpm_irq_init(model);
	if (err)
		goto undo_alloc;
	err = mcpm_spi_init(model);
	if (err)
		goto undo_irq;
	mcpm_debugfs_init(model);
	mcpm_model = model;
	pr_debug("%u chips at %u Hz created\n", chips, clock_hz);
	return 0;

undo_irq:
	mcpm_bus_exit(model);
	mcpm_irq_exit(model);
undo_alloc:
	free_model(model);
	return err;
}

/* debugfs first, so no test writes into a chip being removed; then the
 * SPI devices, whose driver still talks to the chips while it unbinds;
 * the bus timer once no SPI cycle can arm it; the interrupt lines only
 * when no driver can hold one.
 */
static void __exit mcpm_exit(void)
{
	struct mcpm *model = mcpm_model;

	mcpm_debugfs_exit(model);
	mcpm_spi_exit(model);
	mcpm_bus_exit(model);
	mcpm_irq_exit(model);
	free_model(model);
	pr_debug("chips destroyed\n");
}

module_init(mcpm_init);
module_exit(mcpm_exit);

MODULE_DESCRIPTION("Software model of MCP2515 CAN controllers on SPI, for tests");
MODULE_LICENSE("GPL");
