/* plot.c: series --plot and --csv: braille line charts and sparklines fitted to the
 * terminal, and CSV rows for gnuplot or a spreadsheet. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "jsonutil.h"
#include "plot.h"
#include "xmalloc.h"

#define PLOT_ROWS      8   /* character rows of a braille chart: 32 dots high */
#define PLOT_MAX_WIDTH 400 /* columns drawn at most */
#define PLOT_MIN_WIDTH 20
#define PLOT_NARROW    60 /* auto: sparklines below this many columns */
#define PLOT_SPARK_MIN 16 /* blocks a one-line sparkline needs */

/* One series of the result, its points copied out. */
struct pseries {
	const char *name, *unit; /* borrowed from the result */
	size_t n;
	double *t, *v; /* owned */
};

int
plot_mode_parse(const char *s)
{
	if (s == NULL || *s == '\0')
		return PLOT_AUTO;
	if (strcmp(s, "braille") == 0)
		return PLOT_BRAILLE;
	if (strcmp(s, "spark") == 0)
		return PLOT_SPARK;
	return -1;
}

void
plot_fmt_si(double v, char *buf, size_t size)
{
	static const char *const prefix[] = {"", "k", "M", "G", "T", "P"};
	double a = fabs(v);
	int u = 0;

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return;
	}
	while (a >= 999.5 && u < 5) {
		a /= 1000;
		v /= 1000;
		u++;
	}
	if (a == 0)
		snprintf(buf, size, "0");
	else if (a >= 99.95)
		snprintf(buf, size, "%.0f%s", v, prefix[u]);
	else if (a >= 9.995)
		snprintf(buf, size, "%.1f%s", v, prefix[u]);
	else if (a >= 0.9995 || u > 0)
		snprintf(buf, size, "%.2f%s", v, prefix[u]);
	else
		snprintf(buf, size, "%.3g", v);
}

/* Copy the points of series m out of the result. */
static void
pseries_load(json_object *m, struct pseries *s)
{
	json_object *pts = NULL;

	memset(s, 0, sizeof(*s));
	s->name = json_get_string(m, "name", "?");
	s->unit = json_get_string(m, "unit", "");
	if (!json_object_object_get_ex(m, "points", &pts) ||
	    !json_object_is_type(pts, json_type_array))
		return;
	s->n = json_object_array_length(pts);
	s->t = xcalloc(s->n ? s->n : 1, sizeof(*s->t));
	s->v = xcalloc(s->n ? s->n : 1, sizeof(*s->v));
	for (size_t i = 0; i < s->n; i++) {
		json_object *p = json_object_array_get_idx(pts, i);
		s->t[i] = json_object_get_double(json_object_array_get_idx(p, 0));
		s->v[i] = json_object_get_double(json_object_array_get_idx(p, 1));
	}
}

static void
pseries_free(struct pseries *s)
{
	free(s->t);
	free(s->v);
}

/* The y range of a chart: from 0 (or the minimum when negative) to the maximum, so that a
 * rate at 36% of its plateau is drawn at 36% of the height; labelled in lo_s and hi_s (32
 * bytes each). A flat series is drawn at the bottom. */
static void
y_range(const struct pseries *s, double *lo, double *hi, char *lo_s, char *hi_s)
{
	*lo = 0;
	*hi = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i] < *lo)
			*lo = s->v[i];
		if (s->v[i] > *hi)
			*hi = s->v[i];
	}
	plot_fmt_si(*lo, lo_s, 32);
	plot_fmt_si(*hi, hi_s, 32);
	if (*hi <= *lo)
		*hi = *lo + 1;
}

/* Epoch seconds as HH:MM:SS UTC, as the series table shows them. */
static void
fmt_time(double t, char *buf, size_t size)
{
	time_t sec = (time_t)t;
	struct tm tm;

	gmtime_r(&sec, &tm);
	strftime(buf, size, "%H:%M:%S", &tm);
}

