// SPDX-License-Identifier: GPL-2.0
/* CAN_ISOTP socket options. Every option is set before bind(): the receive
 * and timer paths read them without locks while the socket is bound, so a
 * bound socket refuses changes with EISCONN (mainline's CVE-2021-32606 was
 * a use-after-free from changing them on a bound socket).
 */

#include <linux/sockptr.h>
#include <linux/uaccess.h>

#include "isotp-priv.h"

/* Context: socket creation. */
void isotp_options_init(struct isotp_sock *so)
{
	so->opt = (struct can_isotp_options) {
		.flags = CAN_ISOTP_DEFAULT_FLAGS,
		.frame_txtime = CAN_ISOTP_DEFAULT_FRAME_TXTIME,
		.ext_address = CAN_ISOTP_DEFAULT_EXT_ADDRESS,
		.rx_ext_address = CAN_ISOTP_DEFAULT_EXT_ADDRESS,
		.txpad_content = CAN_ISOTP_DEFAULT_PAD_CONTENT,
		.rxpad_content = CAN_ISOTP_DEFAULT_PAD_CONTENT,
	};
	so->frame_txtime = CAN_ISOTP_DEFAULT_FRAME_TXTIME;
	so->rxfc = (struct can_isotp_fc_options) {
		.bs = CAN_ISOTP_DEFAULT_RECV_BS,
		.stmin = CAN_ISOTP_DEFAULT_RECV_STMIN,
		.wftmax = CAN_ISOTP_DEFAULT_RECV_WFTMAX,
	};
	so->ll = (struct can_isotp_ll_options) {
		.mtu = CAN_ISOTP_DEFAULT_LL_MTU,
		.tx_dl = CAN_ISOTP_DEFAULT_LL_TX_DL,
		.tx_flags = CAN_ISOTP_DEFAULT_LL_TX_FLAGS,
	};
	so->force_tx_stmin = 0;
	so->force_rx_stmin = 0;
}

/* An option's value, copied in or out while no lock is held. */
union isotp_opt_val {
	struct can_isotp_options opt;
	struct can_isotp_fc_options fc;
	struct can_isotp_ll_options ll;
	u32 ns;
};

/* The size of the value of option @optname; 0 for an unknown option. */
static size_t isotp_opt_size(int optname)
{
	switch (optname) {
	case CAN_ISOTP_OPTS:
		return sizeof(struct can_isotp_options);
	case CAN_ISOTP_RECV_FC:
		return sizeof(struct can_isotp_fc_options);
	case CAN_ISOTP_TX_STMIN:
	case CAN_ISOTP_RX_STMIN:
		return sizeof(u32);
	case CAN_ISOTP_LL_OPTS:
		return sizeof(struct can_isotp_ll_options);
	default:
		return 0;
	}
}

/* Copy exactly the option's size of value, as mainline demands. */
static int isotp_copy_opt_in(union isotp_opt_val *val, int optname,
			     sockptr_t optval, unsigned int optlen)
{
	size_t size = isotp_opt_size(optname);

	if (!size)
		return -ENOPROTOOPT;
	if (optlen != size)
		return -EINVAL;
	if (copy_from_sockptr(val, optval, size))
		return -EFAULT;
	return 0;
}

/* Both broadcast modes at once are refused, but as mainline the options
 * are taken with CAN_ISOTP_SF_BROADCAST alone.
 */
static int isotp_set_opts(struct isotp_sock *so,
			  const struct can_isotp_options *new)
{
	struct can_isotp_options opt = *new;
	int err = 0;

	if (!(opt.flags & CAN_ISOTP_RX_EXT_ADDR))
		opt.rx_ext_address = opt.ext_address;
	if ((opt.flags & ISOTP_BROADCAST_FLAGS) == ISOTP_BROADCAST_FLAGS) {
		opt.flags &= ~CAN_ISOTP_CF_BROADCAST;
		err = -EINVAL;
	}
	/* 0 leaves the frame time as it is; a marker value stands for 0. */
	if (opt.frame_txtime == CAN_ISOTP_FRAME_TXTIME_ZERO)
		so->frame_txtime = 0;
	else if (opt.frame_txtime)
		so->frame_txtime = opt.frame_txtime;
	so->opt = opt;
	return err;
}

static int isotp_set_ll_opts(struct isotp_sock *so,
			     const struct can_isotp_ll_options *ll)
{
	if (ll->tx_dl != isotp_padded_len(ll->tx_dl))
		return -EINVAL;
	if (ll->mtu != CAN_MTU && ll->mtu != CANFD_MTU)
		return -EINVAL;
	if (ll->mtu == CAN_MTU && (ll->tx_dl > CAN_MAX_DLEN || ll->tx_flags))
		return -EINVAL;
	so->ll = *ll;
	return 0;
}

