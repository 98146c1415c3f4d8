/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixtures shared by the broadcast manager's error tests: a vcan and a
 * BCM socket connected to it (bcm), or to all interfaces (any). Include
 * after kselftest_harness.h.
 */

#ifndef _CAN_TEST_BCM_FIXTURES_H
#define _CAN_TEST_BCM_FIXTURES_H

#include "can_test_bcm.h"

FIXTURE(bcm) {
	char ifname[IFNAMSIZ];
	int ifindex;
	int s;
	struct bcm_msg m;
};

FIXTURE_SETUP(bcm)
{
	self->ifindex = vcan_create(self->ifname, 0);
	ASSERT_LT(0, self->ifindex);
	self->s = bcm_socket(self->ifindex);
	if (self->s < 0)
		vcan_destroy(self->ifname);
	ASSERT_LE(0, self->s);
}

FIXTURE_TEARDOWN(bcm)
{
	close(self->s);
	vcan_destroy(self->ifname);
}

/* Sockets connected to all interfaces name one per message. */
FIXTURE(any) {
	char ifname[IFNAMSIZ];
	int ifindex;
	int s;
	struct bcm_msg m;
};

FIXTURE_SETUP(any)
{
	self->ifindex = vcan_create(self->ifname, 0);
	ASSERT_LT(0, self->ifindex);
	self->s = bcm_socket(0);
	if (self->s < 0)
		vcan_destroy(self->ifname);
	ASSERT_LE(0, self->s);
}

FIXTURE_TEARDOWN(any)
{
	close(self->s);
	vcan_destroy(self->ifname);
}

#endif /* _CAN_TEST_BCM_FIXTURES_H */
