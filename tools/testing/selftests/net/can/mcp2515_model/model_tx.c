// SPDX-License-Identifier: GPL-2.0
/* Time on the modelled bus. A frame occupies its sender for as many bit
 * times as it has bits (stuff bits left out) at the sender's CNF bit
 * timing, and reaches the receivers at its end. A chip that is alone on
 * the bus gets no acknowledgment: each attempt ends in an ACK error and
 * is repeated. Frames of an outside node stream in back to back at the
 * receiver's bit timing. Each sender has the bus to itself (arbitration
 * is not modelled). Nothing here calls into a driver: the end of a frame
 * is noticed by the next SPI cycle or by a timer, whose work item takes
 * the model's lock.
 */

#include <linux/lockdep.h>
#include <linux/math64.h>
#include "model.h"

/* Bits of a frame from SOF to the end of the interframe space: SOF,
 * arbitration and control fields, CRC, delimiters, ACK, EOF, IFS.
 */
#define BITS_STANDARD		47
#define BITS_EXTENDED		67
/* An attempt without ACK stops at the ACK slot and sends an error flag
 * (6), its delimiter (8) and the interframe space (3); an error-passive
 * transmitter then suspends transmission for 8 more.
 */
#define BITS_AFTER_ACK_SLOT	8
#define BITS_ERROR_FRAME	17
#define BITS_SUSPEND		8

#define TEC_PASSIVE		128

/* One bit time in nanoseconds: sync, PRSEG, PHSEG1 and PHSEG2 quanta of
 * 2 * (BRP + 1) oscillator periods; without BTLMODE, PHSEG2 is the
 * larger of PHSEG1 and the 2-quanta processing time.
 */
static u64 bit_ns(const struct mcpm_chip *chip)
{
	u8 cnf1 = chip->regs[MCPM_CNF1], cnf2 = chip->regs[MCPM_CNF2];
	u32 ph1 = ((cnf2 >> 3) & 7) + 1, ph2, quanta;

	if (cnf2 & BIT(7))
		ph2 = (chip->regs[MCPM_CNF3] & 7) + 1;
	else
		ph2 = max(ph1, 2U);
	quanta = 1 + (cnf2 & 7) + 1 + ph1 + ph2;
	return div_u64(2ULL * ((cnf1 & 0x3f) + 1) * quanta * NSEC_PER_SEC,
		       chip->model->clock_hz);
}

static unsigned int data_bits(const struct mcpm_frame *f)
{
	return f->rtr ? 0 : 8 * min_t(u8, f->dlc, 8);
}

static ktime_t frame_time(const struct mcpm_chip *chip,
			  const struct mcpm_frame *f, bool acked)
{
	unsigned int bits = (f->ide ? BITS_EXTENDED : BITS_STANDARD) +
			    data_bits(f);

	if (!acked) {
		bits = bits - BITS_AFTER_ACK_SLOT + BITS_ERROR_FRAME;
		if (chip->regs[MCPM_TEC] >= TEC_PASSIVE)
			bits += BITS_SUSPEND;
	}
	return ns_to_ktime(bits * bit_ns(chip));
}

static bool is_bus_off(const struct mcpm_chip *chip)
{
	return chip->regs[MCPM_EFLG] & MCPM_EFLG_TXBO;
}

/* Loopback needs no acknowledgment; otherwise some node on the bus
 * acknowledges unless the chip is alone.
 */
static bool is_acked(const struct mcpm_chip *chip)
{
	return !chip->alone || mcpm_chip_mode(chip) == MCPM_MODE_LOOPBACK;
}

/* Highest TXP first; on equal priority the higher buffer number. */
static int next_txb(const struct mcpm_chip *chip)
{
	int n, best = -1;
	u8 ctrl, prio = 0;

	for (n = 0; n < 3; n++) {
		ctrl = chip->regs[MCPM_TXBCTRL(n)];
		if (!(ctrl & MCPM_TXB_TXREQ))
			continue;
		if (best < 0 || (ctrl & MCPM_TXB_TXP) >= prio) {
			best = n;
			prio = ctrl & MCPM_TXB_TXP;
		}
	}
	return best;
}

static bool can_send(const struct mcpm_chip *chip)
{
	u8 mode = mcpm_chip_mode(chip);

	return (mode == MCPM_MODE_NORMAL || mode == MCPM_MODE_LOOPBACK) &&
	       !is_bus_off(chip);
}

static void start_tx(struct mcpm_chip *chip, ktime_t now)
{
	struct mcpm_frame f;
	int n;

	if (chip->tx.busy || !can_send(chip))
		return;
	n = next_txb(chip);
	if (n < 0)
		return;
	mcpm_bus_frame_of_txb(chip, n, &f);
	chip->tx.busy = true;
	chip->tx.txb = n;
	chip->tx.end = ktime_add(now, frame_time(chip, &f, is_acked(chip)));
}

