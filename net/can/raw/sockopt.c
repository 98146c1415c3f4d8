// SPDX-License-Identifier: GPL-2.0
/* CAN_RAW socket options: one small function per option, each validating
 * its input where it enters. Filters change atomically for a bound socket:
 * the new set is subscribed before the old one is dropped, and a frame
 * that both match is still delivered once.
 */

#include <linux/can.h>
#include <linux/can/core.h>
#include <linux/can/error.h>
#include <linux/can/raw.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/sockptr.h>
#include <net/sock.h>

#include "raw-priv.h"

static int raw_copy_int(sockptr_t optval, unsigned int optlen, int *val)
{
	if (optlen != sizeof(int))
		return -EINVAL;
	return copy_from_sockptr(val, optval, sizeof(int)) ? -EFAULT : 0;
}

/* Make @filter the socket's filter set. More than one filter is an array
 * the socket owns from now on; a single filter is copied into the socket.
 * The caller holds rtnl_lock() and @ro->lock.
 */
static void raw_install_filters(struct raw_sock *ro, struct can_filter *filter,
				int count)
{
	ASSERT_RTNL();
	lockdep_assert_held(&ro->lock);
	if (ro->filter != &ro->one_filter)
		kfree(ro->filter);
	if (count == 1)
		ro->one_filter = *filter;
	ro->filter = count > 1 ? filter : &ro->one_filter;
	WRITE_ONCE(ro->count, count);
}

static void raw_drop_filters(struct can_filter *filter, int count)
{
	if (count > 1)
		kfree(filter);
}

/* Under the locks of raw_lock_for_change(), which also readied duplicate
 * detection for a bound socket: its old and new filters overlap.
 */
static int raw_swap_filters(struct sock *sk, struct can_filter *filter,
			    int count)
{
	struct raw_sock *ro = raw_sk(sk);
	struct net_device *dev;
	int err;

	/* An unbound socket gets its state, if it needs any, in bind(). */
	if (!ro->bound) {
		raw_install_filters(ro, filter, count);
		return 0;
	}

	dev = raw_bound_dev(sk);
	if (IS_ERR(dev)) {
		raw_drop_filters(filter, count);
		return PTR_ERR(dev);
	}
	err = raw_subscribe(sock_net(sk), dev, sk, filter, count);
	if (err) {
		raw_drop_filters(filter, count);
	} else {
		raw_unsubscribe(sock_net(sk), dev, sk, ro->filter, ro->count);
		raw_install_filters(ro, filter, count);
	}
	dev_put(dev);
	return err;
}

/* A single filter, the common case, needs no allocation. The filters are
 * copied in before any lock is taken: a stalled user page must not hold
 * RTNL or the lock the device notifier takes under it (struct raw_sock).
 */
static int raw_set_filter(struct sock *sk, sockptr_t optval,
			  unsigned int optlen)
{
	struct can_filter single, *filter = &single;
	int count, err;

	if (optlen % sizeof(struct can_filter) ||
	    optlen > CAN_RAW_FILTER_MAX * sizeof(struct can_filter))
		return -EINVAL;

	count = optlen / sizeof(struct can_filter);
	if (count == 1 && copy_from_sockptr(&single, optval, optlen))
		return -EFAULT;
	if (count > 1)
		filter = memdup_sockptr(optval, optlen);
	if (IS_ERR(filter))
		return PTR_ERR(filter);

	err = raw_lock_for_change(sk, false);
	if (err) {
		raw_drop_filters(filter, count);
		return err;
	}
	err = raw_swap_filters(sk, filter, count);
	raw_unlock_change(sk);
	return err;
}

/* The error classes a CAN_RAW_STATE_EVENTS socket subscribes to. */
#define RAW_STATE_CLASSES (CAN_ERR_CRTL | CAN_ERR_BUSOFF | CAN_ERR_RESTARTED)

/* The error subscription follows the error filter and the state events
 * switch; @asked or @state_events NULL keeps the current one. A bound
 * socket subscribes anew before it drops the old subscription, so that
 * no error frame is missed meanwhile.
 */
