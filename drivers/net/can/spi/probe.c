// SPDX-License-Identifier: GPL-2.0
/* Binding to an MCP2510, MCP2515 or MCP25625 on SPI: the oscillator
 * frequency from a clock or the "clock-frequency" property, optional
 * chip and transceiver supplies, a check that a chip answers, and the
 * CAN device's registration. Between uses the chip sleeps.
 */

#include <linux/clk.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/property.h>
#include "mcp251x.h"

#define MCP251X_OSC_MIN_HZ	1000000
#define MCP251X_OSC_MAX_HZ	25000000
#define MCP251X_SPI_MAX_HZ	10000000

/* CANCTRL after a reset: configuration mode, CLKOUT on at FOSC/8. The
 * mask leaves out ABAT and OSM, which the MCP2510 lacks.
 */
#define MCP251X_CANCTRL_RESET_MASK	0xe7
#define MCP251X_CANCTRL_RESET		0x87

static int get_osc_hz(struct device *dev, struct clk **clk, u32 *hz)
{
	*clk = devm_clk_get_optional(dev, NULL);
	if (IS_ERR(*clk))
		return dev_err_probe(dev, PTR_ERR(*clk), "no clock\n");
	if (*clk)
		*hz = clk_get_rate(*clk);
	else if (device_property_read_u32(dev, "clock-frequency", hz))
		return dev_err_probe(dev, -ENODEV,
				     "neither clock nor clock-frequency given\n");

	if (*hz < MCP251X_OSC_MIN_HZ || *hz > MCP251X_OSC_MAX_HZ)
		return dev_err_probe(dev, -ERANGE,
				     "oscillator at %u Hz is out of range\n", *hz);
	return 0;
}

static int get_supply(struct device *dev, const char *name,
		      struct regulator **reg)
{
	*reg = devm_regulator_get_optional(dev, name);
	if (!IS_ERR(*reg))
		return 0;
	if (PTR_ERR(*reg) != -ENODEV)
		return dev_err_probe(dev, PTR_ERR(*reg), "supply %s\n", name);
	*reg = NULL;
	return 0;
}

/* After RESET, a chip reports configuration mode and the CANCTRL reset
 * value; an empty bus reads all zeroes or all ones.
 */
static int detect_chip(struct mcp251x_priv *priv)
{
	u8 ctrl, stat;
	int err;

	mutex_lock(&priv->lock);
	err = mcp251x_reset(priv);
	if (err)
		goto out;
	err = mcp251x_read_reg(priv, MCP251X_CANCTRL, &ctrl) ?:
	      mcp251x_read_reg(priv, MCP251X_CANSTAT, &stat);
	if (err)
		goto out;
	if ((ctrl & MCP251X_CANCTRL_RESET_MASK) != MCP251X_CANCTRL_RESET ||
	    (stat & MCP251X_REQOP_MASK) != MCP251X_MODE_CONFIG) {
		dev_dbg(&priv->spi->dev, "no chip: CANCTRL 0x%02x CANSTAT 0x%02x\n",
			ctrl, stat);
		err = -ENODEV;
		goto out;
	}
	err = mcp251x_chip_stop(priv);
out:
	mutex_unlock(&priv->lock);
	return err;
}

static int alloc_spi_buffers(struct mcp251x_priv *priv)
{
	struct device *dev = &priv->spi->dev;

	/* Heap memory, unlike the stack, is fit for SPI DMA. */
	priv->spi_tx = devm_kzalloc(dev, MCP251X_SPI_BUF_LEN, GFP_KERNEL);
	priv->spi_rx = devm_kzalloc(dev, MCP251X_SPI_BUF_LEN, GFP_KERNEL);
	return priv->spi_tx && priv->spi_rx ? 0 : -ENOMEM;
}

/* The chip takes SPI modes 0,0 and 1,1; the board's description says
 * which, and whether its wiring inverts the chip select: keep its mode.
 */
static int setup_spi(struct spi_device *spi)
{
	spi->bits_per_word = 8;
	if (!spi->max_speed_hz || spi->max_speed_hz > MCP251X_SPI_MAX_HZ)
		spi->max_speed_hz = MCP251X_SPI_MAX_HZ;
	return spi_setup(spi);
}

