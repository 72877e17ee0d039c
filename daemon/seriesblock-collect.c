/* seriesblock-collect.c: a window's series block copied out of the ring (seriesblock.h). */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "ring.h"
#include "sampler.h"
#include "series.h"
#include "seriesblock.h"
#include "source.h"
#include "timeutil.h"
#include "xmalloc.h"

/* The sources kept, and which of their series. */
static const char *const kept_sources[] = {"link", "queues",  "cpu",    "softirqs",
                                           "snmp", "softnet", "lnstat", "interrupts"};
#define LNSTAT_PER_CPU "lnstat.*.cpu[0-9]*"

/* Is series id of the live registry one to keep? */
static bool
kept(const struct series_registry *reg, series_id id)
{
	const char *src = series_source_name(reg, id);
	bool known = false;

	for (size_t i = 0; i < sizeof(kept_sources) / sizeof(kept_sources[0]); i++)
		known = known || strcmp(src, kept_sources[i]) == 0;
	if (!known)
		return false;
	if (strcmp(src, "lnstat") == 0)
		return fnmatch(LNSTAT_PER_CPU, reg->v[id].name, 0) != 0;
	if (strcmp(src, "interrupts") == 0)
		return series_labels_of(reg, id).irq < 0;
	return true;
}

/* Copy the labels of id in reg into the block's registry as labels of its own atoms. */
static struct series_labels
labels_copy(struct series_registry *to, const struct series_registry *from, series_id id)
{
	struct series_labels l = series_labels_of(from, id), o = l;
	const char *s;

#define ATOM(f) (s = series_atom_str(from, l.f), o.f = series_atom_intern(to, s, strlen(s)))
	ATOM(device);
	ATOM(type);
	ATOM(mode);
	ATOM(table);
	ATOM(field);
#undef ATOM
	return o;
}

/* The kept series of one block source: their ids in the live registry and the block's. */
struct group {
	series_id *live, *ids;
	size_t n, cap; /* records room */
};

/* Append a record of block source bs: its time and the values of its series. */
static void
record_add(struct seriesblock *b, unsigned bs, uint64_t t, const struct ring_cursor *c,
           struct group *g)
{
	struct seriesblock_source *so = &b->src[bs];

	if (so->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 64;
		so->t = xreallocarray(so->t, g->cap, sizeof(*so->t));
		for (size_t i = 0; i < g->n; i++)
			b->v[g->ids[i]] = xreallocarray(b->v[g->ids[i]], g->cap, sizeof(uint64_t));
	}
	so->t[so->n] = t;
	for (size_t i = 0; i < g->n; i++)
		b->v[g->ids[i]][so->n] = ring_cursor_value(c, g->live[i]);
	so->n++;
}

struct seriesblock *
seriesblock_collect(struct sampler *s, uint64_t t0, uint64_t t1)
{
	const struct series_registry *reg = sampler_registry(s);
	struct ring *r = sampler_ring(s);
	struct seriesblock *b;
	struct ring_cursor *c;
	int bsrc[RING_MAX_SOURCES]; /* ring source -> block source, -1: not kept */
	struct group g[RING_MAX_SOURCES] = {{0}};
	uint64_t start = time_mono_ns(), records = 0;
	size_t nids = 0;
	int src;

	if (t1 <= t0)
		return NULL;
	c = ring_cursor_new(r);
	if (ring_cursor_seek_dir(c, t0, RING_SEEK_FORWARD) < 0) {
		ring_cursor_free(c);
		return NULL;
	}
	b = xcalloc(1, sizeof(*b));
	series_registry_init(&b->reg);
	b->t0 = t0;
	b->t1 = t1;
	b->mono_to_real = sampler_mono_to_real(s);
	for (size_t i = 0; i < RING_MAX_SOURCES; i++)
		bsrc[i] = -1;
	for (series_id id = 0; id < reg->n && nids < SERIESBLOCK_MAX_SERIES; id++) {
		const struct series_info *si = series_get(reg, id);
		struct series_labels l;
		unsigned rs = si->source;

		if (rs >= RING_MAX_SOURCES || !kept(reg, id))
			continue;
		if (bsrc[rs] < 0) {
			struct source *so = sampler_source_at(s, rs);
			b->src = xreallocarray(b->src, b->nsrc + 1, sizeof(*b->src));
			memset(&b->src[b->nsrc], 0, sizeof(*b->src));
			b->src[b->nsrc].name = xstrdup(series_source_name(reg, id));
			b->src[b->nsrc].interval_ms = so != NULL ? (uint32_t)so->interval_ms : 0;
			b->src[b->nsrc].step_k = 1;
			b->src[b->nsrc].first_t = ring_first_time(r, rs);
			series_registry_name_source(&b->reg, (uint8_t)b->nsrc,
			                            b->src[b->nsrc].name);
			bsrc[rs] = (int)b->nsrc++;
		}
		l = labels_copy(&b->reg, reg, id);
		struct group *gr = &g[bsrc[rs]];
		if ((gr->n & (gr->n - 1)) == 0) {
			gr->live =
			    xreallocarray(gr->live, gr->n ? 2 * gr->n : 1, sizeof(series_id));
			gr->ids = xreallocarray(gr->ids, gr->n ? 2 * gr->n : 1, sizeof(series_id));
		}
		gr->ids[gr->n] = series_intern(&b->reg, si->name, strlen(si->name), si->kind,
		                               (uint8_t)bsrc[rs], si->unit, si->scale, &l);
		gr->live[gr->n++] = id;
		nids++;
	}
	b->v = xcalloc(b->reg.n ? b->reg.n : 1, sizeof(*b->v));
	/* The state at t0: each source's record at or before it, when it has one. */
	for (unsigned rs = 0; rs < RING_MAX_SOURCES; rs++)
		if (bsrc[rs] >= 0 && ring_cursor_time(c, rs) != 0)
			record_add(b, (unsigned)bsrc[rs], ring_cursor_time(c, rs), c, &g[bsrc[rs]]);
	while ((src = ring_cursor_step(c, t1)) >= 0)
		if (src < RING_MAX_SOURCES && bsrc[src] >= 0) {
			record_add(b, (unsigned)bsrc[src], ring_cursor_time(c, (unsigned)src), c,
			           &g[bsrc[src]]);
			records++;
		}
	ring_cursor_free(c);
	for (size_t i = 0; i < RING_MAX_SOURCES; i++) {
		free(g[i].live);
		free(g[i].ids);
	}
	log_info("series: %zu series, %llu records of [%.1f s] copied from the ring in %.1f ms",
	         nids, (unsigned long long)records, (double)(t1 - t0) / 1e9,
	         (double)(time_mono_ns() - start) / 1e6);
	return b;
}
