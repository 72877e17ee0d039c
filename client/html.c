/* html.c: HTML pages and SVG charts of results, made from the daemon's JSON replies (html.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl.h"
#include "html.h"
#include "jsonutil.h"
#include "plot.h"
#include "utf8.h"
#include "xmalloc.h"

#define CHART_W   1000
#define CHART_H   260
#define MARGIN_L  70
#define MARGIN_R  20
#define MARGIN_T  30
#define MARGIN_B  30
#define MAX_LINES 12

static const char *const palette[MAX_LINES] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                               "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                               "#bcbd22", "#17becf", "#393b79", "#637939"};

void
html_escape(FILE *fp, const char *s)
{
	char *clean = conn_text_dup(s != NULL ? s : "");

	for (const char *p = clean; *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", fp);
			break;
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		case '\'':
			fputs("&#39;", fp);
			break;
		case '\n':
		case '\t':
			fputc(' ', fp);
			break;
		default:
			fputc(*p, fp);
		}
	}
	free(clean);
}

/* A number as an attribute or text: %.6g, "0" for NaN and infinities. */
static void
put_num(FILE *fp, double v)
{
	fprintf(fp, "%.6g", isfinite(v) ? v : 0);
}

/* Seconds since the epoch of an RFC 3339 UTC time ("2026-12-01T12:04:51.555Z"); NAN. */
static double
rfc3339_s(const char *s)
{
	struct tm tm = {0};
	const char *rest;
	double frac = 0;

	if (s == NULL || (rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL)
		return NAN;
	if (*rest == '.')
		frac = strtod(rest, NULL);
	return (double)timegm(&tm) + frac;
}

/* One line of a chart: points (t, v), t in seconds on the chart's axis. */
struct line {
	const char *name, *unit, *run;
	size_t n;
	double *t, *v;
};

/* A burst marked on a chart: from t for d seconds (the chart's axis), its peak rate. */
#define MAX_BURST_MARKS 10
struct burst_mark {
	double t, d, peak;
	const char *series, *run;
};

/* What the trend marks on its metric's chart (NAN: none), and the window's top bursts. */
struct marks {
	double plateau_start, plateau_end, plateau, onset, onset_level;
	const char *verdict;
	struct burst_mark b[MAX_BURST_MARKS];
	size_t nb;
};

static void
lines_free(struct line *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].t);
		free(l[i].v);
	}
}

/* The lines of a series reply, t made relative to t0 when rel (the compare's overlay). At
 * most max - *n lines are added; returns how many. */
static size_t
lines_from(json_object *result, const char *run, bool rel, struct line *l, size_t *n, size_t max)
{
	json_object *ser = ctl_array(result, "series");
	size_t added = 0;

	for (size_t i = 0; ser != NULL && i < json_object_array_length(ser) && *n < max; i++) {
		json_object *s = json_object_array_get_idx(ser, i), *pts = ctl_array(s, "points");
		size_t np = pts != NULL ? json_object_array_length(pts) : 0;
		struct line *o = &l[(*n)++];
		double t0 = 0;

		memset(o, 0, sizeof(*o));
		o->name = json_get_string(s, "name", "");
		o->unit = json_get_string(s, "unit", "");
		o->run = run;
		o->t = xcalloc(np ? np : 1, sizeof(double));
		o->v = xcalloc(np ? np : 1, sizeof(double));
		for (size_t k = 0; k < np; k++) {
			json_object *p = json_object_array_get_idx(pts, k);
			double t = json_object_get_double(json_object_array_get_idx(p, 0));
			if (k == 0 && rel)
				t0 = t;
			o->t[o->n] = t - t0;
			o->v[o->n++] = json_object_get_double(json_object_array_get_idx(p, 1));
		}
		added++;
	}
	return added;
}

/* A line chart: every line, the y axis from 0 (or the lowest value) to the highest, the
 * trend's plateau as a band and its onset as a rule. Each polyline carries data-series,
 * data-run, data-points, data-mean and data-max; the legend says the same in text. */
static void
svg_chart(FILE *fp, const char *id, const char *title, const struct line *l, size_t n,
          const struct marks *m, bool rel)
{
	double tmin = INFINITY, tmax = -INFINITY, vmin = 0, vmax = 0;
	const double pw = CHART_W - MARGIN_L - MARGIN_R, ph = CHART_H - MARGIN_T - MARGIN_B;
	char buf[32];

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < l[i].n; k++) {
			tmin = fmin(tmin, l[i].t[k]);
			tmax = fmax(tmax, l[i].t[k]);
			vmin = fmin(vmin, l[i].v[k]);
			vmax = fmax(vmax, l[i].v[k]);
		}
	/* The bursts are in the window, whose edges the points may not reach (a step's). */
	for (size_t i = 0; m != NULL && n > 0 && i < m->nb; i++) {
		tmin = fmin(tmin, m->b[i].t);
		tmax = fmax(tmax, m->b[i].t + m->b[i].d);
	}
	if (!(tmax > tmin)) {
		tmin = 0;
		tmax = 1;
	}
	if (!(vmax > vmin))
		vmax = vmin + 1;
