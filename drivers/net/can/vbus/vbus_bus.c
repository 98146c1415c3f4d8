// SPDX-License-Identifier: GPL-2.0
/* The wire of a virtual bus: one attempt at a time. When the wire falls
 * idle, every node with a frame waiting takes part in arbitration; the
 * lowest key wins and the others wait for the next idle wire. How the
 * attempt will end is known when it starts (who decodes, who
 * acknowledges, which fault strikes); a soft hrtimer ends it, and the
 * next one starts at that same instant, so that back-to-back frames are
 * paced by the bit arithmetic, not by timer latency.
 */

#include <linux/capability.h>
#include <linux/slab.h>
#include "vbus.h"

/* Attempts one timer run may end, should it come very late. */
#define MAX_ATTEMPTS_PER_RUN	16
/* Least rest a bus that fell behind gives the CPU before its next run. */
#define MIN_SLIP_REST_NS	(100 * NSEC_PER_USEC)
/* Error flag and delimiter replace the rest of a failed frame: the
 * attempt is 6 bits longer than the frame, 14 for an error-passive
 * sender, which suspends its next transmission for 8 more.
 */
#define ERROR_EXTRA_BITS	6
#define SUSPEND_BITS		8
/* A stuck dominant bus raises counters every 8 bits; the timer looks at
 * it this often.
 */
#define STUCK_TICK_NS		(250 * NSEC_PER_USEC)

/* Buses by namespace and group; process context (ndo_open, ndo_stop). */
static DEFINE_MUTEX(vbus_registry_lock);
static LIST_HEAD(vbus_registry);

static bool is_listen_only(const struct vbus_node *node)
{
	return node->ctrlmode & CAN_CTRLMODE_LISTENONLY;
}

static bool is_awake(const struct vbus_node *node)
{
	return vbus_node_state(node) != CAN_STATE_BUS_OFF;
}

static bool is_error_active(const struct vbus_node *node)
{
	return node->tec < VBUS_PASSIVE_LIMIT && node->rec < VBUS_PASSIVE_LIMIT;
}

static bool is_stuck(const struct vbus *bus)
{
	return bus->stuck_until;
}

static bool may_send(const struct vbus_node *node)
{
	return node->fifo_len && is_awake(node) && !is_listen_only(node);
}

/* A frame takes part in arbitration only from the moment it was queued:
 * a late timer must not start a frame before its write.
 */
static bool contends_at(const struct vbus_node *node, ktime_t at)
{
	return may_send(node) &&
	       !ktime_after(node->queued_at[node->fifo_head], at);
}

static const struct vbus_wire *head_wire(const struct vbus_node *node)
{
	return &node->wire[node->fifo_head];
}

static bool take_fault(unsigned int *count)
{
	if (!*count)
		return false;
	(*count)--;
	return true;
}

static void arm(struct vbus *bus, ktime_t at)
{
	lockdep_assert_held(&bus->lock);
	hrtimer_start(&bus->timer, at, HRTIMER_MODE_ABS_SOFT);
}

/* Keys hold the arbitration field from bit 31 down; the first bit where
 * the loser sent recessive under the winner's dominant.
 */
static unsigned int lost_at_bit(const struct vbus_node *loser,
				const struct vbus_node *winner)
{
	u32 diff = head_wire(loser)->arb_key ^ head_wire(winner)->arb_key;

	return diff ? 31 - __fls(diff) : 0;
}

/* The winner, after the losers have been told. On equal keys the node
 * that has waited longest wins: winners go to the end of the list.
 */
static struct vbus_node *arbitrate(struct vbus *bus, ktime_t at)
{
	struct vbus_node *node, *winner = NULL;

	list_for_each_entry(node, &bus->nodes, bus_link) {
		vbus_node_drop_stale(node);
		if (contends_at(node, at) &&
		    (!winner || head_wire(node)->arb_key <
				head_wire(winner)->arb_key))
			winner = node;
	}
	if (!winner)
		return NULL;
	list_for_each_entry(node, &bus->nodes, bus_link) {
		if (node == winner || !contends_at(node, at))
			continue;
		bus->stats.arbitration_lost++;
		vbus_node_lost_arbitration(node, lost_at_bit(node, winner), at);
		if (node->ctrlmode & CAN_CTRLMODE_ONE_SHOT)
			vbus_node_drop_head(node);
	}
	list_move_tail(&winner->bus_link, &bus->nodes);
	return winner;
}

