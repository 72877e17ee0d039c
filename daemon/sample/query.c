/* query.c: deltas, rates and values over a span of the ring. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "globmatch.h"
#include "query.h"
#include "ring.h"
#include "sampler.h"
#include "series.h"
#include "seriesblock.h"
#include "source.h"
#include "timeutil.h"
#include "xmalloc.h"

#define ALIGN_RECORDS 8 /* samples looked at to find the beat of a source's timer */

struct query {
	struct sampler *s;
	struct ring_cursor *c0, *c1;
	struct ring_cursor *cm; /* query_gauge_max's walk, standing at cm_t (0: nowhere) */
	uint64_t cm_t;
	uint64_t t0, t1;
	bool live_end;    /* c1 is the live state */
	uint64_t records; /* the ring's records written when the cursors were placed */
	/* A query over a stored block instead of the ring: the record of each source at or
	 * before the span's edges (-1: none). */
	const struct seriesblock *blk;
	ssize_t i0[RING_MAX_SOURCES], i1[RING_MAX_SOURCES];
};

struct query *
query_new(struct sampler *s)
{
	struct query *q = xcalloc(1, sizeof(*q));

	q->s = s;
	return q;
}

/* One query a request gave back (query_put), its cursors' memory touched already: the next
 * request's own query (query_take) places them without faulting in megabytes of fresh
 * pages (a big host's cursor is 32 bytes a series). Loop thread only. */
static struct query *spare;

struct query *
query_take(struct sampler *s)
{
	struct query *q = spare;

	if (q == NULL || q->s != s)
		return query_new(s);
	spare = NULL;
	return q;
}

void
query_put(struct query *q)
{
	if (q == NULL)
		return;
	if (spare != NULL || q->blk != NULL) {
		query_free(q);
		return;
	}
	spare = q;
}

struct query *
query_new_block(struct sampler *s, const struct seriesblock *b)
{
	struct query *q = query_new(s);

	q->blk = b;
	return q;
}

const struct series_registry *
query_registry(const struct query *q)
{
	return q->blk != NULL ? &q->blk->reg : sampler_registry(q->s);
}

uint64_t
query_interval_ms(const struct query *q, unsigned src)
{
	const struct source *so;

	if (q->blk != NULL)
		return src < q->blk->nsrc ? q->blk->src[src].interval_ms : 0;
	so = sampler_source_at(q->s, src);
	return so != NULL ? so->interval_ms : 0;
}

int
query_bounds(const struct query *q, uint64_t *oldest, uint64_t *newest)
{
	struct ring_stats st;

	if (q->blk != NULL) {
		*oldest = q->blk->t0;
		*newest = q->blk->t1;
		return 0;
	}
	ring_get_stats(sampler_ring(q->s), &st);
	*oldest = st.oldest_ns;
	*newest = st.newest_ns;
	return st.newest_ns == 0 ? -1 : 0;
}

/* query_span over the block. */
static int
span_block(struct query *q, uint64_t t0, uint64_t t1)
{
	const struct seriesblock *b = q->blk;

	if (t1 > b->t1)
		t1 = b->t1;
	if (t0 < b->t0)
		t0 = b->t0;
	if (t0 > t1)
		t0 = t1;
	for (unsigned s = 0; s < b->nsrc && s < RING_MAX_SOURCES; s++) {
		q->i0[s] = seriesblock_at(b, s, t0);
		q->i1[s] = seriesblock_at(b, s, t1);
	}
	q->t0 = t0;
	q->t1 = t1;
	return 0;
}

void
query_free(struct query *q)
{
	if (q == NULL)
		return;
	/* The sampler's own query goes at shut-down: the spare (of that sampler) with it. */
	if (spare != NULL && spare != q && spare->s == q->s && q->blk == NULL) {
		struct query *sp = spare;
		spare = NULL;
		query_free(sp);
	}
	if (q->c0)
		ring_cursor_free(q->c0);
	if (q->c1)
		ring_cursor_free(q->c1);
	if (q->cm)
		ring_cursor_free(q->cm);
	free(q);
}

/* What query_span and query_span_part do before placing the cursors: the ring's stats into
 * *st, [*t0, *t1] clamped to what it holds, the cursors made. -1 with err when it holds
 * nothing yet. */
