/* compare.c: figure-by-figure comparison of two results or two sets of results.
 *
 * Each result is flattened to (path, value) pairs; the figures of both sides are matched by
 * path. Units and the better direction come from the table below, by path pattern
 * (fnmatch, '*' also matching '.'), first match wins. The directions:
 *   - bytes carried (devices) and the share of the first CPU set (the ratio): higher;
 *   - drops (device, driver, softnet), time_squeeze, flow limits, retransmits and their
 *     ratio, TcpExt timeouts, losses, drops and failures, UDP errors, IPIs: lower;
 *   - CPU utilisation, interrupts, softirqs and the CPU sets' own sums: not judged (null):
 *     they follow the load, so more is neither good nor bad by itself;
 *   - packets, segments and datagrams counted or per second, and figures per packet (CPU
 *     time per packet, packets per NET_RX): not judged either. How many packets carry the
 *     bytes depends on their size, which offloads (TSO, GSO, GRO, LRO), the MTU and the
 *     message size change: after GRO is turned off the same bytes arrive as more, smaller
 *     packets, each cheaper and more of them to a NET_RX, and none of that is better. Only
 *     a loss of packets (drops, retransmits) has a direction whatever their size. */
#include <fnmatch.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-manifest.h"
#include "compare-tuning.h"
#include "compare.h"
#include "jsonutil.h"
#include "stats.h"
#include "xmalloc.h"

#define PATH_MAX_LEN 512

/* A kind of figure. level: a share or ratio, which a result leaving it out does not make
 * 0. */
struct figure_kind {
	const char *pattern;
	const char *unit;
	const char *better;
	bool level;
};

#define HI "higher"
#define LO "lower"