/* Whether @rx makes sense of @tx's frame: same bit timing, a frame
 * format it speaks, and no form error injected.
 */
static bool decodes(struct vbus_node *rx, const struct vbus_node *tx)
{
	const struct vbus_wire *wire = head_wire(tx);

	if (rx->bitrate != tx->bitrate)
		return false;
	if (wire->is_fd) {
		if (!(rx->ctrlmode & CAN_CTRLMODE_FD) ||
		    ((rx->ctrlmode ^ tx->ctrlmode) & CAN_CTRLMODE_FD_NON_ISO))
			return false;
		if (wire->data_bits && rx->dbitrate != tx->dbitrate)
			return false;
	}
	return !take_fault(&rx->faults.form_errors);
}

static bool presumes_ack(const struct vbus_node *tx)
{
	return tx->ctrlmode & (CAN_CTRLMODE_PRESUME_ACK | CAN_CTRLMODE_LOOPBACK);
}

/* How @tx's attempt, starting @at, ends, and each node's part in it. */
static enum vbus_outcome judge(struct vbus *bus, struct vbus_node *tx,
			       ktime_t at)
{
	bool acked = presumes_ack(tx), destroyed = false;
	struct vbus_node *rx;

	list_for_each_entry(rx, &bus->nodes, bus_link) {
		rx->role = VBUS_ROLE_NONE;
		if (rx == tx || !is_awake(rx) || ktime_after(rx->joined_at, at))
			continue;
		if (!decodes(rx, tx)) {
			rx->role = VBUS_ROLE_FAILS;
			if (!is_listen_only(rx) && is_error_active(rx))
				destroyed = true;
			continue;
		}
		rx->role = VBUS_ROLE_DECODES;
		if (!is_listen_only(rx) && !rx->faults.no_ack)
			acked = true;
	}
	if (take_fault(&tx->faults.bit_errors) ||
	    take_fault(&bus->faults.bit_errors))
		return VBUS_BIT_ERROR;
	if (destroyed)
		return VBUS_DESTROYED;
	return acked ? VBUS_SENT : VBUS_NO_ACK;
}

static u64 attempt_ns(const struct vbus_node *tx, enum vbus_outcome outcome)
{
	u64 ns = vbus_wire_ns(head_wire(tx), tx->bitrate, tx->dbitrate);
	unsigned int extra;

	if (outcome == VBUS_SENT)
		return ns;
	extra = ERROR_EXTRA_BITS;
	if (tx->tec >= VBUS_PASSIVE_LIMIT)
		extra += SUSPEND_BITS;
	return ns + vbus_bits_ns(extra, tx->bitrate);
}

/* Load is kept per second of bus time; an attempt counts in the second
 * it starts in.
 */
static void account(struct vbus_stats *stats, ktime_t at, u64 ns)
{
	if (ktime_sub(at, stats->window_start) >= NSEC_PER_SEC) {
		stats->load_permille = ktime_sub(at, stats->window_start) <
					       2 * NSEC_PER_SEC ?
				       div_u64(stats->window_busy_ns,
					       NSEC_PER_MSEC) : 0;
		stats->window_start = at;
		stats->window_busy_ns = 0;
	}
	stats->window_busy_ns += ns;
	stats->busy_ns += ns;
}

/**
 * vbus_roll_load() - close the load window if a second has passed
 * @bus: the bus
 * @now: current time
 *
 * Context: bus lock held.
 */
void vbus_roll_load(struct vbus *bus, ktime_t now)
{
	lockdep_assert_held(&bus->lock);
	account(&bus->stats, now, 0);
}

/* When the earliest frame waiting was queued, if one waits after @at. */
static bool first_queued_after(struct vbus *bus, ktime_t *at)
{
	struct vbus_node *node;
	bool found = false;
	ktime_t t;

	list_for_each_entry(node, &bus->nodes, bus_link) {
		if (!may_send(node))
			continue;
		t = node->queued_at[node->fifo_head];
		if (!found || ktime_before(t, *at))
			*at = t;
		found = true;
	}
	return found;
}

