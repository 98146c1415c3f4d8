// SPDX-License-Identifier: GPL-2.0
/* The CAN bus between the modelled chips: a frame that has crossed the
 * bus (model_tx.c times it) reaches every listening chip that is not
 * alone (or, in loopback mode, the sender only), through each
 * receiver's acceptance masks and filters, rollover and overflow.
 * Error counters change only through debugfs and through the ACK
 * errors of a chip alone on the bus.
 */

#include <linux/lockdep.h>
#include "model.h"

/* RX STATUS filter codes of a frame that rolled over from RXB0 to RXB1 */
#define RX_CODE_ROLLOVER	6

/**
 * mcpm_bus_frame_of_txb() - the frame transmit buffer @n describes
 * @chip: the chip; model->lock held
 * @n: 0 to 2
 * @f: receives the frame
 */
void mcpm_bus_frame_of_txb(const struct mcpm_chip *chip, unsigned int n,
			   struct mcpm_frame *f)
{
	const u8 *b = &chip->regs[MCPM_TXBCTRL(n)];
	u8 sidl = b[MCPM_BUF_SIDL];

	memset(f, 0, sizeof(*f));
	f->sid = b[MCPM_BUF_SIDH] << 3 | sidl >> 5;
	f->ide = sidl & MCPM_SIDL_EXIDE;
	if (f->ide)
		f->eid = (sidl & 3) << 16 | b[MCPM_BUF_EID8] << 8 | b[MCPM_BUF_EID0];
	f->rtr = b[MCPM_BUF_DLC] & MCPM_DLC_RTR;
	f->dlc = b[MCPM_BUF_DLC] & 0x0f;
	if (!f->rtr)
		memcpy(f->data, b + MCPM_BUF_DATA, min_t(u8, f->dlc, 8));
}

static void frame_to_rxb(struct mcpm_chip *chip, unsigned int n,
			 const struct mcpm_frame *f, u8 filhit)
{
	u8 *b = &chip->regs[MCPM_RXBCTRL(n)];
	u8 keep = n ? 0x60 : 0x66;

	b[MCPM_BUF_SIDH] = f->sid >> 3;
	b[MCPM_BUF_SIDL] = (f->sid & 7) << 5;
	if (f->ide)
		b[MCPM_BUF_SIDL] |= MCPM_SIDL_IDE | f->eid >> 16;
	else if (f->rtr)
		b[MCPM_BUF_SIDL] |= MCPM_SIDL_SRR;
	b[MCPM_BUF_EID8] = f->ide ? f->eid >> 8 : 0;
	b[MCPM_BUF_EID0] = f->ide ? f->eid : 0;
	b[MCPM_BUF_DLC] = f->dlc | (f->ide && f->rtr ? MCPM_DLC_RTR : 0);
	if (!f->rtr)
		memcpy(b + MCPM_BUF_DATA, f->data, min_t(u8, f->dlc, 8));
	b[0] = (b[0] & keep) | (f->rtr ? MCPM_RXB_RXRTR : 0) |
	       (filhit & (n ? 7 : 1));
}

/* A 29-bit identifier field of a mask or filter: SID in the upper 11
 * bits, EID below.
 */
static u32 id_field(const u8 *r, u32 *eid)
{
	*eid = (r[1] & 3) << 16 | r[2] << 8 | r[3];
	return r[0] << 3 | r[1] >> 5;
}

/* On standard frames the EID bits of mask and filter apply to the
 * first two data bytes.
 */
static bool filter_matches(const struct mcpm_chip *chip, unsigned int filter,
			   unsigned int mask, const struct mcpm_frame *f)
{
	const u8 *fr = &chip->regs[mcpm_rxf_sidh(filter)];
	const u8 *mr = &chip->regs[MCPM_RXM_SIDH(mask)];
	u32 fsid, feid, msid, meid, eid;

	if (!!(fr[1] & MCPM_SIDL_EXIDE) != f->ide)
		return false;
	fsid = id_field(fr, &feid);
	msid = id_field(mr, &meid);
	if ((f->sid ^ fsid) & msid)
		return false;
	eid = f->ide ? f->eid : (f->data[0] << 8 | f->data[1]);
	if (!f->ide)
		meid &= 0xffff;
	return !((eid ^ feid) & meid);
}

/* The filter of receive buffer @n that accepts @f, or -1. RXM 11 takes
 * every frame (reported as filter 0 or 2), 01 only standard and 10 only
 * extended ones that pass a filter.
 */
static int accepting_filter(const struct mcpm_chip *chip, unsigned int n,
			    const struct mcpm_frame *f)
{
	u8 rxm = chip->regs[MCPM_RXBCTRL(n)] >> MCPM_RXB_RXM_SHIFT & 3;
	unsigned int first = n ? 2 : 0, last = n ? 5 : 1, i;

	if (rxm == 3)
		return first;
	if ((rxm == 1 && f->ide) || (rxm == 2 && !f->ide))
		return -1;
	for (i = first; i <= last; i++)
		if (filter_matches(chip, i, n, f))
			return i;
	return -1;
}

