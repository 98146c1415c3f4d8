// SPDX-License-Identifier: GPL-2.0
/* CAN_RAW: sockets that send and receive whole CAN frames. Each socket
 * subscribes to the frames its filters select on one interface or on all
 * of them; what it sends goes out unchanged and, unless switched off, is
 * looped back to the other local sockets.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/can.h>
#include <linux/can/core.h>
#include <linux/can/error.h>
#include <linux/can/raw.h>
#include <linux/can/skb.h>
#include <linux/errqueue.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "raw-priv.h"

MODULE_DESCRIPTION("PF_CAN raw protocol");
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The CAN stack developers");
MODULE_ALIAS("can-proto-" __stringify(CAN_RAW));

/* Sockets bound to one device, so that the device notifier finds those of
 * a device that goes down or away without touching any other socket.
 * Changed and walked only under rtnl_lock(): by bind(), by release() and
 * by the notifier itself; changes also hold the socket's raw_sock.lock.
 */
static LIST_HEAD(raw_bound_sockets);

/* Source address and message flags of a queued frame live in skb->cb. */
struct raw_rx_info {
	struct sockaddr_can addr;
	unsigned int msg_flags;
};

static struct raw_rx_info *raw_rx_info(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct raw_rx_info) > sizeof(skb->cb));
	return (struct raw_rx_info *)skb->cb;
}

/* Whether this delivery of @skb is the one that reaches the socket. */
static bool raw_first_delivery(struct raw_sock *ro, const struct sk_buff *skb)
{
	struct raw_last_frame __percpu *pcpu = READ_ONCE(ro->last);
	struct raw_last_frame *last;
	int skbcnt;

	/* No state: the socket has one subscription, so one delivery. */
	if (!pcpu)
		return true;
	last = this_cpu_ptr(pcpu);
	skbcnt = can_skb_prv((struct sk_buff *)skb)->skbcnt;
	if (last->skb != skb || last->skbcnt != skbcnt) {
		last->skb = skb;
		last->skbcnt = skbcnt;
		last->matches = 1;
		return !READ_ONCE(ro->join_filters) || READ_ONCE(ro->count) <= 1;
	}
	if (!READ_ONCE(ro->join_filters))
		return false;
	return ++last->matches == READ_ONCE(ro->count);
}

/* Whether the socket asked for frames of this type: FD frames need
 * CAN_RAW_FD_FRAMES, XL frames CAN_RAW_XL_FRAMES. The type is the
 * protocol the core checked; by size alone, a 4-byte XL frame would
 * pass for a classic one.
 */
static bool raw_takes_frame_type(const struct raw_sock *ro,
				 const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_CANXL))
		return READ_ONCE(ro->xl_frames);
	if (skb->protocol == htons(ETH_P_CANFD))
		return READ_ONCE(ro->fd_frames);
	return true;
}

/* Receive callback, see can_rx_func_t: softirq context, under RCU. */
/* An error frame that tells a change of the controller's state:
 * bus-off, restarted, or a CRTL frame with the state bits of data[1].
 */
static bool raw_is_state_change(const struct sk_buff *skb)
{
	const struct can_frame *cf = (const struct can_frame *)skb->data;
	const u8 state_bits = CAN_ERR_CRTL_RX_WARNING | CAN_ERR_CRTL_TX_WARNING |
			      CAN_ERR_CRTL_RX_PASSIVE | CAN_ERR_CRTL_TX_PASSIVE |
			      CAN_ERR_CRTL_ACTIVE;

	if (cf->can_id & (CAN_ERR_BUSOFF | CAN_ERR_RESTARTED))
		return true;
	return (cf->can_id & CAN_ERR_CRTL) && skb->len >= CAN_MTU &&
	       (cf->data[1] & state_bits);
}

/* The subscription also takes the state classes for CAN_RAW_STATE_EVENTS:
 * of those, only state changes pass unless the error filter asked for
 * the class.
 */
static bool raw_wants_error_frame(const struct raw_sock *ro,
				  const struct sk_buff *skb)
{
	canid_t id = ((const struct can_frame *)skb->data)->can_id;

	/* Without the option the subscriptions are mainline's: take all. */
	if (!READ_ONCE(ro->state_events))
		return true;
	if (!can_is_can_skb(skb) || !(id & CAN_ERR_FLAG))
		return true;
	if (id & READ_ONCE(ro->asked_err_mask))
		return true;
	return raw_is_state_change(skb);
}

