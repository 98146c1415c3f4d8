// SPDX-License-Identifier: GPL-2.0
/* rtnetlink link kind "can": how "ip link set DEV type can ..." changes a
 * CAN device and how "ip -d -s link show" reads its settings, state and
 * error counters. Each attribute has its own setter; changelink routes.
 */

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/rtnetlink.h>
#include <linux/can/core.h>
#include <linux/can/dev.h>

#include "link_factory.h"
#include "tdc.h"

/* What user space may send; read-only attributes are only sized. */
static const struct nla_policy can_policy[IFLA_CAN_MAX + 1] = {
	[IFLA_CAN_BITTIMING] = NLA_POLICY_MIN_LEN(sizeof(struct can_bittiming)),
	[IFLA_CAN_BITTIMING_CONST] =
		NLA_POLICY_MIN_LEN(sizeof(struct can_bittiming_const)),
	[IFLA_CAN_CLOCK] = NLA_POLICY_MIN_LEN(sizeof(struct can_clock)),
	[IFLA_CAN_STATE] = { .type = NLA_U32 },
	[IFLA_CAN_CTRLMODE] = NLA_POLICY_MIN_LEN(sizeof(struct can_ctrlmode)),
	[IFLA_CAN_RESTART_MS] = { .type = NLA_U32 },
	[IFLA_CAN_RESTART] = { .type = NLA_U32 },
	[IFLA_CAN_BERR_COUNTER] =
		NLA_POLICY_MIN_LEN(sizeof(struct can_berr_counter)),
	[IFLA_CAN_DATA_BITTIMING] =
		NLA_POLICY_MIN_LEN(sizeof(struct can_bittiming)),
	[IFLA_CAN_DATA_BITTIMING_CONST] =
		NLA_POLICY_MIN_LEN(sizeof(struct can_bittiming_const)),
	[IFLA_CAN_TERMINATION] = { .type = NLA_U16 },
	[IFLA_CAN_TDC] = { .type = NLA_NESTED },
	[IFLA_CAN_CTRLMODE_EXT] = { .type = NLA_NESTED },
};

/* Settings that change how the controller runs wait for it to stop. */
static int refuse_if_up(struct net_device *dev, struct netlink_ext_ack *extack)
{
	if (!(dev->flags & IFF_UP))
		return 0;
	NL_SET_ERR_MSG(extack, "bring the interface down first");
	return -EBUSY;
}

/* What one changelink request asks for. Every attribute is checked into
 * this first; the device changes only when all of them passed.
 */
struct can_link_change {
	struct can_bittiming bittiming;
	struct can_bittiming data_bittiming;
	struct can_tdc tdc;
	u32 ctrlmode;
	int restart_ms;
	u16 termination;
	bool has_bittiming;
	bool has_data_bittiming;
	bool has_ctrlmode;
	bool has_restart_ms;
	bool has_termination;
	bool has_tdc;
	bool sets_tdc_mode;
	bool wants_restart;
};

/* The limits of one phase of the bit (nominal or CAN FD data) that a
 * timing from the user is checked against.
 */
struct can_phase_limits {
	const struct can_bittiming_const *btc;
	const u32 *bitrates;
	unsigned int bitrate_cnt;
};

static bool bitrate_is_offered(const struct can_bittiming *bt,
			       const struct can_phase_limits *lim)
{
	unsigned int i;

	if (bt->tq)
		return false;
	for (i = 0; i < lim->bitrate_cnt; i++)
		if (lim->bitrates[i] == bt->bitrate)
			return true;
	return false;
}

/* Complete the timing in @attr from the controller's limits, or find its
 * bitrate in the device's list if it has no limits but a list.
 */
static int fill_timing(struct net_device *dev, const struct nlattr *attr,
		       const struct can_phase_limits *lim,
		       struct can_bittiming *bt, struct netlink_ext_ack *extack)
{
	struct can_priv *priv = netdev_priv(dev);
	u32 asked;
	int err;

