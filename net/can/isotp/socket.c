// SPDX-License-Identifier: GPL-2.0
/* CAN_ISOTP sockets (ISO 15765-2): SOCK_DGRAM sockets bound to one CAN
 * interface and a pair of identifiers, through which a program sends and
 * receives whole messages of up to 66000 bytes. This file holds the
 * socket's life cycle, binding, reading and the device notifier; the
 * protocol itself is in tx.c and rx.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/can/core.h>
#include <linux/if_arp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/sock.h>

#include "isotp-priv.h"

MODULE_DESCRIPTION("PF_CAN ISO 15765-2 transport protocol");
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The CAN stack developers");
MODULE_ALIAS("can-proto-" __stringify(CAN_ISOTP));

/* Bound sockets, so that the device notifier finds those of a device that
 * goes down or away. Changed and walked only under rtnl_lock(); changes
 * also hold the socket's config_lock.
 */
static LIST_HEAD(isotp_bound_sockets);

/* ---- binding ---- */

/* The one frame type the socket's link layer options name: classic and FD
 * frames are separate channels, and an XL frame is never a PDU.
 */
static u8 isotp_frame_type(const struct isotp_sock *so)
{
	return so->ll.mtu == CANFD_MTU ? CAN_RX_TYPE_FD : CAN_RX_TYPE_CC;
}

static int isotp_subscribe(struct isotp_sock *so, struct net_device *dev)
{
	struct net *net = sock_net(&so->sk);
	int err;

	ASSERT_RTNL();
	err = can_rx_register(net, dev, so->txid, isotp_id_mask(so->txid),
			      isotp_rcv_echo, so, "isotpe", &so->sk);
	if (err || !isotp_takes_frames(so))
		return err;
	err = can_rx_register_types(net, dev, so->rxid,
				    isotp_id_mask(so->rxid), isotp_rcv, so,
				    "isotp", &so->sk, isotp_frame_type(so));
	if (err)
		can_rx_unregister(net, dev, so->txid, isotp_id_mask(so->txid),
				  isotp_rcv_echo, so);
	return err;
}

static void isotp_unsubscribe(struct isotp_sock *so, struct net_device *dev)
{
	struct net *net = sock_net(&so->sk);

	ASSERT_RTNL();
	if (isotp_takes_frames(so))
		can_rx_unregister(net, dev, so->rxid, isotp_id_mask(so->rxid),
				  isotp_rcv, so);
	can_rx_unregister(net, dev, so->txid, isotp_id_mask(so->txid),
			  isotp_rcv_echo, so);
}

/**
 * isotp_unbind() - drop the binding and end both transfers
 * @so: the socket
 * @tx_err: outcome for a message being sent (positive errno)
 *
 * Frames already being delivered may still reach the callbacks; they find
 * no device to answer on and no transfer to continue.
 * Context: rtnl_lock() and @so->config_lock held.
 * Return: the device that was bound, whose reference the caller drops,
 * or NULL.
 */
static struct net_device *isotp_unbind(struct isotp_sock *so, int tx_err)
{
	struct net_device *dev;

	ASSERT_RTNL();
	lockdep_assert_held(&so->config_lock);
	if (!so->bound)
		return NULL;
	isotp_unsubscribe(so, so->dev);
	list_del_init(&so->node);

	spin_lock_bh(&so->lock);
	dev = so->dev;
	so->dev = NULL;
	if (so->tx.state != ISOTP_TX_IDLE)
		isotp_tx_abort(so, tx_err);
	isotp_rx_abort(so);
	spin_unlock_bh(&so->lock);

	WRITE_ONCE(so->ifindex, 0);
	WRITE_ONCE(so->bound, false);
	return dev;
}

/* An identifier with bits outside its format is refused, as mainline. */
static bool isotp_id_is_valid(canid_t id)
{
	if (id & CAN_EFF_FLAG)
		return !(id & ~(CAN_EFF_FLAG | CAN_EFF_MASK));
	return !(id & ~CAN_SFF_MASK);
}