void raw_rcv(struct sk_buff *oskb, void *data)
{
	struct sock *sk = data;
	struct raw_sock *ro = raw_sk(sk);
	unsigned int msg_flags = 0;
	struct raw_rx_info *info;
	struct sk_buff *skb;
	int err;

	if (oskb->sk == sk && !READ_ONCE(ro->recv_own_msgs))
		return;
	if (!raw_takes_frame_type(ro, oskb))
		return;
	if (!raw_wants_error_frame(ro, oskb))
		return;
	if (!raw_first_delivery(ro, oskb))
		return;

	/* The flags come from the sender, which queueing forgets. */
	if (oskb->sk)
		msg_flags |= MSG_DONTROUTE;
	if (oskb->sk == sk)
		msg_flags |= MSG_CONFIRM;

	/* From here on, @oskb may be @skb: ours alone. */
	skb = can_rx_skb_get(oskb);
	if (!skb) {
		atomic_inc(&sk->sk_drops);
		return;
	}

	info = raw_rx_info(skb);
	memset(info, 0, sizeof(*info));
	info->addr.can_family = AF_CAN;
	info->addr.can_ifindex = skb->dev->ifindex;
	info->msg_flags = msg_flags;

	err = sock_queue_rcv_skb(sk, skb);
	if (err < 0) {
		can_sock_rx_dropped(skb->dev, err);
		kfree_skb(skb);
	}
}

/* ---- filter registration ---- */

void raw_unsubscribe(struct net *net, struct net_device *dev,
		     struct sock *sk, const struct can_filter *filter,
		     int count)
{
	ASSERT_RTNL();
	lockdep_assert_held(&raw_sk(sk)->lock);
	while (count--)
		can_rx_unregister(net, dev, filter[count].can_id,
				  filter[count].can_mask, raw_rcv, sk);
}

int raw_subscribe(struct net *net, struct net_device *dev,
		  struct sock *sk, const struct can_filter *filter,
		  int count)
{
	int i, err;

	ASSERT_RTNL();
	lockdep_assert_held(&raw_sk(sk)->lock);
	for (i = 0; i < count; i++) {
		err = can_rx_register_types(net, dev, filter[i].can_id,
					    filter[i].can_mask, raw_rcv, sk,
					    "raw", sk, CAN_RX_TYPES_ANY);
		if (err) {
			raw_unsubscribe(net, dev, sk, filter, i);
			return err;
		}
	}
	return 0;
}

int raw_subscribe_errors(struct net *net, struct net_device *dev,
			 struct sock *sk, can_err_mask_t err_mask)
{
	ASSERT_RTNL();
	lockdep_assert_held(&raw_sk(sk)->lock);
	if (!err_mask)
		return 0;
	return can_rx_register_types(net, dev, 0, err_mask | CAN_ERR_FLAG,
				     raw_rcv, sk, "raw", sk, CAN_RX_TYPES_ANY);
}

void raw_unsubscribe_errors(struct net *net, struct net_device *dev,
			    struct sock *sk, can_err_mask_t err_mask)
{
	ASSERT_RTNL();
	lockdep_assert_held(&raw_sk(sk)->lock);
	if (err_mask)
		can_rx_unregister(net, dev, 0, err_mask | CAN_ERR_FLAG,
				  raw_rcv, sk);
}

static int raw_subscribe_all(struct net *net, struct net_device *dev,
			     struct sock *sk)
{
	struct raw_sock *ro = raw_sk(sk);
	int err;

	err = raw_subscribe(net, dev, sk, ro->filter, ro->count);
	if (err)
		return err;
	err = raw_subscribe_errors(net, dev, sk, ro->err_mask);
	if (err)
		raw_unsubscribe(net, dev, sk, ro->filter, ro->count);
	return err;
}

static void raw_unsubscribe_all(struct net *net, struct net_device *dev,
				struct sock *sk)
{
	struct raw_sock *ro = raw_sk(sk);

	raw_unsubscribe(net, dev, sk, ro->filter, ro->count);
	raw_unsubscribe_errors(net, dev, sk, ro->err_mask);
}

/* The device the socket is bound to, with a reference, or NULL when bound
 * to all devices. -ENODEV if the bound device is gone. The caller holds
 * rtnl_lock(), which keeps the binding and the device's index stable.
 */
struct net_device *raw_bound_dev(struct sock *sk)
{
	struct raw_sock *ro = raw_sk(sk);
	struct net_device *dev;

	ASSERT_RTNL();
	if (!ro->ifindex)
		return NULL;
	dev = dev_get_by_index(sock_net(sk), ro->ifindex);
	return dev ?: ERR_PTR(-ENODEV);
}

/* The caller holds rtnl_lock() and @ro->lock. */
static void raw_free_filters(struct raw_sock *ro)
{
	ASSERT_RTNL();
	lockdep_assert_held(&ro->lock);
	if (ro->filter != &ro->one_filter)
		kfree(ro->filter);
	ro->filter = &ro->one_filter;
	WRITE_ONCE(ro->count, 0);
}

/* Take poll()'s entry out of the bound device's TX wait queue, under
 * @ro->lock. The binding still holds, so the device is still there: the
 * notifier unbinds a socket before its device goes.
 */
static void raw_tx_room_forget(struct raw_sock *ro)
{
	lockdep_assert_held(&ro->lock);
	if (!ro->tx_room_dev)
		return;
	can_tx_poll_del(ro->tx_room_dev, &ro->tx_room);
	ro->tx_room_dev = NULL;
}

