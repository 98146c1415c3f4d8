// SPDX-License-Identifier: GPL-2.0
/* Bit timing: check timing a user gave in time quanta against the
 * controller's limits, or search the prescaler and segment lengths that
 * come closest to a requested bitrate and sample point. Pure calculation,
 * no device state.
 */

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/units.h>
#include <linux/can/bittiming.h>

/* Largest bitrate deviation accepted, in tenths of a percent (CiA: 0.5 %
 * would be ideal, 5 % is what real clocks still synchronise with).
 */
#define CAN_BITRATE_MAX_ERROR 50

/* One way of dividing a bit, as found by the search. */
struct bt_choice {
	u32 brp;
	u32 tseg1;
	u32 tseg2;
	u32 rate_err;	/* |requested - achieved| in bit/s */
	u32 sp_err;	/* |nominal - achieved| sample point, tenths of % */
	bool is_close;	/* rate_err within CAN_BITRATE_MAX_ERROR */
	bool is_late;	/* sample point after the nominal one */
};

/* The sample point recommended by CiA for a bitrate, in tenths of %. */
static u32 default_sample_point(u32 bitrate)
{
	if (bitrate > 800 * KILO)
		return 750;
	if (bitrate > 500 * KILO)
		return 800;
	return 875;
}

static u32 sample_point_of(u32 tseg1, u32 tseg2)
{
	return (CAN_SYNC_SEG + tseg1) * 1000 / (CAN_SYNC_SEG + tseg1 + tseg2);
}

/* Split @tseg quanta into tseg1 and tseg2 with the sample point as late
 * as possible but not after @sp, as both are shown in tenths of a
 * percent: an early sample leaves more room for the phase error of a
 * long bus, a late one (beyond what CiA recommends) less. Where the
 * limits on the segments forbid that split, the nearest split they
 * allow is taken, and the choice says it samples late.
 */
static void split_tseg(const struct can_bittiming_const *btc, u32 tseg,
		       u32 sp, struct bt_choice *c)
{
	u32 total = CAN_SYNC_SEG + tseg;
	/* The most quanta q with q * 1000 / total rounded down <= sp. */
	u32 before_sp = div_u64((u64)(sp + 1) * total - 1, 1000);
	u32 tseg2_lo = max(btc->tseg2_min,
			   tseg > btc->tseg1_max ? tseg - btc->tseg1_max : 0);
	u32 tseg2_hi = min(btc->tseg2_max, tseg - btc->tseg1_min);
	u32 achieved;

	c->tseg2 = clamp(total - before_sp, tseg2_lo, tseg2_hi);
	c->tseg1 = tseg - c->tseg2;
	achieved = sample_point_of(c->tseg1, c->tseg2);
	c->is_late = achieved > sp;
	c->sp_err = c->is_late ? achieved - sp : sp - achieved;
}

/* Order of preference: a bitrate error within the accepted one, then a
 * sample point not after the nominal one, then the smaller bitrate
 * error, then the closer sample point. On a tie the choice found first,
 * with more quanta per bit, stays.
 */
static bool is_better(const struct bt_choice *c, const struct bt_choice *best)
{
	if (c->is_close != best->is_close)
		return c->is_close;
	if (c->is_late != best->is_late)
		return !c->is_late;
	if (c->rate_err != best->rate_err)
		return c->rate_err < best->rate_err;
	return c->sp_err < best->sp_err;
}

/* Rate the prescaler @brp for bits of 1 + @tseg quanta into @c. */
static void try_prescaler(const struct can_bittiming_const *btc,
			  u32 clock_hz, u32 bitrate, u32 sp, u32 tseg,
			  u32 brp, struct bt_choice *c)
{
	u32 achieved = div_u64(clock_hz, (u64)brp * (CAN_SYNC_SEG + tseg));

	c->brp = brp;
	c->rate_err = achieved > bitrate ? achieved - bitrate :
					   bitrate - achieved;
	c->is_close = div_u64((u64)c->rate_err * 1000, bitrate) <=
		      CAN_BITRATE_MAX_ERROR;
	split_tseg(btc, tseg, sp, c);
}

static bool is_brp_allowed(const struct can_bittiming_const *btc, u64 brp)
{
	return brp && brp >= btc->brp_min && brp <= btc->brp_max;
}

/* Try every total segment length, longest first (more quanta per bit
 * give finer sample point placement), each with the two allowed
 * prescalers around the ideal one, the larger first.
 */
static bool search_timing(const struct can_bittiming_const *btc,
			  u32 clock_hz, u32 bitrate, u32 sp,
			  struct bt_choice *best)
{
	u32 tseg, tseg_min = btc->tseg1_min + btc->tseg2_min;
	u32 inc = max(btc->brp_inc, 1U);
	struct bt_choice c;
	bool found = false;

	for (tseg = btc->tseg1_max + btc->tseg2_max; tseg >= tseg_min; tseg--) {
		/* In 64 bits: 256 quanta at 16 Mbit/s are exactly 2^32. */
		u64 quanta_rate = (u64)(CAN_SYNC_SEG + tseg) * bitrate;
		u64 brp_below = div64_u64(clock_hz, quanta_rate) / inc * inc;
		u64 brps[2] = { brp_below + inc, brp_below };
		unsigned int i;

		for (i = 0; i < ARRAY_SIZE(brps); i++) {
			if (!is_brp_allowed(btc, brps[i]))
				continue;
			try_prescaler(btc, clock_hz, bitrate, sp, tseg, brps[i],
				      &c);
			if (found && !is_better(&c, best))
				continue;
			*best = c;
			found = true;
			if (!c.rate_err && !c.sp_err && !c.is_late)
				return true;
		}
		if (!tseg)	/* limits of 0 quanta: do not wrap around */
			break;
	}
	return found;
}

