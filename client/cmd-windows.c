/* cmd-windows.c: renderers for windows and the results store: mark start, windows, window
 * delete, results, results trend, result delete, result export. */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "jsonutil.h"
#include "render-table.h"
#include "report-csv.h"
#include "xmalloc.h"

/* A duration in seconds for people ("1h02m03s", "4.2s"), or "" when absent. */
static void
duration_cell(json_object *o, char *buf, size_t size)
{
	if (json_object_object_get_ex(o, "duration_s", NULL))
		fmt_seconds(json_get_double(o, "duration_s", 0), buf, size);
	else
		snprintf(buf, size, "%s", "");
}

/* mark start: one line saying the window is open. */
void
render_mark_start(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *peers = NULL, *edge = NULL, *ep = NULL;

	(void)opts;
	fprintf(fp, "window %s open since %s\n", json_get_string(result, "name", "?"),
	        json_get_string(result, "start", "?"));
	/* With --peer: each peer's state and its edge against this host's. */
	json_object_object_get_ex(result, "edge", &edge);
	json_object_object_get_ex(edge, "peers", &ep);
	if (!json_object_object_get_ex(result, "peers", &peers))
		return;
	json_object_object_foreach(peers, name, po)
	{
		json_object *e = json_object_object_get(ep, name);
		char shown[256], why[512];
		fprintf(fp, "  peer %s: %s", conn_text(name, shown, sizeof(shown)),
		        json_get_string(po, "state", "?"));
		if (json_object_object_get(po, "reason") != NULL)
			fprintf(fp, " (%s)",
			        conn_text(json_get_string(po, "reason", ""), why, sizeof(why)));
		else if (e != NULL)
			fprintf(fp, ", skew %.3f ms, round trip %.3f ms",
			        json_get_double(e, "skew_ms", 0),
			        json_get_double(e, "round_trip_ms", 0));
		fputc('\n', fp);
	}
}

/* windows: one row per window. */
void
render_windows(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"WINDOW", "ORIGIN",    "STATE",  "START",
	                                  "END",    ">DURATION", "STORED", NULL};
	json_object *arr = ctl_array(result, "windows");
	struct table t;
	char dur[32], state[32];

	table_init(&t, hdr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *w = json_object_array_get_idx(arr, i);
		duration_cell(w, dur, sizeof(dur));
		if (json_object_object_get_ex(w, "closed_by", NULL))
			snprintf(state, sizeof(state), "closed (%s)",
			         json_get_string(w, "closed_by", ""));
		else
			snprintf(state, sizeof(state), "%s", json_get_string(w, "state", ""));
		const char *row[] = {json_get_string(w, "name", ""),
		                     json_get_string(w, "origin", ""),
		                     state,
		                     json_get_string(w, "start", ""),
		                     json_get_string(w, "end", ""),
		                     dur,
		                     json_get_bool(w, "stored", false) ? "yes" : "no"};
		table_row(&t, row);
	}
	if (!opts->csv && t.nrows == 0) {
		table_free(&t);
		fprintf(fp, "no windows\n");
		return;
	}
	ctl_table_out(&t, opts, fp);
}

