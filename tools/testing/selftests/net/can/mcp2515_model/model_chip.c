// SPDX-License-Identifier: GPL-2.0
/* One MCP2515 seen from its SPI pins: the 128-byte register file with
 * its read-only bits and mode rules, and the SPI instructions executed a
 * byte at a time as the chip clocks them. Whatever the real chip would
 * refuse is counted as a violation, so tests catch a driver relying on
 * the model's leniency: among others SPI cycles during the oscillator
 * start-up time after RESET, and on the MCP2510 variant the instructions
 * only the MCP2515 has.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/printk.h>
#include <linux/string.h>
#include "model.h"

enum {
	KIND_UNKNOWN,
	KIND_RESET,
	KIND_READ,
	KIND_WRITE,
	KIND_BIT_MODIFY,
	KIND_READ_STATUS,
	KIND_RX_STATUS,
	KIND_READ_RXB,
	KIND_LOAD_TXB,
	KIND_RTS,
};

/* Bytes an instruction needs before it has any effect. */
static const u8 min_len[] = {
	[KIND_UNKNOWN] = 1, [KIND_RESET] = 1, [KIND_READ] = 3,
	[KIND_WRITE] = 3, [KIND_BIT_MODIFY] = 4, [KIND_READ_STATUS] = 2,
	[KIND_RX_STATUS] = 2, [KIND_READ_RXB] = 2, [KIND_LOAD_TXB] = 2,
	[KIND_RTS] = 1,
};

static void assert_locked(const struct mcpm_chip *chip)
{
	lockdep_assert_held(&chip->model->lock);
}

/**
 * mcpm_violation() - count and log an access the real chip would refuse
 * @chip: the chip; model->lock held
 * @fmt: what happened
 */
void mcpm_violation(struct mcpm_chip *chip, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	chip->violations++;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_warn_ratelimited("violation: chip%u: %pV\n", chip->index, &vaf);
	va_end(args);
}

/**
 * mcpm_chip_mode() - the operating mode the chip is in (CANSTAT.OPMOD)
 * @chip: the chip; model->lock held
 *
 * Return: one of MCPM_MODE_*.
 */
u8 mcpm_chip_mode(const struct mcpm_chip *chip)
{
	return chip->regs[MCPM_CANSTAT] & MCPM_MODE_MASK;
}

/**
 * mcpm_chip_reset() - what the RESET instruction does
 * @chip: the chip; model->lock held
 *
 * Every register to its reset value, configuration mode, no bus-off; a
 * frame on the bus is cut off. Registers the datasheet leaves undefined
 * read as zero. The oscillator start-up timer then holds the chip in
 * reset, deaf to SPI, for the model's start-up time.
 */
void mcpm_chip_reset(struct mcpm_chip *chip)
{
	assert_locked(chip);
	memset(chip->regs, 0, sizeof(chip->regs));
	chip->regs[MCPM_CANCTRL] = MCPM_CANCTRL_RESET;
	chip->regs[MCPM_CANSTAT] = MCPM_MODE_CONFIG;
	memset(chip->rx_code, 0, sizeof(chip->rx_code));
	mcpm_bus_cut(chip);
	chip->ready_at = ktime_add_us(ktime_get(), chip->model->startup_us);
}

/* The interrupt code: the highest priority enabled flag that is set. */
static u8 icod(const struct mcpm_chip *chip)
{
	static const u8 order[] = { 5, 6, 2, 3, 4, 0, 1 };
	u8 pending = chip->regs[MCPM_CANINTE] & chip->regs[MCPM_CANINTF];
	int i;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (pending & BIT(order[i]))
			return i + 1;
	return 0;
}

/**
 * mcpm_chip_read_reg() - a register as the READ instruction returns it
 * @chip: the chip; model->lock held
 * @addr: register, 0 to 0x7f
 *
 * Return: the value; reading has no side effect.
 */
u8 mcpm_chip_read_reg(struct mcpm_chip *chip, unsigned int addr)
{
	switch (addr & 0x0f) {
	case MCPM_CANSTAT:
		return mcpm_chip_mode(chip) | icod(chip) << MCPM_CANSTAT_ICOD_SHIFT;
	case MCPM_CANCTRL:
		return chip->regs[MCPM_CANCTRL];
	}
	return chip->regs[addr];
}

static bool is_filter_or_mask(unsigned int addr)
{
	return addr < 0x0c || (addr >= 0x10 && addr < 0x1c) ||
	       (addr >= 0x20 && addr < 0x28);
}

