// SPDX-License-Identifier: GPL-2.0
/* The software SPI controller the chips sit on, and one "mcp2515" (or
 * "mcp2510") SPI device per chip select with its interrupt, a
 * "clock-frequency" property and the SPI mode of the board's wiring, as
 * board code or a device tree would describe them. Each message is one
 * chip-select cycle unless a transfer asks for a chip-select change.
 * Tests may make messages slow or fail.
 */

#include <linux/delay.h>
#include <linux/device.h>
#include <linux/spi/spi.h>
#include "model.h"

/* The chip samples in modes 0,0 and 1,1 only. */
#define MCPM_SPI_MODE_BITS	(SPI_CPOL | SPI_CPHA | SPI_CS_HIGH)

#define MCPM_SPI_MAX_HZ		10000000

static void run_transfer(struct mcpm_chip *chip, const struct spi_transfer *t)
{
	const u8 *tx = t->tx_buf;
	u8 *rx = t->rx_buf, out;
	unsigned int i;

	for (i = 0; i < t->len; i++) {
		out = mcpm_chip_byte(chip, tx ? tx[i] : 0);
		if (rx)
			rx[i] = out;
	}
}

/* A chip select of the wrong polarity never selects the chip (and
 * selects it between messages); modes 0,1 and 1,0 clock garbage.
 */
static bool mode_fits(struct mcpm_chip *chip, u32 mode)
{
	u32 want = chip->model->spi_mode & SPI_CS_HIGH;

	if ((mode & SPI_CS_HIGH) != want) {
		mcpm_violation(chip, "chip select polarity of SPI mode 0x%x", mode);
		return false;
	}
	if (!!(mode & SPI_CPOL) != !!(mode & SPI_CPHA)) {
		mcpm_violation(chip, "SPI mode 0x%x is neither 0,0 nor 1,1", mode);
		return false;
	}
	return true;
}

/* Nobody drives SO: the board's pull-up makes every byte all ones. */
static void float_reply(struct spi_message *msg)
{
	struct spi_transfer *t;

	list_for_each_entry(t, &msg->transfers, transfer_list) {
		if (t->rx_buf)
			memset(t->rx_buf, 0xff, t->len);
		msg->actual_length += t->len;
	}
}

/* A failure asked for through debugfs: the message never reaches the
 * chip. Return: true if this message is to fail.
 */
static bool take_failure(struct mcpm *model)
{
	if (!model->spi_fail)
		return false;
	model->spi_fail--;
	return true;
}

/* Runs in process context (the caller of spi_sync() or the SPI core's
 * pump thread), so it may take the model's mutex and sleep. It never
 * calls into the driver: interrupts are raised from an irq_work.
 */
static int mcpm_spi_transfer_one_message(struct spi_controller *ctlr,
					 struct spi_message *msg)
{
	struct mcpm *model = spi_controller_get_devdata(ctlr);
	struct mcpm_chip *chip = msg->spi->controller_data;
	struct spi_transfer *t;
	bool selected = false;
	u32 delay_us;

	mutex_lock(&model->lock);
	delay_us = model->spi_delay_us;
	msg->status = 0;
	if (take_failure(model)) {
		msg->status = -EIO;
		mutex_unlock(&model->lock);
		goto out;
	}
	if (!mode_fits(chip, msg->spi->mode)) {
		mutex_unlock(&model->lock);
		float_reply(msg);
		goto out;
	}
	list_for_each_entry(t, &msg->transfers, transfer_list) {
		if (!selected)
			mcpm_chip_begin(chip);
		selected = true;
		run_transfer(chip, t);
		msg->actual_length += t->len;
		if (t->cs_change &&
		    !list_is_last(&t->transfer_list, &msg->transfers)) {
			mcpm_chip_end(chip);
			selected = false;
		}
	}
	if (selected)
		mcpm_chip_end(chip);
	mutex_unlock(&model->lock);
out:
	if (delay_us)
		fsleep(delay_us);
	spi_finalize_current_message(ctlr);
	return 0;
}

static int add_device(struct mcpm *model, struct mcpm_chip *chip)
{
	struct spi_board_info info = {
		.modalias = "mcp2515",
		.max_speed_hz = MCPM_SPI_MAX_HZ,
		.mode = model->spi_mode,
		.chip_select = chip->index,
		.irq = chip->virq,
		.swnode = &chip->swnode,
		.controller_data = chip,
	};

	if (model->variant == 0x2510)
		strscpy(info.modalias, "mcp2510", sizeof(info.modalias));
	chip->props[0] = PROPERTY_ENTRY_U32("clock-frequency", model->clock_hz);
	snprintf(chip->swnode_name, sizeof(chip->swnode_name),
		 "mcp2515_model.%u", chip->index);
	chip->swnode.name = chip->swnode_name;
	chip->swnode.properties = chip->props;
	chip->spi = spi_new_device(model->ctlr, &info);
	return chip->spi ? 0 : -ENODEV;
}

/**
 * mcpm_spi_init() - register the controller and a device per chip
 * @model: the model, interrupts ready; process context
 *
 * A loaded mcp251x driver binds to the devices before this returns.
 *
 * Return: 0, or -ENOMEM or the controller's registration error, with
 * everything undone.
 */
int mcpm_spi_init(struct mcpm *model)
{
	unsigned int i;
	int err;

	model->root = root_device_register("mcp2515_model");
	if (IS_ERR(model->root))
		return PTR_ERR(model->root);
	model->ctlr = spi_alloc_master(model->root, 0);
	if (!model->ctlr) {
		err = -ENOMEM;
		goto undo_root;
	}
	model->ctlr->bus_num = -1;
	model->ctlr->num_chipselect = model->nchips;
	model->ctlr->bits_per_word_mask = SPI_BPW_MASK(8);
	model->ctlr->mode_bits = MCPM_SPI_MODE_BITS;
	model->ctlr->max_speed_hz = MCPM_SPI_MAX_HZ;
	model->ctlr->transfer_one_message = mcpm_spi_transfer_one_message;
	spi_controller_set_devdata(model->ctlr, model);
	err = spi_register_controller(model->ctlr);
	if (err) {
		spi_controller_put(model->ctlr);
		goto undo_root;
	}

	for (i = 0; i < model->nchips; i++) {
		err = add_device(model, &model->chips[i]);
		if (err)
			goto undo_ctlr;
	}
	return 0;

undo_ctlr:
	spi_unregister_controller(model->ctlr);
undo_root:
	root_device_unregister(model->root);
	return err;
}

/**
 * mcpm_spi_exit() - remove the devices and the controller
 * @model: the model; process context
 *
 * Unregistering the controller unbinds the driver from each device
 * first (its last transfers still reach the chips) and drops the
 * controller's last reference.
 */
void mcpm_spi_exit(struct mcpm *model)
{
	spi_unregister_controller(model->ctlr);
	root_device_unregister(model->root);
}
