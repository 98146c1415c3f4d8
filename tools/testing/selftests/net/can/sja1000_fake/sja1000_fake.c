// SPDX-License-Identifier: GPL-2.0
/*
 * A fake SJA1000 for tests: its registers are an array, a transmission
 * completes at once, and debugfs lets a test raise any interrupt with
 * chosen status, error code and error counters. So the driver's error
 * paths (bus errors, warning, passive, bus-off, restart, overrun,
 * arbitration lost) run without a bus that can produce them.
 *
 *   echo "IR SR ECC ALC TXERR RXERR" > /sys/kernel/debug/sja1000_fake/irq
 *
 * (hex bytes) sets the registers and calls the driver's handler.
 *
 * Like the chip, it ignores writes to the registers that only reset mode
 * may change (BTR0, BTR1, OCR, CDR) while it is in operating mode, and
 * counts them in "violations". Other knobs, for the cases a real card
 * shows rarely and QEMU's model never:
 *
 *   storm	the next N reads of IR return a wake-up cause and leave
 *		the real causes pending (an interrupt storm)
 *   gone	reads return 0xff (a card that was pulled out), for at
 *		most FAKE_GONE_READS reads so a spinning driver ends;
 *		gone_reads counts them
 *   busoff_on_stop  the next IER = 0 written from process context (the
 *		driver silencing the chip) first raises a bus-off
 *   hold_tx	a transmission request leaves the frame in the buffer,
 *		unsent and unacknowledged (nobody else on the bus)
 *   regs, last_cmd  the registers and the last command written
 *   held	bit 0: ECC, bit 1: ALC hold a capture the driver has not
 *		read yet; as on the chip, a held register keeps its value
 *		when the next bus error or lost arbitration comes
 *   fail_alloc	the next N skb allocations for the device fail (a
 *		kretprobe on __netdev_alloc_skb, so can-dev and the
 *		driver take their real out-of-memory paths); absent
 *		when the kernel has no kretprobes
 *
 * insmod sja1000_fake.ko running=1 starts the chip in operating mode
 * with BasicCAN's CDR, as a chip that a previous driver left running.
 */

#include <linux/debugfs.h>
#include <linux/hardirq.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include "sja1000.h"

/* A pulled card stops reading 0xff after this many reads, so a driver
 * that would spin on it still ends and the test can count its reads.
 */
#define FAKE_GONE_READS		1000
/* Times the line is raised again while a cause stays pending. */
#define FAKE_IRQ_REPEAT		8
/* "held": ECC or ALC captured an event and waits to be read. */
#define FAKE_HELD_ECC		BIT(0)
#define FAKE_HELD_ALC		BIT(1)

static bool running;
module_param(running, bool, 0444);
MODULE_PARM_DESC(running, "start in operating mode, as a chip left running");

struct fake_chip {
	u8 regs[32];
	u8 last_cmd;
	u32 violations;
	u32 storm;
	u32 gone;
	u32 gone_reads;
	u32 busoff_on_stop;
	u32 hold_tx;
	u32 held;
	atomic_t fail_alloc;
	struct debugfs_blob_wrapper regs_blob;
	/* Stands in for the interrupt line: the handler never runs twice
	 * at once. Taken in hard-IRQ context, from the two irq_works below
	 * (which is where a real chip's handler runs), and by debugfs
	 * writes with interrupts off while they set the registers.
	 */
	spinlock_t irq_lock;
	struct irq_work tx_done;
	struct irq_work raise;
	/* One debugfs write at a time: each waits for its interrupt. */
	struct mutex write_lock;
	struct net_device *dev;
};

static struct net_device *fake_dev;
static struct dentry *fake_dir;
static bool fake_probe_on;

static struct fake_chip *chip_of(const struct sja1000_priv *priv)
{
	return priv->priv;
}

/* A level-triggered line: it stays asserted while an enabled cause is
 * pending, so the handler runs again after returning.
 */
static void fake_raise(struct fake_chip *chip)
{
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&chip->irq_lock, flags);
	do {
		sja1000_interrupt(0, chip->dev);
	} while ((chip->regs[SJA1000_IR] & chip->regs[SJA1000_IER]) &&
		 ++n < FAKE_IRQ_REPEAT);
	spin_unlock_irqrestore(&chip->irq_lock, flags);
}

static void fake_tx_done(struct irq_work *work)
{
	fake_raise(container_of(work, struct fake_chip, tx_done));
}

static void fake_raise_work(struct irq_work *work)
{
	fake_raise(container_of(work, struct fake_chip, raise));
}