static bool is_cnf(unsigned int addr)
{
	return addr >= MCPM_CNF3 && addr <= MCPM_CNF1;
}

/* The TX buffer whose SIDH..D7 holds @addr, or -1. */
static int tx_buffer_of(unsigned int addr)
{
	unsigned int off = addr & 0x0f;

	if (addr < 0x30 || addr >= 0x60)
		return -1;
	if (off < MCPM_BUF_SIDH || off > MCPM_BUF_LAST)
		return -1;
	return (addr - 0x30) >> 4;
}

static bool is_bit_modifiable(unsigned int addr)
{
	unsigned int off = addr & 0x0f;

	if (off >= MCPM_BFPCTRL && off != MCPM_CANSTAT && addr < 0x10)
		return true;
	if (off == MCPM_CANCTRL)
		return true;
	if (addr >= MCPM_CNF3 && addr <= MCPM_EFLG)
		return true;
	return addr >= 0x30 && off == 0;
}

/* The bits software may change in each register. */
static u8 writable_bits(unsigned int addr)
{
	unsigned int off = addr & 0x0f;

	if (addr < 0x20 && is_filter_or_mask(addr))
		return (addr & 3) == 1 ? 0xeb : 0xff;
	if (addr >= 0x20 && addr < 0x28)
		return (addr & 3) == 1 ? 0xe3 : 0xff;
	switch (addr) {
	case MCPM_BFPCTRL:
		return 0x3f;
	case MCPM_TXRTSCTRL:
		return 0x07;
	case MCPM_TEC:
	case MCPM_REC:
		return 0;
	case MCPM_CNF3:
		return 0xc7;
	case MCPM_EFLG:
		return MCPM_EFLG_OVR;
	case MCPM_RXBCTRL(0):
		return 0x64;
	case MCPM_RXBCTRL(1):
		return 0x60;
	}
	if (addr >= 0x60)
		return 0;	/* the receive buffers */
	if (addr >= 0x30 && off == 0)
		return MCPM_TXB_TXREQ | MCPM_TXB_TXP;
	if (addr >= 0x30 && off == MCPM_BUF_SIDL)
		return 0xeb;
	if (addr >= 0x30 && off == MCPM_BUF_DLC)
		return MCPM_DLC_RTR | 0x0f;
	return 0xff;
}

/**
 * mcpm_chip_abort_tx() - end a buffer's transmission request as aborted
 * @chip: the chip; model->lock held
 * @n: transmit buffer, 0 to 2
 */
void mcpm_chip_abort_tx(struct mcpm_chip *chip, unsigned int n)
{
	u8 *ctrl = &chip->regs[MCPM_TXBCTRL(n)];

	assert_locked(chip);
	*ctrl = (*ctrl & ~MCPM_TXB_TXREQ) | MCPM_TXB_ABTF;
}

/* No new attempt starts while ABAT is set. */
static void request_tx(struct mcpm_chip *chip, unsigned int n)
{
	u8 *ctrl = &chip->regs[MCPM_TXBCTRL(n)];

	*ctrl &= ~(MCPM_TXB_ABTF | MCPM_TXB_MLOA | MCPM_TXB_TXERR);
	*ctrl |= MCPM_TXB_TXREQ;
	if (chip->regs[MCPM_CANCTRL] & MCPM_CANCTRL_ABAT)
		mcpm_chip_abort_tx(chip, n);
}

/* ABAT: every pending transmission is aborted and flagged so; the one
 * on the bus ends first (model_tx.c aborts it if it fails).
 */
static void abort_all(struct mcpm_chip *chip)
{
	unsigned int n;

	for (n = 0; n < 3; n++) {
		if (chip->tx.busy && chip->tx.txb == n)
			continue;
		if (chip->regs[MCPM_TXBCTRL(n)] & MCPM_TXB_TXREQ)
			mcpm_chip_abort_tx(chip, n);
	}
}

/**
 * mcpm_chip_tx_pending() - a transmission is on the bus or requested
 * @chip: the chip; model->lock held
 *
 * Return: true if a mode change has to wait.
 */
bool mcpm_chip_tx_pending(const struct mcpm_chip *chip)
{
	unsigned int n;

	if (chip->tx.busy)
		return true;
	for (n = 0; n < 3; n++)
		if (chip->regs[MCPM_TXBCTRL(n)] & MCPM_TXB_TXREQ)
			return true;
	return false;
}

