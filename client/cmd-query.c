/* cmd-query.c: renderers for the series commands: metrics, now, rates, series, trend. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "ctl.h"
#include "jsonutil.h"
#include "plot.h"
#include "render-table.h"

/* Print a table aligned, or as CSV with --csv. */
void
ctl_table_out(struct table *t, const struct ctl_opts *opts, FILE *fp)
{
	if (opts->csv)
		table_print_csv(t, fp);
	else
		table_print(t, fp);
	table_free(t);
}

/* The array member key of o, or NULL. */
json_object *
ctl_array(json_object *o, const char *key)
{
	json_object *a = NULL;

	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array))
		return NULL;
	return a;
}

/* "over 3.0s, FROM to TO" header line (the exact edges the figures span), after "window
 * NAME: " for a window's span. */
void
ctl_span_line(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	char span[32];
	json_object *w = NULL;

	if (opts->csv || !json_object_object_get_ex(result, "span_s", NULL))
		return;
	fmt_seconds(json_get_double(result, "span_s", 0), span, sizeof(span));
	if (json_object_object_get_ex(result, "window", &w) &&
	    json_object_is_type(w, json_type_string))
		fprintf(fp, "window %s: ", json_object_get_string(w));
	fprintf(fp, "over %s, %s to %s\n\n", span, json_get_string(result, "from", "?"),
	        json_get_string(result, "to", "?"));
}

void
render_metrics(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"SERIES", "KIND", "UNIT", "SOURCE", "LIVE", NULL};
	json_object *arr = ctl_array(result, "series");
	struct table t;

	table_init(&t, hdr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *m = json_object_array_get_idx(arr, i);
		const char *row[] = {json_get_string(m, "name", ""), json_get_string(m, "kind", ""),
		                     json_get_string(m, "unit", ""),
		                     json_get_string(m, "source", ""),
		                     json_get_bool(m, "live", false) ? "yes" : "no"};
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
}

/* A value for people: integers with separators, fractions with three decimals. */
static void
fmt_value(double v, char *buf, size_t size)
{
	if (v == (double)(long long)v)
		fmt_decimal(v, 0, buf, size);
	else
		fmt_decimal(v, 3, buf, size);
}

void
render_now(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"SERIES", ">VALUE", "UNIT", NULL};
	json_object *arr = ctl_array(result, "series");
	struct table t;
	char v[48];

	if (!opts->csv)
		fprintf(fp, "at %s\n\n", json_get_string(result, "time", "?"));
	table_init(&t, hdr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *m = json_object_array_get_idx(arr, i);
		fmt_value(json_get_double(m, "value", 0), v, sizeof(v));
		const char *row[] = {json_get_string(m, "name", ""), v,
		                     json_get_string(m, "unit", "")};
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
}

void
render_rates(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"SERIES", ">PER SECOND", ">DELTA", "UNIT", NULL};
	json_object *arr = ctl_array(result, "series");
	struct table t;
	char r[48], d[48];

	ctl_span_line(result, opts, fp);
	table_init(&t, hdr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *m = json_object_array_get_idx(arr, i);
		/* Bytes read best in binary units, except in CSV, which wants plain numbers. */
		if (!opts->csv && strcmp(json_get_string(m, "unit", ""), "bytes") == 0) {
			fmt_bytes(json_get_double(m, "rate", 0), r, sizeof(r) - 2);
			strcat(r, "/s");
			fmt_bytes(json_get_double(m, "delta", 0), d, sizeof(d));
		} else {
			fmt_decimal(json_get_double(m, "rate", 0), 1, r, sizeof(r));
			fmt_value(json_get_double(m, "delta", 0), d, sizeof(d));
		}
		const char *row[] = {json_get_string(m, "name", ""), r, d,
		                     json_get_string(m, "unit", "")};
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
	if (!opts->csv && json_get_int(result, "count", 0) < json_get_int(result, "matched", 0))
		fprintf(fp, "(%lld matching series did not move; --all shows them)\n",
		        (long long)(json_get_int(result, "matched", 0) -
		                    json_get_int(result, "count", 0)));
}

