// SPDX-License-Identifier: GPL-2.0
/* The test interface, /sys/kernel/debug/mcp2515_model/:
 *   startup_us  oscillator start-up time after RESET (SPI is ignored)
 *   spi_delay_us  time every SPI message takes on top
 *   spi_fail    the next N SPI messages fail with -EIO
 * (each at most 1000000)
 * and in chipN/:
 *   spi         write hex bytes: one chip-select cycle; read: the reply
 *   regs        the register file as READ returns it
 *   errors      write "TEC REC" (decimal, TEC >= 256 is bus-off);
 *               read "TEC REC EFLG"
 *   overflow    write 0 or 1: the buffer lost a frame
 *   inject      write a frame from the bus, cansend style: 123#11223344,
 *               12345678#R (8 digits: extended), 123#R2 (remote, DLC 2);
 *               or a count N: N frames 100#00, 101#01, ... at once
 *   stream      write N: frames 100#00, 101#01, ... from an outside node,
 *               back to back at the chip's bit rate (0 stops them)
 *   alone       write 1: no other node, so no ACK (error passive at
 *               TEC 128, repeated forever); 0 reconnects
 *   recover     write anything: leave bus-off
 *   violations  accesses the real chip would refuse; write 0 to clear
 *   stats       frames sent, stored and lost to overflow
 */

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "model.h"

#define INPUT_MAX	(3 * MCPM_RAW_MAX + 2)

static char *get_input(const char __user *ubuf, size_t len)
{
	if (len >= INPUT_MAX)
		return ERR_PTR(-EINVAL);
	return memdup_user_nul(ubuf, len);
}

static struct mcpm_chip *chip_of(struct file *file)
{
	return file->f_inode->i_private;
}

/* Hex bytes separated by blanks, e.g. "03 0e 00". */
static int parse_bytes(const char *s, u8 *out, size_t max)
{
	size_t n = 0;
	int hi, lo;

	for (;;) {
		s = skip_spaces(s);
		if (!*s)
			return n;
		hi = hex_to_bin(s[0]);
		lo = hex_to_bin(s[1]);
		if (hi < 0 || lo < 0 || n == max ||
		    (s[2] && !isspace(s[2])))
			return -EINVAL;
		out[n++] = hi << 4 | lo;
		s += 2;
	}
}

static void raw_transact(struct mcpm_chip *chip, const u8 *tx, int len)
{
	int i;

	mutex_lock(&chip->model->lock);
	mcpm_chip_begin(chip);
	for (i = 0; i < len; i++)
		chip->raw_reply[i] = mcpm_chip_byte(chip, tx[i]);
	chip->raw_len = len;
	mcpm_chip_end(chip);
	mutex_unlock(&chip->model->lock);
}

static ssize_t spi_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	struct mcpm_chip *chip = chip_of(file);
	u8 tx[MCPM_RAW_MAX];
	char *buf;
	int n;

	buf = get_input(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	n = parse_bytes(buf, tx, sizeof(tx));
	kfree(buf);
	if (n <= 0)
		return -EINVAL;
	raw_transact(chip, tx, n);
	return len;
}

static int spi_show(struct seq_file *m, void *v)
{
	struct mcpm_chip *chip = m->private;
	size_t i;

	mutex_lock(&chip->model->lock);
	for (i = 0; i < chip->raw_len; i++)
		seq_printf(m, "%s%02x", i ? " " : "", chip->raw_reply[i]);
	mutex_unlock(&chip->model->lock);
	seq_putc(m, '\n');
	return 0;
}

static int spi_open(struct inode *inode, struct file *file)
{
	return single_open(file, spi_show, inode->i_private);
}