/**
 * mcpm_chip_settle_mode() - let a requested mode take effect if it may
 * @chip: the chip; model->lock held
 *
 * A chip that may transmit changes its mode only once its pending
 * transmissions are complete (sent or aborted); ABAT or a RESET is the
 * way out for a frame nobody acknowledges.
 */
void mcpm_chip_settle_mode(struct mcpm_chip *chip)
{
	u8 reqop = chip->regs[MCPM_CANCTRL] & MCPM_MODE_MASK;
	u8 mode = mcpm_chip_mode(chip);

	assert_locked(chip);
	if (reqop == mode)
		return;
	if ((mode == MCPM_MODE_NORMAL || mode == MCPM_MODE_LOOPBACK) &&
	    mcpm_chip_tx_pending(chip))
		return;
	chip->regs[MCPM_CANSTAT] = reqop;
}

/**
 * mcpm_chip_tx_error() - an attempt of buffer @n got no acknowledgment
 * @chip: the chip; model->lock held
 * @n: transmit buffer, 0 to 2
 *
 * TXERR and MERRF set, TEC up by 8 unless the chip is error passive
 * already (ISO 11898-1: an error-passive transmitter that misses the ACK
 * and sees no dominant bit in its passive error flag keeps its count, so
 * a lone node stops at 128). The request stays for another attempt,
 * unless it is aborted or the chip is in one-shot mode.
 */
void mcpm_chip_tx_error(struct mcpm_chip *chip, unsigned int n)
{
	unsigned int tec = chip->regs[MCPM_TEC];
	u8 ctrl = chip->regs[MCPM_CANCTRL];

	assert_locked(chip);
	chip->regs[MCPM_TXBCTRL(n)] |= MCPM_TXB_TXERR;
	chip->regs[MCPM_CANINTF] |= MCPM_INT_MERR;
	if (tec < 128)
		tec += 8;
	mcpm_chip_set_errors(chip, tec, chip->regs[MCPM_REC]);
	if (ctrl & (MCPM_CANCTRL_ABAT | MCPM_CANCTRL_OSM))
		mcpm_chip_abort_tx(chip, n);
}

/* A mode request waits for pending transmissions; ABAT acts at once. */
static void write_canctrl(struct mcpm_chip *chip, u8 val)
{
	u8 reqop = val & MCPM_MODE_MASK;

	if (reqop > MCPM_MODE_CONFIG) {
		mcpm_violation(chip, "invalid REQOP 0x%02x in CANCTRL", reqop);
		reqop = chip->regs[MCPM_CANCTRL] & MCPM_MODE_MASK;
		val = (val & ~MCPM_MODE_MASK) | reqop;
	}
	if (chip->model->variant == 0x2510)
		val &= ~MCPM_CANCTRL_OSM;
	chip->regs[MCPM_CANCTRL] = val;
	if (val & MCPM_CANCTRL_ABAT)
		abort_all(chip);
	mcpm_chip_settle_mode(chip);
}

/* Effects of a register's new value beyond storing it. */
static void after_write(struct mcpm_chip *chip, unsigned int addr, u8 old)
{
	u8 *reg = &chip->regs[addr];

	if (addr >= 0x30 && addr < 0x60 && !(addr & 0x0f)) {
		if (!(old & MCPM_TXB_TXREQ) && (*reg & MCPM_TXB_TXREQ))
			request_tx(chip, (addr - 0x30) >> 4);
		else if ((old & MCPM_TXB_TXREQ) && !(*reg & MCPM_TXB_TXREQ))
			*reg |= MCPM_TXB_ABTF;
	} else if (addr == MCPM_RXBCTRL(0)) {
		*reg &= ~MCPM_RXB0_BUKT1;
		if (*reg & MCPM_RXB0_BUKT)
			*reg |= MCPM_RXB0_BUKT1;
	} else if (addr == MCPM_CANINTF && !(old & MCPM_INT_WAK) &&
		   (*reg & chip->regs[MCPM_CANINTE] & MCPM_INT_WAK) &&
		   mcpm_chip_mode(chip) == MCPM_MODE_SLEEP) {
		/* A wake-up wakes the chip into listen-only mode. */
		chip->regs[MCPM_CANSTAT] = MCPM_MODE_LISTENONLY;
	}
}

