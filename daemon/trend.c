/* trend.c: plateau, onset of decay, decayed level and recovery of a rate over time; the
 * counters that moved most at the onset. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trend.h"
#include "xmalloc.h"

/* Slack for comparing sums of steps with a duration: 0.9 s + 0.1 s is not always 1.0. */
#define EPS 1e-6

void
trend_params_default(struct trend_params *p)
{
	p->threshold = TREND_THRESHOLD;
	p->recover = TREND_RECOVER;
	p->sustain_s = TREND_SUSTAIN_S;
	p->plateau_s = TREND_PLATEAU_S;
}

const char *
trend_verdict_name(enum trend_verdict v)
{
	switch (v) {
	case TREND_STEADY:
		return "steady";
	case TREND_DECAY:
		return "decay";
	case TREND_DECAY_RECOVERED:
		return "decay-recovered";
	case TREND_IDLE:
		return "idle";
	case TREND_TOO_SHORT:
		return "too-short";
	}
	return "unknown";
}

/* Where the interval of point i starts: the previous point's time; the first interval is
 * as long as the second. */
static double
interval_start(const struct trend_point *pts, size_t n, size_t i)
{
	if (i > 0)
		return pts[i - 1].t;
	return n > 1 ? pts[0].t - (pts[1].t - pts[0].t) : pts[0].t;
}

static int
double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the values of pts[a..b) (0 when empty); scratch holds n doubles. */
static double
median(const struct trend_point *pts, size_t a, size_t b, double *scratch)
{
	size_t k = b > a ? b - a : 0;

	if (k == 0)
		return 0;
	for (size_t i = 0; i < k; i++)
		scratch[i] = pts[a + i].v;
	qsort(scratch, k, sizeof(*scratch), double_cmp);
	return k % 2 ? scratch[k / 2] : (scratch[k / 2 - 1] + scratch[k / 2]) / 2;
}

/* A high level of the whole series, for telling traffic from idle: the 95th percentile
 * (nearest rank), or the maximum when that is 0 (traffic in under 5% of the span). */
static double
reference_level(const struct trend_point *pts, size_t n, double *scratch)
{
	size_t rank = (size_t)ceil(0.95 * (double)n);

	for (size_t i = 0; i < n; i++)
		scratch[i] = pts[i].v;
	qsort(scratch, n, sizeof(*scratch), double_cmp);
	if (rank < 1)
		rank = 1;
	return scratch[rank - 1] > 0 ? scratch[rank - 1] : scratch[n - 1];
}

/* The first run of points in pts[from..n) all below level (below) or all at or above it
 * (!below) that lasts at least sustain seconds. Returns its first index and sets *confirm
 * to the point that completed it; n when there is none. */
static size_t
find_run(const struct trend_point *pts, size_t n, size_t from, double level, bool below,
         double sustain, size_t *confirm)
{
	size_t run = SIZE_MAX;

	for (size_t k = from; k < n; k++) {
		bool in = below ? pts[k].v < level : pts[k].v >= level;

		if (!in) {
			run = SIZE_MAX;
			continue;
		}
		if (run == SIZE_MAX)
			run = k;
		if (pts[k].t - interval_start(pts, n, run) >= sustain - EPS) {
			*confirm = k;
			return run;
		}
	}
	return n;
}

/* Scan for decay episodes against the plateau level r->plateau, from point a on; fills the
 * first episode's fields, decays and the verdict. */
static void
scan_episodes(const struct trend_point *pts, size_t n, size_t a, const struct trend_params *p,
              struct trend_result *r, double *scratch)
{
	double low = p->threshold * r->plateau, high = p->recover * r->plateau;
	size_t pos = a, conf = 0, rconf = 0, next, nconf = 0;

