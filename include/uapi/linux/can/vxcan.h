/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * vxcan: netlink attributes of the virtual CAN tunnel, a pair of CAN
 * interfaces that hand each other what is sent on them.
 */

#ifndef _UAPI_CAN_VXCAN_H
#define _UAPI_CAN_VXCAN_H

/* Attributes inside IFLA_INFO_DATA of the link kind "vxcan". */
enum {
	VXCAN_INFO_UNSPEC,
	/* struct ifinfomsg and IFLA_* attributes of the other end */
	VXCAN_INFO_PEER,

	__VXCAN_INFO_MAX
#define VXCAN_INFO_MAX	(__VXCAN_INFO_MAX - 1)
};

#endif /* !_UAPI_CAN_VXCAN_H */