/* Store @val's bits under @mask, as WRITE (mask 0xff) and BIT MODIFY do. */
static void write_reg(struct mcpm_chip *chip, unsigned int addr, u8 val,
		      u8 mask)
{
	int txb = tx_buffer_of(addr);
	u8 old, wmask;

	if ((addr & 0x0f) == MCPM_CANSTAT)
		return;
	if ((addr & 0x0f) == MCPM_CANCTRL) {
		old = chip->regs[MCPM_CANCTRL];
		write_canctrl(chip, (old & ~mask) | (val & mask));
		return;
	}
	if ((is_filter_or_mask(addr) || is_cnf(addr)) &&
	    mcpm_chip_mode(chip) != MCPM_MODE_CONFIG) {
		mcpm_violation(chip, "%s write (0x%02x) outside configuration mode",
			       is_cnf(addr) ? "CNF" : "filter/mask", addr);
		return;
	}
	if (txb >= 0 && (chip->regs[MCPM_TXBCTRL(txb)] & MCPM_TXB_TXREQ)) {
		mcpm_violation(chip, "write of 0x%02x while TXB%d is pending",
			       addr, txb);
		return;
	}
	wmask = writable_bits(addr) & mask;
	old = chip->regs[addr];
	chip->regs[addr] = (old & ~wmask) | (val & wmask);
	after_write(chip, addr, old);
}

static void start_read_rxb(struct mcpm_xfer *x)
{
	unsigned int n = (x->ins >> 2) & 1;

	x->addr = MCPM_RXBCTRL(n) + (x->ins & 2 ? MCPM_BUF_DATA : MCPM_BUF_SIDH);
	x->limit = MCPM_RXBCTRL(n) + MCPM_BUF_LAST;
}

static void start_load_txb(struct mcpm_chip *chip)
{
	struct mcpm_xfer *x = &chip->xfer;
	unsigned int n = (x->ins & 7) >> 1;

	x->addr = MCPM_TXBCTRL(n) + (x->ins & 1 ? MCPM_BUF_DATA : MCPM_BUF_SIDH);
	x->limit = MCPM_TXBCTRL(n) + MCPM_BUF_LAST;
	if (chip->regs[MCPM_TXBCTRL(n)] & MCPM_TXB_TXREQ) {
		mcpm_violation(chip, "LOAD TX BUFFER of pending TXB%u", n);
		x->stopped = true;
	}
}

/* The MCP2510 knows none of the buffer instructions nor RX STATUS. */
static int kind_of_2510(int kind)
{
	switch (kind) {
	case KIND_RX_STATUS:
	case KIND_READ_RXB:
	case KIND_LOAD_TXB:
		return KIND_UNKNOWN;
	}
	return kind;
}

static int kind_of(u8 ins)
{
	switch (ins) {
	case MCPM_INS_RESET:
		return KIND_RESET;
	case MCPM_INS_READ:
		return KIND_READ;
	case MCPM_INS_WRITE:
		return KIND_WRITE;
	case MCPM_INS_BIT_MODIFY:
		return KIND_BIT_MODIFY;
	case MCPM_INS_READ_STATUS:
		return KIND_READ_STATUS;
	case MCPM_INS_RX_STATUS:
		return KIND_RX_STATUS;
	}
	if ((ins & 0xf9) == MCPM_INS_READ_RXB)
		return KIND_READ_RXB;
	if (ins >= MCPM_INS_LOAD_TXB && ins <= MCPM_INS_LOAD_TXB + 5)
		return KIND_LOAD_TXB;
	if ((ins & 0xf8) == MCPM_INS_RTS)
		return KIND_RTS;
	return KIND_UNKNOWN;
}

static int xfer_kind(const struct mcpm_chip *chip)
{
	return chip->xfer.kind;
}

/* The instruction byte: decode it and set up the register pointer. */
static void start(struct mcpm_chip *chip, u8 ins)
{
	struct mcpm_xfer *x = &chip->xfer;

	x->ins = ins;
	x->kind = kind_of(ins);
	if (chip->model->variant == 0x2510)
		x->kind = kind_of_2510(x->kind);
	x->limit = MCPM_NREGS - 1;
	switch (x->kind) {
	case KIND_UNKNOWN:
		mcpm_violation(chip, "unknown instruction 0x%02x", ins);
		x->stopped = true;
		break;
	case KIND_READ_RXB:
		start_read_rxb(x);
		break;
	case KIND_LOAD_TXB:
		start_load_txb(chip);
		break;
	}
}

static bool pointer_ok(struct mcpm_chip *chip)
{
	struct mcpm_xfer *x = &chip->xfer;

	if (x->addr <= x->limit)
		return true;
	mcpm_violation(chip, "instruction 0x%02x ran past register 0x%02x",
		       x->ins, x->limit);
	x->stopped = true;
	return false;
}