static const struct figure_kind kinds[] = {
    {"span_s", "s", NULL, true},
    /* the summary's sums (compare_summary_flatten) */
    {"summary.queue_packets.*", "packets", NULL, false},
    {"summary.packets_dropped", "packets", LO, false},
    {"summary.packets_*", "packets", NULL, false},
    {"summary.softirqs", "softirqs", NULL, false},
    /* a test's own figures */
    {"test.throughput_mbps", "Mbit/s", HI, true},
    {"test.received_mbps", "Mbit/s", HI, true},
    {"test.sent_mbps", "Mbit/s", HI, true},
    {"test.loss_pct", "%", LO, true},
    {"test.lost_datagrams", "datagrams", LO, false},
    {"test.transactions_per_s*", "transactions/s", HI, true},
    {"test.*latency_us*", "us", LO, true},
    {"test.retransmits", "segments", LO, false},
    {"test.cpu_*_pct", "%", LO, true},
    {"test.procs_reporting", "", NULL, true},
    {"test.*", "", NULL, true},
    /* queues */
    {"queues.ratio.*", "ratio", HI, true},
    {"queues.min_rate", "packets/s", NULL, true},
    {"queues.cpusets.*_pps", "packets/s", NULL, false},
    {"queues.cpusets.*", "packets", NULL, false},
    {"queues.devices.*.hidden", "queues", NULL, false},
    {"queues.*_pps", "packets/s", NULL, false},
    {"queues.*", "packets", NULL, false},
    /* cpu */
    {"cpu.busy_us_per_packet", "us", NULL, true},
    {"cpu.*.busy_cpus", "CPUs", NULL, true},
    {"cpu.*.count", "CPUs", NULL, true},
    {"cpu.*", "%", NULL, true},
    /* interrupts */
    {"interrupts.ipi*_per_s", "IPIs/s", LO, false},
    {"interrupts.ipi*", "IPIs", LO, false},
    {"interrupts.*per_s", "interrupts/s", NULL, false},
    {"interrupts.*", "interrupts", NULL, false},
    /* softirqs */
    {"softirqs.*packets_per_net_rx", "packets", NULL, true},
    {"softirqs.*rx_packets", "packets", NULL, false},
    {"softirqs.*_per_s", "softirqs/s", NULL, false},
    {"softirqs.*", "softirqs", NULL, false},
    /* devices */
    {"devices.*.driver_drops_per_s.*", "packets/s", LO, false},
    {"devices.*.driver_drops.*", "packets", LO, false},
    {"devices.*_dropped_per_s", "packets/s", LO, false},
    {"devices.*_dropped", "packets", LO, false},
    {"devices.*_bytes_per_s", "bytes/s", HI, false},
    {"devices.*_bytes", "bytes", HI, false},
    {"devices.*_per_s", "packets/s", NULL, false},
    {"devices.*", "packets", NULL, false},
    /* softnet */
    {"softnet.processed_per_s", "packets/s", NULL, false},
    {"softnet.processed", "packets", NULL, false},
    {"softnet.received_rps_per_s", "packets/s", NULL, false},
    {"softnet.received_rps", "packets", NULL, false},
    {"softnet.*_per_s", "events/s", LO, false},
    {"softnet.*", "events", LO, false},
    /* tcp */
    {"tcp.retrans_ratio", "ratio", LO, true},
    {"tcp.retrans_segs_per_s", "segments/s", LO, false},
    {"tcp.retrans_segs", "segments", LO, false},
    {"tcp.tcpext.*Retrans*", "", LO, false},
    {"tcp.tcpext.*Timeout*", "", LO, false},
    {"tcp.tcpext.*Loss*", "", LO, false},
    {"tcp.tcpext.*Drop*", "", LO, false},
    {"tcp.tcpext.*Fail*", "", LO, false},
    {"tcp.tcpext.*Overflow*", "", LO, false},
    {"tcp.tcpext.*Prune*", "", LO, false},
    {"tcp.tcpext.*", "", NULL, false},
    {"tcp.*_per_s", "segments/s", NULL, false},
    {"tcp.*", "segments", NULL, false},
    /* udp */
    {"udp.in_loss_pct", "%", LO, true},
    {"udp.*errors_per_s", "datagrams/s", LO, false},
    {"udp.*errors", "datagrams", LO, false},
    {"udp.no_ports_per_s", "datagrams/s", LO, false},
    {"udp.no_ports", "datagrams", LO, false},
    {"udp.*_per_s", "datagrams/s", NULL, false},
    {"udp.*", "datagrams", NULL, false},
    /* the burst figures (bursts.h), "bursts.SERIES.FIGURE": a higher peak-to-mean is
     * burstier, neither better nor worse (bursts are the load's as much as the tuning's) */
    {"bursts.*.peak_to_mean", "ratio", NULL, true},
    {"bursts.*.peak_per_s", "/s", NULL, true},
    {"bursts.*.longest_run_s", "s", NULL, true},
    /* multi-host results' cross-host figures, "SENDER>RECEIVER.FIELD" (compare-hosts.c) */
    {"*>*.loss_ratio", "ratio", LO, true},
    {"*>*.bytes_ratio", "ratio", NULL, true}, /* not bounded by the skew: no verdict */
    {"*>*.lost_packets", "packets", LO, false},
    {"*>*_bits_per_s", "bit/s", HI, false},
    {"*>*_packets", "packets", NULL, false}, /* as every packet count: no direction */
    {"*>*_bytes", "bytes", HI, false},
    /* the bpf figure (report-bpf.c): softirq time, drops by reason, NAPI, the programs' cost */
    {"bpf.softirq_time.cpus.*", "%", NULL, true},
    {"bpf.softirq_time.total_s.*", "s", NULL, false},
    {"bpf.drops.*", "packets", LO, false},
    {"bpf.napi.*.exhausted", "polls", LO, false},
    {"bpf.napi.*.packets_per_poll", "packets", NULL, true},
    {"bpf.napi.*.polls", "polls", NULL, false},
    {"bpf.napi.*", "packets", NULL, false},
    {"bpf.programs.*.ns_per_run", "ns", LO, true},
    {"bpf.programs.*.cpu_pct", "%", LO, true},
    {"bpf.programs.*.run_time_ns", "ns", LO, false},
    {"bpf.programs.*.runs", "runs", NULL, false},
    /* sysctl, lnstat and anything newer */
    {"*", "", NULL, false},
};

