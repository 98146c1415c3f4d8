// SPDX-License-Identifier: GPL-2.0
/* The test bench's knobs, in debugfs: can_vbus/BUS/ for each bus (its
 * load, counts and faults) and can_vbus/BUS/DEV/ for each node on it
 * (its faults and error counters). BUS is net<inode>-group<N>, or
 * shared-group<N> for a group all namespaces share. debugfs_remove()
 * waits for readers and writers, so a file never outlives its object.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include "vbus.h"

#define MAX_FAULT_COUNT		1000000
#define MAX_STUCK_MS		60000

static struct dentry *vbus_debugfs_root;

static const char *const state_names[] = {
	[CAN_STATE_ERROR_ACTIVE] = "error-active",
	[CAN_STATE_ERROR_WARNING] = "error-warning",
	[CAN_STATE_ERROR_PASSIVE] = "error-passive",
	[CAN_STATE_BUS_OFF] = "bus-off",
	[CAN_STATE_STOPPED] = "stopped",
	[CAN_STATE_SLEEPING] = "sleeping",
};

/* A command is a word and at most one number: "bit-error 3". */
struct fault_cmd {
	char word[24];
	unsigned int arg;
	bool has_arg;
};

static int parse_cmd(const char __user *ubuf, size_t len, struct fault_cmd *cmd)
{
	char buf[48], *p, *word;
	int err;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	p = strim(buf);
	word = strsep(&p, " \t");
	if (strscpy(cmd->word, word, sizeof(cmd->word)) < 0)
		return -EINVAL;
	cmd->has_arg = p && *p;
	if (!cmd->has_arg)
		return 0;
	err = kstrtouint(skip_spaces(p), 0, &cmd->arg);
	return err ? -EINVAL : 0;
}

static bool is_cmd(const struct fault_cmd *cmd, const char *word, bool arg)
{
	return !strcmp(cmd->word, word) && cmd->has_arg == arg;
}

static int node_fault(struct vbus_node *node, const struct fault_cmd *cmd)
{
	struct vbus_faults *f = &node->faults;
	struct vbus *bus = node->bus;
	int err = 0;

	if (is_cmd(cmd, "bus-off", false)) {
		vbus_force_bus_off(node);
		return 0;
	}
	if ((is_cmd(cmd, "bit-error", true) ||
	     is_cmd(cmd, "form-error", true)) && cmd->arg > MAX_FAULT_COUNT)
		return -ERANGE;
	spin_lock_bh(&bus->lock);
	if (is_cmd(cmd, "bit-error", true))
		f->bit_errors = cmd->arg;
	else if (is_cmd(cmd, "form-error", true))
		f->form_errors = cmd->arg;
	else if (is_cmd(cmd, "no-ack", true) && cmd->arg <= 1)
		f->no_ack = cmd->arg;
	else if (is_cmd(cmd, "clear", false))
		memset(f, 0, sizeof(*f));
	else
		err = -EINVAL;
	spin_unlock_bh(&bus->lock);
	return err;
}

static ssize_t node_fault_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct vbus_node *node = file_inode(file)->i_private;
	struct fault_cmd cmd;
	int err;

	err = parse_cmd(ubuf, len, &cmd);
	if (!err)
		err = node_fault(node, &cmd);
	return err ?: len;
}

static int node_fault_show(struct seq_file *m, void *v)
{
	struct vbus_node *node = m->private;
	struct vbus_faults f;

	spin_lock_bh(&node->bus->lock);
	f = node->faults;
	spin_unlock_bh(&node->bus->lock);
	seq_printf(m, "bit-error %u\nform-error %u\nno-ack %u\n",
		   f.bit_errors, f.form_errors, f.no_ack);
	return 0;
}

static int node_fault_open(struct inode *inode, struct file *file)
{
	return single_open(file, node_fault_show, inode->i_private);
}

