/* testseries.c: a test's live figures over time, on a grid, in a bounded buffer
 * (testseries.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seriesblock.h"
#include "testseries.h"
#include "xmalloc.h"

#define FIRST_CAP 64

void
testseries_init(struct testseries *ts, size_t nprocs, const char *name, const char *unit,
                uint32_t interval_ms, uint64_t start)
{
	memset(ts, 0, sizeof(*ts));
	snprintf(ts->name, sizeof(ts->name), "%s", name);
	snprintf(ts->unit, sizeof(ts->unit), "%s", unit);
	ts->interval_ms = interval_ms > 0 ? interval_ms : 1000;
	ts->start = start;
	ts->nprocs = nprocs;
	ts->procs = xcalloc(nprocs ? nprocs : 1, sizeof(*ts->procs));
	ts->nown = nprocs < TESTSERIES_PROCS_MAX ? nprocs : TESTSERIES_PROCS_MAX;
	ts->nseries = 1 + ts->nown;
	ts->acc = xcalloc(ts->nseries, sizeof(*ts->acc));
	ts->k = 1;
}

void
testseries_free(struct testseries *ts)
{
	free(ts->procs);
	free(ts->acc);
	free(ts->t);
	free(ts->v);
	memset(ts, 0, sizeof(*ts));
}

size_t
testseries_count(const struct testseries *ts)
{
	return ts->n + (ts->tentative ? 1 : 0);
}

/* Keep every other kept record, the first always: n records become (n + 1) / 2. */
static void
halve(struct testseries *ts)
{
	size_t m = 0;

	for (size_t i = 0; i < ts->n; i += 2, m++) {
		ts->t[m] = ts->t[i];
		memmove(ts->v + m * ts->nseries, ts->v + i * ts->nseries,
		        ts->nseries * sizeof(*ts->v));
	}
	ts->n = m;
	ts->k *= 2;
}

/* Room for record n, which makes the records there are n + 1: double the buffer up to the
 * block's bound; at the bound, halve what is kept. */
static void
room(struct testseries *ts)
{
	if (ts->n >= SERIESBLOCK_MAX_POINTS) {
		halve(ts);
		return;
	}
	if (ts->n < ts->cap)
		return;
	ts->cap = ts->cap ? ts->cap * 2 : FIRST_CAP;
	if (ts->cap > SERIESBLOCK_MAX_POINTS)
		ts->cap = SERIESBLOCK_MAX_POINTS;
	ts->t = xreallocarray(ts->t, ts->cap, sizeof(*ts->t));
	ts->v = xreallocarray(ts->v, ts->cap * ts->nseries, sizeof(*ts->v));
}

/* The newest record (kept or tentative), or NULL. */
static const uint64_t *
newest(const struct testseries *ts, uint64_t *t)
{
	size_t i;

	if (testseries_count(ts) == 0)
		return NULL;
	i = ts->tentative ? ts->n : ts->n - 1;
	*t = ts->t[i];
	return ts->v + i * ts->nseries;
}

/* ts->acc as a record at t: kept when it is a k-th one, else the tentative newest. Values
 * never go down (they are counters): each is at least the newest record's. */
static void
record(struct testseries *ts, uint64_t t)
{
	uint64_t lt = 0;
	const uint64_t *last = newest(ts, &lt);

	if (last != NULL) {
		if (t <= lt)
			return;
		for (size_t s = 0; s < ts->nseries; s++)
			if (ts->acc[s] < last[s])
				ts->acc[s] = last[s];
	}
	room(ts);
	ts->t[ts->n] = t;
	memcpy(ts->v + ts->n * ts->nseries, ts->acc, ts->nseries * sizeof(*ts->v));
	ts->tentative = ts->seen % ts->k != 0;
	if (!ts->tentative)
		ts->n++;
	ts->seen++;
}

/* The newest report of p, or NULL. */
static const struct testseries_span *
last_span(const struct testseries_proc *p)
{
	return p->nh ? &p->h[(p->nh - 1) % TESTSERIES_HISTORY] : NULL;
}

