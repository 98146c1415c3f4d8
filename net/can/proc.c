// SPDX-License-Identifier: GPL-2.0
/* /proc/net/can: frame statistics, the rates a once-a-second timer derives
 * from them, and the receive tables of each namespace for inspection.
 */

#include <linux/can.h>
#include <linux/if_arp.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/proc_fs.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "af_can.h"

#define CAN_STACK_VERSION "2026.12"

static int stats_timer = 1;
module_param(stats_timer, int, 0444);
MODULE_PARM_DESC(stats_timer, "recompute rate statistics every second (default: 1, on)");

static void can_stats_sum(struct can_pernet *cn, struct can_pcpu_stats *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct can_pcpu_stats *s = per_cpu_ptr(cn->stats, cpu);

		sum->tx_frames += READ_ONCE(s->tx_frames);
		sum->rx_frames += READ_ONCE(s->rx_frames);
		sum->matches += READ_ONCE(s->matches);
		sum->rx_invalid += READ_ONCE(s->rx_invalid);
		sum->rx_queue_drops += READ_ONCE(s->rx_queue_drops);
		sum->rx_unmatched += READ_ONCE(s->rx_unmatched);
		sum->rx_sock_drops += READ_ONCE(s->rx_sock_drops);
	}
}

static unsigned long can_per_second(unsigned long count, unsigned long ticks)
{
	return ticks ? mul_u64_u64_div_u64(count, HZ, ticks) : 0;
}

/* The rates of the frames counted between @from and @to. */
static void can_rate_calc(struct can_rate *rate,
			  const struct can_pcpu_stats *from,
			  const struct can_pcpu_stats *to, unsigned long ticks)
{
	unsigned long rx = to->rx_frames - from->rx_frames;
	unsigned long matched = to->matches - from->matches;

	rate->rx = can_per_second(rx, ticks);
	rate->tx = can_per_second(to->tx_frames - from->tx_frames, ticks);
	rate->match_ratio = rx ? matched * 100 / rx : 0;
}

static void can_rate_peak(struct can_rate *peak, const struct can_rate *rate)
{
	peak->rx = max(peak->rx, rate->rx);
	peak->tx = max(peak->tx, rate->tx);
	peak->match_ratio = max(peak->match_ratio, rate->match_ratio);
}

/* Counting starts over: what was counted so far becomes the base. */
static void can_rates_reset(struct can_pernet *cn)
{
	struct can_rates *r = &cn->rates;
	unsigned long resets = r->resets, user_resets = r->user_resets;

	lockdep_assert_held(&cn->stats_lock);
	memset(r, 0, sizeof(*r));
	can_stats_sum(cn, &r->base);
	r->last = r->base;
	r->jiffies_base = jiffies;
	r->jiffies_last = r->jiffies_base;
	r->resets = resets + 1;
	r->user_resets = user_resets;
}

static void can_rates_update(struct can_pernet *cn)
{
	struct can_rates *r = &cn->rates;
	unsigned long now = jiffies;
	struct can_pcpu_stats sum;

	lockdep_assert_held(&cn->stats_lock);
	can_stats_sum(cn, &sum);
	can_rate_calc(&r->total, &r->base, &sum, now - r->jiffies_base);
	can_rate_calc(&r->recent, &r->last, &sum, now - r->jiffies_last);
	can_rate_peak(&r->peak, &r->recent);
	r->last = sum;
	r->jiffies_last = now;
}

/* Runs once a second in softirq context; the frame path never sees it. */
static void can_stats_tick(struct timer_list *t)
{
	struct can_pernet *cn = from_timer(cn, t, stats_timer);

	spin_lock(&cn->stats_lock);
	can_rates_update(cn);
	spin_unlock(&cn->stats_lock);
	mod_timer(&cn->stats_timer, round_jiffies(jiffies + HZ));
}

/**
 * can_stats_start() - start counting in a new namespace
 * @cn: the namespace's state, its counters allocated
 *
 * Context: process context, from the namespace's init.
 */
void can_stats_start(struct can_pernet *cn)
{
	spin_lock_bh(&cn->stats_lock);
	can_rates_reset(cn);
	cn->rates.resets = 0;
	spin_unlock_bh(&cn->stats_lock);

	timer_setup(&cn->stats_timer, can_stats_tick, 0);
	if (stats_timer)
		mod_timer(&cn->stats_timer, round_jiffies(jiffies + HZ));
}

/**
 * can_stats_stop() - stop the statistics timer of a namespace
 * @cn: the namespace's state
 *
 * Waits for a running tick, which cannot re-arm the timer afterwards.
 *
 * Context: process context, from the namespace's exit.
 */
void can_stats_stop(struct can_pernet *cn)
{
	del_timer_sync(&cn->stats_timer);
}

