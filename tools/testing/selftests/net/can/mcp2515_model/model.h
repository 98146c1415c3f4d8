/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A software model of the Microchip MCP2515 CAN controller for tests:
 * chips on a software SPI controller, their register files and SPI
 * instructions (model_chip.c), the CAN bus between them (model_bus.c)
 * and the time frames take on it (model_tx.c),
 * their interrupt lines (model_irq.c), the SPI controller and devices
 * (model_spi.c) and the test interface in debugfs (model_debugfs.c).
 * Functions and types shared between the files start with mcpm_.
 */

#ifndef _MCP2515_MODEL_H
#define _MCP2515_MODEL_H

#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/property.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#define MCPM_NREGS		128
#define MCPM_MAX_CHIPS		8

/* SPI instructions */
#define MCPM_INS_WRITE		0x02
#define MCPM_INS_READ		0x03
#define MCPM_INS_BIT_MODIFY	0x05
#define MCPM_INS_LOAD_TXB	0x40	/* 0x40..0x45 */
#define MCPM_INS_RTS		0x80	/* 0x80..0x87 */
#define MCPM_INS_READ_RXB	0x90	/* 0x90, 0x92, 0x94, 0x96 */
#define MCPM_INS_READ_STATUS	0xa0
#define MCPM_INS_RX_STATUS	0xb0
#define MCPM_INS_RESET		0xc0

/* Registers; CANSTAT and CANCTRL also appear at every xE and xF. */
#define MCPM_BFPCTRL		0x0c
#define MCPM_TXRTSCTRL		0x0d
#define MCPM_CANSTAT		0x0e
#define MCPM_CANCTRL		0x0f
#define MCPM_TEC		0x1c
#define MCPM_REC		0x1d
#define MCPM_RXM_SIDH(n)	(0x20 + 4 * (n))
#define MCPM_CNF3		0x28
#define MCPM_CNF2		0x29
#define MCPM_CNF1		0x2a
#define MCPM_CANINTE		0x2b
#define MCPM_CANINTF		0x2c
#define MCPM_EFLG		0x2d
#define MCPM_TXBCTRL(n)		(0x30 + 0x10 * (n))
#define MCPM_RXBCTRL(n)		(0x60 + 0x10 * (n))

/* Offsets of a buffer's registers from its control register */
#define MCPM_BUF_SIDH		1
#define MCPM_BUF_SIDL		2
#define MCPM_BUF_EID8		3
#define MCPM_BUF_EID0		4
#define MCPM_BUF_DLC		5
#define MCPM_BUF_DATA		6
#define MCPM_BUF_LAST		13

#define MCPM_SIDL_EXIDE		BIT(3)	/* TX, filters: extended frame */
#define MCPM_SIDL_IDE		BIT(3)	/* RX: extended frame received */
#define MCPM_SIDL_SRR		BIT(4)	/* RX: standard remote frame */
#define MCPM_DLC_RTR		BIT(6)

/* CANCTRL and CANSTAT */
#define MCPM_MODE_MASK		GENMASK(7, 5)
#define MCPM_MODE_NORMAL	0x00
#define MCPM_MODE_SLEEP		0x20
#define MCPM_MODE_LOOPBACK	0x40
#define MCPM_MODE_LISTENONLY	0x60
#define MCPM_MODE_CONFIG	0x80
#define MCPM_CANCTRL_ABAT	BIT(4)
#define MCPM_CANCTRL_OSM	BIT(3)
#define MCPM_CANCTRL_RESET	0x87
#define MCPM_CANSTAT_ICOD_SHIFT	1

/* CANINTE and CANINTF */
#define MCPM_INT_RX0		BIT(0)
#define MCPM_INT_RX1		BIT(1)
#define MCPM_INT_TX0		BIT(2)
#define MCPM_INT_ERR		BIT(5)
#define MCPM_INT_WAK		BIT(6)
#define MCPM_INT_MERR		BIT(7)

/* EFLG */
#define MCPM_EFLG_EWARN		BIT(0)
#define MCPM_EFLG_RXWAR		BIT(1)
#define MCPM_EFLG_TXWAR		BIT(2)
#define MCPM_EFLG_RXEP		BIT(3)
#define MCPM_EFLG_TXEP		BIT(4)
#define MCPM_EFLG_TXBO		BIT(5)
#define MCPM_EFLG_RX0OVR	BIT(6)
#define MCPM_EFLG_OVR		GENMASK(7, 6)

/* TXBnCTRL */
#define MCPM_TXB_ABTF		BIT(6)
#define MCPM_TXB_MLOA		BIT(5)
#define MCPM_TXB_TXERR		BIT(4)
#define MCPM_TXB_TXREQ		BIT(3)
#define MCPM_TXB_TXP		GENMASK(1, 0)

