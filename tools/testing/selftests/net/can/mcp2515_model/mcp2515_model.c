// SPDX-License-Identifier: GPL-2.0
/*
 * A software MCP2515 for tests: a software SPI controller with @chips
 * modelled chips on its chip selects, each a register file that executes
 * the SPI instructions as the datasheet describes, all joined by one
 * model bus on which a transmitted frame reaches every other chip at
 * once. Each chip's INT pin is an interrupt of the model's own domain.
 * The model is strict: an access a real chip would refuse is logged as
 * "mcp2515_model: violation:" and counted in debugfs, and
 *
 *   echo "TEC REC" > /sys/kernel/debug/mcp2515_model/chipN/errors
 *
 * sets the error counters with the EFLG bits they imply (TEC 256 is
 * bus-off), raising the error interrupt; "echo N > chipN/inject" lets N
 * frames (SFF ids 0x100 on) arrive from the bus at once, more than the
 * two receive buffers hold; "echo 02 2a 00 > chipN/spi" runs one SPI
 * transaction as given and reading the file shows the chip's reply.
 */

#include <linux/debugfs.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/spi/spi.h>

static unsigned int chips = 2;
module_param(chips, uint, 0444);
MODULE_PARM_DESC(chips, "number of modelled chips on the bus (1-8)");

static unsigned int clock_hz = 16000000;
module_param(clock_hz, uint, 0444);
MODULE_PARM_DESC(clock_hz, "oscillator frequency the chips report");

#define MAX_CHIPS	8
#define NREGS		128

enum {
	CANSTAT = 0x0e, CANCTRL = 0x0f, TEC = 0x1c, REC = 0x1d,
	CNF1 = 0x2a, CANINTE = 0x2b, CANINTF = 0x2c, EFLG = 0x2d,
	TXB0CTRL = 0x30, RXB0CTRL = 0x60, RXB1CTRL = 0x70,
};

#define MODE_MASK	0xe0
#define MODE_NORMAL	0x00
#define MODE_SLEEP	0x20
#define MODE_LOOPBACK	0x40
#define MODE_LISTEN	0x60
#define MODE_CONFIG	0x80
#define TXREQ		0x08
#define INT_RX0		0x01
#define INT_RX1		0x02
#define INT_TX0		0x04
#define INT_ERR		0x20
#define EFLG_RX0OVR	0x40
#define EFLG_RX1OVR	0x80
#define EFLG_TXBO	0x20
#define BUKT		0x04
#define SIDL_IDE	0x08
#define SIDL_SRR	0x10
#define DLC_RTR		0x40
#define FRAME_LEN	13	/* SIDH, SIDL, EID8, EID0, DLC, 8 data bytes */

struct model_chip {
	struct model *model;
	int cs;
	u8 regs[NREGS];
	/* The INT pin's level and mask, for the interrupt code, which runs
	 * in hard-IRQ context and cannot take model->lock.
	 */
	bool level;
	bool masked;
	unsigned int virq;
	unsigned int violations;
	struct spi_device *spi;
	/* The reply to the last transaction written to debugfs "spi". */
	u8 reply[32];
	int reply_len;
	/* What the driver reads with device_property_read_u32(). */
	struct property_entry props[2];
	struct software_node node;
};

struct model {
	struct platform_device *pdev;
	struct spi_controller *ctlr;
	struct irq_domain *domain;
	/* Serialises SPI transactions and bus traffic over all chips: the
	 * register files and violation counters. Process context only (the
	 * SPI message pump and debugfs writes).
	 */
	struct mutex lock;
	/* Raises asserted, unmasked INT lines in hard-IRQ context. */
	struct irq_work raise;
	struct dentry *dbg;
	struct model_chip chip[MAX_CHIPS];
};

static struct model *the_model;

static void count_violation(struct model_chip *c, const char *what, int arg)
{
	c->violations++;
	pr_warn_ratelimited("mcp2515_model: violation: chip%d: %s (0x%02x)\n",
			    c->cs, what, arg);
}

static u8 mode_of(const struct model_chip *c)
{
	return c->regs[CANSTAT] & MODE_MASK;
}

