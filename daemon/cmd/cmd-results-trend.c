/* cmd-results-trend.c: the regression watch (results trend FIGURE): the stored results of a
 * suite, of an origin or all, oldest first, each one's value of FIGURE (a flattened figure,
 * as `results --figures` and compare name them) against the noise band of a baseline
 * (results-trend.h), the first result outside it, and the settings that differ between the
 * result before it and it (their manifests, compare_manifest). The values come from the
 * results index (the loop, as `results` lists); the two manifests are read and compared on
 * the results store's reader thread (results-load.h). Not the `trend` command (a rate's
 * decay within one window: cmd-trend.c). */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-rows.h"
#include "cmd.h"
#include "compare-manifest.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "results-reply.h"
#include "results-trend.h"
#include "results.h"
#include "xmalloc.h"

#define TREND_ROW_BYTES 400 /* what one result's row takes on the wire, about */

/* The series as the index gives it (newest first) and what it is judged with. */
struct rt_series {
	const char *figure;
	const char *glob; /* a fixed baseline's names, or NULL */
	struct results_trend_point *p;
	char **start;
	size_t n, cap, limit;
	bool more;
};

/* The series' value of the figure in an index row's flattened figures, NAN without it. */
static double
row_value(const char *flat, const char *figure)
{
	json_object *all = flat != NULL ? json_tokener_parse(flat) : NULL, *v;
	double x = NAN;

	if (json_object_object_get_ex(all, figure, &v) &&
	    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		x = json_object_get_double(v);
	json_object_put(all);
	return x;
}

/* One index row into the series. */
static void
add_row(const struct resultindex_row *row, void *arg)
{
	struct rt_series *s = arg;
	struct results_trend_point *pt;

	if (s->n == s->limit) {
		s->more = true;
		return;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->p = xreallocarray(s->p, s->cap, sizeof(*s->p));
		s->start = xreallocarray(s->start, s->cap, sizeof(*s->start));
	}
	pt = &s->p[s->n];
	memset(pt, 0, sizeof(*pt));
	pt->name = xstrdup(row->name);
	pt->value = row_value(row->figures, s->figure);
	pt->baseline = s->glob != NULL && fnmatch(s->glob, row->name, 0) == 0;
	s->start[s->n] = row->start != NULL ? xstrdup(row->start) : NULL;
	s->n++;
}

/* Oldest first. */
static void
reverse(struct rt_series *s)
{
	for (size_t i = 0, j = s->n ? s->n - 1 : 0; i < j; i++, j--) {
		struct results_trend_point t = s->p[i];
		char *st = s->start[i];
		s->p[i] = s->p[j];
		s->p[j] = t;
		s->start[i] = s->start[j];
		s->start[j] = st;
	}
}

static void
series_free(struct rt_series *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free((char *)s->p[i].name);
		free(s->start[i]);
	}
	free(s->p);
	free(s->start);
}

/* A number, null when NAN. */
static void
add_num(json_object *o, const char *key, double v)
{
	json_object_object_add(o, key, isnan(v) ? NULL : json_double(v));
}

/* A point as a row of the reply. */
static json_object *
point_json(const struct results_trend_point *pt, const char *start)
{
	json_object *o = json_object_new_object();

	json_add_string(o, "name", pt->name);
	json_add_string(o, "start", start);
	add_num(o, "value", pt->value);
	json_add_string(o, "position", results_trend_pos_name(pt->pos));
	if (pt->band_n > 0) {
		json_object *b = json_object_new_object();
		json_add_uint(b, "n", pt->band_n);
		add_num(b, "mean", pt->mean);
		add_num(b, "sd", pt->sd);
		add_num(b, "low", pt->low);
		add_num(b, "high", pt->high);
		json_object_object_add(o, "band", b);
	} else
		json_object_object_add(o, "band", NULL);
	return o;
}

/* The step: the first point outside, against its band. */
static json_object *
step_json(const struct rt_series *s, long first, long prev)
{
	const struct results_trend_point *pt = &s->p[first];
	json_object *o = json_object_new_object();

	json_add_uint(o, "index", (uint64_t)first);
	json_add_string(o, "result", pt->name);
	add_num(o, "value", pt->value);
	json_add_string(o, "direction", pt->pos == RT_ABOVE ? "above" : "below");
	add_num(o, "mean", pt->mean);
	add_num(o, "low", pt->low);
	add_num(o, "high", pt->high);
	add_num(o, "change_pct",
	        pt->mean != 0 ? 100.0 * (pt->value - pt->mean) / fabs(pt->mean) : NAN);
	json_add_string(o, "previous", prev >= 0 ? s->p[prev].name : NULL);
	return o;
}

/* The reader thread: the settings that differ between the result before the step (item 0)
 * and the step's (item 1), from their manifests. */
