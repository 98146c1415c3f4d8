/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * User-space interface of the CAN gateway (module can-gw): routing jobs
 * that forward frames from one CAN interface to another, filtered and
 * rewritten on the way. Jobs are added, removed and listed over rtnetlink
 * with RTM_NEWROUTE, RTM_DELROUTE and RTM_GETROUTE in family PF_CAN.
 */

#ifndef _UAPI_CAN_GW_H
#define _UAPI_CAN_GW_H

#include <linux/types.h>
#include <linux/can.h>

/**
 * struct rtcanmsg - the fixed head of every gateway netlink message
 * @can_family: AF_CAN
 * @gwtype: CGW_TYPE_CAN_CAN, the only kind of job there is
 * @flags: CGW_FLAGS_CAN_*
 *
 * The CGW_* attributes follow it.
 */
struct rtcanmsg {
	__u8  can_family;
	__u8  gwtype;
	__u16 flags;
};

/* Kinds of job. */
enum {
	CGW_TYPE_UNSPEC,
	CGW_TYPE_CAN_CAN,	/* from one CAN interface to another */
	__CGW_TYPE_MAX
};

#define CGW_TYPE_MAX (__CGW_TYPE_MAX - 1)

/* Netlink attributes of a job. */
enum {
	CGW_UNSPEC,
	CGW_MOD_AND,	/* struct cgw_frame_mod: AND into the frame */
	CGW_MOD_OR,	/* struct cgw_frame_mod: OR into the frame */
	CGW_MOD_XOR,	/* struct cgw_frame_mod: XOR into the frame */
	CGW_MOD_SET,	/* struct cgw_frame_mod: overwrite in the frame */
	CGW_CS_XOR,	/* struct cgw_csum_xor: XOR of data bytes */
	CGW_CS_CRC8,	/* struct cgw_csum_crc8: CRC8 of data bytes */
	CGW_HANDLED,	/* __u32, reported: frames sent on */
	CGW_DROPPED,	/* __u32, reported: frames that could not be sent */
	CGW_SRC_IF,	/* __u32: ifindex frames are taken from */
	CGW_DST_IF,	/* __u32: ifindex frames are sent to */
	CGW_FILTER,	/* struct can_filter on the source interface */
	CGW_DELETED,	/* __u32, reported: frames discarded (hops, length) */
	CGW_LIM_HOPS,	/* __u8: hop limit of this job, 1 to max_hops */
	CGW_MOD_UID,	/* __u32: names a job so that its changes replace it */
	CGW_FDMOD_AND,	/* struct cgw_fdframe_mod: AND, CAN FD jobs */
	CGW_FDMOD_OR,	/* struct cgw_fdframe_mod: OR, CAN FD jobs */
	CGW_FDMOD_XOR,	/* struct cgw_fdframe_mod: XOR, CAN FD jobs */
	CGW_FDMOD_SET,	/* struct cgw_fdframe_mod: overwrite, CAN FD jobs */
	__CGW_MAX
};

#define CGW_MAX (__CGW_MAX - 1)

/* Job flags (struct rtcanmsg). */
#define CGW_FLAGS_CAN_ECHO 0x01		/* loop sent frames back locally */
#define CGW_FLAGS_CAN_SRC_TSTAMP 0x02	/* keep the received timestamp */
#define CGW_FLAGS_CAN_IIF_TX_OK 0x04	/* may send back to the source */
#define CGW_FLAGS_CAN_FD 0x08		/* a job for CAN FD frames */

/* The four operations of a modification: AND, OR, XOR, SET. */
#define CGW_MOD_FUNCS 4

/* Which parts of the frame a modification touches (its modtype). */
#define CGW_MOD_ID	0x01
#define CGW_MOD_DLC	0x02		/* classic CAN: the DLC, 0 to 15 */
#define CGW_MOD_LEN	CGW_MOD_DLC	/* CAN FD: the data length */
#define CGW_MOD_DATA	0x04
#define CGW_MOD_FLAGS	0x08		/* CAN FD: the flags */

#define CGW_FRAME_MODS 4

#define MAX_MODFUNCTIONS (CGW_MOD_FUNCS * CGW_FRAME_MODS)

/**
 * struct cgw_frame_mod - one operation on classic CAN frames
 * @cf: the operand
 * @modtype: CGW_MOD_ID, CGW_MOD_DLC and CGW_MOD_DATA, or'ed
 */
struct cgw_frame_mod {
	struct can_frame cf;
	__u8 modtype;
} __attribute__((packed));

/**
 * struct cgw_fdframe_mod - one operation on CAN FD frames
 * @cf: the operand
 * @modtype: CGW_MOD_ID, CGW_MOD_LEN, CGW_MOD_DATA and CGW_MOD_FLAGS, or'ed
 */
struct cgw_fdframe_mod {
	struct canfd_frame cf;
	__u8 modtype;
} __attribute__((packed));

#define CGW_MODATTR_LEN sizeof(struct cgw_frame_mod)
#define CGW_FDMODATTR_LEN sizeof(struct cgw_fdframe_mod)

/*
 * Checksum indices name data bytes: 0 and up count from the first byte,
 * -1 and down from the end of the received frame's data (-1 is the last
 * byte). For classic jobs they lie in -8..7, for CAN FD jobs in -64..63.
 * The checksum runs from from_idx to to_idx, either way round, and is
 * stored at result_idx, after the modifications.
 */

/**
 * struct cgw_csum_xor - an XOR checksum
 * @from_idx: first byte
 * @to_idx: last byte
 * @result_idx: where the checksum goes
 * @init_xor_val: starting value
 */
struct cgw_csum_xor {
	__s8 from_idx;
	__s8 to_idx;
	__s8 result_idx;
	__u8 init_xor_val;
} __attribute__((packed));

/**
 * struct cgw_csum_crc8 - a table driven CRC8 checksum
 * @from_idx: first byte
 * @to_idx: last byte
 * @result_idx: where the checksum goes
 * @init_crc_val: starting value
 * @final_xor_val: XORed into the result
 * @crctab: the CRC table of the polynomial
 * @profile: CGW_CRC8PRF_*, one more value fed in after the data
 * @profile_data: that value, or a table of them
 */
struct cgw_csum_crc8 {
	__s8 from_idx;
	__s8 to_idx;
	__s8 result_idx;
	__u8 init_crc_val;
	__u8 final_xor_val;
	__u8 crctab[256];
	__u8 profile;
	__u8 profile_data[20];
} __attribute__((packed));

#define CGW_CS_XOR_LEN  sizeof(struct cgw_csum_xor)
#define CGW_CS_CRC8_LEN  sizeof(struct cgw_csum_crc8)

/* What a CRC8 feeds in after the data bytes. */
enum {
	CGW_CRC8PRF_UNSPEC,
	CGW_CRC8PRF_1U8,	/* profile_data[0] */
	CGW_CRC8PRF_16U8,	/* profile_data[data[1] & 0xF] */
	CGW_CRC8PRF_SFFID_XOR,	/* the two low bytes of the ID, XORed */
	__CGW_CRC8PRF_MAX
};

#define CGW_CRC8PRF_MAX (__CGW_CRC8PRF_MAX - 1)

#endif /* !_UAPI_CAN_GW_H */
