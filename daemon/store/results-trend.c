/* results-trend.c: each stored result's value against a baseline's noise band, and the first
 * outside it (results-trend.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results-trend.h"
#include "stats.h"
#include "xmalloc.h"

/* The band of v[0..n): mean -+ max(k sd, min_pct % |mean|). */
static void
band_of(const double *v, size_t n, const struct results_trend_opts *o,
        struct results_trend_point *pt)
{
	struct stats_desc d;
	double half;

	stats_describe(v, n, &d);
	half = fmax(o->k * d.sd, fabs(d.mean) * o->min_pct / 100.0);
	pt->band_n = d.n;
	pt->mean = d.mean;
	pt->sd = d.sd;
	pt->low = d.mean - half;
	pt->high = d.mean + half;
}

/* A point's position against the band it was given. */
static enum results_trend_pos
place(const struct results_trend_point *pt)
{
	if (pt->value > pt->high)
		return RT_ABOVE;
	if (pt->value < pt->low)
		return RT_BELOW;
	return RT_INSIDE;
}

/* No band for this point. */
static void
no_band(struct results_trend_point *pt)
{
	pt->band_n = 0;
	pt->mean = pt->sd = pt->low = pt->high = NAN;
}

long
results_trend_judge(struct results_trend_point *p, size_t n, const struct results_trend_opts *o,
                    long *prev)
{
	double *v = xcalloc(n + 1, sizeof(*v));
	size_t nv = 0;
	long first = -1;
	struct results_trend_point fixed = {0};

	*prev = -1;
	if (o->last == 0) {
		for (size_t i = 0; i < n; i++)
			if (p[i].baseline && !isnan(p[i].value))
				v[nv++] = p[i].value;
		if (nv > 0)
			band_of(v, nv, o, &fixed);
	}
	nv = 0;
	for (size_t i = 0; i < n; i++) {
		struct results_trend_point *pt = &p[i];

		no_band(pt);
		if (isnan(pt->value)) {
			pt->pos = RT_NO_VALUE;
			continue;
		}
		if (o->last == 0) {
			if (pt->baseline) {
				pt->pos = RT_BASELINE;
				continue;
			}
			if (fixed.band_n == 0) {
				pt->pos = RT_FORMING;
				continue;
			}
			pt->band_n = fixed.band_n;
			pt->mean = fixed.mean;
			pt->sd = fixed.sd;
			pt->low = fixed.low;
			pt->high = fixed.high;
			pt->pos = place(pt);
		} else {
			/* The last `last` values before this one. */
			size_t from = nv > o->last ? nv - o->last : 0;
			if (nv - from < 2)
				pt->pos = RT_FORMING;
			else {
				band_of(v + from, nv - from, o, pt);
				pt->pos = place(pt);
			}
			v[nv++] = pt->value;
		}
		if (first < 0 && (pt->pos == RT_ABOVE || pt->pos == RT_BELOW))
			first = (long)i;
	}
	free(v);
	if (first > 0)
		for (long i = first - 1; i >= 0 && *prev < 0; i--)
			if (!isnan(p[i].value))
				*prev = i;
	return first;
}

const char *
results_trend_pos_name(enum results_trend_pos pos)
{
	static const char *const names[] = {"no_value", "baseline", "forming",
	                                    "inside",   "above",    "below"};

	return (size_t)pos < sizeof(names) / sizeof(names[0]) ? names[pos] : "?";
}

int
results_trend_baseline_arg(const char *s, size_t *last)
{
	char *end;
	long n;

	if (strncmp(s, "last-", 5) != 0)
		return 0;
	n = strtol(s + 5, &end, 10);
	if (end == s + 5 || *end != '\0' || n < 2 || n > 1000)
		return -1;
	*last = (size_t)n;
	return 1;
}