static int
span_prepare(struct query *q, uint64_t *t0, uint64_t *t1, struct ring_stats *st,
             struct nm_error *err)
{
	struct ring *r = sampler_ring(q->s);

	ring_get_stats(r, st);
	if (st->newest_ns == 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no samples yet");
	if (*t1 > st->newest_ns)
		*t1 = st->newest_ns;
	if (*t0 < st->oldest_ns)
		*t0 = st->oldest_ns;
	if (*t0 > *t1)
		*t0 = *t1;
	/* Cursors are sized when made; a registry that grew since needs new ones. */
	if (q->c0 == NULL) {
		q->c0 = ring_cursor_new(r);
		q->c1 = ring_cursor_new(r);
	}
	return 0;
}

int
query_span(struct query *q, uint64_t t0, uint64_t t1, struct nm_error *err)
{
	struct ring_stats st;

	if (q->blk != NULL)
		return span_block(q, t0, t1);
	if (span_prepare(q, &t0, &t1, &st, err) < 0)
		return -1;
	if (ring_cursor_seek(q->c0, t0) < 0 || ring_cursor_seek(q->c1, t1) < 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "the span is no longer in the ring");
	q->t0 = t0;
	q->t1 = t1;
	q->records = st.records;
	return 0;
}

int
query_span_part(struct query *q, uint64_t t0, uint64_t t1, uint64_t deadline, struct nm_error *err)
{
	struct ring_stats st;
	int rc;

	if (q->blk != NULL)
		return span_block(q, t0, t1) == 0 ? 1 : -1;
	if (span_prepare(q, &t0, &t1, &st, err) < 0)
		return -1;
	/* c0's parts survive records written between turns; c1 at the newest record is the
	 * live state at once (valid until the next record), placed last, in the turn that
	 * reads the span. */
	if ((rc = ring_cursor_seek_part(q->c0, t0, deadline)) <= 0 ||
	    (rc = ring_cursor_seek_part(q->c1, t1, deadline)) <= 0) {
		if (rc < 0)
			return nm_error_set(err, NM_ERR_NOT_FOUND,
			                    "the span is no longer in the ring");
		return 0;
	}
	q->t0 = t0;
	q->t1 = t1;
	q->records = st.records;
	return 1;
}

int
query_respan(struct query *q, struct nm_error *err)
{
	struct ring_stats st;

	if (q->blk != NULL || q->c0 == NULL)
		return 0;
	ring_get_stats(sampler_ring(q->s), &st);
	if (st.records == q->records)
		return 0;
	/* Records written since: the cursors are stale (ring.h); the same edges again. Once
	 * the span's start has left the ring, its answers would change: say so. */
	if (q->t0 < st.oldest_ns)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "the span is no longer in the ring");
	return query_span(q, q->t0, q->t1, err);
}

int
query_edges_last(const struct query *q, double seconds, uint64_t *t0, uint64_t *t1,
                 struct nm_error *err)
{
	struct ring_stats st;
	uint64_t span;