#define X(t) (MARGIN_L + ((t)-tmin) / (tmax - tmin) * pw)
#define Y(v) (MARGIN_T + ph - ((v)-vmin) / (vmax - vmin) * ph)
	fprintf(fp,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" "
	        "height=\"%d\" viewBox=\"0 0 %d %d\" data-chart=\"",
	        CHART_W, CHART_H + 16 * (int)n, CHART_W, CHART_H + 16 * (int)n);
	html_escape(fp, id);
	fputs("\" data-max=\"", fp);
	put_num(fp, vmax);
	fputs("\">\n<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", fp);
	fputs("<text x=\"10\" y=\"18\" class=\"title\">", fp);
	html_escape(fp, title);
	fputs("</text>\n", fp);
	if (m != NULL && isfinite(m->plateau_start) && isfinite(m->plateau_end)) {
		/* The plateau starts where its first interval does: maybe before the first point.
		 */
		double ps = fmax(m->plateau_start, tmin), pe = fmin(fmax(m->plateau_end, ps), tmax);
		fprintf(
		    fp,
		    "<rect class=\"plateau\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.0f\" "
		    "fill=\"#2ca02c\" fill-opacity=\"0.12\" data-level=\"",
		    X(ps), MARGIN_T, X(pe) - X(ps), ph);
		put_num(fp, m->plateau);
		fputs("\"/>\n", fp);
		fprintf(fp, "<text x=\"%.1f\" y=\"%d\" class=\"mark\">plateau ", X(ps) + 4,
		        MARGIN_T + 12);
		plot_fmt_si(m->plateau, buf, sizeof(buf));
		fprintf(fp, "%s</text>\n", buf);
	}
	if (m != NULL && isfinite(m->onset)) {
		fprintf(fp,
		        "<line class=\"onset\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.0f\" "
		        "stroke=\"#d62728\" stroke-dasharray=\"4 3\" data-level=\"",
		        X(m->onset), X(m->onset), MARGIN_T, MARGIN_T + ph);
		put_num(fp, m->onset_level);
		fputs("\"/>\n", fp);
		fprintf(fp, "<text x=\"%.1f\" y=\"%d\" class=\"mark\">onset (", X(m->onset) + 4,
		        MARGIN_T + 26);
		html_escape(fp, m->verdict);
		fputs(")</text>\n", fp);
	}
	for (size_t i = 0; m != NULL && i < m->nb; i++) {
		const struct burst_mark *b = &m->b[i];
		double bs = fmax(b->t, tmin), be = fmin(b->t + b->d, tmax);
		/* A burst of 20 ms on a chart of seconds: at least 2 px, so it shows. */
		fprintf(fp,
		        "<rect class=\"burst\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
		        "height=\"%.0f\" fill=\"#ff7f0e\" fill-opacity=\"0.45\" data-series=\"",
		        X(bs), MARGIN_T, fmax(X(be) - X(bs), 2.0), ph);
		html_escape(fp, b->series);
		if (b->run != NULL) {
			fputs("\" data-run=\"", fp);
			html_escape(fp, b->run);
		}
		/* Epoch seconds need their milliseconds: not put_num's 6 digits. */
		fprintf(fp, "\" data-start=\"%.3f\" data-duration=\"%.6f", b->t, b->d);
		fputs("\" data-peak=\"", fp);
		put_num(fp, b->peak);
		fputs("\"><title>burst: ", fp);
		if (b->run != NULL) {
			html_escape(fp, b->run);
			fputs(": ", fp);
		}
		html_escape(fp, b->series);
		plot_fmt_si(b->peak, buf, sizeof(buf));
		fprintf(fp, " peaked at %s/s for %.0f ms</title></rect>\n", buf, b->d * 1000);
	}
	if (m != NULL && m->nb > 0)
		fprintf(fp,
		        "<text x=\"%.0f\" y=\"%d\" class=\"mark\" text-anchor=\"end\">"
		        "bursts: the window's top %zu (orange)</text>\n",
		        MARGIN_L + pw, MARGIN_T + 12, m->nb);
	/* Axes: the range of values, and of time. */
	fprintf(fp,
	        "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%.0f\" stroke=\"#888\"/>"
	        "<line x1=\"%d\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/>\n",
	        MARGIN_L, MARGIN_L, MARGIN_T, MARGIN_T + ph, MARGIN_L, MARGIN_L + pw, MARGIN_T + ph,
	        MARGIN_T + ph);
	plot_fmt_si(vmax, buf, sizeof(buf));
	fprintf(fp, "<text x=\"4\" y=\"%d\" class=\"axis\">%s</text>\n", MARGIN_T + 4, buf);
	plot_fmt_si(vmin, buf, sizeof(buf));
	fprintf(fp, "<text x=\"4\" y=\"%.0f\" class=\"axis\">%s</text>\n", MARGIN_T + ph, buf);
	fprintf(fp, "<text x=\"%d\" y=\"%.0f\" class=\"axis\">%s%.0f s</text>\n", MARGIN_L,
	        MARGIN_T + ph + 16, rel ? "+" : "", rel ? tmin : 0.0);
	fprintf(fp,
	        "<text x=\"%.0f\" y=\"%.0f\" class=\"axis\" text-anchor=\"end\">+%.0f s</text>\n",
	        MARGIN_L + pw, MARGIN_T + ph + 16, tmax - tmin);
	for (size_t i = 0; i < n; i++) {
		double sum = 0, mx = -INFINITY;

		if (l[i].n < 2) {
			/* No line to draw (a span shorter than its step): said, not drawn as 0. */
			fprintf(fp,
			        "<text x=\"%d\" y=\"%d\" class=\"legend\" fill=\"%s\" "
			        "data-too-short=\"true\" data-series=\"",
			        MARGIN_L, CHART_H + 12 + 16 * (int)i, palette[i % MAX_LINES]);
			html_escape(fp, l[i].name);
			fprintf(fp, "\" data-points=\"%zu\">", l[i].n);
			if (l[i].run != NULL) {
				html_escape(fp, l[i].run);
				fputs(": ", fp);
			}
			html_escape(fp, l[i].name);
			fprintf(fp, " too short to draw (%zu point%s)</text>\n", l[i].n,
			        l[i].n == 1 ? "" : "s");
			continue;
		}
		for (size_t k = 0; k < l[i].n; k++) {
			sum += l[i].v[k];
			mx = fmax(mx, l[i].v[k]);
		}
		fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s",
		        palette[i % MAX_LINES],
		        l[i].run != NULL && i % 2 ? " stroke-dasharray=\"5 2\"" : "");
		fputs(" data-series=\"", fp);
		html_escape(fp, l[i].name);
		if (l[i].run != NULL) {
			fputs("\" data-run=\"", fp);
			html_escape(fp, l[i].run);
		}
		fprintf(fp, "\" data-points=\"%zu\" data-mean=\"", l[i].n);
		put_num(fp, l[i].n ? sum / (double)l[i].n : 0);
		fputs("\" data-max=\"", fp);
		put_num(fp, l[i].n ? mx : 0);
		fputs("\" points=\"", fp);
		for (size_t k = 0; k < l[i].n; k++)
			fprintf(fp, "%s%.1f,%.1f", k ? " " : "", X(l[i].t[k]), Y(l[i].v[k]));
		fputs("\"/>\n", fp);
		plot_fmt_si(l[i].n ? sum / (double)l[i].n : 0, buf, sizeof(buf));
		fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"legend\" fill=\"%s\">", MARGIN_L,
		        CHART_H + 12 + 16 * (int)i, palette[i % MAX_LINES]);
		if (l[i].run != NULL) {
			html_escape(fp, l[i].run);
			fputs(": ", fp);
		}
		html_escape(fp, l[i].name);
		fprintf(fp, " mean %s ", buf);
		html_escape(fp, l[i].unit);
		fputs("/s</text>\n", fp);
	}
	fputs("</svg>\n", fp);