static void finish_tx(struct mcpm_chip *chip)
{
	unsigned int n = chip->tx.txb;
	struct mcpm_frame f;

	chip->tx.busy = false;
	if (!is_acked(chip)) {
		mcpm_chip_tx_error(chip, n);
		return;
	}
	mcpm_bus_frame_of_txb(chip, n, &f);
	chip->regs[MCPM_TXBCTRL(n)] &= ~MCPM_TXB_TXREQ;
	chip->regs[MCPM_CANINTF] |= MCPM_INT_TX0 << n;
	chip->tx_frames++;
	mcpm_bus_deliver(chip, &f);
}

static void stream_step(struct mcpm_chip *chip)
{
	struct mcpm_stream *s = &chip->stream;
	struct mcpm_frame f;

	mcpm_bus_numbered_frame(s->next++, &f);
	mcpm_bus_inject(chip, &f);
	if (--s->left)
		s->at = ktime_add(s->at, frame_time(chip, &f, true));
}

/* Everything due by @now; Return: true if something changed. */
static bool advance_chip(struct mcpm_chip *chip, ktime_t now)
{
	bool changed = false;

	if (chip->tx.busy && !ktime_before(now, chip->tx.end)) {
		finish_tx(chip);
		changed = true;
	}
	if (chip->stream.left && !ktime_before(now, chip->stream.at)) {
		stream_step(chip);
		changed = true;
	}
	mcpm_chip_settle_mode(chip);
	if (!chip->tx.busy) {
		start_tx(chip, now);
		changed |= chip->tx.busy;
	}
	return changed;
}

static ktime_t next_event(const struct mcpm *model)
{
	ktime_t next = KTIME_MAX;
	unsigned int i;

	for (i = 0; i < model->nchips; i++) {
		const struct mcpm_chip *chip = &model->chips[i];

		if (chip->tx.busy)
			next = min(next, chip->tx.end);
		if (chip->stream.left)
			next = min(next, chip->stream.at);
	}
	return next;
}

/**
 * mcpm_bus_advance() - bring the bus up to the present
 * @model: the model; model->lock held, process context
 *
 * Ends the frames whose time is over, starts the next ones and arms the
 * timer for the next end. The caller re-evaluates the INT pins.
 */
void mcpm_bus_advance(struct mcpm *model)
{
	ktime_t now = ktime_get(), next;
	bool changed;
	unsigned int i;

	lockdep_assert_held(&model->lock);
	do {
		changed = false;
		for (i = 0; i < model->nchips; i++)
			changed |= advance_chip(&model->chips[i], now);
	} while (changed);

	next = next_event(model);
	if (next != KTIME_MAX && !model->dying)
		hrtimer_start(&model->timer, next, HRTIMER_MODE_ABS);
}

/**
 * mcpm_bus_cut() - a RESET ends the chip's frame on the bus unfinished
 * @chip: the chip; model->lock held
 */
void mcpm_bus_cut(struct mcpm_chip *chip)
{
	lockdep_assert_held(&chip->model->lock);
	chip->tx.busy = false;
}

/**
 * mcpm_bus_stream() - an outside node sends frames to @chip back to back
 * @chip: the receiver; model->lock held, process context
 * @count: frames 100#00, 101#01, ... (numbering continues from an
 *	earlier stream); 0 stops the stream
 */
void mcpm_bus_stream(struct mcpm_chip *chip, unsigned int count)
{
	struct mcpm_frame f;

	lockdep_assert_held(&chip->model->lock);
	mcpm_bus_numbered_frame(chip->stream.next, &f);
	chip->stream.left = count;
	chip->stream.at = ktime_add(ktime_get(), frame_time(chip, &f, true));
	mcpm_bus_advance(chip->model);
}

static void bus_work(struct work_struct *work)
{
	struct mcpm *model = container_of(work, struct mcpm, bus_work);

	mutex_lock(&model->lock);
	mcpm_bus_advance(model);
	mcpm_bus_update_lines(model);
	mutex_unlock(&model->lock);
}

/* Hard-IRQ context: the bus changes under the mutex, in the work. */
static enum hrtimer_restart timer_fired(struct hrtimer *timer)
{
	struct mcpm *model = container_of(timer, struct mcpm, timer);

	queue_work(system_highpri_wq, &model->bus_work);
	return HRTIMER_NORESTART;
}

/**
 * mcpm_bus_init() - set up the bus timer
 * @model: the model; process context, before any SPI cycle
 */
void mcpm_bus_init(struct mcpm *model)
{
	hrtimer_init(&model->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	model->timer.function = timer_fired;
	INIT_WORK(&model->bus_work, bus_work);
}

/**
 * mcpm_bus_exit() - stop the bus timer for good
 * @model: the model; process context, no SPI device left
 */
void mcpm_bus_exit(struct mcpm *model)
{
	mutex_lock(&model->lock);
	model->dying = true;
	mutex_unlock(&model->lock);
	hrtimer_cancel(&model->timer);
	cancel_work_sync(&model->bus_work);
	hrtimer_cancel(&model->timer);
}
