// SPDX-License-Identifier: GPL-2.0
/* The chips' INT pins as a small interrupt domain, level-triggered or
 * (module parameter) edge-triggered. The pins that are active and
 * unmasked fire from one irq_work, so the handlers run in hard-IRQ
 * context like a real line's, never from the process context of the SPI
 * transfer that changed the level, and one transfer that activates
 * several pins costs one interrupt entry. A level line fires again on
 * unmask while the pin is active; an edge line fires once per change
 * from inactive to active, so a driver that leaves a flag set never
 * hears from the chip again.
 */

#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include "model.h"

static bool wants_to_fire(const struct mcpm_chip *chip)
{
	if (READ_ONCE(chip->masked))
		return false;
	if (chip->model->edge_irq)
		return READ_ONCE(chip->edge);
	return READ_ONCE(chip->level);
}

static void fire(struct irq_work *work)
{
	struct mcpm *model = container_of(work, struct mcpm, irq_work);
	struct mcpm_chip *chip;
	unsigned int i;

	for (i = 0; i < model->nchips; i++) {
		chip = &model->chips[i];
		if (!wants_to_fire(chip))
			continue;
		if (model->edge_irq && !xchg(&chip->edge, false))
			continue;
		generic_handle_irq(chip->virq);
	}
}

/* The edge flow acknowledges each edge; the latch is cleared in fire(). */
static void mcpm_irq_ack(struct irq_data *d)
{
}

static void mcpm_irq_mask(struct irq_data *d)
{
	struct mcpm_chip *chip = irq_data_get_irq_chip_data(d);

	WRITE_ONCE(chip->masked, true);
}

static void mcpm_irq_unmask(struct irq_data *d)
{
	struct mcpm_chip *chip = irq_data_get_irq_chip_data(d);

	WRITE_ONCE(chip->masked, false);
	if (wants_to_fire(chip))
		irq_work_queue(&chip->model->irq_work);
}

static struct irq_chip mcpm_irq_chip = {
	.name = "mcp2515_model",
	.irq_ack = mcpm_irq_ack,
	.irq_mask = mcpm_irq_mask,
	.irq_unmask = mcpm_irq_unmask,
};

static int mcpm_irq_map(struct irq_domain *domain, unsigned int virq,
			irq_hw_number_t hw)
{
	struct mcpm *model = domain->host_data;

	irq_set_chip_data(virq, &model->chips[hw]);
	irq_set_chip_and_handler(virq, &mcpm_irq_chip, model->edge_irq ?
				 handle_edge_irq : handle_level_irq);
	irq_set_noprobe(virq);
	return 0;
}

static void mcpm_irq_unmap(struct irq_domain *domain, unsigned int virq)
{
	irq_set_chip_and_handler(virq, NULL, NULL);
	irq_set_chip_data(virq, NULL);
}

static const struct irq_domain_ops mcpm_irq_ops = {
	.map = mcpm_irq_map,
	.unmap = mcpm_irq_unmap,
};

/**
 * mcpm_irq_set_level() - drive a chip's INT pin
 * @chip: the chip; model->lock held (process context)
 * @level: the pin is active
 *
 * Nothing fires before mcpm_irq_kick(). A change to active latches an
 * edge.
 */
void mcpm_irq_set_level(struct mcpm_chip *chip, bool level)
{
	lockdep_assert_held(&chip->model->lock);
	if (level && !chip->level)
		WRITE_ONCE(chip->edge, true);
	WRITE_ONCE(chip->level, level);
}

/**
 * mcpm_irq_kick() - raise the active, unmasked pins
 * @model: the model; model->lock held (process context)
 *
 * Their interrupts fire from hard-IRQ context soon after; kicking again
 * before that raises them once.
 */
void mcpm_irq_kick(struct mcpm *model)
{
	unsigned int i;

	lockdep_assert_held(&model->lock);
	for (i = 0; i < model->nchips; i++) {
		if (wants_to_fire(&model->chips[i])) {
			irq_work_queue(&model->irq_work);
			return;
		}
	}
}

/**
 * mcpm_irq_init() - create the domain and one interrupt per chip
 * @model: the model, chips allocated; process context
 *
 * Return: 0, or -ENOMEM (nothing left allocated).
 */
int mcpm_irq_init(struct mcpm *model)
{
	unsigned int i;

	model->irq_work = IRQ_WORK_INIT_HARD(fire);
	model->fwnode = irq_domain_alloc_named_fwnode("mcp2515_model");
	if (!model->fwnode)
		return -ENOMEM;
	model->domain = irq_domain_create_linear(model->fwnode, model->nchips,
						 &mcpm_irq_ops, model);
	if (!model->domain)
		goto undo_fwnode;
	for (i = 0; i < model->nchips; i++) {
		/* Lines start masked until a driver requests them. */
		model->chips[i].masked = true;
		model->chips[i].virq = irq_create_mapping(model->domain, i);
		if (!model->chips[i].virq)
			goto undo_mappings;
	}
	return 0;

undo_mappings:
	while (i--)
		irq_dispose_mapping(model->chips[i].virq);
	irq_domain_remove(model->domain);
undo_fwnode:
	irq_domain_free_fwnode(model->fwnode);
	return -ENOMEM;
}

/**
 * mcpm_irq_exit() - remove the interrupts and the domain
 * @model: the model; process context, after the SPI devices are gone,
 *	so no driver holds an interrupt and no transfer changes a level
 *
 * A raise still queued is waited for before its mapping goes.
 */
void mcpm_irq_exit(struct mcpm *model)
{
	unsigned int i;

	irq_work_sync(&model->irq_work);
	for (i = 0; i < model->nchips; i++)
		irq_dispose_mapping(model->chips[i].virq);
	irq_domain_remove(model->domain);
	irq_domain_free_fwnode(model->fwnode);
}
