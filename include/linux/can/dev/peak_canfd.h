/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The message interface of PEAK-System's CAN FD firmware ("uCAN"), which
 * its USB adapters (peak_usb) and PCIe cards (peak_pciefd) share.
 *
 * The host sends commands of eight bytes, each starting with a little
 * endian word that holds the channel in its top four bits and the
 * opcode in its low ten. The firmware sends messages that start with
 * their size and type and, for received frames, errors and status, a
 * 64-bit time stamp. Every structure is packed and little endian as
 * the firmware lays it out; the sizes are checked at the end.
 */

#ifndef _CAN_DEV_PEAK_CANFD_H
#define _CAN_DEV_PEAK_CANFD_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include <asm/byteorder.h>

/* ---- Commands, host to firmware ---- */

#define PUCAN_CMD_NOP			0x00
#define PUCAN_CMD_END_OF_COLLECTION	0x3ff	/* ends a list of commands */

/* Controller modes. */
#define PUCAN_CMD_RESET_MODE		0x01
#define PUCAN_CMD_NORMAL_MODE		0x02
#define PUCAN_CMD_LISTEN_ONLY_MODE	0x03

/* Nominal ("slow") and data phase ("fast") bit timing. */
#define PUCAN_CMD_TIMING_SLOW		0x04
#define PUCAN_CMD_TIMING_FAST		0x05

/* Acceptance filters for standard ids. */
#define PUCAN_CMD_SET_STD_FILTER	0x06
#define PUCAN_CMD_FILTER_STD		0x08

/* The rest: abort, error counters, options, and a barrier whose status
 * message tells that every frame received before it was delivered.
 */
#define PUCAN_CMD_RESERVED2		0x07
#define PUCAN_CMD_TX_ABORT		0x09
#define PUCAN_CMD_WR_ERR_CNT		0x0a
#define PUCAN_CMD_SET_EN_OPTION		0x0b
#define PUCAN_CMD_CLR_DIS_OPTION	0x0c
#define PUCAN_CMD_RX_BARRIER		0x10

/* Any command: the opcode word, then three words of arguments. */
struct __packed pucan_command {
	__le16 opcode_channel;
	u16 args[3];
};

/* The opcode word of a command for channel @index. */
static inline __le16 pucan_cmd_opcode_channel(int index, int opcode)
{
	return cpu_to_le16((index << 12) | (opcode & PUCAN_CMD_END_OF_COLLECTION));
}

static inline u16 pucan_cmd_get_opcode(struct pucan_command *c)
{
	return le16_to_cpu(c->opcode_channel) & PUCAN_CMD_END_OF_COLLECTION;
}

/* TIMING_SLOW: field widths (the TSGEG spelling is the firmware's
 * documentation's), masks, and the fields; sjw_t carries triple sampling
 * in bit 7.
 */
#define PUCAN_TSLOW_BRP_BITS		10
#define PUCAN_TSLOW_BRP_MASK		((1 << PUCAN_TSLOW_BRP_BITS) - 1)
#define PUCAN_TSLOW_BRP(b)		((b) & PUCAN_TSLOW_BRP_MASK)
#define PUCAN_TSLOW_TSGEG1_BITS		8
#define PUCAN_TSLOW_TSEG1_MASK		((1 << PUCAN_TSLOW_TSGEG1_BITS) - 1)
#define PUCAN_TSLOW_TSEG1(t)		((t) & PUCAN_TSLOW_TSEG1_MASK)
#define PUCAN_TSLOW_TSGEG2_BITS		7
#define PUCAN_TSLOW_TSEG2_MASK		((1 << PUCAN_TSLOW_TSGEG2_BITS) - 1)
#define PUCAN_TSLOW_TSEG2(t)		((t) & PUCAN_TSLOW_TSEG2_MASK)
#define PUCAN_TSLOW_SJW_BITS		7
#define PUCAN_TSLOW_SJW_MASK		((1 << PUCAN_TSLOW_SJW_BITS) - 1)
#define PUCAN_TSLOW_SJW_T(s, t)		(((s) & PUCAN_TSLOW_SJW_MASK) | ((!!(t)) << 7))

struct __packed pucan_timing_slow {
	__le16 opcode_channel;
	u8 ewl;		/* error warning limit */
	u8 sjw_t;
	u8 tseg2, tseg1;
	__le16 brp;
};

