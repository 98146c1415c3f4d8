// SPDX-License-Identifier: GPL-2.0
/* The MCP251x's SPI instructions. Each call is one chip-select cycle, in
 * priv->spi_tx and priv->spi_rx, which the caller's priv->lock protects.
 * The MCP2510 has no buffer instructions; plain READ and WRITE of the
 * buffer registers do the same there.
 */

#include <linux/delay.h>
#include <linux/lockdep.h>
#include "mcp251x.h"

/* After RESET the oscillator start-up timer holds the chip for 128
 * oscillator cycles once the oscillator runs, and a chip that slept has
 * to start its oscillator first: no SPI cycle before that. Crystals
 * start within a few milliseconds.
 */
#define MCP251X_OSC_START_US	5000

static int transfer(struct mcp251x_priv *priv, int len)
{
	struct spi_transfer t = {
		.tx_buf = priv->spi_tx,
		.rx_buf = priv->spi_rx,
		.len = len,
	};
	int err;

	lockdep_assert_held(&priv->lock);
	err = spi_sync_transfer(priv->spi, &t, 1);
	if (err)
		dev_err_ratelimited(&priv->spi->dev, "SPI error %d\n", err);
	return err;
}

/**
 * mcp251x_reset() - reset the chip into configuration mode
 * @priv: the chip; priv->lock held, process context
 *
 * Returns once the chip listens to SPI again.
 *
 * Return: 0 or the SPI error.
 */
int mcp251x_reset(struct mcp251x_priv *priv)
{
	int err;

	priv->spi_tx[0] = MCP251X_INS_RESET;
	err = transfer(priv, 1);
	if (!err)
		usleep_range(MCP251X_OSC_START_US, 2 * MCP251X_OSC_START_US);
	return err;
}

/**
 * mcp251x_read_regs() - read consecutive registers
 * @priv: the chip; priv->lock held, process context
 * @reg: first register
 * @val: receives @n values
 * @n: count, at most MCP251X_BUF_LEN
 *
 * Return: 0 or the SPI error (@val is then undefined).
 */
int mcp251x_read_regs(struct mcp251x_priv *priv, u8 reg, u8 *val, int n)
{
	int err;

	priv->spi_tx[0] = MCP251X_INS_READ;
	priv->spi_tx[1] = reg;
	memset(priv->spi_tx + 2, 0, n);
	err = transfer(priv, 2 + n);
	if (!err)
		memcpy(val, priv->spi_rx + 2, n);
	return err;
}

/**
 * mcp251x_read_reg() - read one register
 * @priv: the chip; priv->lock held, process context
 * @reg: the register
 * @val: receives its value
 *
 * Return: 0 or the SPI error.
 */
int mcp251x_read_reg(struct mcp251x_priv *priv, u8 reg, u8 *val)
{
	return mcp251x_read_regs(priv, reg, val, 1);
}

/**
 * mcp251x_write_reg() - write one register
 * @priv: the chip; priv->lock held, process context
 * @reg: the register
 * @val: its new value
 *
 * Return: 0 or the SPI error.
 */
int mcp251x_write_reg(struct mcp251x_priv *priv, u8 reg, u8 val)
{
	priv->spi_tx[0] = MCP251X_INS_WRITE;
	priv->spi_tx[1] = reg;
	priv->spi_tx[2] = val;
	return transfer(priv, 3);
}

/**
 * mcp251x_bit_modify() - change some bits of a register
 * @priv: the chip; priv->lock held, process context
 * @reg: a register that supports BIT MODIFY (the chip writes all eight
 *	bits of the others)
 * @mask: the bits to change
 * @val: their new values
 *
 * Return: 0 or the SPI error.
 */
int mcp251x_bit_modify(struct mcp251x_priv *priv, u8 reg, u8 mask, u8 val)
{
	priv->spi_tx[0] = MCP251X_INS_BIT_MODIFY;
	priv->spi_tx[1] = reg;
	priv->spi_tx[2] = mask;
	priv->spi_tx[3] = val;
	return transfer(priv, 4);
}

/**
 * mcp251x_read_status() - the RX flags and TX states in one byte
 * @priv: the chip; priv->lock held, process context
 * @status: receives the READ STATUS reply (MCP251X_STAT_*)
 *
 * Return: 0 or the SPI error.
 */
int mcp251x_read_status(struct mcp251x_priv *priv, u8 *status)
{
	int err;

	priv->spi_tx[0] = MCP251X_INS_READ_STATUS;
	priv->spi_tx[1] = 0;
	err = transfer(priv, 2);
	if (!err)
		*status = priv->spi_rx[1];
	return err;
}

/**
 * mcp251x_read_rx_buffer() - read a received frame and free its buffer
 * @priv: the chip; priv->lock held, process context
 * @n: receive buffer, 0 or 1
 * @buf: receives MCP251X_BUF_LEN bytes from the buffer's SIDH on
 *
 * Clears RXnIF, which lets the chip store the next frame there.
 *
 * Return: 0 or the SPI error.
 */
int mcp251x_read_rx_buffer(struct mcp251x_priv *priv, int n, u8 *buf)
{
	int err;

	if (priv->model == MCP251X_MCP2510) {
		err = mcp251x_read_regs(priv, MCP251X_RXBCTRL(n) + 1, buf,
					MCP251X_BUF_LEN);
		if (err)
			return err;
		return mcp251x_bit_modify(priv, MCP251X_CANINTF,
					  MCP251X_INT_RX0 << n, 0);
	}

	priv->spi_tx[0] = MCP251X_INS_READ_RXB(n);
	memset(priv->spi_tx + 1, 0, MCP251X_BUF_LEN);
	err = transfer(priv, 1 + MCP251X_BUF_LEN);
	if (!err)
		memcpy(buf, priv->spi_rx + 1, MCP251X_BUF_LEN);
	return err;
}

/**
 * mcp251x_load_tx_buffer() - fill a transmit buffer from its SIDH on
 * @priv: the chip; priv->lock held, process context
 * @n: transmit buffer, 0 to 2; its TXREQ must be clear
 * @buf: identifier, DLC and data bytes
 * @len: bytes in @buf, at most MCP251X_BUF_LEN
 *
 * Return: 0 or the SPI error.
 */
int mcp251x_load_tx_buffer(struct mcp251x_priv *priv, int n,
			   const u8 *buf, int len)
{
	int hdr;

	if (priv->model == MCP251X_MCP2510) {
		priv->spi_tx[0] = MCP251X_INS_WRITE;
		priv->spi_tx[1] = MCP251X_TXBCTRL(n) + 1;
		hdr = 2;
	} else {
		priv->spi_tx[0] = MCP251X_INS_LOAD_TXB(n);
		hdr = 1;
	}
	memcpy(priv->spi_tx + hdr, buf, len);
	return transfer(priv, hdr + len);
}

/**
 * mcp251x_request_to_send() - start the transmission of a loaded buffer
 * @priv: the chip; priv->lock held, process context
 * @n: transmit buffer, 0 to 2
 *
 * Return: 0 or the SPI error.
 */
int mcp251x_request_to_send(struct mcp251x_priv *priv, int n)
{
	priv->spi_tx[0] = MCP251X_INS_RTS(n);
	return transfer(priv, 1);
}