#undef X
#undef Y
}

/* A heatmap: rows (CPUs) x columns, each cell's colour its share of the largest, its
 * value in data-value and a tooltip. */
static void
svg_heatmap(FILE *fp, const char *id, const char *title, const char *const *rows, size_t nr,
            const char *const *cols, size_t nc, const double *v)
{
	double mx = 0;
	int cw = 90, rh = 18, left = 80, top = 50;

	for (size_t i = 0; i < nr * nc; i++)
		mx = fmax(mx, v[i]);
	fprintf(fp,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"heatmap\" width=\"%zu\" "
	        "height=\"%zu\" data-chart=\"",
	        left + cw * nc + 20, top + rh * nr + 10);
	html_escape(fp, id);
	fputs("\">\n<text x=\"4\" y=\"16\" class=\"title\">", fp);
	html_escape(fp, title);
	fputs("</text>\n", fp);
	for (size_t c = 0; c < nc; c++) {
		fprintf(fp, "<text x=\"%zu\" y=\"%d\" class=\"axis\">", left + cw * c + 2, top - 6);
		html_escape(fp, cols[c]);
		fputs("</text>\n", fp);
	}
	for (size_t r = 0; r < nr; r++) {
		fprintf(fp, "<text x=\"4\" y=\"%zu\" class=\"axis\">", top + rh * r + 13);
		html_escape(fp, rows[r]);
		fputs("</text>\n", fp);
		for (size_t c = 0; c < nc; c++) {
			double x = v[r * nc + c], f = mx > 0 ? x / mx : 0;
			char buf[32];
			fprintf(fp,
			        "<rect x=\"%zu\" y=\"%zu\" width=\"%d\" height=\"%d\" "
			        "fill=\"rgb(%d,%d,255)\" data-row=\"",
			        left + cw * c, top + rh * r, cw - 2, rh - 2, (int)(255 - 200 * f),
			        (int)(255 - 160 * f));
			html_escape(fp, rows[r]);
			fputs("\" data-col=\"", fp);
			html_escape(fp, cols[c]);
			fputs("\" data-value=\"", fp);
			put_num(fp, x);
			fputs("\"><title>", fp);
			plot_fmt_si(x, buf, sizeof(buf));
			html_escape(fp, rows[r]);
			fputs(" ", fp);
			html_escape(fp, cols[c]);
			fprintf(fp, ": %s/s</title></rect>\n", buf);
		}
	}
	fputs("</svg>\n", fp);
}

/* A call whose refusal is a note on the page, not an error: the result, or NULL with the
 * daemon's message in note. */
static json_object *
quiet_call(const struct ctl_opts *opts, const char *cmd, json_object *args, char *note, size_t size)
{
	struct proto_reply rep;
	struct conn c;
	json_object *r = NULL;

	snprintf(note, size, "no reply");
	if (conn_open(&c, opts->socket) < 0) {
		json_object_put(args);
		return NULL;
	}
	if (conn_call(&c, cmd, args, &rep) == 0) {
		if (rep.ok)
			r = json_object_get(rep.result);
		else
			snprintf(note, size, "%s", rep.message != NULL ? rep.message : "refused");
		proto_reply_free(&rep);
	}
	conn_close(&c);
	json_object_put(args);
	return r;
}

/* {"window": name} with k=v string members after it (NULL-terminated pairs). */
static json_object *
win_args(const char *name, const char *k, const char *v)
{
	json_object *a = json_object_new_object();

	json_add_string(a, "window", name);
	if (k != NULL)
		json_add_string(a, k, v);
	return a;
}

static const char css[] =
    "body{font-family:sans-serif;margin:20px;color:#222}h1{font-size:22px}h2{font-size:17px;"
    "margin-top:28px}.figs{display:flex;flex-wrap:wrap;gap:10px}.fig{border:1px solid #ccc;"
    "border-radius:4px;padding:6px 10px;min-width:150px}.fig .v{font-size:20px;font-weight:"
    "bold}.fig .k{font-size:12px;color:#555}.note{color:#a60;font-size:13px}svg text{font-"
    "size:12px;font-family:sans-serif}svg .title{font-weight:bold;font-size:13px}table{border-"
    "collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 8px;text-align:"
    "right}td:first-child,th:first-child{text-align:left}.better{color:#176b17}.worse{color:"
    "#a51d1d}";

static void
page_head(FILE *fp, const char *title)
{
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", fp);
	html_escape(fp, title);
	fprintf(fp, "</title><style>%s</style></head><body>\n<h1>", css);
	html_escape(fp, title);
	fputs("</h1>\n", fp);
}

/* One headline figure: data-figure and data-value carry it. */
static void
figure(FILE *fp, const char *key, double v, const char *unit)
{
	char buf[32];

	plot_fmt_si(v, buf, sizeof(buf));
	fputs("<div class=\"fig\" data-figure=\"", fp);
	html_escape(fp, key);
	fputs("\" data-value=\"", fp);
	put_num(fp, v);
	fprintf(fp, "\"><div class=\"v\">%s ", buf);
	html_escape(fp, unit);
	fputs("</div><div class=\"k\">", fp);
	html_escape(fp, key);
	fputs("</div></div>\n", fp);
}

