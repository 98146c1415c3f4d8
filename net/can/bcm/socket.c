// SPDX-License-Identifier: GPL-2.0
/*
 * The CAN broadcast manager (CAN_BCM): datagram sockets through which user
 * space sets up cyclic transmissions and content filters that the kernel
 * runs on its own. This file holds the socket side: connecting, routing
 * each request to its handler, replies, device events and the module.
 */

#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uio.h>
#include <net/net_namespace.h>

#include "bcm-priv.h"

MODULE_DESCRIPTION("PF_CAN broadcast manager protocol");
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The CAN stack developers");
MODULE_ALIAS("can-proto-2");

/* Every BCM socket, for the netdevice notifier. The mutex protects the
 * list; it is taken in process context only: by socket creation and
 * release and by the notifier, which holds RTNL and then takes the
 * bcm_sock.lock of the sockets that use the device, so nothing may take
 * this mutex under a bcm_sock.lock.
 */
static DEFINE_MUTEX(bcm_sockets_lock);
static LIST_HEAD(bcm_sockets);

/* The notifier treats a busy socket as using every device: a request
 * under way may have found a device by its index just before the device
 * was unlisted. The notifier runs after unregister_netdevice_many()'s
 * synchronize_net(), so it sees @busy set by any request whose lookup
 * (under RCU) still found the device. Clearing it releases what the
 * request did (an operation added, the socket bound), which the notifier
 * reads after its acquiring load of @busy.
 */
static void bcm_set_busy(struct bcm_sock *bo, bool busy)
{
	lockdep_assert_held(&bo->lock);
	if (busy)
		WRITE_ONCE(bo->busy, true);
	else	/* pairs with smp_load_acquire() in bcm_uses_ifindex() */
		smp_store_release(&bo->busy, false);
}

static bool bcm_is_can_dev(struct net *net, int ifindex)
{
	struct net_device *dev;
	bool ok;

	rcu_read_lock();
	dev = dev_get_by_index_rcu(net, ifindex);
	ok = dev && dev->type == ARPHRD_CAN;
	rcu_read_unlock();
	return ok;
}

/* A socket connected to all interfaces names one per message, in the
 * address of sendto(); without one, the request applies to all.
 */
static int bcm_request_ifindex(struct bcm_sock *bo, struct msghdr *msg)
{
	DECLARE_SOCKADDR(struct sockaddr_can *, addr, msg->msg_name);

	if (bo->ifindex || !addr)
		return bo->ifindex;
	if (msg->msg_namelen < BCM_ADDR_MIN_LEN || addr->can_family != AF_CAN)
		return -EINVAL;
	if (addr->can_ifindex &&
	    !bcm_is_can_dev(sock_net(&bo->sk), addr->can_ifindex))
		return -ENODEV;
	return addr->can_ifindex;
}

static int bcm_dispatch(struct bcm_sock *bo, struct bcm_request *req)
{
	int err;

	switch (req->head.opcode) {
	case TX_SETUP:
		return bcm_tx_setup(bo, req);
	case RX_SETUP:
		return bcm_rx_setup(bo, req);
	case TX_SEND:
		return bcm_tx_send(bo, req);
	case TX_DELETE:
		err = bcm_tx_delete(bo, req);
		break;
	case RX_DELETE:
		err = bcm_rx_delete(bo, req);
		break;
	case TX_READ:
		err = bcm_op_read(&bo->tx_ops, req, TX_STATUS);
		break;
	case RX_READ:
		err = bcm_op_read(&bo->rx_ops, req, RX_STATUS);
		break;
	default:
		return -EINVAL;
	}
	return err ?: BCM_HEAD_SIZE;
}

/* The frames of a request, copied in before bcm_sock.lock is taken:
 * a page fault on user memory (userfaultfd, FUSE) may stall for as long
 * as the user likes, and with the lock held that would stall the
 * netdevice notifier and RTNL with it.
 */
struct bcm_frames_copy {
	struct msghdr msg;
	struct kvec vec;
	void *buf;
	u8 one[CANFD_MTU];
};

/* Handlers read at most the 257 frames of a receive filter, whatever
 * nframes claims, and never more than the message holds.
 */
