/* cmd-profile-util.c: the daemon's side of a profile host: the root in force and the IRQ
 * table (the sampler's: the interrupts source's, or read on demand while it is disabled),
 * through which queue IRQs are found. */
#include <stdio.h>

#include "cmd-profile.h"
#include "daemon.h"
#include "error.h"
#include "profile.h"
#include "sampler.h"
#include "irqtable.h"

/* Open the daemon's root as a profile host with the IRQ table. */
int
cmd_profile_host(struct daemon *d, struct profile_host *h, struct nm_error *err)
{
	const struct irq_table *t;
	struct nm_error e;

	if (profile_host_open(h, d->config.root, err) < 0)
		return -1;
	if ((t = sampler_irq_table(d->sampler, &e)) == NULL) {
		snprintf(h->irq_reason, sizeof(h->irq_reason), "%.120s", e.message);
		return 0;
	}
	h->irqs = t->v;
	h->nirqs = t->n;
	if (h->irqs == NULL)
		snprintf(h->irq_reason, sizeof(h->irq_reason), "/proc/interrupts lists no IRQ");
	return 0;
}

/* Read IRQ affinities again after profile writes. */
void
cmd_profile_refresh(struct daemon *d)
{
	sampler_irq_refresh_affinity(d->sampler);
}