static int isotp_check_addr(const struct isotp_sock *so,
			    const struct sockaddr_can *addr, int len)
{
	if (len < ISOTP_MIN_NAMELEN || addr->can_family != AF_CAN)
		return -EINVAL;
	if (!isotp_id_is_valid(addr->can_addr.tp.tx_id))
		return -EINVAL;
	if (isotp_takes_frames(so) &&
	    !isotp_id_is_valid(addr->can_addr.tp.rx_id))
		return -EINVAL;
	if (!addr->can_ifindex)
		return -ENODEV;
	return 0;
}

/* Whether the socket may bind now; under rtnl_lock() and config_lock. */
static int isotp_check_bindable(struct isotp_sock *so,
				const struct sockaddr_can *addr)
{
	lockdep_assert_held(&so->config_lock);
	if (so->bound)
		return -EINVAL;
	/* A transfer cut off by a vanished device is still winding down. */
	if (READ_ONCE(so->tx.state) != ISOTP_TX_IDLE ||
	    READ_ONCE(so->rx.state) != ISOTP_RX_IDLE)
		return -EAGAIN;
	if (isotp_takes_frames(so) &&
	    addr->can_addr.tp.rx_id == addr->can_addr.tp.tx_id)
		return -EADDRNOTAVAIL;
	return 0;
}

/* The CAN device @ifindex, with a reference, able to carry our frames. */
static struct net_device *isotp_get_dev(struct isotp_sock *so, int ifindex,
					int *err)
{
	struct net_device *dev = dev_get_by_index(sock_net(&so->sk), ifindex);

	*err = -ENODEV;
	if (!dev)
		return NULL;
	if (dev->type != ARPHRD_CAN)
		goto put;
	*err = -EINVAL;
	if (READ_ONCE(dev->mtu) < so->ll.mtu)
		goto put;
	*err = 0;
	return dev;
put:
	dev_put(dev);
	return NULL;
}

/* A receiving socket keeps a buffer for one whole message once bound. */
static int isotp_alloc_rx_buf(struct isotp_sock *so)
{
	if (so->rx.buf || !isotp_takes_frames(so))
		return 0;
	so->rx.buf = kvmalloc(ISOTP_MAX_MSG_LEN, GFP_KERNEL);
	return so->rx.buf ? 0 : -ENOMEM;
}

/* Record the binding; the device reference passes to the socket. */
static void isotp_set_bound(struct isotp_sock *so, struct net_device *dev,
			    const struct sockaddr_can *addr)
{
	ASSERT_RTNL();
	lockdep_assert_held(&so->config_lock);
	spin_lock_bh(&so->lock);
	so->dev = dev;
	spin_unlock_bh(&so->lock);
	list_add_tail(&so->node, &isotp_bound_sockets);
	WRITE_ONCE(so->ifindex, dev->ifindex);
	WRITE_ONCE(so->bound, true);
}

static int isotp_bind(struct socket *sock, struct sockaddr *uaddr, int len)
{
	struct sockaddr_can *addr = (struct sockaddr_can *)uaddr;
	struct isotp_sock *so = isotp_sk(sock->sk);
	struct net_device *dev;
	bool is_down = false;
	int err;

	err = isotp_check_addr(so, addr, len);
	if (err)
		return err;

	rtnl_lock();
	mutex_lock(&so->config_lock);
	err = isotp_check_bindable(so, addr);
	if (err)
		goto unlock;
	dev = isotp_get_dev(so, addr->can_ifindex, &err);
	if (!dev)
		goto unlock;
	is_down = !(dev->flags & IFF_UP);
	err = isotp_alloc_rx_buf(so);
	if (err)
		goto put_dev;
	so->txid = addr->can_addr.tp.tx_id;
	so->rxid = addr->can_addr.tp.rx_id;
	err = isotp_subscribe(so, dev);
	if (err)
		goto put_dev;
	isotp_set_bound(so, dev, addr);
	goto unlock;

put_dev:
	dev_put(dev);
unlock:
	mutex_unlock(&so->config_lock);
	rtnl_unlock();
	if (is_down && !err)
		isotp_report_error(so, ENETDOWN);
	return err;
}

/* ---- device notifier ---- */

