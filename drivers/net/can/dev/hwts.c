// SPDX-License-Identifier: GPL-2.0
/* Hardware timestamps for drivers whose controller stamps every frame it
 * sends and receives, and cannot be told to stop: the only configuration
 * such a device takes is the one it already runs.
 */

#include <linux/ethtool.h>
#include <linux/net_tstamp.h>
#include <linux/uaccess.h>
#include <linux/can/dev.h>

/* What these devices always do: stamp each sent and each received frame. */
static const struct hwtstamp_config can_hwts_fixed = {
	.tx_type = HWTSTAMP_TX_ON,
	.rx_filter = HWTSTAMP_FILTER_ALL,
};

static int can_hwts_set(struct ifreq *ifr)
{
	struct hwtstamp_config asked;

	if (copy_from_user(&asked, ifr->ifr_data, sizeof(asked)))
		return -EFAULT;
	if (asked.tx_type != can_hwts_fixed.tx_type ||
	    asked.rx_filter != can_hwts_fixed.rx_filter)
		return -ERANGE;
	return 0;
}

/**
 * can_eth_ioctl_hwts() - ndo_eth_ioctl for always-on hardware timestamps
 * @netdev: the device
 * @ifr: the request; ifr_data points to a struct hwtstamp_config
 * @cmd: SIOCSHWTSTAMP or SIOCGHWTSTAMP
 *
 * Reading gives TX on and every frame received stamped. Setting accepts
 * that configuration and nothing else. Process context (the ioctl).
 *
 * Return: 0; -ERANGE for a configuration other than the fixed one,
 * -EFAULT for a bad ifr_data, -EOPNOTSUPP for any other @cmd.
 */
int can_eth_ioctl_hwts(struct net_device *netdev, struct ifreq *ifr, int cmd)
{
	if (cmd == SIOCSHWTSTAMP)
		return can_hwts_set(ifr);
	if (cmd != SIOCGHWTSTAMP)
		return -EOPNOTSUPP;
	if (copy_to_user(ifr->ifr_data, &can_hwts_fixed,
			 sizeof(can_hwts_fixed)))
		return -EFAULT;
	return 0;
}
EXPORT_SYMBOL(can_eth_ioctl_hwts);

/**
 * can_ethtool_op_get_ts_info_hwts() - ethtool get_ts_info for such devices
 * @dev: the device
 * @info: filled in: software and hardware stamps both ways, no PTP clock
 *
 * Any context ethtool calls from.
 *
 * Return: 0.
 */
int can_ethtool_op_get_ts_info_hwts(struct net_device *dev,
				    struct ethtool_ts_info *info)
{
	info->so_timestamping = SOF_TIMESTAMPING_SOFTWARE |
				SOF_TIMESTAMPING_TX_SOFTWARE |
				SOF_TIMESTAMPING_RX_SOFTWARE |
				SOF_TIMESTAMPING_RAW_HARDWARE |
				SOF_TIMESTAMPING_TX_HARDWARE |
				SOF_TIMESTAMPING_RX_HARDWARE;
	info->phc_index = -1;
	info->tx_types = BIT(can_hwts_fixed.tx_type);
	info->rx_filters = BIT(can_hwts_fixed.rx_filter);
	return 0;
}
EXPORT_SYMBOL(can_ethtool_op_get_ts_info_hwts);