/* Record a binding the caller has subscribed for; under rtnl_lock() and
 * @ro->lock. A socket bound to one device joins the notifier's list.
 */
static void raw_set_bound(struct raw_sock *ro, int ifindex)
{
	ASSERT_RTNL();
	lockdep_assert_held(&ro->lock);
	raw_tx_room_forget(ro);
	list_del_init(&ro->node);
	if (ifindex)
		list_add_tail(&ro->node, &raw_bound_sockets);
	WRITE_ONCE(ro->ifindex, ifindex);
	WRITE_ONCE(ro->bound, true);
}

/* Forget the binding, under rtnl_lock() and @ro->lock; the caller
 * has dropped the subscriptions.
 */
static void raw_unbind(struct raw_sock *ro)
{
	ASSERT_RTNL();
	lockdep_assert_held(&ro->lock);
	raw_tx_room_forget(ro);
	list_del_init(&ro->node);
	WRITE_ONCE(ro->ifindex, 0);
	WRITE_ONCE(ro->bound, false);
}

/* ---- device notifier ---- */

/* Whether @ro is bound to @dev. Every binding changes under rtnl_lock(),
 * which the notifier holds, so this needs no other lock.
 */
static bool raw_is_bound_to(const struct raw_sock *ro,
			    const struct net_device *dev)
{
	ASSERT_RTNL();
	return ro->bound && ro->ifindex == dev->ifindex &&
	       net_eq(sock_net(&ro->sk), dev_net(dev));
}

/* The device went away: drop its subscriptions and the binding. The
 * socket is on the notifier's list, so release() has not begun to tear
 * it down (it leaves the list first, under rtnl_lock()). Only @ro->lock
 * is taken, never the socket lock: the socket core holds that one while
 * it copies from user memory (SO_ATTACH_FILTER), which a user can stall
 * for as long as they like, and we hold RTNL.
 */
static void raw_dev_unregistered(struct sock *sk, struct net_device *dev)
{
	struct raw_sock *ro = raw_sk(sk);

	mutex_lock(&ro->lock);
	raw_unsubscribe_all(dev_net(dev), dev, sk);
	raw_free_filters(ro);
	raw_unbind(ro);
	WRITE_ONCE(sk->sk_err, ENODEV);
	mutex_unlock(&ro->lock);
	sk_error_report(sk);
}

/* Only an error to report: no socket state changes, so no lock. */
static void raw_dev_down(struct sock *sk)
{
	WRITE_ONCE(sk->sk_err, ENETDOWN);
	sk_error_report(sk);
}

/* Any device type: one that stopped being CAN since the socket bound to it
 * still has the socket's subscriptions to drop when it unregisters.
 */
static int raw_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct raw_sock *ro, *next;

	if (event != NETDEV_UNREGISTER && event != NETDEV_DOWN)
		return NOTIFY_DONE;

	list_for_each_entry_safe(ro, next, &raw_bound_sockets, node) {
		if (!raw_is_bound_to(ro, dev))
			continue;
		if (event == NETDEV_UNREGISTER)
			raw_dev_unregistered(&ro->sk, dev);
		else
			raw_dev_down(&ro->sk);
	}
	return NOTIFY_DONE;
}

static struct notifier_block raw_netdev_notifier = {
	.notifier_call = raw_netdev_event,
};

/* ---- socket life cycle ---- */

static void raw_sock_destruct(struct sock *sk)
{
	can_sock_destruct(sk);
	free_percpu(raw_sk(sk)->last);
	mutex_destroy(&raw_sk(sk)->lock);
}

static bool raw_repeats_tracked(const struct raw_sock *ro)
{
	/* Pairs with the release in raw_track_repeats(): once this reads
	 * true, the grace period after the state was published has ended.
	 */
	return smp_load_acquire(&ro->tracks_repeats);
}

/**
 * raw_track_repeats() - let raw_rcv() recognise a frame it saw already
 * @sk: the socket
 *
 * A frame reaches a socket once per subscription it matches. A socket
 * with a single subscription (one filter, no error mask) cannot get a
 * frame twice, and raw_rcv() keeps no state for it: that spares most
 * sockets a per-CPU allocation. A socket binding with more subscriptions
 * can: even one filter and an error mask both match an error frame if
 * the filter has CAN_ERR_FLAG in its mask. So can the old and the new
 * subscriptions of a bound socket while it changes them (the new ones
 * come first, so that no frame is missed). Before either happens the
 * socket gets per-CPU state, which it keeps.
 *
 * A frame may be in delivery that saw no state yet; a grace period lets
 * it finish before the caller subscribes. That wait happens here, before
 * the caller takes rtnl_lock() or @ro->lock: a normal grace period,
 * not an expedited one, and no lock that others need is held meanwhile.
 * Racing callers publish one state (the first cmpxchg wins), and each
 * waits for a grace period that began after it was published.
 *
 * Context: process, no locks held. May sleep.
 * Return: 0 or -ENOMEM.
 */