static size_t bcm_frames_len(const struct bcm_request *req)
{
	u32 n = min_t(u32, req->head.nframes, BCM_MAX_RX_FRAMES);

	return min_t(size_t, req->size - BCM_HEAD_SIZE, (size_t)n * req->cfsiz);
}

/* Copy the frames behind the head and point the request at the copy. A
 * short copy (unreadable memory) is no error yet: the handler that wants
 * the missing frames gets -EFAULT, at the point mainline does.
 */
static int bcm_frames_copy_in_all(struct bcm_request *req,
				  struct msghdr *msg,
				  struct bcm_frames_copy *copy)
{
	size_t len = bcm_frames_len(req);
	size_t copied;

	copy->buf = copy->one;
	if (len > sizeof(copy->one)) {
		copy->buf = kvmalloc(len, GFP_KERNEL);
		if (!copy->buf)
			return -ENOMEM;
	}
	copied = copy_from_iter(copy->buf, len, &msg->msg_iter);

	memset(&copy->msg, 0, sizeof(copy->msg));
	copy->vec.iov_base = copy->buf;
	copy->vec.iov_len = copied;
	iov_iter_kvec(&copy->msg.msg_iter, ITER_SOURCE, &copy->vec, 1, copied);
	req->msg = &copy->msg;
	return 0;
}

static void bcm_frames_copy_free(struct bcm_frames_copy *copy)
{
	if (copy->buf != copy->one)
		kvfree(copy->buf);
}

/* With @bo->lock held: the socket may have lost its device meanwhile. */
static int bcm_sendmsg_locked(struct bcm_sock *bo, struct msghdr *msg,
			      struct bcm_request *req)
{
	int ret;

	if (!bo->bound)
		return -ENOTCONN;
	ret = bcm_request_ifindex(bo, msg);
	if (ret < 0)
		return ret;
	req->ifindex = ret;
	return bcm_dispatch(bo, req);
}

static int bcm_sendmsg(struct socket *sock, struct msghdr *msg, size_t size)
{
	struct bcm_sock *bo = bcm_sk(sock->sk);
	struct bcm_request req = { .size = size };
	struct bcm_frames_copy copy;
	int ret;

	if (!READ_ONCE(bo->bound))
		return -ENOTCONN;
	if (size < BCM_HEAD_SIZE)
		return -EINVAL;
	ret = memcpy_from_msg(&req.head, msg, BCM_HEAD_SIZE);
	if (ret)
		return ret;
	req.cfsiz = bcm_frame_size(req.head.flags);
	if ((size - BCM_HEAD_SIZE) % req.cfsiz)
		return -EINVAL;
	ret = bcm_frames_copy_in_all(&req, msg, &copy);
	if (ret)
		return ret;

	mutex_lock(&bo->lock);
	bcm_set_busy(bo, true);
	ret = bcm_sendmsg_locked(bo, msg, &req);
	bcm_set_busy(bo, false);
	mutex_unlock(&bo->lock);

	bcm_frames_copy_free(&copy);
	return ret;
}

static int bcm_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
		       int flags)
{
	struct sock *sk = sock->sk;
	struct sk_buff *skb;
	int err;

	skb = skb_recv_datagram(sk, flags, &err);
	if (!skb)
		return err;

	size = min_t(size_t, size, skb->len);
	err = memcpy_to_msg(msg, skb->data, size);
	if (err)
		goto free_skb;

	sock_recv_cmsgs(msg, sk, skb);
	if (msg->msg_name) {
		__sockaddr_check_size(BCM_ADDR_MIN_LEN);
		msg->msg_namelen = BCM_ADDR_MIN_LEN;
		memcpy(msg->msg_name, skb->cb, BCM_ADDR_MIN_LEN);
	}
	err = size;
free_skb:
	skb_free_datagram(sk, skb);
	return err;
}

static int bcm_connect(struct socket *sock, struct sockaddr *uaddr, int len,
		       int flags)
{
	struct sockaddr_can *addr = (struct sockaddr_can *)uaddr;
	struct bcm_sock *bo = bcm_sk(sock->sk);
	int err;

	if (len < BCM_ADDR_MIN_LEN)
		return -EINVAL;

	mutex_lock(&bo->lock);
	bcm_set_busy(bo, true);
	err = -EISCONN;
	if (bo->bound)
		goto release;
	err = -ENODEV;
	if (addr->can_ifindex &&
	    !bcm_is_can_dev(sock_net(&bo->sk), addr->can_ifindex))
		goto release;

	WRITE_ONCE(bo->ifindex, addr->can_ifindex);
	err = bcm_proc_sock_add(bo);
	if (err)
		goto release;
	WRITE_ONCE(bo->bound, true);
release:
	bcm_set_busy(bo, false);
	mutex_unlock(&bo->lock);
	return err;
}

