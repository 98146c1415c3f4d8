// SPDX-License-Identifier: GPL-2.0
/* rtnetlink link kind "can": how "ip link set DEV type can ..." changes a
 * CAN device and how "ip -d -s link show" reads its settings, state and
 * error counters. Each attribute has its own setter; changelink routes.
 */

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/rtnetlink.h>
#include <linux/can/dev.h>

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
	u32 ctrlmode;
	int restart_ms;
	bool has_bittiming;
	bool has_ctrlmode;
	bool has_restart_ms;
	bool wants_restart;
};

static int check_bittiming(struct net_device *dev, const struct nlattr *attr,
			   struct can_link_change *chg,
			   struct netlink_ext_ack *extack)
{
	struct can_priv *priv = netdev_priv(dev);
	struct can_bittiming *bt = &chg->bittiming;
	u32 asked;
	int err;

	err = refuse_if_up(dev, extack);
	if (err)
		return err;
	if (!priv->bittiming_const) {
		NL_SET_ERR_MSG(extack, "bit timing of this device is fixed");
		return -EOPNOTSUPP;
	}

	memcpy(bt, nla_data(attr), sizeof(*bt));
	asked = bt->bitrate;
	err = can_bittiming_fill(bt, priv->bittiming_const, priv->clock.freq,
				 extack);
	if (err)
		return err;
	if (asked && bt->bitrate != asked)
		netdev_warn(dev, "bitrate %u instead of %u\n", bt->bitrate,
			    asked);
	chg->has_bittiming = true;
	return 0;
}

static int check_ctrlmode(struct net_device *dev, const struct nlattr *attr,
			  struct can_link_change *chg,
			  struct netlink_ext_ack *extack)
{
	struct can_priv *priv = netdev_priv(dev);
	const struct can_ctrlmode *cm = nla_data(attr);
	u32 wanted = cm->flags & cm->mask;
	int err;

	err = refuse_if_up(dev, extack);
	if (err)
		return err;
	if (wanted & ~priv->ctrlmode_supported) {
		NL_SET_ERR_MSG(extack, "control mode not supported by this device");
		return -EOPNOTSUPP;
	}

	chg->ctrlmode = (priv->ctrlmode & ~cm->mask) | wanted;
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

/* CAN FD and bus termination are not offered by any of our drivers. */
static int refuse_unsupported(struct nlattr *data[],
			      struct netlink_ext_ack *extack)
{
	if (data[IFLA_CAN_DATA_BITTIMING] || data[IFLA_CAN_TDC]) {
		NL_SET_ERR_MSG(extack, "device does not support CAN FD");
		return -EOPNOTSUPP;
	}
	if (data[IFLA_CAN_TERMINATION]) {
		NL_SET_ERR_MSG(extack, "device has no switchable termination");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int check_change(struct net_device *dev, struct nlattr *data[],
			struct can_link_change *chg,
			struct netlink_ext_ack *extack)
{
	int err = refuse_unsupported(data, extack);

	if (!err && data[IFLA_CAN_BITTIMING])
		err = check_bittiming(dev, data[IFLA_CAN_BITTIMING], chg,
				      extack);
	if (!err && data[IFLA_CAN_CTRLMODE])
		err = check_ctrlmode(dev, data[IFLA_CAN_CTRLMODE], chg, extack);
	if (!err && data[IFLA_CAN_RESTART_MS])
		err = check_restart_ms(dev, data[IFLA_CAN_RESTART_MS], chg,
				       extack);
	if (!err && data[IFLA_CAN_RESTART])
		err = check_restart(dev, chg, extack);
	return err;
}

/* The control mode goes first: a driver's do_set_bittiming may read it
 * (the SJA1000 programs triple sampling with the timing). If the driver
 * refuses the timing, the previous settings come back. A driver without
 * do_set_bittiming reads the timing in its ndo_open, as mcp251x does in
 * mainline.
 */
static int apply_change(struct net_device *dev,
			const struct can_link_change *chg)
{
	struct can_priv *priv = netdev_priv(dev);
	struct can_bittiming old_bittiming = priv->bittiming;
	u32 old_ctrlmode = priv->ctrlmode;
	int err;

	if (chg->has_ctrlmode)
		priv->ctrlmode = chg->ctrlmode;
	if (chg->has_bittiming) {
		priv->bittiming = chg->bittiming;
		err = priv->do_set_bittiming ? priv->do_set_bittiming(dev) : 0;
		if (err) {
			priv->bittiming = old_bittiming;
			priv->ctrlmode = old_ctrlmode;
			return err;
		}
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

/* CAN devices come from drivers, never from "ip link add". */
static int can_newlink(struct net *src_net, struct net_device *dev,
		       struct nlattr *tb[], struct nlattr *data[],
		       struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack, "CAN devices are created by their drivers");
	return -EOPNOTSUPP;
}

/* Nor are they removed by "ip link del": the driver owns them. */
static void can_dellink(struct net_device *dev, struct list_head *head)
{
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
	if (priv->bittiming.bitrate)
		size += nla_total_size(sizeof(struct can_bittiming));
	return size;
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
	if (priv->bittiming.bitrate &&
	    nla_put(skb, IFLA_CAN_BITTIMING, sizeof(priv->bittiming),
		    &priv->bittiming))
		return -EMSGSIZE;
	if (priv->bittiming_const &&
	    nla_put(skb, IFLA_CAN_BITTIMING_CONST,
		    sizeof(*priv->bittiming_const), priv->bittiming_const))
		return -EMSGSIZE;
	return nla_put(skb, IFLA_CAN_CLOCK, sizeof(priv->clock), &priv->clock);
}

static int can_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	const struct can_priv *priv = netdev_priv(dev);

	if (put_timing(skb, priv) ||
	    nla_put_u32(skb, IFLA_CAN_STATE, priv->state) ||
	    put_ctrlmode(skb, priv) ||
	    nla_put_u32(skb, IFLA_CAN_RESTART_MS, priv->restart_ms) ||
	    put_berr_counter(skb, dev))
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

/* Only a device registered through register_candev() uses these ops. */
static void can_link_setup(struct net_device *dev)
{
}

struct rtnl_link_ops can_link_ops __read_mostly = {
	.kind		= "can",
	.maxtype	= IFLA_CAN_MAX,
	.policy		= can_policy,
	.netns_refund	= true,
	.setup		= can_link_setup,
	.get_size	= can_get_size,
	.fill_info	= can_fill_info,
	.get_xstats_size = can_get_xstats_size,
	.fill_xstats	= can_fill_xstats,
	.newlink	= can_newlink,
	.changelink	= can_changelink,
	.dellink	= can_dellink,
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
	return rtnl_link_register(&can_link_ops);
}

/**
 * can_netlink_unregister() - withdraw link kind "can"
 *
 * Module exit, process context.
 */
void can_netlink_unregister(void)
{
	rtnl_link_unregister(&can_link_ops);
}
