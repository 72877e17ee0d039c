/* trend.c: plateau, onset of decay, decayed level and recovery of a rate over time; the
 * counters that moved most at the onset; and the trend of one series over a span or a
 * window, read from the ring through a query the caller owns (trend_build, trend_window:
 * the trend command and the runner's report call these; nothing here calls up into the
 * commands). */
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blockload.h"
#include "runner.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "results.h"
#include "ring.h"
#include "sampler.h"
#include "source.h"
#include "stored-query.h"
#include "timeutil.h"
#include "seriesblock.h"
#include "trend.h"
#include "window.h"
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

/* ---- the trend of a series in the ring ---- */

#define TREND_MAX_POINTS     100000
#define TREND_MAX_CANDIDATES 100000 /* counters ranked as movers */
#define TREND_MAX_GLOBS      32     /* movers_glob items: each one scans every name */
#define TREND_MOVERS         10
/* A mover needs this many events per window of sustain seconds: fewer say nothing. */
#define TREND_MOVER_MIN_EVENTS 10.0

/* What the movers are chosen from by default: the tables where forwarding trouble shows. */
static const char *const default_movers[] = {"lnstat.*", "softnet.*", "snmp.*", "link.*"};
/* Per-CPU rows of the lnstat tables repeat their sums: left out of the default set. */
#define LNSTAT_PER_CPU "lnstat.*.cpu[0-9]*"

/* The grid of a trend: npoints steps of stepns from g0 (CLOCK_MONOTONIC ns). */
struct grid {
	uint64_t g0, stepns;
	size_t npoints;
};

/* CLOCK_MONOTONIC ns of a time of the analysis, t seconds from g0 (the first point's
 * interval may seem to start before g0 when the step after it held no sample). */
static uint64_t
grid_time(const struct grid *g, double t)
{
	return g->g0 + (t > 0 ? (uint64_t)(t * 1e9 + 0.5) : 0);
}

/* The one series args.metric names (a name or a glob matching one). */
static int
resolve_metric(struct query *q, const char *metric, series_id *id, struct nm_error *err)
{
	const struct series_registry *reg = query_registry(q);
	series_id *ids = NULL;
	size_t cap = 0, n = query_match(q, metric, false, &ids, &cap);
	int rc = 0;

	if (n == 0)
		rc = nm_error_set(err, NM_ERR_NOT_FOUND,
		                  "no series named %s (netmetricsctl metrics lists them)", metric);
	else if (n > 1)
		rc = nm_error_set(err, NM_ERR_BAD_ARGS,
		                  "argument \"metric\": %s matches %zu series (%s, %s%s); name one",
		                  metric, n, series_get(reg, ids[0])->name,
		                  series_get(reg, ids[1])->name, n > 2 ? ", ..." : "");
	else
		*id = ids[0];
	free(ids);
	return rc;
}

/* Lay a grid of step seconds over [t0, t1], its edges half an interval from the samples of
 * the series (query_align). */
static int
grid_make(struct query *q, series_id id, double step, uint64_t t0, uint64_t t1, struct grid *g,
          struct nm_error *err)
{
	query_align(q, id, &t0, &t1);
	g->stepns = (uint64_t)(step * 1e9);
	g->g0 = t0;
	g->npoints = 0;
	if (t1 <= t0)
		return 0;
	if ((t1 - t0) / g->stepns > TREND_MAX_POINTS)
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "argument \"step\": %llu points; at most %d (use a larger step)",
		    (unsigned long long)((t1 - t0) / g->stepns), TREND_MAX_POINTS);
	g->npoints = (size_t)((t1 - t0) / g->stepns);
	return 0;
}

/* The point of the series on step k of the grid, its span set a part at a time until
 * deadline (CLOCK_MONOTONIC ns; 0: none, at once): a per-second rate of a counter, the
 * level of a gauge, t in seconds from g->g0. 1: *pt is the point; 2: the step has no new
 * record of the source (no point); 0: not placed yet, call again; -1 with err. */