/* The figure at a dotted path of o ("figures.cpu.all.busy"); NAN when absent. */
static double
path_num(json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k != NULL && o != NULL;
	     k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, k, &o))
			return NAN;
	if (o == NULL ||
	    (!json_object_is_type(o, json_type_double) && !json_object_is_type(o, json_type_int)))
		return NAN;
	return json_object_get_double(o);
}

/* The busiest device of a report (most packets/s), NULL when none. */
static const char *
busiest_device(json_object *rep)
{
	json_object *devs = NULL, *fig = NULL;
	const char *best = NULL;
	double most = -1;

	json_object_object_get_ex(rep, "figures", &fig);
	if ((devs = ctl_array(fig, "devices")) == NULL)
		return NULL;
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i);
		double p = path_num(d, "rx_packets_per_s") + path_num(d, "tx_packets_per_s");
		if (isfinite(p) && p > most) {
			most = p;
			best = json_get_string(d, "name", NULL);
		}
	}
	return best;
}

/* The headline: the benchmark's own figures, then CPU, the busiest device, softirqs, IPIs. */
static void
headline(FILE *fp, json_object *rep)
{
	static const struct {
		const char *path, *unit;
	} keys[] = {{"figures.cpu.all.busy", "%"},
	            {"figures.softirqs.net_rx_per_s", "/s"},
	            {"figures.softirqs.net_tx_per_s", "/s"},
	            {"figures.interrupts.ipi_all_per_s", "/s"},
	            {"figures.tcp.retrans_segs_per_s", "/s"},
	            {"figures.udp.out_datagrams_per_s", "/s"},
	            {"figures.udp.in_datagrams_per_s", "/s"}};
	json_object *test = NULL, *tf = NULL, *fig = NULL, *devs;
	const char *dev = busiest_device(rep);
	char key[300];

	fputs("<h2>Headline figures</h2>\n<div class=\"figs\">\n", fp);
	if (json_object_object_get_ex(rep, "test", &test) &&
	    json_object_object_get_ex(test, "figures", &tf) && tf != NULL) {
		json_object_object_foreach(tf, k, v)
		{
			if (v == NULL || (!json_object_is_type(v, json_type_double) &&
			                  !json_object_is_type(v, json_type_int)))
				continue;
			snprintf(key, sizeof(key), "test.%s", k);
			figure(fp, key, json_object_get_double(v), "");
		}
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		double v = path_num(rep, keys[i].path);
		if (isfinite(v))
			figure(fp, keys[i].path + 8, v, keys[i].unit);
	}
	json_object_object_get_ex(rep, "figures", &fig);
	if (dev != NULL && (devs = ctl_array(fig, "devices")) != NULL)
		for (size_t i = 0; i < json_object_array_length(devs); i++) {
			json_object *d = json_object_array_get_idx(devs, i);
			if (strcmp(json_get_string(d, "name", ""), dev) != 0)
				continue;
			snprintf(key, sizeof(key), "%s rx packets/s", dev);
			figure(fp, key, path_num(d, "rx_packets_per_s"), "/s");
			snprintf(key, sizeof(key), "%s tx packets/s", dev);
			figure(fp, key, path_num(d, "tx_packets_per_s"), "/s");
			snprintf(key, sizeof(key), "%s tx bytes/s", dev);
			figure(fp, key, path_num(d, "tx_bytes_per_s"), "B/s");
		}
	fputs("</div>\n", fp);
}

/* Packets per queue as bars, each coloured by the CPU set its IRQ's CPUs are in, then each
 * set's sum. */
static void
queue_bars(FILE *fp, json_object *rep)
{
	json_object *fig = NULL, *q = NULL, *devs, *sets;
	size_t nbars = 0;

	json_object_object_get_ex(rep, "figures", &fig);
	json_object_object_get_ex(fig, "queues", &q);
	devs = ctl_array(q, "devices");
	sets = ctl_array(q, "cpusets");
	fputs("<h2>Packets per queue</h2>\n", fp);
	for (size_t i = 0; devs != NULL && i < json_object_array_length(devs); i++) {
		json_object *qs = ctl_array(json_object_array_get_idx(devs, i), "queues");
		nbars += qs != NULL ? json_object_array_length(qs) : 0;
	}
	if (nbars == 0) {
		fputs("<p class=\"note\">No queue moved packets in this window (or the device "
		      "keeps no per-queue counters).</p>\n",
		      fp);
		return;
	}
	fprintf(fp,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bars\" data-chart=\"queues\" "
	        "width=\"%d\" height=\"%zu\">\n",
	        CHART_W, 30 + 18 * nbars + 18 * (sets ? json_object_array_length(sets) : 0));
	double mx = 0;
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		json_object *qs = ctl_array(json_object_array_get_idx(devs, i), "queues");
		for (size_t k = 0; qs != NULL && k < json_object_array_length(qs); k++) {
			json_object *e = json_object_array_get_idx(qs, k);
			mx = fmax(mx, path_num(e, "rx_pps") + path_num(e, "tx_pps"));
		}
	}
	size_t row = 0;
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i), *qs = ctl_array(d, "queues");
		for (size_t k = 0; qs != NULL && k < json_object_array_length(qs); k++, row++) {
			json_object *e = json_object_array_get_idx(qs, k);
			double v = path_num(e, "rx_pps") + path_num(e, "tx_pps");
			const char *irqc = json_get_string(e, "irq_cpus", "");
			char buf[32];
			plot_fmt_si(v, buf, sizeof(buf));
			fprintf(fp, "<text x=\"4\" y=\"%zu\">", 30 + 18 * row + 12);
			html_escape(fp, json_get_string(d, "name", ""));
			fprintf(fp, " q%d</text>", (int)json_get_int(e, "queue", -1));
			fprintf(
			    fp,
			    "<rect x=\"160\" y=\"%zu\" height=\"14\" width=\"%.1f\" fill=\"%s\" "
			    "data-device=\"",
			    30 + 18 * row, mx > 0 ? v / mx * 600 : 0, palette[row % 2 ? 0 : 3]);
			html_escape(fp, json_get_string(d, "name", ""));
			fprintf(fp, "\" data-queue=\"%d\" data-pps=\"",
			        (int)json_get_int(e, "queue", -1));
			put_num(fp, v);
			fputs("\" data-irq-cpus=\"", fp);
			html_escape(fp, irqc);
			fprintf(fp, "\"/><text x=\"770\" y=\"%zu\">%s packets/s, IRQ on CPUs ",
			        30 + 18 * row + 12, buf);
			html_escape(fp, irqc);
			fputs("</text>\n", fp);
		}
	}
	for (size_t s = 0; sets != NULL && s < json_object_array_length(sets); s++, row++) {
		json_object *so = json_object_array_get_idx(sets, s), *bi = NULL;
		double v;
		char buf[32];
		json_object_object_get_ex(so, "by_irq_cpu", &bi);
		v = path_num(bi, "rx_pps") + path_num(bi, "tx_pps");
		plot_fmt_si(v, buf, sizeof(buf));
		fprintf(fp, "<text x=\"4\" y=\"%zu\" data-cpuset=\"", 30 + 18 * row + 12);
		html_escape(fp, json_get_string(so, "name", ""));
		fputs("\" data-pps=\"", fp);
		put_num(fp, v);
		fputs("\">CPU set ", fp);
		html_escape(fp, json_get_string(so, "name", ""));
		fputs(" (", fp);
		html_escape(fp, json_get_string(so, "cpus", ""));
		fprintf(fp, "): %s packets/s on its queues</text>\n", buf);
	}
	fputs("</svg>\n", fp);
}