static int
trend_work(struct results_load *ld, void *arg, json_object **result, struct nm_error *err)
{
	json_object *reply = arg, *step, *a, *b, *ma = NULL, *mb = NULL;

	(void)err;
	*result = json_object_get(reply);
	if (!json_object_object_get_ex(reply, "step", &step) || ld->n < 2)
		return 0;
	a = results_load_take(ld, 0, NULL);
	b = results_load_take(ld, 1, NULL);
	json_object_object_get_ex(a, "manifest", &ma);
	json_object_object_get_ex(b, "manifest", &mb);
	if (a == NULL || b == NULL)
		json_add_string(step, "settings_note", "a result could not be read: no settings");
	else if (ma == NULL || mb == NULL)
		json_add_string(step, "settings_note",
		                "a result was stored without a manifest: no settings");
	else
		json_object_object_add(step, "settings", compare_manifest(&a, 1, &b, 1));
	json_object_put(a);
	json_object_put(b);
	return 0;
}

/* Drop the loop's reference to the reply. */
static void
reply_free(void *arg)
{
	json_object_put(arg);
}

/* The reply's head: what was asked and how it is judged. */
static json_object *
reply_head(json_object *args, const struct results_trend_opts *o, const char *glob)
{
	json_object *r = json_object_new_object(), *b = json_object_new_object();

	json_add_string(r, "figure", json_get_string(args, "figure", ""));
	json_add_string(r, "suite", json_get_string(args, "suite", NULL));
	json_add_string(r, "origin", json_get_string(args, "origin", NULL));
	json_add_string(b, "kind", o->last > 0 ? "last" : "results");
	if (o->last > 0)
		json_add_uint(b, "n", o->last);
	else
		json_add_string(b, "results", glob);
	json_object_object_add(r, "baseline", b);
	json_object_object_add(r, "k", json_double(o->k));
	json_object_object_add(r, "min_pct", json_double(o->min_pct));
	return r;
}

/* Read the options; 0, or -1 with err. */
static int
trend_opts(json_object *args, struct results_trend_opts *o, const char **glob, struct nm_error *err)
{
	const char *bl = json_get_string(args, "baseline", NULL);

	o->k = json_get_double(args, "k", RESULTS_TREND_K);
	o->min_pct = json_get_double(args, "min_pct", RESULTS_TREND_MIN_PCT);
	o->last = RESULTS_TREND_LAST;
	*glob = NULL;
	if (bl == NULL)
		return 0;
	switch (results_trend_baseline_arg(bl, &o->last)) {
	case 1:
		return 0;
	case 0:
		o->last = 0;
		*glob = bl;
		return 0;
	default:
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--baseline %s: last-N takes N from 2 to 1000", bl);
	}
}

/* results-trend: FIGURE over the stored results. */
static int
cmd_results_trend(struct cmd_ctx *ctx, json_object *args, json_object **result,
                  struct nm_error *err)
{
	struct results *rs = ctx->d->results;
	struct resultindex_filter f = {0};
	struct results_trend_opts o;
	struct rt_series s = {0};
	struct results_load *ld;
	json_object *r, *rows;
	size_t valued = 0, nbase = 0;
	long first, prev;

	if (trend_opts(args, &o, &s.glob, err) < 0)
		return -1;
	s.figure = json_get_string(args, "figure", "");
	f.origin = json_get_string(args, "origin", NULL);
	f.suite = json_get_string(args, "suite", NULL);
	f.since = f.until = NAN;
	s.limit = cmd_rows_cap(ctx->d, TREND_ROW_BYTES);
	f.limit = s.limit + 1;
	if (results_list(rs, &f, add_row, &s, err) < 0) {
		series_free(&s);
		return -1;
	}
	reverse(&s);
	for (size_t i = 0; i < s.n; i++) {
		valued += !isnan(s.p[i].value);
		nbase += s.p[i].baseline && !isnan(s.p[i].value);
	}
	if (valued == 0) {
		series_free(&s);
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "no stored result%s has the figure %s (figures are flattened "
		                    "paths: see results --figures '*')",
		                    f.suite || f.origin ? " matching" : "", s.figure);
	}
	if (s.glob != NULL && nbase == 0) {
		series_free(&s);
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "--baseline %s: no result with the figure %s matches", s.glob,
		                    s.figure);
	}
	first = results_trend_judge(s.p, s.n, &o, &prev);
	r = reply_head(args, &o, s.glob);
	rows = json_object_new_array();
	for (size_t i = 0; i < s.n; i++)
		json_object_array_add(rows, point_json(&s.p[i], s.start[i]));
	json_add_uint(r, "count", s.n);
	/* The newest results, when more are stored than a reply holds. */
	json_add_bool(r, "more", s.more);
	json_object_object_add(r, "results", rows);
	json_object_object_add(r, "step", first >= 0 ? step_json(&s, first, prev) : NULL);
	ld = results_load_new(rs);
	if (first >= 0 && prev >= 0) {
		results_load_add(ld, s.p[prev].name, false);
		results_load_add(ld, s.p[first].name, false);
	}
	series_free(&s);
	return results_load_reply(ctx, ld, trend_work, NULL, r, reply_free, result, err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_results_trend_entry = {.proto = "results-trend",
                                                  .exec = cmd_results_trend};