static void can_put_stat(struct seq_file *m, unsigned long v, const char *what)
{
	seq_printf(m, " %8lu %s\n", v, what);
}

static void can_put_rate(struct seq_file *m, const struct can_rate *rate,
			 const char *which, const char *tag)
{
	char what[64];

	snprintf(what, sizeof(what), "%% %s match ratio (%sRXMR)", which, tag);
	can_put_stat(m, rate->match_ratio, what);
	snprintf(what, sizeof(what), "frames/s %s tx rate (%sTXR)", which, tag);
	can_put_stat(m, rate->tx, what);
	snprintf(what, sizeof(what), "frames/s %s rx rate (%sRXR)", which, tag);
	can_put_stat(m, rate->rx, what);
	seq_putc(m, '\n');
}

/* The device table after the mainline lines: one row per CAN device. */
#define CAN_DROPS_HEAD \
	" device             controller   rx-queue no-receiver    invalid    socket (RXLOST)\n"

/* Frames lost on the way up, for the namespace and for each device: the
 * lines the stack added after mainline's, so that parsers of those see
 * them unchanged. Controller overruns are the devices' rx_over_errors,
 * summed over the devices there are now; the other totals are counted
 * since the last reset, as the lines above.
 */
static void can_drops_show(struct seq_file *m,
			   const struct can_pcpu_stats *sum,
			   const struct can_pcpu_stats *base)
{
	struct net *net = seq_file_single_net(m);
	struct can_drop_counts c;
	struct net_device *dev;
	u64 controller = 0;

	rcu_read_lock();
	for_each_netdev_rcu(net, dev) {
		if (!can_dev_rx_table(dev))
			continue;
		can_get_drop_counts(dev, &c);
		controller += c.controller;
	}
	rcu_read_unlock();

	can_put_stat(m, controller, "frames lost in controllers (RXLCTL)");
	can_put_stat(m, sum->rx_queue_drops - base->rx_queue_drops,
		     "frames lost before the softirq (RXLQ)");
	can_put_stat(m, sum->rx_unmatched - base->rx_unmatched,
		     "frames without a receiver (RXNRCV)");
	can_put_stat(m, sum->rx_sock_drops - base->rx_sock_drops,
		     "frames lost in socket receive queues (RXLSK)");
	seq_putc(m, '\n');

	seq_puts(m, CAN_DROPS_HEAD);
	rcu_read_lock();
	for_each_netdev_rcu(net, dev) {
		if (!can_dev_rx_table(dev))
			continue;
		can_get_drop_counts(dev, &c);
		seq_printf(m, " %-16s %10llu %10llu %11llu %10llu %10llu\n",
			   dev->name, c.controller, c.rx_queue, c.no_receiver,
			   c.invalid, c.sock_queue);
	}
	rcu_read_unlock();
	seq_putc(m, '\n');
}

static int can_stats_show(struct seq_file *m, void *v)
{
	struct can_pernet *cn = can_pernet(seq_file_single_net(m));
	struct can_pcpu_stats sum;
	struct can_rates r;

	spin_lock_bh(&cn->stats_lock);
	r = cn->rates;
	can_stats_sum(cn, &sum);
	spin_unlock_bh(&cn->stats_lock);

	seq_putc(m, '\n');
	can_put_stat(m, sum.tx_frames - r.base.tx_frames, "transmitted frames (TXF)");
	can_put_stat(m, sum.rx_frames - r.base.rx_frames, "received frames (RXF)");
	can_put_stat(m, sum.matches - r.base.matches, "matched frames (RXMF)");
	can_put_stat(m, sum.rx_invalid - r.base.rx_invalid,
		     "dropped invalid frames (RXINV)");
	seq_putc(m, '\n');

	if (stats_timer) {
		can_put_rate(m, &r.total, "total", "");
		can_put_rate(m, &r.recent, "current", "C");
		can_put_rate(m, &r.peak, "max", "M");
	}

	can_put_stat(m, READ_ONCE(cn->entries), "current receive list entries (CRCV)");
	can_put_stat(m, READ_ONCE(cn->max_entries), "maximum receive list entries (MRCV)");
	if (r.resets) {
		seq_putc(m, '\n');
		can_put_stat(m, r.resets, "statistic resets (STR)");
	}
	if (r.user_resets)
		can_put_stat(m, r.user_resets, "user statistic resets (USTR)");
	seq_putc(m, '\n');
	can_drops_show(m, &sum, &r.base);
	return 0;
}

/* Reading reset_stats starts the counts over, as it always has; unlike
 * mainline, which leaves that to the next timer tick, at once.
 */
