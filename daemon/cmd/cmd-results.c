/* cmd-results.c: the stored results, newest first, from the results index: name, origin,
 * start, end, duration, complete, the test's driver and status; a page of them (newest 50,
 * --limit N, --all), filtered by name glob, origin, suite and start time; with --figures
 * the flattened figures matching a list of globs, one column each. Files the index could not
 * read are listed as skipped. While the index is built the names alone are listed. */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd-rows.h"
#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "results.h"
#include "timeutil.h"

#define RESULTS_PAGE      50   /* a listing's default length */
#define RESULTS_ROW_BYTES 1024 /* what one entry takes on the wire, about (no figures) */
#define FIGURE_PATTERNS   32   /* globs in --figures */

/* What a listing gathers. */
struct listing {
	json_object *arr;
	size_t n, limit;
	bool more;
	char *pat[FIGURE_PATTERNS]; /* --figures, split at ',' */
	size_t npat;
	json_object *columns; /* figure -> its glob's position, in the order first seen */
};

/* The first of the --figures globs the flattened figure path matches, or -1. */
static int
figure_wanted(const struct listing *l, const char *path)
{
	for (size_t i = 0; i < l->npat; i++)
		if (fnmatch(l->pat[i], path, 0) == 0)
			return (int)i;
	return -1;
}

/* The figures of a row that --figures asks for, as an object; columns noted. */
static json_object *
row_figures(struct listing *l, const char *flat)
{
	json_object *all = flat != NULL ? json_tokener_parse(flat) : NULL, *o;

	o = json_object_new_object();
	if (json_object_is_type(all, json_type_object)) {
		json_object_object_foreach(all, k, v)
		{
			int pat = figure_wanted(l, k);
			if (pat < 0)
				continue;
			json_object_object_add(o, k, json_object_get(v));
			if (!json_object_object_get_ex(l->columns, k, NULL))
				json_object_object_add(l->columns, k, json_object_new_int(pat));
		}
	}
	json_object_put(all);
	return o;
}

/* One index row as a listing entry. */
static void
add_row(const struct resultindex_row *row, void *arg)
{
	struct listing *l = arg;
	json_object *o;

	if (l->limit > 0 && l->n == l->limit) {
		l->more = true;
		return;
	}
	o = json_object_new_object();
	json_add_string(o, "name", row->name);
	json_add_string(o, "origin", row->origin);
	json_add_string(o, "start", row->start);
	json_add_string(o, "end", row->end);
	if (!isnan(row->duration_s))
		json_object_object_add(o, "duration_s", json_double(row->duration_s));
	if (row->complete >= 0)
		json_add_bool(o, "complete", row->complete);
	json_add_string(o, "closed_by", row->closed_by);
	json_add_string(o, "reason", row->reason);
	json_add_string(o, "suite", row->suite);
	json_add_string(o, "host", row->host);
	/* A test's result: its driver and how it ended. */
	if (row->driver != NULL) {
		json_add_string(o, "driver", row->driver);
		json_add_string(o, "test_status", row->test_status ? row->test_status : "");
	}
	if (l->npat > 0)
		json_object_object_add(o, "figures", row_figures(l, row->figures));
	json_object_array_add(l->arr, o);
	l->n++;
}

/* One skipped file. */
static void
add_skipped(const char *name, const char *why, void *arg)
{
	json_object *o = json_object_new_object();

	json_add_string(o, "name", name);
	json_add_string(o, "error", why);
	json_object_array_add(arg, o);
}

/* A time filter: <= 0 seconds back from now, else epoch seconds; NAN when absent. */
static double
time_arg(json_object *args, const char *key)
{
	json_object *v;
	double t;

	if (!json_object_object_get_ex(args, key, &v) || v == NULL)
		return NAN;
	t = json_object_get_double(v);
	return t > 0 ? t : (double)time_real_ns() / 1e9 + t;
}