/* Columns of the terminal fp writes to: its window size, else $COLUMNS, else 80. */
static int
term_width(FILE *fp)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS");
	int w = 80;

	if (isatty(fileno(fp)) && ioctl(fileno(fp), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		w = ws.ws_col;
	else if (c != NULL && atoi(c) > 0)
		w = atoi(c);
	if (w < PLOT_MIN_WIDTH)
		w = PLOT_MIN_WIDTH;
	return w > PLOT_MAX_WIDTH ? PLOT_MAX_WIDTH : w;
}

/* Write a braille cell (U+2800 + dots) as UTF-8; a blank for no dots. */
static void
put_braille(uint8_t dots, FILE *fp)
{
	if (dots == 0) {
		fputc(' ', fp);
		return;
	}
	fputc(0xe2, fp);
	fputc(0xa0 | (dots >> 6), fp);
	fputc(0x80 | (dots & 0x3f), fp);
}

/* The dot row (0 at the bottom) of value v in [lo, hi] over h dots. */
static int
dot_row(double v, double lo, double hi, int h)
{
	int y = (int)lround((v - lo) / (hi - lo) * (h - 1));

	return y < 0 ? 0 : y >= h ? h - 1 : y;
}

/* Set the dot at column x, row y (from the bottom) of a cells[PLOT_ROWS][cols] canvas. */
static void
set_dot(uint8_t *cells, int cols, int x, int y)
{
	static const uint8_t left[4] = {0x01, 0x02, 0x04, 0x40},
	                     right[4] = {0x08, 0x10, 0x20, 0x80};
	int row = PLOT_ROWS - 1 - y / 4, sub = 3 - y % 4;

	cells[row * cols + x / 2] |= (x % 2 ? right : left)[sub];
}

/* A braille line chart of s, width columns wide in all. Each dot column shows the range of
 * the points that fall in it, joined to the column before. */
static void
draw_braille(const struct pseries *s, int width, FILE *fp)
{
	char hi_s[32], lo_s[32], t0[16], t1[16];
	double lo, hi;
	int lw, cols, w, h = PLOT_ROWS * 4, prev = -1;
	uint8_t *cells;

	y_range(s, &lo, &hi, lo_s, hi_s);
	lw = (int)(strlen(hi_s) > strlen(lo_s) ? strlen(hi_s) : strlen(lo_s));
	cols = width - lw - 3;
	if (cols < 8)
		cols = 8;
	w = cols * 2;
	cells = xcalloc((size_t)(PLOT_ROWS * cols), 1);
	for (int x = 0; x < w; x++) {
		size_t i0 = (size_t)x * s->n / (size_t)w, i1 = (size_t)(x + 1) * s->n / (size_t)w;
		int a = h, b = -1;
		if (i1 <= i0)
			i1 = i0 + 1;
		for (size_t i = i0; i < i1 && i < s->n; i++) {
			int y = dot_row(s->v[i], lo, hi, h);
			a = y < a ? y : a;
			b = y > b ? y : b;
		}
		if (b < 0)
			continue;
		if (prev >= 0) {
			a = prev < a ? prev : a;
			b = prev > b ? prev : b;
		}
		for (int y = a; y <= b; y++)
			set_dot(cells, cols, x, y);
		prev = dot_row(s->v[(i1 < s->n ? i1 : s->n) - 1], lo, hi, h);
	}
	if (*s->unit)
		fprintf(fp, "%s (%s/s)\n", s->name, s->unit);
	else
		fprintf(fp, "%s (per second)\n", s->name);
	for (int r = 0; r < PLOT_ROWS; r++) {
		const char *label = r == 0 ? hi_s : r == PLOT_ROWS - 1 ? lo_s : "";
		fprintf(fp, "%*s %s", lw, label, *label ? "\u2524" : "\u2502");
		for (int c = 0; c < cols; c++)
			put_braille(cells[r * cols + c], fp);
		fputc('\n', fp);
	}
	fprintf(fp, "%*s \u2514", lw, "");
	for (int c = 0; c < cols; c++)
		fputs("\u2500", fp);
	fmt_time(s->t[0], t0, sizeof(t0));
	fmt_time(s->t[s->n - 1], t1, sizeof(t1));
	fprintf(fp, "\n%*s  %s%*s\n", lw, "", t0, cols - (int)strlen(t0), t1);
	free(cells);
}

/* The blocks of a sparkline cols wide: each the mean of the points that fall in it. */
static void
put_blocks(const struct pseries *s, int cols, double lo, double hi, FILE *fp)
{
	static const char *const blocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
	                                     "\u2585", "\u2586", "\u2587", "\u2588"};

	if (cols < 8)
		cols = 8;
	if ((size_t)cols > s->n)
		cols = (int)s->n;
	for (int c = 0; c < cols; c++) {
		size_t i0 = (size_t)c * s->n / (size_t)cols,
		       i1 = (size_t)(c + 1) * s->n / (size_t)cols;
		double sum = 0;
		if (i1 <= i0)
			i1 = i0 + 1;
		for (size_t i = i0; i < i1; i++)
			sum += s->v[i];
		fputs(blocks[dot_row(sum / (double)(i1 - i0), lo, hi, 8)], fp);
	}
}

