/* bursts-src.c: the finest records of a window's span for the burst figures, and a live
 * walk of them for `watch bursts` (bursts-src.h). */
#include "bursts-src.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "bursts.h"
#include "ring.h"
#include "sampler.h"
#include "series.h"
#include "seriesblock.h"
#include "source.h"
#include "xmalloc.h"

/* The blocks the burst figures read, finest first (see bursts-src.h). */
size_t
bursts_src_blocks(const struct seriesblock *main, const struct seriesblock *fine,
                  const struct seriesblock *out[2])
{
	size_t n = 0;

	if (fine != NULL)
		out[n++] = fine;
	if (main != NULL)
		out[n++] = main;
	return n;
}

/* The series of one source of the walk. */
struct live_group {
	unsigned rs;     /* the ring's source */
	size_t n, cap;   /* the block's records of the source, room for them */
	series_id *live; /* the sampler's ids */
	series_id *ids;  /* the block's */
	size_t nids;
};

struct bursts_live {
	struct sampler *s;
	struct ring *r; /* the fine history when there is one (its fine sources), else the ring */
	bool fine_ring; /* r is the fine history */
	bool fine;      /* the block's intervals are the fine interval */
	char *dev;
	struct seriesblock *b;
	struct live_group *g; /* [b->nsrc] */
	int bsrc[RING_MAX_SOURCES];
	struct ring_cursor *c;
	bool started; /* the cursor was sought */
};

/* Copy the labels of id in reg as labels of the block's own atoms. */
static struct series_labels
labels_copy(struct series_registry *to, const struct series_registry *from, series_id id)
{
	struct series_labels l = series_labels_of(from, id), o = l;
	const series_atom *const in[] = {&l.device, &l.type, &l.mode, &l.table, &l.field};
	series_atom *const out[] = {&o.device, &o.type, &o.mode, &o.table, &o.field};

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		const char *str = series_atom_str(from, *in[i]);
		*out[i] = series_atom_intern(to, str, strlen(str));
	}
	return o;
}

/* Let go of the block and the cursor (a walk starting over). */
static void
live_clear(struct bursts_live *lv)
{
	if (lv->b != NULL) {
		for (size_t i = 0; i < lv->b->nsrc; i++) {
			free(lv->g[i].live);
			free(lv->g[i].ids);
		}
		seriesblock_free(lv->b);
	}
	free(lv->g);
	lv->g = NULL;
	lv->b = NULL;
	ring_cursor_free(lv->c);
	lv->c = NULL;
	lv->started = false;
}

/* Choose the series of the sampler's registry as it is now; a block for them. */
static void
live_select(struct bursts_live *lv)
{
	struct series_registry *reg = sampler_registry(lv->s);
	struct seriesblock *b = xcalloc(1, sizeof(*b));

	series_registry_init(&b->reg);
	b->mono_to_real = sampler_mono_to_real(lv->s);
	for (size_t i = 0; i < RING_MAX_SOURCES; i++)
		lv->bsrc[i] = -1;
	for (series_id id = 0; id < reg->n; id++) {
		const struct series_info *si = series_get(reg, id);
		struct series_labels l;
		const char *what;
		struct live_group *gr;
		unsigned rs = si->source;

		if (!si->live || rs >= RING_MAX_SOURCES || bursts_kind(reg, id, &what) == NULL)
			continue;
		if (lv->fine_ring &&
		    (si->peak || !sampler_fine_source(lv->s, (enum sampler_kind)rs)))
			continue;
		l = series_labels_of(reg, id);
		if (lv->dev != NULL && l.cpu < 0 &&
		    strcmp(series_atom_str(reg, l.device), lv->dev) != 0)
			continue;
		if (lv->bsrc[rs] < 0) {
			struct source *so = sampler_source_at(lv->s, rs);
			b->src = xreallocarray(b->src, b->nsrc + 1, sizeof(*b->src));
			memset(&b->src[b->nsrc], 0, sizeof(*b->src));
			b->src[b->nsrc].name = xstrdup(series_source_name(reg, id));
			b->src[b->nsrc].interval_ms = lv->fine     ? sampler_fine_interval_ms(lv->s)
			                              : so != NULL ? (uint32_t)so->interval_ms
			                                           : 0;
			b->src[b->nsrc].step_k = 1;
			series_registry_name_source(&b->reg, (uint8_t)b->nsrc,
			                            b->src[b->nsrc].name);
			lv->g = xreallocarray(lv->g, b->nsrc + 1, sizeof(*lv->g));
			memset(&lv->g[b->nsrc], 0, sizeof(*lv->g));
			lv->g[b->nsrc].rs = rs;
			lv->bsrc[rs] = (int)b->nsrc++;
		}
		gr = &lv->g[lv->bsrc[rs]];
		gr->live = xreallocarray(gr->live, gr->nids + 1, sizeof(series_id));
		gr->ids = xreallocarray(gr->ids, gr->nids + 1, sizeof(series_id));
		l = labels_copy(&b->reg, reg, id);
		gr->live[gr->nids] = id;
		gr->ids[gr->nids++] = series_intern(&b->reg, si->name, strlen(si->name), si->kind,
		                                    (uint8_t)lv->bsrc[rs], si->unit, si->scale, &l);
	}
	b->v = xcalloc(b->reg.n ? b->reg.n : 1, sizeof(*b->v));
	lv->b = b;
}

