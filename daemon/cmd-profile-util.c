/* cmd-profile-util.c: the daemon's side of a profile host: the root in force and the
 * interrupts source's IRQ table, through which queue IRQs are found. */
#include <stdio.h>

#include "cmd-profile.h"
#include "daemon.h"
#include "error.h"
#include "log.h"
#include "profile.h"
#include "sampler.h"
#include "source-interrupts.h"

/* Open the daemon's root as a profile host with the IRQ table. */
int
cmd_profile_host(struct daemon *d, struct profile_host *h, struct nm_error *err)
{
	struct source *src = sampler_source(d->sampler, "interrupts");

	if (profile_host_open(h, d->config.root, err) < 0)
		return -1;
	if (src == NULL || !src->enabled) {
		snprintf(h->irq_reason, sizeof(h->irq_reason),
		         "queue IRQs are found through the interrupts source, which is disabled");
		return 0;
	}
	h->irqs = source_interrupts_irqs(src, &h->nirqs);
	if (h->irqs == NULL)
		snprintf(h->irq_reason, sizeof(h->irq_reason),
		         "the interrupts source has not read /proc/interrupts yet%s%.60s",
		         src->reason[0] ? ": " : "", src->reason);
	return 0;
}

/* Read IRQ affinities again after profile writes. */
void
cmd_profile_refresh(struct daemon *d)
{
	struct source *src = sampler_source(d->sampler, "interrupts");
	struct nm_error err;

	if (src != NULL && src->enabled && source_interrupts_refresh_affinity(src, &err) < 0)
		log_debug("profile: %s", err.message);
}