/* p's integral at g: on the report over it as a steady rate; its end's past the newest, its
 * oldest kept report's start before those kept. */
static double
integral_at(const struct testseries_proc *p, uint64_t g)
{
	const struct testseries_span *l = last_span(p), *sp;
	uint64_t kept = p->nh < TESTSERIES_HISTORY ? p->nh : TESTSERIES_HISTORY;

	if (l == NULL)
		return 0;
	if (g >= l->e)
		return l->a1;
	for (uint64_t i = 0; i < kept; i++) {
		sp = &p->h[(p->nh - 1 - i) % TESTSERIES_HISTORY];
		if (g >= sp->s)
			return sp->e > sp->s ? sp->a0 + (sp->a1 - sp->a0) * (double)(g - sp->s) /
			                                    (double)(sp->e - sp->s)
			                     : sp->a1;
	}
	return p->nh > TESTSERIES_HISTORY ? p->h[p->nh % TESTSERIES_HISTORY].a0 : 0;
}

/* A record at g of every process's integral there, and their sum. */
static void
record_at(struct testseries *ts, uint64_t g)
{
	double sum = 0;

	for (size_t i = 0; i < ts->nprocs; i++) {
		double a = integral_at(&ts->procs[i], g);
		sum += a;
		if (i < ts->nown)
			ts->acc[1 + i] = (uint64_t)llround(a);
	}
	ts->acc[0] = (uint64_t)llround(sum);
	record(ts, g);
}

/* Record the grid points every process has passed (all up to limit once ended). */
static void
advance(struct testseries *ts, uint64_t limit)
{
	uint64_t step = ts->interval_ms * 1000000ull, lo = UINT64_MAX, hi = 0;

	for (size_t i = 0; i < ts->nprocs; i++) {
		const struct testseries_span *l = last_span(&ts->procs[i]);
		uint64_t e = l != NULL ? l->e : ts->start;
		lo = e < lo ? e : lo;
		hi = e > hi ? e : hi;
	}
	/* A silent process holds the others back at most TESTSERIES_LAG points. */
	if (hi > lo + TESTSERIES_LAG * step)
		lo = hi - TESTSERIES_LAG * step;
	if (limit > lo)
		lo = limit;
	while (ts->start + ts->next * step <= lo && ts->next < UINT64_MAX / step)
		record_at(ts, ts->start + ts->next++ * step);
}

void
testseries_add(struct testseries *ts, size_t proc, double per_s, uint64_t t0, uint64_t t1)
{
	struct testseries_proc *p;
	const struct testseries_span *l;
	struct testseries_span *sp;
	double amount;

	if (ts->ended || proc >= ts->nprocs)
		return;
	p = &ts->procs[proc];
	l = last_span(p);
	if (t0 < ts->start)
		t0 = ts->start;
	if (l != NULL && t0 < l->e)
		t0 = l->e;
	if (t1 < t0)
		t1 = t0;
	amount = per_s * ((double)(t1 - t0) / 1e9) / TESTSERIES_SCALE;
	/* Past 2^53 millionths the test would have run for years at 100 Tbit/s. */
	if (!(isfinite(amount) && amount > 0 && amount < 9e15))
		amount = 0;
	sp = &p->h[p->nh % TESTSERIES_HISTORY];
	sp->a0 = l != NULL ? l->a1 : 0;
	sp->a1 = sp->a0 + amount;
	sp->s = t0;
	sp->e = t1;
	p->nh++;
	advance(ts, 0);
}

void
testseries_end(struct testseries *ts)
{
	uint64_t hi = ts->start;
	bool any = false;

	if (ts->ended)
		return;
	ts->ended = true;
	for (size_t i = 0; i < ts->nprocs; i++) {
		const struct testseries_span *l = last_span(&ts->procs[i]);
		any = any || l != NULL;
		if (l != NULL && l->e > hi)
			hi = l->e;
	}
	if (!any)
		return; /* nothing reported: no records */
	advance(ts, hi);
	record_at(ts, hi); /* the last report's end, off the grid (nothing when on it) */
}
