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
 */

#include <linux/debugfs.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include "sja1000.h"

struct fake_chip {
	u8 regs[32];
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

static struct fake_chip *chip_of(const struct sja1000_priv *priv)
{
	return priv->board;
}

static void fake_raise(struct fake_chip *chip)
{
	unsigned long flags;

	spin_lock_irqsave(&chip->irq_lock, flags);
	sja1000_interrupt(0, chip->dev);
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

	if (reg == SJA1000_IR)
		chip->regs[reg] = 0;
	return val;
}

static void fake_write(const struct sja1000_priv *priv, int reg, u8 val)
{
	struct fake_chip *chip = chip_of(priv);

	if (reg != SJA1000_CMR) {
		chip->regs[reg] = val;
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
	chip->regs[SJA1000_ECC] = v[2];
	chip->regs[SJA1000_ALC] = v[3];
	chip->regs[SJA1000_TXERR] = v[4];
	chip->regs[SJA1000_RXERR] = v[5];
	chip->regs[SJA1000_IR] = v[0];
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

static int __init fake_init(void)
{
	struct sja1000_priv *priv;
	struct fake_chip *chip;
	int err;

	fake_dev = sja1000_alloc(sizeof(*chip));
	if (!fake_dev)
		return -ENOMEM;

	priv = netdev_priv(fake_dev);
	chip = chip_of(priv);
	chip->dev = fake_dev;
	chip->regs[SJA1000_MOD] = SJA1000_MOD_RM;
	chip->regs[SJA1000_SR] = SJA1000_SR_TBS;
	spin_lock_init(&chip->irq_lock);
	init_irq_work(&chip->tx_done, fake_tx_done);
	init_irq_work(&chip->raise, fake_raise_work);
	mutex_init(&chip->write_lock);
	priv->read_reg = fake_read;
	priv->write_reg = fake_write;
	priv->can.clock.freq = 8000000;
	strscpy(fake_dev->name, "sjafake%d", IFNAMSIZ);

	err = sja1000_register(fake_dev);
	if (err)
		goto free_dev;
	fake_dir = debugfs_create_dir("sja1000_fake", NULL);
	debugfs_create_file("irq", 0200, fake_dir, NULL, &fake_irq_fops);
	return 0;

free_dev:
	sja1000_free(fake_dev);
	return err;
}

static void __exit fake_exit(void)
{
	struct fake_chip *chip = chip_of(netdev_priv(fake_dev));

	debugfs_remove_recursive(fake_dir);
	sja1000_unregister(fake_dev);
	irq_work_sync(&chip->tx_done);
	irq_work_sync(&chip->raise);
	sja1000_free(fake_dev);
}

module_init(fake_init);
module_exit(fake_exit);

MODULE_DESCRIPTION("Register-array SJA1000 for the driver's error path tests");
MODULE_LICENSE("GPL");