/* The CPU x softirq heatmap from a softirqs reply; else the report's per-CPU NET_RX and
 * NET_TX. */
static void
softirq_heatmap(FILE *fp, json_object *sr, json_object *rep, const char *note)
{
	json_object *types = ctl_array(sr, "types"), *cpus = ctl_array(sr, "cpus");
	size_t nc, nr;
	const char **cols, **rows;
	char(*rowbuf)[16];
	double *v;

	fputs("<h2>Softirqs per CPU</h2>\n", fp);
	if (types == NULL || cpus == NULL) {
		json_object *fig = NULL, *si = NULL;
		static const char *const two[] = {"net_rx", "net_tx"};
		json_object_object_get_ex(rep, "figures", &fig);
		json_object_object_get_ex(fig, "softirqs", &si);
		cpus = ctl_array(si, "per_cpu");
		fputs("<p class=\"note\">From the result's figures (the span is no longer in the "
		      "ring: ",
		      fp);
		html_escape(fp, note);
		fputs(").</p>\n", fp);
		nr = cpus ? json_object_array_length(cpus) : 0;
		rows = xcalloc(nr + 1, sizeof(*rows));
		rowbuf = xcalloc(nr + 1, sizeof(*rowbuf));
		v = xcalloc(2 * nr + 1, sizeof(double));
		for (size_t r = 0; r < nr; r++) {
			json_object *c = json_object_array_get_idx(cpus, r);
			snprintf(rowbuf[r], sizeof(rowbuf[r]), "CPU %d",
			         (int)json_get_int(c, "cpu", -1));
			rows[r] = rowbuf[r];
			v[2 * r] = path_num(c, "net_rx_per_s");
			v[2 * r + 1] = path_num(c, "net_tx_per_s");
		}
		svg_heatmap(fp, "softirqs", "CPU x softirq (per second)", rows, nr, two, 2, v);
		free(rows);
		free(rowbuf);
		free(v);
		return;
	}
	nc = json_object_array_length(types);
	nr = json_object_array_length(cpus);
	cols = xcalloc(nc + 1, sizeof(*cols));
	rows = xcalloc(nr + 1, sizeof(*rows));
	rowbuf = xcalloc(nr + 1, sizeof(*rowbuf));
	v = xcalloc(nr * nc + 1, sizeof(double));
	for (size_t c = 0; c < nc; c++)
		cols[c] = json_object_get_string(json_object_array_get_idx(types, c));
	for (size_t r = 0; r < nr; r++) {
		json_object *co = json_object_array_get_idx(cpus, r), *rates = NULL;
		snprintf(rowbuf[r], sizeof(rowbuf[r]), "CPU %d", (int)json_get_int(co, "cpu", -1));
		rows[r] = rowbuf[r];
		json_object_object_get_ex(co, "rates", &rates);
		for (size_t c = 0; c < nc; c++)
			v[r * nc + c] = json_get_double(rates, cols[c], 0);
	}
	svg_heatmap(fp, "softirqs", "CPU x softirq (per second)", rows, nr, cols, nc, v);
	free(cols);
	free(rows);
	free(rowbuf);
	free(v);
}

/* The CPU x IRQ heatmap from an interrupts reply (the IRQs that fired). */
static void
irq_heatmap(FILE *fp, json_object *ir, const char *note)
{
	json_object *irqs = ctl_array(ir, "irqs");
	size_t nc = 0, nr = 0, ncpu = 0;
	const char **cols, **rows;
	char(*colbuf)[64], (*rowbuf)[16];
	double *v;

	fputs("<h2>Interrupts per CPU</h2>\n", fp);
	if (irqs == NULL) {
		fputs("<p class=\"note\">Not drawn: ", fp);
		html_escape(fp, note);
		fputs("</p>\n", fp);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(irqs) && nc < 24; i++) {
		json_object *cpus = NULL;
		json_object_object_get_ex(json_object_array_get_idx(irqs, i), "cpus", &cpus);
		json_object_object_foreach(cpus, k, val)
		{
			(void)val;
			ncpu = fmax(ncpu, (size_t)atoi(k) + 1);
		}
		nc++;
	}
	nr = ncpu > 256 ? 256 : ncpu;
	cols = xcalloc(nc + 1, sizeof(*cols));
	colbuf = xcalloc(nc + 1, sizeof(*colbuf));
	rows = xcalloc(nr + 1, sizeof(*rows));
	rowbuf = xcalloc(nr + 1, sizeof(*rowbuf));
	v = xcalloc(nr * nc + 1, sizeof(double));
	for (size_t r = 0; r < nr; r++) {
		snprintf(rowbuf[r], sizeof(rowbuf[r]), "CPU %zu", r);
		rows[r] = rowbuf[r];
	}
	for (size_t c = 0; c < nc; c++) {
		json_object *e = json_object_array_get_idx(irqs, c), *cpus = NULL;
		const char *dev = json_get_string(e, "device", NULL);
		snprintf(colbuf[c], sizeof(colbuf[c]), "%s%s%.40s", json_get_string(e, "irq", "?"),
		         dev != NULL && *dev ? " " : "", dev != NULL ? dev : "");
		cols[c] = colbuf[c];
		json_object_object_get_ex(e, "cpus", &cpus);
		json_object_object_foreach(cpus, k, val)
		{
			size_t r = (size_t)atoi(k);
			if (r < nr)
				v[r * nc + c] = json_object_get_double(val);
		}
	}
	svg_heatmap(fp, "irqs", "CPU x IRQ (per second)", rows, nr, cols, nc, v);
	free(cols);
	free(colbuf);
	free(rows);
	free(rowbuf);
	free(v);
}