	memcpy(bt, nla_data(attr), sizeof(*bt));
	asked = bt->bitrate;
	if (lim->btc) {
		err = can_bittiming_fill(bt, lim->btc, priv->clock.freq, extack);
		if (err)
			return err;
		if (asked && bt->bitrate != asked)
			netdev_warn(dev, "bitrate %u instead of %u\n",
				    bt->bitrate, asked);
	} else if (!bitrate_is_offered(bt, lim)) {
		NL_SET_ERR_MSG(extack, "bitrate not offered by this device");
		return -EINVAL;
	}
	if (priv->bitrate_max && bt->bitrate > priv->bitrate_max) {
		NL_SET_ERR_MSG(extack, "bitrate above the transceiver's limit");
		return -EINVAL;
	}
	return 0;
}

/* Nominal (arbitration) or CAN FD data phase: the device's limits, and
 * whether it takes a timing for that phase at all.
 */
static bool get_phase_limits(const struct can_priv *priv, bool is_data,
			     struct can_phase_limits *lim)
{
	if (is_data) {
		lim->btc = priv->data_bittiming_const;
		lim->bitrates = priv->data_bitrate_const;
		lim->bitrate_cnt = priv->data_bitrate_const_cnt;
		return lim->btc || lim->bitrates || priv->do_set_data_bittiming;
	}
	lim->btc = priv->bittiming_const;
	lim->bitrates = priv->bitrate_const;
	lim->bitrate_cnt = priv->bitrate_const_cnt;
	return lim->btc || lim->bitrates || priv->do_set_bittiming;
}

static int check_bittiming(struct net_device *dev, const struct nlattr *attr,
			   bool is_data, struct can_link_change *chg,
			   struct netlink_ext_ack *extack)
{
	struct can_priv *priv = netdev_priv(dev);
	struct can_phase_limits lim;
	int err;

	err = refuse_if_up(dev, extack);
	if (err)
		return err;
	if (!get_phase_limits(priv, is_data, &lim)) {
		if (is_data)
			NL_SET_ERR_MSG(extack, "device does not support CAN FD");
		else
			NL_SET_ERR_MSG(extack, "bit timing of this device is fixed");
		return -EOPNOTSUPP;
	}
	if (is_data) {
		err = fill_timing(dev, attr, &lim, &chg->data_bittiming, extack);
		chg->has_data_bittiming = !err;
	} else {
		err = fill_timing(dev, attr, &lim, &chg->bittiming, extack);
		chg->has_bittiming = !err;
	}
	return err;
}

static int check_ctrlmode(struct net_device *dev, const struct nlattr *attr,
			  struct can_link_change *chg,
			  struct netlink_ext_ack *extack)
{
	struct can_priv *priv = netdev_priv(dev);
	const struct can_ctrlmode *cm = nla_data(attr);
	u32 wanted = cm->flags & cm->mask;
	u32 fixed = can_get_static_ctrlmode(priv);
	int err;

	err = refuse_if_up(dev, extack);
	if (err)
		return err;
	if (wanted & ~(priv->ctrlmode_supported | fixed)) {
		NL_SET_ERR_MSG(extack, "control mode not supported by this device");
		return -EOPNOTSUPP;
	}
	/* Without FD there is no ISO or non-ISO CAN FD to insist on. */
	if (!(wanted & CAN_CTRLMODE_FD))
		fixed &= ~CAN_CTRLMODE_FD_NON_ISO;
	if ((wanted & fixed) != fixed) {
		NL_SET_ERR_MSG(extack, "the hardware fixes this control mode");
		return -EOPNOTSUPP;
	}

	chg->ctrlmode = (priv->ctrlmode & ~cm->mask) | wanted;
	/* Naming a TDC mode switches the other one off. */
	if (cm->mask & CAN_CTRLMODE_TDC_MASK) {
		chg->ctrlmode &= cm->flags | ~CAN_CTRLMODE_TDC_MASK;
		chg->sets_tdc_mode = true;
	}
	chg->has_ctrlmode = true;
	return 0;
}

static int check_restart_ms(struct net_device *dev, const struct nlattr *attr,
			    struct can_link_change *chg,
			    struct netlink_ext_ack *extack)
{
	struct can_priv *priv = netdev_priv(dev);
	u32 ms = nla_get_u32(attr);
	int err;

	if (ms && !priv->do_set_mode) {
		NL_SET_ERR_MSG(extack, "device cannot restart from bus-off");
		return -EOPNOTSUPP;
	}
	err = refuse_if_up(dev, extack);
	if (err)
		return err;
	if (ms > INT_MAX) {
		NL_SET_ERR_MSG(extack, "restart-ms too large");
		return -EINVAL;
	}
	chg->restart_ms = ms;
	chg->has_restart_ms = true;
	return 0;
}

