/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Microchip MCP2510/MCP2515 stand-alone CAN controllers on SPI: register
 * map, SPI instructions and the driver state shared by the files of
 * mcp251x.ko (spi.c talks to the chip, core.c runs the device, irq.c
 * services the interrupt, probe.c binds to the SPI device).
 */

#ifndef _MCP251X_H
#define _MCP251X_H

#include <linux/bits.h>
#include <linux/can/dev.h>
#include <linux/mutex.h>
#include <linux/regulator/consumer.h>
#include <linux/spi/spi.h>
#include <linux/workqueue.h>

/* SPI instructions */
#define MCP251X_INS_WRITE		0x02
#define MCP251X_INS_READ		0x03
#define MCP251X_INS_BIT_MODIFY		0x05
#define MCP251X_INS_LOAD_TXB(n)		(0x40 + 2 * (n))
#define MCP251X_INS_RTS(n)		(0x80 | BIT(n))
#define MCP251X_INS_READ_RXB(n)		(0x90 + 4 * (n))
#define MCP251X_INS_READ_STATUS		0xa0
#define MCP251X_INS_RESET		0xc0

/* Registers (a 128-byte space) */
#define MCP251X_CANSTAT			0x0e
#define MCP251X_CANCTRL			0x0f
#define MCP251X_TEC			0x1c
#define MCP251X_REC			0x1d
#define MCP251X_RXM0SIDH		0x20
#define MCP251X_CNF3			0x28
#define MCP251X_CNF2			0x29
#define MCP251X_CNF1			0x2a
#define MCP251X_CANINTE			0x2b
#define MCP251X_CANINTF			0x2c
#define MCP251X_EFLG			0x2d
#define MCP251X_TXBCTRL(n)		(0x30 + 0x10 * (n))
#define MCP251X_RXBCTRL(n)		(0x60 + 0x10 * (n))

/* Offsets inside a TX or RX buffer, from its SIDH register (ctrl + 1) */
#define MCP251X_BUF_SIDH		0
#define MCP251X_BUF_SIDL		1
#define MCP251X_BUF_EID8		2
#define MCP251X_BUF_EID0		3
#define MCP251X_BUF_DLC			4
#define MCP251X_BUF_DATA		5
#define MCP251X_BUF_LEN			(MCP251X_BUF_DATA + CAN_MAX_DLEN)

#define MCP251X_SIDL_EXIDE		BIT(3)	/* TX: send an EFF frame */
#define MCP251X_SIDL_IDE		BIT(3)	/* RX: an EFF frame came */
#define MCP251X_SIDL_SRR		BIT(4)	/* RX: SFF remote frame */
#define MCP251X_SIDL_EID_MASK		GENMASK(1, 0)
#define MCP251X_DLC_RTR			BIT(6)	/* EFF remote, and TX RTR */
#define MCP251X_DLC_MASK		GENMASK(3, 0)

/* CANCTRL and CANSTAT */
#define MCP251X_REQOP_MASK		GENMASK(7, 5)
#define MCP251X_MODE_NORMAL		0x00
#define MCP251X_MODE_SLEEP		0x20
#define MCP251X_MODE_LOOPBACK		0x40
#define MCP251X_MODE_LISTENONLY		0x60
#define MCP251X_MODE_CONFIG		0x80
#define MCP251X_CANCTRL_ABAT		BIT(4)
#define MCP251X_CANCTRL_OSM		BIT(3)
#define MCP251X_CANCTRL_CLKEN		BIT(2)
#define MCP251X_CANCTRL_CLKPRE_MASK	GENMASK(1, 0)

/* CNF registers */
#define MCP251X_CNF1_SJW_SHIFT		6
#define MCP251X_CNF2_BTLMODE		BIT(7)
#define MCP251X_CNF2_SAM		BIT(6)
#define MCP251X_CNF2_PHSEG1_SHIFT	3

/* CANINTE and CANINTF */
#define MCP251X_INT_RX0			BIT(0)
#define MCP251X_INT_RX1			BIT(1)
#define MCP251X_INT_TX0			BIT(2)
#define MCP251X_INT_TX1			BIT(3)
#define MCP251X_INT_TX2			BIT(4)
#define MCP251X_INT_ERR			BIT(5)
#define MCP251X_INT_WAK			BIT(6)
#define MCP251X_INT_MERR		BIT(7)
#define MCP251X_INT_RX			(MCP251X_INT_RX0 | MCP251X_INT_RX1)

/* EFLG */
#define MCP251X_EFLG_EWARN		BIT(0)
#define MCP251X_EFLG_RXWAR		BIT(1)
#define MCP251X_EFLG_TXWAR		BIT(2)
#define MCP251X_EFLG_RXEP		BIT(3)
#define MCP251X_EFLG_TXEP		BIT(4)
#define MCP251X_EFLG_TXBO		BIT(5)
#define MCP251X_EFLG_RX0OVR		BIT(6)
#define MCP251X_EFLG_RX1OVR		BIT(7)
#define MCP251X_EFLG_OVR		(MCP251X_EFLG_RX0OVR | MCP251X_EFLG_RX1OVR)