/* No marks yet. */
static void
marks_init(struct marks *m)
{
	memset(m, 0, sizeof(*m));
	m->plateau_start = m->plateau_end = m->onset = NAN;
	m->verdict = "";
}

/* The top bursts of a report (its "bursts": bursts.h) as marks of run (NULL: the only
 * one), times in epoch seconds less rel0. Added after those m has, up to MAX_BURST_MARKS. */
static void
burst_marks(json_object *rep, const char *run, double rel0, struct marks *m)
{
	json_object *b = NULL, *top;

	if (rep == NULL || !json_object_object_get_ex(rep, "bursts", &b) || b == NULL ||
	    (top = ctl_array(b, "top")) == NULL)
		return;
	for (size_t i = 0; i < json_object_array_length(top) && m->nb < MAX_BURST_MARKS; i++) {
		json_object *e = json_object_array_get_idx(top, i);
		double t = rfc3339_s(json_get_string(e, "start", NULL));
		if (!isfinite(t))
			continue;
		m->b[m->nb++] = (struct burst_mark){.t = t - rel0,
		                                    .d = json_get_double(e, "duration_s", 0),
		                                    .peak = json_get_double(e, "peak", 0),
		                                    .series = json_get_string(e, "series", ""),
		                                    .run = run};
	}
}

/* The time of the first point of a series reply (epoch s; NAN when none): what lines_from
 * makes 0 on a chart of times from each run's start. */
static double
first_point_t(json_object *sr)
{
	json_object *ser = ctl_array(sr, "series"), *pts;

	if (ser == NULL || json_object_array_length(ser) == 0 ||
	    (pts = ctl_array(json_object_array_get_idx(ser, 0), "points")) == NULL ||
	    json_object_array_length(pts) == 0)
		return NAN;
	return json_object_get_double(
	    json_object_array_get_idx(json_object_array_get_idx(pts, 0), 0));
}

/* The trend's marks, times in epoch seconds (or from the window's start when rel0 set). */
static void
trend_marks(json_object *tr, double rel0, struct marks *m)
{
	json_object *pl = NULL, *on = NULL;

	m->plateau_start = m->plateau_end = m->onset = NAN;
	m->plateau = m->onset_level = 0;
	m->verdict = json_get_string(tr, "verdict", "");
	if (json_object_object_get_ex(tr, "plateau", &pl) && pl != NULL) {
		m->plateau_start = rfc3339_s(json_get_string(pl, "start", NULL)) - rel0;
		m->plateau_end = rfc3339_s(json_get_string(pl, "end", NULL)) - rel0;
		m->plateau = json_get_double(pl, "level", 0);
	}
	if (json_object_object_get_ex(tr, "onset", &on) && on != NULL) {
		m->onset = rfc3339_s(json_get_string(on, "time", NULL)) - rel0;
		m->onset_level = json_get_double(on, "level", 0);
	}
}

/* A test's own figures over time (its stored series "test.*": netperf's interim
 * throughput or transactions, the sum first, then each process), when it has them. */
static void
test_figures(FILE *fp, const struct ctl_opts *opts, const char *name)
{
	struct line l[MAX_LINES] = {{0}};
	json_object *sr;
	char note[512];
	size_t n = 0;

	if ((sr = quiet_call(opts, "series", win_args(name, "glob", "test.*"), note,
	                     sizeof(note))) == NULL)
		return;
	lines_from(sr, NULL, false, l, &n, MAX_LINES);
	if (n > 0)
		svg_chart(fp, "test", "the benchmark's own figures over time (per second)", l, n,
		          NULL, false);
	lines_free(l, n);
	json_object_put(sr);
}

/* The window's time series: the busiest device's packets (with the trend marked on the
 * trend's metric), the test's own figures, and CPU time by mode. */
static void
time_series(FILE *fp, const struct ctl_opts *opts, const char *name, json_object *rep)
{
	const char *dev = busiest_device(rep);
	json_object *tr = NULL, *t = NULL, *sr;
	struct line l[MAX_LINES] = {{0}};
	char glob[300], note[512], title[400];
	struct marks m;
	size_t n = 0;

	fputs("<h2>Time series</h2>\n", fp);
	json_object_object_get_ex(rep, "trend", &t);
	snprintf(glob, sizeof(glob), "%s",
	         t != NULL ? json_get_string(t, "metric", "")
	                   : (dev != NULL ? "" : "link.*.tx_packets"));
	if (t == NULL && dev != NULL)
		snprintf(glob, sizeof(glob), "link.%s.*_packets", dev);
	if ((sr = quiet_call(opts, "series", win_args(name, "glob", glob), note, sizeof(note))) ==
	    NULL) {
		fputs("<p class=\"note\">No series: ", fp);
		html_escape(fp, note);
		fputs("</p>\n", fp);
		return;
	}
	lines_from(sr, NULL, false, l, &n, MAX_LINES);
	if (t != NULL) {
		json_object *a = win_args(name, "metric", json_get_string(t, "metric", ""));
		tr = quiet_call(opts, "trend", a, note, sizeof(note));
	}
	marks_init(&m);
	if (tr != NULL)
		trend_marks(tr, 0, &m);
	burst_marks(rep, NULL, 0, &m);
	snprintf(title, sizeof(title), "%s per second%s%s", glob, tr ? ", trend: " : "",
	         tr ? json_get_string(tr, "verdict", "") : "");
	svg_chart(fp, "rates", title, l, n, tr != NULL || m.nb > 0 ? &m : NULL, false);
	lines_free(l, n);
	json_object_put(sr);
	json_object_put(tr);
	test_figures(fp, opts, name);
	n = 0;
	if ((sr = quiet_call(opts, "series", win_args(name, "glob", "cpu.all.*"), note,
	                     sizeof(note))) != NULL) {
		lines_from(sr, NULL, false, l, &n, MAX_LINES);
		svg_chart(fp, "cpu", "CPU time by mode (CPUs busy)", l, n, NULL, false);
		lines_free(l, n);
		json_object_put(sr);
	}
}