static u8 read_next(struct mcpm_chip *chip)
{
	if (!pointer_ok(chip))
		return 0;
	return mcpm_chip_read_reg(chip, chip->xfer.addr++);
}

static void write_next(struct mcpm_chip *chip, u8 in)
{
	if (pointer_ok(chip))
		write_reg(chip, chip->xfer.addr++, in, 0xff);
}

static void bit_modify(struct mcpm_chip *chip, u8 in)
{
	struct mcpm_xfer *x = &chip->xfer;
	u8 mask = x->mask;

	if (x->addr >= MCPM_NREGS) {
		mcpm_violation(chip, "BIT MODIFY of 0x%02x", x->addr);
		return;
	}
	if (!is_bit_modifiable(x->addr)) {
		/* The chip then writes the whole byte. */
		mcpm_violation(chip, "BIT MODIFY of 0x%02x, not bit-modifiable",
			       x->addr);
		mask = 0xff;
	}
	write_reg(chip, x->addr, in, mask);
}

static u8 read_status(const struct mcpm_chip *chip)
{
	u8 intf = chip->regs[MCPM_CANINTF];
	u8 status = intf & (MCPM_INT_RX0 | MCPM_INT_RX1);
	unsigned int n;

	for (n = 0; n < 3; n++) {
		if (chip->regs[MCPM_TXBCTRL(n)] & MCPM_TXB_TXREQ)
			status |= BIT(2 + 2 * n);
		if (intf & (MCPM_INT_TX0 << n))
			status |= BIT(3 + 2 * n);
	}
	return status;
}

/* RX STATUS: which buffers hold a frame, and of the first one the
 * frame's type and the filter that took it.
 */
static u8 rx_status(const struct mcpm_chip *chip)
{
	u8 full = chip->regs[MCPM_CANINTF] & (MCPM_INT_RX0 | MCPM_INT_RX1);
	unsigned int n, ctrl;
	u8 status;

	if (!full)
		return 0;
	n = full & MCPM_INT_RX0 ? 0 : 1;
	ctrl = MCPM_RXBCTRL(n);
	status = full << 6 | chip->rx_code[n];
	if (chip->regs[ctrl + MCPM_BUF_SIDL] & MCPM_SIDL_IDE)
		status |= BIT(4);
	if (chip->regs[ctrl] & MCPM_RXB_RXRTR)
		status |= BIT(3);
	return status;
}

/**
 * mcpm_chip_begin() - chip select goes active
 * @chip: the chip; model->lock held
 */
void mcpm_chip_begin(struct mcpm_chip *chip)
{
	assert_locked(chip);
	memset(&chip->xfer, 0, sizeof(chip->xfer));
	chip->xfer.deaf = ktime_before(ktime_get(), chip->ready_at);
}

/**
 * mcpm_chip_byte() - clock one byte through the chip
 * @chip: the chip; model->lock held, between begin and end
 * @in: the byte on SI
 *
 * Return: the byte the chip drives on SO at the same time.
 */
u8 mcpm_chip_byte(struct mcpm_chip *chip, u8 in)
{
	struct mcpm_xfer *x = &chip->xfer;
	unsigned int n = x->len++;

	assert_locked(chip);
	if (x->deaf) {
		if (!n)
			x->ins = in;
		return 0xff;	/* SO floats, the board pulls it up */
	}
	if (n == 0) {
		start(chip, in);
		return 0;
	}
	if (x->stopped)
		return 0;
	switch (xfer_kind(chip)) {
	case KIND_READ:
	case KIND_WRITE:
	case KIND_BIT_MODIFY:
		if (n == 1) {
			x->addr = in;
			return 0;
		}
		break;
	case KIND_READ_STATUS:
		return read_status(chip);
	case KIND_RX_STATUS:
		return rx_status(chip);
	case KIND_READ_RXB:
		return read_next(chip);
	case KIND_LOAD_TXB:
		write_next(chip, in);
		return 0;
	default:
		return 0;
	}

	switch (xfer_kind(chip)) {
	case KIND_READ:
		return read_next(chip);
	case KIND_WRITE:
		write_next(chip, in);
		break;
	default:
		if (n == 2)
			x->mask = in;
		else if (n == 3)
			bit_modify(chip, in);
		break;
	}
	return 0;
}

static void request_to_send(struct mcpm_chip *chip, u8 buffers)
{
	unsigned int n;

	for (n = 0; n < 3; n++) {
		if (!(buffers & BIT(n)))
			continue;
		if (mcpm_chip_mode(chip) == MCPM_MODE_CONFIG) {
			mcpm_violation(chip, "RTS for TXB%u in configuration mode", n);
			continue;
		}
		request_tx(chip, n);
	}
}