static int
read_point(struct query *q, series_id id, const struct grid *g, size_t k, uint64_t deadline,
           struct trend_point *pt, struct nm_error *err)
{
	const struct series_info *si = series_get(query_registry(q), id);
	uint64_t a = g->g0 + k * g->stepns, b = a + g->stepns;
	int rc;

	if ((rc = query_span_part(q, a, b, deadline, err)) <= 0)
		return rc;
	if (query_seconds(q, si->source) <= 0)
		return 2;
	pt->t = (double)(b - g->g0) / 1e9;
	pt->v = si->kind == SERIES_GAUGE ? query_value_end(q, id) : query_rate(q, id);
	return 1;
}

static int
id_cmp(const void *a, const void *b)
{
	series_id x = *(const series_id *)a, y = *(const series_id *)b;

	return x < y ? -1 : x > y;
}

/* The counters to rank as movers: those matching args.movers_glob (or the default set),
 * without gauges and the metric itself, each once. Returns the count; *ids is new. */
static size_t
mover_candidates(struct query *q, json_object *args, series_id metric, series_id **ids)
{
	const struct series_registry *reg = query_registry(q);
	json_object *globs = NULL;
	size_t nglobs, n = 0, cap = 0, mcap = 0;
	series_id *matched = NULL;
	bool own = json_object_object_get_ex(args, "movers_glob", &globs);

	nglobs = own ? json_object_array_length(globs)
	             : sizeof(default_movers) / sizeof(default_movers[0]);
	*ids = NULL;
	for (size_t g = 0; g < nglobs; g++) {
		const char *glob = own ? json_object_get_string(json_object_array_get_idx(globs, g))
		                       : default_movers[g];
		size_t m = query_match(q, glob, false, &matched, &mcap);

		for (size_t i = 0; i < m && n < TREND_MAX_CANDIDATES; i++) {
			const struct series_info *si = series_get(reg, matched[i]);
			if (matched[i] == metric || si->kind == SERIES_GAUGE)
				continue;
			if (!own && fnmatch(LNSTAT_PER_CPU, si->name, 0) == 0)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				*ids = xreallocarray(*ids, cap, sizeof(**ids));
			}
			(*ids)[n++] = matched[i];
		}
	}
	free(matched);
	if (n == 0)
		return 0;
	/* Globs may overlap: keep each id once. */
	qsort(*ids, n, sizeof(**ids), id_cmp);
	size_t kept = 1;
	for (size_t i = 1; i < n; i++)
		if ((*ids)[i] != (*ids)[kept - 1])
			(*ids)[kept++] = (*ids)[i];
	return kept;
}

/* The spans movers compare, w ns before and after the onset on: the step before the onset
 * and the onset's own step are left out, as the rate changed somewhere in them and they mix
 * both levels (when the grid leaves room). span[0..1] is before, span[2..3] after. */
static void
mover_spans(const struct grid *g, uint64_t on, uint64_t wns, uint64_t span[4])
{
	uint64_t end = g->g0 + g->npoints * g->stepns;

	span[1] = on - g->g0 > g->stepns ? on - g->stepns : on;
	span[0] = span[1] - g->g0 > wns ? span[1] - wns : g->g0;
	span[2] = end - on > g->stepns ? on + g->stepns : on;
	span[3] = end - span[2] > wns ? span[2] + wns : end;
}

/* [from, to] of a span as RFC 3339. */
static json_object *
span_json(struct daemon *d, uint64_t a, uint64_t b)
{
	json_object *arr = json_object_new_array();
	char buf[40];

	sampler_format_mono(d->sampler, a, buf, sizeof(buf));
	json_object_array_add(arr, json_object_new_string(buf));
	sampler_format_mono(d->sampler, b, buf, sizeof(buf));
	json_object_array_add(arr, json_object_new_string(buf));
	return arr;
}