static int raw_track_repeats(struct sock *sk)
{
	struct raw_sock *ro = raw_sk(sk);
	struct raw_last_frame __percpu *last;

	might_sleep();
	if (raw_repeats_tracked(ro))
		return 0;
	if (!READ_ONCE(ro->last)) {
		last = alloc_percpu(struct raw_last_frame);
		if (!last)
			return -ENOMEM;
		/* raw_rcv() must see the zeroed state behind the pointer. */
		if (cmpxchg_release(&ro->last, NULL, last))
			free_percpu(last);
	}
	synchronize_rcu();
	/* Only after the wait: see raw_repeats_tracked(). */
	smp_store_release(&ro->tracks_repeats, true);
	return 0;
}

/* More than one subscription once bound: see raw_track_repeats(). */
static bool raw_may_repeat(const struct raw_sock *ro)
{
	return READ_ONCE(ro->count) + !!READ_ONCE(ro->err_mask) > 1;
}

/* Whether a change of binding or filters needs raw_track_repeats(). Read
 * without locks first, then again under them.
 */
static bool raw_change_may_repeat(const struct raw_sock *ro, bool binding)
{
	/* The old and the new subscriptions of a bound socket overlap. */
	if (READ_ONCE(ro->bound))
		return true;
	return binding && raw_may_repeat(ro);
}

/**
 * raw_lock_for_change() - lock a socket to change its binding or filters
 * @sk: the socket
 * @binding: the change is a bind(), which subscribes every filter
 *
 * Takes rtnl_lock() and the socket's raw_sock.lock, in that order (never
 * the socket lock, see struct raw_sock), with duplicate
 * detection ready if the change needs it (raw_track_repeats()). The state
 * is prepared before the locks are taken; should the socket have changed
 * meanwhile so that it needs the state after all, the locks are dropped
 * and the state prepared. That repeats at most once: the state stays.
 *
 * Context: process, no locks held. May sleep.
 * Return: 0 with both locks held, or -ENOMEM with neither.
 */
int raw_lock_for_change(struct sock *sk, bool binding)
{
	struct raw_sock *ro = raw_sk(sk);
	int err;

	for (;;) {
		if (raw_change_may_repeat(ro, binding)) {
			err = raw_track_repeats(sk);
			if (err)
				return err;
		}
		rtnl_lock();
		mutex_lock(&ro->lock);
		if (raw_repeats_tracked(ro) ||
		    !raw_change_may_repeat(ro, binding))
			return 0;
		raw_unlock_change(sk);
	}
}

/* Undo raw_lock_for_change(). */
void raw_unlock_change(struct sock *sk)
{
	mutex_unlock(&raw_sk(sk)->lock);
	rtnl_unlock();
}

/* The bound device reported TX room: wake the socket's pollers. Called
 * under the device's TX wait queue lock, in the context of can_tx_room().
 */
static int raw_tx_room_wake(struct wait_queue_entry *entry, unsigned int mode,
			    int sync, void *key)
{
	struct raw_sock *ro = container_of(entry, struct raw_sock, tx_room);
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(ro->sk.sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_poll(&wq->wait, EPOLLOUT | EPOLLWRNORM |
					   EPOLLWRBAND);
	rcu_read_unlock();
	return 0;
}

/* A new socket receives every frame of every interface once bound. */
static int raw_init(struct sock *sk)
{
	struct raw_sock *ro = raw_sk(sk);

	mutex_init(&ro->lock);
	ro->last = NULL;
	ro->tracks_repeats = false;
	INIT_LIST_HEAD(&ro->node);
	init_waitqueue_func_entry(&ro->tx_room, raw_tx_room_wake);
	INIT_LIST_HEAD(&ro->tx_room.entry);
	ro->tx_room_dev = NULL;
	ro->tx_wait = raw_tx_wait_default(sock_net(sk));
	ro->tx_wait_poll = 0;
	sk->sk_destruct = raw_sock_destruct;

	ro->loopback = 1;
	ro->one_filter.can_id = 0;
	ro->one_filter.can_mask = 0;
	ro->filter = &ro->one_filter;
	ro->count = 1;
	return 0;
}

/* Drop the subscriptions, then leave the notifier's list, both under
 * rtnl_lock(): until we hold it the notifier still sees the socket and
 * unbinds it if its device goes away, and once we hold it the device found
 * by the bound index is the one subscribed on, not a later device that
 * reused the index. Frames already being delivered may still reach
 * raw_rcv(): the core holds the socket until they are done, and the
 * per-CPU state goes with the socket's last reference. The socket lock,
 * for orphaning, is taken only after RTNL is dropped.
 */
static int raw_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct raw_sock *ro;
	struct net_device *dev;

	if (!sk)
		return 0;
	ro = raw_sk(sk);

	rtnl_lock();
	mutex_lock(&ro->lock);
	if (ro->bound) {
		dev = raw_bound_dev(sk);
		if (!IS_ERR(dev)) {
			raw_unsubscribe_all(sock_net(sk), dev, sk);
			dev_put(dev);
		}
	}
	raw_free_filters(ro);
	raw_unbind(ro);
	mutex_unlock(&ro->lock);
	rtnl_unlock();

	lock_sock(sk);
	sock->sk = NULL;
	sock_orphan(sk);
	release_sock(sk);

	sock_put(sk);
	return 0;
}