static void store_choice(struct can_bittiming *bt, const struct bt_choice *c,
			 const struct can_bittiming_const *btc, u32 clock_hz)
{
	u32 sjw = bt->sjw ? bt->sjw : 1;

	bt->brp = c->brp;
	bt->tq = div_u64((u64)c->brp * NSEC_PER_SEC, clock_hz);
	bt->prop_seg = c->tseg1 / 2;
	bt->phase_seg1 = c->tseg1 - bt->prop_seg;
	bt->phase_seg2 = c->tseg2;
	bt->sjw = max(min3(sjw, btc->sjw_max, c->tseg2), 1U);
	bt->sample_point = sample_point_of(c->tseg1, c->tseg2);
	bt->bitrate = clock_hz / (c->brp * (CAN_SYNC_SEG + c->tseg1 + c->tseg2));
}

static int calc_from_bitrate(struct can_bittiming *bt,
			     const struct can_bittiming_const *btc,
			     u32 clock_hz, struct netlink_ext_ack *extack)
{
	u32 sp = bt->sample_point ? bt->sample_point :
				    default_sample_point(bt->bitrate);
	struct bt_choice best = {};

	if (!search_timing(btc, clock_hz, bt->bitrate, sp, &best)) {
		NL_SET_ERR_MSG(extack, "bitrate not reachable with this clock");
		return -EDOM;
	}
	if (!best.is_close) {
		NL_SET_ERR_MSG(extack, "bitrate error above 5%");
		return -EDOM;
	}
	/* Not an error, but iproute2 shows it as a warning. */
	if (best.rate_err)
		NL_SET_ERR_MSG(extack, "bitrate differs from the one asked for");
	store_choice(bt, &best, btc, clock_hz);
	return 0;
}

/* Timing given in quanta: derive the prescaler and the resulting rate. */
static int check_given_timing(struct can_bittiming *bt,
			      const struct can_bittiming_const *btc,
			      u32 clock_hz, struct netlink_ext_ack *extack)
{
	u32 tseg1 = bt->prop_seg + bt->phase_seg1;
	u32 inc;
	u64 brp;

	if (!bt->sjw)
		bt->sjw = 1;
	/* Each part on its own too, or a huge pair could wrap into range. */
	if (bt->prop_seg > btc->tseg1_max || bt->phase_seg1 > btc->tseg1_max ||
	    bt->sjw > btc->sjw_max ||
	    tseg1 < btc->tseg1_min || tseg1 > btc->tseg1_max ||
	    bt->phase_seg2 < btc->tseg2_min ||
	    bt->phase_seg2 > btc->tseg2_max) {
		NL_SET_ERR_MSG(extack, "segment lengths outside controller limits");
		return -ERANGE;
	}

	/* Nearest multiple of brp_inc clock periods; exactly half way the
	 * shorter one, as mainline rounds (tq 250 at 10 MHz gives 2).
	 */
	inc = max(btc->brp_inc, 1U);
	brp = div64_u64((u64)clock_hz * bt->tq + (u64)inc * (NSEC_PER_SEC / 2 - 1),
			(u64)NSEC_PER_SEC * inc) * inc;
	if (!brp || brp < btc->brp_min || brp > btc->brp_max) {
		NL_SET_ERR_MSG(extack, "time quantum outside controller limits");
		return -EINVAL;
	}
	bt->brp = brp;
	bt->bitrate = clock_hz / (bt->brp * (CAN_SYNC_SEG + tseg1 +
					     bt->phase_seg2));
	bt->sample_point = sample_point_of(tseg1, bt->phase_seg2);
	return 0;
}

/**
 * can_bittiming_fill() - complete and check bit timing asked for by a user
 * @bt: either a bitrate (and optional sample point and sjw), or a time
 *	quantum and segment lengths; completed in place on success
 * @btc: the controller's limits
 * @clock_hz: the controller's clock
 * @extack: receives the reason of a failure
 *
 * Any context; pure calculation.
 *
 * A bitrate the search cannot meet exactly is still accepted within 5 %;
 * @extack then carries a warning.
 *
 * Return: 0, -EINVAL if @bt gives both or neither of bitrate and tq, a
 * sample point of 100 % or more, or the prescaler is out of range,
 * -ERANGE for segments out of range,
 * -EDOM if the bitrate cannot be reached within 5 % (also one above the
 * clock, as in mainline).
 */
int can_bittiming_fill(struct can_bittiming *bt,
		       const struct can_bittiming_const *btc, u32 clock_hz,
		       struct netlink_ext_ack *extack)
{
	if (bt->sample_point >= 1000) {
		NL_SET_ERR_MSG(extack, "sample point must lie inside the bit");
		return -EINVAL;
	}
	if (!bt->tq && bt->bitrate)
		return calc_from_bitrate(bt, btc, clock_hz, extack);
	if (bt->tq && !bt->bitrate)
		return check_given_timing(bt, btc, clock_hz, extack);
	NL_SET_ERR_MSG(extack, "give either a bitrate or tq and segments");
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(can_bittiming_fill);