/* Append the cursor's record of ring source rs to the block. */
static void
live_append(struct bursts_live *lv, unsigned rs)
{
	struct seriesblock *b = lv->b;
	int bs = rs < RING_MAX_SOURCES ? lv->bsrc[rs] : -1;
	struct live_group *gr;
	struct seriesblock_source *so;

	if (bs < 0)
		return;
	gr = &lv->g[bs];
	so = &b->src[bs];
	if (gr->n == gr->cap) {
		gr->cap = gr->cap ? 2 * gr->cap : 256;
		so->t = xreallocarray(so->t, gr->cap, sizeof(uint64_t));
		for (size_t k = 0; k < gr->nids; k++)
			b->v[gr->ids[k]] =
			    xreallocarray(b->v[gr->ids[k]], gr->cap, sizeof(uint64_t));
	}
	so->t[gr->n] = ring_cursor_time(lv->c, rs);
	for (size_t k = 0; k < gr->nids; k++)
		b->v[gr->ids[k]][gr->n] = ring_cursor_value(lv->c, gr->live[k]);
	so->n = ++gr->n;
}

/* Drop each source's records before the one at or before t0. */
static void
live_trim(struct bursts_live *lv, uint64_t t0)
{
	struct seriesblock *b = lv->b;

	for (size_t bs = 0; bs < b->nsrc; bs++) {
		struct live_group *gr = &lv->g[bs];
		ssize_t at = seriesblock_at(b, (unsigned)bs, t0);
		size_t drop = at > 0 ? (size_t)at : 0;

		if (drop == 0)
			continue;
		memmove(b->src[bs].t, b->src[bs].t + drop, (gr->n - drop) * sizeof(uint64_t));
		for (size_t k = 0; k < gr->nids; k++)
			memmove(b->v[gr->ids[k]], b->v[gr->ids[k]] + drop,
			        (gr->n - drop) * sizeof(uint64_t));
		gr->n -= drop;
		b->src[bs].n = gr->n;
	}
}

struct bursts_live *
bursts_src_live_new(struct sampler *s, const char *dev)
{
	struct bursts_live *lv = xcalloc(1, sizeof(*lv));

	lv->s = s;
	lv->dev = dev != NULL && dev[0] != '\0' ? xstrdup(dev) : NULL;
	return lv;
}

const struct seriesblock *
bursts_src_live_step(struct bursts_live *lv, uint64_t span_ns)
{
	struct ring *r;
	struct ring_stats st;
	uint64_t t1, t0;
	int src;
	bool fine;

	/* The fine history when there is one (its fine sources: it holds their every sample),
	 * else the ring. The intervals are the fine one while fine sampling was on in the span
	 * (its samples after it stopped come at the sources' own intervals: late, so mean
	 * only), else the sources' own. */
	if (lv->r == NULL) {
		lv->r = sampler_fine_ring(lv->s);
		lv->fine_ring = lv->r != NULL;
		if (lv->r == NULL)
			lv->r = sampler_ring(lv->s);
	}
	ring_get_stats(lv->r, &st);
	fine = lv->fine_ring && st.newest_ns != 0 &&
	       sampler_fine_since(lv->s, st.newest_ns > span_ns ? st.newest_ns - span_ns : 0);
	if (fine != lv->fine) {
		live_clear(lv); /* the block's intervals change */
		lv->fine = fine;
	}
	r = lv->r;
	if (st.newest_ns == 0)
		return NULL;
	t1 = st.newest_ns;
	t0 = t1 > span_ns ? t1 - span_ns : 0;
	if (lv->started && ring_cursor_stale(lv->c))
		live_clear(lv); /* evicted or learnt series: start over */
	if (!lv->started) {
		live_clear(lv);
		live_select(lv);
		lv->c = ring_cursor_new(r);
		if (t0 < st.oldest_ns)
			t0 = st.oldest_ns;
		if (ring_cursor_seek_dir(lv->c, t0, RING_SEEK_FORWARD) < 0) {
			live_clear(lv);
			return NULL;
		}
		lv->started = true;
		for (size_t bs = 0; bs < lv->b->nsrc; bs++)
			if (ring_cursor_time(lv->c, lv->g[bs].rs) != 0)
				live_append(lv, lv->g[bs].rs);
	}
	while ((src = ring_cursor_step(lv->c, t1)) >= 0)
		live_append(lv, (unsigned)src);
	live_trim(lv, t0);
	lv->b->t0 = t0;
	lv->b->t1 = t1;
	return lv->b->nsrc > 0 ? lv->b : NULL;
}

void
bursts_src_live_free(struct bursts_live *lv)
{
	if (lv == NULL)
		return;
	live_clear(lv);
	free(lv->dev);
	free(lv);
}