/* The CAN device @ifindex of the socket's namespace, with a reference. */
static struct net_device *raw_get_can_dev(struct sock *sk, int ifindex)
{
	struct net_device *dev = dev_get_by_index(sock_net(sk), ifindex);

	if (dev && dev->type != ARPHRD_CAN) {
		dev_put(dev);
		dev = NULL;
	}
	return dev;
}

static int raw_bind(struct socket *sock, struct sockaddr *uaddr, int len)
{
	struct sockaddr_can *addr = (struct sockaddr_can *)uaddr;
	struct sock *sk = sock->sk;
	struct raw_sock *ro = raw_sk(sk);
	struct net_device *dev = NULL, *old_dev;
	int ifindex, err = 0;
	bool is_down = false;

	if (len < RAW_MIN_NAMELEN || addr->can_family != AF_CAN)
		return -EINVAL;
	ifindex = addr->can_ifindex;

	err = raw_lock_for_change(sk, true);
	if (err)
		return err;
	if (ro->bound && ro->ifindex == ifindex)
		goto unlock;

	if (ifindex) {
		dev = raw_get_can_dev(sk, ifindex);
		if (!dev) {
			err = -ENODEV;
			goto unlock;
		}
		is_down = !(dev->flags & IFF_UP);
	}

	err = raw_subscribe_all(sock_net(sk), dev, sk);
	if (err)
		goto unlock;

	if (ro->bound) {
		old_dev = raw_bound_dev(sk);
		if (!IS_ERR(old_dev)) {
			raw_unsubscribe_all(sock_net(sk), old_dev, sk);
			dev_put(old_dev);
		}
	}
	raw_set_bound(ro, ifindex);

unlock:
	dev_put(dev);
	raw_unlock_change(sk);

	/* Bound to a device that is down: tell the user at once. */
	if (is_down && !err) {
		sk->sk_err = ENETDOWN;
		sk_error_report(sk);
	}
	return err;
}

static int raw_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_can *addr = (struct sockaddr_can *)uaddr;

	if (peer)
		return -EOPNOTSUPP;

	memset(addr, 0, RAW_MIN_NAMELEN);
	addr->can_family = AF_CAN;
	addr->can_ifindex = READ_ONCE(raw_sk(sock->sk)->ifindex);
	return RAW_MIN_NAMELEN;
}

/* ---- data ---- */

/* Whether a device of this MTU carries CAN FD frames: CAN FD and CAN XL
 * devices do.
 */
static bool raw_dev_takes_fd(const struct net_device *dev)
{
	return dev->mtu == CANFD_MTU || can_is_canxl_dev_mtu(dev->mtu);
}

/* Whether a frame of this size may go out from this socket on @dev: FD
 * and XL frames need the socket's option and a device that carries them.
 * XL frames pass with any flags and priority, as in mainline.
 */
static bool raw_frame_allowed(const struct raw_sock *ro, struct sk_buff *skb,
			      const struct net_device *dev)
{
	if (can_is_can_skb(skb))
		return true;
	if (can_is_canfd_skb(skb))
		return READ_ONCE(ro->fd_frames) && raw_dev_takes_fd(dev);
	return READ_ONCE(ro->xl_frames) && can_is_canxl_dev_mtu(dev->mtu) &&
	       can_is_canxl_skb(skb);
}

/* No frame of any kind has this size: rejected before the address is
 * looked at, as mainline does.
 */
static bool raw_size_is_impossible(size_t size)
{
	return size < CANXL_HDR_SIZE + CANXL_MIN_DLEN || size > CANXL_MTU;
}

/* The interface a message goes to: its address, else the binding. Any
 * index is passed on: only the device lookup can tell a valid one, and
 * the index must never become the return value.
 */
static int raw_dest_ifindex(struct sock *sk, struct msghdr *msg, int *ifindex)
{
	DECLARE_SOCKADDR(struct sockaddr_can *, addr, msg->msg_name);

	if (!addr) {
		*ifindex = READ_ONCE(raw_sk(sk)->ifindex);
		return 0;
	}
	if (msg->msg_namelen < RAW_MIN_NAMELEN || addr->can_family != AF_CAN)
		return -EINVAL;
	*ifindex = addr->can_ifindex;
	return 0;
}

/* An empty frame of @size bytes for @dev, charged to the socket. */
static struct sk_buff *raw_alloc_skb(struct sock *sk, size_t size,
				     struct net_device *dev, bool nonblock,
				     int *err)
{
	struct sk_buff *skb;

	skb = sock_alloc_send_skb(sk, size + sizeof(struct can_skb_priv),
				  nonblock, err);
	if (!skb)
		return NULL;

	can_skb_reserve(skb);
	can_skb_prv(skb)->ifindex = dev->ifindex;
	can_skb_prv(skb)->skbcnt = 0;
	return skb;
}