/* Start the next attempt at @at, or at the first write after it, if a
 * node has a frame.
 */
static bool start_attempt(struct vbus *bus, ktime_t at)
{
	struct vbus_node *tx = arbitrate(bus, at);
	u64 ns;

	if (!tx && first_queued_after(bus, &at))
		tx = arbitrate(bus, at);
	if (!tx)
		return false;
	bus->sender = tx;
	bus->outcome = judge(bus, tx, at);
	ns = attempt_ns(tx, bus->outcome);
	bus->attempt_start = at;
	bus->idle_at = ktime_add_ns(at, ns);
	account(&bus->stats, at, ns);
	return true;
}

static const struct vbus_event tx_ack_error = {
	.prot_type = CAN_ERR_PROT_UNSPEC, .prot_loc = CAN_ERR_PROT_LOC_ACK,
	.is_tx = true,
};

static const struct vbus_event tx_bit_error = {
	.prot_type = CAN_ERR_PROT_BIT, .is_tx = true,
};

static const struct vbus_event rx_stuff_error = {
	.prot_type = CAN_ERR_PROT_STUFF,
};

static const struct vbus_event rx_form_error = {
	.prot_type = CAN_ERR_PROT_FORM,
};

/* Receivers of a failed attempt. Within the frame, a node that could not
 * decode it raised the error flag (+1, and +8 for the dominant bit that
 * follows it) and the others saw that flag as a stuff error (+1). After
 * a missing ACK, every receiver sees the sender's flag in the ACK
 * delimiter, a form error (+1).
 */
static void receivers_saw_error(struct vbus *bus, ktime_t at)
{
	bool after_ack = bus->outcome == VBUS_NO_ACK;
	struct vbus_node *rx;

	list_for_each_entry(rx, &bus->nodes, bus_link) {
		if (rx->role == VBUS_ROLE_NONE || is_listen_only(rx))
			continue;
		if (after_ack)
			vbus_node_error(rx, &rx_form_error, 0, 1, at);
		else if (rx->role == VBUS_ROLE_FAILS)
			vbus_node_error(rx, &rx_form_error, 0, 9, at);
		else
			vbus_node_error(rx, &rx_stuff_error, 0, 1, at);
	}
}

static void tx_failed(struct vbus *bus, struct vbus_node *tx, ktime_t at)
{
	unsigned int tec_add = 8;

	bus->stats.errors++;
	if (bus->outcome == VBUS_NO_ACK) {
		/* An error-passive sender without ACK does not count it. */
		if (tx->tec >= VBUS_PASSIVE_LIMIT)
			tec_add = 0;
		vbus_node_error(tx, &tx_ack_error, tec_add, 0, at);
	} else {
		vbus_node_error(tx, &tx_bit_error, tec_add, 0, at);
	}
	/* The sender's error flag reaches every receiver, after the ACK
	 * slot too (in the ACK delimiter) for a node that did not ack.
	 */
	receivers_saw_error(bus, at);
	if (tx->fifo_len && is_awake(tx) &&
	    (tx->ctrlmode & CAN_CTRLMODE_ONE_SHOT))
		vbus_node_drop_head(tx);
}

/* The attempt on the wire is over at bus->idle_at. */
static void end_attempt(struct vbus *bus)
{
	struct vbus_node *tx = bus->sender;

	bus->sender = NULL;
	if (!tx)
		return;
	if (bus->outcome == VBUS_SENT)
		vbus_node_sent(bus, tx, bus->idle_at);
	else
		tx_failed(bus, tx, bus->idle_at);
}

/* Every 8 bits of a stuck dominant bus: +8 for a node with a frame to
 * send (it ends bus-off), +8 for the receive counter of the others.
 */