/* Reading IR acknowledges it, as on the chip. */
static u8 fake_read(const struct sja1000_priv *priv, int reg)
{
	struct fake_chip *chip = chip_of(priv);
	u8 val = chip->regs[reg];

	if (chip->gone) {
		if (++chip->gone_reads >= FAKE_GONE_READS)
			chip->gone = 0;
		return 0xff;
	}
	if (reg == SJA1000_IR && chip->storm) {
		chip->storm--;
		return SJA1000_IRQ_WUI;
	}
	if (reg == SJA1000_IR)
		chip->regs[reg] = 0;
	/* Reading a capture register releases it for the next event. */
	if (reg == SJA1000_ECC)
		chip->held &= ~FAKE_HELD_ECC;
	if (reg == SJA1000_ALC)
		chip->held &= ~FAKE_HELD_ALC;
	return val;
}

static bool reset_only(int reg)
{
	return reg == SJA1000_BTR0 || reg == SJA1000_BTR1 ||
	       reg == SJA1000_OCR || reg == SJA1000_CDR;
}

/* The driver silences the chip: a bus-off arrives just before. */
static void fake_busoff_on_stop(struct fake_chip *chip)
{
	spin_lock_irq(&chip->irq_lock);
	chip->busoff_on_stop = 0;
	chip->regs[SJA1000_SR] = SJA1000_SR_BS | SJA1000_SR_ES;
	chip->regs[SJA1000_TXERR] = 0xff;
	chip->regs[SJA1000_IR] = SJA1000_IRQ_EI;
	chip->regs[SJA1000_MOD] |= MOD_RM;
	spin_unlock_irq(&chip->irq_lock);
	irq_work_queue(&chip->raise);
	irq_work_sync(&chip->raise);
}

static void fake_write(const struct sja1000_priv *priv, int reg, u8 val)
{
	struct fake_chip *chip = chip_of(priv);

	if (reg == SJA1000_IER && !val && chip->busoff_on_stop &&
	    !in_interrupt() && !irqs_disabled())
		fake_busoff_on_stop(chip);
	if (reset_only(reg) && !(chip->regs[SJA1000_MOD] & MOD_RM)) {
		chip->violations++;
		return;
	}
	if (reg != SJA1000_CMR) {
		chip->regs[reg] = val;
		return;
	}
	chip->last_cmd = val;
	if ((val & (SJA1000_CMD_TR | SJA1000_CMD_SRR)) && chip->hold_tx) {
		chip->regs[SJA1000_SR] &= ~(SJA1000_SR_TCS | SJA1000_SR_TBS);
		return;
	}
	if (val & (SJA1000_CMD_TR | SJA1000_CMD_SRR)) {
		chip->regs[SJA1000_SR] |= SJA1000_SR_TCS | SJA1000_SR_TBS;
		chip->regs[SJA1000_IR] |= SJA1000_IRQ_TI;
		irq_work_queue(&chip->tx_done);
	}
}

/* "IR SR ECC ALC TXERR RXERR" in hex. */
static ssize_t fake_irq_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct sja1000_priv *priv = netdev_priv(fake_dev);
	struct fake_chip *chip = chip_of(priv);
	unsigned int v[6];
	char buf[64];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%x %x %x %x %x %x", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5]) != 6)
		return -EINVAL;

	mutex_lock(&chip->write_lock);
	spin_lock_irq(&chip->irq_lock);
	chip->regs[SJA1000_SR] = v[1];
	/* A capture register the driver has not read keeps its event. */
	if (!(chip->held & FAKE_HELD_ECC))
		chip->regs[SJA1000_ECC] = v[2];
	if (!(chip->held & FAKE_HELD_ALC))
		chip->regs[SJA1000_ALC] = v[3];
	if (v[0] & SJA1000_IRQ_BEI)
		chip->held |= FAKE_HELD_ECC;
	if (v[0] & SJA1000_IRQ_ALI)
		chip->held |= FAKE_HELD_ALC;
	chip->regs[SJA1000_TXERR] = v[4];
	chip->regs[SJA1000_RXERR] = v[5];
	chip->regs[SJA1000_IR] = v[0];
	/* On bus-off the chip puts itself into reset mode. */
	if (v[1] & SJA1000_SR_BS)
		chip->regs[SJA1000_MOD] |= MOD_RM;
	spin_unlock_irq(&chip->irq_lock);
	/* The handler must run in hard-IRQ context, as for a real line:
	 * netif_rx() and the driver's locks expect it.
	 */
	irq_work_queue(&chip->raise);
	irq_work_sync(&chip->raise);
	mutex_unlock(&chip->write_lock);
	return len;
}