/* TXBnCTRL */
#define MCP251X_TXB_TXREQ		BIT(3)

/* RXBnCTRL: RXM = 11 takes every frame, BUKT rolls RXB0 over into RXB1 */
#define MCP251X_RXB_RXM_ANY		GENMASK(6, 5)
#define MCP251X_RXB0_BUKT		BIT(2)

/* READ STATUS reply bits */
#define MCP251X_STAT_RX0IF		BIT(0)
#define MCP251X_STAT_RX1IF		BIT(1)

enum mcp251x_model {
	MCP251X_MCP2510 = 0x2510,
	MCP251X_MCP2515 = 0x2515,
	MCP251X_MCP25625 = 0x25625,
};

/**
 * struct mcp251x_priv - one MCP251x and its CAN device
 * @can: device layer state, first as the layer requires
 * @net: the CAN network device
 * @spi: the SPI device the chip sits on
 * @model: which chip; the MCP2510 lacks the buffer instructions
 * @lock: serialises every SPI transaction and multi-step chip update,
 *	and guards @spi_tx/@spi_rx, @is_open and the writers of @bec;
 *	process context only (the interrupt thread, the TX work, open/stop
 *	and mode changes)
 * @spi_tx: DMA-safe transmit buffer of a transaction
 * @spi_rx: DMA-safe receive buffer of a transaction
 * @wq: runs @tx_work; ordered so frames leave in the order they came
 * @tx_work: loads @tx_skb into TXB0 and requests its transmission
 * @berr_work: turns the bus-error interrupt (MERRIE) back on, a pause
 *	after a reported bus error turned it off
 * @berr_paused: MERRIE is off for that pause (under @lock): the
 *	interrupt thread leaves MERRF alone meanwhile
 * @tx_skb: the frame ndo_start_xmit (softirq, no lock) handed over, until
 *	@tx_work takes it with xchg(); the queue is stopped while a frame
 *	is in flight, so at most one waits here
 * @bec: error counters as last read from the chip (under @lock); what
 *	the device layer gets while the chip is not running
 * @is_open: the interrupt thread and TX work may touch the chip (from
 *	open's chip setup to stop's reset)
 * @power: optional supply of the chip
 * @transceiver: optional supply of the bus transceiver
 * @clk: optional clock of the chip's oscillator input
 */
struct mcp251x_priv {
	struct can_priv can;
	struct net_device *net;
	struct spi_device *spi;
	enum mcp251x_model model;

	struct mutex lock;	/* see @lock above */
	u8 *spi_tx;
	u8 *spi_rx;

	struct workqueue_struct *wq;
	struct work_struct tx_work;
	struct delayed_work berr_work;
	struct sk_buff *tx_skb;

	struct can_berr_counter bec;
	bool berr_paused;
	bool is_open;

	struct regulator *power;
	struct regulator *transceiver;
	struct clk *clk;
};

/* Longest transaction: READ RX BUFFER with a whole buffer. */
#define MCP251X_SPI_BUF_LEN		(2 + MCP251X_BUF_LEN)

/* Both supplies are optional; a missing one is NULL. */
static inline int mcp251x_supply_on(struct regulator *reg)
{
	return reg ? regulator_enable(reg) : 0;
}

static inline void mcp251x_supply_off(struct regulator *reg)
{
	if (reg)
		regulator_disable(reg);
}

/* spi.c: every function needs priv->lock and may sleep */
int mcp251x_reset(struct mcp251x_priv *priv);
int mcp251x_read_reg(struct mcp251x_priv *priv, u8 reg, u8 *val);
int mcp251x_read_regs(struct mcp251x_priv *priv, u8 reg, u8 *val, int n);
int mcp251x_write_reg(struct mcp251x_priv *priv, u8 reg, u8 val);
int mcp251x_bit_modify(struct mcp251x_priv *priv, u8 reg, u8 mask, u8 val);
int mcp251x_read_status(struct mcp251x_priv *priv, u8 *status);
int mcp251x_read_rx_buffer(struct mcp251x_priv *priv, int n, u8 *buf);
int mcp251x_load_tx_buffer(struct mcp251x_priv *priv, int n,
			   const u8 *buf, int len);
int mcp251x_request_to_send(struct mcp251x_priv *priv, int n);

/* core.c */
struct net_device *mcp251x_alloc(struct spi_device *spi,
				 enum mcp251x_model model, u32 osc_hz);
int mcp251x_set_mode(struct mcp251x_priv *priv, u8 mode);
int mcp251x_chip_start(struct mcp251x_priv *priv);
int mcp251x_chip_stop(struct mcp251x_priv *priv);
void mcp251x_pause_bus_errors(struct mcp251x_priv *priv);

/* irq.c */
irqreturn_t mcp251x_irq_thread(int irq, void *dev_id);

#endif /* _MCP251X_H */
