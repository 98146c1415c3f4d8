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

/* Split @tseg quanta into tseg1 and tseg2 within the limits so that the
 * sample point is closest to @sp without passing it if possible.
 * Return: false if no split fits the limits.
 */
static bool split_tseg(const struct can_bittiming_const *btc, u32 tseg,
		       u32 sp, struct bt_choice *c)
{
	u32 total = CAN_SYNC_SEG + tseg;
	u32 tseg2, best_err = UINT_MAX;
	int i;

	tseg2 = total - DIV_ROUND_UP(sp * total, 1000);
	for (i = 0; i < 2; i++, tseg2++) {
		u32 t2 = clamp(tseg2, btc->tseg2_min, btc->tseg2_max);
		u32 t1 = tseg - t2;
		u32 err;

		if (t2 >= tseg || t1 < btc->tseg1_min || t1 > btc->tseg1_max)
			continue;
		err = abs((int)sp - (int)sample_point_of(t1, t2));
		if (err < best_err) {
			best_err = err;
			c->tseg1 = t1;
			c->tseg2 = t2;
		}
	}
	c->sp_err = best_err;
	return best_err != UINT_MAX;
}

/* Try every total segment length, longest first (more quanta per bit
 * means finer sample point placement), and keep the choice with the
 * smallest bitrate error, then the smallest sample point error.
 */
static bool search_timing(const struct can_bittiming_const *btc,
			  u32 clock_hz, u32 bitrate, u32 sp,
			  struct bt_choice *best)
{
	u32 tseg, tseg_min = btc->tseg1_min + btc->tseg2_min;
	struct bt_choice c;
	bool found = false;

	for (tseg = btc->tseg1_max + btc->tseg2_max; tseg >= tseg_min; tseg--) {
		u32 total = CAN_SYNC_SEG + tseg;
		/* In 64 bits, divisor included (do_div() would truncate
		 * it): 256 quanta at 16 Mbit/s are exactly 2^32.
		 */
		u64 quanta_rate = (u64)total * bitrate;
		u32 brp = div64_u64(clock_hz + quanta_rate / 2, quanta_rate);

		brp = max(brp / btc->brp_inc * btc->brp_inc, btc->brp_inc);
		if (brp < btc->brp_min || brp > btc->brp_max)
			continue;
		c.brp = brp;
		c.rate_err = abs((int)bitrate - (int)(clock_hz / (brp * total)));
		if (found && c.rate_err > best->rate_err)
			continue;
		if (!split_tseg(btc, tseg, sp, &c))
			continue;
		if (found && c.rate_err == best->rate_err &&
		    c.sp_err >= best->sp_err)
			continue;
		*best = c;
		found = true;
		if (!c.rate_err && !c.sp_err)
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
	bt->sjw = min3(sjw, btc->sjw_max, c->tseg2);
	bt->sample_point = sample_point_of(c->tseg1, c->tseg2);
	bt->bitrate = clock_hz / (c->brp * (CAN_SYNC_SEG + c->tseg1 + c->tseg2));
}

static int calc_from_bitrate(struct can_bittiming *bt,
			     const struct can_bittiming_const *btc,
			     u32 clock_hz, struct netlink_ext_ack *extack)
{
	u32 sp = bt->sample_point ? bt->sample_point :
				    default_sample_point(bt->bitrate);
	struct bt_choice best;
	u64 err_permille;

	if (!search_timing(btc, clock_hz, bt->bitrate, sp, &best)) {
		NL_SET_ERR_MSG(extack, "bitrate not reachable with this clock");
		return -EDOM;
	}
	err_permille = div_u64((u64)best.rate_err * 1000, bt->bitrate);
	if (err_permille > CAN_BITRATE_MAX_ERROR) {
		NL_SET_ERR_MSG(extack, "bitrate error above 5%");
		return -EDOM;
	}
	store_choice(bt, &best, btc, clock_hz);
	return 0;
}

/* Timing given in quanta: derive the prescaler and the resulting rate. */
static int check_given_timing(struct can_bittiming *bt,
			      const struct can_bittiming_const *btc,
			      u32 clock_hz, struct netlink_ext_ack *extack)
{
	u32 tseg1 = bt->prop_seg + bt->phase_seg1;
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

	brp = DIV_ROUND_CLOSEST_ULL((u64)clock_hz * bt->tq,
				    (u64)NSEC_PER_SEC * btc->brp_inc);
	brp *= btc->brp_inc;
	if (brp < btc->brp_min || brp > btc->brp_max) {
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
 * Return: 0, -EINVAL if @bt gives both or neither of bitrate and tq, a
 * sample point of 100 % or more, or the prescaler is out of range,
 * -ERANGE for segments out of range,
 * -EDOM if the bitrate cannot be reached within 5 %.
 */
int can_bittiming_fill(struct can_bittiming *bt,
		       const struct can_bittiming_const *btc, u32 clock_hz,
		       struct netlink_ext_ack *extack)
{
	if (bt->sample_point >= 1000) {
		NL_SET_ERR_MSG(extack, "sample point must lie inside the bit");
		return -EINVAL;
	}
	if (!bt->tq && bt->bitrate && bt->bitrate <= clock_hz)
		return calc_from_bitrate(bt, btc, clock_hz, extack);
	if (bt->tq && !bt->bitrate)
		return check_given_timing(bt, btc, clock_hz, extack);
	NL_SET_ERR_MSG(extack, "give either a bitrate or tq and segments");
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(can_bittiming_fill);