/* The counters that moved most from the w seconds before the onset to the w seconds after
 * (w = sustain, at least a step; see mover_spans): o.movers and the spans compared. */
static int
add_movers(struct daemon *d, struct query *q, json_object *args, series_id metric,
           const struct grid *g, double onset_s, double w, json_object *o, struct nm_error *err)
{
	const struct series_registry *reg = query_registry(q);
	uint64_t on = grid_time(g, onset_s), span[4];
	size_t want = (size_t)json_get_int(args, "movers", TREND_MOVERS), n, kept;
	json_object *arr = json_object_new_array();
	struct trend_mover *m;
	series_id *ids;

	mover_spans(g, on, (uint64_t)(w * 1e9), span);
	json_object_object_add(o, "movers", arr);
	json_add_double(o, "movers_span_s", w);
	json_object_object_add(o, "movers_before", span_json(d, span[0], span[1]));
	json_object_object_add(o, "movers_after", span_json(d, span[2], span[3]));
	/* A decay from the first step has no before to compare with. */
	if (want == 0 || span[1] <= span[0] || span[3] <= span[2])
		return 0;
	n = mover_candidates(q, args, metric, &ids);
	json_add_uint(o, "candidates", n);
	m = xcalloc(n ? n : 1, sizeof(*m));
	if (query_span(q, span[0], span[1], err) < 0)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		m[i].name = series_get(reg, ids[i])->name;
		m[i].tag = ids[i];
		m[i].before = query_rate(q, ids[i]);
	}
	if (query_span(q, span[2], span[3], err) < 0)
		goto fail;
	for (size_t i = 0; i < n; i++)
		m[i].after = query_rate(q, ids[i]);
	kept = trend_rank_movers(m, n, TREND_MOVER_MIN_EVENTS / w);
	for (size_t i = 0; i < kept && i < want; i++) {
		json_object *e = json_object_new_object();
		json_add_string(e, "series", m[i].name);
		json_add_double(e, "before_rate", m[i].before);
		json_add_double(e, "after_rate", m[i].after);
		json_add_double(e, "change", m[i].change);
		json_add_string(e, "unit", series_get(reg, (series_id)m[i].tag)->unit);
		json_object_array_add(arr, e);
	}
	free(m);
	free(ids);
	return 0;
fail:
	free(m);
	free(ids);
	return -1;
}

/* {"time": RFC 3339, "level": L, "fraction": L / plateau} of a point of the analysis. */
static json_object *
event_json(struct daemon *d, const struct grid *g, double t, double level, double plateau)
{
	json_object *e = json_object_new_object();
	char buf[40];

	sampler_format_mono(d->sampler, grid_time(g, t), buf, sizeof(buf));
	json_add_string(e, "time", buf);
	json_add_double(e, "level", level);
	json_add_double(e, "fraction", plateau > 0 ? level / plateau : 0);
	return e;
}

/* Add a time of the analysis (seconds from g0) to o as RFC 3339. */
static void
add_time(struct daemon *d, const struct grid *g, json_object *o, const char *key, double t)
{
	char buf[40];

	sampler_format_mono(d->sampler, grid_time(g, t), buf, sizeof(buf));
	json_add_string(o, key, buf);
}

