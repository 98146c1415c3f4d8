// SPDX-License-Identifier: GPL-2.0
/* Transmitter delay compensation (TDC) of CAN FD controllers.
 *
 * In the data phase of a fast CAN FD frame the transceiver's loop delay
 * can be longer than a bit, so a sending controller checks its own bits
 * at a secondary sample point: the measured or configured delay (TDCV)
 * plus an offset (TDCO), in clock periods. "ip link set DEV type can ...
 * tdco N [tdcv N] [tdcf N] tdc-mode auto|manual|off" configures it along
 * with the data bit timing; without any of it the offset is derived from
 * the data sample point here, for controllers that measure the delay
 * themselves.
 */

#include <linux/can/dev.h>
#include <linux/minmax.h>
#include <net/netlink.h>

#include "tdc.h"

/* The limits are the device's to report; a request that carries them
 * is not refused, and they are ignored, as mainline does.
 */
static const struct nla_policy can_tdc_policy[IFLA_CAN_TDC_MAX + 1] = {
	[IFLA_CAN_TDC_TDCV_MIN ... IFLA_CAN_TDC_TDCF] = { .type = NLA_U32 },
};

/* The TDC modes and FD as the request's control mode sets them. */
static u32 requested_modes(struct nlattr *data[])
{
	const struct can_ctrlmode *cm;

	if (!data[IFLA_CAN_CTRLMODE])
		return 0;
	cm = nla_data(data[IFLA_CAN_CTRLMODE]);
	return (cm->flags & CAN_CTRLMODE_TDC_MASK) |
	       (cm->flags & cm->mask & CAN_CTRLMODE_FD);
}

/**
 * can_tdc_check_request() - check the shape of a request's TDC settings
 * @data: the request's IFLA_CAN_* attributes
 * @extack: receives the reason of a refusal
 *
 * Values come with exactly one of the modes auto and manual, in a
 * request that switches FD on (and so carries the data bit timing);
 * they always include TDCO, and TDCV exactly in manual mode, since in
 * auto mode the controller measures it. The values themselves are the
 * device's business (can_tdc_read_values()). RTNL held.
 *
 * Return: 0, -EOPNOTSUPP for a request of another shape, or the error
 * of parsing the nested attribute.
 */