/* Close: once off the notifier's list, only this function touches the
 * operations. Unsubscribing first and then destroying each one (see
 * bcm_op_destroy()) leaves no timer running and no receive callback able
 * to reach the socket, so the last reference can go. The socket lock is
 * for orphaning only.
 */
static int bcm_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct bcm_sock *bo;
	struct bcm_op *op, *next;

	if (!sk)
		return 0;
	bo = bcm_sk(sk);

	mutex_lock(&bcm_sockets_lock);
	list_del(&bo->node);
	mutex_unlock(&bcm_sockets_lock);

	mutex_lock(&bo->lock);
	bcm_proc_sock_remove(bo);
	list_for_each_entry_safe(op, next, &bo->tx_ops.list, list)
		bcm_op_destroy(&bo->tx_ops, op);
	list_for_each_entry_safe(op, next, &bo->rx_ops.list, list) {
		bcm_rx_unregister(op);
		bcm_op_destroy(&bo->rx_ops, op);
	}
	bcm_ops_destroy(&bo->tx_ops);
	bcm_ops_destroy(&bo->rx_ops);
	WRITE_ONCE(bo->bound, false);
	WRITE_ONCE(bo->ifindex, 0);
	mutex_unlock(&bo->lock);
	mutex_destroy(&bo->lock);

	lock_sock(sk);
	sock_orphan(sk);
	sock->sk = NULL;
	release_sock(sk);
	sock_put(sk);
	return 0;
}

static int bcm_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	/* Let the socket layer try the device ioctls. */
	return -ENOIOCTLCMD;
}

static void bcm_sock_error(struct sock *sk, int err)
{
	WRITE_ONCE(sk->sk_err, err);
	if (!sock_flag(sk, SOCK_DEAD))
		sk_error_report(sk);
}

static bool bcm_is_bound_to(const struct bcm_sock *bo, int ifindex)
{
	return READ_ONCE(bo->bound) && READ_ONCE(bo->ifindex) == ifindex;
}

/* Whether the removal of interface @ifindex needs the socket's @lock:
 * the socket is connected to it, has operations on it, or a request that
 * may be adding one is under way. Filters on all interfaces only need
 * their claims dropped, which bcm_rx_drop_claims() does without it.
 */
static bool bcm_uses_ifindex(struct bcm_sock *bo, int ifindex)
{
	/* pairs with smp_store_release() in bcm_set_busy() */
	return smp_load_acquire(&bo->busy) || bcm_is_bound_to(bo, ifindex) ||
	       bcm_ops_use_ifindex(&bo->tx_ops, ifindex) ||
	       bcm_ops_use_ifindex(&bo->rx_ops, ifindex);
}

static void bcm_dev_unregister(struct bcm_sock *bo, struct net_device *dev)
{
	struct sock *sk = &bo->sk;
	bool lost_dev;

	bcm_rx_drop_claims(bo, dev->ifindex);
	if (!bcm_uses_ifindex(bo, dev->ifindex))
		return;

	mutex_lock(&bo->lock);
	bcm_rx_dev_gone(bo, dev);
	bcm_tx_dev_gone(bo, dev);
	lost_dev = bo->bound && bo->ifindex == dev->ifindex;
	if (lost_dev) {
		bcm_proc_sock_remove(bo);
		WRITE_ONCE(bo->bound, false);
		WRITE_ONCE(bo->ifindex, 0);
	}
	mutex_unlock(&bo->lock);

	if (lost_dev)
		bcm_sock_error(sk, ENODEV);
}

/* Only the error report: no lock needed, none taken. */
static void bcm_dev_down(struct bcm_sock *bo, struct net_device *dev)
{
	if (bcm_is_bound_to(bo, dev->ifindex))
		bcm_sock_error(&bo->sk, ENETDOWN);
}