static const struct file_operations node_fault_fops = {
	.owner = THIS_MODULE,
	.open = node_fault_open,
	.read = seq_read,
	.write = node_fault_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int node_counters_show(struct seq_file *m, void *v)
{
	struct vbus_node *node = m->private;
	unsigned int tec, rec, state;

	spin_lock_bh(&node->bus->lock);
	/* as do_get_berr_counter() and the error frames give it */
	tec = min(node->tec, VBUS_COUNTER_MAX);
	rec = node->rec;
	state = vbus_node_state(node);
	spin_unlock_bh(&node->bus->lock);
	seq_printf(m, "state %s\ntec %u\nrec %u\n",
		   state < ARRAY_SIZE(state_names) ? state_names[state] : "?",
		   tec, rec);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(node_counters);

static int bus_fault(struct vbus *bus, const struct fault_cmd *cmd)
{
	if (is_cmd(cmd, "stuck-dominant", true)) {
		if (!cmd->arg || cmd->arg > MAX_STUCK_MS)
			return -ERANGE;
		vbus_stick_dominant(bus, cmd->arg);
		return 0;
	}
	if (is_cmd(cmd, "bit-error", true)) {
		if (cmd->arg > MAX_FAULT_COUNT)
			return -ERANGE;
		spin_lock_bh(&bus->lock);
		bus->faults.bit_errors = cmd->arg;
		spin_unlock_bh(&bus->lock);
		return 0;
	}
	if (is_cmd(cmd, "clear", false)) {
		spin_lock_bh(&bus->lock);
		bus->faults.bit_errors = 0;
		spin_unlock_bh(&bus->lock);
		vbus_unstick(bus);
		return 0;
	}
	return -EINVAL;
}

static ssize_t bus_fault_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct vbus *bus = file_inode(file)->i_private;
	struct fault_cmd cmd;
	int err;

	err = parse_cmd(ubuf, len, &cmd);
	if (!err)
		err = bus_fault(bus, &cmd);
	return err ?: len;
}

static int bus_fault_show(struct seq_file *m, void *v)
{
	struct vbus *bus = m->private;
	unsigned int bit_errors;
	s64 stuck_ms = 0;

	spin_lock_bh(&bus->lock);
	bit_errors = bus->faults.bit_errors;
	if (bus->stuck_until)
		stuck_ms = ktime_ms_delta(bus->stuck_until, ktime_get());
	spin_unlock_bh(&bus->lock);
	seq_printf(m, "bit-error %u\nstuck-dominant %lld\n", bit_errors,
		   max_t(s64, stuck_ms, 0));
	return 0;
}

static int bus_fault_open(struct inode *inode, struct file *file)
{
	return single_open(file, bus_fault_show, inode->i_private);
}

static const struct file_operations bus_fault_fops = {
	.owner = THIS_MODULE,
	.open = bus_fault_open,
	.read = seq_read,
	.write = bus_fault_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int bus_stats_show(struct seq_file *m, void *v)
{
	struct vbus *bus = m->private;
	struct vbus_stats s;
	ktime_t now;

	spin_lock_bh(&bus->lock);
	now = ktime_get();
	vbus_roll_load(bus, now);
	s = bus->stats;
	spin_unlock_bh(&bus->lock);
	seq_printf(m, "frames %llu\nerrors %llu\narbitration-lost %llu\n",
		   s.frames, s.errors, s.arbitration_lost);
	seq_printf(m, "busy-ns %llu\nage-ns %lld\ntimer-ns %llu\n", s.busy_ns,
		   ktime_sub(now, bus->created), s.timer_ns);
	seq_printf(m, "late-ns %llu\nlate-max-ns %llu\n", s.late_ns,
		   s.late_max_ns);
	seq_printf(m, "slips %llu\nslip-ns %llu\n", s.slips, s.slip_ns);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bus_stats);

static int bus_load_show(struct seq_file *m, void *v)
{
	struct vbus *bus = m->private;
	unsigned int permille;

	spin_lock_bh(&bus->lock);
	vbus_roll_load(bus, ktime_get());
	permille = bus->stats.load_permille;
	spin_unlock_bh(&bus->lock);
	seq_printf(m, "%u.%u\n", permille / 10, permille % 10);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bus_load);

/**
 * vbus_debugfs_add_bus() - give a new bus its directory
 * @bus: the bus, its namespace and group set
 *
 * Context: process. Without debugfs the bus simply has none.
 */
void vbus_debugfs_add_bus(struct vbus *bus)
{
	char name[40];

	if (bus->net)
		snprintf(name, sizeof(name), "net%u-group%u",
			 bus->net->ns.inum, bus->group);
	else
		snprintf(name, sizeof(name), "shared-group%u", bus->group);
	bus->debugfs = debugfs_create_dir(name, vbus_debugfs_root);
	debugfs_create_file("fault", 0600, bus->debugfs, bus, &bus_fault_fops);
	debugfs_create_file("stats", 0400, bus->debugfs, bus, &bus_stats_fops);
	debugfs_create_file("load", 0400, bus->debugfs, bus, &bus_load_fops);
}

/**
 * vbus_debugfs_add_node() - give a node joining a bus its directory
 * @node: the node, on its bus
 *
 * Context: process, RTNL held, which keeps the device's name.
 */
void vbus_debugfs_add_node(struct vbus_node *node)
{
	node->debugfs = debugfs_create_dir(node->dev->name, node->bus->debugfs);
	debugfs_create_file("fault", 0600, node->debugfs, node,
			    &node_fault_fops);
	debugfs_create_file("counters", 0400, node->debugfs, node,
			    &node_counters_fops);
}

/**
 * vbus_debugfs_remove() - remove a directory, waiting for its users
 * @dir: from vbus_debugfs_add_bus() or _add_node(), or an error or NULL
 *
 * Context: process, no bus lock held.
 */
void vbus_debugfs_remove(struct dentry *dir)
{
	debugfs_remove(dir);
}

void vbus_debugfs_init(void)
{
	vbus_debugfs_root = debugfs_create_dir("can_vbus", NULL);
}

void vbus_debugfs_exit(void)
{
	debugfs_remove(vbus_debugfs_root);
}