/* The device's state is checked when the restart runs: a restart needs
 * the interface up, every other setting needs it down, so a request
 * that passed these checks changes nothing else.
 */
static int check_restart(struct net_device *dev, struct can_link_change *chg,
			 struct netlink_ext_ack *extack)
{
	struct can_priv *priv = netdev_priv(dev);

	if (!priv->do_set_mode) {
		NL_SET_ERR_MSG(extack, "device cannot restart from bus-off");
		return -EOPNOTSUPP;
	}
	if (!(dev->flags & IFF_UP)) {
		NL_SET_ERR_MSG(extack, "interface is down");
		return -EINVAL;
	}
	chg->wants_restart = true;
	return 0;
}

/* Only one of the values the device lists; the interface may be up. */
static int check_termination(struct net_device *dev,
			     const struct nlattr *attr,
			     struct can_link_change *chg,
			     struct netlink_ext_ack *extack)
{
	struct can_priv *priv = netdev_priv(dev);
	u16 ohms = nla_get_u16(attr);
	unsigned int i;

	if (!priv->do_set_termination) {
		NL_SET_ERR_MSG(extack, "device has no switchable termination");
		return -EOPNOTSUPP;
	}
	for (i = 0; i < priv->termination_const_cnt; i++)
		if (priv->termination_const[i] == ohms)
			break;
	if (i == priv->termination_const_cnt) {
		NL_SET_ERR_MSG(extack, "termination not offered by this device");
		return -EINVAL;
	}
	chg->termination = ohms;
	chg->has_termination = true;
	return 0;
}

/* As in mainline, CAN FD is configured in one request: "fd on" comes
 * with both bitrates, and a data bitrate only with "fd on"; so do
 * transmitter delay compensation values (can_tdc_check_request()).
 */
static int check_fd_request(struct nlattr *data[],
			    struct netlink_ext_ack *extack)
{
	const struct can_ctrlmode *cm;
	bool fd_on = false;

	if (data[IFLA_CAN_CTRLMODE]) {
		cm = nla_data(data[IFLA_CAN_CTRLMODE]);
		fd_on = cm->flags & cm->mask & CAN_CTRLMODE_FD;
	}
	if (fd_on && !(data[IFLA_CAN_BITTIMING] &&
		       data[IFLA_CAN_DATA_BITTIMING])) {
		NL_SET_ERR_MSG(extack, "fd on needs bitrate and dbitrate with it");
		return -EOPNOTSUPP;
	}
	if (data[IFLA_CAN_DATA_BITTIMING] && !fd_on) {
		NL_SET_ERR_MSG(extack, "dbitrate needs fd on with it");
		return -EOPNOTSUPP;
	}
	return can_tdc_check_request(data, extack);
}

static int check_change(struct net_device *dev, struct nlattr *data[],
			struct can_link_change *chg,
			struct netlink_ext_ack *extack)
{
	int err = check_fd_request(data, extack);

	if (!err && data[IFLA_CAN_BITTIMING])
		err = check_bittiming(dev, data[IFLA_CAN_BITTIMING], false,
				      chg, extack);
	if (!err && data[IFLA_CAN_DATA_BITTIMING])
		err = check_bittiming(dev, data[IFLA_CAN_DATA_BITTIMING], true,
				      chg, extack);
	if (!err && data[IFLA_CAN_CTRLMODE])
		err = check_ctrlmode(dev, data[IFLA_CAN_CTRLMODE], chg, extack);
	if (!err && data[IFLA_CAN_TDC]) {
		err = can_tdc_read_values(netdev_priv(dev), data[IFLA_CAN_TDC],
					  &chg->tdc, extack);
		chg->has_tdc = !err;
	}
	if (!err && data[IFLA_CAN_TERMINATION])
		err = check_termination(dev, data[IFLA_CAN_TERMINATION], chg,
					extack);
	if (!err && data[IFLA_CAN_RESTART_MS])
		err = check_restart_ms(dev, data[IFLA_CAN_RESTART_MS], chg,
				       extack);
	if (!err && data[IFLA_CAN_RESTART])
		err = check_restart(dev, chg, extack);
	return err;
}