static const struct file_operations spi_fops = {
	.owner = THIS_MODULE,
	.open = spi_open,
	.read = seq_read,
	.write = spi_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int regs_show(struct seq_file *m, void *v)
{
	struct mcpm_chip *chip = m->private;
	unsigned int i;

	mutex_lock(&chip->model->lock);
	for (i = 0; i < MCPM_NREGS; i++)
		seq_printf(m, "%02x%c", mcpm_chip_read_reg(chip, i),
			   i % 16 == 15 ? '\n' : ' ');
	mutex_unlock(&chip->model->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(regs);

static int stats_show(struct seq_file *m, void *v)
{
	struct mcpm_chip *chip = m->private;

	mutex_lock(&chip->model->lock);
	seq_printf(m, "tx %llu\nrx %llu\nrx_overflows %llu\n", chip->tx_frames,
		   chip->rx_frames, chip->rx_overflows);
	mutex_unlock(&chip->model->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int errors_show(struct seq_file *m, void *v)
{
	struct mcpm_chip *chip = m->private;

	mutex_lock(&chip->model->lock);
	seq_printf(m, "%u %u 0x%02x\n", chip->regs[MCPM_TEC],
		   chip->regs[MCPM_REC], chip->regs[MCPM_EFLG]);
	mutex_unlock(&chip->model->lock);
	return 0;
}

static int errors_open(struct inode *inode, struct file *file)
{
	return single_open(file, errors_show, inode->i_private);
}

static ssize_t errors_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct mcpm_chip *chip = chip_of(file);
	unsigned int tec, rec;
	char *buf;
	int n;

	buf = get_input(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	n = sscanf(buf, "%u %u", &tec, &rec);
	kfree(buf);
	if (n != 2 || rec > 255)
		return -EINVAL;
	mutex_lock(&chip->model->lock);
	mcpm_chip_set_errors(chip, tec, rec);
	mcpm_bus_update_lines(chip->model);
	mutex_unlock(&chip->model->lock);
	return len;
}

static const struct file_operations errors_fops = {
	.owner = THIS_MODULE,
	.open = errors_open,
	.read = seq_read,
	.write = errors_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static ssize_t overflow_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct mcpm_chip *chip = chip_of(file);
	unsigned int n;
	int err;

	err = kstrtouint_from_user(ubuf, len, 0, &n);
	if (err)
		return err;
	if (n > 1)
		return -EINVAL;
	mutex_lock(&chip->model->lock);
	mcpm_chip_force_overflow(chip, n);
	mcpm_bus_update_lines(chip->model);
	mutex_unlock(&chip->model->lock);
	return len;
}

/* No .llseek in these fops: NULL means "not seekable" on every kernel
 * we build for (6.1 maps it to no_llseek, which 6.12 no longer has).
 */
static const struct file_operations overflow_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = overflow_write,
};

static int parse_data(const char *s, struct mcpm_frame *f)
{
	int hi, lo;

	if (*s == 'R' || *s == 'r') {
		f->rtr = true;
		if (!s[1])
			return 0;
		hi = hex_to_bin(s[1]);
		if (hi < 0 || s[2])
			return -EINVAL;
		f->dlc = hi;
		return 0;
	}
	while (*s) {
		hi = hex_to_bin(s[0]);
		lo = hex_to_bin(s[1]);
		if (hi < 0 || lo < 0 || f->dlc == 8)
			return -EINVAL;
		f->data[f->dlc++] = hi << 4 | lo;
		s += 2;
	}
	return 0;
}

/* cansend's notation: 3 identifier digits standard, 8 extended. */
static int parse_frame(char *s, struct mcpm_frame *f)
{
	char *hash = strchr(strim(s), '#');
	u32 id;

	if (!hash)
		return -EINVAL;
	*hash = '\0';
	if (kstrtou32(s, 16, &id))
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	if (hash - s == 8 && id <= 0x1fffffff) {
		f->ide = true;
		f->sid = id >> 18;
		f->eid = id & 0x3ffff;
	} else if (hash - s == 3 && id <= 0x7ff) {
		f->sid = id;
	} else {
		return -EINVAL;
	}
	return parse_data(hash + 1, f);
}

#define INJECT_MAX_COUNT	64
#define STREAM_MAX_COUNT	100000

/* All frames arrive before the driver can look: more than the two
 * receive buffers hold overflow.
 */
static int inject(struct mcpm_chip *chip, const struct mcpm_frame *f,
		  unsigned int count)
{
	struct mcpm_frame numbered;
	unsigned int i;
	int err = 0;

	mutex_lock(&chip->model->lock);
	for (i = 0; i < count && !err; i++) {
		if (f) {
			err = mcpm_bus_inject(chip, f);
			continue;
		}
		mcpm_bus_numbered_frame(i, &numbered);
		err = mcpm_bus_inject(chip, &numbered);
	}
	mcpm_bus_update_lines(chip->model);
	mutex_unlock(&chip->model->lock);
	return err;
}

static ssize_t inject_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct mcpm_chip *chip = chip_of(file);
	unsigned int count;
	struct mcpm_frame f;
	bool is_frame;
	char *buf;
	int err;

	buf = get_input(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	is_frame = strchr(buf, '#');
	if (is_frame) {
		count = 1;
		err = parse_frame(buf, &f);
	} else {
		err = kstrtouint(strim(buf), 0, &count);
		if (!err && count > INJECT_MAX_COUNT)
			err = -EINVAL;
	}
	if (!err)
		err = inject(chip, is_frame ? &f : NULL, count);
	kfree(buf);
	return err ? err : len;
}

static const struct file_operations inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = inject_write,
};

static ssize_t recover_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	struct mcpm_chip *chip = chip_of(file);

	mutex_lock(&chip->model->lock);
	mcpm_chip_recover(chip);
	mcpm_bus_advance(chip->model);
	mcpm_bus_update_lines(chip->model);
	mutex_unlock(&chip->model->lock);
	return len;
}

static const struct file_operations recover_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = recover_write,
};

static ssize_t stream_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct mcpm_chip *chip = chip_of(file);
	unsigned int count;
	int err;

	err = kstrtouint_from_user(ubuf, len, 0, &count);
	if (err)
		return err;
	if (count > STREAM_MAX_COUNT)
		return -EINVAL;
	mutex_lock(&chip->model->lock);
	mcpm_bus_stream(chip, count);
	mcpm_bus_update_lines(chip->model);
	mutex_unlock(&chip->model->lock);
	return len;
}