static struct sk_buff *raw_build_skb(struct sock *sk, struct msghdr *msg,
				     size_t size, struct net_device *dev,
				     int *err)
{
	struct sockcm_cookie sockc;
	struct sk_buff *skb;

	skb = raw_alloc_skb(sk, size, dev, msg->msg_flags & MSG_DONTWAIT, err);
	if (!skb)
		return NULL;

	*err = memcpy_from_msg(skb_put(skb, size), msg, size);
	if (*err)
		goto free_skb;
	*err = -EINVAL;
	if (!raw_frame_allowed(raw_sk(sk), skb, dev))
		goto free_skb;

	sockcm_init(&sockc, sk);
	if (msg->msg_controllen) {
		*err = sock_cmsg_send(sk, msg, &sockc);
		if (*err)
			goto free_skb;
	}

	skb->dev = dev;
	skb->priority = sk->sk_priority;
	skb->mark = READ_ONCE(sk->sk_mark);
	skb->tstamp = sockc.transmit_time;
	skb_setup_tx_timestamp(skb, sockc.tsflags);
	return skb;

free_skb:
	kfree_skb(skb);
	return NULL;
}

/* A sent frame as raw_build_skb() made it, to make it again after the
 * queue dropped it (CAN_RAW_TX_WAIT): the user's memory is not read
 * twice, so the frame cannot change between attempts.
 */
struct raw_tx_copy {
	void *data;
	unsigned int len;
	u8 small[CANFD_MTU];
	ktime_t tstamp;
	u32 priority;
	u32 mark;
	u32 tskey;
	u8 tx_flags;
};

static int raw_tx_save(struct raw_tx_copy *copy, const struct sk_buff *skb)
{
	copy->len = skb->len;
	copy->data = copy->small;
	if (skb->len > sizeof(copy->small)) {
		copy->data = kmalloc(skb->len, GFP_KERNEL);
		if (!copy->data)
			return -ENOMEM;
	}
	memcpy(copy->data, skb->data, skb->len);
	copy->tstamp = skb->tstamp;
	copy->priority = skb->priority;
	copy->mark = skb->mark;
	copy->tskey = skb_shinfo(skb)->tskey;
	copy->tx_flags = skb_shinfo(skb)->tx_flags;
	return 0;
}

static void raw_tx_free(struct raw_tx_copy *copy)
{
	if (copy->data != copy->small)
		kfree(copy->data);
}

/* The saved frame as a new skb, with the same timestamp key. */
static struct sk_buff *raw_tx_rebuild(struct sock *sk, struct net_device *dev,
				      const struct raw_tx_copy *copy, int *err)
{
	struct sk_buff *skb;

	skb = raw_alloc_skb(sk, copy->len, dev, false, err);
	if (!skb)
		return NULL;
	skb_put_data(skb, copy->data, copy->len);
	skb->dev = dev;
	skb->priority = copy->priority;
	skb->mark = copy->mark;
	skb->tstamp = copy->tstamp;
	skb_shinfo(skb)->tskey = copy->tskey;
	skb_shinfo(skb)->tx_flags = copy->tx_flags;
	return skb;
}

/* What the frames of @sk are tracked for (CAN_RAW_TX_REPORT, _DEADLINE,
 * _FLUSH_BUS_OFF), read once per write. Return: false if for nothing.
 */
static bool raw_tx_tracking(struct sock *sk, struct can_tx_report_args *args)
{
	struct raw_sock *ro = raw_sk(sk);

	*args = (struct can_tx_report_args) {
		.next_seq = &ro->tx_seq,
		.deadline_us = READ_ONCE(ro->tx_deadline_us),
		.report = READ_ONCE(ro->tx_report),
		.flush_bus_off = READ_ONCE(ro->tx_flush_bus_off),
		.lost = &ro->tx_reports_lost,
	};
	return args->report || args->deadline_us || args->flush_bus_off;
}

/* A tracker on @skb if @args asks for one, else NULL; an ERR_PTR with
 * @skb freed if memory ran out.
 */
static struct can_tx_report *raw_tx_track(struct sk_buff *skb,
					  struct can_tx_report_args *args)
{
	struct can_tx_report *tr;

	if (!args)
		return NULL;
	tr = can_tx_report_attach(skb, args);
	if (IS_ERR(tr))
		kfree_skb(skb);
	return tr;
}

/* The report of a frame that never got into the queue: a wait for room
 * that ended without any (SO_SNDTIMEO, a signal) means the queue was full.
 */
static void raw_tx_untrack(struct can_tx_report *tr, int err)
{
	if (!tr)
		return;
	if (err == -EAGAIN || err == -ERESTARTSYS)
		err = -ENOBUFS;
	can_tx_report_sent(tr, err, false);
}