int can_tdc_check_request(struct nlattr *data[],
			  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[IFLA_CAN_TDC_MAX + 1];
	u32 modes = requested_modes(data);
	u32 tdc_mode = modes & CAN_CTRLMODE_TDC_MASK;
	bool is_manual = tdc_mode == CAN_CTRLMODE_TDC_MANUAL;
	int err;

	if (tdc_mode == CAN_CTRLMODE_TDC_MASK) {
		NL_SET_ERR_MSG(extack, "tdc-mode is auto or manual, not both");
		return -EOPNOTSUPP;
	}
	if (!tdc_mode != !data[IFLA_CAN_TDC]) {
		NL_SET_ERR_MSG(extack, "TDC values go with tdc-mode auto or manual");
		return -EOPNOTSUPP;
	}
	if (!data[IFLA_CAN_TDC])
		return 0;
	if (!(modes & CAN_CTRLMODE_FD)) {
		NL_SET_ERR_MSG(extack, "TDC values need fd on with them");
		return -EOPNOTSUPP;
	}

	err = nla_parse_nested(tb, IFLA_CAN_TDC_MAX, data[IFLA_CAN_TDC],
			       can_tdc_policy, extack);
	if (err)
		return err;
	if (!tb[IFLA_CAN_TDC_TDCO]) {
		NL_SET_ERR_MSG(extack, "TDC values need tdco");
		return -EOPNOTSUPP;
	}
	if (!!tb[IFLA_CAN_TDC_TDCV] != is_manual) {
		NL_SET_ERR_MSG(extack, "tdcv is given in tdc-mode manual, and only there");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* An absent attribute keeps @val (0) and passes. */
static bool read_u32_within(const struct nlattr *attr, u32 min, u32 max,
			    u32 *val)
{
	if (!attr)
		return true;
	*val = nla_get_u32(attr);
	return *val >= min && *val <= max;
}

/**
 * can_tdc_read_values() - the TDC values of a request, within the limits
 * @priv: the device
 * @nla: the request's IFLA_CAN_TDC, checked by can_tdc_check_request()
 * @tdc: receives the values; those not given are 0
 * @extack: receives the reason of a refusal
 *
 * RTNL held.
 *
 * Return: 0, -EOPNOTSUPP if the device has no TDC, -EINVAL for a value
 * outside the device's limits.
 */
int can_tdc_read_values(const struct can_priv *priv, const struct nlattr *nla,
			struct can_tdc *tdc, struct netlink_ext_ack *extack)
{
	const struct can_tdc_const *lim = priv->tdc_const;
	struct nlattr *tb[IFLA_CAN_TDC_MAX + 1];
	int err;

	if (!lim) {
		NL_SET_ERR_MSG(extack, "device has no transmitter delay compensation");
		return -EOPNOTSUPP;
	}
	err = nla_parse_nested(tb, IFLA_CAN_TDC_MAX, nla, can_tdc_policy, extack);
	if (err)
		return err;

	*tdc = (struct can_tdc){};
	if (!read_u32_within(tb[IFLA_CAN_TDC_TDCV], lim->tdcv_min,
			     lim->tdcv_max, &tdc->tdcv)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_CAN_TDC_TDCV],
				    "tdcv outside the device's limits");
		return -EINVAL;
	}
	if (!read_u32_within(tb[IFLA_CAN_TDC_TDCO], lim->tdco_min,
			     lim->tdco_max, &tdc->tdco)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_CAN_TDC_TDCO],
				    "tdco outside the device's limits");
		return -EINVAL;
	}
	if (!read_u32_within(tb[IFLA_CAN_TDC_TDCF], lim->tdcf_min,
			     lim->tdcf_max, &tdc->tdcf)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_CAN_TDC_TDCF],
				    "tdcf outside the device's limits");
		return -EINVAL;
	}
	return 0;
}

/**
 * can_calc_tdco() - TDC for a data bit timing the user gave no TDC for
 * @tdc: receives the offset; the caller has cleared it
 * @tdc_const: the device's limits, NULL if it has no TDC
 * @dbt: the data bit timing in effect from now
 * @ctrlmode: the device's control mode; CAN_CTRLMODE_TDC_AUTO is set in
 *	it if compensation is on, both TDC modes are cleared otherwise
 * @ctrlmode_supported: the device's supported modes
 *
 * Only for controllers that measure the delay (auto mode): the
 * secondary sample point is put where the data sample point is, as
 * far as the device's TDCO range allows. ISO 11898-1 allows TDC only
 * with a data prescaler of one or two, so other timings go without, as
 * do offsets below the device's minimum. Any context.
 */
void can_calc_tdco(struct can_tdc *tdc, const struct can_tdc_const *tdc_const,
		   const struct can_bittiming *dbt, u32 *ctrlmode,
		   u32 ctrlmode_supported)
{
	u32 sample_point_tc;

	if (!tdc_const || !(ctrlmode_supported & CAN_CTRLMODE_TDC_AUTO))
		return;
	*ctrlmode &= ~CAN_CTRLMODE_TDC_MASK;
	if (dbt->brp != 1 && dbt->brp != 2)
		return;

	sample_point_tc = (CAN_SYNC_SEG + dbt->prop_seg + dbt->phase_seg1) *
			  dbt->brp;
	if (sample_point_tc < tdc_const->tdco_min)
		return;
	tdc->tdco = min(sample_point_tc, tdc_const->tdco_max);
	*ctrlmode |= CAN_CTRLMODE_TDC_AUTO;
}

/* Which TDC attributes a dump of @priv carries. */
struct tdc_report {
	bool tdcv_limits;	/* manual mode offered */
	bool tdcf;		/* the controller has a filter window */
	bool values;		/* compensation is on */
	bool tdcv;		/* and the delay can be told */
};