static const struct file_operations stream_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = stream_write,
};

static int alone_get(void *data, u64 *val)
{
	struct mcpm_chip *chip = data;

	mutex_lock(&chip->model->lock);
	*val = chip->alone;
	mutex_unlock(&chip->model->lock);
	return 0;
}

static int alone_set(void *data, u64 val)
{
	struct mcpm_chip *chip = data;

	if (val > 1)
		return -EINVAL;
	mutex_lock(&chip->model->lock);
	chip->alone = val;
	mcpm_bus_advance(chip->model);
	mcpm_bus_update_lines(chip->model);
	mutex_unlock(&chip->model->lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(alone_fops, alone_get, alone_set, "%llu\n");

/* The model-wide knobs are u32 fields of the one model's struct mcpm,
 * under its lock; set once at init, before the files exist.
 */
static struct mcpm *knob_model;

#define KNOB_MAX	USEC_PER_SEC

static int knob_get(void *data, u64 *val)
{
	u32 *field = data;

	mutex_lock(&knob_model->lock);
	*val = *field;
	mutex_unlock(&knob_model->lock);
	return 0;
}

static int knob_set(void *data, u64 val)
{
	u32 *field = data;

	if (val > KNOB_MAX)
		return -EINVAL;
	mutex_lock(&knob_model->lock);
	*field = val;
	mutex_unlock(&knob_model->lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(knob_fops, knob_get, knob_set, "%llu\n");

static int violations_show(struct seq_file *m, void *v)
{
	struct mcpm_chip *chip = m->private;

	mutex_lock(&chip->model->lock);
	seq_printf(m, "%u\n", chip->violations);
	mutex_unlock(&chip->model->lock);
	return 0;
}

static int violations_open(struct inode *inode, struct file *file)
{
	return single_open(file, violations_show, inode->i_private);
}

static ssize_t violations_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct mcpm_chip *chip = chip_of(file);
	unsigned int val;
	int err;

	err = kstrtouint_from_user(ubuf, len, 0, &val);
	if (err)
		return err;
	if (val)
		return -EINVAL;
	mutex_lock(&chip->model->lock);
	chip->violations = 0;
	mutex_unlock(&chip->model->lock);
	return len;
}

static const struct file_operations violations_fops = {
	.owner = THIS_MODULE,
	.open = violations_open,
	.read = seq_read,
	.write = violations_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static void add_chip(struct mcpm_chip *chip, struct dentry *top)
{
	struct dentry *dir;
	char name[16];

	snprintf(name, sizeof(name), "chip%u", chip->index);
	dir = debugfs_create_dir(name, top);
	debugfs_create_file("spi", 0600, dir, chip, &spi_fops);
	debugfs_create_file("regs", 0400, dir, chip, &regs_fops);
	debugfs_create_file("stats", 0400, dir, chip, &stats_fops);
	debugfs_create_file("errors", 0600, dir, chip, &errors_fops);
	debugfs_create_file("overflow", 0200, dir, chip, &overflow_fops);
	debugfs_create_file("inject", 0200, dir, chip, &inject_fops);
	debugfs_create_file("recover", 0200, dir, chip, &recover_fops);
	debugfs_create_file("stream", 0200, dir, chip, &stream_fops);
	debugfs_create_file_unsafe("alone", 0600, dir, chip, &alone_fops);
	debugfs_create_file("violations", 0600, dir, chip, &violations_fops);
}

/**
 * mcpm_debugfs_init() - create the test interface
 * @model: the model, chips ready; process context
 *
 * debugfs errors are not fatal: the files are then missing.
 */
void mcpm_debugfs_init(struct mcpm *model)
{
	unsigned int i;

	knob_model = model;
	model->debugfs = debugfs_create_dir("mcp2515_model", NULL);
	debugfs_create_file_unsafe("startup_us", 0600, model->debugfs,
				   &model->startup_us, &knob_fops);
	debugfs_create_file_unsafe("spi_delay_us", 0600, model->debugfs,
				   &model->spi_delay_us, &knob_fops);
	debugfs_create_file_unsafe("spi_fail", 0600, model->debugfs,
				   &model->spi_fail, &knob_fops);
	for (i = 0; i < model->nchips; i++)
		add_chip(&model->chips[i], model->debugfs);
}

/**
 * mcpm_debugfs_exit() - remove the test interface
 * @model: the model; process context
 *
 * Returns once no handler runs any more, so the chips may go after it.
 */
void mcpm_debugfs_exit(struct mcpm *model)
{
	debugfs_remove_recursive(model->debugfs);
}
