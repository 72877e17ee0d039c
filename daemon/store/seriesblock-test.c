/* seriesblock-test.c: a test's live figures (testseries.h) added to its window's series block
 * as the source "test" (seriesblock.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "ring.h"
#include "series.h"
#include "seriesblock.h"
#include "testseries.h"
#include "xmalloc.h"

#define SOURCE_NAME "test"

/* The index of the last record of ts at or before t, 0 when none is (the first then). */
static size_t
record_at(const struct testseries *ts, size_t count, uint64_t t)
{
	size_t lo = 0, hi = count;

	/* ts->t[lo] <= t < ts->t[hi], or lo = 0 */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (ts->t[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Series s of ts at t, between record i and the next (t in [t[i], t[i + 1]]): on the line
 * between their values, a counter that moved steadily. */
static uint64_t
between(const struct testseries *ts, size_t i, size_t s, uint64_t t)
{
	uint64_t a = ts->v[i * ts->nseries + s], b = ts->v[(i + 1) * ts->nseries + s];
	uint64_t ta = ts->t[i], tb = ts->t[i + 1];

	if (b <= a || tb <= ta || t <= ta)
		return a;
	if (t >= tb)
		return b;
	return a + (uint64_t)llround((double)(b - a) * ((double)(t - ta) / (double)(tb - ta)));
}

/* An empty block of the span [t0, t1]. */
static struct seriesblock *
block_new(uint64_t t0, uint64_t t1, int64_t mono_to_real)
{
	struct seriesblock *b = xcalloc(1, sizeof(*b));

	series_registry_init(&b->reg);
	b->t0 = t0;
	b->t1 = t1;
	b->mono_to_real = mono_to_real;
	return b;
}

struct seriesblock *
seriesblock_test_add(struct seriesblock *b, const struct testseries *ts, uint64_t t0, uint64_t t1,
                     int64_t mono_to_real)
{
	size_t count = ts != NULL ? testseries_count(ts) : 0, first, last, n, lead;
	bool tail;
	struct seriesblock_source *so;
	struct series_labels l = SERIES_LABELS_NONE;
	const char *unit;
	unsigned src;

	if (count == 0 || ts->t[0] > t1)
		return b;
	if (b != NULL && b->nsrc >= RING_MAX_SOURCES) {
		log_warnx("series: no room for the test's figures in the block");
		return b;
	}
	if (b == NULL)
		b = block_new(t0, t1, mono_to_real);
	/* The records in the span; at its edges, where records lie either side, one at the
	 * edge itself, its values between theirs (the figures are rates steady over their
	 * reports: the grid's own rule), so that the block's span is the window's to the ns.
	 * Otherwise, as the ring's copy has it, the one at or before t0 and the last in it. */
	first = record_at(ts, count, t0);
	last = record_at(ts, count, t1);
	lead = ts->t[first] < t0 && first + 1 < count ? 1 : 0;
	tail = ts->t[last] < t1 && last + 1 < count;
	n = last - first + 1 + (tail ? 1 : 0);
	src = (unsigned)b->nsrc;
	b->src = xreallocarray(b->src, b->nsrc + 1, sizeof(*b->src));
	so = &b->src[b->nsrc++];
	memset(so, 0, sizeof(*so));
	so->name = xstrdup(SOURCE_NAME);
	so->interval_ms = ts->interval_ms * ts->k;
	so->step_k = ts->k;
	so->first_t = ts->t[0];
	so->n = n;
	so->t = xreallocarray(NULL, n, sizeof(*so->t));
	memcpy(so->t, ts->t + first, (last - first + 1) * sizeof(*so->t));
	if (lead)
		so->t[0] = t0;
	if (tail)
		so->t[n - 1] = t1;
	series_registry_name_source(&b->reg, (uint8_t)src, SOURCE_NAME);
	l.field = series_atom_intern(&b->reg, ts->name, strlen(ts->name));
	unit = series_atom_str(&b->reg, series_atom_intern(&b->reg, ts->unit, strlen(ts->unit)));
	for (size_t s = 0; s < ts->nseries; s++) {
		char name[64];
		size_t before = b->reg.n;
		series_id id;

		if (s == 0)
			snprintf(name, sizeof(name), SOURCE_NAME ".%s", ts->name);
		else
			snprintf(name, sizeof(name), SOURCE_NAME ".%s.proc%zu", ts->name, s - 1);
		id = series_intern(&b->reg, name, strlen(name), SERIES_COUNTER, (uint8_t)src, unit,
		                   TESTSERIES_SCALE, &l);
		if (b->reg.n == before)
			continue; /* the name was there: not ours to change */
		b->v = xreallocarray(b->v, b->reg.n, sizeof(*b->v));
		b->v[id] = xreallocarray(NULL, n, sizeof(uint64_t));
		for (size_t i = 0; i <= last - first; i++)
			b->v[id][i] = ts->v[(first + i) * ts->nseries + s];
		if (lead)
			b->v[id][0] = between(ts, first, s, t0);
		if (tail)
			b->v[id][n - 1] = between(ts, last, s, t1);
	}
	return b;
}