static struct tdc_report tdc_report_of(const struct can_priv *priv)
{
	struct tdc_report r = {
		.tdcv_limits = priv->ctrlmode_supported & CAN_CTRLMODE_TDC_MANUAL,
		.tdcf = priv->tdc_const->tdcf_max,
		.values = can_tdc_is_enabled(priv),
	};

	r.tdcv = r.values && ((priv->ctrlmode & CAN_CTRLMODE_TDC_MANUAL) ||
			      priv->do_get_auto_tdcv);
	return r;
}

/**
 * can_tdc_get_size() - room for can_tdc_fill_info()'s attributes
 * @priv: the device
 *
 * Return: bytes; 0 for a device without TDC.
 */
size_t can_tdc_get_size(const struct can_priv *priv)
{
	struct tdc_report r;
	unsigned int n = 2;	/* TDCO limits */

	if (!priv->tdc_const)
		return 0;
	r = tdc_report_of(priv);
	n += 2 * r.tdcv_limits + 2 * r.tdcf;
	if (r.values)
		n += 1 + r.tdcv + r.tdcf;
	return nla_total_size(0) + n * nla_total_size(sizeof(u32));
}

/* TDCV: the configured value in manual mode, the measured one in auto
 * mode if the driver can read it (no attribute if that fails).
 */
static int put_tdcv(struct sk_buff *skb, const struct net_device *dev)
{
	const struct can_priv *priv = netdev_priv(dev);
	u32 tdcv = priv->tdc.tdcv;

	if (!(priv->ctrlmode & CAN_CTRLMODE_TDC_MANUAL) &&
	    priv->do_get_auto_tdcv(dev, &tdcv))
		return 0;
	return nla_put_u32(skb, IFLA_CAN_TDC_TDCV, tdcv);
}

static int put_tdc(struct sk_buff *skb, const struct net_device *dev,
		   const struct tdc_report *r)
{
	const struct can_priv *priv = netdev_priv(dev);
	const struct can_tdc_const *lim = priv->tdc_const;

	if (r->tdcv_limits &&
	    (nla_put_u32(skb, IFLA_CAN_TDC_TDCV_MIN, lim->tdcv_min) ||
	     nla_put_u32(skb, IFLA_CAN_TDC_TDCV_MAX, lim->tdcv_max)))
		return -EMSGSIZE;
	if (nla_put_u32(skb, IFLA_CAN_TDC_TDCO_MIN, lim->tdco_min) ||
	    nla_put_u32(skb, IFLA_CAN_TDC_TDCO_MAX, lim->tdco_max))
		return -EMSGSIZE;
	if (r->tdcf &&
	    (nla_put_u32(skb, IFLA_CAN_TDC_TDCF_MIN, lim->tdcf_min) ||
	     nla_put_u32(skb, IFLA_CAN_TDC_TDCF_MAX, lim->tdcf_max)))
		return -EMSGSIZE;
	if (!r->values)
		return 0;
	if ((r->tdcv && put_tdcv(skb, dev)) ||
	    nla_put_u32(skb, IFLA_CAN_TDC_TDCO, priv->tdc.tdco) ||
	    (r->tdcf && nla_put_u32(skb, IFLA_CAN_TDC_TDCF, priv->tdc.tdcf)))
		return -EMSGSIZE;
	return 0;
}

/**
 * can_tdc_fill_info() - the IFLA_CAN_TDC nest of a link dump
 * @skb: the dump
 * @dev: the device
 *
 * The limits always, the values in effect while compensation is on.
 * RTNL held.
 *
 * Return: 0 (also for a device without TDC), or -EMSGSIZE.
 */
int can_tdc_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	const struct can_priv *priv = netdev_priv(dev);
	struct tdc_report r;
	struct nlattr *nest;

	if (!priv->tdc_const)
		return 0;
	r = tdc_report_of(priv);
	nest = nla_nest_start(skb, IFLA_CAN_TDC);
	if (!nest)
		return -EMSGSIZE;
	if (put_tdc(skb, dev, &r)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}