/* Open path for writing; NULL after saying why. */
static FILE *
open_out(const char *path)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL)
		fprintf(stderr, "netmetricsctl: cannot write %s: %m\n", path);
	return fp;
}

static int
close_out(FILE *fp, const char *path)
{
	if (fclose(fp) != 0) {
		fprintf(stderr, "netmetricsctl: cannot write %s: %m\n", path);
		return CTL_EXIT_REFUSED;
	}
	return CTL_EXIT_OK;
}

/* A note of the text (ctl_gone_notes, ctl_incomplete_notes) as a paragraph. */
static void
put_note(const char *line, void *arg)
{
	fputs("<p class=\"note\">(!) ", arg);
	html_escape(arg, line);
	fputs("</p>\n", arg);
}

int
html_report(const struct ctl_opts *opts, json_object *args, const char *path)
{
	json_object *rep = NULL, *sr, *ir, *win = NULL;
	const char *name = json_get_string(args, "name", "");
	char note[512], note2[512];
	int rc;
	FILE *fp;

	rc = ctl_call(opts, "report", args, &rep);
	if (rep == NULL)
		return rc;
	if ((fp = open_out(path)) == NULL) {
		json_object_put(rep);
		return CTL_EXIT_USAGE;
	}
	page_head(fp, name);
	json_object_object_get_ex(rep, "window", &win);
	fputs("<p class=\"span\">", fp);
	html_escape(fp, json_get_string(win, "start", ""));
	fputs(" to ", fp);
	html_escape(fp, json_get_string(win, "end", ""));
	fputs("</p>\n", fp);
	ctl_gone_notes(rep, put_note, fp);
	headline(fp, rep);
	queue_bars(fp, rep);
	sr = quiet_call(opts, "softirqs", win_args(name, NULL, NULL), note, sizeof(note));
	softirq_heatmap(fp, sr, rep, note);
	ir = quiet_call(opts, "interrupts", win_args(name, NULL, NULL), note2, sizeof(note2));
	irq_heatmap(fp, ir, note2);
	time_series(fp, opts, name, rep);
	fputs("</body></html>\n", fp);
	json_object_put(sr);
	json_object_put(ir);
	json_object_put(rep);
	return close_out(fp, path);
}

/* A total over windows of unequal length: not judged; its per-second change and verdict. */
static void
put_per_second(FILE *fp, json_object *f)
{
	json_object *ps = NULL;
	const char *v;

	if (!json_object_object_get_ex(f, "per_s", &ps))
		return;
	v = json_get_string(ps, "verdict", NULL);
	fputs("total not judged; per second ", fp);
	put_num(fp, json_get_double(ps, "change_pct", NAN));
	fputs(" % <span class=\"", fp);
	fputs(v != NULL && (strcmp(v, "better") == 0 || strcmp(v, "worse") == 0) ? v : "", fp);
	fputs("\">", fp);
	html_escape(fp, v != NULL ? v : "");
	fputs("</span>", fp);
}

/* Why a comparison's totals are not judged, when they are not. */
static void
put_windows_note(FILE *fp, json_object *cmp)
{
	json_object *w = NULL;

	if (!json_object_object_get_ex(cmp, "windows", &w) ||
	    json_get_bool(w, "totals_judged", true))
		return;
	fprintf(fp,
	        "<p class=\"note\">Totals (counts over the window) are not judged: the windows "
	        "last %.1f s (A) and %.1f s (B), %.0f %% apart, more than %.0f %%; their "
	        "per-second figures are.</p>\n",
	        json_get_double(w, "a_span_s", 0), json_get_double(w, "b_span_s", 0),
	        json_get_double(w, "difference_pct", 0), json_get_double(w, "tolerance_pct", 0));
}

/* The settings that differ between A and B (the results' manifests), by group, and the
 * cause; settings that differ within a side. */
static void
put_settings(FILE *fp, json_object *cmp)
{
	json_object *st = NULL, *d, *v;
	const char *cause;

	if (!json_object_object_get_ex(cmp, "settings", &st) || st == NULL)
		return;
	d = ctl_array(st, "differences");
	v = ctl_array(st, "varying");
	if (d != NULL && json_object_array_length(d) > 0) {
		fputs("<h2>Settings that differ</h2>\n<table class=\"settings\"><tr><th>group</th>"
		      "<th>setting</th><th>A</th><th>B</th></tr>\n",
		      fp);
		for (size_t i = 0; i < json_object_array_length(d); i++) {
			json_object *o = json_object_array_get_idx(d, i);
			const char *cols[] = {
			    json_get_string(o, "group", ""), json_get_string(o, "setting", ""),
			    json_get_string(o, "a", "(none)"), json_get_string(o, "b", "(none)")};
			fputs("<tr>", fp);
			for (size_t k = 0; k < 4; k++) {
				fputs("<td>", fp);
				html_escape(fp, cols[k]);
				fputs("</td>", fp);
			}
			fputs("</tr>\n", fp);
		}
		fputs("</table>\n", fp);
		if ((cause = json_get_string(st, "cause", NULL)) != NULL) {
			fputs("<p class=\"note\">Changes below are ", fp);
			html_escape(fp, cause);
			fputs(".</p>\n", fp);
		}
	}
	for (size_t i = 0; v != NULL && i < json_object_array_length(v); i++) {
		json_object *o = json_object_array_get_idx(v, i);
		fputs("<p class=\"note\">(!) ", fp);
		html_escape(fp, json_get_string(o, "side", "?"));
		fputs(": ", fp);
		html_escape(fp, json_get_string(o, "setting", "?"));
		fputs(" differs across its results: the runs were not alike.</p>\n", fp);
	}
}

