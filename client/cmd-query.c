/* cmd-query.c: renderers for the series commands: metrics, now, rates, series. */
#include <string.h>
#include <time.h>

#include "ctl.h"
#include "jsonutil.h"
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

/* "over the last 10.0s (from ... to ...)" header line. */
void
ctl_span_line(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	char span[32];

	if (opts->csv || !json_object_object_get_ex(result, "span_s", NULL))
		return;
	fmt_seconds(json_get_double(result, "span_s", 0), span, sizeof(span));
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
	struct table t;

	if (ns > TABLE_MAX_COLS - 1)
		ns = TABLE_MAX_COLS - 1;
	for (size_t i = 0; i < ns; i++) {
		json_object *m = json_object_array_get_idx(arr, i);
		json_object *pts = ctl_array(m, "points");
		/* Right-aligned: the '>' prefix lives in a static buffer per column. */
		static char names[TABLE_MAX_COLS][160];
		snprintf(names[i], sizeof(names[i]), ">%s/s", json_get_string(m, "name", "?"));
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
				if (opts->csv)
					snprintf(cells[0], sizeof(cells[0]), "%.3f", tv);
			} else
				fmt_decimal(v, 1, cells[i], sizeof(cells[i]));
			row[i] = cells[i];
		}
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
}