/* The first kind whose pattern matches path. */
static const struct figure_kind *
kind_of(const char *path)
{
	size_t n = sizeof(kinds) / sizeof(kinds[0]);

	for (size_t i = 0; i < n; i++)
		if (fnmatch(kinds[i].pattern, path, 0) == 0)
			return &kinds[i];
	return &kinds[n - 1];
}

/* Unit and direction of a path from the table. */
void
compare_figure_kind(const char *path, const char **unit, const char **better)
{
	const struct figure_kind *k = kind_of(path);

	*unit = k->unit;
	*better = k->better;
}

/* Members that name an element of an array, in order of preference. */
static const char *const ident_keys[] = {"name", "device", "line", "queue", "cpu"};

/* The name of array element i: its identifying member (returned, so the walk leaves it
 * out), else its index (NULL returned). */
static const char *
element_name(json_object *el, size_t i, char *buf, size_t size)
{
	json_object *v;

	for (size_t k = 0; k < sizeof(ident_keys) / sizeof(ident_keys[0]); k++)
		if (json_object_object_get_ex(el, ident_keys[k], &v) &&
		    (json_object_is_type(v, json_type_string) ||
		     json_object_is_type(v, json_type_int))) {
			snprintf(buf, size, "%s", json_object_get_string(v));
			return ident_keys[k];
		}
	snprintf(buf, size, "%zu", i);
	return NULL;
}

/* Walk v below path (of length len in a PATH_MAX_LEN buffer), calling fn on numbers; an
 * object's member skip (an array element's name) is left out. */
static void
walk(json_object *v, char *path, size_t len, const char *skip,
     void (*fn)(const char *, double, void *), void *arg)
{
	const char *ident;
	char name[128];

	switch (json_object_get_type(v)) {
	case json_type_null:
		fn(path, NAN, arg);
		break;
	case json_type_int:
	case json_type_double:
		fn(path, json_object_get_double(v), arg);
		break;
	case json_type_object: { /* braces: the macro declares, which a label cannot precede */
		json_object_object_foreach(v, k, m)
		{
			int n;
			if (skip != NULL && strcmp(k, skip) == 0)
				continue;
			n = snprintf(path + len, PATH_MAX_LEN - len, "%s%s", len ? "." : "", k);
			if (n > 0 && len + (size_t)n < PATH_MAX_LEN)
				walk(m, path, len + (size_t)n, NULL, fn, arg);
		}
		break;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *el = json_object_array_get_idx(v, i);
			int n;
			if (!json_object_is_type(el, json_type_object))
				continue; /* lists of names ("sets") are no figures */
			ident = element_name(el, i, name, sizeof(name));
			n = snprintf(path + len, PATH_MAX_LEN - len, ".%s", name);
			if (n > 0 && len + (size_t)n < PATH_MAX_LEN)
				walk(el, path, len + (size_t)n, ident, fn, arg);
		}
		break;
	default: /* strings and booleans: labels, not figures */
		break;
	}
	path[len] = '\0';
}

/* The burst figures of a result's "bursts" (bursts.h) as "bursts.SERIES.peak_to_mean",
 * ".peak_per_s", ".longest_run_s": one set per series (the mean is the report's rates
 * again; the number of runs grows with the window). */
static void
bursts_flatten(json_object *series, void (*fn)(const char *, double, void *), void *arg)
{
	static const char *const keys[][2] = {{"peak_to_mean", "peak_to_mean"},
	                                      {"peak", "peak_per_s"},
	                                      {"longest_run_s", "longest_run_s"}};
	char path[PATH_MAX_LEN];

	for (size_t i = 0; i < json_object_array_length(series); i++) {
		json_object *e = json_object_array_get_idx(series, i), *name, *v;
		if (!json_object_object_get_ex(e, "series", &name) ||
		    !json_object_is_type(name, json_type_string))
			continue;
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			if (!json_object_object_get_ex(e, keys[k][0], &v) ||
			    (!json_object_is_type(v, json_type_double) &&
			     !json_object_is_type(v, json_type_int)))
				continue;
			snprintf(path, sizeof(path), "bursts.%s.%s", json_object_get_string(name),
			         keys[k][1]);
			fn(path, json_object_get_double(v), arg);
		}
	}
}