/* Under RTNL: only config_lock, never the socket lock, which the socket
 * core holds while it copies from user memory (SO_ATTACH_FILTER).
 */
static void isotp_dev_unregistered(struct isotp_sock *so)
{
	struct net_device *dev;

	mutex_lock(&so->config_lock);
	dev = isotp_unbind(so, ECOMM);
	mutex_unlock(&so->config_lock);
	dev_put(dev);
	isotp_report_error(so, ENODEV);
}

static int isotp_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct isotp_sock *so, *next;

	if (event != NETDEV_UNREGISTER && event != NETDEV_DOWN)
		return NOTIFY_DONE;

	ASSERT_RTNL();
	list_for_each_entry_safe(so, next, &isotp_bound_sockets, node) {
		if (so->dev != dev)
			continue;
		if (event == NETDEV_UNREGISTER)
			isotp_dev_unregistered(so);
		else
			isotp_report_error(so, ENETDOWN);
	}
	return NOTIFY_DONE;
}

static struct notifier_block isotp_netdev_notifier = {
	.notifier_call = isotp_netdev_event,
};

/* ---- socket life cycle ---- */

static void isotp_sock_destruct(struct sock *sk)
{
	struct isotp_sock *so = isotp_sk(sk);

	can_sock_destruct(sk);
	kvfree(so->rx.buf);
	kvfree(so->tx.buf);
	mutex_destroy(&so->config_lock);
}

static int isotp_init(struct sock *sk)
{
	struct isotp_sock *so = isotp_sk(sk);

	mutex_init(&so->config_lock);
	INIT_LIST_HEAD(&so->node);
	spin_lock_init(&so->lock);
	init_waitqueue_head(&so->wait);
	so->dev = NULL;
	so->dead = false;
	so->bound = false;
	so->ifindex = 0;
	memset(&so->tx, 0, sizeof(so->tx));
	memset(&so->rx, 0, sizeof(so->rx));
	isotp_options_init(so);
	isotp_timers_init(so);
	sk->sk_destruct = isotp_sock_destruct;
	return 0;
}

/* Let a message being sent finish first, unless a signal says not to
 * wait. Then unbind, which ends both transfers, and mark the socket dead
 * under its lock: from then on no callback arms a timer, so once the
 * timers are cancelled none runs again. The socket lock, for orphaning,
 * is taken only after RTNL is dropped. Callbacks for frames still in
 * delivery hold the socket through their subscription (see
 * can_rx_register()) and find nothing to do.
 */
static int isotp_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct net_device *dev;
	struct isotp_sock *so;

	if (!sk)
		return 0;
	so = isotp_sk(sk);

	wait_event_interruptible(so->wait,
				 READ_ONCE(so->tx.state) == ISOTP_TX_IDLE);

	rtnl_lock();
	mutex_lock(&so->config_lock);
	dev = isotp_unbind(so, EPIPE);
	spin_lock_bh(&so->lock);
	so->dead = true;
	isotp_tx_abort(so, EPIPE);
	isotp_rx_abort(so);
	spin_unlock_bh(&so->lock);
	mutex_unlock(&so->config_lock);
	rtnl_unlock();
	dev_put(dev);

	isotp_timers_shutdown(so);

	lock_sock(sk);
	sock->sk = NULL;
	sock_orphan(sk);
	release_sock(sk);
	sock_put(sk);
	return 0;
}

static int isotp_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_can *addr = (struct sockaddr_can *)uaddr;
	struct isotp_sock *so = isotp_sk(sock->sk);

	if (peer)
		return -EOPNOTSUPP;

	memset(addr, 0, ISOTP_MIN_NAMELEN);
	addr->can_family = AF_CAN;
	addr->can_ifindex = READ_ONCE(so->ifindex);
	addr->can_addr.tp.rx_id = so->rxid;
	addr->can_addr.tp.tx_id = so->txid;
	return ISOTP_MIN_NAMELEN;
}

/* ---- reading ---- */

