/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtual CAN bus: controllers made by "ip link add DEV type can"
 * (vbus_main.c) are nodes on a bus per network namespace and device
 * group (vbus_bus.c), where frames take the time their bits take at the
 * configured bitrate (vbus_wire.c) and each attempt moves the nodes'
 * frames and error counters (vbus_node.c); faults are injected through
 * debugfs (vbus_debugfs.c). Shared names start with vbus_.
 */

#ifndef _CAN_VBUS_H
#define _CAN_VBUS_H

#include <linux/can/dev.h>
#include <linux/can/link-factory.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>

/* Frames a node holds for the bus at once, sent in order (a TX FIFO). */
#define VBUS_TX_FIFO		CAN_LINK_TX_SLOTS

/* Groups from here on name buses that all namespaces share. */
#define VBUS_SHARED_GROUP	0x10000

/* Fault confinement limits (ISO 11898-1) */
#define VBUS_WARNING_LIMIT	96
#define VBUS_PASSIVE_LIMIT	128
#define VBUS_BUS_OFF_LIMIT	256
#define VBUS_COUNTER_MAX	255

/**
 * struct vbus_wire - a frame as the bus sees it
 * @arb_key: the arbitration field, first bit highest: the lower key wins
 * @nominal_bits: bits at the nominal bitrate, SOF to the end of the
 *	interframe space, stuff bits included
 * @data_bits: bits at the data bitrate (a CAN FD frame with BRS)
 * @is_fd: a CAN FD frame
 */
struct vbus_wire {
	u32 arb_key;
	u16 nominal_bits;
	u16 data_bits;
	bool is_fd;
};

/**
 * struct vbus_faults - faults a test asked for; all under the bus lock
 * @bit_errors: attempts still to end in a bit error
 * @form_errors: receptions still to end in a form error (node only)
 * @no_ack: the node does not acknowledge
 */
struct vbus_faults {
	unsigned int bit_errors;
	unsigned int form_errors;
	bool no_ack;
};

struct vbus;

/**
 * enum vbus_role - what a node makes of the attempt on the wire
 * @VBUS_ROLE_NONE: nothing: it sends it, is bus-off or came too late
 * @VBUS_ROLE_DECODES: it decodes the frame
 * @VBUS_ROLE_FAILS: it cannot (another bitrate or frame format, or an
 *	injected form error)
 */
enum vbus_role {
	VBUS_ROLE_NONE,
	VBUS_ROLE_DECODES,
	VBUS_ROLE_FAILS,
};

/**
 * struct vbus_event - a bus error as a node reports it
 * @prot_type: CAN_ERR_PROT_* of data[2]
 * @prot_loc: CAN_ERR_PROT_LOC_* of data[3]
 * @is_tx: the node was sending
 */
struct vbus_event {
	u8 prot_type;
	u8 prot_loc;
	bool is_tx;
};

/**
 * struct vbus_node - one controller, the factory's state of a device
 * @dev: its device
 * @bus: the bus it is on while up, else NULL; written under RTNL and the
 *	bus lock, read under either
 * @bus_link: on @bus->nodes
 * @all_link: on the module's list of devices, under RTNL
 * @debugfs: its directory in its bus's, while on the bus
 * @wire: the frames of the TX FIFO as the bus sees them
 * @queued_at: when each was queued
 * @fifo_head: the FIFO slot sent next
 * @fifo_len: frames in the FIFO
 * @tec: transmit error counter
 * @rec: receive error counter
 * @bitrate: nominal bitrate, fixed while up
 * @dbitrate: data bitrate, if CAN FD is on
 * @ctrlmode: control modes, fixed while up
 * @faults: injected faults
 * @role: what it makes of the attempt on the wire
 * @stuck_ns: time of a stuck bus not yet counted in whole 8-bit steps
 * @joined_at: when it came on the bus; an attempt that started earlier
 *	(a late timer works through attempts after their time) goes on
 *	without it
 *
 * All fields below @debugfs are under the bus lock.
 */
struct vbus_node {
	struct net_device *dev;
	struct vbus *bus;
	struct list_head bus_link;
	struct list_head all_link;
	struct dentry *debugfs;

	struct vbus_wire wire[VBUS_TX_FIFO];
	ktime_t queued_at[VBUS_TX_FIFO];
	unsigned int fifo_head;
	unsigned int fifo_len;
	unsigned int tec;
	unsigned int rec;
	u32 bitrate;
	u32 dbitrate;
	u32 ctrlmode;
	struct vbus_faults faults;
	enum vbus_role role;
	u64 stuck_ns;
	ktime_t joined_at;
};

/**
 * enum vbus_outcome - how an attempt to send a frame ends
 * @VBUS_SENT: acknowledged and received
 * @VBUS_NO_ACK: nobody acknowledged: an ACK error at the sender
 * @VBUS_BIT_ERROR: the sender saw a bit it did not send
 * @VBUS_DESTROYED: a receiver could not decode it and sent an error flag
 */
