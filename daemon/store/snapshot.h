/* snapshot.h: the state of every series at one instant, taken right after a synchronous
 * sample of every source, and the IRQ table then (affinities and the queue -> IRQ map): what
 * a window keeps of each of its edges, so its report does not depend on the ring still
 * holding that time, nor on the IRQ table of the day it is recomputed. */
#ifndef NM_SNAPSHOT_H
#define NM_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "irqtable.h"
#include "napitable.h"
#include "ring.h"
#include "series.h"

struct sampler;

struct snapshot {
	uint64_t mono_ns;                 /* when it was taken (CLOCK_MONOTONIC) */
	uint64_t real_ns;                 /* the same instant, wall clock */
	size_t n;                         /* series known then: ids < n */
	uint64_t *acc;                    /* [id]: ring_live_value (acc) then; owned */
	uint64_t *raw;                    /* [id]: sampler_raw then (gauges' levels); owned */
	uint64_t src_t[RING_MAX_SOURCES]; /* each source's newest record time (0: none) */
	struct irq_table irqs;            /* the IRQ table then (owned; empty when it could not be
	                                     read) */
	struct napi_table napis;          /* the NAPI table then (owned; empty without one) */
};

/* Sample every enabled source now, then copy the live state into snap (allocates). */
void snapshot_take(struct sampler *s, struct snapshot *snap);
/* snapshot_take without the sample: the live state as the newest sample left it. */
void snapshot_copy_live(struct sampler *s, struct snapshot *snap);
void snapshot_free(struct snapshot *snap);
/* Bytes snap holds. */
size_t snapshot_bytes(const struct snapshot *snap);
/* acc of id in snap (0 for an id the snapshot predates). */
uint64_t snapshot_acc(const struct snapshot *snap, series_id id);
/* Increment of id from a to b, raw units (ids that appeared after a count from 0). */
uint64_t snapshot_delta(const struct snapshot *a, const struct snapshot *b, series_id id);
/* Seconds between a and b as seen by one source (its record times), or wall seconds
 * between the snapshots when the source has no record in one of them. */
double snapshot_seconds(const struct snapshot *a, const struct snapshot *b, unsigned src);

#endif
