/* source-interrupts.h: what the interrupts source offers beyond its struct source_ops: the
 * IRQ table it fills as it samples (irqtable.h). Outside the sources (and their tests) the
 * table is reached through the sampler (sampler_irq_table), which also serves it while
 * this source is disabled. */
#ifndef NM_SOURCE_INTERRUPTS_H
#define NM_SOURCE_INTERRUPTS_H

#include "irqtable.h"

struct source;

/* The IRQ table as of the last sample, in file order: source.irqtab when the sampler gave
 * one, else the source's own. Its entries and everything they point to stay valid until
 * the next sample or free of src. NULL before init; empty before the first sample. */
const struct irq_table *source_interrupts_table(struct source *src);

#endif