/* What apply_change() puts back when a driver refuses a setting. */
struct can_link_saved {
	struct can_bittiming bittiming;
	struct can_bittiming data_bittiming;
	struct can_tdc tdc;
	u32 ctrlmode;
	unsigned int mtu;
};

static void restore_settings(struct net_device *dev,
			     const struct can_link_saved *old)
{
	struct can_priv *priv = netdev_priv(dev);

	priv->bittiming = old->bittiming;
	priv->data_bittiming = old->data_bittiming;
	priv->tdc = old->tdc;
	priv->ctrlmode = old->ctrlmode;
	dev->mtu = old->mtu;
}

/* The MTU names the frames the device carries, so it follows FD. The
 * interface is down (check_ctrlmode), so no frame is in flight.
 */
static void set_ctrlmode(struct net_device *dev, u32 ctrlmode)
{
	struct can_priv *priv = netdev_priv(dev);

	priv->ctrlmode = ctrlmode;
	if (ctrlmode & CAN_CTRLMODE_FD) {
		dev->mtu = CANFD_MTU;
		return;
	}
	dev->mtu = CAN_MTU;
	memset(&priv->data_bittiming, 0, sizeof(priv->data_bittiming));
	memset(&priv->tdc, 0, sizeof(priv->tdc));
	priv->ctrlmode &= ~CAN_CTRLMODE_TDC_MASK;
}

/* Store a timing and let the driver program it, if it does so now rather
 * than in ndo_open (mainline's mcp251x has no hook).
 */
static int set_timing(struct net_device *dev, struct can_bittiming *dst,
		      const struct can_bittiming *bt,
		      int (*program)(struct net_device *dev))
{
	*dst = *bt;
	return program ? program(dev) : 0;
}

/* A new data bit timing comes with the TDC the user gave, or, if the
 * request names no TDC mode, with what can_calc_tdco() derives from it;
 * "tdc-mode off" leaves compensation off. Set before the driver
 * programs the timing, which it may read with it.
 */
static void set_tdc(struct net_device *dev, const struct can_link_change *chg)
{
	struct can_priv *priv = netdev_priv(dev);

	priv->tdc = chg->tdc;
	if (!chg->has_tdc && !chg->sets_tdc_mode)
		can_calc_tdco(&priv->tdc, priv->tdc_const, &chg->data_bittiming,
			      &priv->ctrlmode, priv->ctrlmode_supported);
}

/* The control mode goes first: a driver's do_set_bittiming may read it
 * (the SJA1000 programs triple sampling with the timing). If the driver
 * refuses a setting, the previous timing, modes and MTU come back.
 */
static int apply_change(struct net_device *dev,
			const struct can_link_change *chg)
{
	struct can_priv *priv = netdev_priv(dev);
	const struct can_link_saved old = {
		.bittiming = priv->bittiming,
		.data_bittiming = priv->data_bittiming,
		.tdc = priv->tdc,
		.ctrlmode = priv->ctrlmode,
		.mtu = dev->mtu,
	};
	int err = 0;

	if (chg->has_ctrlmode)
		set_ctrlmode(dev, chg->ctrlmode);
	if (chg->has_bittiming)
		err = set_timing(dev, &priv->bittiming, &chg->bittiming,
				 priv->do_set_bittiming);
	if (!err && chg->has_data_bittiming) {
		set_tdc(dev, chg);
		err = set_timing(dev, &priv->data_bittiming,
				 &chg->data_bittiming,
				 priv->do_set_data_bittiming);
	}
	if (!err && chg->has_termination) {
		err = priv->do_set_termination(dev, chg->termination);
		if (!err)
			priv->termination = chg->termination;
	}
	if (err) {
		restore_settings(dev, &old);
		return err;
	}
	if (chg->has_restart_ms)
		priv->restart_ms = chg->restart_ms;
	if (chg->wants_restart)
		return can_restart_now(dev);
	return 0;
}

/* All or nothing: a request with one bad attribute changes nothing. */
static int can_changelink(struct net_device *dev, struct nlattr *tb[],
			  struct nlattr *data[],
			  struct netlink_ext_ack *extack)
{
	struct can_link_change chg = {};
	int err;