/* Stamps and the interface the message came from (isotp_rcv() left it). */
static void isotp_put_rx_info(struct msghdr *msg, struct sock *sk,
			      struct sk_buff *skb)
{
	sock_recv_cmsgs(msg, sk, skb);
	if (!msg->msg_name)
		return;
	__sockaddr_check_size(ISOTP_MIN_NAMELEN);
	memcpy(msg->msg_name, skb->cb, ISOTP_MIN_NAMELEN);
	msg->msg_namelen = ISOTP_MIN_NAMELEN;
}

static int isotp_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
			 int flags)
{
	struct sock *sk = sock->sk;
	struct sk_buff *skb;
	size_t copied;
	int err;

	if (flags & ~(MSG_DONTWAIT | MSG_TRUNC | MSG_PEEK | MSG_CMSG_COMPAT))
		return -EINVAL;
	if (!READ_ONCE(isotp_sk(sk)->bound))
		return -EADDRNOTAVAIL;

	skb = skb_recv_datagram(sk, flags, &err);
	if (!skb)
		return err;

	copied = min_t(size_t, size, skb->len);
	err = memcpy_to_msg(msg, skb->data, copied);
	if (!err) {
		isotp_put_rx_info(msg, sk, skb);
		if (copied < skb->len)
			msg->msg_flags |= MSG_TRUNC;
		/* MSG_TRUNC asks for the real length, as for UDP */
		err = (flags & MSG_TRUNC) ? skb->len : copied;
	}
	skb_free_datagram(sk, skb);
	return err;
}

/* Writable only while no message is being sent: sendmsg() would block. */
static __poll_t isotp_poll(struct file *file, struct socket *sock,
			   poll_table *wait)
{
	struct isotp_sock *so = isotp_sk(sock->sk);
	__poll_t mask = datagram_poll(file, sock, wait);

	poll_wait(file, &so->wait, wait);
	if (READ_ONCE(so->tx.state) != ISOTP_TX_IDLE)
		mask &= ~(EPOLLOUT | EPOLLWRNORM);
	return mask;
}

/* Timestamps come through .gettstamp; no other ioctl is ours. */
static int isotp_ioctl(struct socket *sock, unsigned int cmd,
		       unsigned long arg)
{
	return -ENOIOCTLCMD;
}

static const struct proto_ops isotp_ops = {
	.family		= PF_CAN,
	.owner		= THIS_MODULE,
	.bind		= isotp_bind,
	.getname	= isotp_getname,
	.sendmsg	= isotp_sendmsg,
	.recvmsg	= isotp_recvmsg,
	.setsockopt	= isotp_setsockopt,
	.getsockopt	= isotp_getsockopt,
	.poll		= isotp_poll,
	.gettstamp	= sock_gettstamp,
	.ioctl		= isotp_ioctl,
	.release	= isotp_release,
	.accept		= sock_no_accept,
	.connect	= sock_no_connect,
	.listen		= sock_no_listen,
	.mmap		= sock_no_mmap,
	.shutdown	= sock_no_shutdown,
	.socketpair	= sock_no_socketpair,
};

static struct proto isotp_proto __read_mostly = {
	.init		= isotp_init,
	.obj_size	= sizeof(struct isotp_sock),
	.owner		= THIS_MODULE,
	.name		= "CAN_ISOTP",
};

static const struct can_proto isotp_can_proto = {
	.protocol	= CAN_ISOTP,
	.type		= SOCK_DGRAM,
	.prot		= &isotp_proto,
	.ops		= &isotp_ops,
};

/* The notifier exists before the first socket and outlives the last. */
static int __init isotp_module_init(void)
{
	int err;

	err = register_netdevice_notifier(&isotp_netdev_notifier);
	if (err)
		return err;

	err = can_proto_register(&isotp_can_proto);
	if (err)
		goto unregister_notifier;
	return 0;

unregister_notifier:
	unregister_netdevice_notifier(&isotp_netdev_notifier);
	return err;
}

static void __exit isotp_module_exit(void)
{
	can_proto_unregister(&isotp_can_proto);
	unregister_netdevice_notifier(&isotp_netdev_notifier);
}

module_init(isotp_module_init);
module_exit(isotp_module_exit);
