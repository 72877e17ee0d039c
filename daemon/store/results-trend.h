/* results-trend.h: the regression watch over stored results (results trend): each result's
 * value of one figure, in the order the results started, against the noise band of a
 * baseline, and the first result outside that band. The baseline is either a fixed set of
 * results (a name or glob) or, rolling, the last N results before each one judged. The band
 * is mean -+ max(k * sd, min_pct % of |mean|) of the baseline's values (sd the sample
 * standard deviation): k * sd for a noisy figure, the floor for a noise-free one, whose sd
 * is 0. Pure: nothing here reads the store (cmd-results-trend.c does). */
#ifndef NM_RESULTS_TREND_H
#define NM_RESULTS_TREND_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#define RESULTS_TREND_K       3.0 /* default band half-width, in baseline sds */
#define RESULTS_TREND_MIN_PCT 1.0 /* default floor of the half-width, % of the mean */
#define RESULTS_TREND_LAST    5   /* default rolling baseline: the last 5 results */

/* Where a result stands. */
enum results_trend_pos {
	RT_NO_VALUE, /* the result has no such figure */
	RT_BASELINE, /* one of the fixed baseline's results */
	RT_FORMING,  /* rolling: fewer than 2 values before it, no band yet */
	RT_INSIDE,
	RT_ABOVE,
	RT_BELOW,
};

/* One result of the series, oldest first. */
struct results_trend_point {
	const char *name;
	double value;  /* NAN: the result has no such figure */
	bool baseline; /* in the fixed baseline (ignored for a rolling one) */
	/* Out: */
	enum results_trend_pos pos;
	size_t band_n;              /* values the band was made of (0: none) */
	double mean, sd, low, high; /* the band it was judged against (NAN: none) */
};

/* How to judge. */
struct results_trend_opts {
	size_t last;    /* > 0: rolling, the last `last` values before each; 0: fixed baseline */
	double k;       /* half-width in sds */
	double min_pct; /* floor of the half-width, % of |mean| */
};

/* Judge p[0..n) (fills each point's out members). Returns the index of the first point
 * outside its band, or -1 when none is; *prev is then the nearest point before it with a
 * value (-1 when none). A fixed baseline with fewer than 1 value judges nothing (all
 * RT_FORMING). */
long results_trend_judge(struct results_trend_point *p, size_t n,
                         const struct results_trend_opts *o, long *prev);

/* The name of a position: "no_value", "baseline", "forming", "inside", "above", "below". */
const char *results_trend_pos_name(enum results_trend_pos pos);

/* Parse a --baseline word: "last-N" (N 2..1000) sets *last and returns 1; anything else is
 * a name or glob of results: returns 0. -1 for "last-" with a bad N. */
int results_trend_baseline_arg(const char *s, size_t *last);

#endif