/* results --figures: one row per result, one column per figure (the batch table). */
static void
render_figures(json_object *result, json_object *cols, const struct ctl_opts *opts, FILE *fp)
{
	const char *hdr[TABLE_MAX_COLS + 1] = {"RESULT"};
	json_object *arr = ctl_array(result, "results");
	size_t nc = json_object_array_length(cols);
	char cells[TABLE_MAX_COLS][48];
	struct table t;

	if (nc > TABLE_MAX_COLS - 1) {
		fprintf(stderr, "netmetricsctl: %zu figures match; showing the first %d\n", nc,
		        TABLE_MAX_COLS - 1);
		nc = TABLE_MAX_COLS - 1;
	}
	for (size_t c = 0; c < nc; c++)
		hdr[c + 1] = json_object_get_string(json_object_array_get_idx(cols, c));
	hdr[nc + 1] = NULL;
	table_init(&t, hdr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *r = json_object_array_get_idx(arr, i), *figs = NULL, *v;
		const char *row[TABLE_MAX_COLS];
		json_object_object_get_ex(r, "figures", &figs);
		row[0] = json_get_string(r, "name", "");
		for (size_t c = 0; c < nc; c++) {
			cells[c][0] = '\0';
			if (json_object_object_get_ex(figs, hdr[c + 1], &v) && v != NULL)
				snprintf(cells[c], sizeof(cells[c]), "%.10g",
				         json_object_get_double(v));
			row[c + 1] = cells[c];
		}
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
}

/* What a listing leaves out: more results, unreadable files, an index being built. */
static void
results_notes(json_object *result, FILE *fp)
{
	json_object *skipped = ctl_array(result, "skipped");

	if (json_get_bool(result, "more", false))
		fprintf(fp, "(more results: --limit N or --all)\n");
	if (json_object_object_get_ex(result, "note", NULL))
		fprintf(fp, "%s\n", json_get_string(result, "note", ""));
	for (size_t i = 0; skipped && i < json_object_array_length(skipped); i++) {
		json_object *s = json_object_array_get_idx(skipped, i);
		fprintf(fp, "skipped %s: %s\n", json_get_string(s, "name", "?"),
		        json_get_string(s, "error", ""));
	}
}

/* results: one row per stored result. */
void
render_results(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"RESULT",    "ORIGIN",   "START",
	                                  ">DURATION", "COMPLETE", NULL};
	json_object *arr = ctl_array(result, "results"), *cols;
	struct table t;
	char dur[32];

	if (json_object_object_get_ex(result, "columns", &cols)) {
		render_figures(result, cols, opts, fp);
		if (!opts->csv)
			results_notes(result, stderr);
		return;
	}
	table_init(&t, hdr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *r = json_object_array_get_idx(arr, i);
		const char *complete = json_get_bool(r, "complete", false) ? "yes" : "no";
		duration_cell(r, dur, sizeof(dur));
		if (json_object_object_get_ex(r, "error", NULL))
			complete = "unreadable";
		char origin[64];
		/* A test's result says how the benchmark ended: "test: failed". */
		snprintf(origin, sizeof(origin), "%s%s%s", json_get_string(r, "origin", ""),
		         json_object_object_get_ex(r, "test_status", NULL) ? ": " : "",
		         json_get_string(r, "test_status", ""));
		const char *row[] = {json_get_string(r, "name", ""), origin,
		                     json_get_string(r, "start", ""), dur, complete};
		table_row(&t, row);
	}
	if (!opts->csv && t.nrows == 0) {
		table_free(&t);
		fprintf(fp, "no results\n");
		results_notes(result, fp);
		return;
	}
	ctl_table_out(&t, opts, fp);
	if (!opts->csv)
		results_notes(result, fp);
	/* Why a result is incomplete, under the table. */
	for (size_t i = 0; !opts->csv && arr && i < json_object_array_length(arr); i++) {
		json_object *r = json_object_array_get_idx(arr, i);
		const char *why = json_get_string(r, "reason", json_get_string(r, "error", NULL));
		if (why != NULL)
			fprintf(fp, "%s: %s\n", json_get_string(r, "name", "?"), why);
	}
}

/* A number of the trend for people, three decimals, "-" when null or absent. */
static void
trend_num(json_object *o, const char *key, char *buf, size_t size)
{
	json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) || v == NULL)
		snprintf(buf, size, "-");
	else
		fmt_decimal(json_object_get_double(v), 3, buf, size);
}

/* The step of a trend: where, how far, and the settings that changed there. */
static void
trend_step(json_object *result, FILE *fp)
{
	json_object *step = NULL, *st = NULL, *d;
	char v[64], lo[64], hi[64], pct[64];

	if (!json_object_object_get_ex(result, "step", &step) || step == NULL) {
		fprintf(fp, "no result outside the baseline's band\n");
		return;
	}
	trend_num(step, "value", v, sizeof(v));
	trend_num(step, "low", lo, sizeof(lo));
	trend_num(step, "high", hi, sizeof(hi));
	fmt_decimal(json_get_double(step, "change_pct", 0), 1, pct, sizeof(pct));
	fprintf(fp, "first outside: %s: %s %s the band [%s, %s] (%s%s %% from its mean)\n",
	        json_get_string(step, "result", "?"), v, json_get_string(step, "direction", "?"),
	        lo, hi, json_get_double(step, "change_pct", 0) > 0 ? "+" : "", pct);
	if (json_object_object_get_ex(step, "settings_note", NULL)) {
		fprintf(fp, "%s\n", json_get_string(step, "settings_note", ""));
		return;
	}
	if (!json_object_object_get_ex(step, "settings", &st) || st == NULL)
		return;
	d = ctl_array(st, "differences");
	if (d == NULL || json_object_array_length(d) == 0) {
		fprintf(fp, "no setting differs from %s\n", json_get_string(step, "previous", "?"));
		return;
	}
	fprintf(fp, "settings that differ from %s:\n", json_get_string(step, "previous", "?"));
	for (size_t i = 0; i < json_object_array_length(d); i++) {
		json_object *o = json_object_array_get_idx(d, i);
		fprintf(fp, "  %s: %s -> %s\n", json_get_string(o, "setting", "?"),
		        json_get_string(o, "a", "(none)"), json_get_string(o, "b", "(none)"));
	}
	if (json_get_string(st, "cause", NULL) != NULL)
		fprintf(fp, "the step came %s\n", json_get_string(st, "cause", ""));
}