/* span_s first, then every figure in the report's order, the burst figures last. */
void
compare_flatten(json_object *result, void (*fn)(const char *path, double v, void *arg), void *arg)
{
	char path[PATH_MAX_LEN] = "span_s";
	json_object *v;

	if (json_object_object_get_ex(result, "span_s", &v))
		walk(v, path, strlen(path), NULL, fn, arg);
	path[0] = '\0';
	if (json_object_object_get_ex(result, "figures", &v))
		walk(v, path, 0, NULL, fn, arg);
	/* A test's own figures: "test.throughput_mbps". */
	if (json_object_object_get_ex(result, "test", &v) &&
	    json_object_object_get_ex(v, "figures", &v)) {
		snprintf(path, sizeof(path), "test");
		walk(v, path, strlen(path), NULL, fn, arg);
	}
	if (json_object_object_get_ex(result, "bursts", &v) &&
	    json_object_object_get_ex(v, "series", &v) && json_object_is_type(v, json_type_array))
		bursts_flatten(v, fn, arg);
}

/* One figure: its values in every result of both sides. */
struct figure {
	char *path;
	double *v;     /* [na + nb]; NAN: missing or null */
	bool *present; /* [na + nb]: the result has the path */
};

/* Every figure of the comparison, indexed by path. */
struct figures {
	struct figure *v;
	size_t n, cap;
	json_object *index; /* path -> position in v */
	size_t nres;        /* na + nb */
	size_t cur;         /* the result being flattened */
	/* t(0.975, n - 1) by n, 0 until needed: a quantile costs a bisection, and every figure
	 * of a side has the same few n. */
	double t975[COMPARE_MAX_RESULTS + 1];
	double *span; /* [na + nb]: each result's window in seconds; NAN when unknown */
	bool unequal; /* the sides' windows differ by more than COMPARE_SPAN_TOLERANCE_PCT */
};

/* Record one value of the current result. */
static void
collect(const char *path, double v, void *arg)
{
	struct figures *fs = arg;
	json_object *pos;
	struct figure *f;

	if (json_object_object_get_ex(fs->index, path, &pos))
		f = &fs->v[json_object_get_int64(pos)];
	else {
		if (fs->n == fs->cap) {
			fs->cap = fs->cap ? fs->cap * 2 : 256;
			fs->v = xreallocarray(fs->v, fs->cap, sizeof(*fs->v));
		}
		json_object_object_add(fs->index, path, json_object_new_int64((int64_t)fs->n));
		f = &fs->v[fs->n++];
		f->path = xstrdup(path);
		f->v = xcalloc(fs->nres, sizeof(*f->v));
		f->present = xcalloc(fs->nres, sizeof(*f->present));
	}
	f->v[fs->cur] = v;
	f->present[fs->cur] = true;
}

/* One side as an object: the mean, and with several results min, max, stddev, n and the
 * 95 % confidence interval of the mean (null with fewer than 2 values). */
static json_object *
side_json(struct figures *fs, const struct stats_desc *st, size_t nres)
{
	json_object *o = json_object_new_object();
	double lo = NAN, hi = NAN;

	json_add_double(o, "mean", st->mean);
	if (nres > 1) {
		json_add_double(o, "min", st->min);
		json_add_double(o, "max", st->max);
		json_add_double(o, "stddev", st->n > 0 ? st->sd : NAN);
		json_add_uint(o, "n", st->n);
		if (st->n >= 2 && st->n <= COMPARE_MAX_RESULTS) {
			if (fs->t975[st->n] == 0)
				fs->t975[st->n] = stats_t_quantile(0.975, (double)(st->n - 1));
			stats_ci(st, fs->t975[st->n], &lo, &hi);
		}
		json_add_double(o, "ci95_low", lo);
		json_add_double(o, "ci95_high", hi);
	}
	return o;
}

/* The change in words: "better"/"worse" along the figure's direction, "same" when there
 * is none; NULL when the figure has no better direction or no change to judge. */
