/* fine.c: increments since a record, peak rates over real gaps, lateness (fine.h). */
#include <stdlib.h>
#include <string.h>

#include "fine.h"
#include "xmalloc.h"

enum { FINE_TOUCHED = 1, FINE_MOVED = 2 };

void
fine_init(struct fine *f)
{
	memset(f, 0, sizeof(*f));
}

void
fine_free(struct fine *f)
{
	free(f->cell);
	for (unsigned i = 0; i < FINE_MAX_SOURCES; i++) {
		free(f->src[i].touched.v);
		free(f->src[i].moved.v);
	}
	memset(f, 0, sizeof(*f));
}

/* Grow the per-series arrays to hold id. */
static void
fine_reserve(struct fine *f, series_id id)
{
	size_t cap = f->cap ? f->cap : 4096;

	while (cap <= id)
		cap *= 2;
	f->cell = xreallocarray(f->cell, cap, sizeof(*f->cell));
	memset(f->cell + f->cap, 0, (cap - f->cap) * sizeof(*f->cell));
	f->cap = cap;
}

/* Append id to l (grows only when the set of series does). */
static void
ids_push(struct fine_ids *l, series_id id)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = id;
}

uint64_t
fine_rate(uint64_t d, uint64_t gap_ns)
{
	unsigned __int128 r;

	if (gap_ns == 0)
		return 0;
	/* In 64 bits while d * 1e9 and half the gap fit (d up to 18 G: any rate under 1.8 T/s
	 * at 10 ms), one division; past that in 128, which a long double's 64-bit mantissa
	 * would round. */
	if (d <= (UINT64_MAX - gap_ns / 2) / 1000000000u)
		return (d * 1000000000u + gap_ns / 2) / gap_ns;
	r = ((unsigned __int128)d * 1000000000u + gap_ns / 2) / gap_ns;
	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

/* Mark id as put since the last take of src. */
static void
touch(struct fine_cell *c, struct fine_src *s, series_id id)
{
	if (c->flags & FINE_TOUCHED)
		return;
	c->flags |= FINE_TOUCHED;
	c->pending = 0;
	c->peak = 0;
	ids_push(&s->touched, id);
}

void
fine_add(struct fine *f, unsigned src, series_id id, uint64_t d, bool rate)
{
	struct fine_src *s = &f->src[src];
	struct fine_cell *c;

	if (id >= f->cap)
		fine_reserve(f, id);
	c = &f->cell[id];
	touch(c, s, id);
	c->pending += d;
	if (!rate || d == 0)
		return;
	if (!(c->flags & FINE_MOVED)) {
		c->flags |= FINE_MOVED;
		c->rd = 0;
		ids_push(&s->moved, id);
	}
	c->rd += d;
}

void
fine_end(struct fine *f, unsigned src, uint64_t t, uint64_t min_gap_ns)
{
	struct fine_src *s = &f->src[src];
	uint64_t gap;

	s->last_t = t;
	if (s->rate_t0 != 0 && (t < s->rate_t0 || t - s->rate_t0 < min_gap_ns))
		return; /* too short to say a rate: taken with the next */
	gap = s->rate_t0 != 0 ? t - s->rate_t0 : 0;
	for (size_t i = 0; i < s->moved.n; i++) {
		series_id id = s->moved.v[i];
		struct fine_cell *c = &f->cell[id];
		uint64_t r = fine_rate(c->rd, gap);

		c->flags &= (uint8_t)~FINE_MOVED;
		touch(c, s, id); /* moved before the last take, rated now */
		if (r > c->peak)
			c->peak = r;
	}
	s->moved.n = 0;
	s->rate_t0 = t;
}

size_t
fine_touched(const struct fine *f, unsigned src, const series_id **ids)
{
	*ids = f->src[src].touched.v;
	return f->src[src].touched.n;
}

void
fine_take_done(struct fine *f, unsigned src)
{
	struct fine_src *s = &f->src[src];

	for (size_t i = 0; i < s->touched.n; i++)
		f->cell[s->touched.v[i]].flags &= (uint8_t)~FINE_TOUCHED;
	s->touched.n = 0;
}

void
fine_late_add(struct fine_late *l, uint64_t gap_ns, uint64_t nominal_ns)
{
	uint64_t late = gap_ns > nominal_ns ? gap_ns - nominal_ns : 0;

	l->v[l->next] = late;
	l->next = (l->next + 1) % FINE_LATE_N;
	if (l->n < FINE_LATE_N)
		l->n++;
	if (late > l->max_ns)
		l->max_ns = late;
	l->late += gap_ns > 2 * nominal_ns;
	l->samples++;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t
fine_late_median(const struct fine_late *l)
{
	uint64_t v[FINE_LATE_N];

	if (l->n == 0)
		return 0;
	memcpy(v, l->v, l->n * sizeof(*v));
	qsort(v, l->n, sizeof(*v), cmp_u64);
	return v[l->n / 2];
}

const char *
fine_peak_unit(const char *unit)
{
	static const char *const units[][2] = {
	    {"packets", "packets/s"},       {"bytes", "bytes/s"},   {"drops", "drops/s"},
	    {"errors", "errors/s"},         {"events", "events/s"}, {"frames", "frames/s"},
	    {"interrupts", "interrupts/s"},
	};

	for (size_t i = 0; unit != NULL && i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(unit, units[i][0]) == 0)
			return units[i][1];
	return "per_s";
}