/* results trend: each result's value and band, oldest first, then the step. */
void
render_results_trend(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"RESULT", "START",    ">VALUE", ">LOW",
	                                  ">HIGH",  "POSITION", NULL};
	json_object *arr = ctl_array(result, "results"), *b = NULL;
	struct table t;

	table_init(&t, hdr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *r = json_object_array_get_idx(arr, i), *band = NULL;
		char v[64], lo[64], hi[64];
		json_object_object_get_ex(r, "band", &band);
		trend_num(r, "value", v, sizeof(v));
		trend_num(band, "low", lo, sizeof(lo));
		trend_num(band, "high", hi, sizeof(hi));
		const char *row[] = {
		    json_get_string(r, "name", ""),    json_get_string(r, "start", ""), v, lo, hi,
		    json_get_string(r, "position", "")};
		table_row(&t, row);
	}
	json_object_object_get_ex(result, "baseline", &b);
	if (!opts->csv) {
		if (json_get_int(b, "n", 0) > 0)
			fprintf(
			    fp,
			    "%s against the last %llu results before each (k %g, at least %g %%)\n",
			    json_get_string(result, "figure", "?"),
			    (unsigned long long)json_get_int(b, "n", 0),
			    json_get_double(result, "k", 0), json_get_double(result, "min_pct", 0));
		else
			fprintf(fp, "%s against the results %s (k %g, at least %g %%)\n",
			        json_get_string(result, "figure", "?"),
			        json_get_string(b, "results", "?"), json_get_double(result, "k", 0),
			        json_get_double(result, "min_pct", 0));
	}
	ctl_table_out(&t, opts, fp);
	if (opts->csv)
		return;
	if (json_get_bool(result, "more", false))
		fprintf(fp, "(older results left out: the newest a reply holds)\n");
	trend_step(result, fp);
}

/* window delete, result delete: one line. */
void
render_deleted(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	(void)opts;
	fprintf(fp, "deleted %s", json_get_string(result, "deleted", "?"));
	if (json_object_object_get_ex(result, "result_kept", NULL))
		fprintf(fp, json_get_bool(result, "result_kept", false)
		                ? " (its stored result stays)"
		                : " (it has no stored result)");
	fputc('\n', fp);
}

/* The results a glob export skipped, on stderr. */
static void
export_skipped(json_object *result)
{
	json_object *sk;

	if (!json_object_object_get_ex(result, "skipped", &sk) ||
	    !json_object_is_type(sk, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(sk); i++) {
		json_object *o = json_object_array_get_idx(sk, i);
		char a[256], b[512];
		fprintf(stderr, "netmetricsctl: result export: skipped %s: %s\n",
		        conn_text(json_get_string(o, "name", "?"), a, sizeof(a)),
		        conn_text(json_get_string(o, "error", "?"), b, sizeof(b)));
	}
}

/* result export: the CSV the daemon made, or CSV made here from the JSON result with --csv,
 * or the JSON on one line. */
void
render_result_export(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *csv, *arr;
	char *s;

	/* A glob's results: a JSON array on one line, or one a line (jsonl), or one table. */
	if (json_object_object_get_ex(result, "results", &arr) &&
	    json_object_is_type(arr, json_type_array) && !opts->json) {
		size_t n = json_object_array_length(arr);
		json_object **rs;
		if (opts->csv) {
			rs = xcalloc(n ? n : 1, sizeof(*rs));
			for (size_t i = 0; i < n; i++)
				rs[i] = json_object_array_get_idx(arr, i);
			s = report_csv_table(rs, n);
			fputs(s, fp);
			free(s);
			free(rs);
		} else if (strcmp(json_get_string(result, "format", ""), "jsonl") == 0) {
			for (size_t i = 0; i < n; i++)
				render_json(json_object_array_get_idx(arr, i), fp);
		} else
			render_json(arr, fp);
		export_skipped(result);
		return;
	}
	if (json_object_object_get_ex(result, "csv", &csv) &&
	    json_object_is_type(csv, json_type_string) &&
	    !json_object_object_get_ex(result, "figures", NULL)) {
		fputs(json_object_get_string(csv), fp);
		export_skipped(result);
		return;
	}
	if (!opts->csv) {
		render_json(result, fp);
		return;
	}
	s = report_to_csv(result);
	fputs(s, fp);
	free(s);
}