/* Context: @so->config_lock held, the socket unbound. */
static int isotp_apply_opt(struct isotp_sock *so, int optname,
			   const union isotp_opt_val *val)
{
	lockdep_assert_held(&so->config_lock);
	switch (optname) {
	case CAN_ISOTP_OPTS:
		return isotp_set_opts(so, &val->opt);
	case CAN_ISOTP_RECV_FC:
		so->rxfc = val->fc;
		return 0;
	case CAN_ISOTP_TX_STMIN:
		so->force_tx_stmin = val->ns;
		return 0;
	case CAN_ISOTP_RX_STMIN:
		so->force_rx_stmin = val->ns;
		return 0;
	case CAN_ISOTP_LL_OPTS:
		return isotp_set_ll_opts(so, &val->ll);
	default:
		return -ENOPROTOOPT;
	}
}

/**
 * isotp_setsockopt() - set an option at level SOL_CAN_ISOTP
 * @sock: the socket
 * @level: must be SOL_CAN_ISOTP
 * @optname: CAN_ISOTP_OPTS ... CAN_ISOTP_LL_OPTS
 * @optval: the value
 * @optlen: its exact size
 *
 * The value is copied in before config_lock is taken (see struct
 * isotp_sock), but the errors come in mainline's order: a bound socket
 * gets -EISCONN whatever else is wrong.
 *
 * Context: process; takes config_lock, under which bind() runs.
 * Return: 0; -EINVAL (level, size, value); -EFAULT; -EISCONN (bound);
 * -ENOPROTOOPT (unknown option).
 */
int isotp_setsockopt(struct socket *sock, int level, int optname,
		     sockptr_t optval, unsigned int optlen)
{
	struct isotp_sock *so = isotp_sk(sock->sk);
	union isotp_opt_val val;
	int err;

	if (level != SOL_CAN_ISOTP)
		return -EINVAL;
	err = isotp_copy_opt_in(&val, optname, optval, optlen);

	mutex_lock(&so->config_lock);
	if (so->bound)
		err = -EISCONN;
	else if (!err)
		err = isotp_apply_opt(so, optname, &val);
	mutex_unlock(&so->config_lock);
	return err;
}

/* The option's value and size, or NULL for an unknown option. */
static const void *isotp_opt_value(struct isotp_sock *so, int optname,
				   int *size)
{
	switch (optname) {
	case CAN_ISOTP_OPTS:
		*size = sizeof(so->opt);
		return &so->opt;
	case CAN_ISOTP_RECV_FC:
		*size = sizeof(so->rxfc);
		return &so->rxfc;
	case CAN_ISOTP_TX_STMIN:
		*size = sizeof(so->force_tx_stmin);
		return &so->force_tx_stmin;
	case CAN_ISOTP_RX_STMIN:
		*size = sizeof(so->force_rx_stmin);
		return &so->force_rx_stmin;
	case CAN_ISOTP_LL_OPTS:
		*size = sizeof(so->ll);
		return &so->ll;
	default:
		return NULL;
	}
}

/* The buffer size getsockopt() was given, checked as mainline does. */
static int isotp_user_optlen(int level, int __user *optlen, int *len)
{
	int err = level == SOL_CAN_ISOTP ? 0 : -EINVAL;

	if (!err && get_user(*len, optlen))
		err = -EFAULT;
	if (!err && *len < 0)
		err = -EINVAL;
	return err;
}

/**
 * isotp_getsockopt() - read an option at level SOL_CAN_ISOTP
 * @sock: the socket
 * @level: must be SOL_CAN_ISOTP
 * @optname: CAN_ISOTP_OPTS ... CAN_ISOTP_LL_OPTS
 * @optval: buffer for the value, truncated to *@optlen
 * @optlen: in: the buffer's size; out: bytes written
 *
 * Context: process. Takes config_lock, so that a concurrent setsockopt()
 * is seen whole; the value is copied out after it is dropped.
 * Return: 0; -EINVAL (level, negative length); -EFAULT; -ENOPROTOOPT.
 */
int isotp_getsockopt(struct socket *sock, int level, int optname,
		     char __user *optval, int __user *optlen)
{
	struct isotp_sock *so = isotp_sk(sock->sk);
	union isotp_opt_val val;
	const void *src;
	int len, size, err;

	err = isotp_user_optlen(level, optlen, &len);
	if (err)
		return err;

	mutex_lock(&so->config_lock);
	src = isotp_opt_value(so, optname, &size);
	if (src)
		memcpy(&val, src, size);
	mutex_unlock(&so->config_lock);
	if (!src)
		return -ENOPROTOOPT;

	len = min(len, size);
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}