/* RXBnCTRL */
#define MCPM_RXB_RXM_SHIFT	5
#define MCPM_RXB_RXRTR		BIT(3)
#define MCPM_RXB0_BUKT		BIT(2)
#define MCPM_RXB0_BUKT1		BIT(1)

/* RXF0..2 sit at 0x00, RXF3..5 at 0x10. */
static inline unsigned int mcpm_rxf_sidh(unsigned int n)
{
	return n < 3 ? 4 * n : 0x10 + 4 * (n - 3);
}

/**
 * struct mcpm_frame - a frame as it travels on the modelled bus
 * @sid: 11-bit standard identifier (the upper part of an extended one)
 * @eid: 18-bit identifier extension, valid if @ide
 * @ide: extended frame
 * @rtr: remote frame
 * @dlc: the 4-bit DLC as sent (9..15 carry 8 data bytes)
 * @data: data bytes, zero past the DLC
 */
struct mcpm_frame {
	u16 sid;
	u32 eid;
	bool ide;
	bool rtr;
	u8 dlc;
	u8 data[8];
};

/**
 * struct mcpm_tx - a transmitter's frame on the bus
 * @busy: a frame is on the bus
 * @txb: the transmit buffer it came from
 * @end: when its last bit (or its error frame) is over
 */
struct mcpm_tx {
	bool busy;
	int txb;
	ktime_t end;
};

/**
 * struct mcpm_stream - frames from a node outside the model, back to back
 * @left: frames still to come
 * @next: number of the next frame (its identifier is 0x100 + @next)
 * @at: when the next one has crossed the bus
 */
struct mcpm_stream {
	unsigned int left;
	unsigned int next;
	ktime_t at;
};

/**
 * struct mcpm_xfer - the instruction of the chip-select cycle in progress
 * @ins: instruction byte
 * @kind: what @ins is (model_chip.c's KIND_*)
 * @len: bytes clocked so far in this cycle
 * @addr: next register to read or write
 * @limit: last register the instruction may reach
 * @mask: BIT MODIFY's mask byte
 * @stopped: the instruction was refused; the rest of the cycle is ignored
 * @deaf: the chip was still in its oscillator start-up time when the
 *	cycle began: it drives nothing and ignores the cycle
 */
struct mcpm_xfer {
	u8 ins;
	u8 kind;
	unsigned int len;
	unsigned int addr;
	unsigned int limit;
	u8 mask;
	bool stopped;
	bool deaf;
};

#define MCPM_RAW_MAX		160

struct mcpm;

/**
 * struct mcpm_chip - one modelled MCP2515
 * @model: the model (and bus) the chip belongs to
 * @index: chip select, also the chip's number in debugfs
 * @regs: register file; CANSTAT holds only OPMOD, ICOD is computed
 * @xfer: instruction in progress
 * @rx_code: RX STATUS filter code of the frame in each receive buffer
 * @violations: accesses the real chip would not accept
 * @tx_frames: frames the chip sent
 * @rx_frames: frames the chip stored in a receive buffer
 * @rx_overflows: frames lost because the target buffer was full
 * @tx: the frame this chip has on the bus
 * @stream: frames coming from an outside node
 * @alone: cut off from the other chips and from any node that would
 *	acknowledge: every transmission ends in an ACK error
 * @ready_at: end of the oscillator start-up time after the last RESET;
 *	the chip ignores SPI until then
 * @level: the INT pin is active; written under @model->lock,
 *	read locklessly by the interrupt code
 * @edge: with edge-triggered lines, the pin went active and that
 *	interrupt has not fired yet; set under @model->lock, taken by
 *	the interrupt code with xchg()
 * @masked: the interrupt is masked; written by the irq_chip callbacks
 *	(under the irq descriptor's lock), read by @model->irq_work
 * @virq: Linux interrupt number of the INT pin
 * @props: device properties of the SPI device ("clock-frequency")
 * @swnode: software node carrying @props, named @swnode_name
 * @swnode_name: "mcp2515_model.N", N = @index: 6.12 names an SPI device
 *	with a software node after the node ("spi-mcp2515_model.N"), 6.1
 *	after the chip select ("spiB.N"); both end in the chip number
 * @spi: the SPI device, NULL until created
 * @raw_reply: reply of the last transaction through debugfs "spi"
 * @raw_len: bytes in @raw_reply
 *
 * Everything but @level and @masked is guarded by @model->lock.
 */
struct mcpm_chip {
	struct mcpm *model;
	unsigned int index;
	u8 regs[MCPM_NREGS];
	struct mcpm_xfer xfer;
	u8 rx_code[2];
	u32 violations;
	u64 tx_frames;
	u64 rx_frames;
	u64 rx_overflows;
	struct mcpm_tx tx;
	struct mcpm_stream stream;
	bool alone;
	ktime_t ready_at;

	bool level;
	bool edge;
	bool masked;
	unsigned int virq;