static bool is_full(const struct mcpm_chip *chip, unsigned int n)
{
	return chip->regs[MCPM_CANINTF] & (MCPM_INT_RX0 << n);
}

static void store(struct mcpm_chip *chip, unsigned int n,
		  const struct mcpm_frame *f, int filter, u8 code)
{
	frame_to_rxb(chip, n, f, filter);
	chip->rx_code[n] = code;
	chip->regs[MCPM_CANINTF] |= MCPM_INT_RX0 << n;
	chip->rx_frames++;
}

/* RXB0's filters first; a frame they accept goes to RXB0, or with BUKT
 * to RXB1 while RXB0 is full, else it is lost.
 */
static void receive(struct mcpm_chip *chip, const struct mcpm_frame *f)
{
	int filter = accepting_filter(chip, 0, f);

	if (filter >= 0) {
		if (!is_full(chip, 0))
			store(chip, 0, f, filter, filter);
		else if (!(chip->regs[MCPM_RXBCTRL(0)] & MCPM_RXB0_BUKT))
			mcpm_chip_force_overflow(chip, 0);
		else if (!is_full(chip, 1))
			store(chip, 1, f, filter, RX_CODE_ROLLOVER + filter);
		else
			mcpm_chip_force_overflow(chip, 1);
		return;
	}
	filter = accepting_filter(chip, 1, f);
	if (filter < 0)
		return;
	if (is_full(chip, 1))
		mcpm_chip_force_overflow(chip, 1);
	else
		store(chip, 1, f, filter, filter);
}

static bool is_bus_off(const struct mcpm_chip *chip)
{
	return chip->regs[MCPM_EFLG] & MCPM_EFLG_TXBO;
}

/* A frame on the bus as @chip sees it: received when listening, a
 * wake-up when asleep with WAKIE (the frame itself is lost).
 */
static void hear(struct mcpm_chip *chip, const struct mcpm_frame *f)
{
	u8 mode = mcpm_chip_mode(chip);

	if (is_bus_off(chip))
		return;
	if (mode == MCPM_MODE_NORMAL || mode == MCPM_MODE_LISTENONLY) {
		receive(chip, f);
	} else if (mode == MCPM_MODE_SLEEP &&
		   (chip->regs[MCPM_CANINTE] & MCPM_INT_WAK)) {
		chip->regs[MCPM_CANINTF] |= MCPM_INT_WAK;
		chip->regs[MCPM_CANSTAT] = MCPM_MODE_LISTENONLY;
	}
}

/**
 * mcpm_bus_deliver() - a frame of @sender has crossed the bus
 * @sender: the chip that sent it; model->lock held
 * @f: the frame
 *
 * Receivers are only model chips, so this never calls into a driver.
 */
void mcpm_bus_deliver(struct mcpm_chip *sender, const struct mcpm_frame *f)
{
	struct mcpm *model = sender->model;
	struct mcpm_chip *chip;
	unsigned int i;

	lockdep_assert_held(&model->lock);
	if (mcpm_chip_mode(sender) == MCPM_MODE_LOOPBACK) {
		receive(sender, f);
		return;
	}
	for (i = 0; i < model->nchips; i++) {
		chip = &model->chips[i];
		if (chip != sender && !chip->alone)
			hear(chip, f);
	}
}

/**
 * mcpm_bus_numbered_frame() - frame @i of a numbered burst or stream
 * @i: its number: identifier 0x100 + @i, one data byte @i
 * @f: receives the frame
 */
void mcpm_bus_numbered_frame(unsigned int i, struct mcpm_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->sid = (0x100 + i) & 0x7ff;
	f->dlc = 1;
	f->data[0] = i;
}

/**
 * mcpm_bus_inject() - a frame from a node outside the model reaches @chip
 * @chip: the receiver; model->lock held
 * @f: the frame
 *
 * The caller re-evaluates the INT pins.
 *
 * Return: 0, or -ENETDOWN if the chip does not listen to the bus
 * (configuration, loopback or sleep mode, or bus-off).
 */
int mcpm_bus_inject(struct mcpm_chip *chip, const struct mcpm_frame *f)
{
	u8 mode = mcpm_chip_mode(chip);

	lockdep_assert_held(&chip->model->lock);
	if (mode == MCPM_MODE_CONFIG || mode == MCPM_MODE_LOOPBACK ||
	    is_bus_off(chip))
		return -ENETDOWN;
	hear(chip, f);
	return mode == MCPM_MODE_SLEEP ? -ENETDOWN : 0;
}

/**
 * mcpm_bus_update_lines() - drive each chip's INT pin from its registers
 * @model: the model; model->lock held
 *
 * INT is active while an enabled interrupt flag is set. The active,
 * unmasked lines fire together, soon after.
 */
void mcpm_bus_update_lines(struct mcpm *model)
{
	struct mcpm_chip *chip;
	unsigned int i;

	lockdep_assert_held(&model->lock);
	for (i = 0; i < model->nchips; i++) {
		chip = &model->chips[i];
		mcpm_irq_set_level(chip, chip->regs[MCPM_CANINTE] &
					 chip->regs[MCPM_CANINTF]);
	}
	mcpm_irq_kick(model);
}