	ASSERT_RTNL();
	if (!data)
		return 0;

	err = check_change(dev, data, &chg, extack);
	if (err)
		return err;
	return apply_change(dev, &chg);
}

/* CAN devices come from drivers; "ip link add" works only once a driver
 * registered itself as the link factory (our virtual bus controller).
 */
static int can_newlink(struct net *src_net, struct net_device *dev,
		       struct nlattr *tb[], struct nlattr *data[],
		       struct netlink_ext_ack *extack)
{
	return can_link_factory_newlink(dev, data, can_changelink, extack);
}

/* Not configured, or a bitrate the driver cannot read back (slcan). */
static bool bitrate_is_known(const struct can_bittiming *bt)
{
	return bt->bitrate != CAN_BITRATE_UNSET &&
	       bt->bitrate != CAN_BITRATE_UNKNOWN;
}

static size_t can_get_size(const struct net_device *dev)
{
	const struct can_priv *priv = netdev_priv(dev);
	/* Always there: clock, state, restart-ms, ctrlmode and its nest. */
	size_t size = nla_total_size(sizeof(struct can_clock)) +
		      2 * nla_total_size(sizeof(u32)) +
		      nla_total_size(sizeof(struct can_ctrlmode)) +
		      nla_total_size(0) + nla_total_size(sizeof(u32));

	if (priv->do_get_berr_counter)
		size += nla_total_size(sizeof(struct can_berr_counter));
	if (priv->bittiming_const)
		size += nla_total_size(sizeof(struct can_bittiming_const));
	if (bitrate_is_known(&priv->bittiming))
		size += nla_total_size(sizeof(struct can_bittiming));
	if (priv->data_bittiming_const)
		size += nla_total_size(sizeof(struct can_bittiming_const));
	if (priv->data_bittiming.bitrate)
		size += nla_total_size(sizeof(struct can_bittiming));
	if (priv->termination_const)
		size += nla_total_size(sizeof(u16)) +
			nla_total_size(sizeof(u16) * priv->termination_const_cnt);
	if (priv->bitrate_const)
		size += nla_total_size(sizeof(u32) * priv->bitrate_const_cnt);
	if (priv->data_bitrate_const)
		size += nla_total_size(sizeof(u32) *
				       priv->data_bitrate_const_cnt);
	size += can_tdc_get_size(priv);
	return size + nla_total_size(sizeof(u32));	/* bitrate_max */
}

static int put_berr_counter(struct sk_buff *skb, const struct net_device *dev)
{
	const struct can_priv *priv = netdev_priv(dev);
	struct can_berr_counter bec = {};

	if (!priv->do_get_berr_counter || priv->do_get_berr_counter(dev, &bec))
		return 0;
	return nla_put(skb, IFLA_CAN_BERR_COUNTER, sizeof(bec), &bec);
}