/* CANSTAT and CANCTRL appear at every xE and xF address. */
static int canonical(int addr)
{
	if ((addr & 0x0f) == 0x0e)
		return CANSTAT;
	if ((addr & 0x0f) == 0x0f)
		return CANCTRL;
	return addr;
}

static void chip_reset(struct model_chip *c)
{
	memset(c->regs, 0, sizeof(c->regs));
	c->regs[CANCTRL] = 0x87;
	c->regs[CANSTAT] = MODE_CONFIG;
}

static bool is_txb(int addr)
{
	return addr >= TXB0CTRL && addr < RXB0CTRL;
}

static bool is_config_only(int addr)
{
	return addr <= 0x0b || (addr >= 0x10 && addr <= 0x1b) ||
	       (addr >= 0x20 && addr <= CNF1);
}

static void deliver(struct model_chip *to, const u8 *f);

/* Send the frame of TX buffer @n now: the model bus is never busy. */
static void transmit(struct model_chip *c, int n)
{
	u8 *ctrl = &c->regs[TXB0CTRL + 0x10 * n];
	u8 mode = mode_of(c);
	int i;

	if (!(*ctrl & TXREQ) || (c->regs[EFLG] & EFLG_TXBO))
		return;
	if (mode != MODE_NORMAL && mode != MODE_LOOPBACK)
		return;
	for (i = 0; i < chips; i++) {
		struct model_chip *to = &c->model->chip[i];
		u8 to_mode = mode_of(to);

		if (mode == MODE_LOOPBACK ? to == c :
		    to != c && (to_mode == MODE_NORMAL || to_mode == MODE_LISTEN))
			deliver(to, ctrl + 1);
	}
	*ctrl &= ~TXREQ;
	c->regs[CANINTF] |= INT_TX0 << n;
}

static void transmit_pending(struct model_chip *c)
{
	int n;

	for (n = 0; n < 3; n++)
		transmit(c, n);
}

/* Store a frame as RX buffer registers: SFF remote frames show in SIDL's
 * SRR bit, EFF ones in the DLC register's RTR bit.
 */
static void store_rx(u8 *buf, const u8 *f)
{
	bool is_eff = f[1] & SIDL_IDE;

	memcpy(buf, f, FRAME_LEN);
	buf[1] = f[1] & 0xeb;
	if (!is_eff && (f[4] & DLC_RTR))
		buf[1] |= SIDL_SRR;
	buf[4] = f[4] & (is_eff ? 0x4f : 0x0f);
}

/* Every frame is accepted (the driver turns filters off); RXB0 rolls
 * over into RXB1 if BUKT says so.
 */
static void deliver(struct model_chip *to, const u8 *f)
{
	u8 *intf = &to->regs[CANINTF];

	if (!(*intf & INT_RX0)) {
		store_rx(&to->regs[RXB0CTRL + 1], f);
		*intf |= INT_RX0;
	} else if ((to->regs[RXB0CTRL] & BUKT) && !(*intf & INT_RX1)) {
		store_rx(&to->regs[RXB1CTRL + 1], f);
		*intf |= INT_RX1;
	} else {
		to->regs[EFLG] |= (to->regs[RXB0CTRL] & BUKT) ? EFLG_RX1OVR :
								EFLG_RX0OVR;
		*intf |= INT_ERR;
	}
}

static void set_mode(struct model_chip *c, u8 ctrl)
{
	c->regs[CANCTRL] = ctrl;
	c->regs[CANSTAT] = (c->regs[CANSTAT] & ~MODE_MASK) | (ctrl & MODE_MASK);
	transmit_pending(c);
}