static void stuck_step(struct vbus *bus, ktime_t now)
{
	ktime_t until = min(now, bus->stuck_until);
	s64 elapsed = ktime_sub(until, bus->stuck_tick);
	struct vbus_node *node;
	unsigned int steps;
	u64 step_ns;

	list_for_each_entry(node, &bus->nodes, bus_link) {
		if (!is_awake(node) || is_listen_only(node))
			continue;
		/* Keep the rest: at a low bitrate 8 bits outlast a look. */
		step_ns = vbus_bits_ns(8, node->bitrate);
		node->stuck_ns += elapsed;
		steps = min_t(u64, div64_u64(node->stuck_ns, step_ns), 64);
		node->stuck_ns -= min_t(u64, node->stuck_ns, steps * step_ns);
		if (!steps)
			continue;
		if (node->fifo_len)
			vbus_node_errors(node, &tx_bit_error, 8, 0, steps, until);
		else
			vbus_node_errors(node, &rx_stuff_error, 0, 8, steps,
					 until);
	}
	/* A dominant wire is a busy one, for the load too. */
	account(&bus->stats, bus->stuck_tick, elapsed);
	bus->stuck_tick = until;
}

/* How long after its end on the wire an attempt reached the nodes. */
static void count_lateness(struct vbus_stats *stats, s64 late_ns)
{
	stats->late_ns += late_ns;
	stats->late_max_ns = max_t(u64, stats->late_max_ns, late_ns);
}

/* The CPU cannot keep pace with the wire (a slow or debug kernel, many
 * error frames): rather than catch up for ever in softirq context, the
 * wire rests. The attempt just started moves to a start that leaves the
 * CPU at least as long again as this run took; frames keep times that
 * follow one another, with a gap on the wire.
 */
static void slip(struct vbus *bus, ktime_t run_start)
{
	ktime_t now = ktime_get();
	s64 rest = max_t(s64, ktime_sub(now, run_start), MIN_SLIP_REST_NS);
	ktime_t start = ktime_add_ns(now, rest);
	s64 ns = ktime_sub(bus->idle_at, bus->attempt_start);

	bus->stats.slips++;
	bus->stats.slip_ns += ktime_sub(start, bus->attempt_start);
	bus->attempt_start = start;
	bus->idle_at = ktime_add_ns(start, ns);
}

/* Returns when the timer should run next, or 0 for an idle bus. */
static ktime_t run_bus(struct vbus *bus, ktime_t now)
{
	unsigned int n;

	if (is_stuck(bus)) {
		stuck_step(bus, now);
		if (ktime_before(now, bus->stuck_until))
			return min(ktime_add_ns(now, STUCK_TICK_NS),
				   bus->stuck_until);
		bus->idle_at = bus->stuck_until;
		bus->stuck_until = 0;
	}
	for (n = 0; n < MAX_ATTEMPTS_PER_RUN; n++) {
		if (ktime_before(now, bus->idle_at))
			return bus->idle_at;
		count_lateness(&bus->stats, ktime_sub(now, bus->idle_at));
		end_attempt(bus);
		if (!start_attempt(bus, bus->idle_at))
			return 0;
	}
	if (!ktime_before(now, bus->idle_at))
		slip(bus, now);
	return bus->idle_at;
}

static enum hrtimer_restart vbus_timer(struct hrtimer *timer)
{
	struct vbus *bus = container_of(timer, struct vbus, timer);
	ktime_t next;
	ktime_t start;

	spin_lock(&bus->lock);
	start = ktime_get();
	next = run_bus(bus, start);
	if (next)
		arm(bus, next);
	bus->stats.timer_ns += ktime_sub(ktime_get(), start);
	spin_unlock(&bus->lock);
	return HRTIMER_NORESTART;
}

/**
 * vbus_queue() - a node's ndo_start_xmit
 * @node: the node, on a bus
 * @skb: a valid frame, consumed
 *
 * The frame joins the node's FIFO; on an idle wire it starts at once.
 * The queue stops while the FIFO is full and while the node is bus-off.
 *
 * Context: softirq or BH disabled.
 * Return: NETDEV_TX_OK.
 */