static const char *
verdict(const char *better, double change)
{
	if (better == NULL || isnan(change))
		return NULL;
	if (change == 0)
		return "same";
	return (change > 0) == (strcmp(better, HI) == 0) ? "better" : "worse";
}

/* Welch's test of the two sides when both have 2 values or more: "t", "df", "p" and
 * "significance" ("significant" when p < COMPARE_ALPHA, else "within noise"). */
static void
add_welch(json_object *o, const struct stats_desc *sa, const struct stats_desc *sb)
{
	struct stats_welch w;
	char text[32];

	if (stats_welch(sa, sb, &w) < 0)
		return;
	json_add_double(o, "t", isinf(w.t) ? NAN : w.t);
	json_add_double(o, "df", w.df);
	/* Six significant digits rather than decimals: a p of 1e-9 is not 0. */
	snprintf(text, sizeof(text), "%.6g", w.p);
	json_object_object_add(o, "p", json_object_new_double_s(w.p, text));
	json_add_string(o, "significance", w.p < COMPARE_ALPHA ? "significant" : "within noise");
}

bool
compare_skewed_figure(const char *path)
{
	if (strstr(path, "latency") != NULL || strstr(path, "percentile") != NULL)
		return true;
	/* A word pNN: starts the path or follows '.' or '_', ends it or comes before one. */
	for (const char *p = path; (p = strchr(p, 'p')) != NULL; p++) {
		const char *q = p + 1;
		if (p != path && p[-1] != '.' && p[-1] != '_')
			continue;
		while (*q >= '0' && *q <= '9')
			q++;
		if (q - p >= 3 && (*q == '\0' || *q == '.' || *q == '_'))
			return true;
	}
	return false;
}

/* The rank test of the two sides for a skewed figure (compare_skewed_figure): "rank_test"
 * {"w", "p", "method"}, and its p decides "significance" instead of Welch's; with fewer
 * than 2 values on a side nothing. */
static void
add_rank(json_object *o, const double *v, const struct stats_desc *sa, size_t na,
         const struct stats_desc *sb, size_t nb)
{
	struct stats_rank r;
	json_object *rt;
	char text[32];

	if (sa->n < 2 || sb->n < 2 || stats_mann_whitney(v, na, v + na, nb, &r) < 0)
		return;
	rt = json_object_new_object();
	json_add_double(rt, "w", r.w);
	snprintf(text, sizeof(text), "%.6g", r.p);
	json_object_object_add(rt, "p", json_object_new_double_s(r.p, text));
	json_add_string(rt, "method", r.exact ? "exact" : "normal");
	json_object_object_add(o, "rank_test", rt);
	json_add_string(o, "significance", r.p < COMPARE_ALPHA ? "significant" : "within noise");
	json_add_string(o, "significance_by", "rank test");
}

/* The % change from a to b: null (NAN) when a is 0 and b is not. */
static double
change_pct(double a, double change)
{
	if (a != 0)
		return 100.0 * change / fabs(a);
	return change == 0 ? 0 : NAN;
}

/* Is a figure of kind k at path a total: a count over the window, which grows with the
 * window's length (not a level, a share, a ratio or a rate)? */
static bool
is_total(const struct figure_kind *k, const char *path)
{
	size_t n = strlen(path);

	if (k->level || strstr(k->unit, "/s") != NULL)
		return false;
	return !(n > 6 && strcmp(path + n - 6, "_per_s") == 0) &&
	       !(n > 4 && strcmp(path + n - 4, "_pps") == 0);
}

/* A total's figures per second of its window, for windows of unequal length: each
 * result's value over its span, both sides' means, the change and its verdict. */