static int init_priv(struct mcp251x_priv *priv, struct clk *clk)
{
	struct device *dev = &priv->spi->dev;
	int err;

	priv->clk = clk;
	err = get_supply(dev, "vdd", &priv->power) ?:
	      get_supply(dev, "xceiver", &priv->transceiver) ?:
	      alloc_spi_buffers(priv);
	if (err)
		return err;
	priv->wq = alloc_ordered_workqueue("mcp251x-%s", WQ_MEM_RECLAIM,
					   dev_name(dev));
	return priv->wq ? 0 : -ENOMEM;
}

static int power_up(struct mcp251x_priv *priv)
{
	int err;

	err = clk_prepare_enable(priv->clk);
	if (err)
		return err;
	err = mcp251x_supply_on(priv->power);
	if (err)
		clk_disable_unprepare(priv->clk);
	return err;
}

static void power_down(struct mcp251x_priv *priv)
{
	mcp251x_supply_off(priv->power);
	clk_disable_unprepare(priv->clk);
}

/* Firmware nodes name the chip by compatible, board code by modalias. */
static enum mcp251x_model match_model(struct spi_device *spi)
{
	const struct spi_device_id *id;
	const void *data;

	data = device_get_match_data(&spi->dev);
	if (data)
		return (uintptr_t)data;
	id = spi_get_device_id(spi);
	return id ? id->driver_data : MCP251X_MCP2515;
}

static int mcp251x_probe(struct spi_device *spi)
{
	enum mcp251x_model model = match_model(spi);
	struct mcp251x_priv *priv;
	struct net_device *net;
	struct clk *clk;
	u32 osc_hz;
	int err;

	if (spi->irq <= 0)
		return dev_err_probe(&spi->dev, -EINVAL, "no interrupt\n");
	err = get_osc_hz(&spi->dev, &clk, &osc_hz) ?: setup_spi(spi);
	if (err)
		return err;

	net = mcp251x_alloc(spi, model, osc_hz);
	if (!net)
		return -ENOMEM;
	priv = netdev_priv(net);
	err = init_priv(priv, clk);
	if (err)
		goto undo_alloc;
	err = power_up(priv);
	if (err)
		goto undo_wq;
	err = detect_chip(priv);
	if (err)
		goto undo_power;

	spi_set_drvdata(spi, priv);
	err = register_candev(net);
	if (err)
		goto undo_power;
	netdev_info(net, "MCP%x on %s, %u Hz oscillator\n", priv->model,
		    dev_name(&spi->dev), osc_hz);
	return 0;

undo_power:
	power_down(priv);
undo_wq:
	if (priv->wq)
		destroy_workqueue(priv->wq);
undo_alloc:
	free_candev(net);
	return err;
}

/* Unregistering closes the device, which stops the chip and waits for
 * its interrupt thread and TX work; only then can the rest go.
 */
static void mcp251x_remove(struct spi_device *spi)
{
	struct mcp251x_priv *priv = spi_get_drvdata(spi);
	struct net_device *net = priv->net;

	unregister_candev(net);
	destroy_workqueue(priv->wq);
	power_down(priv);
	free_candev(net);
}

static const struct of_device_id mcp251x_of_match[] = {
	{ .compatible = "microchip,mcp2510", .data = (void *)MCP251X_MCP2510 },
	{ .compatible = "microchip,mcp2515", .data = (void *)MCP251X_MCP2515 },
	{ .compatible = "microchip,mcp25625", .data = (void *)MCP251X_MCP25625 },
	{ }
};
MODULE_DEVICE_TABLE(of, mcp251x_of_match);

static const struct spi_device_id mcp251x_id_table[] = {
	{ .name = "mcp2510", .driver_data = MCP251X_MCP2510 },
	{ .name = "mcp2515", .driver_data = MCP251X_MCP2515 },
	{ .name = "mcp25625", .driver_data = MCP251X_MCP25625 },
	{ }
};
MODULE_DEVICE_TABLE(spi, mcp251x_id_table);

static struct spi_driver mcp251x_driver = {
	.driver = {
		.name = "mcp251x",
		.of_match_table = mcp251x_of_match,
	},
	.id_table = mcp251x_id_table,
	.probe = mcp251x_probe,
	.remove = mcp251x_remove,
};
module_spi_driver(mcp251x_driver);

MODULE_DESCRIPTION("Microchip MCP2510/MCP2515/MCP25625 CAN controllers on SPI");
MODULE_LICENSE("GPL");