static int can_reset_stats_show(struct seq_file *m, void *v)
{
	struct can_pernet *cn = can_pernet(seq_file_single_net(m));
	unsigned long n;

	spin_lock_bh(&cn->stats_lock);
	cn->rates.user_resets++;
	can_rates_reset(cn);
	n = cn->rates.resets;
	spin_unlock_bh(&cn->stats_lock);

	seq_printf(m, "Performed statistic reset #%lu.\n", n);
	return 0;
}

static int can_version_show(struct seq_file *m, void *v)
{
	seq_puts(m, CAN_STACK_VERSION "\n");
	return 0;
}

static const char * const can_list_names[CAN_RX_LISTS] = {
	[CAN_RX_ERR] = "rx_err",
	[CAN_RX_ALL] = "rx_all",
	[CAN_RX_FIL] = "rx_fil",
	[CAN_RX_INV] = "rx_inv",
	[CAN_RX_SFF] = "rx_sff",
	[CAN_RX_EFF] = "rx_eff",
};

/* Column heads, as wide as the pointers below them. */
#if BITS_PER_LONG == 64
#define CAN_RCVLIST_HEAD \
	"  device   can_id   can_mask      function          userdata       matches  ident\n"
#else
#define CAN_RCVLIST_HEAD \
	"  device   can_id   can_mask  function  userdata   matches  ident\n"
#endif

struct can_show_ctx {
	struct seq_file *m;
	struct net_device *dev;
	bool has_head;
};

static void can_show_receiver(struct can_receiver *rcv, void *arg)
{
	struct can_show_ctx *ctx = arg;
	bool is_eff = rcv->can_id & CAN_EFF_FLAG;

	if (!ctx->has_head) {
		seq_puts(ctx->m, CAN_RCVLIST_HEAD);
		ctx->has_head = true;
	}
	seq_printf(ctx->m, "   %-5s  %*s%0*x  %08x  %pK  %pK  %8u  %s\n",
		   can_dev_name(ctx->dev), is_eff ? 0 : 5, "", is_eff ? 8 : 3,
		   rcv->can_id, rcv->mask, rcv->func, rcv->data,
		   READ_ONCE(rcv->matches), rcv->ident);
}

/* One line per subscription in list @which of @table, under a column
 * head; or a line saying there is none. Under RCU.
 */
static void can_show_table(struct seq_file *m, struct can_rx_table *table,
			   enum can_rx_list which, struct net_device *dev)
{
	struct can_show_ctx ctx = { .m = m, .dev = dev };

	if (!can_rx_table_walk(table, which, can_show_receiver, &ctx))
		seq_printf(m, "  (%s: no entry)\n", can_dev_name(dev));
}

/* The list named by the file, for all devices and then for each device. */
static int can_rcvlist_show(struct seq_file *m, void *v)
{
	enum can_rx_list which = (uintptr_t)pde_data(file_inode(m->file));
	struct net *net = seq_file_single_net(m);
	struct net_device *dev;

	seq_printf(m, "\nreceive list '%s':\n", can_list_names[which]);

	rcu_read_lock();
	can_show_table(m, can_pernet(net)->all_devs, which, NULL);
	for_each_netdev_rcu(net, dev) {
		struct can_rx_table *table = can_dev_rx_table(dev);

		if (table)
			can_show_table(m, table, which, dev);
	}
	rcu_read_unlock();
	seq_putc(m, '\n');
	return 0;
}

static const char * const can_rcvlist_files[CAN_RX_LISTS] = {
	[CAN_RX_ERR] = "rcvlist_err",
	[CAN_RX_ALL] = "rcvlist_all",
	[CAN_RX_FIL] = "rcvlist_fil",
	[CAN_RX_INV] = "rcvlist_inv",
	[CAN_RX_SFF] = "rcvlist_sff",
	[CAN_RX_EFF] = "rcvlist_eff",
};

int can_proc_init(struct net *net)
{
	struct can_pernet *cn = can_pernet(net);
	uintptr_t which;

	cn->proc_dir = proc_net_mkdir(net, "can", net->proc_net);
	if (!cn->proc_dir)
		return -ENOMEM;

	if (!proc_create_net_single("version", 0444, cn->proc_dir,
				    can_version_show, NULL) ||
	    !proc_create_net_single("stats", 0444, cn->proc_dir,
				    can_stats_show, NULL) ||
	    !proc_create_net_single("reset_stats", 0444, cn->proc_dir,
				    can_reset_stats_show, NULL))
		goto remove;

	for (which = 0; which < CAN_RX_LISTS; which++)
		if (!proc_create_net_single(can_rcvlist_files[which], 0444,
					    cn->proc_dir, can_rcvlist_show,
					    (void *)which))
			goto remove;
	return 0;

remove:
	can_proc_exit(net);
	return -ENOMEM;
}

void can_proc_exit(struct net *net)
{
	remove_proc_subtree("can", net->proc_net);
}