static int raw_change_errors(struct sock *sk, const can_err_mask_t *asked,
			     const int *state_events)
{
	struct raw_sock *ro = raw_sk(sk);
	struct net_device *dev = NULL;
	can_err_mask_t mask, new_asked;
	int err, new_events;

	err = raw_lock_for_change(sk, false);
	if (err)
		return err;
	new_asked = asked ? *asked : ro->asked_err_mask;
	new_events = state_events ? *state_events : ro->state_events;
	mask = new_asked | (new_events ? RAW_STATE_CLASSES : 0);
	if (ro->bound && mask != ro->err_mask) {
		dev = raw_bound_dev(sk);
		if (IS_ERR(dev)) {
			err = PTR_ERR(dev);
			goto out;
		}
		err = raw_subscribe_errors(sock_net(sk), dev, sk, mask);
		if (err)
			goto put_dev;
		raw_unsubscribe_errors(sock_net(sk), dev, sk, ro->err_mask);
	}
	WRITE_ONCE(ro->err_mask, mask);
	WRITE_ONCE(ro->asked_err_mask, new_asked);
	WRITE_ONCE(ro->state_events, new_events);
put_dev:
	dev_put(dev);
out:
	raw_unlock_change(sk);
	return err;
}

static int raw_set_err_filter(struct sock *sk, sockptr_t optval,
			      unsigned int optlen)
{
	can_err_mask_t err_mask;

	if (optlen != sizeof(err_mask))
		return -EINVAL;
	if (copy_from_sockptr(&err_mask, optval, sizeof(err_mask)))
		return -EFAULT;
	/* Only the class bits mean anything in an error filter. */
	err_mask = err_mask & CAN_ERR_MASK;
	return raw_change_errors(sk, &err_mask, NULL);
}

static int raw_set_state_events(struct sock *sk, sockptr_t optval,
				unsigned int optlen)
{
	int val, err;

	err = raw_copy_int(optval, optlen, &val);
	if (err)
		return err;
	val = !!val;
	return raw_change_errors(sk, NULL, &val);
}

/* The transmit options of ours. A flag reads back as 0 or 1; the
 * deadline takes any value, in microseconds. sendmsg() and poll() read
 * them without locks, see struct raw_sock.
 */
static int raw_set_tx_option(struct sock *sk, int optname, sockptr_t optval,
			     unsigned int optlen)
{
	struct raw_sock *ro = raw_sk(sk);
	u32 deadline;
	int val, err;

	if (optname == CAN_RAW_TX_DEADLINE) {
		if (optlen != sizeof(deadline))
			return -EINVAL;
		if (copy_from_sockptr(&deadline, optval, sizeof(deadline)))
			return -EFAULT;
		WRITE_ONCE(ro->tx_deadline_us, deadline);
		return 0;
	}
	err = raw_copy_int(optval, optlen, &val);
	if (err)
		return err;
	if (optname == CAN_RAW_TX_WAIT) {
		WRITE_ONCE(ro->tx_wait, !!val);
		WRITE_ONCE(ro->tx_wait_poll, !!val);
	} else if (optname == CAN_RAW_TX_REPORT) {
		WRITE_ONCE(ro->tx_report, !!val);
	} else {
		WRITE_ONCE(ro->tx_flush_bus_off, !!val);
	}
	return 0;
}

/* The value of one of them, or of the lost report count. */
static u32 raw_get_tx_option(struct raw_sock *ro, int optname)
{
	switch (optname) {
	case CAN_RAW_TX_WAIT:
		return READ_ONCE(ro->tx_wait);
	case CAN_RAW_TX_REPORT:
		return READ_ONCE(ro->tx_report);
	case CAN_RAW_TX_DEADLINE:
		return READ_ONCE(ro->tx_deadline_us);
	case CAN_RAW_TX_FLUSH_BUS_OFF:
		return READ_ONCE(ro->tx_flush_bus_off);
	}
	return atomic_read(&ro->tx_reports_lost);
}

/* Options that are a plain int flag of the socket. */
static int *raw_int_option(struct raw_sock *ro, int optname)
{
	switch (optname) {
	case CAN_RAW_LOOPBACK:
		return &ro->loopback;
	case CAN_RAW_RECV_OWN_MSGS:
		return &ro->recv_own_msgs;
	case CAN_RAW_FD_FRAMES:
		return &ro->fd_frames;
	case CAN_RAW_XL_FRAMES:
		return &ro->xl_frames;
	case CAN_RAW_JOIN_FILTERS:
		return &ro->join_filters;
	}
	return NULL;
}

static int raw_set_flag(struct sock *sk, int optname, sockptr_t optval,
			unsigned int optlen)
{
	struct raw_sock *ro = raw_sk(sk);
	int val, err;

	err = raw_copy_int(optval, optlen, &val);
	if (err)
		return err;

	lock_sock(sk);
	/* CAN XL sockets take CAN FD frames too; FD cannot be dropped then. */
	if (optname == CAN_RAW_FD_FRAMES && ro->xl_frames && !val) {
		err = -EINVAL;
	} else {
		WRITE_ONCE(*raw_int_option(ro, optname), val);
		if (optname == CAN_RAW_XL_FRAMES && val)
			WRITE_ONCE(ro->fd_frames, val);
	}
	release_sock(sk);
	return err;
}