static int raw_send_once(struct sock *sk, struct sk_buff *skb,
			 struct can_tx_report_args *args)
{
	struct can_tx_report *tr = raw_tx_track(skb, args);
	int err;

	if (IS_ERR(tr))
		return PTR_ERR(tr);
	err = can_send(skb, READ_ONCE(raw_sk(sk)->loopback));
	raw_tx_untrack(tr, err);
	return err;
}

/* CAN_RAW_TX_WAIT: a frame the queue has no room for waits until it has
 * (or SO_SNDTIMEO runs out: EAGAIN, at once for a non-blocking send),
 * holding the device, which the caller has. Each attempt reads the room
 * count first, so that room reported while it fails is not missed. A
 * tracked frame keeps its number across attempts and reports once: the
 * tracker of a failed attempt is silenced only once the next one has its
 * own.
 */
static int raw_send_waiting(struct sock *sk, struct sk_buff *skb,
			    struct net_device *dev, bool nonblock,
			    struct can_tx_report_args *args)
{
	long timeo = sock_sndtimeo(sk, nonblock);
	struct can_tx_report *tr, *next_tr;
	bool saved = timeo != 0;
	struct raw_tx_copy copy;
	struct sk_buff *next;
	unsigned int seq;
	int err;

	if (saved) {
		err = raw_tx_save(&copy, skb);
		if (err) {
			kfree_skb(skb);
			return err;
		}
	}
	tr = raw_tx_track(skb, args);
	if (IS_ERR(tr)) {
		err = PTR_ERR(tr);
		goto free_copy;
	}
	for (;;) {
		seq = can_tx_room_seq(dev);
		err = can_send(skb, READ_ONCE(raw_sk(sk)->loopback));
		if (err != -ENOBUFS)
			break;
		err = can_tx_wait(dev, seq, &timeo);
		if (err)
			break;
		next = raw_tx_rebuild(sk, dev, &copy, &err);
		if (!next)
			break;
		next_tr = raw_tx_track(next, args);
		if (IS_ERR(next_tr)) {
			err = PTR_ERR(next_tr);
			break;
		}
		if (tr)
			can_tx_report_sent(tr, -ENOBUFS, true);
		tr = next_tr;
		skb = next;
	}
	raw_tx_untrack(tr, err);
free_copy:
	if (saved)
		raw_tx_free(&copy);
	return err == -ERESTARTSYS ? sock_intr_errno(timeo) : err;
}

static int raw_sendmsg(struct socket *sock, struct msghdr *msg, size_t size)
{
	struct can_tx_report_args tracking, *args = NULL;
	struct sock *sk = sock->sk;
	struct net_device *dev;
	struct sk_buff *skb;
	int ifindex, err;

	if (raw_size_is_impossible(size))
		return -EINVAL;
	err = raw_dest_ifindex(sk, msg, &ifindex);
	if (err)
		return err;

	/* Unbound without an address (0), negative or unused: no device. */
	dev = dev_get_by_index(sock_net(sk), ifindex);
	if (!dev)
		return -ENXIO;

	if (raw_tx_tracking(sk, &tracking))
		args = &tracking;
	skb = raw_build_skb(sk, msg, size, dev, &err);
	if (skb && READ_ONCE(raw_sk(sk)->tx_wait))
		err = raw_send_waiting(sk, skb, dev,
				       msg->msg_flags & MSG_DONTWAIT, args);
	else if (skb)
		err = raw_send_once(sk, skb, args);
	dev_put(dev);
	return err ?: size;
}

/* The error queue holds transmit timestamps (SO_TIMESTAMPING, as in
 * mainline) and our reports (CAN_RAW_TX_REPORT), told apart by their
 * origin; each comes with its own cmsg type.
 */
static int raw_recv_errqueue(struct sock *sk, struct msghdr *msg, size_t size)
{
	struct sock_extended_err ee;
	struct sk_buff *skb;
	size_t copied;
	int err, type;

	skb = sock_dequeue_err_skb(sk);
	if (!skb)
		return -EAGAIN;
	copied = min_t(size_t, size, skb->len);
	if (copied < skb->len)
		msg->msg_flags |= MSG_TRUNC;
	err = skb_copy_datagram_msg(skb, 0, msg, copied);
	if (err)
		goto free_skb;
	sock_recv_timestamp(msg, sk, skb);
	ee = SKB_EXT_ERR(skb)->ee;
	type = ee.ee_origin == SO_EE_ORIGIN_LOCAL ? CAN_RAW_TX_REPORT :
						    SCM_CAN_RAW_ERRQUEUE;
	put_cmsg(msg, SOL_CAN_RAW, type, sizeof(ee), &ee);
	msg->msg_flags |= MSG_ERRQUEUE;
	err = copied;
free_skb:
	kfree_skb(skb);
	return err;
}

/* Address and flags recorded by raw_rcv(), timestamps by the socket. */
static void raw_put_rx_info(struct msghdr *msg, struct sock *sk,
			    struct sk_buff *skb)
{
	struct raw_rx_info *info = raw_rx_info(skb);

