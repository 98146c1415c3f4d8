// SPDX-License-Identifier: GPL-2.0
/*
 * Values for ops. Integers lean toward the places where code goes wrong:
 * 0 and +-1, the ends of every integer type, the sizes of CAN frames and
 * of the structures the API takes, each +-1, and negative errnos (a value
 * that a function passes back unchecked as its error).
 */

#include <limits.h>
#include <string.h>

#include <linux/can.h>
#include <linux/can/bcm.h>
#include <linux/can/raw.h>

#include "fuzz.h"

/* splitmix64's finaliser: a good 64-bit mix of a counter. */
__u64 fz_mix(__u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * Every byte the fuzzer sends is drawn here, so this is where the slab
 * poison byte is kept out of them all: a poison run the kernel hands
 * back can then only be memory nobody wrote (leak.c).
 */
static __u64 depoison(__u64 v)
{
	int i;

	for (i = 0; i < 64; i += 8)
		if (((v >> i) & 0xff) == FZ_POISON)
			v ^= 1ULL << i;
	return v;
}

__u64 fz_u64(struct fz_draw *d)
{
	d->n++;
	if (d->mut_idx && d->n == d->mut_idx)
		return depoison(d->mut_val);
	return depoison(fz_mix(d->seed ^ fz_mix(d->n)));
}

__u32 fz_below(struct fz_draw *d, __u32 n)
{
	return n ? fz_u64(d) % n : 0;
}

bool fz_chance(struct fz_draw *d, __u32 one_in)
{
	return fz_below(d, one_in) == 0;
}

/* Sizes worth hitting exactly and by one byte either side. */
static const __u32 fz_sizes[] = {
	0, 1, 2, 4, 8, 12, 16, 24, 32, 48, 56, 64, 72, 76, 128, 256, 512,
	CAN_MTU, CANFD_MTU, CANXL_MTU, CANXL_MIN_MTU, CANXL_HDR_SIZE,
	CANXL_MAX_DLEN, CANXL_MAX_MTU, CAN_MAX_DLEN, CANFD_MAX_DLEN,
	sizeof(struct can_filter), sizeof(struct sockaddr_can),
	sizeof(struct bcm_msg_head), sizeof(struct bcm_msg_head) + CAN_MTU,
	sizeof(struct bcm_msg_head) + CANFD_MTU, sizeof(struct bcm_timeval),
	sizeof(can_err_mask_t), sizeof(int), 4096, 65535, 65536,
};

int fz_neg_errno(struct fz_draw *d)
{
	/*
	 * ERESTARTSYS (512) .. ERECALLCONFLICT (530) must never reach users;
	 * EIOCBQUEUED (529) returned by a sendmsg is a BUG_ON in net/socket.c,
	 * so it has a share of its own.
	 */
	if (fz_chance(d, 4))
		return -529;
	if (fz_chance(d, 2))
		return -(512 + (int)fz_below(d, 19));
	return -1 - (int)fz_below(d, 4095);
}

__s64 fz_int(struct fz_draw *d)
{
	__u32 s;

	switch (fz_below(d, 12)) {
	case 0:
		return fz_below(d, 17);
	case 1:
		return (__s64)fz_below(d, 3) - 1;
	case 2: {
		static const __s64 ends[] = {
			INT_MIN, INT_MIN + 1, INT_MAX, INT_MAX - 1, UINT_MAX,
			(__s64)UINT_MAX - 1, LLONG_MIN, LLONG_MAX, SHRT_MAX,
			SHRT_MIN, USHRT_MAX, CHAR_MAX, UCHAR_MAX, 0x80, 0x8000,
			0x80000000LL,
		};
		return ends[fz_below(d, FZ_ARRAY_SIZE(ends))];
	}
	case 3:
	case 4:
		s = fz_sizes[fz_below(d, FZ_ARRAY_SIZE(fz_sizes))];
		return (__s64)s + (__s64)fz_below(d, 3) - 1;
	case 5:
		return fz_neg_errno(d);
	case 6: {
		__u64 p = 1ULL << fz_below(d, 63);

		return (__s64)p + (__s64)fz_below(d, 3) - 1;
	}
	case 7:
		return -(__s64)fz_below(d, 17);
	case 8:
		return (__s32)fz_u64(d);
	case 9:
		return (__s64)fz_u64(d);
	default:
		return fz_below(d, 256);
	}
}

__u32 fz_len(struct fz_draw *d, __u32 max)
{
	__u32 v;

	if (fz_chance(d, 3))
		v = fz_below(d, max + 1);
	else
		v = (__u32)fz_int(d);
	return v > max ? v % (max + 1) : v;
}

void fz_fill(struct fz_draw *d, void *buf, size_t len)
{
	unsigned char *p = buf;
	__u64 v = 0;
	size_t i;

	switch (fz_below(d, 6)) {
	case 0:
		memset(buf, 0, len);
		return;
	case 1:
		memset(buf, 0xff, len);
		return;
	default:
		break;
	}
	for (i = 0; i < len; i++) {
		if (!(i & 7))
			v = fz_u64(d);
		p[i] = v >> ((i & 7) * 8);
	}
}

__u32 fz_can_id(struct fz_draw *d)
{
	static const __u32 ids[] = {
		0, 1, 0x7ff, 0x800, 0x7fe, CAN_EFF_MASK, CAN_EFF_MASK - 1,
		0x123, 0x42, 0x100,
	};
	static const __u32 flags[] = {
		0, 0, 0, CAN_EFF_FLAG, CAN_RTR_FLAG, CAN_ERR_FLAG,
		CAN_EFF_FLAG | CAN_RTR_FLAG, 0xffffffff,
	};
	__u32 id;

	if (fz_chance(d, 3))
		id = ids[fz_below(d, FZ_ARRAY_SIZE(ids))];
	else if (fz_chance(d, 2))
		id = fz_below(d, 16);
	else
		id = (__u32)fz_u64(d);
	return id | flags[fz_below(d, FZ_ARRAY_SIZE(flags))];
}

/* Header fields plausible for the frame type its length suggests. */
void fz_frame(struct fz_draw *d, void *buf, size_t len)
{
	unsigned char *p = buf;

	fz_fill(d, buf, len);
	if (len >= CANXL_HDR_SIZE && fz_chance(d, 3) && len != CAN_MTU &&
	    len != CANFD_MTU) {
		struct canxl_frame *xl = buf;

		xl->prio = fz_below(d, 0x800);
		xl->flags = fz_chance(d, 2) ? CANXL_XLF : (__u8)fz_u64(d);
		xl->len = fz_chance(d, 2) ? len - CANXL_HDR_SIZE : (__u16)fz_int(d);
		return;
	}
	if (len >= 8) {
		struct can_frame *cf = buf;

		cf->can_id = fz_can_id(d);
		if (fz_chance(d, 2))
			cf->len = fz_below(d, len > CAN_MTU ? 65 : 9);
		if (len >= CANFD_MTU && fz_chance(d, 2))
			p[5] = fz_chance(d, 2) ? CANFD_BRS : CANFD_FDF | CANFD_BRS;
	}
}