/* The analysis into o: verdict, plateau, onset, decayed, recovery, decays. */
static void
add_analysis(struct daemon *d, const struct grid *g, const struct trend_result *r, json_object *o)
{
	json_object *pl = NULL, *on = NULL, *dec = NULL, *rec = NULL;

	json_add_string(o, "verdict", trend_verdict_name(r->verdict));
	if (r->verdict != TREND_IDLE && r->verdict != TREND_TOO_SHORT) {
		pl = json_object_new_object();
		add_time(d, g, pl, "start", r->plateau_start);
		add_time(d, g, pl, "end", r->plateau_end);
		json_add_double(pl, "level", r->plateau);
	}
	if (r->has_onset) {
		on = event_json(d, g, r->onset, r->onset_level, r->plateau);
		dec = json_object_new_object();
		json_add_double(dec, "level", r->decayed);
		json_add_double(dec, "fraction", r->plateau > 0 ? r->decayed / r->plateau : 0);
		add_time(d, g, dec, "start", r->decayed_start);
		add_time(d, g, dec, "end", r->decayed_end);
	}
	if (r->has_recovery)
		rec = event_json(d, g, r->recovery, r->recovery_level, r->plateau);
	json_object_object_add(o, "plateau", pl);
	json_object_object_add(o, "onset", on);
	json_object_object_add(o, "decayed", dec);
	json_object_object_add(o, "recovery", rec);
	json_add_uint(o, "decays", r->decays);
}

/* The parameters of the analysis from args, checked. */
static int
params_from_args(json_object *args, struct trend_params *p, struct nm_error *err)
{
	json_object *globs;

	trend_params_default(p);
	p->threshold = json_get_double(args, "threshold", p->threshold);
	p->recover = json_get_double(args, "recover", p->recover);
	p->sustain_s = json_get_double(args, "sustain", p->sustain_s);
	p->plateau_s = json_get_double(args, "plateau", p->plateau_s);
	if (p->recover < p->threshold)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"recover\": %g is below the threshold %g",
		                    p->recover, p->threshold);
	if (json_object_object_get_ex(args, "movers_glob", &globs) &&
	    json_object_array_length(globs) > TREND_MAX_GLOBS)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "argument \"movers_glob\": at most %d",
		                    TREND_MAX_GLOBS);
	return 0;
}

/* Clamp [*t0, *t1] to what q answers for (the ring, a stored block); not_found when nothing
 * of it is left. */
static int
clamp_span(struct daemon *d, struct query *q, uint64_t *t0, uint64_t *t1, bool *clipped,
           struct nm_error *err)
{
	uint64_t oldest, newest;
	char a[40], b[40];

	if (query_bounds(q, &oldest, &newest) < 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no samples yet");
	*clipped = *t0 < oldest;
	if (*t0 < oldest)
		*t0 = oldest;
	if (*t1 > newest)
		*t1 = newest;
	if (*t1 <= *t0) {
		sampler_format_mono(d->sampler, oldest, a, sizeof(a));
		sampler_format_mono(d->sampler, newest, b, sizeof(b));
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "the span holds no samples: the ring keeps %s to %s", a, b);
	}
	return 0;
}

/* The parameters of the analysis (argument, member of a trend reply): those that decide
 * the verdict. */
static const char *const window_params[][2] = {{"threshold", "threshold"},
                                               {"recover", "recover"},
                                               {"sustain", "sustain_s"},
                                               {"plateau", "plateau_s"},
                                               {"step", "step"}};

/* args with the parameters it leaves out taken from the trend stored with window name's
 * result, when that trend analysed the series args.metric names. Returns a new object;
 * *from_result says whether any parameter came from there. */
static json_object *
window_args(struct daemon *d, struct query *q, const char *name, json_object *args,
            bool *from_result)
{
	json_object *out = json_object_new_object(), *stored, *trend = NULL, *v;
	const struct series_registry *reg = query_registry(q);
	series_id id = SERIES_NONE;
	struct nm_error e;

	*from_result = false;
	json_object_object_foreach(args, k, val)
	    json_object_object_add(out, k, json_object_get(val));
	if (d->results == NULL || (stored = results_get(d->results, name, &e)) == NULL)
		return out;
	if (json_object_object_get_ex(stored, "trend", &trend) &&
	    resolve_metric(q, json_get_string(args, "metric", ""), &id, &e) == 0 &&
	    strcmp(json_get_string(trend, "metric", ""), series_get(reg, id)->name) == 0) {
		for (size_t i = 0; i < sizeof(window_params) / sizeof(window_params[0]); i++) {
			if (json_object_object_get_ex(args, window_params[i][0], NULL) ||
			    !json_object_object_get_ex(trend, window_params[i][1], &v) || v == NULL)
				continue;
			json_object_object_add(out, window_params[i][0], json_object_get(v));
			*from_result = true;
		}
	}
	json_object_put(stored);
	return out;
}