netdev_tx_t vbus_queue(struct vbus_node *node, struct sk_buff *skb)
{
	struct vbus *bus = node->bus;
	unsigned int slot;
	ktime_t now;

	spin_lock_bh(&bus->lock);
	if (node->fifo_len == VBUS_TX_FIFO || !is_awake(node) ||
	    is_listen_only(node)) {
		node->dev->stats.tx_dropped++;
		kfree_skb(skb);
		goto out;
	}
	slot = (node->fifo_head + node->fifo_len) % VBUS_TX_FIFO;
	vbus_wire_of_frame(&node->wire[slot], skb, node->ctrlmode);
	now = ktime_get();
	node->queued_at[slot] = now;
	if (can_put_echo_skb(skb, node->dev, slot, 0)) {
		node->dev->stats.tx_dropped++;
		goto out;
	}
	if (++node->fifo_len == VBUS_TX_FIFO)
		netif_stop_queue(node->dev);

	if (!bus->sender && !is_stuck(bus) && !ktime_before(now, bus->idle_at) &&
	    start_attempt(bus, now))
		arm(bus, bus->idle_at);
out:
	spin_unlock_bh(&bus->lock);
	return NETDEV_TX_OK;
}

/**
 * vbus_restart() - do_set_mode(CAN_MODE_START): leave bus-off
 * @node: the node
 *
 * The device layer has flushed the echo slots. Counters start at 0.
 *
 * Context: process (the restart work or RTNL); the node may be leaving.
 */
void vbus_restart(struct vbus_node *node)
{
	struct vbus *bus = READ_ONCE(node->bus);
	struct can_priv *priv = netdev_priv(node->dev);

	if (!bus)
		return;
	spin_lock_bh(&bus->lock);
	if (!list_empty(&node->bus_link)) {
		node->tec = 0;
		node->rec = 0;
		node->fifo_head = 0;
		node->fifo_len = 0;
		priv->state = CAN_STATE_ERROR_ACTIVE;
		netif_wake_queue(node->dev);
	}
	spin_unlock_bh(&bus->lock);
}

/**
 * vbus_force_bus_off() - put a node bus-off now
 * @node: the node, on a bus
 *
 * Context: process; takes the bus lock.
 */
void vbus_force_bus_off(struct vbus_node *node)
{
	struct vbus *bus = node->bus;
	ktime_t now = ktime_get();

	spin_lock_bh(&bus->lock);
	if (is_awake(node)) {
		if (bus->sender == node)
			bus->sender = NULL;
		vbus_node_error(node, &tx_bit_error, VBUS_BUS_OFF_LIMIT, 0,
				now);
	}
	spin_unlock_bh(&bus->lock);
}

/**
 * vbus_stick_dominant() - hold the wire dominant for @ms milliseconds
 * @bus: the bus
 * @ms: how long, 1 to 60000
 *
 * The attempt on the wire ends in a bit error at once.
 *
 * Context: process; takes the bus lock.
 */
void vbus_stick_dominant(struct vbus *bus, unsigned int ms)
{
	struct vbus_node *node;
	ktime_t now = ktime_get();

	spin_lock_bh(&bus->lock);
	if (bus->sender) {
		bus->outcome = VBUS_BIT_ERROR;
		bus->idle_at = now;
		end_attempt(bus);
	}
	list_for_each_entry(node, &bus->nodes, bus_link)
		node->stuck_ns = 0;
	bus->stuck_tick = now;
	bus->stuck_until = ktime_add_ms(now, ms);
	arm(bus, now);
	spin_unlock_bh(&bus->lock);
}

/**
 * vbus_unstick() - end a stuck dominant bus now
 * @bus: the bus
 *
 * Context: process; takes the bus lock.
 */
void vbus_unstick(struct vbus *bus)
{
	ktime_t now = ktime_get();

	spin_lock_bh(&bus->lock);
	if (is_stuck(bus) && ktime_before(now, bus->stuck_until)) {
		bus->stuck_until = now;
		arm(bus, now);
	}
	spin_unlock_bh(&bus->lock);
}

static struct vbus *find_bus(struct net *net, u32 group)
{
	struct vbus *bus;

	lockdep_assert_held(&vbus_registry_lock);
	list_for_each_entry(bus, &vbus_registry, link)
		if (bus->net == net && bus->group == group)
			return bus;
	return NULL;
}

static struct vbus *create_bus(struct net *net, u32 group)
{
	struct vbus *bus = kzalloc(sizeof(*bus), GFP_KERNEL);