/* A register write with the bits software may not change kept. */
static void write_reg(struct model_chip *c, int addr, u8 val)
{
	addr = canonical(addr);
	if (is_config_only(addr) && mode_of(c) != MODE_CONFIG) {
		count_violation(c, "CNF/filter/mask write outside configuration mode",
				addr);
		return;
	}
	if (is_txb(addr) && (addr & 0x0f) && (c->regs[addr & 0xf0] & TXREQ)) {
		count_violation(c, "TX buffer written while pending", addr);
		return;
	}

	switch (addr) {
	case CANSTAT: case TEC: case REC:
		return;
	case CANCTRL:
		set_mode(c, val);
		return;
	case EFLG:
		c->regs[EFLG] &= val | ~(EFLG_RX0OVR | EFLG_RX1OVR);
		return;
	case TXB0CTRL: case TXB0CTRL + 0x10: case TXB0CTRL + 0x20:
		c->regs[addr] = (c->regs[addr] & ~0x0b) | (val & 0x0b);
		transmit(c, (addr - TXB0CTRL) >> 4);
		return;
	case RXB0CTRL:
		c->regs[addr] = (c->regs[addr] & ~0x64) | (val & 0x64);
		return;
	case RXB1CTRL:
		c->regs[addr] = (c->regs[addr] & ~0x60) | (val & 0x60);
		return;
	}
	if (addr > RXB0CTRL && (addr & 0x0f) && (addr & 0x0f) <= FRAME_LEN)
		return;		/* receive buffers are read-only */
	c->regs[addr] = val;
}

static bool is_bit_modifiable(int addr)
{
	addr = canonical(addr);
	return addr == 0x0c || addr == 0x0d || addr == CANCTRL ||
	       (addr >= 0x28 && addr <= EFLG) || addr == TXB0CTRL ||
	       addr == TXB0CTRL + 0x10 || addr == TXB0CTRL + 0x20 ||
	       addr == RXB0CTRL || addr == RXB1CTRL;
}

static u8 read_status(const struct model_chip *c)
{
	const u8 *r = c->regs;
	u8 intf = r[CANINTF];

	return (intf & 0x03) | ((r[0x30] & TXREQ) >> 1) | ((intf & 0x04) << 1) |
	       ((r[0x40] & TXREQ) << 1) | ((intf & 0x08) << 2) |
	       ((r[0x50] & TXREQ) << 3) | ((intf & 0x10) << 3);
}

static bool need(struct model_chip *c, int len, int want, u8 ins)
{
	if (len >= want)
		return true;
	count_violation(c, "transaction too short for its instruction", ins);
	return false;
}

static void do_read(struct model_chip *c, int addr, u8 *rx, int n)
{
	int i;

	if (addr + n > NREGS)
		count_violation(c, "READ past the last register", addr);
	for (i = 0; i < n; i++)
		rx[i] = c->regs[canonical((addr + i) % NREGS)];
}

static void do_write(struct model_chip *c, int addr, const u8 *tx, int n)
{
	int i;

	if (addr + n > NREGS)
		count_violation(c, "WRITE past the last register", addr);
	for (i = 0; i < n; i++)
		write_reg(c, (addr + i) % NREGS, tx[i]);
}

/* One chip-select cycle: instruction, its bytes, then its side effects
 * that the datasheet ties to CS going high.
 */