/* A trend computed a slice at a time (trend_job_step): the stages in their order. */
enum job_stage {
	JOB_STORED,  /* a window gone from the ring: read its stored series */
	JOB_ARGS,    /* a window: the parameters of its stored trend (window_args) */
	JOB_BEGIN,   /* parameters, the series, the span, the grid */
	JOB_POINTS,  /* the points, a slice of grid steps at a time */
	JOB_ANALYSE, /* the analysis and the reply's members; the movers' candidates */
	JOB_MOVERS,  /* the movers ranked */
	JOB_DONE,
};

struct trend_job {
	struct daemon *d;
	enum job_stage stage;
	struct query *q;   /* the caller's, own_q or bq */
	struct query *own; /* made for the job (NULL: the caller's) */
	struct query *bq;  /* over blk */
	struct seriesblock *blk;
	char *window; /* NULL: a span */
	json_object *args, *o;
	uint64_t t0, t1;
	struct trend_params p;
	series_id id; /* its series_info is looked up each turn: the registry may grow */
	double step;
	struct grid g;
	struct trend_point *pts;
	size_t next, n; /* the next grid step; the points read */
	bool clipped;
	struct trend_result r;
	series_id *ids; /* the movers' candidates */
	size_t nids;
	bool offloop;         /* the stored series read off the loop (trend_job_offloop) */
	struct blockload *bl; /* being read */
	void (*wake)(void *); /* when they are */
	void *wake_arg;
	uint64_t *offloop_ns;
};

/* The job of a window (name) or of the span [t0, t1] (name NULL); q NULL: the job makes its
 * own query of the ring (a job run over turns of the loop must not share one). */
static struct trend_job *
job_new(struct daemon *d, struct query *q, const char *name, json_object *args, uint64_t t0,
        uint64_t t1)
{
	struct trend_job *j = xcalloc(1, sizeof(*j));

	j->d = d;
	j->q = q;
	if (q == NULL)
		j->q = j->own = query_take(d->sampler);
	j->window = name != NULL ? xstrdup(name) : NULL;
	j->args = json_object_get(args);
	j->o = json_object_new_object();
	j->t0 = t0;
	j->t1 = t1;
	j->stage = name != NULL ? JOB_STORED : JOB_BEGIN;
	return j;
}

void
trend_job_free(struct trend_job *j)
{
	if (j == NULL)
		return;
	blockload_cancel(j->bl);
	query_free(j->bq);
	seriesblock_free(j->blk);
	query_put(j->own);
	free(j->window);
	json_object_put(j->args);
	json_object_put(j->o);
	free(j->pts);
	free(j->ids);
	free(j);
}

struct trend_job *
trend_job_span(struct daemon *d, struct query *q, json_object *args, uint64_t t0, uint64_t t1)
{
	return job_new(d, q, NULL, args, t0, t1);
}

struct trend_job *
trend_job_window(struct daemon *d, struct query *q, const char *name, json_object *args,
                 struct nm_error *err)
{
	uint64_t t0, t1;

	if (window_span(d->windows, name, &t0, &t1, err) < 0)
		return NULL;
	return job_new(d, q, name, args, t0, t1);
}

json_object *
trend_job_result(struct trend_job *j)
{
	json_object *o = j->o;

	j->o = NULL;
	return o;
}