enum vbus_outcome {
	VBUS_SENT,
	VBUS_NO_ACK,
	VBUS_BIT_ERROR,
	VBUS_DESTROYED,
};

/**
 * struct vbus_stats - what the bus counts, under its lock
 * @frames: frames sent and received
 * @errors: attempts that ended in an error frame
 * @arbitration_lost: attempts that lost arbitration
 * @busy_ns: time the bus was not idle
 * @timer_ns: time spent in the bus timer, what the bus costs the CPU
 * @late_ns: sum over the attempts of how late their end was noticed
 * @late_max_ns: the latest of them
 * @slips: times the bus fell behind the clock and let the wire rest
 * @slip_ns: the wire time so lost
 * @window_start: start of the current one-second load window
 * @window_busy_ns: busy time within it
 * @load_permille: load of the last complete window
 */
struct vbus_stats {
	u64 frames;
	u64 errors;
	u64 arbitration_lost;
	u64 busy_ns;
	u64 timer_ns;
	u64 late_ns;
	u64 late_max_ns;
	u64 slips;
	u64 slip_ns;
	ktime_t window_start;
	u64 window_busy_ns;
	unsigned int load_permille;
};

/**
 * struct vbus - one virtual bus
 * @link: on the list of buses, under vbus_registry_lock
 * @net: namespace of its nodes, NULL for a shared group
 * @group: device group of its nodes
 * @users: nodes on it, under vbus_registry_lock
 * @created: when it came to be, for the load figures
 * @lock: everything below and the nodes' bus state; any context that may
 *	run softirqs, always with BH disabled (xmit, the timer, debugfs)
 * @nodes: its nodes
 * @timer: ends the attempt on the wire; a soft hrtimer (softirq)
 * @sender: the node whose attempt is on the wire, or NULL
 * @outcome: how that attempt ends
 * @attempt_start: when that attempt started
 * @idle_at: when the wire is free again
 * @stuck_until: a stuck dominant bus recovers then
 * @stuck_tick: when the stuck bus last raised the counters
 * @faults: injected faults of the whole bus
 * @stats: what it counts
 * @debugfs: its directory
 */
struct vbus {
	struct list_head link;
	struct net *net;
	u32 group;
	unsigned int users;
	ktime_t created;

	spinlock_t lock;	/* see above: BH off, any context */
	struct list_head nodes;
	struct hrtimer timer;
	struct vbus_node *sender;
	enum vbus_outcome outcome;
	ktime_t attempt_start;
	ktime_t idle_at;
	ktime_t stuck_until;
	ktime_t stuck_tick;
	struct vbus_faults faults;
	struct vbus_stats stats;
	struct dentry *debugfs;
};

static inline struct vbus_node *vbus_node(struct net_device *dev)
{
	return can_link_priv(dev)->drv;
}

static inline enum can_state vbus_node_state(const struct vbus_node *node)
{
	const struct can_priv *priv = netdev_priv(node->dev);

	return priv->state;
}

/* vbus_wire.c */
void vbus_wire_of_frame(struct vbus_wire *wire, const struct sk_buff *skb,
			u32 ctrlmode);
u64 vbus_wire_ns(const struct vbus_wire *wire, u32 bitrate, u32 dbitrate);
u64 vbus_bits_ns(unsigned int bits, u32 bitrate);

/* vbus_node.c */
void vbus_node_error(struct vbus_node *node, const struct vbus_event *ev,
		     unsigned int tec_add, unsigned int rec_add, ktime_t at);
void vbus_node_errors(struct vbus_node *node, const struct vbus_event *ev,
		      unsigned int tec_add, unsigned int rec_add,
		      unsigned int count, ktime_t at);
void vbus_node_lost_arbitration(struct vbus_node *node, unsigned int bit,
				ktime_t at);
void vbus_node_sent(struct vbus *bus, struct vbus_node *tx, ktime_t end);
void vbus_node_drop_head(struct vbus_node *node);
void vbus_node_drop_stale(struct vbus_node *node);
void vbus_node_fifo_pop(struct vbus_node *node);

/* vbus_bus.c */
int vbus_join(struct vbus_node *node);
void vbus_leave(struct vbus_node *node);
netdev_tx_t vbus_queue(struct vbus_node *node, struct sk_buff *skb);
void vbus_restart(struct vbus_node *node);
void vbus_force_bus_off(struct vbus_node *node);
void vbus_stick_dominant(struct vbus *bus, unsigned int ms);
void vbus_unstick(struct vbus *bus);
void vbus_roll_load(struct vbus *bus, ktime_t now);

/* vbus_debugfs.c */
void vbus_debugfs_init(void);
void vbus_debugfs_exit(void);
void vbus_debugfs_add_bus(struct vbus *bus);
void vbus_debugfs_add_node(struct vbus_node *node);
void vbus_debugfs_remove(struct dentry *dir);

#endif /* !_CAN_VBUS_H */