static void execute(struct model_chip *c, const u8 *tx, u8 *rx, int len)
{
	u8 ins = tx[0];
	int i, base;

	if (ins == 0xc0) {
		chip_reset(c);
	} else if (ins == 0x03 || ins == 0x02) {
		if (!need(c, len, 3, ins))
			return;
		if (ins == 0x03)
			do_read(c, tx[1], rx + 2, len - 2);
		else
			do_write(c, tx[1], tx + 2, len - 2);
	} else if (ins == 0x05) {
		u8 old;
		int addr;

		if (!need(c, len, 4, ins))
			return;
		addr = canonical(tx[1]);
		old = c->regs[addr];
		if (!is_bit_modifiable(addr))
			write_reg(c, addr, tx[3]);
		else
			write_reg(c, addr, (old & ~tx[2]) | (tx[3] & tx[2]));
	} else if ((ins & 0xf9) == 0x90) {
		base = (ins & 0x04) ? RXB1CTRL : RXB0CTRL;
		base += (ins & 0x02) ? 6 : 1;
		for (i = 1; i < len && base + i - 1 < NREGS; i++)
			rx[i] = c->regs[base + i - 1];
		c->regs[CANINTF] &= ~((ins & 0x04) ? INT_RX1 : INT_RX0);
	} else if ((ins & 0xf8) == 0x40 && (ins & 0x07) <= 5) {
		base = TXB0CTRL + 0x10 * ((ins & 0x07) >> 1);
		if (c->regs[base] & TXREQ) {
			count_violation(c, "LOAD TX BUFFER on a pending buffer", ins);
			return;
		}
		base += (ins & 0x01) ? 6 : 1;
		for (i = 1; i < len && ((base + i - 1) & 0x0f) <= FRAME_LEN; i++)
			c->regs[base + i - 1] = tx[i];
	} else if ((ins & 0xf8) == 0x80 && (ins & 0x07)) {
		if (mode_of(c) == MODE_CONFIG)
			count_violation(c, "RTS in configuration mode", ins);
		for (i = 0; i < 3; i++) {
			if (ins & BIT(i)) {
				c->regs[TXB0CTRL + 0x10 * i] |= TXREQ;
				transmit(c, i);
			}
		}
	} else if (ins == 0xa0) {
		for (i = 1; i < len; i++)
			rx[i] = read_status(c);
	} else if (ins == 0xb0) {
		for (i = 1; i < len; i++)
			rx[i] = (c->regs[CANINTF] & 0x03) << 6;
	} else {
		count_violation(c, "unknown instruction", ins);
	}
}

/* Work out each INT pin after a change; raise the asserted ones. */
static void update_lines(struct model *m)
{
	bool any = false;
	int i;

	lockdep_assert_held(&m->lock);
	for (i = 0; i < chips; i++) {
		struct model_chip *c = &m->chip[i];
		bool level = c->regs[CANINTE] & c->regs[CANINTF];

		WRITE_ONCE(c->level, level);
		any |= level;
	}
	if (any)
		irq_work_queue(&m->raise);
}

static void raise_lines(struct irq_work *work)
{
	struct model *m = container_of(work, struct model, raise);
	int i;

	for (i = 0; i < chips; i++) {
		struct model_chip *c = &m->chip[i];

		if (READ_ONCE(c->level) && !READ_ONCE(c->masked) && c->virq)
			generic_handle_irq(c->virq);
	}
}

static void line_mask(struct irq_data *d)
{
	struct model_chip *c = irq_data_get_irq_chip_data(d);

	WRITE_ONCE(c->masked, true);
}

/* A level that is still asserted fires again, as on a real line. */
static void line_unmask(struct irq_data *d)
{
	struct model_chip *c = irq_data_get_irq_chip_data(d);

	WRITE_ONCE(c->masked, false);
	if (READ_ONCE(c->level))
		irq_work_queue(&c->model->raise);
}

static struct irq_chip model_irq_chip = {
	.name = "mcp2515_model",
	.irq_mask = line_mask,
	.irq_unmask = line_unmask,
};

static int model_irq_map(struct irq_domain *d, unsigned int virq,
			 irq_hw_number_t hw)
{
	struct model *m = d->host_data;

	irq_set_chip_data(virq, &m->chip[hw]);
	irq_set_chip_and_handler(virq, &model_irq_chip, handle_level_irq);
	irq_set_noprobe(virq);
	return 0;
}

static const struct irq_domain_ops model_irq_ops = {
	.map = model_irq_map,
	.xlate = irq_domain_xlate_onecell,
};

static int model_transfer(struct spi_controller *ctlr, struct spi_message *msg)
{
	struct model *m = spi_controller_get_devdata(ctlr);
	struct model_chip *c = &m->chip[msg->spi->chip_select];
	u8 tx[32] = { 0 }, rx[32] = { 0 };
	struct spi_transfer *t;
	int len = 0, off = 0;

	list_for_each_entry(t, &msg->transfers, transfer_list) {
		if (len + t->len > sizeof(tx)) {
			msg->status = -EMSGSIZE;
			goto out;
		}
		if (t->tx_buf)
			memcpy(tx + len, t->tx_buf, t->len);
		len += t->len;
	}
	mutex_lock(&m->lock);
	if (len)
		execute(c, tx, rx, len);
	update_lines(m);
	mutex_unlock(&m->lock);

	list_for_each_entry(t, &msg->transfers, transfer_list) {
		if (t->rx_buf)
			memcpy(t->rx_buf, rx + off, t->len);
		off += t->len;
	}
	msg->actual_length = len;
	msg->status = 0;
out:
	spi_finalize_current_message(ctlr);
	return 0;
}

