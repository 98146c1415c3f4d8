/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a broadcast manager receive filter compares frames: which slot a
 * frame belongs to and whether it changed in a bit the user selected.
 * Pure functions of the operation's frames, kept apart from the filter's
 * reporting and timers so that KUnit (match_kunit.c) can test them.
 */

#ifndef _NET_CAN_BCM_MATCH_H
#define _NET_CAN_BCM_MATCH_H

#include <linux/string.h>
#include "bcm-priv.h"

/* Eight data bytes from @off on; received frames are not 8-byte aligned.
 * A fixed-size memcpy() is one unaligned load, and unlike get_unaligned()
 * needs no header that moved between kernel versions.
 */
static inline u64 bcm_word(const struct canfd_frame *cf, unsigned int off)
{
	u64 word;

	memcpy(&word, cf->data + off, sizeof(word));
	return word;
}

/* Does @cf differ from slot @i's last frame in a bit the mask selects? */
static inline bool bcm_rx_is_changed(const struct bcm_op *op, unsigned int i,
				     const struct canfd_frame *cf)
{
	const struct canfd_frame *mask = &op->frames[i];
	const struct canfd_frame *last = &op->rx.last[i];
	unsigned int off;

	if (!(op->rx.slot[i] & BCM_SLOT_SEEN))
		return true;
	for (off = 0; off < cf->len; off += 8) {
		if ((bcm_word(cf, off) ^ bcm_word(last, off)) &
		    bcm_word(mask, off))
			return true;
	}
	return (op->flags & RX_CHECK_DLC) && cf->len != last->len;
}

/* The slot of a frame: 0 for a filter with one frame; for a multiplex
 * filter the first entry after the mask in frames[0] whose first eight
 * bytes equal the frame's under that mask, or -1 if none does.
 */
static inline int bcm_rx_slot(const struct bcm_op *op,
			      const struct canfd_frame *cf)
{
	u64 mask, value;
	u32 i;

	if (op->nframes == 1)
		return 0;

	mask = bcm_word(&op->frames[0], 0);
	value = bcm_word(cf, 0) & mask;
	for (i = 1; i < op->nframes; i++) {
		if ((bcm_word(&op->frames[i], 0) & mask) == value)
			return i;
	}
	return -1;
}

#endif /* !_NET_CAN_BCM_MATCH_H */