static const struct file_operations fake_irq_fops = {
	.owner = THIS_MODULE,
	.write = fake_irq_write,
};

/* Out of memory on demand: an allocation for our device that
 * "fail_alloc" asks to fail goes through, then its skb is freed and
 * NULL returned in its place, as if the allocator had found no memory.
 */
static int fake_alloc_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct fake_chip *chip = chip_of(netdev_priv(fake_dev));

	if (regs_get_kernel_argument(regs, 0) != (unsigned long)fake_dev)
		return 1;
	/* Nonzero: no return handler for this call. */
	return atomic_dec_if_positive(&chip->fail_alloc) < 0;
}

static int fake_alloc_return(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct sk_buff *skb = (struct sk_buff *)regs_return_value(regs);

	if (skb)
		dev_kfree_skb_any(skb);
	regs_set_return_value(regs, 0);
	return 0;
}

static struct kretprobe fake_alloc_probe = {
	.kp.symbol_name = "__netdev_alloc_skb",
	.entry_handler = fake_alloc_entry,
	.handler = fake_alloc_return,
};

/* Test knobs and observations; the tests use them one at a time while
 * no interrupt is due, so plain reads and writes are enough.
 */
static void fake_debugfs_knobs(struct fake_chip *chip)
{
	chip->regs_blob.data = chip->regs;
	chip->regs_blob.size = sizeof(chip->regs);
	debugfs_create_blob("regs", 0400, fake_dir, &chip->regs_blob);
	debugfs_create_u8("last_cmd", 0400, fake_dir, &chip->last_cmd);
	debugfs_create_u32("violations", 0600, fake_dir, &chip->violations);
	debugfs_create_u32("storm", 0600, fake_dir, &chip->storm);
	debugfs_create_u32("gone", 0600, fake_dir, &chip->gone);
	debugfs_create_u32("gone_reads", 0600, fake_dir, &chip->gone_reads);
	debugfs_create_u32("busoff_on_stop", 0600, fake_dir,
			   &chip->busoff_on_stop);
	debugfs_create_u32("hold_tx", 0600, fake_dir, &chip->hold_tx);
	debugfs_create_u32("held", 0400, fake_dir, &chip->held);
	if (fake_probe_on)
		debugfs_create_atomic_t("fail_alloc", 0600, fake_dir,
					&chip->fail_alloc);
}

static int __init fake_init(void)
{
	struct sja1000_priv *priv;
	struct fake_chip *chip;
	int err;

	fake_dev = alloc_sja1000dev(sizeof(*chip));
	if (!fake_dev)
		return -ENOMEM;

	priv = netdev_priv(fake_dev);
	chip = chip_of(priv);
	chip->dev = fake_dev;
	chip->regs[SJA1000_MOD] = running ? 0 : MOD_RM;
	chip->regs[SJA1000_SR] = SJA1000_SR_TBS;
	spin_lock_init(&chip->irq_lock);
	init_irq_work(&chip->tx_done, fake_tx_done);
	init_irq_work(&chip->raise, fake_raise_work);
	mutex_init(&chip->write_lock);
	priv->read_reg = fake_read;
	priv->write_reg = fake_write;
	priv->can.clock.freq = 8000000;
	strscpy(fake_dev->name, "sjafake%d", IFNAMSIZ);

	err = register_sja1000dev(fake_dev);
	if (err)
		goto free_dev;
	/* Without kretprobes only "fail_alloc" is missing. */
	fake_probe_on = !register_kretprobe(&fake_alloc_probe);
	fake_dir = debugfs_create_dir("sja1000_fake", NULL);
	debugfs_create_file("irq", 0200, fake_dir, NULL, &fake_irq_fops);
	fake_debugfs_knobs(chip);
	return 0;

free_dev:
	free_sja1000dev(fake_dev);
	return err;
}

static void __exit fake_exit(void)
{
	struct fake_chip *chip = chip_of(netdev_priv(fake_dev));

	debugfs_remove_recursive(fake_dir);
	if (fake_probe_on)
		unregister_kretprobe(&fake_alloc_probe);
	unregister_sja1000dev(fake_dev);
	irq_work_sync(&chip->tx_done);
	irq_work_sync(&chip->raise);
	free_sja1000dev(fake_dev);
}

module_init(fake_init);
module_exit(fake_exit);

MODULE_DESCRIPTION("Register-array SJA1000 for the driver's error path tests");
MODULE_LICENSE("GPL");