/* TIMING_FAST: the same for the data phase, with narrower fields. */
#define PUCAN_TFAST_BRP_BITS		10
#define PUCAN_TFAST_BRP_MASK		((1 << PUCAN_TFAST_BRP_BITS) - 1)
#define PUCAN_TFAST_BRP(b)		((b) & PUCAN_TFAST_BRP_MASK)
#define PUCAN_TFAST_TSGEG1_BITS		5
#define PUCAN_TFAST_TSEG1_MASK		((1 << PUCAN_TFAST_TSGEG1_BITS) - 1)
#define PUCAN_TFAST_TSEG1(t)		((t) & PUCAN_TFAST_TSEG1_MASK)
#define PUCAN_TFAST_TSGEG2_BITS		4
#define PUCAN_TFAST_TSEG2_MASK		((1 << PUCAN_TFAST_TSGEG2_BITS) - 1)
#define PUCAN_TFAST_TSEG2(t)		((t) & PUCAN_TFAST_TSEG2_MASK)
#define PUCAN_TFAST_SJW_BITS		4
#define PUCAN_TFAST_SJW_MASK		((1 << PUCAN_TFAST_SJW_BITS) - 1)
#define PUCAN_TFAST_SJW(s)		((s) & PUCAN_TFAST_SJW_MASK)

struct __packed pucan_timing_fast {
	__le16 opcode_channel;
	u8 unused;
	u8 sjw;
	u8 tseg2, tseg1;
	__le16 brp;
};

/* FILTER_STD and SET_STD_FILTER: one row of the standard id filter, a
 * bit mask of 32 ids.
 */
#define PUCAN_FLTSTD_ROW_IDX_BITS	6
#define PUCAN_FLTSTD_ROW_IDX_MAX	((1 << PUCAN_FLTSTD_ROW_IDX_BITS) - 1)

struct __packed pucan_filter_std {
	__le16 opcode_channel;
	__le16 idx;
	__le32 mask;
};

struct __packed pucan_std_filter {
	__le16 opcode_channel;
	u8 unused, idx;
	__le32 mask;
};

/* TX_ABORT: flush what waits to be sent. */
#define PUCAN_TX_ABORT_FLUSH		0x01

struct __packed pucan_tx_abort {
	__le16 opcode_channel;
	__le16 flags;
	u32 unused;
};

/* WR_ERR_CNT: set the error counters whose enable bit is in sel_mask. */
struct __packed pucan_wr_err_cnt {
	__le16 opcode_channel;
	__le16 sel_mask;
	u8 tx_counter, rx_counter;
	u16 unused;
};

#define PUCAN_WRERRCNT_TE		0x4000
#define PUCAN_WRERRCNT_RE		0x8000

/* SET_EN_OPTION, CLR_DIS_OPTION: error and bus load messages, and ISO
 * CAN FD framing.
 */
#define PUCAN_OPTION_ERROR		0x01
#define PUCAN_OPTION_BUSLOAD		0x02
#define PUCAN_OPTION_CANDFDISO		0x04

struct __packed pucan_options {
	__le16 opcode_channel;
	__le16 options;
	u32 unused;
};

/* ---- Messages, firmware to host, and frames to send ---- */

#define PUCAN_MSG_CAN_RX		0x001
#define PUCAN_MSG_ERROR			0x002
#define PUCAN_MSG_STATUS		0x003
#define PUCAN_MSG_BUSLOAD		0x004
#define PUCAN_MSG_CACHE_CRITICAL	0x102
#define PUCAN_MSG_CAN_TX		0x1000

/* What every message from the firmware starts with. */
struct __packed pucan_msg {
	__le16 size, type;
	__le32 ts_low, ts_high;
};

/* Flags of a frame, received or to send. */
#define PUCAN_MSG_RTR			0x01
#define PUCAN_MSG_EXT_ID		0x02
#define PUCAN_MSG_LOOPED_BACK		0x04
#define PUCAN_MSG_SINGLE_SHOT		0x08
#define PUCAN_MSG_EXT_DATA_LEN		0x10	/* a CAN FD frame */
#define PUCAN_MSG_BITRATE_SWITCH	0x20
#define PUCAN_MSG_ERROR_STATE_IND	0x40	/* ESI */
#define PUCAN_MSG_SELF_RECEIVE		0x80

