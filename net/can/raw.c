// SPDX-License-Identifier: GPL-2.0
/* CAN_RAW: sockets that send and receive whole CAN frames. Each socket
 * subscribes to the frames its filters select on one interface or on all
 * of them; what it sends goes out unchanged and, unless switched off, is
 * looped back to the other local sockets.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/can.h>
#include <linux/can/core.h>
#include <linux/can/raw.h>
#include <linux/can/skb.h>
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

#include "raw.h"

MODULE_DESCRIPTION("PF_CAN raw protocol");
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The CAN stack developers");
MODULE_ALIAS("can-proto-" __stringify(CAN_RAW));

/* Every raw socket, so that the device notifier can find those bound to
 * a vanishing device. Process context only: socket init and release and
 * the notifier, which takes it under rtnl_lock().
 */
static LIST_HEAD(raw_sockets);
static DEFINE_MUTEX(raw_sockets_lock);

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

/* Receive callback, see can_rx_func_t: softirq context, under RCU. */
void raw_rcv(struct sk_buff *oskb, void *data)
{
	struct sock *sk = data;
	struct raw_sock *ro = raw_sk(sk);
	struct raw_rx_info *info;
	struct sk_buff *skb;

	if (oskb->sk == sk && !READ_ONCE(ro->recv_own_msgs))
		return;
	if (oskb->len != CAN_MTU && !READ_ONCE(ro->fd_frames))
		return;
	if (!raw_first_delivery(ro, oskb))
		return;

	skb = skb_clone(oskb, GFP_ATOMIC);
	if (!skb) {
		atomic_inc(&sk->sk_drops);
		return;
	}

	info = raw_rx_info(skb);
	memset(info, 0, sizeof(*info));
	info->addr.can_family = AF_CAN;
	info->addr.can_ifindex = skb->dev->ifindex;
	if (oskb->sk)
		info->msg_flags |= MSG_DONTROUTE;
	if (oskb->sk == sk)
		info->msg_flags |= MSG_CONFIRM;

	if (sock_queue_rcv_skb(sk, skb) < 0)
		kfree_skb(skb);
}

/* ---- filter registration ---- */

void raw_unsubscribe(struct net *net, struct net_device *dev,
		     struct sock *sk, const struct can_filter *filter,
		     int count)
{
	while (count--)
		can_rx_unregister(net, dev, filter[count].can_id,
				  filter[count].can_mask, raw_rcv, sk);
}