int raw_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen)
{
	struct sock *sk = sock->sk;

	if (level != SOL_CAN_RAW)
		return -EINVAL;

	switch (optname) {
	case CAN_RAW_FILTER:
		return raw_set_filter(sk, optval, optlen);
	case CAN_RAW_ERR_FILTER:
		return raw_set_err_filter(sk, optval, optlen);
	case CAN_RAW_STATE_EVENTS:
		return raw_set_state_events(sk, optval, optlen);
	case CAN_RAW_TX_WAIT:
	case CAN_RAW_TX_REPORT:
	case CAN_RAW_TX_DEADLINE:
	case CAN_RAW_TX_FLUSH_BUS_OFF:
		return raw_set_tx_option(sk, optname, optval, optlen);
	}
	if (raw_int_option(raw_sk(sk), optname))
		return raw_set_flag(sk, optname, optval, optlen);
	return -ENOPROTOOPT;
}

/* A snapshot of the filters, taken under @ro->lock so that the copy to
 * user space can happen after it is released. NULL with *size 0 when
 * there are none; ERR_PTR(-ENOMEM).
 */
static struct can_filter *raw_copy_filters(struct sock *sk, int *size)
{
	struct raw_sock *ro = raw_sk(sk);
	struct can_filter *copy = NULL;

	mutex_lock(&ro->lock);
	*size = ro->count * sizeof(struct can_filter);
	if (*size)
		copy = kmemdup(ro->filter, *size, GFP_KERNEL) ?: ERR_PTR(-ENOMEM);
	mutex_unlock(&ro->lock);
	return copy;
}

/* A buffer too small for all filters gets -ERANGE, and the size needed is
 * written to *optlen so that the caller can retry. No user memory is
 * touched under a lock (see raw_set_filter()).
 */
static int raw_get_filter(struct sock *sk, char __user *optval,
			  int __user *optlen, int len)
{
	struct can_filter *copy;
	int size, err = 0;

	copy = raw_copy_filters(sk, &size);
	if (IS_ERR(copy))
		return PTR_ERR(copy);
	if (len < size)
		err = put_user(size, optlen) ? -EFAULT : -ERANGE;
	else if (copy_to_user(optval, copy, size) || put_user(size, optlen))
		err = -EFAULT;
	kfree(copy);
	return err;
}

/* Copy at most @len bytes of a value of @size bytes, as sockets do. */
static int raw_put_value(const void *val, int size, char __user *optval,
			 int __user *optlen, int len)
{
	len = min(len, size);
	if (put_user(len, optlen) || copy_to_user(optval, val, len))
		return -EFAULT;
	return 0;
}

/* The size of the caller's buffer. A wrong level is reported before
 * *optlen is read, as mainline does.
 */
static int raw_read_optlen(int level, int __user *optlen, int *len)
{
	if (level != SOL_CAN_RAW)
		return -EINVAL;
	if (get_user(*len, optlen))
		return -EFAULT;
	return *len >= 0 ? 0 : -EINVAL;
}

int raw_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen)
{
	struct raw_sock *ro = raw_sk(sock->sk);
	int *flag;
	int len, err;

	err = raw_read_optlen(level, optlen, &len);
	if (err)
		return err;

	if (optname == CAN_RAW_FILTER)
		return raw_get_filter(sock->sk, optval, optlen, len);
	if (optname == CAN_RAW_ERR_FILTER)
		return raw_put_value(&ro->asked_err_mask,
				     sizeof(ro->asked_err_mask),
				     optval, optlen, len);
	if (optname == CAN_RAW_STATE_EVENTS)
		return raw_put_value(&ro->state_events,
				     sizeof(ro->state_events),
				     optval, optlen, len);
	if (optname >= CAN_RAW_TX_WAIT && optname <= CAN_RAW_TX_REPORTS_LOST) {
		u32 val = raw_get_tx_option(ro, optname);

		return raw_put_value(&val, sizeof(val), optval, optlen, len);
	}
	if (optname == CAN_RAW_BUS_STATE)
		return raw_get_bus_state(sock->sk, optval, optlen, len);

	flag = raw_int_option(ro, optname);
	if (!flag)
		return -ENOPROTOOPT;
	return raw_put_value(flag, sizeof(*flag), optval, optlen, len);
}