static json_object *
per_second_json(struct figures *fs, struct figure *f, const struct figure_kind *k, size_t na,
                size_t nb)
{
	json_object *o = json_object_new_object(), *side;
	double *v = xcalloc(na + nb, sizeof(*v)), change;
	struct stats_desc sa, sb;

	for (size_t i = 0; i < na + nb; i++)
		v[i] = fs->span[i] > 0 ? f->v[i] / fs->span[i] : NAN;
	stats_describe(v, na, &sa);
	stats_describe(v + na, nb, &sb);
	free(v);
	change = sb.mean - sa.mean;
	side = json_object_new_object();
	json_add_double(side, "mean", sa.mean);
	json_object_object_add(o, "a", side);
	side = json_object_new_object();
	json_add_double(side, "mean", sb.mean);
	json_object_object_add(o, "b", side);
	json_add_double(o, "change", change);
	json_add_double(o, "change_pct", change_pct(sa.mean, change));
	json_add_string(o, "verdict", verdict(k->better, change));
	return o;
}

/* One figure's line of the comparison. */
static json_object *
figure_json(struct figures *fs, struct figure *f, size_t na, size_t nb)
{
	const struct figure_kind *k = kind_of(f->path);
	json_object *o = json_object_new_object();
	struct stats_desc sa, sb;
	double change;
	bool unjudged;

	for (size_t i = 0; i < na + nb; i++)
		if (!f->present[i])
			f->v[i] = k->level ? NAN : 0;
	stats_describe(f->v, na, &sa);
	stats_describe(f->v + na, nb, &sb);
	change = sb.mean - sa.mean;
	/* A total over a window twice as long is twice as large at the same rate: it is
	 * judged per second instead. */
	unjudged = fs->unequal && k->better != NULL && is_total(k, f->path);
	json_add_string(o, "figure", f->path);
	json_add_string(o, "unit", k->unit);
	json_add_string(o, "better", k->better);
	json_object_object_add(o, "a", side_json(fs, &sa, na));
	json_object_object_add(o, "b", side_json(fs, &sb, nb));
	json_add_double(o, "change", change);
	json_add_double(o, "change_pct", change_pct(sa.mean, change));
	json_add_string(o, "verdict", unjudged ? NULL : verdict(k->better, change));
	if (unjudged) {
		json_add_string(o, "unjudged", "total over windows of unequal length");
		json_object_object_add(o, "per_s", per_second_json(fs, f, k, na, nb));
	}
	add_welch(o, &sa, &sb);
	if (compare_skewed_figure(f->path))
		add_rank(o, f->v, &sa, na, &sb, nb);
	return o;
}