void
render_series(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *arr = ctl_array(result, "series");
	const char *hdr[TABLE_MAX_COLS + 1] = {"TIME"};
	size_t ns = arr ? json_object_array_length(arr) : 0, np = 0;
	double from, to, step;
	struct table t;

	if (opts->plot != PLOT_NONE) {
		plot_series(result, (enum plot_mode)opts->plot, fp);
		return;
	}
	if (opts->csv) {
		plot_csv(result, fp);
		return;
	}
	if (ns > TABLE_MAX_COLS - 1)
		ns = TABLE_MAX_COLS - 1;
	for (size_t i = 0; i < ns; i++) {
		json_object *m = json_object_array_get_idx(arr, i);
		json_object *pts = ctl_array(m, "points");
		/* Right-aligned: the '>' prefix lives in a static buffer per column. */
		static char names[TABLE_MAX_COLS][160];
		const char *unit = json_get_string(m, "unit", "");
		size_t ul = strlen(unit);
		/* A rate per second; a peak (unit packets/s) or a ratio (series --bursts) is
		 * already what it is. */
		bool per_s =
		    strcmp(unit, "ratio") != 0 && (ul < 2 || strcmp(unit + ul - 2, "/s") != 0);
		snprintf(names[i], sizeof(names[i]), ">%s%s", json_get_string(m, "name", "?"),
		         per_s ? "/s" : "");
		hdr[i + 1] = names[i];
		if (pts && json_object_array_length(pts) > np)
			np = json_object_array_length(pts);
	}
	hdr[ns + 1] = NULL;
	table_init(&t, hdr);
	for (size_t p = 0; p < np; p++) {
		char cells[TABLE_MAX_COLS][48];
		const char *row[TABLE_MAX_COLS];
		for (size_t i = 0; i <= ns; i++) {
			json_object *m = i ? json_object_array_get_idx(arr, i - 1)
			                   : json_object_array_get_idx(arr, 0);
			json_object *pts = ctl_array(m, "points");
			json_object *pt = pts ? json_object_array_get_idx(pts, p) : NULL;
			double tv =
			    pt ? json_object_get_double(json_object_array_get_idx(pt, 0)) : 0;
			double v =
			    pt ? json_object_get_double(json_object_array_get_idx(pt, 1)) : 0;
			if (i == 0) {
				time_t sec = (time_t)tv;
				struct tm tm;
				gmtime_r(&sec, &tm);
				strftime(cells[0], sizeof(cells[0]), "%H:%M:%S", &tm);
			} else
				fmt_decimal(v, 1, cells[i], sizeof(cells[i]));
			row[i] = cells[i];
		}
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
	/* A window shorter than two steps comes as its two edges, each the rate over all of
	 * it (PROTOCOL.md): two rows that would read like two seconds. */
	from = json_get_double(result, "from", NAN);
	to = json_get_double(result, "to", NAN);
	step = json_get_double(result, "step", NAN);
	if (np == 2 && to > from && fabs(step - (to - from)) < 1e-3)
		fprintf(fp,
		        "(both rows are the rate over the whole window, %.3f s: it is shorter than "
		        "two steps)\n",
		        step);
}

/* The clock time of an RFC 3339 time: "2026-11-30T12:00:31.123Z" -> "12:00:31". */
static const char *
trend_clock(json_object *o, const char *key, char *buf, size_t size)
{
	const char *s = json_get_string(o, key, "?");

	if (strlen(s) >= 19 && s[10] == 'T')
		snprintf(buf, size, "%.8s", s + 11);
	else
		snprintf(buf, size, "%s", s);
	return buf;
}

/* A rate (or a gauge's level) for people: "5.01 Mpps", "1.20 MB/s", "3.40k drops/s". */
static const char *
trend_value(double v, const char *unit, bool level, char *buf, size_t size)
{
	char n[32], prefix[2] = "";
	size_t l;

	plot_fmt_si(v, n, sizeof(n));
	l = strlen(n);
	if (l > 1 && n[l - 1] >= 'A' && n[l - 1] <= 'z') {
		prefix[0] = n[l - 1];
		n[l - 1] = '\0';
	}
	if (level)
		snprintf(buf, size, "%s%s%s%s", n, prefix, *unit ? " " : "", unit);
	else if (strcmp(unit, "packets") == 0)
		snprintf(buf, size, "%s %spps", n, prefix);
	else if (strcmp(unit, "bytes") == 0)
		snprintf(buf, size, "%s %sB/s", n, prefix);
	else
		snprintf(buf, size, "%s%s%s%s/s", n, prefix, *unit ? " " : "", unit);
	return buf;
}

/* The movers table: counters that moved most at the onset. */
static void
trend_movers(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"SERIES", ">BEFORE/S", ">AFTER/S", ">CHANGE", NULL};
	json_object *arr = ctl_array(result, "movers");
	struct table t;
	char span[32], b[48], a[48], c[48];

	if (arr == NULL || json_object_array_length(arr) == 0)
		return;
	fmt_seconds(json_get_double(result, "movers_span_s", 0), span, sizeof(span));
	if (!opts->csv)
		fprintf(fp, "\ncounters that moved most at the onset (%s before vs %s after):\n",
		        span, span);
	table_init(&t, hdr);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *m = json_object_array_get_idx(arr, i);
		double before = json_get_double(m, "before_rate", 0);
		fmt_decimal(before, 1, b, sizeof(b));
		fmt_decimal(json_get_double(m, "after_rate", 0), 1, a, sizeof(a));
		if (before == 0)
			snprintf(c, sizeof(c), "new");
		else {
			double pct = json_get_double(m, "change", 0) * 100;
			c[0] = pct > 0 ? '+' : '\0';
			fmt_decimal(pct, 0, c + (pct > 0), sizeof(c) - 1);
			strcat(c, "%");
		}
		const char *row[] = {json_get_string(m, "series", ""), b, a, c};
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
}

