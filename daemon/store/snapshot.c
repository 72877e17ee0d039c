/* snapshot.c: copies of the live state of every series, taken at window edges. */
#include <stdlib.h>
#include <string.h>

#include "sampler.h"
#include "snapshot.h"
#include "timeutil.h"
#include "xmalloc.h"

void
snapshot_take(struct sampler *s, struct snapshot *snap)
{
	sampler_sample_all(s);
	snapshot_copy_live(s, snap);
}

void
snapshot_copy_live(struct sampler *s, struct snapshot *snap)
{
	const struct ring *r = sampler_ring(s);
	size_t n;

	n = sampler_registry(s)->n;
	memset(snap, 0, sizeof(*snap));
	irqtable_copy(&snap->irqs, sampler_irq_table(s, NULL));
	napitable_copy(&snap->napis, sampler_napi_table(s));
	snap->mono_ns = ring_live_time(r, 0);
	for (unsigned i = 0; i < RING_MAX_SOURCES; i++) {
		snap->src_t[i] = ring_live_time(r, i);
		if (snap->src_t[i] > snap->mono_ns)
			snap->mono_ns = snap->src_t[i];
	}
	snap->real_ns = (uint64_t)((int64_t)snap->mono_ns + sampler_mono_to_real(s));
	snap->n = n;
	snap->acc = xreallocarray(NULL, n ? n : 1, sizeof(*snap->acc));
	snap->raw = xreallocarray(NULL, n ? n : 1, sizeof(*snap->raw));
	ring_live_values(r, snap->acc, n);
	sampler_raws(s, snap->raw, n);
}

void
snapshot_free(struct snapshot *snap)
{
	free(snap->acc);
	free(snap->raw);
	irqtable_free(&snap->irqs);
	napitable_free(&snap->napis);
	memset(snap, 0, sizeof(*snap));
}

size_t
snapshot_bytes(const struct snapshot *snap)
{
	size_t b = snap->n * 2 * sizeof(uint64_t) + snap->irqs.n * sizeof(struct irq_info) +
	           snap->napis.n * sizeof(struct napi_entry) +
	           snap->napis.nq * sizeof(struct napi_queue);

	for (size_t i = 0; i < snap->irqs.n; i++)
		b += snap->irqs.v[i].ncpus * sizeof(series_id) + strlen(snap->irqs.v[i].name) + 32;
	return b;
}

uint64_t
snapshot_acc(const struct snapshot *snap, series_id id)
{
	return id < snap->n ? snap->acc[id] : 0;
}

uint64_t
snapshot_delta(const struct snapshot *a, const struct snapshot *b, series_id id)
{
	return snapshot_acc(b, id) - snapshot_acc(a, id);
}

double
snapshot_seconds(const struct snapshot *a, const struct snapshot *b, unsigned src)
{
	uint64_t ta = src < RING_MAX_SOURCES ? a->src_t[src] : 0;
	uint64_t tb = src < RING_MAX_SOURCES ? b->src_t[src] : 0;

	if (ta == 0 || tb <= ta) {
		ta = a->mono_ns;
		tb = b->mono_ns;
	}
	return tb > ta ? (double)(tb - ta) / 1e9 : 0;
}