/* The first two CPU sets' queue packets (rx + tx, by IRQ CPU). */
static void
summary_cpusets(json_object *q, void (*fn)(const char *, double, void *), void *arg)
{
	json_object *sets, *by, *v;
	char path[PATH_MAX_LEN];

	if (!json_object_object_get_ex(q, "cpusets", &sets) ||
	    !json_object_is_type(sets, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(sets) && i < 2; i++) {
		json_object *s = json_object_array_get_idx(sets, i);
		double sum = 0;
		if (!json_object_object_get_ex(s, "by_irq_cpu", &by))
			continue;
		for (int k = 0; k < 2; k++)
			if (json_object_object_get_ex(by, k ? "tx_packets" : "rx_packets", &v))
				sum += json_object_get_double(v);
		snprintf(path, sizeof(path), "summary.queue_packets.%s",
		         json_get_string(s, "name", "?"));
		fn(path, sum, arg);
	}
}

/* The member key of group (a number) as path, when there. */
static void
summary_one(json_object *group, const char *key, const char *path,
            void (*fn)(const char *, double, void *), void *arg)
{
	json_object *v;

	if (group != NULL && json_object_object_get_ex(group, key, &v) &&
	    (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		fn(path, json_object_get_double(v), arg);
}

/* Devices' packets sent and received, and what was dropped: the devices' rx and tx
 * drops and softnet's backlog drops. */
static void
summary_packets(json_object *figs, void (*fn)(const char *, double, void *), void *arg)
{
	static const char *const keys[] = {"tx_packets", "rx_packets", "rx_dropped", "tx_dropped"};
	json_object *devs, *g, *v;
	double sum[4] = {0, 0, 0, 0};
	bool any = false;

	if (json_object_object_get_ex(figs, "devices", &devs) &&
	    json_object_is_type(devs, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(devs); i++)
			for (int k = 0; k < 4; k++)
				if (json_object_object_get_ex(json_object_array_get_idx(devs, i),
				                              keys[k], &v)) {
					sum[k] += json_object_get_double(v);
					any = true;
				}
	}
	if (json_object_object_get_ex(figs, "softnet", &g) &&
	    json_object_object_get_ex(g, "dropped", &v)) {
		sum[2] += json_object_get_double(v);
		any = true;
	}
	if (!any)
		return;
	fn("summary.packets_sent", sum[0], arg);
	fn("summary.packets_received", sum[1], arg);
	fn("summary.packets_dropped", sum[2] + sum[3], arg);
}

/* The kit's compare rows of one result: packets on the queues of the first two CPU sets,
 * CPU utilisation, IPIs/s, packets sent, received and dropped, segments retransmitted,
 * NET_RX + NET_TX softirqs, and the aRFS counters of kernels that have them. */
void
compare_summary_flatten(json_object *result, void (*fn)(const char *path, double v, void *arg),
                        void *arg)
{
	json_object *figs, *g, *cpu = NULL, *rx, *tx;
	char path[PATH_MAX_LEN];
	int arfs = 0;

	if (!json_object_object_get_ex(result, "figures", &figs))
		return;
	if (json_object_object_get_ex(figs, "queues", &g))
		summary_cpusets(g, fn, arg);
	if (json_object_object_get_ex(figs, "cpu", &g))
		json_object_object_get_ex(g, "all", &cpu);
	summary_one(cpu, "busy", "cpu.all.busy", fn, arg);
	if (json_object_object_get_ex(figs, "interrupts", &g))
		summary_one(g, "ipi_all_per_s", "interrupts.ipi_all_per_s", fn, arg);
	summary_packets(figs, fn, arg);
	if (json_object_object_get_ex(figs, "tcp", &g))
		summary_one(g, "retrans_segs", "tcp.retrans_segs", fn, arg);
	if (json_object_object_get_ex(figs, "softirqs", &g) &&
	    json_object_object_get_ex(g, "net_rx", &rx) &&
	    json_object_object_get_ex(g, "net_tx", &tx))
		fn("summary.softirqs", json_object_get_double(rx) + json_object_get_double(tx),
		   arg);
	if (!json_object_object_get_ex(figs, "sysctl", &g) ||
	    !json_object_is_type(g, json_type_object))
		return;
	json_object_object_foreach(g, k, v)
	{
		if (strstr(k, "arfs") == NULL || arfs == COMPARE_SUMMARY_ARFS ||
		    (!json_object_is_type(v, json_type_int) &&
		     !json_object_is_type(v, json_type_double)))
			continue;
		snprintf(path, sizeof(path), "sysctl.%s", k);
		fn(path, json_object_get_double(v), arg);
		arfs++;
	}
}

/* The tuning warnings, when there are any: in the comparison, and their codes beside each
 * figure that changed for the better or the worse, the changes one would put down to the
 * tuning. */
static void
add_warnings(json_object *out, json_object *figs, json_object *warns)
{
	if (json_object_array_length(warns) == 0) {
		json_object_put(warns);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(figs); i++) {
		json_object *f = json_object_array_get_idx(figs, i), *codes;
		const char *v = json_get_string(f, "verdict", "");
		if (strcmp(v, "better") != 0 && strcmp(v, "worse") != 0)
			continue;
		codes = json_object_new_array();
		for (size_t w = 0; w < json_object_array_length(warns); w++) {
			const char *c =
			    json_get_string(json_object_array_get_idx(warns, w), "code", "");
			bool dup = false;
			for (size_t k = 0; k < json_object_array_length(codes); k++)
				dup |= strcmp(json_object_get_string(
				                  json_object_array_get_idx(codes, k)),
				              c) == 0;
			if (!dup)
				json_object_array_add(codes, json_object_new_string(c));
		}
		json_object_object_add(f, "warnings", codes);
	}
	json_object_object_add(out, "warnings", warns);
}

/* A result's window in seconds: its span_s, else its window's duration_s; NAN when it
 * has neither (or a nonsense one). */
static double
result_span(json_object *r)
{
	json_object *v = NULL, *win = NULL;
	double s;

	if (!json_object_object_get_ex(r, "span_s", &v) &&
	    json_object_object_get_ex(r, "window", &win))
		json_object_object_get_ex(win, "duration_s", &v);
	if (v == NULL ||
	    (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double)))
		return NAN;
	s = json_object_get_double(v);
	return isfinite(s) && s > 0 ? s : NAN;
}

/* Each result's window, and whether the sides' mean windows differ by more than
 * COMPARE_SPAN_TOLERANCE_PCT of the longer; "windows" in out says so. */
static void
spans_of(struct figures *fs, json_object *const *a, size_t na, json_object *const *b, size_t nb,
         json_object *out)
{
	struct stats_desc sa, sb;
	json_object *w;
	double diff;

	fs->span = xcalloc(na + nb, sizeof(*fs->span));
	for (size_t i = 0; i < na + nb; i++)
		fs->span[i] = result_span(i < na ? a[i] : b[i - na]);
	stats_describe(fs->span, na, &sa);
	stats_describe(fs->span + na, nb, &sb);
	if (sa.n == 0 || sb.n == 0)
		return; /* unknown: the totals are judged as before */
	diff = 100.0 * fabs(sb.mean - sa.mean) / fmax(sa.mean, sb.mean);
	fs->unequal = diff > COMPARE_SPAN_TOLERANCE_PCT;
	w = json_object_new_object();
	json_add_double(w, "a_span_s", sa.mean);
	json_add_double(w, "b_span_s", sb.mean);
	json_add_double(w, "difference_pct", diff);
	json_add_double(w, "tolerance_pct", COMPARE_SPAN_TOLERANCE_PCT);
	json_add_bool(w, "totals_judged", !fs->unequal);
	if (fs->unequal)
		json_add_string(w, "reason",
		                "the windows' lengths differ by more than the tolerance: totals "
		                "(counts over the window) are not judged, their per-second "
		                "figures are");
	json_object_object_add(out, "windows", w);
}

/* Collect every figure flatten gives of every result, then one line per figure. */
static json_object *
compare_with(json_object *const *a, size_t na, json_object *const *b, size_t nb,
             void (*flatten)(json_object *, void (*)(const char *, double, void *), void *))
{
	struct figures fs = {.index = json_object_new_object(), .nres = na + nb, .t975 = {0}};
	json_object *out = json_object_new_object(), *arr = json_object_new_array(), *side;
	json_object *settings = compare_manifest(a, na, b, nb);

	/* The settings that differ first: what a reader looks for before the figures. */
	json_object_object_add(out, "settings", settings);
	spans_of(&fs, a, na, b, nb, out);
	for (fs.cur = 0; fs.cur < na + nb; fs.cur++)
		flatten(fs.cur < na ? a[fs.cur] : b[fs.cur - na], collect, &fs);
	for (size_t i = 0; i < fs.n; i++) {
		json_object_array_add(arr, figure_json(&fs, &fs.v[i], na, nb));
		free(fs.v[i].path);
		free(fs.v[i].v);
		free(fs.v[i].present);
	}
	free(fs.v);
	free(fs.span);
	json_object_put(fs.index);
	add_warnings(out, arr, compare_tuning_warnings(a, na, b, nb));
	compare_manifest_apply(settings, arr);
	side = json_object_new_object();
	json_add_uint(side, "n", na);
	json_object_object_add(out, "a", side);
	side = json_object_new_object();
	json_add_uint(side, "n", nb);
	json_object_object_add(out, "b", side);
	json_object_object_add(out, "figures", arr);
	return out;
}

/* Every figure of the results. */
json_object *
compare_results(json_object *const *a, size_t na, json_object *const *b, size_t nb)
{
	return compare_with(a, na, b, nb, compare_flatten);
}

/* The kit's rows only. */
json_object *
compare_summary(json_object *const *a, size_t na, json_object *const *b, size_t nb)
{
	json_object *out = compare_with(a, na, b, nb, compare_summary_flatten);

	json_add_bool(out, "summary", true);
	return out;
}