/**
 * mcpm_chip_end() - chip select goes inactive: finish the instruction
 * @chip: the chip; model->lock held
 *
 * RESET and RTS act here, READ RX BUFFER frees its buffer, the bus
 * catches up with the time and every chip's INT pin is re-evaluated.
 */
void mcpm_chip_end(struct mcpm_chip *chip)
{
	struct mcpm_xfer *x = &chip->xfer;
	int kind = xfer_kind(chip);

	assert_locked(chip);
	if (!x->len)
		return;
	if (x->deaf) {
		mcpm_violation(chip, "SPI cycle (0x%02x) in the oscillator start-up time",
			       x->ins);
	} else if (x->len < min_len[kind]) {
		mcpm_violation(chip, "instruction 0x%02x cut short at %u bytes",
			       x->ins, x->len);
	} else if (kind == KIND_RESET) {
		mcpm_chip_reset(chip);
	} else if (kind == KIND_RTS) {
		request_to_send(chip, x->ins & 7);
	} else if (kind == KIND_READ_RXB) {
		chip->regs[MCPM_CANINTF] &= ~(MCPM_INT_RX0 << ((x->ins >> 2) & 1));
	}
	mcpm_bus_advance(chip->model);
	mcpm_bus_update_lines(chip->model);
}

/* EFLG's error state bits for the counters; TXBO only ever gets set
 * here, it goes away on RESET or recovery.
 */
static u8 error_flags(unsigned int tec, unsigned int rec, u8 old)
{
	u8 eflg = old & (MCPM_EFLG_OVR | MCPM_EFLG_TXBO);

	if (tec >= 96)
		eflg |= MCPM_EFLG_TXWAR | MCPM_EFLG_EWARN;
	if (rec >= 96)
		eflg |= MCPM_EFLG_RXWAR | MCPM_EFLG_EWARN;
	if (tec >= 128)
		eflg |= MCPM_EFLG_TXEP;
	if (rec >= 128)
		eflg |= MCPM_EFLG_RXEP;
	if (tec >= 256)
		eflg |= MCPM_EFLG_TXBO;
	return eflg;
}

static void set_eflg(struct mcpm_chip *chip, u8 eflg)
{
	if (eflg != chip->regs[MCPM_EFLG])
		chip->regs[MCPM_CANINTF] |= MCPM_INT_ERR;
	chip->regs[MCPM_EFLG] = eflg;
}

/**
 * mcpm_chip_set_errors() - give the error counters new values
 * @chip: the chip; model->lock held
 * @tec: transmit error count; 256 or more means bus-off (TEC reads 255)
 * @rec: receive error count, at most 255 is stored
 *
 * EFLG follows the counters; a change there sets ERRIF. The caller
 * re-evaluates the INT pins.
 */
void mcpm_chip_set_errors(struct mcpm_chip *chip, unsigned int tec,
			  unsigned int rec)
{
	assert_locked(chip);
	chip->regs[MCPM_TEC] = min(tec, 255U);
	chip->regs[MCPM_REC] = min(rec, 255U);
	set_eflg(chip, error_flags(tec, rec, chip->regs[MCPM_EFLG]));
}

/**
 * mcpm_chip_recover() - leave bus-off as after 128 x 11 recessive bits
 * @chip: the chip; model->lock held
 *
 * Counters and error state flags clear (ERRIF if they were set); the
 * overflow flags stay. The caller re-evaluates the INT pins.
 */
void mcpm_chip_recover(struct mcpm_chip *chip)
{
	assert_locked(chip);
	chip->regs[MCPM_TEC] = 0;
	chip->regs[MCPM_REC] = 0;
	set_eflg(chip, chip->regs[MCPM_EFLG] & MCPM_EFLG_OVR);
}

/**
 * mcpm_chip_force_overflow() - flag a frame lost for a full buffer
 * @chip: the chip; model->lock held
 * @n: receive buffer, 0 or 1
 *
 * Sets RXnOVR and ERRIF; the caller re-evaluates the INT pins.
 */
void mcpm_chip_force_overflow(struct mcpm_chip *chip, unsigned int n)
{
	assert_locked(chip);
	chip->regs[MCPM_EFLG] |= MCPM_EFLG_RX0OVR << n;
	chip->regs[MCPM_CANINTF] |= MCPM_INT_ERR;
	chip->rx_overflows++;
}