/* Parse a debugfs write into a NUL-terminated string. */
static int user_string(char *buf, size_t size, const char __user *ubuf,
		       size_t len)
{
	if (len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	return 0;
}

static int errors_show(struct seq_file *s, void *unused)
{
	struct model_chip *c = s->private;

	seq_printf(s, "%u %u\n", c->regs[TEC], c->regs[REC]);
	return 0;
}

/* The EFLG bits the datasheet derives from the error counters. */
static u8 eflg_of(unsigned int tec, unsigned int rec)
{
	u8 e = 0;

	if (tec >= 96)
		e |= 0x04 | 0x01;
	if (rec >= 96)
		e |= 0x02 | 0x01;
	if (rec >= 128)
		e |= 0x08;
	if (tec >= 128)
		e |= 0x10;
	if (tec >= 256)
		e |= EFLG_TXBO;
	return e;
}

static ssize_t errors_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct model_chip *c = file_inode(file)->i_private;
	unsigned int tec, rec;
	char buf[32];
	int err;

	err = user_string(buf, sizeof(buf), ubuf, len);
	if (err)
		return err;
	if (sscanf(buf, "%u %u", &tec, &rec) != 2 || tec > 256 || rec > 255)
		return -EINVAL;

	mutex_lock(&c->model->lock);
	c->regs[TEC] = min(tec, 255U);
	c->regs[REC] = rec;
	c->regs[EFLG] = (c->regs[EFLG] & (EFLG_RX0OVR | EFLG_RX1OVR)) |
			eflg_of(tec, rec);
	c->regs[CANINTF] |= INT_ERR;
	update_lines(c->model);
	mutex_unlock(&c->model->lock);
	return len;
}

static int errors_open(struct inode *inode, struct file *file)
{
	return single_open(file, errors_show, inode->i_private);
}

static const struct file_operations errors_fops = {
	.owner = THIS_MODULE,
	.open = errors_open,
	.read = seq_read,
	.write = errors_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static ssize_t inject_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct model_chip *c = file_inode(file)->i_private;
	unsigned int n, i, id;
	u8 f[FRAME_LEN] = { 0 };
	char buf[16];
	int err;

	err = user_string(buf, sizeof(buf), ubuf, len);
	if (err)
		return err;
	if (kstrtouint(buf, 0, &n) || n > 64)
		return -EINVAL;

	mutex_lock(&c->model->lock);
	for (i = 0; i < n; i++) {
		id = 0x100 + i;
		f[0] = id >> 3;
		f[1] = (id & 7) << 5;
		f[4] = 1;
		f[5] = i;
		deliver(c, f);
	}
	update_lines(c->model);
	mutex_unlock(&c->model->lock);
	return len;
}

static const struct file_operations inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = inject_write,
};

static int raw_spi_show(struct seq_file *s, void *unused)
{
	struct model_chip *c = s->private;

	seq_printf(s, "%*ph\n", c->reply_len, c->reply);
	return 0;
}

static ssize_t raw_spi_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	struct model_chip *c = file_inode(file)->i_private;
	u8 tx[32] = { 0 }, rx[32] = { 0 };
	char buf[128], *p, *tok;
	int n = 0, err;

	err = user_string(buf, sizeof(buf), ubuf, len);
	if (err)
		return err;
	p = strim(buf);
	while ((tok = strsep(&p, " ")) && n < (int)sizeof(tx)) {
		if (*tok && kstrtou8(tok, 16, &tx[n++]))
			return -EINVAL;
	}
	if (!n)
		return -EINVAL;

	mutex_lock(&c->model->lock);
	execute(c, tx, rx, n);
	update_lines(c->model);
	memcpy(c->reply, rx, n);
	c->reply_len = n;
	mutex_unlock(&c->model->lock);
	return len;
}