/* JOB_BEGIN: parameters checked, the series, the span clamped, the grid laid. */
static int
job_begin(struct trend_job *j, struct nm_error *err)
{
	const char *metric = json_get_string(j->args, "metric", "");
	const struct series_info *si;
	double interval;

	if (params_from_args(j->args, &j->p, err) < 0 ||
	    resolve_metric(j->q, metric, &j->id, err) < 0 ||
	    clamp_span(j->d, j->q, &j->t0, &j->t1, &j->clipped, err) < 0)
		return -1;
	si = series_get(query_registry(j->q), j->id);
	interval = query_interval_ms(j->q, si->source) > 0
	               ? (double)query_interval_ms(j->q, si->source) / 1000
	               : 1;
	/* Whole intervals: a step of 1.5 would hold one sample, or two, by turns (and a step
	 * shorter than the interval none, or one). */
	j->step = fmax(round(json_get_double(j->args, "step", interval) / interval), 1) * interval;
	if (grid_make(j->q, j->id, j->step, j->t0, j->t1, &j->g, err) < 0)
		return -1;
	j->pts = xcalloc(j->g.npoints ? j->g.npoints : 1, sizeof(*j->pts));
	return 0;
}

/* JOB_ANALYSE: the analysis into o, and the movers' candidates when it found an onset. */
static void
job_analyse(struct trend_job *j)
{
	const struct series_info *si = series_get(query_registry(j->q), j->id);
	struct daemon *d = j->d;
	json_object *o = j->o;
	char buf[40];

	trend_analyse(j->pts, j->n, &j->p, &j->r);
	json_add_string(o, "metric", si->name);
	json_add_string(o, "unit", si->unit);
	json_add_string(o, "kind", series_kind_name(si->kind));
	json_add_string(o, "values", si->kind == SERIES_GAUGE ? "level" : "rate");
	sampler_format_mono(d->sampler, j->g.g0, buf, sizeof(buf));
	json_add_string(o, "from", buf);
	sampler_format_mono(d->sampler, j->g.g0 + j->g.npoints * j->g.stepns, buf, sizeof(buf));
	json_add_string(o, "to", buf);
	json_add_bool(o, "clipped", j->clipped);
	json_add_double(o, "step", j->step);
	json_add_uint(o, "points", (uint64_t)j->n);
	json_add_double(o, "threshold", j->p.threshold);
	json_add_double(o, "recover", j->p.recover);
	json_add_double(o, "sustain_s", j->p.sustain_s);
	json_add_double(o, "plateau_s", j->p.plateau_s);
	add_analysis(d, &j->g, &j->r, o);
	if (!j->r.has_onset)
		json_object_object_add(o, "movers", json_object_new_array());
}

void
trend_job_offloop(struct trend_job *j, void (*wake)(void *), void *arg, uint64_t *offloop_ns)
{
	j->offloop = true;
	j->wake = wake;
	j->wake_arg = arg;
	j->offloop_ns = offloop_ns;
}

/* The stored series are read: the job goes on. */
static void
job_loaded(void *arg)
{
	struct trend_job *j = arg;

	if (j->wake != NULL)
		j->wake(j->wake_arg);
}

/* The stored series off the loop: 1 while they are read, 0 once there (or not: the ring). */
static int
job_stored_offloop(struct trend_job *j, const char *metric)
{
	struct daemon *d = j->d;

	if (j->bl == NULL && !stored_wanted(d, j->t0, metric))
		return 0;
	/* A running test's own figures so far, kept with it. */
	if (j->bl == NULL &&
	    (j->blk = runner_live_block(d->runner, j->window, j->t0, j->t1)) != NULL) {
		j->q = j->bq = query_new_block(d->sampler, j->blk);
		return 0;
	}
	if (blockload_poll(&j->bl, d->results, j->window, sampler_mono_to_real(d->sampler),
	                   job_loaded, j, j->offloop_ns, &j->blk) > 0)
		return 1;
	if (j->blk != NULL) {
		j->q = j->bq = query_new_block(d->sampler, j->blk);
		j->t0 = j->blk->t0;
		j->t1 = j->blk->t1;
	}
	return 0;
}

