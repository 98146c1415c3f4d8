// SPDX-License-Identifier: GPL-2.0
/*
 * Logs the writes drivers make to I/O ports through iowrite8(),
 * iowrite16() and iowrite32(), for tests of registers that QEMU does not
 * model (a write there is dropped and a read gives 0, so reading back
 * proves nothing). lib/iomap.c is built without ftrace, so kprobe events
 * refuse these functions; a kprobe from a module does not.
 *
 * /sys/kernel/debug/port_watch/:
 *   enable	1: log from now on (the log is emptied), 0: stop
 *   log	"SIZE PORT VALUE" per write, oldest first, in hex (SIZE is
 *		8, 16 or 32); a last line "lost N" if the log overflowed
 *
 * Only x86's port cookies are decoded (lib/iomap.c): a cookie from
 * PIO_OFFSET up to PIO_RESERVED is an I/O port, in its low 16 bits.
 */

#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>

#define PW_PIO_OFFSET	0x10000UL
#define PW_PIO_RESERVED	0x40000UL
#define PW_PIO_MASK	0xffffUL
#define PW_ENTRIES	4096

struct pw_entry {
	u8 size;
	u16 port;
	u32 val;
};

static struct pw_entry pw_log[PW_ENTRIES];
static unsigned int pw_len;
static unsigned int pw_lost;
static bool pw_enabled;
static DEFINE_RAW_SPINLOCK(pw_lock);
static struct dentry *pw_dir;

/* Any context: a driver may write its registers from its IRQ handler. */
static void pw_record(struct pt_regs *regs, u8 size)
{
	unsigned long cookie = regs_get_kernel_argument(regs, 1);
	unsigned long flags;

	if (!READ_ONCE(pw_enabled) || cookie < PW_PIO_OFFSET ||
	    cookie >= PW_PIO_RESERVED)
		return;
	raw_spin_lock_irqsave(&pw_lock, flags);
	if (pw_enabled && pw_len == PW_ENTRIES)
		pw_lost++;
	if (pw_enabled && pw_len < PW_ENTRIES) {
		pw_log[pw_len].size = size;
		pw_log[pw_len].port = cookie & PW_PIO_MASK;
		pw_log[pw_len].val = regs_get_kernel_argument(regs, 0);
		pw_len++;
	}
	raw_spin_unlock_irqrestore(&pw_lock, flags);
}

static int pw_pre8(struct kprobe *p, struct pt_regs *regs)
{
	pw_record(regs, 8);
	return 0;
}

static int pw_pre16(struct kprobe *p, struct pt_regs *regs)
{
	pw_record(regs, 16);
	return 0;
}

static int pw_pre32(struct kprobe *p, struct pt_regs *regs)
{
	pw_record(regs, 32);
	return 0;
}

static struct kprobe pw_probes[] = {
	{ .symbol_name = "iowrite8", .pre_handler = pw_pre8 },
	{ .symbol_name = "iowrite16", .pre_handler = pw_pre16 },
	{ .symbol_name = "iowrite32", .pre_handler = pw_pre32 },
};

static struct kprobe *pw_probe_list[ARRAY_SIZE(pw_probes)];

static int pw_enable_get(void *data, u64 *val)
{
	*val = READ_ONCE(pw_enabled);
	return 0;
}

static int pw_enable_set(void *data, u64 val)
{
	raw_spin_lock_irq(&pw_lock);
	if (val) {
		pw_len = 0;
		pw_lost = 0;
	}
	WRITE_ONCE(pw_enabled, !!val);
	raw_spin_unlock_irq(&pw_lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(pw_enable_fops, pw_enable_get, pw_enable_set, "%llu\n");

/* Read while logging is off: the entries no longer change then. */
static int pw_log_show(struct seq_file *m, void *v)
{
	unsigned int i, len, lost;

	raw_spin_lock_irq(&pw_lock);
	len = pw_enabled ? 0 : pw_len;
	lost = pw_lost;
	raw_spin_unlock_irq(&pw_lock);
	for (i = 0; i < len; i++)
		seq_printf(m, "%u %x %x\n", pw_log[i].size, pw_log[i].port,
			   pw_log[i].val);
	if (lost)
		seq_printf(m, "lost %u\n", lost);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pw_log);

static int __init pw_init(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(pw_probes); i++)
		pw_probe_list[i] = &pw_probes[i];
	err = register_kprobes(pw_probe_list, ARRAY_SIZE(pw_probe_list));
	if (err)
		return err;
	pw_dir = debugfs_create_dir("port_watch", NULL);
	debugfs_create_file_unsafe("enable", 0600, pw_dir, NULL,
				   &pw_enable_fops);
	debugfs_create_file("log", 0400, pw_dir, NULL, &pw_log_fops);
	return 0;
}

static void __exit pw_exit(void)
{
	debugfs_remove_recursive(pw_dir);
	unregister_kprobes(pw_probe_list, ARRAY_SIZE(pw_probe_list));
}

module_init(pw_init);
module_exit(pw_exit);

MODULE_DESCRIPTION("Log of I/O port writes through iowrite8/16/32, for tests");
MODULE_LICENSE("GPL");