static int raw_spi_open(struct inode *inode, struct file *file)
{
	return single_open(file, raw_spi_show, inode->i_private);
}

static const struct file_operations raw_spi_fops = {
	.owner = THIS_MODULE,
	.open = raw_spi_open,
	.read = seq_read,
	.write = raw_spi_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static void model_debugfs(struct model *m)
{
	char name[8];
	int i;

	m->dbg = debugfs_create_dir("mcp2515_model", NULL);
	for (i = 0; i < chips; i++) {
		struct dentry *d;

		snprintf(name, sizeof(name), "chip%d", i);
		d = debugfs_create_dir(name, m->dbg);
		debugfs_create_u32("violations", 0644, d, &m->chip[i].violations);
		debugfs_create_file("errors", 0644, d, &m->chip[i], &errors_fops);
		debugfs_create_file("inject", 0200, d, &m->chip[i], &inject_fops);
		debugfs_create_file("spi", 0644, d, &m->chip[i], &raw_spi_fops);
	}
}

static int add_chip(struct model *m, int i)
{
	struct model_chip *c = &m->chip[i];
	struct spi_board_info info = {
		.modalias = "mcp2515",
		.max_speed_hz = 10000000,
		.chip_select = i,
		.swnode = &c->node,
	};

	c->model = m;
	c->cs = i;
	c->masked = true;
	chip_reset(c);
	c->props[0] = PROPERTY_ENTRY_U32("clock-frequency", clock_hz);
	c->node.properties = c->props;
	c->virq = irq_create_mapping(m->domain, i);
	if (!c->virq)
		return -ENOMEM;
	info.irq = c->virq;
	c->spi = spi_new_device(m->ctlr, &info);
	return c->spi ? 0 : -ENODEV;
}

/* Unregistering the controller unbinds the driver from every chip (it
 * frees its interrupt); only then may the interrupts and the model go.
 */
static void model_free(struct model *m)
{
	int i;

	debugfs_remove_recursive(m->dbg);
	if (m->ctlr)
		spi_unregister_controller(m->ctlr);
	irq_work_sync(&m->raise);
	for (i = 0; i < chips; i++)
		if (m->chip[i].virq)
			irq_dispose_mapping(m->chip[i].virq);
	if (m->domain)
		irq_domain_remove(m->domain);
	platform_device_unregister(m->pdev);
	kfree(m);
}

static int model_register(struct model *m)
{
	struct spi_controller *ctlr;
	int err;

	ctlr = spi_alloc_master(&m->pdev->dev, 0);
	if (!ctlr)
		return -ENOMEM;
	spi_controller_set_devdata(ctlr, m);
	ctlr->bus_num = -1;
	ctlr->num_chipselect = chips;
	ctlr->mode_bits = SPI_CPOL | SPI_CPHA;
	ctlr->transfer_one_message = model_transfer;
	err = spi_register_controller(ctlr);
	if (err) {
		spi_controller_put(ctlr);
		return err;
	}
	m->ctlr = ctlr;
	return 0;
}

static int __init model_init(void)
{
	struct model *m;
	int i, err;

	if (!chips || chips > MAX_CHIPS)
		return -EINVAL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	mutex_init(&m->lock);
	init_irq_work(&m->raise, raise_lines);
	m->pdev = platform_device_register_simple("mcp2515_model", -1, NULL, 0);
	if (IS_ERR(m->pdev)) {
		err = PTR_ERR(m->pdev);
		kfree(m);
		return err;
	}
	m->domain = irq_domain_add_linear(NULL, chips, &model_irq_ops, m);
	err = m->domain ? model_register(m) : -ENOMEM;
	if (err)
		goto undo;
	model_debugfs(m);
	for (i = 0; i < chips; i++) {
		err = add_chip(m, i);
		if (err)
			goto undo;
	}
	the_model = m;
	return 0;

undo:
	model_free(m);
	return err;
}

static void __exit model_exit(void)
{
	model_free(the_model);
}

module_init(model_init);
module_exit(model_exit);
MODULE_DESCRIPTION("Software model of MCP2515 CAN controllers on SPI, for tests");
MODULE_LICENSE("GPL");