	if (!bus)
		return NULL;
	bus->net = net;
	bus->group = group;
	bus->created = ktime_get();
	bus->stats.window_start = bus->created;
	spin_lock_init(&bus->lock);
	INIT_LIST_HEAD(&bus->nodes);
	hrtimer_init(&bus->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	bus->timer.function = vbus_timer;
	list_add(&bus->link, &vbus_registry);
	vbus_debugfs_add_bus(bus);
	return bus;
}

static struct vbus *get_bus(struct net *net, u32 group)
{
	struct vbus *bus;

	mutex_lock(&vbus_registry_lock);
	bus = find_bus(net, group) ?: create_bus(net, group);
	if (bus)
		bus->users++;
	mutex_unlock(&vbus_registry_lock);
	return bus;
}

/* Its last node has left: nothing arms the timer any more. */
static void put_bus(struct vbus *bus)
{
	bool is_last;

	mutex_lock(&vbus_registry_lock);
	is_last = !--bus->users;
	if (is_last)
		list_del(&bus->link);
	mutex_unlock(&vbus_registry_lock);
	if (!is_last)
		return;
	/* A fault written to the bus arms the timer: no writer first. */
	vbus_debugfs_remove(bus->debugfs);
	hrtimer_cancel(&bus->timer);
	kfree(bus);
}

static void reset_node(struct vbus_node *node)
{
	struct can_priv *priv = netdev_priv(node->dev);

	node->bitrate = priv->bittiming.bitrate;
	node->ctrlmode = priv->ctrlmode;
	node->dbitrate = node->ctrlmode & CAN_CTRLMODE_FD ?
			 priv->data_bittiming.bitrate : 0;
	node->tec = 0;
	node->rec = 0;
	node->fifo_head = 0;
	node->fifo_len = 0;
	node->role = VBUS_ROLE_NONE;
	memset(&node->faults, 0, sizeof(node->faults));
	priv->state = CAN_STATE_ERROR_ACTIVE;
}

/**
 * vbus_join() - put a node on the bus of its namespace and group
 * @node: the node of a device being opened, bit timing checked
 *
 * Context: process, RTNL held (ndo_open).
 * Return: 0; -EPERM for a shared group without CAP_NET_ADMIN in the
 * initial namespace; -ENOMEM.
 */
int vbus_join(struct vbus_node *node)
{
	struct net *net = dev_net(node->dev);
	u32 group = node->dev->group;
	struct vbus *bus;

	ASSERT_RTNL();
	if (group >= VBUS_SHARED_GROUP) {
		if (!capable(CAP_NET_ADMIN))
			return -EPERM;
		net = NULL;
	}
	bus = get_bus(net, group);
	if (!bus)
		return -ENOMEM;
	reset_node(node);
	spin_lock_bh(&bus->lock);
	node->joined_at = ktime_get();
	list_add_tail(&node->bus_link, &bus->nodes);
	WRITE_ONCE(node->bus, bus);
	spin_unlock_bh(&bus->lock);
	vbus_debugfs_add_node(node);
	return 0;
}

/**
 * vbus_leave() - take a node off its bus
 * @node: the node of a device being closed, its queue stopped
 *
 * Off the node list, the timer no longer touches the node and no bus-off
 * can schedule a restart; a restart already scheduled is waited for
 * before the bus may go away under it. The frames left in the echo
 * slots are the caller's to flush (close_candev()).
 *
 * Context: process, RTNL held (ndo_stop).
 */
void vbus_leave(struct vbus_node *node)
{
	struct can_priv *priv = netdev_priv(node->dev);
	struct vbus *bus = node->bus;

	ASSERT_RTNL();
	vbus_debugfs_remove(node->debugfs);
	node->debugfs = NULL;
	spin_lock_bh(&bus->lock);
	list_del_init(&node->bus_link);
	if (bus->sender == node)
		bus->sender = NULL;
	node->fifo_len = 0;
	spin_unlock_bh(&bus->lock);

	cancel_delayed_work_sync(&priv->restart_work);
	WRITE_ONCE(node->bus, NULL);
	put_bus(bus);
}