	struct property_entry props[2];
	struct software_node swnode;
	char swnode_name[24];
	struct spi_device *spi;

	u8 raw_reply[MCPM_RAW_MAX];
	size_t raw_len;
};

/**
 * struct mcpm - the model: its chips on one bus and SPI controller
 * @lock: guards every chip's registers, transaction state, counters and
 *	raw reply; taken in process context only (SPI transfers, which
 *	the SPI core runs in the caller's or its pump thread, and debugfs)
 * @nchips: number of chips
 * @clock_hz: oscillator frequency reported to the driver
 * @variant: 0x2515, or 0x2510 for the older chip without the buffer
 *	instructions (and without one-shot mode)
 * @spi_mode: SPI mode bits the board wiring needs (SPI_CS_HIGH: an
 *	inverter on the chip select line)
 * @edge_irq: the INT pins reach Linux as edge-triggered lines
 * @startup_us: oscillator start-up time after RESET, in microseconds
 * @spi_delay_us: extra time every SPI message takes, in microseconds
 * @spi_fail: number of coming SPI messages that fail with -EIO
 * @dying: the module is going: the timer and work stop re-arming
 * @timer: fires when the next frame on the bus is complete
 * @bus_work: advances the bus in process context for @timer
 * @chips: the chips, @nchips of them
 * @root: parent device of the SPI controller
 * @ctlr: the SPI controller
 * @fwnode: name of @domain
 * @domain: the chips' interrupt lines
 * @irq_work: raises every active, unmasked line in hard-IRQ context
 * @debugfs: the debugfs directory
 */
struct mcpm {
	struct mutex lock;	/* see @lock above */
	unsigned int nchips;
	u32 clock_hz;
	u32 variant;
	u32 spi_mode;
	bool edge_irq;
	u32 startup_us;
	u32 spi_delay_us;
	u32 spi_fail;
	bool dying;
	struct hrtimer timer;
	struct work_struct bus_work;
	struct mcpm_chip *chips;
	struct device *root;
	struct spi_controller *ctlr;
	struct fwnode_handle *fwnode;
	struct irq_domain *domain;
	struct irq_work irq_work;
	struct dentry *debugfs;
};

/* model_chip.c: every function needs model->lock */
void mcpm_chip_reset(struct mcpm_chip *chip);
void mcpm_chip_begin(struct mcpm_chip *chip);
u8 mcpm_chip_byte(struct mcpm_chip *chip, u8 in);
void mcpm_chip_end(struct mcpm_chip *chip);
u8 mcpm_chip_read_reg(struct mcpm_chip *chip, unsigned int addr);
u8 mcpm_chip_mode(const struct mcpm_chip *chip);
void mcpm_chip_set_errors(struct mcpm_chip *chip, unsigned int tec,
			  unsigned int rec);
void mcpm_chip_recover(struct mcpm_chip *chip);
void mcpm_chip_force_overflow(struct mcpm_chip *chip, unsigned int n);
__printf(2, 3)
void mcpm_violation(struct mcpm_chip *chip, const char *fmt, ...);

bool mcpm_chip_tx_pending(const struct mcpm_chip *chip);
void mcpm_chip_settle_mode(struct mcpm_chip *chip);
void mcpm_chip_abort_tx(struct mcpm_chip *chip, unsigned int n);
void mcpm_chip_tx_error(struct mcpm_chip *chip, unsigned int n);

/* model_bus.c: every function needs model->lock */
void mcpm_bus_frame_of_txb(const struct mcpm_chip *chip, unsigned int n,
			   struct mcpm_frame *f);
void mcpm_bus_deliver(struct mcpm_chip *sender, const struct mcpm_frame *f);
void mcpm_bus_numbered_frame(unsigned int i, struct mcpm_frame *f);
int mcpm_bus_inject(struct mcpm_chip *chip, const struct mcpm_frame *f);
void mcpm_bus_update_lines(struct mcpm *model);

/* model_tx.c: every function needs model->lock unless said otherwise */
void mcpm_bus_init(struct mcpm *model);
void mcpm_bus_exit(struct mcpm *model);
void mcpm_bus_advance(struct mcpm *model);
void mcpm_bus_cut(struct mcpm_chip *chip);
void mcpm_bus_stream(struct mcpm_chip *chip, unsigned int count);

/* model_irq.c */
int mcpm_irq_init(struct mcpm *model);
void mcpm_irq_exit(struct mcpm *model);
void mcpm_irq_set_level(struct mcpm_chip *chip, bool level);
void mcpm_irq_kick(struct mcpm *model);

/* model_spi.c */
int mcpm_spi_init(struct mcpm *model);
void mcpm_spi_exit(struct mcpm *model);

/* model_debugfs.c */
void mcpm_debugfs_init(struct mcpm *model);
void mcpm_debugfs_exit(struct mcpm *model);

#endif /* _MCP2515_MODEL_H */