int raw_subscribe(struct net *net, struct net_device *dev,
		  struct sock *sk, const struct can_filter *filter,
		  int count)
{
	int i, err;

	for (i = 0; i < count; i++) {
		err = can_rx_register(net, dev, filter[i].can_id,
				      filter[i].can_mask, raw_rcv, sk, "raw", sk);
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
	if (!err_mask)
		return 0;
	return can_rx_register(net, dev, 0, err_mask | CAN_ERR_FLAG, raw_rcv,
			       sk, "raw", sk);
}

void raw_unsubscribe_errors(struct net *net, struct net_device *dev,
			    struct sock *sk, can_err_mask_t err_mask)
{
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
 * to all devices. -ENODEV if the bound device is gone.
 */
struct net_device *raw_bound_dev(struct sock *sk)
{
	struct raw_sock *ro = raw_sk(sk);
	struct net_device *dev;

	if (!ro->ifindex)
		return NULL;
	dev = dev_get_by_index(sock_net(sk), ro->ifindex);
	return dev ?: ERR_PTR(-ENODEV);
}

static void raw_free_filters(struct raw_sock *ro)
{
	if (ro->filter != &ro->one_filter)
		kfree(ro->filter);
	ro->filter = &ro->one_filter;
	ro->count = 0;
}

/* Forget the binding; the caller has dropped the subscriptions. */
static void raw_unbind(struct raw_sock *ro)
{
	ro->ifindex = 0;
	ro->bound = false;
}

/* ---- device notifier ---- */

static void raw_dev_gone(struct sock *sk, struct net_device *dev,
			 unsigned long event)
{
	struct raw_sock *ro = raw_sk(sk);

	lock_sock(sk);
	if (!ro->bound || ro->ifindex != dev->ifindex ||
	    !net_eq(sock_net(sk), dev_net(dev))) {
		release_sock(sk);
		return;
	}
	if (event == NETDEV_UNREGISTER) {
		raw_unsubscribe_all(dev_net(dev), dev, sk);
		raw_free_filters(ro);
		raw_unbind(ro);
		sk->sk_err = ENODEV;
	} else {
		sk->sk_err = ENETDOWN;
	}
	release_sock(sk);

	if (!sock_flag(sk, SOCK_DEAD))
		sk_error_report(sk);
}

static int raw_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct raw_sock *ro;

	if (dev->type != ARPHRD_CAN)
		return NOTIFY_DONE;
	if (event != NETDEV_UNREGISTER && event != NETDEV_DOWN)
		return NOTIFY_DONE;

	mutex_lock(&raw_sockets_lock);
	list_for_each_entry(ro, &raw_sockets, node)
		raw_dev_gone(&ro->sk, dev, event);
	mutex_unlock(&raw_sockets_lock);
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
 * socket gets per-CPU state, which it keeps. On a bound socket a frame
 * may be in delivery that saw no state yet; a grace period lets it finish
 * before the caller subscribes.
 *
 * Context: process; rtnl_lock() and lock_sock() held. May sleep.
 * Return: 0 or -ENOMEM.
 */
int raw_track_repeats(struct sock *sk)
{
	struct raw_sock *ro = raw_sk(sk);
	struct raw_last_frame __percpu *last;

	if (ro->last)
		return 0;
	last = alloc_percpu(struct raw_last_frame);
	if (!last)
		return -ENOMEM;
	/* raw_rcv() must see the zeroed state behind the pointer. */
	smp_store_release(&ro->last, last);
	/* Expedited under rtnl_lock(), which we should not hold for long. */
	if (ro->bound)
		synchronize_net();
	return 0;
}

/* More than one subscription once bound: see raw_track_repeats(). */
static bool raw_may_repeat(const struct raw_sock *ro)
{
	return ro->count + !!ro->err_mask > 1;
}

/* A new socket receives every frame of every interface once bound. */
static int raw_init(struct sock *sk)
{
	struct raw_sock *ro = raw_sk(sk);

	ro->last = NULL;
	sk->sk_destruct = raw_sock_destruct;

	ro->loopback = 1;
	ro->one_filter.can_id = 0;
	ro->one_filter.can_mask = 0;
	ro->filter = &ro->one_filter;
	ro->count = 1;

	mutex_lock(&raw_sockets_lock);
	list_add_tail(&ro->node, &raw_sockets);
	mutex_unlock(&raw_sockets_lock);
	return 0;
}

/* Leave the notifier's list first, so that it no longer looks at us, then
 * drop the subscriptions. Frames already being delivered may still reach
 * raw_rcv(): the core holds the socket until they are done, and the
 * per-CPU state goes with the socket's last reference.
 */
static int raw_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct raw_sock *ro;
	struct net_device *dev;

	if (!sk)
		return 0;
	ro = raw_sk(sk);

	mutex_lock(&raw_sockets_lock);
	list_del(&ro->node);
	mutex_unlock(&raw_sockets_lock);

	rtnl_lock();
	lock_sock(sk);
	if (ro->bound) {
		dev = raw_bound_dev(sk);
		if (!IS_ERR(dev)) {
			raw_unsubscribe_all(sock_net(sk), dev, sk);
			dev_put(dev);
		}
	}
	raw_free_filters(ro);
	raw_unbind(ro);
	sock->sk = NULL;
	sock_orphan(sk);
	release_sock(sk);
	rtnl_unlock();

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

	rtnl_lock();
	lock_sock(sk);
	if (ro->bound && ro->ifindex == ifindex)
		goto unlock;
	/* Or the old and the new binding overlap for a moment. */
	if (raw_may_repeat(ro) || ro->bound) {
		err = raw_track_repeats(sk);
		if (err)
			goto unlock;
	}

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
	ro->ifindex = ifindex;
	ro->bound = true;

unlock:
	dev_put(dev);
	release_sock(sk);
	rtnl_unlock();

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
	addr->can_ifindex = raw_sk(sock->sk)->ifindex;
	return RAW_MIN_NAMELEN;
}

/* ---- data ---- */

/* Whether a frame of this size may go out from this socket on @dev. */
static bool raw_frame_allowed(const struct raw_sock *ro, struct sk_buff *skb,
			      const struct net_device *dev)
{
	if (can_is_can_skb(skb))
		return true;
	return ro->fd_frames && dev->mtu >= CANFD_MTU && can_is_canfd_skb(skb);
}

/* The interface a message goes to: its address, else the binding. */
static int raw_dest_ifindex(struct sock *sk, struct msghdr *msg)
{
	DECLARE_SOCKADDR(struct sockaddr_can *, addr, msg->msg_name);

	if (!addr)
		return raw_sk(sk)->ifindex;
	if (msg->msg_namelen < RAW_MIN_NAMELEN || addr->can_family != AF_CAN)
		return -EINVAL;
	return addr->can_ifindex;
}

static struct sk_buff *raw_build_skb(struct sock *sk, struct msghdr *msg,
				     size_t size, struct net_device *dev,
				     int *err)
{
	struct sockcm_cookie sockc;
	struct sk_buff *skb;

	skb = sock_alloc_send_skb(sk, size + sizeof(struct can_skb_priv),
				  msg->msg_flags & MSG_DONTWAIT, err);
	if (!skb)
		return NULL;

	can_skb_reserve(skb);
	can_skb_prv(skb)->ifindex = dev->ifindex;
	can_skb_prv(skb)->skbcnt = 0;

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

static int raw_sendmsg(struct socket *sock, struct msghdr *msg, size_t size)
{
	struct sock *sk = sock->sk;
	struct net_device *dev;
	struct sk_buff *skb;
	int ifindex, err;

	ifindex = raw_dest_ifindex(sk, msg);
	if (ifindex < 0)
		return ifindex;
	if (size != CAN_MTU && size != CANFD_MTU)
		return -EINVAL;

	dev = dev_get_by_index(sock_net(sk), ifindex);
	if (!dev)
		return -ENXIO;

	skb = raw_build_skb(sk, msg, size, dev, &err);
	if (skb)
		err = can_send(skb, READ_ONCE(raw_sk(sk)->loopback));
	dev_put(dev);
	return err ?: size;
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
		return sock_recv_errqueue(sk, msg, size, SOL_CAN_RAW,
					  SCM_CAN_RAW_ERRQUEUE);

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
	.poll		= datagram_poll,
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

/* The notifier exists before the first socket and outlives the last. */
static int __init raw_module_init(void)
{
	int err;

	err = register_netdevice_notifier(&raw_netdev_notifier);
	if (err)
		return err;

	err = can_proto_register(&raw_can_proto);
	if (err)
		goto unregister_notifier;
	return 0;

unregister_notifier:
	unregister_netdevice_notifier(&raw_netdev_notifier);
	return err;
}

static void __exit raw_module_exit(void)
{
	can_proto_unregister(&raw_can_proto);
	unregister_netdevice_notifier(&raw_netdev_notifier);
}

module_init(raw_module_init);
module_exit(raw_module_exit);