	r->verdict = TREND_STEADY;
	r->decays = 0;
	r->has_onset = r->has_recovery = false;
	r->plateau_end = pts[n - 1].t;
	for (;;) {
		size_t on = find_run(pts, n, pos, low, true, p->sustain_s, &conf);
		size_t rec;

		if (on == n)
			break;
		r->decays++;
		rec = find_run(pts, n, conf + 1, high, false, p->sustain_s, &rconf);
		if (r->decays == 1) {
			r->has_onset = true;
			r->onset = interval_start(pts, n, on);
			/* The first step of the run mixes both levels when the rate fell inside
			 * it: the level is that of the steps after it. */
			r->onset_level = median(pts, conf > on ? on + 1 : on, conf + 1, scratch);
			r->plateau_end = r->onset;
			r->decayed_start = r->onset;
			r->decayed_end = rec < n ? interval_start(pts, n, rec) : pts[n - 1].t;
			r->decayed = median(pts, on, rec, scratch);
			if (rec < n) {
				next = find_run(pts, n, rconf + 1, low, true, p->sustain_s, &nconf);
				r->has_recovery = true;
				r->recovery = interval_start(pts, n, rec);
				r->recovery_level = median(pts, rec, next, scratch);
			}
		}
		if (rec == n) {
			r->verdict = TREND_DECAY;
			break;
		}
		r->verdict = TREND_DECAY_RECOVERED;
		pos = rconf + 1;
	}
}

void
trend_analyse(const struct trend_point *pts, size_t n, const struct trend_params *p,
              struct trend_result *r)
{
	double *scratch, ref, start;
	size_t a, b;

	memset(r, 0, sizeof(*r));
	r->npoints = n;
	if (n < 3) {
		r->verdict = TREND_TOO_SHORT;
		return;
	}
	scratch = xcalloc(n, sizeof(*scratch));
	ref = reference_level(pts, n, scratch);
	if (ref <= 0) {
		r->verdict = TREND_IDLE;
		goto out;
	}
	for (a = 0; a < n && pts[a].v < TREND_IDLE_FRACTION * ref; a++)
		;
	start = interval_start(pts, n, a);
	if (pts[n - 1].t - start < p->plateau_s - EPS) {
		r->verdict = TREND_TOO_SHORT;
		goto out;
	}
	for (b = a; b < n && pts[b].t - start <= p->plateau_s + EPS; b++)
		;
	r->plateau_start = start;
	r->plateau = median(pts, a, b, scratch);
	scan_episodes(pts, n, a, p, r, scratch);
	/* A decay inside the plateau's first seconds drags their median down: take the plateau
	 * from the traffic before the onset instead, and look again. */
	if (r->has_onset && r->onset < start + p->plateau_s - EPS) {
		size_t on = a;
		while (on < n && interval_start(pts, n, on) < r->onset)
			on++;
		if (on > a) {
			double level = median(pts, a, on, scratch);
			if (level != r->plateau) {
				r->plateau = level;
				scan_episodes(pts, n, a, p, r, scratch);
			}
		}
	}
out:
	free(scratch);
}

/* Order movers: largest |change| first, then largest absolute move, then by name. */
static int
mover_cmp(const void *a, const void *b)
{
	const struct trend_mover *x = a, *y = b;
	double cx = fabs(x->change), cy = fabs(y->change);
	double mx = fabs(x->after - x->before), my = fabs(y->after - y->before);

	if (cx != cy)
		return cx > cy ? -1 : 1;
	if (mx != my)
		return mx > my ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t
trend_rank_movers(struct trend_mover *m, size_t n, double min_rate)
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		struct trend_mover c = m[i];
		/* Tiny counts and tiny moves say nothing. */
		if (fabs(c.before) < min_rate && fabs(c.after) < min_rate)
			continue;
		if (fabs(c.after - c.before) < min_rate)
			continue;
		c.change = (c.after - c.before) / fmax(fabs(c.before), min_rate);
		m[i] = m[kept];
		m[kept++] = c;
	}
	qsort(m, kept, sizeof(*m), mover_cmp);
	return kept;
}