/* trend: the plateau, the decay and the recovery in a sentence, then the movers. */
void
render_trend(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	const char *unit = json_get_string(result, "unit", "");
	const char *verdict = json_get_string(result, "verdict", "?");
	bool level = strcmp(json_get_string(result, "values", "rate"), "level") == 0;
	json_object *pl = NULL, *on = NULL, *dec = NULL, *rec = NULL;
	char t0[40], t1[40], v[48], step[32];
	int64_t decays = json_get_int(result, "decays", 0);

	if (opts->csv) {
		trend_movers(result, opts, fp);
		return;
	}
	json_object_object_get_ex(result, "plateau", &pl);
	json_object_object_get_ex(result, "onset", &on);
	json_object_object_get_ex(result, "decayed", &dec);
	json_object_object_get_ex(result, "recovery", &rec);
	fmt_seconds(json_get_double(result, "step", 0), step, sizeof(step));
	fprintf(
	    fp, "%s: %s from %s to %s, %lld points every %s%s\n",
	    json_get_string(result, "metric", "?"), level ? "level" : "rate",
	    trend_clock(result, "from", t0, sizeof(t0)), trend_clock(result, "to", t1, sizeof(t1)),
	    (long long)json_get_int(result, "points", 0), step,
	    json_get_bool(result, "clipped", false) ? " (the ring no longer holds the start)" : "");
	if (strcmp(verdict, "idle") == 0) {
		fprintf(fp, "no traffic\n");
		return;
	}
	if (strcmp(verdict, "too-short") == 0) {
		fprintf(fp,
		        "too short to tell: the plateau is taken from the first %gs of traffic\n",
		        json_get_double(result, "plateau_s", 0));
		return;
	}
	if (pl != NULL)
		fprintf(fp, "plateau %s from %s to %s",
		        trend_value(json_get_double(pl, "level", 0), unit, level, v, sizeof(v)),
		        trend_clock(pl, "start", t0, sizeof(t0)),
		        trend_clock(pl, "end", t1, sizeof(t1)));
	if (on == NULL) {
		fprintf(fp, "; steady (never below %.0f%% of it for %gs)\n",
		        json_get_double(result, "threshold", 0) * 100,
		        json_get_double(result, "sustain_s", 0));
		return;
	}
	fprintf(fp, "; decay at %s (%s, %.0f%% of plateau)",
	        trend_clock(on, "time", t0, sizeof(t0)),
	        trend_value(json_get_double(on, "level", 0), unit, level, v, sizeof(v)),
	        json_get_double(on, "fraction", 0) * 100);
	if (rec != NULL)
		fprintf(fp, "; recovered at %s (%s)", trend_clock(rec, "time", t0, sizeof(t0)),
		        trend_value(json_get_double(rec, "level", 0), unit, level, v, sizeof(v)));
	else
		fprintf(fp, "; not recovered by %s", trend_clock(result, "to", t0, sizeof(t0)));
	fprintf(fp, "\ndecayed level %s (%.0f%% of plateau) from %s to %s\n",
	        trend_value(json_get_double(dec, "level", 0), unit, level, v, sizeof(v)),
	        json_get_double(dec, "fraction", 0) * 100,
	        trend_clock(dec, "start", t0, sizeof(t0)), trend_clock(dec, "end", t1, sizeof(t1)));
	if (decays > 1)
		fprintf(fp, "%lld decays in all\n", (long long)decays);
	fprintf(fp, "verdict: %s\n", verdict);
	trend_movers(result, opts, fp);
}
