// SPDX-License-Identifier: GPL-2.0
/* The one driver that may create CAN controllers through "ip link add
 * DEV type can": rtnetlink allocates the device with can_link_ops'
 * setup and private size, the factory fills in what a driver's probe
 * would, the request's attributes are applied like "ip link set", and
 * the device is registered. Devices of real controllers never come this
 * way; "ip link del" deletes only the factory's.
 *
 * The factory pointer is written and read under RTNL only.
 */

#include <linux/module.h>
#include <linux/rtnetlink.h>
#include "link_factory.h"

static const struct can_link_factory *can_factory;

static void can_link_destructor(struct net_device *dev)
{
	/* A bus-off in the last moments before close may have queued one. */
	cancel_delayed_work_sync(&can_link_priv(dev)->can.restart_work);
}

/**
 * can_link_factory_setup() - setup callback of link kind "can"
 * @dev: a device rtnetlink has just allocated for "ip link add"
 *
 * Process context, RTNL held. The device is freed by the networking core
 * once unregistered, or by rtnetlink if creating it fails.
 */
void can_link_factory_setup(struct net_device *dev)
{
	struct can_link_priv *lp = can_link_priv(dev);

	can_setup(dev);
	can_init_priv(dev, &lp->ml, lp->echo_skb, ARRAY_SIZE(lp->echo_skb));
	dev->needs_free_netdev = true;
	dev->priv_destructor = can_link_destructor;
}

/**
 * can_link_factory_newlink() - make a controller of the registered factory
 * @dev: the device from can_link_factory_setup()
 * @data: the request's IFLA_CAN_* attributes
 * @configure: applies them, as changelink does
 * @extack: for the reason of a refusal
 *
 * Process context, RTNL held.
 *
 * Return: 0; -EOPNOTSUPP without a factory (mainline's answer); the
 * factory's, @configure's or register_netdevice()'s error.
 */
int can_link_factory_newlink(struct net_device *dev, struct nlattr *data[],
			     can_link_configure_t configure,
			     struct netlink_ext_ack *extack)
{
	const struct can_link_factory *factory = can_factory;
	int err;

	ASSERT_RTNL();
	if (!factory) {
		NL_SET_ERR_MSG(extack, "CAN devices are created by their drivers");
		return -EOPNOTSUPP;
	}
	err = factory->init(dev, extack);
	if (err)
		return err;
	err = configure(dev, NULL, data, extack);
	if (err)
		return err;
	netif_carrier_off(dev);
	return register_netdevice(dev);
}

/**
 * can_link_factory_dellink() - "ip link del" of a CAN device
 * @dev: any device of link kind "can"
 * @head: where rtnetlink collects the devices to unregister
 *
 * Process context, RTNL held. Devices of real controllers stay: their
 * driver owns them.
 */
void can_link_factory_dellink(struct net_device *dev, struct list_head *head)
{
	ASSERT_RTNL();
	if (can_factory && dev->netdev_ops == can_factory->netdev_ops)
		unregister_netdevice_queue(dev, head);
}

/**
 * can_link_factory_register() - become the creator of "type can" devices
 * @factory: the driver's factory, static and alive until unregistered
 *
 * Process context.
 *
 * Return: 0; -EBUSY if another factory is registered.
 */
int can_link_factory_register(const struct can_link_factory *factory)
{
	int err = 0;

	rtnl_lock();
	if (can_factory)
		err = -EBUSY;
	else
		can_factory = factory;
	rtnl_unlock();
	return err;
}
EXPORT_SYMBOL_GPL(can_link_factory_register);

/**
 * can_link_factory_unregister() - stop creating devices
 * @factory: as registered
 *
 * Process context. The driver then deletes the devices it made; until it
 * has, "ip link del" leaves them alone.
 */
void can_link_factory_unregister(const struct can_link_factory *factory)
{
	rtnl_lock();
	if (can_factory == factory)
		can_factory = NULL;
	rtnl_unlock();
}
EXPORT_SYMBOL_GPL(can_link_factory_unregister);