int
html_compare(const struct ctl_opts *opts, json_object *cargs, const char *path)
{
	json_object *args = json_object_new_object(), *cmp = NULL, *figs, *ra, *rb, *repa, *repb;
	const char *a = json_get_string(cargs, "a", ""), *b = json_get_string(cargs, "b", "");
	struct line l[MAX_LINES] = {{0}};
	char note[512], glob[300];
	const char *dev;
	size_t n = 0;
	int rc;
	FILE *fp;

	json_add_string(args, "a", a);
	json_add_string(args, "b", b);
	rc = ctl_call(opts, "compare", args, &cmp);
	json_object_put(args);
	if (cmp == NULL)
		return rc;
	if ((fp = open_out(path)) == NULL) {
		json_object_put(cmp);
		return CTL_EXIT_USAGE;
	}
	page_head(fp, "compare");
	fputs("<p>A: ", fp);
	html_escape(fp, a);
	fputs(" &mdash; B: ", fp);
	html_escape(fp, b);
	fputs("</p>\n", fp);
	ctl_incomplete_notes(cmp, put_note, fp);
	put_settings(fp, cmp);
	fputs("<table class=\"compare\"><tr><th>figure</th><th>A</th><th>B</th>"
	      "<th>change</th><th>verdict</th></tr>\n",
	      fp);
	figs = ctl_array(cmp, "figures");
	for (size_t i = 0; figs != NULL && i < json_object_array_length(figs); i++) {
		json_object *f = json_object_array_get_idx(figs, i), *fa = NULL, *fb = NULL;
		const char *verdict = json_get_string(f, "verdict", NULL);
		json_object_object_get_ex(f, "a", &fa);
		json_object_object_get_ex(f, "b", &fb);
		fputs("<tr data-figure=\"", fp);
		html_escape(fp, json_get_string(f, "figure", ""));
		fputs("\"><td>", fp);
		html_escape(fp, json_get_string(f, "figure", ""));
		fputs("</td><td>", fp);
		put_num(fp, json_get_double(fa, "mean", NAN));
		fputs("</td><td>", fp);
		put_num(fp, json_get_double(fb, "mean", NAN));
		fputs("</td><td>", fp);
		put_num(fp, json_get_double(f, "change_pct", NAN));
		fprintf(fp, " %%</td><td class=\"%s\">",
		        verdict != NULL &&
		                (strcmp(verdict, "better") == 0 || strcmp(verdict, "worse") == 0)
		            ? verdict
		            : "");
		html_escape(fp, verdict != NULL ? verdict : "");
		if (json_get_string(f, "not_comparable", NULL) != NULL)
			html_escape(fp, json_get_string(f, "not_comparable", ""));
		else if (verdict != NULL && json_get_string(f, "cause", NULL) != NULL) {
			fputs(" ", fp);
			html_escape(fp, json_get_string(f, "cause", ""));
		}
		put_per_second(fp, f);
		fputs("</td></tr>\n", fp);
	}
	fputs("</table>\n", fp);
	put_windows_note(fp, cmp);
	/* Both runs over time, from their own starts: when each side is one result. */
	args = json_object_new_object();
	json_add_string(args, "name", a);
	repa = quiet_call(opts, "report", args, note, sizeof(note));
	args = json_object_new_object();
	json_add_string(args, "name", b);
	repb = quiet_call(opts, "report", args, note, sizeof(note));
	dev = repa != NULL ? busiest_device(repa) : NULL;
	snprintf(glob, sizeof(glob), "link.%s.tx_packets", dev != NULL ? dev : "*");
	fputs("<h2>Both runs over time</h2>\n", fp);
	if ((ra = quiet_call(opts, "series", win_args(a, "glob", glob), note, sizeof(note))) !=
	        NULL &&
	    (rb = quiet_call(opts, "series", win_args(b, "glob", glob), note, sizeof(note))) !=
	        NULL) {
		struct marks m;
		lines_from(ra, "A", true, l, &n, MAX_LINES / 2);
		lines_from(rb, "B", true, l, &n, MAX_LINES);
		/* Each run's top bursts, from its own start as its line is. */
		marks_init(&m);
		burst_marks(repa, "A", first_point_t(ra), &m);
		burst_marks(repb, "B", first_point_t(rb), &m);
		svg_chart(fp, "overlay", glob, l, n, m.nb > 0 ? &m : NULL, true);
		lines_free(l, n);
		json_object_put(rb);
	} else {
		fputs("<p class=\"note\">Not drawn: ", fp);
		html_escape(fp, note);
		fputs("</p>\n", fp);
	}
	json_object_put(ra);
	json_object_put(repa);
	json_object_put(repb);
	fputs("</body></html>\n", fp);
	json_object_put(cmp);
	return close_out(fp, path);
}

int
html_series_svg(const struct ctl_opts *opts, json_object *args, const char *path)
{
	struct line l[MAX_LINES] = {{0}};
	json_object *result = NULL;
	size_t n = 0;
	FILE *fp;
	int rc;

	if ((rc = ctl_call(opts, "series", args, &result)) != CTL_EXIT_OK || result == NULL)
		return rc;
	if ((fp = open_out(path)) == NULL) {
		json_object_put(result);
		return CTL_EXIT_USAGE;
	}
	lines_from(result, NULL, false, l, &n, MAX_LINES); /* l points into result */
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
	svg_chart(fp, "series", n == 1 ? l[0].name : "series", l, n, NULL, false);
	lines_free(l, n);
	json_object_put(result);
	return close_out(fp, path);
}