/* One sparkline: "NAME START ▁▂▅▇ END  LO..HI" on one line when it leaves room for
 * PLOT_SPARK_MIN blocks, else the name and range on a line and the times and blocks below. */
static void
draw_spark(const struct pseries *s, int namew, int width, FILE *fp)
{
	char hi_s[32], lo_s[32], t0[16], t1[16];
	double lo, hi;
	int fixed;

	y_range(s, &lo, &hi, lo_s, hi_s);
	fmt_time(s->t[0], t0, sizeof(t0));
	fmt_time(s->t[s->n - 1], t1, sizeof(t1));
	fixed = (int)(strlen(t0) + strlen(t1) + strlen(lo_s) + strlen(hi_s)) + 7;
	if (width - namew - fixed >= PLOT_SPARK_MIN) {
		fprintf(fp, "%-*s %s ", namew, s->name, t0);
		put_blocks(s, width - namew - fixed, lo, hi, fp);
		fprintf(fp, " %s  %s..%s\n", t1, lo_s, hi_s);
		return;
	}
	fprintf(fp, "%s  %s..%s\n  %s ", s->name, lo_s, hi_s, t0);
	put_blocks(s, width - (int)(strlen(t0) + strlen(t1)) - 4, lo, hi, fp);
	fprintf(fp, " %s\n", t1);
}

void
plot_series(json_object *result, enum plot_mode mode, FILE *fp)
{
	json_object *arr = NULL;
	size_t ns;
	int width = term_width(fp), namew = 0;

	if (!json_object_object_get_ex(result, "series", &arr) ||
	    !json_object_is_type(arr, json_type_array) || json_object_array_length(arr) == 0) {
		fprintf(fp, "(no series matched)\n");
		return;
	}
	ns = json_object_array_length(arr);
	if (mode == PLOT_AUTO)
		mode = width < PLOT_NARROW ? PLOT_SPARK : PLOT_BRAILLE;
	for (size_t i = 0; i < ns; i++) {
		int l = (int)strlen(json_get_string(json_object_array_get_idx(arr, i), "name", ""));
		namew = l > namew ? l : namew;
	}
	for (size_t i = 0; i < ns; i++) {
		struct pseries s;
		pseries_load(json_object_array_get_idx(arr, i), &s);
		if (s.n == 0)
			fprintf(fp, "%s: no points\n", s.name);
		else if (mode == PLOT_SPARK)
			draw_spark(&s, namew, width, fp);
		else {
			if (i > 0)
				fputc('\n', fp);
			draw_braille(&s, width, fp);
		}
		pseries_free(&s);
	}
}

/* One CSV field, quoted when it holds a comma, a quote or a line break. */
static void
csv_field(const char *s, FILE *fp)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

void
plot_csv(json_object *result, FILE *fp)
{
	json_object *arr = NULL;
	struct pseries *s;
	size_t ns = 0, np = 0;

	if (json_object_object_get_ex(result, "series", &arr) &&
	    json_object_is_type(arr, json_type_array))
		ns = json_object_array_length(arr);
	s = xcalloc(ns ? ns : 1, sizeof(*s));
	fputs("epoch_s", fp);
	for (size_t i = 0; i < ns; i++) {
		pseries_load(json_object_array_get_idx(arr, i), &s[i]);
		np = s[i].n > np ? s[i].n : np;
		fputc(',', fp);
		csv_field(s[i].name, fp);
	}
	fputc('\n', fp);
	/* Every series of one reply has a point at the same steps. */
	for (size_t p = 0; p < np; p++) {
		double t = 0;
		for (size_t i = 0; i < ns; i++)
			if (p < s[i].n) {
				t = s[i].t[p];
				break;
			}
		fprintf(fp, "%.3f", t);
		for (size_t i = 0; i < ns; i++) {
			if (p < s[i].n)
				fprintf(fp, ",%.10g", s[i].v[p]);
			else
				fputc(',', fp);
		}
		fputc('\n', fp);
	}
	for (size_t i = 0; i < ns; i++)
		pseries_free(&s[i]);
	free(s);
}