	sock_recv_cmsgs(msg, sk, skb);
	msg->msg_flags |= info->msg_flags;
	if (!msg->msg_name)
		return;
	__sockaddr_check_size(RAW_MIN_NAMELEN);
	memcpy(msg->msg_name, &info->addr, RAW_MIN_NAMELEN);
	msg->msg_namelen = RAW_MIN_NAMELEN;
}

static int raw_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
		       int flags)
{
	struct sock *sk = sock->sk;
	struct sk_buff *skb;
	size_t copied;
	int err;

	if (flags & MSG_ERRQUEUE)
		return raw_recv_errqueue(sk, msg, size);

	skb = skb_recv_datagram(sk, flags, &err);
	if (!skb)
		return err;

	copied = min_t(size_t, size, skb->len);
	if (copied < skb->len)
		msg->msg_flags |= MSG_TRUNC;
	err = memcpy_to_msg(msg, skb->data, copied);
	if (!err) {
		raw_put_rx_info(msg, sk, skb);
		err = copied;
	}
	skb_free_datagram(sk, skb);
	return err;
}

/* Whether a frame sent now on the bound device would be queued; true
 * for a socket not bound to one device (it names the device per frame).
 * poll()'s entry joins the device's wait queue first, so that room
 * reported meanwhile wakes the poller.
 */
static bool raw_tx_poll_room(struct sock *sk)
{
	struct raw_sock *ro = raw_sk(sk);
	struct net_device *dev;
	bool room = true;

	mutex_lock(&ro->lock);
	if (ro->bound && ro->ifindex) {
		dev = dev_get_by_index(sock_net(sk), ro->ifindex);
		if (dev) {
			ro->tx_room_dev = dev;
			can_tx_poll_add(dev, &ro->tx_room);
			room = can_tx_has_room(dev);
			dev_put(dev);
		}
	}
	mutex_unlock(&ro->lock);
	return room;
}

/* With CAN_RAW_TX_WAIT a socket is writable only while its device has
 * room, so that a write after POLLOUT is not refused with EAGAIN. Not
 * when the option came from net.can.raw_tx_wait: a program that does not
 * know it may ask poll() with no timeout before a blocking write and take
 * a missing POLLOUT for a full queue (python-can's send() without a
 * timeout fails so); it keeps mainline's POLLOUT, and its write waits.
 */
static __poll_t raw_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	__poll_t mask = datagram_poll(file, sock, wait);

	if (!(mask & EPOLLOUT) || !READ_ONCE(raw_sk(sock->sk)->tx_wait_poll))
		return mask;
	if (!raw_tx_poll_room(sock->sk))
		mask &= ~(EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND);
	return mask;
}

/* Timestamps come through .gettstamp; no other ioctl is ours. */
static int raw_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	return -ENOIOCTLCMD;
}

static const struct proto_ops raw_ops = {
	.family		= PF_CAN,
	.owner		= THIS_MODULE,
	.bind		= raw_bind,
	.getname	= raw_getname,
	.sendmsg	= raw_sendmsg,
	.recvmsg	= raw_recvmsg,
	.setsockopt	= raw_setsockopt,
	.getsockopt	= raw_getsockopt,
	.poll		= raw_poll,
	.gettstamp	= sock_gettstamp,
	.ioctl		= raw_ioctl,
	.release	= raw_release,
	.accept		= sock_no_accept,
	.connect	= sock_no_connect,
	.listen		= sock_no_listen,
	.mmap		= sock_no_mmap,
	.shutdown	= sock_no_shutdown,
	.socketpair	= sock_no_socketpair,
};

static struct proto raw_proto __read_mostly = {
	.init		= raw_init,
	.obj_size	= sizeof(struct raw_sock),
	.owner		= THIS_MODULE,
	.name		= "CAN_RAW",
};

static const struct can_proto raw_can_proto = {
	.protocol	= CAN_RAW,
	.type		= SOCK_RAW,
	.prot		= &raw_proto,
	.ops		= &raw_ops,
};

/* The notifier and the sysctl exist before the first socket and outlive
 * the last.
 */
static int __init raw_module_init(void)
{
	int err;

	err = raw_sysctl_register();
	if (err)
		return err;

	err = register_netdevice_notifier(&raw_netdev_notifier);
	if (err)
		goto unregister_sysctl;

	err = can_proto_register(&raw_can_proto);
	if (err)
		goto unregister_notifier;
	return 0;

unregister_notifier:
	unregister_netdevice_notifier(&raw_netdev_notifier);
unregister_sysctl:
	raw_sysctl_unregister();
	return err;
}

static void __exit raw_module_exit(void)
{
	can_proto_unregister(&raw_can_proto);
	unregister_netdevice_notifier(&raw_netdev_notifier);
	raw_sysctl_unregister();
}

module_init(raw_module_init);
module_exit(raw_module_exit);