/* The channel in the low nibble, the DLC in the high one. */
#define PUCAN_MSG_CHANNEL_DLC(c, d)	(((c) & 0xf) | ((d) << 4))

/* A received frame; tag is the host's cookie of a frame it sent. */
struct __packed pucan_rx_msg {
	__le16 size, type;
	__le32 ts_low, ts_high;
	__le32 tag_low, tag_high;
	u8 channel_dlc, client;
	__le16 flags;
	__le32 can_id;
	u8 d[];
};

static inline int pucan_msg_get_channel(const struct pucan_rx_msg *msg)
{
	return msg->channel_dlc & 0xf;
}

static inline u8 pucan_msg_get_dlc(const struct pucan_rx_msg *msg)
{
	return msg->channel_dlc >> 4;
}

/* A frame to send. */
struct __packed pucan_tx_msg {
	__le16 size, type;
	__le32 tag_low, tag_high;
	u8 channel_dlc, client;
	__le16 flags;
	__le32 can_id;
	u8 d[];
};

/* Bus errors: the type of error in channel_type_d, and the counters. */
#define PUCAN_ERMSG_BIT_ERROR		0x0
#define PUCAN_ERMSG_FORM_ERROR		0x1
#define PUCAN_ERMSG_STUFF_ERROR		0x2
#define PUCAN_ERMSG_OTHER_ERROR		0x3
#define PUCAN_ERMSG_ERR_CNT_DEC		0x4

struct __packed pucan_error_msg {
	__le16 size, type;
	__le32 ts_low, ts_high;
	u8 channel_type_d, code_g;
	u8 tx_err_cnt, rx_err_cnt;
};

static inline int pucan_error_get_channel(const struct pucan_error_msg *msg)
{
	return msg->channel_type_d & 0xf;
}

static inline int pucan_ermsg_get_channel(const struct pucan_error_msg *msg)
{
	return pucan_error_get_channel(msg);
}

/* Status: the channel in the low nibble of channel_p_w_b, then the
 * barrier's answer and the error state, one bit each.
 */
#define PUCAN_RX_BARRIER		0x10
#define PUCAN_BUS_PASSIVE		0x20
#define PUCAN_BUS_WARNING		0x40
#define PUCAN_BUS_BUSOFF		0x80

struct __packed pucan_status_msg {
	__le16 size, type;
	__le32 ts_low, ts_high;
	u8 channel_p_w_b;
	u8 unused[3];
};

static inline int pucan_status_get_channel(const struct pucan_status_msg *msg)
{
	return msg->channel_p_w_b & 0xf;
}

static inline int pucan_stmsg_get_channel(const struct pucan_status_msg *msg)
{
	return pucan_status_get_channel(msg);
}

static inline int pucan_status_is_busoff(const struct pucan_status_msg *msg)
{
	return msg->channel_p_w_b & PUCAN_BUS_BUSOFF;
}

static inline int pucan_status_is_warning(const struct pucan_status_msg *msg)
{
	return msg->channel_p_w_b & PUCAN_BUS_WARNING;
}

static inline int pucan_status_is_passive(const struct pucan_status_msg *msg)
{
	return msg->channel_p_w_b & PUCAN_BUS_PASSIVE;
}

static inline int pucan_status_is_rx_barrier(const struct pucan_status_msg *msg)
{
	return msg->channel_p_w_b & PUCAN_RX_BARRIER;
}

/* The firmware's layout, byte for byte. */
static_assert(sizeof(struct pucan_command) == 8);
static_assert(sizeof(struct pucan_timing_slow) == 8);
static_assert(sizeof(struct pucan_timing_fast) == 8);
static_assert(sizeof(struct pucan_filter_std) == 8);
static_assert(sizeof(struct pucan_std_filter) == 8);
static_assert(sizeof(struct pucan_tx_abort) == 8);
static_assert(sizeof(struct pucan_wr_err_cnt) == 8);
static_assert(sizeof(struct pucan_options) == 8);
static_assert(sizeof(struct pucan_msg) == 12);
static_assert(sizeof(struct pucan_rx_msg) == 28);
static_assert(sizeof(struct pucan_tx_msg) == 20);
static_assert(sizeof(struct pucan_error_msg) == 16);
static_assert(sizeof(struct pucan_status_msg) == 16);

#endif /* !_CAN_DEV_PEAK_CANFD_H */