/* The notifier runs under RTNL, which every network configuration change
 * on the host waits for, so it must never wait on something a user
 * controls. It takes a socket's bcm_sock.lock only if the socket uses the
 * device (see bcm_uses_ifindex()), and that lock is never held across an
 * access to user memory. It never takes the socket lock, which the
 * socket core holds while copying from user memory (SO_ATTACH_FILTER).
 * Devices of every type are looked at: one that stopped being ARPHRD_CAN
 * may still carry operations from before.
 */
static int bcm_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct bcm_sock *bo;

	if (event != NETDEV_UNREGISTER && event != NETDEV_DOWN)
		return NOTIFY_DONE;
	ASSERT_RTNL();

	mutex_lock(&bcm_sockets_lock);
	list_for_each_entry(bo, &bcm_sockets, node) {
		if (!net_eq(sock_net(&bo->sk), dev_net(dev)))
			continue;
		if (event == NETDEV_UNREGISTER)
			bcm_dev_unregister(bo, dev);
		else
			bcm_dev_down(bo, dev);
	}
	mutex_unlock(&bcm_sockets_lock);
	return NOTIFY_DONE;
}

static int bcm_sock_init(struct sock *sk)
{
	struct bcm_sock *bo = bcm_sk(sk);

	mutex_init(&bo->lock);
	bo->bound = false;
	bo->busy = false;
	bo->ifindex = 0;
	bcm_ops_init(&bo->tx_ops, sk);
	bcm_ops_init(&bo->rx_ops, sk);
	atomic_long_set(&bo->dropped, 0);
	bo->pde = NULL;

	mutex_lock(&bcm_sockets_lock);
	list_add_tail(&bo->node, &bcm_sockets);
	mutex_unlock(&bcm_sockets_lock);
	return 0;
}

static struct proto bcm_proto = {
	.name		= "CAN_BCM",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct bcm_sock),
	.init		= bcm_sock_init,
};

static const struct proto_ops bcm_ops = {
	.family		= PF_CAN,
	.connect	= bcm_connect,
	.sendmsg	= bcm_sendmsg,
	.recvmsg	= bcm_recvmsg,
	.poll		= datagram_poll,
	.release	= bcm_release,
	.ioctl		= bcm_ioctl,
	.gettstamp	= sock_gettstamp,
	/* A BCM socket has no address of its own and no connections. */
	.bind		= sock_no_bind,
	.getname	= sock_no_getname,
	.listen		= sock_no_listen,
	.accept		= sock_no_accept,
	.shutdown	= sock_no_shutdown,
	.socketpair	= sock_no_socketpair,
	.mmap		= sock_no_mmap,
};

static const struct can_proto bcm_can_proto = {
	.type		= SOCK_DGRAM,
	.protocol	= CAN_BCM,
	.ops		= &bcm_ops,
	.prot		= &bcm_proto,
};

unsigned int bcm_net_id __read_mostly;

static struct pernet_operations bcm_net_ops = {
	.init = bcm_proc_net_init,
	.exit = bcm_proc_net_exit,
	.id = &bcm_net_id,
	.size = sizeof(struct bcm_net),
};

static struct notifier_block bcm_netdev_notifier = {
	.notifier_call = bcm_netdev_event,
};

static int __init bcm_module_init(void)
{
	int err;

	err = register_pernet_subsys(&bcm_net_ops);
	if (err)
		return err;
	err = register_netdevice_notifier(&bcm_netdev_notifier);
	if (err)
		goto unregister_pernet;
	err = can_proto_register(&bcm_can_proto);
	if (err)
		goto unregister_notifier;

	pr_info("can: broadcast manager protocol\n");
	return 0;

unregister_notifier:
	unregister_netdevice_notifier(&bcm_netdev_notifier);
unregister_pernet:
	unregister_pernet_subsys(&bcm_net_ops);
	return err;
}

static void __exit bcm_module_exit(void)
{
	can_proto_unregister(&bcm_can_proto);
	unregister_netdevice_notifier(&bcm_netdev_notifier);
	unregister_pernet_subsys(&bcm_net_ops);
	/* A receive callback of a closed socket may still be running. */
	synchronize_rcu();
}

module_init(bcm_module_init);
module_exit(bcm_module_exit);