int
trend_job_step(struct trend_job *j, uint64_t slice_ns, struct nm_error *err)
{
	uint64_t start = time_mono_ns(), deadline;
	bool from_result;
	json_object *eff;
	const char *metric;
	int rc;

	switch (j->stage) {
	case JOB_STORED:
		/* The span gone from the ring, or a series it does not have (a test's figures):
		 * the series stored with the result, when it has them. */
		metric = json_get_string(j->args, "metric", "");
		if (j->offloop && slice_ns != UINT64_MAX) {
			if (job_stored_offloop(j, metric[0] ? metric : NULL) > 0)
				return TREND_JOB_WAIT;
			j->stage = JOB_ARGS;
			return 0;
		}
		if ((j->bq = stored_query(j->d, j->window, j->t0, metric[0] ? metric : NULL,
		                          &j->blk)) != NULL) {
			j->q = j->bq;
			j->t0 = j->blk->t0;
			j->t1 = j->blk->t1;
		}
		j->stage = JOB_ARGS;
		return 0;
	case JOB_ARGS:
		eff = window_args(j->d, j->q, j->window, j->args, &from_result);
		json_object_put(j->args);
		j->args = eff;
		json_add_string(j->o, "params_from", from_result ? "result" : "request");
		j->stage = JOB_BEGIN;
		return 0;
	case JOB_BEGIN:
		if (job_begin(j, err) < 0)
			return -1;
		j->stage = JOB_POINTS;
		return 0;
	case JOB_POINTS:
		/* Steps (a span each) until slice_ns is spent: the first one places the cursors
		 * from a keyframe, itself a part at a time, the others move them a step on. */
		deadline = slice_ns == UINT64_MAX ? 0 : start + slice_ns;
		while (j->next < j->g.npoints) {
			if ((rc = read_point(j->q, j->id, &j->g, j->next, deadline, j->pts + j->n,
			                     err)) < 0)
				return -1;
			if (rc == 0)
				return 0; /* the same step in the next part */
			j->n += rc == 1;
			j->next++;
			if (deadline != 0 && time_mono_ns() >= deadline)
				break;
		}
		if (j->next == j->g.npoints)
			j->stage = JOB_ANALYSE;
		return 0;
	case JOB_ANALYSE:
		job_analyse(j);
		if (!j->r.has_onset) {
			j->stage = JOB_DONE;
			return 1;
		}
		j->stage = JOB_MOVERS;
		return 0;
	case JOB_MOVERS:
		j->stage = JOB_DONE;
		if (add_movers(j->d, j->q, j->args, j->id, &j->g, j->r.onset,
		               fmax(j->p.sustain_s, j->step), j->o, err) < 0)
			return -1;
		return 1;
	case JOB_DONE:
		break;
	}
	return 1;
}

/* Run j to the end at once into o (the runner's trend, made on its own). */
static int
job_run(struct trend_job *j, json_object *o, struct nm_error *err)
{
	int rc;

	while ((rc = trend_job_step(j, UINT64_MAX, err)) == 0)
		;
	if (rc > 0) {
		json_object_object_foreach(j->o, k, v)
		    json_object_object_add(o, k, json_object_get(v));
	}
	trend_job_free(j);
	return rc < 0 ? -1 : 0;
}

int
trend_build(struct daemon *d, struct query *q, json_object *args, uint64_t t0, uint64_t t1,
            json_object *o, struct nm_error *err)
{
	return job_run(trend_job_span(d, q, args, t0, t1), o, err);
}

int
trend_window(struct daemon *d, struct query *q, const char *name, json_object *args, json_object *o,
             struct nm_error *err)
{
	struct trend_job *j = trend_job_window(d, q, name, args, err);

	return j != NULL ? job_run(j, o, err) : -1;
}