/* Split --figures at ',' into l->pat (copies in buf). */
static int
split_figures(struct listing *l, const char *s, char *buf, size_t size, struct nm_error *err)
{
	char *save = NULL, *tok;

	snprintf(buf, size, "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (*tok == '\0')
			continue;
		if (l->npat == FIGURE_PATTERNS)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "--figures: at most %d globs",
			                    FIGURE_PATTERNS);
		l->pat[l->npat++] = tok;
	}
	if (l->npat == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "--figures: no figure glob given");
	return 0;
}

/* While the index is built: the names matching the glob, no more. */
static void
names_only(struct results *rs, const char *glob, struct listing *l, json_object *o)
{
	const char *const *names;
	size_t n = results_match(rs, glob, &names);

	for (size_t i = 0; i < n; i++) {
		json_object *e;
		if (l->limit > 0 && l->n == l->limit) {
			l->more = true;
			break;
		}
		e = json_object_new_object();
		json_add_string(e, "name", names[i]);
		json_object_array_add(l->arr, e);
		l->n++;
	}
	json_add_string(o, "index", "rebuilding");
	json_add_string(o, "note",
	                "index rebuilding: names only, by name; other filters and figures follow "
	                "once it is built");
}

/* results: list the stored results matching args, newest first. */
static int
cmd_results(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct results *rs = ctx->d->results;
	struct resultindex_filter f = {0};
	struct listing l = {0};
	json_object *o, *skipped;
	char figbuf[1100];
	size_t cap;
	bool capped = false;
	const char *figs = json_get_string(args, "figures", NULL);

	f.glob = json_get_string(args, "glob", NULL);
	f.origin = json_get_string(args, "origin", NULL);
	f.suite = json_get_string(args, "suite", NULL);
	f.since = time_arg(args, "since");
	f.until = time_arg(args, "until");
	l.limit = json_get_bool(args, "all", false)
	              ? 0
	              : (size_t)json_get_int(args, "limit", RESULTS_PAGE);
	/* Within the reply budget: --all or a long --limit past it is refused below. */
	cap = cmd_rows_cap(ctx->d, figs != NULL ? 4 * RESULTS_ROW_BYTES : RESULTS_ROW_BYTES);
	if (l.limit == 0 || l.limit > cap) {
		capped = true;
		l.limit = cap;
	}
	/* One row more than asked: whether there are more. */
	f.limit = l.limit + 1;
	if (figs != NULL && split_figures(&l, figs, figbuf, sizeof(figbuf), err) < 0)
		return -1;
	l.arr = json_object_new_array();
	l.columns = json_object_new_object();
	o = json_object_new_object();
	if (results_list(rs, &f, add_row, &l, err) < 0) {
		if (err->code != NM_ERR_BUSY) {
			json_object_put(l.arr);
			json_object_put(l.columns);
			json_object_put(o);
			return -1;
		}
		names_only(rs, f.glob, &l, o);
	} else {
		json_add_string(o, "index", "ready");
		skipped = json_object_new_array();
		if (results_list_skipped(rs, f.glob, add_skipped, skipped, err) == 0 &&
		    json_object_array_length(skipped) > 0)
			json_object_object_add(o, "skipped", skipped);
		else
			json_object_put(skipped);
	}
	if (l.npat > 0) {
		json_object *cols = json_object_new_array();
		/* In the order of the globs, then as first seen. */
		for (size_t i = 0; i < l.npat; i++) {
			json_object_object_foreach(l.columns, k, v)
			{
				if (json_object_get_int(v) == (int)i)
					json_object_array_add(cols, json_object_new_string(k));
			}
		}
		json_object_object_add(o, "columns", cols);
	}
	json_object_put(l.columns);
	if (capped && l.more) {
		json_object_put(o);
		return nm_error_set(err, NM_ERR_TOO_LARGE,
		                    "more than %zu results match, the most one reply holds "
		                    "(reply_max_points, reply_max_bytes): use --limit, a glob or "
		                    "--origin/--suite/--since/--until",
		                    cap);
	}
	json_add_uint(o, "count", l.n);
	json_add_bool(o, "more", l.more);
	json_object_object_add(o, "results", l.arr);
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_results_entry = {.proto = "results", .exec = cmd_results};