	ring_get_stats(sampler_ring(q->s), &st);
	if (st.newest_ns == 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no samples yet");
	span = seconds <= 0 ? 0 : (uint64_t)(seconds * 1e9);
	*t0 = span > st.newest_ns ? 0 : st.newest_ns - span;
	*t1 = st.newest_ns;
	return 0;
}

int
query_span_last(struct query *q, double seconds, struct nm_error *err)
{
	uint64_t t0, t1;

	if (query_edges_last(q, seconds, &t0, &t1, err) < 0)
		return -1;
	return query_span(q, t0, t1, err);
}

int
query_edges_last_src(const struct query *q, double seconds, unsigned src, uint64_t *t0,
                     uint64_t *t1, struct nm_error *err)
{
	struct ring *r = sampler_ring(q->s);
	const struct source *so = sampler_source_at(q->s, src);
	uint64_t end = ring_live_time(r, src), t, a = 0, b, span, iv, after;
	struct ring_stats st;

	ring_get_stats(r, &st);
	if (st.newest_ns == 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no samples yet");
	if (end == 0 || end < st.oldest_ns)
		return query_edges_last(q, seconds, t0, t1, err);
	iv = so != NULL && so->interval_ms > 0 ? so->interval_ms * 1000000ull : 1000000000ull;
	span = seconds <= 0 ? 0 : (uint64_t)(seconds * 1e9);
	t = span > end ? 0 : end - span;
	if (t < st.oldest_ns)
		t = st.oldest_ns;
	/* The record at or before t and the one after it (within 64 intervals): the nearer is
	 * the start. Their times from the records' headers: no cursor is moved. */
	if (ring_src_times(r, src, t, &a, 1) != 1 || a < st.oldest_ns)
		a = 0;
	after = a ? a : t;
	b = a == t
	        ? 0
	        : ring_src_time_after(r, src, after, end - after > 64 * iv ? after + 64 * iv : end);
	if (a == 0 || (b != 0 && b - t <= t - a))
		a = b;
	/* Neither (no record of src near t): from t, as query_span_last would. */
	*t0 = a != 0 ? a : t;
	*t1 = end;
	return 0;
}

int
query_span_last_src(struct query *q, double seconds, unsigned src, struct nm_error *err)
{
	uint64_t t0, t1;

	if (query_edges_last_src(q, seconds, src, &t0, &t1, err) < 0)
		return -1;
	return query_span(q, t0, t1, err);
}

uint64_t
query_t0(const struct query *q)
{
	return q->t0;
}

uint64_t
query_t1(const struct query *q)
{
	return q->t1;
}

/* The value of a block's series at the record i of its source (0 before its first). */
static uint64_t
block_value(const struct query *q, series_id id, const ssize_t *idx)
{
	const struct seriesblock *b = q->blk;
	unsigned src;

	if (id >= b->reg.n)
		return 0;
	src = b->reg.v[id].source;
	return idx[src] >= 0 ? b->v[id][idx[src]] : 0;
}

uint64_t
query_delta(const struct query *q, series_id id)
{
	if (q->blk != NULL)
		return block_value(q, id, q->i1) - block_value(q, id, q->i0);
	return ring_cursor_value(q->c1, id) - ring_cursor_value(q->c0, id);
}

double
query_seconds(const struct query *q, unsigned src)
{
	uint64_t a, b;

	if (q->blk != NULL) {
		const struct seriesblock_source *so;
		if (src >= q->blk->nsrc)
			return 0;
		so = &q->blk->src[src];
		a = q->i0[src] >= 0 ? so->t[q->i0[src]] : so->first_t;
		b = q->i1[src] >= 0 ? so->t[q->i1[src]] : 0;
		return (a == 0 || b <= a) ? 0 : (double)(b - a) / 1e9;
	}
	a = ring_cursor_time(q->c0, src);
	b = ring_cursor_time(q->c1, src);

	/* A span that starts before the source's first record starts at that record: the
	 * series were at their baseline there (what the start cursor holds for them). */
	if (a == 0)
		a = ring_first_time(sampler_ring(q->s), src);
	return (a == 0 || b <= a) ? 0 : (double)(b - a) / 1e9;
}

double
query_delta_scaled(const struct query *q, series_id id)
{
	const struct series_info *si = series_get(query_registry(q), id);
	uint64_t d = query_delta(q, id);
	double v = si->kind == SERIES_GAUGE ? (double)(int64_t)d : (double)d;

	return v * si->scale;
}

double
query_rate(const struct query *q, series_id id)
{
	const struct series_info *si = series_get(query_registry(q), id);
	double secs = query_seconds(q, si->source);

	return secs > 0 ? query_delta_scaled(q, id) / secs : 0;
}

double
query_value_end(const struct query *q, series_id id)
{
	const struct series_info *si = series_get(query_registry(q), id);

	/* A block keeps accumulated values: a counter's is its raw reading less the first. */
	if (q->blk != NULL)
		return (si->kind == SERIES_GAUGE ? (double)(int64_t)block_value(q, id, q->i1)
		                                 : (double)block_value(q, id, q->i1)) *
		       si->scale;
	if (si->kind == SERIES_GAUGE)
		return (double)(int64_t)ring_cursor_value(q->c1, id) * si->scale;
	return (double)sampler_raw(q->s, id) * si->scale;
}

/* The level of gauge id in a record of the block, as query_value_end gives it. */
static double
block_gauge(const struct seriesblock *b, series_id id, ssize_t i)
{
	return (double)(int64_t)b->v[id][i] * b->reg.v[id].scale;
}

/* query_gauge_max over a stored block: its records after the span's start, to its end. */
static void
gauge_max_block(const struct query *q, const series_id *ids, size_t n, double *out)
{
	const struct seriesblock *b = q->blk;

	for (size_t k = 0; k < n; k++) {
		series_id id = ids[k];
		unsigned src;
		ssize_t i0, i1;

		out[k] = query_value_end(q, id);
		if (id >= b->reg.n || (src = b->reg.v[id].source) >= RING_MAX_SOURCES)
			continue;
		i0 = q->i0[src] < 0 ? 0 : q->i0[src] + 1;
		i1 = q->i1[src];
		for (ssize_t i = i0; i <= i1; i++) {
			double v = block_gauge(b, id, i);
			if (i == i0 || v > out[k])
				out[k] = v;
		}
	}
}

/* The walk of query_gauge_max over the ring from where it stands (or from the span's start)
 * to the span's end; false when the ring changed under it (seek again). */
static bool
gauge_max_walk(struct query *q, const series_id *ids, size_t n, double *out, bool *seen)
{
	const struct series_registry *reg = sampler_registry(q->s);
	struct ring *r = sampler_ring(q->s);
	int src;

	if (q->cm == NULL)
		q->cm = ring_cursor_new(r);
	/* Records written since do not move a forward cursor (ring.h); evictions and series
	 * learnt do (stale). */
	if (q->cm_t != q->t0 || ring_cursor_stale(q->cm)) {
		q->cm_t = 0;
		if (ring_cursor_seek_dir(q->cm, q->t0, RING_SEEK_FORWARD) < 0)
			return false;
	}
	while ((src = ring_cursor_step(q->cm, q->t1)) >= 0)
		for (size_t k = 0; k < n; k++) {
			const struct series_info *si = series_get(reg, ids[k]);
			double v;
			if (si->source != (unsigned)src)
				continue;
			v = (double)(int64_t)ring_cursor_value(q->cm, ids[k]) * si->scale;
			if (!seen[k] || v > out[k])
				out[k] = v;
			seen[k] = true;
		}
	if (ring_cursor_stale(q->cm))
		return false;
	q->cm_t = q->t1;
	return true;
}

void
query_gauge_max(struct query *q, const series_id *ids, size_t n, double *out)
{
	bool *seen;

	if (n == 0)
		return;
	if (q->blk != NULL) {
		gauge_max_block(q, ids, n, out);
		return;
	}
	seen = xcalloc(n, sizeof(*seen));
	if (!gauge_max_walk(q, ids, n, out, seen)) {
		/* Changed under the walk: once more from the span's start, else the ends. */
		memset(seen, 0, n * sizeof(*seen));
		q->cm_t = 0;
		if (!gauge_max_walk(q, ids, n, out, seen))
			memset(seen, 0, n * sizeof(*seen));
	}
	for (size_t k = 0; k < n; k++)
		if (!seen[k])
			out[k] = query_value_end(q, ids[k]);
	free(seen);
}

/* The literal prefix of a glob (up to the first wildcard or escape). */
static size_t
glob_prefix(const char *glob)
{
	return strcspn(glob, "*?[\\");
}

void
query_matching_init(const struct query *q, struct query_matching *m, const char *glob,
                    bool live_only)
{
	bool all = glob == NULL || *glob == '\0' || strcmp(glob, "*") == 0;

	memset(m, 0, sizeof(*m));
	m->live_only = live_only;
	m->end = query_registry(q)->n;
	if (all)
		return;
	m->glob = xstrdup(glob);
	m->plen = glob_prefix(m->glob);
	m->literal = m->glob[m->plen] == '\0';
	globmatch_compile(&m->gm, m->glob);
}

bool
query_matching_step(const struct query *q, struct query_matching *m, uint64_t slice_ns)
{
	const struct series_registry *reg = query_registry(q);
	uint64_t start = slice_ns > 0 ? time_mono_ns() : 0;
	const char *glob = m->glob;
	size_t end = m->end < reg->n ? m->end : reg->n, first = m->next;

	while (m->next < end) {
		size_t id = m->next;
		const char *name = reg->v[id].name;
		/* The clock every 1,024 names, never before the first: each step moves on. */
		if (slice_ns > 0 && id != first && (id & 1023) == 0 &&
		    time_mono_ns() - start >= slice_ns)
			return false;
		m->next++;
		if (m->live_only && !reg->v[id].live)
			continue;
		if (glob != NULL) {
			/* A cheap prefix test first: most names fail it. */
			if (strncmp(name, glob, m->plen) != 0)
				continue;
			if (m->literal ? name[m->plen] != '\0' : !globmatch_exec(&m->gm, name))
				continue;
		}
		if (m->n == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 256;
			m->ids = xreallocarray(m->ids, m->cap, sizeof(*m->ids));
		}
		m->ids[m->n++] = (series_id)id;
	}
	return true;
}

void
query_matching_free(struct query_matching *m)
{
	free(m->glob);
	free(m->ids);
	memset(m, 0, sizeof(*m));
}

size_t
query_match(const struct query *q, const char *glob, bool live_only, series_id **ids, size_t *cap)
{
	struct query_matching m;
	size_t n;

	query_matching_init(q, &m, glob, live_only);
	/* Into the caller's array, grown as it needs. */
	m.ids = *ids;
	m.cap = *cap;
	query_matching_step(q, &m, 0);
	*ids = m.ids;
	*cap = m.cap;
	n = m.n;
	m.ids = NULL;
	query_matching_free(&m);
	return n;
}

/* The phase (mod iv) of the timer that samples source src, from its last ALIGN_RECORDS
 * samples at or before t: the phase most of them share within iv/8 (marks, now and window
 * edges take samples off the beat), the one nearest the others of those. False when the
 * source has no sample by t. */
static bool
beat_phase(const struct query *q, unsigned src, uint64_t iv, uint64_t t, uint64_t *phase)
{
	uint64_t ph[ALIGN_RECORDS], rt[ALIGN_RECORDS], best = UINT64_MAX;
	size_t n = 0, most = 0;

	if (q->blk != NULL) {
		ssize_t i = seriesblock_at(q->blk, src, t);
		for (; i >= 0 && n < ALIGN_RECORDS; i--)
			ph[n++] = q->blk->src[src].t[i] % iv;
		goto vote;
	}
	/* The times a cursor would stand on, from the records' headers: no series is read (a
	 * cursor sought back record by record undid every series of the records between). */
	n = ring_src_times(sampler_ring(q->s), src, t, rt, ALIGN_RECORDS);
	for (size_t i = 0; i < n; i++)
		ph[i] = rt[i] % iv;
vote:
	/* Of those with the most others near, the one nearest them (their medoid): a stored
	 * block's edge records are near the beat but not on it. */
	for (size_t i = 0; i < n; i++) {
		size_t close = 0;
		uint64_t sum = 0;
		for (size_t j = 0; j < n; j++) {
			uint64_t gap = ph[i] > ph[j] ? ph[i] - ph[j] : ph[j] - ph[i];
			gap = gap < iv - gap ? gap : iv - gap;
			if (gap <= iv / 8) {
				close++;
				sum += gap;
			}
		}
		if (close > most || (close == most && sum < best)) {
			most = close;
			best = sum;
			*phase = ph[i];
		}
	}
	return n > 0;
}

/* Move t0 forward and t1 back, by less than the interval of id's source, to instants half an
 * interval from that source's timer beat. A step edge on a sample takes it or the one before
 * as timer jitter has it: steps of one interval would hold two samples or none, by turns. */
void
query_align(const struct query *q, series_id id, uint64_t *t0, uint64_t *t1)
{
	const struct series_info *si = series_get(query_registry(q), id);
	uint64_t iv = query_interval_ms(q, si->source) * 1000000ull, phase = 0;

	if (iv == 0 || !beat_phase(q, si->source, iv, *t1, &phase))
		return;
	phase = (phase + iv - iv / 2) % iv;
	*t0 += (phase + iv - *t0 % iv) % iv;
	*t1 -= (*t1 % iv + iv - phase) % iv;
}
