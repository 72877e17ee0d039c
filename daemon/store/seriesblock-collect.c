/* seriesblock-collect.c: a window's series block copied out of the ring (seriesblock.h). */
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

/* Is series id of the live registry one to keep? What its source says (source_ops.keep). */
static bool
kept(struct sampler *s, const struct series_registry *reg, series_id id)
{
	struct source *so = sampler_source_at(s, series_get(reg, id)->source);

	return so != NULL && source_keeps(so->ops, reg, id);
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

/* Most records a source's room is made for at the start (it grows as records come). */
#define ROOM_START_MAX 4096

/* The kept series of one block source: their ids in the live registry and the block's. */
struct group {
	series_id *live, *ids;
	size_t n;
	/* Records room: every array holds cap; from 3/4 of it on, a few arrays a record are
	 * grown to next (grown of them so far), so that no one record copies them all. */
	size_t cap, next, grown;
};

/* Make room for record so->n of group g (block source so). */
static void
room(struct seriesblock *b, struct seriesblock_source *so, struct group *g)
{
	size_t quarter, k;

	if (g->cap == 0) {
		g->cap = 64;
		so->t = xreallocarray(so->t, g->cap, sizeof(*so->t));
		for (size_t i = 0; i < g->n; i++)
			b->v[g->ids[i]] = xreallocarray(b->v[g->ids[i]], g->cap, sizeof(uint64_t));
	}
	if (so->n < g->cap - g->cap / 4)
		return;
	if (g->next == g->cap) {
		g->next = g->cap * 2;
		g->grown = 0;
		so->t = xreallocarray(so->t, g->next, sizeof(*so->t));
	}
	/* The last quarter's records grow every array by the time it is used up. */
	quarter = g->cap / 4 ? g->cap / 4 : 1;
	k = (g->n + quarter - 1) / quarter;
	for (; k > 0 && g->grown < g->n; k--, g->grown++)
		b->v[g->ids[g->grown]] =
		    xreallocarray(b->v[g->ids[g->grown]], g->next, sizeof(uint64_t));
	if (so->n + 1 == g->cap) {
		/* The last record before the room is full: whatever is left (none, normally). */
		for (; g->grown < g->n; g->grown++)
			b->v[g->ids[g->grown]] =
			    xreallocarray(b->v[g->ids[g->grown]], g->next, sizeof(uint64_t));
		g->cap = g->next;
	}
}

/* Append a record of block source bs: its time and the values of its series. */
static void
record_add(struct seriesblock *b, unsigned bs, uint64_t t, const struct ring_cursor *c,
           struct group *g)
{
	struct seriesblock_source *so = &b->src[bs];

	room(b, so, g);
	so->t[so->n] = t;
	for (size_t i = 0; i < g->n; i++)
		b->v[g->ids[i]][so->n] = ring_cursor_value(c, g->live[i]);
	so->n++;
}

/* A copy being made (seriesblock.h): the series chosen a slice at a time, then the records
 * walked from the state at t0 on. */
struct seriesblock_collect {
	struct sampler *s;
	struct ring *r;
	struct ring_cursor *c;
	struct seriesblock *b;
	int bsrc[RING_MAX_SOURCES]; /* ring source -> block source, -1: not kept */
	struct group g[RING_MAX_SOURCES];
	uint64_t t0, t1;
	bool fine; /* out of the fine history: only the fine sources' counters */
	/* choose the series; make room for their records; place the cursor at the keyframe
	 * before t0 (a slice of its own: it loads every series); walk from the keyframe before t0
	 * to t0; the state at t0; copy */
	enum {
		COLLECT_SELECT,
		COLLECT_ROOM,
		COLLECT_SEEK,
		COLLECT_SKIP,
		COLLECT_START,
		COLLECT_COPY,
		COLLECT_DONE
	} phase;
	series_id next; /* selecting: the next id of the live registry */
	size_t nids;
	uint64_t records;
	uint64_t last_t; /* the cursor's place: the time of the last record walked */
	struct seriesblock_collect_cost cost;
};

/* The time of the block source's last record (0: none yet). */
static uint64_t
last_time(const struct seriesblock *b, unsigned bs)
{
	return b->src[bs].n > 0 ? b->src[bs].t[b->src[bs].n - 1] : 0;
}

/* Choose series of the live registry from cs->next on, until the slice is spent; then go
 * on to the copy. */
static void
collect_select(struct seriesblock_collect *cs, uint64_t start, uint64_t slice_ns)
{
	const struct series_registry *reg = sampler_registry(cs->s);
	struct seriesblock *b = cs->b;
	size_t done = 0;

	for (; cs->next < reg->n && cs->nids < SERIESBLOCK_MAX_SERIES; cs->next++) {
		const struct series_info *si = series_get(reg, cs->next);
		series_id id = cs->next;
		struct series_labels l;
		unsigned rs = si->source;

		if ((++done & 255) == 0 && time_mono_ns() - start >= slice_ns)
			return;
		if (rs >= RING_MAX_SOURCES || !kept(cs->s, reg, id))
			continue;
		/* From the fine history: the fine sources' counters (not their peaks, which
		 * the fine records are the detail of). */
		if (cs->fine && (si->peak || !sampler_fine_source(cs->s, (enum sampler_kind)rs)))
			continue;
		if (cs->bsrc[rs] < 0) {
			struct source *so = sampler_source_at(cs->s, rs);
			b->src = xreallocarray(b->src, b->nsrc + 1, sizeof(*b->src));
			memset(&b->src[b->nsrc], 0, sizeof(*b->src));
			b->src[b->nsrc].name = xstrdup(series_source_name(reg, id));
			b->src[b->nsrc].interval_ms = cs->fine     ? sampler_fine_interval_ms(cs->s)
			                              : so != NULL ? (uint32_t)so->interval_ms
			                                           : 0;
			b->src[b->nsrc].step_k = 1;
			b->src[b->nsrc].first_t = ring_first_time(cs->r, rs);
			series_registry_name_source(&b->reg, (uint8_t)b->nsrc,
			                            b->src[b->nsrc].name);
			cs->bsrc[rs] = (int)b->nsrc++;
		}
		l = labels_copy(&b->reg, reg, id);
		struct group *gr = &cs->g[cs->bsrc[rs]];
		if ((gr->n & (gr->n - 1)) == 0) {
			gr->live =
			    xreallocarray(gr->live, gr->n ? 2 * gr->n : 1, sizeof(series_id));
			gr->ids = xreallocarray(gr->ids, gr->n ? 2 * gr->n : 1, sizeof(series_id));
		}
		gr->ids[gr->n] = series_intern(&b->reg, si->name, strlen(si->name), si->kind,
		                               (uint8_t)cs->bsrc[rs], si->unit, si->scale, &l);
		b->reg.v[gr->ids[gr->n]].peak = si->peak;
		gr->live[gr->n++] = id;
		cs->nids++;
	}
	b->v = xcalloc(b->reg.n ? b->reg.n : 1, sizeof(*b->v));
	for (size_t i = 0; i < b->nsrc; i++) {
		struct group *gr = &cs->g[i];
		uint64_t iv = (uint64_t)b->src[i].interval_ms * 1000000u;
		uint64_t want = iv ? (cs->t1 - cs->t0) / iv : 0;

		want += want / 16 + 16;
		gr->cap = gr->next = want < ROOM_START_MAX ? (size_t)want : ROOM_START_MAX;
		b->src[i].t = xreallocarray(NULL, gr->cap, sizeof(*b->src[i].t));
	}
	cs->next = 0;
	cs->phase = COLLECT_ROOM;
}

/* Room for the records the span should hold, made before they come, a slice at a time
 * (growing every series' array by doubling as records come would copy them all in one
 * record: 60 ms for an hour of 8,000 series; making and touching them all at once:
 * 19 ms and more). cs->next counts the arrays made, group after group. */
static void
collect_room(struct seriesblock_collect *cs, uint64_t start, uint64_t slice_ns)
{
	struct seriesblock *b = cs->b;
	size_t skip = cs->next, done = 0;

	for (size_t i = 0; i < b->nsrc; i++) {
		struct group *gr = &cs->g[i];

		if (skip >= gr->n) {
			skip -= gr->n;
			continue;
		}
		for (size_t k = skip; k < gr->n; k++) {
			b->v[gr->ids[k]] = xreallocarray(NULL, gr->cap, sizeof(uint64_t));
			/* Touched now: left to the copy, every array's next page would fault in
			 * the same record (5 ms of 8,000 faults every 512 records). */
			memset(b->v[gr->ids[k]], 0, gr->cap * sizeof(uint64_t));
			cs->next++;
			if ((++done & 15) == 0 && time_mono_ns() - start >= slice_ns)
				return;
		}
		skip = 0;
	}
	cs->phase = COLLECT_SEEK;
}

/* Walk from the keyframe the cursor stands on to t0 until the slice is spent (a forward
 * seek to t0 would replay up to a keyframe interval of records in one go); then on to the
 * state at t0. */
static void
collect_skip(struct seriesblock_collect *cs, uint64_t start, uint64_t slice_ns)
{
	size_t n = 0;

	for (;;) {
		if (ring_cursor_step(cs->c, cs->t0) >= 0) {
			if ((++n & 15) == 0 && time_mono_ns() - start >= slice_ns)
				return;
			continue;
		}
		if (!ring_cursor_stale(cs->c))
			break; /* at t0 */
		/* The ring changed since the last slice: seek to t0 at once. */
		cs->cost.reseeks++;
		if (ring_cursor_seek_dir(cs->c, cs->t0, RING_SEEK_FORWARD) < 0) {
			cs->cost.cut = true;
			cs->b->t1 = cs->t0;
			cs->phase = COLLECT_DONE;
			return;
		}
		break;
	}
	cs->phase = COLLECT_START;
}

/* Add, for each kept source, its record where the cursor stands when newer than the block's
 * last: at t0 the state at the start; after a re-seek the records at the walk's place it had
 * not reached (of another source, at the same instant). */
static void
add_state(struct seriesblock_collect *cs)
{
	for (unsigned rs = 0; rs < RING_MAX_SOURCES; rs++) {
		int bs = cs->bsrc[rs];
		uint64_t ct = ring_cursor_time(cs->c, rs);

		if (bs >= 0 && ct != 0 && ct > last_time(cs->b, (unsigned)bs))
			record_add(cs->b, (unsigned)bs, ct, cs->c, &cs->g[bs]);
	}
}

/* Place the cursor at t (forward) and add what add_state adds. -1 when the ring no longer
 * holds t. */
static int
collect_seek(struct seriesblock_collect *cs, uint64_t t)
{
	if (ring_cursor_seek_dir(cs->c, t, RING_SEEK_FORWARD) < 0)
		return -1;
	add_state(cs);
	cs->last_t = t;
	return 0;
}

/* Walk records up to t1 until the slice or max records are spent; done at the end. */
static void
collect_copy(struct seriesblock_collect *cs, uint64_t start, uint64_t slice_ns, size_t max)
{
	size_t n = 0, steps = 0;
	int src;

	while (n < max) {
		if ((src = ring_cursor_step(cs->c, cs->t1)) < 0) {
			if (!ring_cursor_stale(cs->c)) {
				cs->phase = COLLECT_DONE; /* past t1, or nothing newer */
				return;
			}
			/* The ring evicted a segment or learnt series since the last slice: seek
			 * again where the walk was. When that is gone too, the block ends there. */
			cs->cost.reseeks++;
			if (collect_seek(cs, cs->last_t) < 0) {
				cs->cost.cut = true;
				cs->b->t1 = cs->last_t;
				cs->phase = COLLECT_DONE;
				return;
			}
			continue;
		}
		cs->last_t = ring_cursor_time(cs->c, (unsigned)src);
		if (src < RING_MAX_SOURCES && cs->bsrc[src] >= 0) {
			record_add(cs->b, (unsigned)cs->bsrc[src], cs->last_t, cs->c,
			           &cs->g[cs->bsrc[src]]);
			cs->records++;
			n++;
		}
		/* Every record walked counts, kept or not (a source not kept, as the IRQ
		 * lines, may have the largest records). */
		if ((++steps & 3) == 0 && time_mono_ns() - start >= slice_ns)
			return;
	}
}

/* A copy of [t0, t1] out of ring r (the main one, or with fine the fine history). */
static struct seriesblock_collect *
collect_new(struct sampler *s, struct ring *r, bool fine, uint64_t t0, uint64_t t1)
{
	struct seriesblock_collect *cs;
	struct ring_cursor *c;

	if (t1 <= t0 || r == NULL)
		return NULL;
	if (ring_segment_first(r, t0) == 0)
		return NULL;
	c = ring_cursor_new(r);
	cs = xcalloc(1, sizeof(*cs));
	cs->s = s;
	cs->r = r;
	cs->fine = fine;
	cs->c = c;
	cs->t0 = t0;
	cs->t1 = t1;
	cs->last_t = t0;
	cs->b = xcalloc(1, sizeof(*cs->b));
	series_registry_init(&cs->b->reg);
	cs->b->t0 = t0;
	cs->b->t1 = t1;
	cs->b->mono_to_real = sampler_mono_to_real(s);
	for (size_t i = 0; i < RING_MAX_SOURCES; i++)
		cs->bsrc[i] = -1;
	return cs;
}

struct seriesblock_collect *
seriesblock_collect_new(struct sampler *s, uint64_t t0, uint64_t t1)
{
	return collect_new(s, sampler_ring(s), false, t0, t1);
}

struct seriesblock_collect *
seriesblock_collect_new_fine(struct sampler *s, uint64_t t0, uint64_t t1)
{
	return collect_new(s, sampler_fine_ring(s), true, t0, t1);
}

int
seriesblock_collect_step(struct seriesblock_collect *cs, uint64_t slice_ns, size_t max_records)
{
	uint64_t start = time_mono_ns(), spent;
	bool copying = cs->phase == COLLECT_COPY;

	/* Each step moves on: some series chosen, the start placed, or some records copied. */
	if (cs->phase == COLLECT_SELECT)
		collect_select(cs, start, slice_ns);
	if (cs->phase == COLLECT_ROOM)
		collect_room(cs, start, slice_ns);
	if (cs->phase == COLLECT_SEEK) {
		/* At the keyframe before t0 (collect_skip walks on from there); the slice ends. */
		uint64_t kf = ring_segment_first(cs->r, cs->t0);

		if (kf == 0 || ring_cursor_seek_dir(cs->c, kf, RING_SEEK_FORWARD) < 0) {
			/* Evicted since the close: nothing of the span. */
			cs->cost.cut = true;
			cs->b->t1 = cs->t0;
			cs->phase = COLLECT_DONE;
		} else
			cs->phase = COLLECT_SKIP;
		goto out;
	}
	if (cs->phase == COLLECT_SKIP)
		collect_skip(cs, start, slice_ns);
	if (cs->phase == COLLECT_START) {
		/* The state at t0: each source's record at or before it, when it has one. */
		add_state(cs);
		cs->last_t = cs->t0;
		cs->phase = COLLECT_COPY;
	}
	if (cs->phase == COLLECT_COPY && (copying || time_mono_ns() - start < slice_ns))
		collect_copy(cs, start, slice_ns, max_records);
out:
	spent = time_mono_ns() - start;
	cs->cost.slices++;
	cs->cost.total_ns += spent;
	if (spent > cs->cost.longest_ns)
		cs->cost.longest_ns = spent;
	return cs->phase == COLLECT_DONE;
}

const struct seriesblock_collect_cost *
seriesblock_collect_cost(const struct seriesblock_collect *cs)
{
	return &cs->cost;
}

void
seriesblock_collect_free(struct seriesblock_collect *cs)
{
	if (cs == NULL)
		return;
	ring_cursor_free(cs->c);
	for (size_t i = 0; i < RING_MAX_SOURCES; i++) {
		free(cs->g[i].live);
		free(cs->g[i].ids);
	}
	if (cs->b != NULL && cs->b->v == NULL) /* freed while choosing the series */
		cs->b->v = xcalloc(cs->b->reg.n ? cs->b->reg.n : 1, sizeof(*cs->b->v));
	seriesblock_free(cs->b);
	free(cs);
}

struct seriesblock *
seriesblock_collect_finish(struct seriesblock_collect *cs)
{
	struct seriesblock *b;

	while (seriesblock_collect_step(cs, UINT64_MAX, SIZE_MAX) == 0)
		;
	b = cs->b;
	cs->b = NULL;
	if (b->v == NULL)
		b->v = xcalloc(b->reg.n ? b->reg.n : 1, sizeof(*b->v));
	log_info("series: %zu series, %llu records of [%.1f s] copied from the ring in %.1f ms "
	         "(%u slices, the longest %.2f ms)",
	         cs->nids, (unsigned long long)cs->records, (double)(cs->t1 - cs->t0) / 1e9,
	         (double)cs->cost.total_ns / 1e6, cs->cost.slices,
	         (double)cs->cost.longest_ns / 1e6);
	if (cs->cost.cut)
		log_warnx("series: the ring evicted the span's records before they were copied: "
		          "the series kept end %.1f s into its %.1f s",
		          (double)(b->t1 - cs->t0) / 1e9, (double)(cs->t1 - cs->t0) / 1e9);
	return b;
}

struct seriesblock *
seriesblock_collect(struct sampler *s, uint64_t t0, uint64_t t1)
{
	struct seriesblock_collect *cs = seriesblock_collect_new(s, t0, t1);
	struct seriesblock *b;

	if (cs == NULL)
		return NULL;
	b = seriesblock_collect_finish(cs);
	seriesblock_collect_free(cs);
	return b;
}