static int put_ctrlmode(struct sk_buff *skb, const struct can_priv *priv)
{
	struct can_ctrlmode cm = {
		.mask = priv->ctrlmode_supported,
		.flags = priv->ctrlmode,
	};
	struct nlattr *nest;

	if (nla_put(skb, IFLA_CAN_CTRLMODE, sizeof(cm), &cm))
		return -EMSGSIZE;

	/* The nest tells newer iproute2 which modes it may offer. */
	nest = nla_nest_start(skb, IFLA_CAN_CTRLMODE_EXT);
	if (nest && !nla_put_u32(skb, IFLA_CAN_CTRLMODE_SUPPORTED,
				 priv->ctrlmode_supported)) {
		nla_nest_end(skb, nest);
		return 0;
	}
	if (nest)
		nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int put_timing(struct sk_buff *skb, const struct can_priv *priv)
{
	if (bitrate_is_known(&priv->bittiming) &&
	    nla_put(skb, IFLA_CAN_BITTIMING, sizeof(priv->bittiming),
		    &priv->bittiming))
		return -EMSGSIZE;
	if (priv->bittiming_const &&
	    nla_put(skb, IFLA_CAN_BITTIMING_CONST,
		    sizeof(*priv->bittiming_const), priv->bittiming_const))
		return -EMSGSIZE;
	return nla_put(skb, IFLA_CAN_CLOCK, sizeof(priv->clock), &priv->clock);
}

static int put_data_timing(struct sk_buff *skb, const struct can_priv *priv)
{
	if (priv->data_bittiming.bitrate &&
	    nla_put(skb, IFLA_CAN_DATA_BITTIMING,
		    sizeof(priv->data_bittiming), &priv->data_bittiming))
		return -EMSGSIZE;
	if (priv->data_bittiming_const &&
	    nla_put(skb, IFLA_CAN_DATA_BITTIMING_CONST,
		    sizeof(*priv->data_bittiming_const),
		    priv->data_bittiming_const))
		return -EMSGSIZE;
	return 0;
}

/* The fixed choices some devices offer instead of free timing, and the
 * transceiver's limit (0 when unknown, always reported as in mainline).
 */
static int put_choices(struct sk_buff *skb, const struct can_priv *priv)
{
	if (priv->termination_const &&
	    (nla_put_u16(skb, IFLA_CAN_TERMINATION, priv->termination) ||
	     nla_put(skb, IFLA_CAN_TERMINATION_CONST,
		     sizeof(u16) * priv->termination_const_cnt,
		     priv->termination_const)))
		return -EMSGSIZE;
	if (priv->bitrate_const &&
	    nla_put(skb, IFLA_CAN_BITRATE_CONST,
		    sizeof(u32) * priv->bitrate_const_cnt, priv->bitrate_const))
		return -EMSGSIZE;
	if (priv->data_bitrate_const &&
	    nla_put(skb, IFLA_CAN_DATA_BITRATE_CONST,
		    sizeof(u32) * priv->data_bitrate_const_cnt,
		    priv->data_bitrate_const))
		return -EMSGSIZE;
	return nla_put_u32(skb, IFLA_CAN_BITRATE_MAX, priv->bitrate_max);
}

/* The controller's own view if the driver can read it. */
static enum can_state current_state(const struct net_device *dev)
{
	const struct can_priv *priv = netdev_priv(dev);
	enum can_state state = priv->state;

	if (priv->do_get_state)
		priv->do_get_state(dev, &state);
	return state;
}

static int can_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	const struct can_priv *priv = netdev_priv(dev);

	if (put_timing(skb, priv) ||
	    nla_put_u32(skb, IFLA_CAN_STATE, current_state(dev)) ||
	    put_ctrlmode(skb, priv) ||
	    nla_put_u32(skb, IFLA_CAN_RESTART_MS, priv->restart_ms) ||
	    put_berr_counter(skb, dev) ||
	    put_data_timing(skb, priv) ||
	    can_tdc_fill_info(skb, dev) ||
	    put_choices(skb, priv))
		return -EMSGSIZE;
	return 0;
}

static size_t can_get_xstats_size(const struct net_device *dev)
{
	return sizeof(struct can_device_stats);
}

static int can_fill_xstats(struct sk_buff *skb, const struct net_device *dev)
{
	const struct can_priv *priv = netdev_priv(dev);

	return nla_put(skb, IFLA_INFO_XSTATS, sizeof(priv->can_stats),
		       &priv->can_stats);
}

struct rtnl_link_ops can_link_ops __read_mostly = {
	.kind		= "can",
	.maxtype	= IFLA_CAN_MAX,
	.policy		= can_policy,
	.netns_refund	= true,
	.priv_size	= sizeof(struct can_link_priv),
	.setup		= can_link_factory_setup,
	.get_size	= can_get_size,
	.fill_info	= can_fill_info,
	.get_xstats_size = can_get_xstats_size,
	.fill_xstats	= can_fill_xstats,
	.newlink	= can_newlink,
	.changelink	= can_changelink,
	.dellink	= can_link_factory_dellink,
};

/**
 * can_netlink_register() - offer link kind "can" to rtnetlink
 *
 * Module init, process context.
 *
 * Return: 0 or rtnl_link_register()'s error.
 */
int can_netlink_register(void)
{
	int err = rtnl_link_register(&can_link_ops);

	if (!err)
		can_dev_link_ops_announce(&can_link_ops);
	return err;
}

/**
 * can_netlink_unregister() - withdraw link kind "can"
 *
 * Module exit, process context.
 */
void can_netlink_unregister(void)
{
	can_dev_link_ops_announce(NULL);
	rtnl_link_unregister(&can_link_ops);
}
