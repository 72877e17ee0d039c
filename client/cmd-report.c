/* cmd-report.c: renderers for a window's report (report, result-show, mark-stop) and for
 * compare: grouped tables with units and separators for people; CSV one row per figure. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "jsonutil.h"
#include "render-table.h"
#include "report-csv.h"

/* ---- numbers ---- */

/* A number for people: whole numbers with separators, others with the decimals their size
 * deserves; "-" for null or absent. */
static void
fmt_num(json_object *v, char *buf, size_t size)
{
	double d;

	if (v == NULL ||
	    (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))) {
		snprintf(buf, size, "-");
		return;
	}
	d = json_object_get_double(v);
	if (d == trunc(d) || fabs(d) >= 1000)
		fmt_decimal(d, 0, buf, size);
	else if (fabs(d) >= 1)
		fmt_decimal(d, 2, buf, size);
	else
		snprintf(buf, size, "%.3g", d);
}

/* The member key of o formatted by fmt_num. */
static const char *
num(json_object *o, const char *key, char *buf, size_t size)
{
	json_object *v = NULL;

	if (o != NULL)
		json_object_object_get_ex(o, key, &v);
	fmt_num(v, buf, size);
	return buf;
}

/* The member key of o, or NULL. */
static json_object *
member(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (o == NULL || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* Print a table under a title line, or nothing when it has no rows. */
static void
section(FILE *fp, const char *title, struct table *t)
{
	if (t->nrows > 0) {
		fprintf(fp, "\n%s\n", title);
		table_print(t, fp);
	}
	table_free(t);
}

/* ---- the report's groups ---- */

/* Per-queue rows of each device and its total. */
static void
queues_table(json_object *q, FILE *fp)
{
	static const char *const hdr[] = {"DEVICE",      ">QUEUE",      ">RX PKT/S", ">TX PKT/S",
	                                  ">RX PACKETS", ">TX PACKETS", "IRQ CPUS",  NULL};
	json_object *devs = ctl_array(q, "devices");
	char c[6][40], title[160];
	struct table t;
	uint64_t hidden = 0;

	table_init(&t, hdr);
	for (size_t i = 0; devs && i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i), *tot = member(d, "total");
		json_object *qs = ctl_array(d, "queues");
		const char *name = json_get_string(d, "name", "?");
		hidden += (uint64_t)json_get_int(d, "hidden", 0);
		for (size_t k = 0; qs && k < json_object_array_length(qs); k++) {
			json_object *r = json_object_array_get_idx(qs, k);
			const char *row[] = {name,
			                     num(r, "queue", c[0], sizeof(c[0])),
			                     num(r, "rx_pps", c[1], sizeof(c[1])),
			                     num(r, "tx_pps", c[2], sizeof(c[2])),
			                     num(r, "rx_packets", c[3], sizeof(c[3])),
			                     num(r, "tx_packets", c[4], sizeof(c[4])),
			                     json_get_string(r, "irq_cpus", "")};
			table_row(&t, row);
		}
		const char *row[] = {name,
		                     "total",
		                     num(tot, "rx_pps", c[1], sizeof(c[1])),
		                     num(tot, "tx_pps", c[2], sizeof(c[2])),
		                     num(tot, "rx_packets", c[3], sizeof(c[3])),
		                     num(tot, "tx_packets", c[4], sizeof(c[4])),
		                     ""};
		table_row(&t, row);
	}
	if (json_get_double(q, "min_rate", 0) > 0)
		snprintf(title, sizeof(title),
		         "Queues (%llu below %s packets/s left out, still in the totals)",
		         (unsigned long long)hidden, num(q, "min_rate", c[5], sizeof(c[5])));
	else
		snprintf(title, sizeof(title), "Queues that moved");
	section(fp, title, &t);
}

/* The CPU sets' packets by IRQ CPU and by queue index, and the ratio of the first two. */
static void
cpusets_table(json_object *q, FILE *fp)
{
	static const char *const hdr[] = {"SET",       "CPUS",        "BY",          ">RX PKT/S",
	                                  ">TX PKT/S", ">RX PACKETS", ">TX PACKETS", NULL};
	static const char *const by[][2] = {{"by_irq_cpu", "IRQ CPU"},
	                                    {"by_queue_index", "queue index"}};
	json_object *sets = ctl_array(q, "cpusets"), *ratio = member(q, "ratio");
	char c[4][40];
	struct table t;

	table_init(&t, hdr);
	for (size_t i = 0; sets && i < json_object_array_length(sets); i++) {
		json_object *s = json_object_array_get_idx(sets, i);
		for (size_t b = 0; b < 2; b++) {
			json_object *o = member(s, by[b][0]);
			const char *row[] = {json_get_string(s, "name", "?"),
			                     json_get_string(s, "cpus", ""),
			                     by[b][1],
			                     num(o, "rx_pps", c[0], sizeof(c[0])),
			                     num(o, "tx_pps", c[1], sizeof(c[1])),
			                     num(o, "rx_packets", c[2], sizeof(c[2])),
			                     num(o, "tx_packets", c[3], sizeof(c[3]))};
			table_row(&t, row);
		}
	}
	section(fp, "Packets per CPU set (queue i counts where its IRQ fired, or by its index)",
	        &t);
	if (ratio != NULL) {
		json_object *names = ctl_array(ratio, "sets");
		fprintf(fp, "ratio %s/%s: %s by IRQ CPU, %s by queue index\n",
		        json_object_get_string(json_object_array_get_idx(names, 0)),
		        json_object_get_string(json_object_array_get_idx(names, 1)),
		        num(ratio, "by_irq_cpu", c[0], sizeof(c[0])),
		        num(ratio, "by_queue_index", c[1], sizeof(c[1])));
	}
}

/* One utilisation row: all CPUs or a set. */
static void
cpu_row(struct table *t, const char *label, const char *cpus, json_object *o)
{
	static const char *const keys[] = {"user", "system", "softirq", "irq", "busy"};
	char c[7][32];
	const char *row[8] = {label, cpus};

	for (size_t i = 0; i < 5; i++) {
		json_object *v = member(o, keys[i]);
		snprintf(c[i], sizeof(c[i]), "%.1f", v ? json_object_get_double(v) : 0);
		row[i + 2] = c[i];
	}
	snprintf(c[5], sizeof(c[5]), "%.2f", json_get_double(o, "busy_cpus", 0));
	row[7] = c[5];
	table_row(t, row);
}

/* CPU utilisation of all CPUs and of each set, and CPU time per packet. */
static void
cpu_table(json_object *cpu, FILE *fp)
{
	static const char *const hdr[] = {"CPUS",  "LIST",   ">%USR",      ">%SYS", ">%SOFT",
	                                  ">%IRQ", ">%BUSY", ">CPUS BUSY", NULL};
	json_object *sets = ctl_array(cpu, "sets");
	struct table t;
	char c[40];

	table_init(&t, hdr);
	if (member(cpu, "all") != NULL)
		cpu_row(&t, "all", "", member(cpu, "all"));
	for (size_t i = 0; sets && i < json_object_array_length(sets); i++) {
		json_object *s = json_object_array_get_idx(sets, i);
		cpu_row(&t, json_get_string(s, "name", "?"), json_get_string(s, "cpus", ""), s);
	}
	section(fp, "CPU utilisation", &t);
	fprintf(fp, "busy CPU time per packet (all devices): %s us\n",
	        num(cpu, "busy_us_per_packet", c, sizeof(c)));
}

/* IPIs and interrupts per device. */
static void
interrupts_table(json_object *irq, FILE *fp)
{
	static const char *const hdr[] = {"INTERRUPTS", ">TOTAL", ">PER S", NULL};
	json_object *ipis = ctl_array(irq, "ipis"), *devs = ctl_array(irq, "devices");
	char c[2][40], label[160];
	struct table t;

	table_init(&t, hdr);
	/* What each total holds: a TLB shootdown is sent as a function-call IPI, so CAL counts
	 * it and TLB counts it again; the totals never add the two. */
	const char *cal[] = {"IPI function call (TLB incl.)",
	                     num(irq, "ipi_cal", c[0], sizeof(c[0])),
	                     num(irq, "ipi_cal_per_s", c[1], sizeof(c[1]))};
	table_row(&t, cal);
	const char *all[] = {"IPI all lines (TLB once, in CAL)",
	                     num(irq, "ipi_all", c[0], sizeof(c[0])),
	                     num(irq, "ipi_all_per_s", c[1], sizeof(c[1]))};
	table_row(&t, all);
	for (size_t i = 0; ipis && i < json_object_array_length(ipis); i++) {
		json_object *o = json_object_array_get_idx(ipis, i);
		json_object *in = NULL;
		bool counted =
		    !json_object_object_get_ex(o, "in_ipi_all", &in) || json_object_get_boolean(in);
		snprintf(label, sizeof(label), "  %s%s", json_get_string(o, "line", "?"),
		         counted ? "" : " (part of CAL, not added)");
		const char *row[] = {label, num(o, "total", c[0], sizeof(c[0])),
		                     num(o, "per_s", c[1], sizeof(c[1]))};
		table_row(&t, row);
	}
	for (size_t i = 0; devs && i < json_object_array_length(devs); i++) {
		json_object *o = json_object_array_get_idx(devs, i);
		const char *nd = json_get_string(o, "netdev", NULL);
		snprintf(label, sizeof(label), "%s%s%s%s", json_get_string(o, "device", "?"),
		         nd ? " (" : "", nd ? nd : "", nd ? ")" : "");
		const char *row[] = {label, num(o, "total", c[0], sizeof(c[0])),
		                     num(o, "per_s", c[1], sizeof(c[1]))};
		table_row(&t, row);
	}
	section(fp, "Interrupts", &t);
}

/* NET_RX and NET_TX in all, per set and per CPU, with packets per NET_RX. */
static void
softirqs_table(json_object *si, FILE *fp)
{
	static const char *const hdr[] = {"CPUS",      ">NET_RX",  ">NET_RX/S",    ">NET_TX",
	                                  ">NET_TX/S", ">RX PKTS", ">PKTS/NET_RX", NULL};
	json_object *sets = ctl_array(si, "sets"), *per = ctl_array(si, "per_cpu");
	char c[6][40], label[64];
	struct table t;

	table_init(&t, hdr);
	for (long i = -1; i < (long)(sets ? json_object_array_length(sets) : 0); i++) {
		json_object *o = i < 0 ? si : json_object_array_get_idx(sets, (size_t)i);
		const char *row[] = {i < 0 ? "all" : json_get_string(o, "name", "?"),
		                     num(o, "net_rx", c[0], sizeof(c[0])),
		                     num(o, "net_rx_per_s", c[1], sizeof(c[1])),
		                     num(o, "net_tx", c[2], sizeof(c[2])),
		                     num(o, "net_tx_per_s", c[3], sizeof(c[3])),
		                     num(o, "rx_packets", c[4], sizeof(c[4])),
		                     num(o, "packets_per_net_rx", c[5], sizeof(c[5]))};
		table_row(&t, row);
	}
	for (size_t i = 0; per && i < json_object_array_length(per); i++) {
		json_object *o = json_object_array_get_idx(per, i);
		snprintf(label, sizeof(label), "cpu %lld", (long long)json_get_int(o, "cpu", -1));
		const char *row[] = {label,
		                     num(o, "net_rx", c[0], sizeof(c[0])),
		                     num(o, "net_rx_per_s", c[1], sizeof(c[1])),
		                     num(o, "net_tx", c[2], sizeof(c[2])),
		                     num(o, "net_tx_per_s", c[3], sizeof(c[3])),
		                     "",
		                     ""};
		table_row(&t, row);
	}
	section(fp, "NET_RX / NET_TX softirqs (received packets per NET_RX: batching)", &t);
}

/* Device packets, bytes, drops, and the driver's drop counters. */
static void
devices_table(json_object *devs, FILE *fp)
{
	static const char *const hdr[] = {"DEVICE",    ">RX PKTS",     ">TX PKTS",    ">RX PKT/S",
	                                  ">TX PKT/S", ">RX BYTES/S",  ">TX BYTES/S", ">RX DROP",
	                                  ">TX DROP",  "DRIVER DROPS", NULL};
	char c[8][40], drops[512];
	struct table t;

	table_init(&t, hdr);
	for (size_t i = 0; devs && i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i),
		            *dd = member(d, "driver_drops");
		size_t off = 0;
		drops[0] = '\0';
		if (dd != NULL) {
			json_object_object_foreach(dd, k, v)
			{
				char n[40];
				fmt_num(v, n, sizeof(n));
				off += (size_t)snprintf(drops + off, sizeof(drops) - off, "%s%s %s",
				                        off ? ", " : "", k, n);
				if (off >= sizeof(drops))
					break;
			}
		}
		fmt_bytes(json_get_double(d, "rx_bytes_per_s", 0), c[4], sizeof(c[4]));
		fmt_bytes(json_get_double(d, "tx_bytes_per_s", 0), c[5], sizeof(c[5]));
		strncat(c[4], "/s", sizeof(c[4]) - strlen(c[4]) - 1);
		strncat(c[5], "/s", sizeof(c[5]) - strlen(c[5]) - 1);
		const char *row[] = {json_get_string(d, "name", "?"),
		                     num(d, "rx_packets", c[0], sizeof(c[0])),
		                     num(d, "tx_packets", c[1], sizeof(c[1])),
		                     num(d, "rx_packets_per_s", c[2], sizeof(c[2])),
		                     num(d, "tx_packets_per_s", c[3], sizeof(c[3])),
		                     c[4],
		                     c[5],
		                     num(d, "rx_dropped", c[6], sizeof(c[6])),
		                     num(d, "tx_dropped", c[7], sizeof(c[7])),
		                     drops};
		table_row(&t, row);
	}
	section(fp, "Devices", &t);
}

/* A group of counters with per-second twins ("x", "x_per_s"): one row each. */
static void
twins_table(json_object *o, const char *title, FILE *fp)
{
	static const char *const hdr[] = {"FIGURE", ">TOTAL", ">PER S", NULL};
	char c[2][40], key[128];
	struct table t;

	table_init(&t, hdr);
	json_object_object_foreach(o, k, v)
	{
		size_t l = strlen(k);
		if (l > 6 && strcmp(k + l - 6, "_per_s") == 0)
			continue;
		if (!json_object_is_type(v, json_type_int) &&
		    !json_object_is_type(v, json_type_double))
			continue;
		snprintf(key, sizeof(key), "%s_per_s", k);
		fmt_num(v, c[0], sizeof(c[0]));
		const char *row[] = {k, c[0],
		                     member(o, key) ? num(o, key, c[1], sizeof(c[1])) : ""};
		table_row(&t, row);
	}
	section(fp, title, &t);
}

/* sysctl deltas, or lnstat's {table: {field: delta}}. */
static void
deltas_table(json_object *o, const char *title, FILE *fp)
{
	static const char *const hdr[] = {"FIGURE", ">DELTA", NULL};
	char c[40], key[192];
	struct table t;

	table_init(&t, hdr);
	json_object_object_foreach(o, k, v)
	{
		if (json_object_is_type(v, json_type_object)) {
			json_object_object_foreach(v, f, x)
			{
				snprintf(key, sizeof(key), "%s.%s", k, f);
				fmt_num(x, c, sizeof(c));
				const char *row[] = {key, c};
				table_row(&t, row);
			}
			continue;
		}
		fmt_num(v, c, sizeof(c));
		const char *row[] = {k, c};
		table_row(&t, row);
	}
	section(fp, title, &t);
}

/* The report itself: the result, or its "report" member. */
/* The label of a burst figures' series: "vB rx packets", "vB rx-2 packets", "cpu1 processed". */
static void
burst_label(json_object *e, char *buf, size_t size)
{
	const char *kind = json_get_string(e, "kind", ""),
	           *dir = json_get_string(e, "direction", "");

	if (strcmp(kind, "queue") == 0)
		snprintf(buf, size, "%s %s-%d packets", json_get_string(e, "device", "?"), dir,
		         (int)json_get_int(e, "queue", -1));
	else if (strcmp(kind, "cpu") == 0)
		snprintf(buf, size, "cpu%d %s", (int)json_get_int(e, "cpu", -1),
		         json_get_string(e, "what", "?"));
	else
		snprintf(buf, size, "%s %s", json_get_string(e, "device", "?"),
		         json_get_string(e, "what", "?"));
}

/* A short span for people: "20 ms" under a second, else as fmt_seconds. */
static void
fmt_span(double s, char *buf, size_t size)
{
	if (s < 1)
		snprintf(buf, size, "%.0f ms", s * 1000);
	else
		fmt_seconds(s, buf, size);
}

/* The time of day of an RFC 3339 time ("12:00:03.410"), or the whole text. */
static const char *
time_of_day(const char *rfc3339)
{
	const char *t = strchr(rfc3339, 'T');
	static char buf[16];

	if (t == NULL || strlen(t + 1) < 12)
		return rfc3339;
	snprintf(buf, sizeof(buf), "%.12s", t + 1);
	return buf;
}

/* The burst figures: per series its mean and peak rate (one sampled interval), the peak's
 * time, the ratio, the longest run above the threshold and how many; then the window's top
 * bursts. host: the host of a multi-host window they are of (NULL: this report's own). */
static void
bursts_table(json_object *b, const char *host, FILE *fp)
{
	static const char *const hdr[] = {"SERIES",    ">MEAN/S",    ">PEAK/S",      "PEAK AT",
	                                  ">INTERVAL", ">PEAK/MEAN", ">LONGEST RUN", ">BURSTS",
	                                  ">LATE",     NULL};
	static const char *const thdr[] = {"SERIES",  "START",      ">DURATION",
	                                   ">PEAK/S", ">PEAK/MEAN", NULL};
	json_object *series = member(b, "series"), *top = member(b, "top");
	char label[128], c[8][40], title[384], on[160] = "";
	struct table t;

	table_init(&t, hdr);
	for (size_t i = 0; series && i < json_object_array_length(series); i++) {
		json_object *e = json_object_array_get_idx(series, i);
		burst_label(e, label, sizeof(label));
		snprintf(c[3], sizeof(c[3]), "%s", time_of_day(json_get_string(e, "peak_at", "?")));
		snprintf(c[4], sizeof(c[4]), "%.1f ms", json_get_double(e, "peak_interval_ms", 0));
		fmt_span(json_get_double(e, "longest_run_s", 0), c[5], sizeof(c[5]));
		const char *row[] = {label,
		                     num(e, "mean", c[0], sizeof(c[0])),
		                     num(e, "peak", c[1], sizeof(c[1])),
		                     c[3],
		                     c[4],
		                     num(e, "peak_to_mean", c[2], sizeof(c[2])),
		                     c[5],
		                     num(e, "runs", c[6], sizeof(c[6])),
		                     num(e, "late", c[7], sizeof(c[7]))};
		table_row(&t, row);
	}
	if (host != NULL)
		snprintf(on, sizeof(on), " of host %s", host);
	snprintf(title, sizeof(title),
	         "Bursts%s (peak: the highest rate over one sampled interval; a run: intervals at "
	         "or above %.0f %% of the peak; a late interval, over %dx the source's, is no "
	         "burst)",
	         on, json_get_double(b, "threshold", 0.8) * 100,
	         (int)json_get_int(b, "late_factor", 2));
	section(fp, title, &t);
	if (json_get_int(b, "bursts_omitted", 0) > 0)
		fprintf(fp,
		        "(%lld queue and CPU series of lower peaks left out: [bursts] max_series = "
		        "%lld)\n",
		        (long long)json_get_int(b, "bursts_omitted", 0),
		        (long long)json_get_int(b, "max_series", 0));
	table_init(&t, thdr);
	for (size_t i = 0; top && i < json_object_array_length(top); i++) {
		json_object *e = json_object_array_get_idx(top, i);
		snprintf(c[0], sizeof(c[0]), "%s", time_of_day(json_get_string(e, "start", "?")));
		fmt_span(json_get_double(e, "duration_s", 0), c[1], sizeof(c[1]));
		const char *row[] = {json_get_string(e, "series", "?"), c[0], c[1],
		                     num(e, "peak", c[2], sizeof(c[2])),
		                     num(e, "peak_to_mean", c[3], sizeof(c[3]))};
		table_row(&t, row);
	}
	snprintf(title, sizeof(title), "Top bursts of the window%s (the highest packet rates)", on);
	section(fp, title, &t);
}

/* The burst figures of each other host of a multi-host window (this host's are the
 * report's own), in the order of hosts. */
static void
hosts_bursts(json_object *rep, FILE *fp)
{
	json_object *hosts = member(rep, "hosts"), *b;
	const char *local = json_get_string(rep, "local_host", "");

	if (hosts == NULL || !json_object_is_type(hosts, json_type_object))
		return;
	json_object_object_foreach(hosts, name, h)
	{
		if (strcmp(name, local) != 0 && h != NULL && (b = member(h, "bursts")) != NULL &&
		    json_object_is_type(b, json_type_object))
			bursts_table(b, name, fp);
	}
}

/* See ctl.h. */
void
ctl_gone_notes(json_object *rep, void (*emit)(const char *line, void *arg), void *arg)
{
	json_object *gone = ctl_array(rep, "devices_gone");
	char line[512];

	for (size_t i = 0; gone != NULL && i < json_object_array_length(gone); i++) {
		json_object *g = json_object_array_get_idx(gone, i);
		int n =
		    snprintf(line, sizeof(line),
		             "%s went away %.3f s into the window (found gone at %s): its figures "
		             "stop there",
		             json_get_string(g, "device", "?"), json_get_double(g, "after_s", NAN),
		             time_of_day(json_get_string(g, "at", "?")));
		if (n > 0 && (size_t)n < sizeof(line) &&
		    json_object_object_get_ex(g, "back_after_s", NULL))
			snprintf(line + n, sizeof(line) - (size_t)n,
			         "; back %.3f s into it, counted from 0 again",
			         json_get_double(g, "back_after_s", NAN));
		emit(line, arg);
	}
}

/* See ctl.h. */
void
ctl_incomplete_notes(json_object *cmp, void (*emit)(const char *line, void *arg), void *arg)
{
	char line[1024];

	for (int s = 0; s < 2; s++) {
		json_object *inc = ctl_array(member(cmp, s ? "b" : "a"), "incomplete");
		for (size_t i = 0; inc && i < json_object_array_length(inc); i++) {
			json_object *o = json_object_array_get_idx(inc, i);
			snprintf(line, sizeof(line), "%c: %s did not complete: %s", s ? 'B' : 'A',
			         json_get_string(o, "name", "?"),
			         json_get_string(o, "reason", "?"));
			emit(line, arg);
		}
	}
}

/* A note as a line of the text. */
static void
emit_line(const char *line, void *arg)
{
	fprintf(arg, "%s\n", line);
}

/* See ctl.h. */
void
render_watch_bursts(json_object *view, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"SERIES",    ">MEAN/S",    ">PEAK/S", "PEAK AT",
	                                  ">INTERVAL", ">PEAK/MEAN", ">LATE",   NULL};
	json_object *series = member(view, "series");
	char label[128], c[6][40], title[160];
	struct table t;

	(void)opts;
	table_init(&t, hdr);
	for (size_t i = 0; series && i < json_object_array_length(series); i++) {
		json_object *e = json_object_array_get_idx(series, i);
		burst_label(e, label, sizeof(label));
		snprintf(c[3], sizeof(c[3]), "%s", time_of_day(json_get_string(e, "peak_at", "?")));
		snprintf(c[4], sizeof(c[4]), "%.1f ms", json_get_double(e, "peak_interval_ms", 0));
		const char *row[] = {label,
		                     num(e, "mean", c[0], sizeof(c[0])),
		                     num(e, "peak", c[1], sizeof(c[1])),
		                     c[3],
		                     c[4],
		                     num(e, "peak_to_mean", c[2], sizeof(c[2])),
		                     num(e, "late", c[5], sizeof(c[5]))};
		table_row(&t, row);
	}
	fmt_span(json_get_double(view, "span_s", 0), c[0], sizeof(c[0]));
	snprintf(title, sizeof(title), "last %s to %s: mean and peak over one sampled interval",
	         c[0], time_of_day(json_get_string(view, "to", "?")));
	if (t.nrows == 0)
		fprintf(fp, "\n%s\n(nothing moved)\n", title);
	section(fp, title, &t);
	if (json_get_int(view, "bursts_omitted", 0) > 0)
		fprintf(fp,
		        "(%lld queues and CPUs of lower peak not shown: [bursts] max_series, or "
		        "--all)\n",
		        (long long)json_get_int(view, "bursts_omitted", 0));
}

static json_object *
report_of(json_object *result)
{
	json_object *r;

	if (json_object_object_get_ex(result, "figures", NULL))
		return result;
	if (json_object_object_get_ex(result, "report", &r) ||
	    json_object_object_get_ex(result, "result", &r))
		return r;
	return result;
}

/* The window line: name, edges, duration, state. */
static void
window_line(json_object *rep, FILE *fp)
{
	json_object *w = member(rep, "window");
	char dur[32];

	fmt_seconds(json_get_double(rep, "span_s", json_get_double(w, "duration_s", 0)), dur,
	            sizeof(dur));
	fprintf(fp, "window %s: %s to %s, %s%s%s\n", json_get_string(w, "name", "?"),
	        json_get_string(w, "start", "?"), json_get_string(w, "end", "?"), dur,
	        json_get_bool(w, "complete", true) ? "" : ", incomplete",
	        json_get_string(w, "state", NULL) ? " (open: live)" : "");
}

/* A result's manifest (result show --manifest): one table per group of settings, the value
 * at the end edge, and START -> END for what changed during the window. */
static void
render_manifest(json_object *result, FILE *fp)
{
	static const char *const hdr[] = {"SETTING", "VALUE", NULL};
	json_object *m = member(result, "manifest"), *settings = member(m, "settings");
	char group[32] = "", g[32], val[2200];
	struct table t;
	bool open = false;

	fprintf(fp, "manifest of %s\n", json_get_string(result, "name", "?"));
	if (settings == NULL) {
		fprintf(fp, "(none: the result was stored without one)\n");
		return;
	}
	json_object_object_foreach(settings, name, s)
	{
		const char *a = json_get_string(s, "start", NULL),
		           *b = json_get_string(s, "end", NULL);
		const char *row[2];
		const char *dot = strchr(name, '.');
		snprintf(g, sizeof(g), "%.*s", dot ? (int)(dot - name) : 31, name);
		if (strcmp(g, group) != 0) {
			if (open)
				section(fp, group, &t);
			snprintf(group, sizeof(group), "%s", g);
			table_init(&t, hdr);
			open = true;
		}
		if (json_get_bool(s, "changed", false))
			snprintf(val, sizeof(val), "%s -> %s (changed during the window)",
			         a ? a : "(none)", b ? b : "(none)");
		else
			snprintf(val, sizeof(val), "%s", b ? b : a ? a : "-");
		row[0] = name;
		row[1] = val;
		table_row(&t, row);
	}
	if (open)
		section(fp, group, &t);
}

/* Every group of the report as its own table, or CSV through report_to_csv. */
void
render_report(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *rep = report_of(result), *f = member(rep, "figures"), *g;

	if (json_object_object_get_ex(result, "manifest", NULL) &&
	    !json_object_object_get_ex(result, "window", NULL)) {
		render_manifest(result, fp);
		return;
	}

	if (opts->csv) {
		char *s = report_to_csv(rep);
		fputs(s, fp);
		free(s);
		return;
	}
	window_line(rep, fp);
	if ((g = member(rep, "test")) != NULL)
		ctl_print_benchmark(g, fp);
	ctl_print_hosts(rep, opts, fp);
	if ((g = member(rep, "trend")) != NULL) {
		/* The rate was not steady over the window (or the test asked). */
		fprintf(fp, "\nTrend of %s over the window\n", json_get_string(g, "metric", "?"));
		render_trend(g, opts, fp);
	}
	if ((g = member(f, "queues")) != NULL) {
		queues_table(g, fp);
		cpusets_table(g, fp);
	}
	if ((g = member(f, "cpu")) != NULL)
		cpu_table(g, fp);
	if ((g = member(f, "interrupts")) != NULL)
		interrupts_table(g, fp);
	if ((g = member(f, "softirqs")) != NULL)
		softirqs_table(g, fp);
	if ((g = member(f, "devices")) != NULL)
		devices_table(g, fp);
	ctl_gone_notes(rep, emit_line, fp);
	if ((g = member(f, "softnet")) != NULL)
		twins_table(g, "Softnet (all CPUs)", fp);
	if ((g = member(f, "tcp")) != NULL) {
		twins_table(g, "TCP (retrans_ratio: retransmitted / sent segments)", fp);
		if ((g = member(g, "tcpext")) != NULL)
			twins_table(g, "TcpExt", fp);
	}
	if ((g = member(f, "udp")) != NULL)
		twins_table(
		    g,
		    "UDP, IPv4 + IPv6 (in_errors holds rcvbuf_errors; in_loss_pct: in_errors "
		    "in % of in_datagrams + in_errors)",
		    fp);
	if ((g = member(f, "sysctl")) != NULL)
		deltas_table(g, "Sysctl counters", fp);
	if ((g = member(f, "lnstat")) != NULL)
		deltas_table(g, "lnstat (what moved)", fp);
	if ((g = member(f, "bpf")) != NULL)
		ctl_report_bpf(g, fp); /* report-bpf.c */
	if ((g = member(rep, "bursts")) != NULL && json_object_is_type(g, json_type_object))
		bursts_table(g, NULL, fp);
	hosts_bursts(rep, fp);
}

/* ---- compare ---- */

/* Colour escapes of one length each, so a column of them stays aligned. */
#define COLOUR_GOOD  "\033[32m"
#define COLOUR_BAD   "\033[31m"
#define COLOUR_PLAIN "\033[39m"
#define COLOUR_RESET "\033[0m"

/* Does the figure's change go the better way (1), the worse (-1), or neither (0)? The
 * daemon's verdict decides, so the colour and the words never disagree. */
static int
verdict(json_object *fig)
{
	const char *v = json_get_string(fig, "verdict", "");

	return strcmp(v, "better") == 0 ? 1 : strcmp(v, "worse") == 0 ? -1 : 0;
}

/* Is a figure 0 (or missing) everywhere: nothing to show people. */
static bool
all_zero(json_object *fig)
{
	static const char *const keys[] = {"mean", "min", "max"};

	for (int s = 0; s < 2; s++) {
		json_object *side = member(fig, s ? "b" : "a");
		for (size_t k = 0; k < 3; k++) {
			json_object *v = member(side, keys[k]);
			if (v != NULL && !json_object_is_type(v, json_type_null) &&
			    json_object_get_double(v) != 0)
				return false;
		}
	}
	return true;
}

/* A side's description: its glob and how many results it matched. */
static void
side_label(json_object *cmp, const char *key, char *buf, size_t size)
{
	json_object *s = member(cmp, key);
	long long n = (long long)json_get_int(s, "n", 0);

	snprintf(buf, size, "%s (%lld result%s)", json_get_string(s, "glob", "?"), n,
	         n == 1 ? "" : "s");
}

/* A number of a figure's JSON as CSV text ("" for null or absent). */
static void
csv_cell(json_object *v, char *buf, size_t size)
{
	snprintf(buf, size, "%s",
	         v != NULL && !json_object_is_type(v, json_type_null)
	             ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN)
	             : "");
	if (v != NULL && json_object_is_type(v, json_type_string))
		snprintf(buf, size, "%s", json_object_get_string(v));
}

/* The comparison as CSV: every figure, every statistic. */
static void
compare_csv(json_object *figs, FILE *fp)
{
	static const char *const hdr[] = {"figure",
	                                  "unit",
	                                  "better",
	                                  "a_mean",
	                                  "a_min",
	                                  "a_max",
	                                  "a_stddev",
	                                  "a_n",
	                                  "b_mean",
	                                  "b_min",
	                                  "b_max",
	                                  "b_stddev",
	                                  "b_n",
	                                  "change",
	                                  "change_pct",
	                                  "a_ci95_low",
	                                  "a_ci95_high",
	                                  "b_ci95_low",
	                                  "b_ci95_high",
	                                  "verdict",
	                                  "t",
	                                  "df",
	                                  "p",
	                                  "significance",
	                                  "warnings",
	                                  "per_s_a_mean",
	                                  "per_s_b_mean",
	                                  "per_s_change_pct",
	                                  "per_s_verdict",
	                                  NULL};
	static const char *const stat[] = {"mean", "min", "max", "stddev", "n"};
	static const char *const ci[] = {"ci95_low", "ci95_high"};
	static const char *const tail[] = {"verdict", "t", "df", "p", "significance"};
	char c[28][64];
	struct table t;

	table_init(&t, hdr);
	for (size_t i = 0; figs && i < json_object_array_length(figs); i++) {
		json_object *f = json_object_array_get_idx(figs, i), *w = member(f, "warnings");
		json_object *ps = member(f, "per_s");
		const char *row[30] = {json_get_string(f, "figure", ""),
		                       json_get_string(f, "unit", ""),
		                       json_get_string(f, "better", "")};
		size_t n = 3, k = 0;
		for (int s = 0; s < 2; s++)
			for (int j = 0; j < 5; j++) {
				csv_cell(member(member(f, s ? "b" : "a"), stat[j]), c[k],
				         sizeof(c[0]));
				row[n++] = c[k++];
			}
		for (int j = 0; j < 2; j++) {
			csv_cell(member(f, j ? "change_pct" : "change"), c[k], sizeof(c[0]));
			row[n++] = c[k++];
		}
		for (int s = 0; s < 2; s++)
			for (int j = 0; j < 2; j++) {
				csv_cell(member(member(f, s ? "b" : "a"), ci[j]), c[k],
				         sizeof(c[0]));
				row[n++] = c[k++];
			}
		for (int j = 0; j < 5; j++) {
			csv_cell(member(f, tail[j]), c[k], sizeof(c[0]));
			row[n++] = c[k++];
		}
		c[k][0] = '\0';
		for (size_t j = 0; w && j < json_object_array_length(w); j++) {
			size_t l = strlen(c[k]);
			snprintf(c[k] + l, sizeof(c[0]) - l, "%s%s", l ? " " : "",
			         json_object_get_string(json_object_array_get_idx(w, j)));
		}
		row[n++] = c[k++];
		/* A total over windows of unequal length: its per-second figures (else empty). */
		csv_cell(member(member(ps, "a"), "mean"), c[k], sizeof(c[0]));
		row[n++] = c[k++];
		csv_cell(member(member(ps, "b"), "mean"), c[k], sizeof(c[0]));
		row[n++] = c[k++];
		csv_cell(member(ps, "change_pct"), c[k], sizeof(c[0]));
		row[n++] = c[k++];
		csv_cell(member(ps, "verdict"), c[k], sizeof(c[0]));
		row[n++] = c[k++];
		table_row(&t, row);
	}
	table_print_csv(&t, fp);
	table_free(&t);
}

/* A side's mean, and with several results its stddev and 95 % confidence interval, into
 * cells. */
static void
side_cells(json_object *side, bool many, char c[3][96], const char **row)
{
	char lo[40], hi[40];

	num(side, "mean", c[0], 96);
	row[0] = c[0];
	if (!many)
		return;
	num(side, "stddev", c[1], 96);
	row[1] = c[1];
	json_object *l = member(side, "ci95_low");
	if (l == NULL || json_object_is_type(l, json_type_null))
		snprintf(c[2], 96, "-");
	else
		snprintf(c[2], 96, "%s..%s", num(side, "ci95_low", lo, sizeof(lo)),
		         num(side, "ci95_high", hi, sizeof(hi)));
	row[2] = c[2];
}

/* The figure's judgement in words: "better, significant", "worse, within noise",
 * "within noise" (no direction), "same"; with "(!)" when a warning goes with it. */
static void
judgement(json_object *f, char *buf, size_t size)
{
	const char *v = json_get_string(f, "verdict", NULL);
	const char *s = json_get_string(f, "significance", NULL);
	json_object *w = member(f, "warnings");
	bool warn = w != NULL && json_object_array_length(w) > 0;

	json_object *ps = member(f, "per_s");
	const char *nc = json_get_string(f, "not_comparable", NULL);
	const char *cause = json_get_string(f, "cause", NULL);

	if (nc != NULL) {
		/* A packet count across an offload that changes packet sizes. */
		snprintf(buf, size, "%s", nc);
		return;
	}
	if (v != NULL && strcmp(v, "same") == 0)
		s = NULL;
	if (ps != NULL) {
		/* A total over windows of unequal length: judged per second only. */
		json_object *pct = member(ps, "change_pct");
		const char *pv = json_get_string(ps, "verdict", NULL);
		char p[32] = "";
		if (pct != NULL && !json_object_is_type(pct, json_type_null))
			snprintf(p, sizeof(p), " %+.1f%%", json_object_get_double(pct));
		snprintf(buf, size, "total not judged; per s%s%s%s", p, pv ? " " : "",
		         pv ? pv : "");
		return;
	}
	/* Several settings: named once above the table, counted here. */
	const char *colon = cause != NULL ? strstr(cause, ": ") : NULL;
	snprintf(buf, size, "%s%s%s%s%s%.*s", v ? v : "", v && s ? ", " : "", s ? s : "",
	         warn ? " (!)" : "", cause ? " " : "",
	         cause ? (colon ? (int)(colon - cause) : (int)strlen(cause)) : 0,
	         cause ? cause : "");
}

/* Why the totals of a comparison are not judged, when they are not. */
static void
compare_windows_note(json_object *cmp, FILE *fp)
{
	json_object *w = member(cmp, "windows");

	if (w == NULL || json_get_bool(w, "totals_judged", true))
		return;
	fprintf(fp,
	        "(totals are not judged: the windows last %.1f s (A) and %.1f s (B), %.0f %% "
	        "apart, more than %.0f %%; their per-second figures are)\n",
	        json_get_double(w, "a_span_s", 0), json_get_double(w, "b_span_s", 0),
	        json_get_double(w, "difference_pct", 0), json_get_double(w, "tolerance_pct", 0));
}

/* The settings that differ between A and B (from the results' manifests), by group, the
 * cause in words, and the settings that differ across one side's results. */
static void
compare_settings(json_object *result, FILE *fp)
{
	json_object *st = member(result, "settings");
	json_object *d = ctl_array(st, "differences"), *v = ctl_array(st, "varying");
	const char *group = "", *cause = json_get_string(st, "cause", NULL);

	if (d != NULL && json_object_array_length(d) > 0) {
		fprintf(fp, "Settings that differ (A -> B):\n");
		for (size_t i = 0; i < json_object_array_length(d); i++) {
			json_object *o = json_object_array_get_idx(d, i);
			const char *g = json_get_string(o, "group", "?");
			if (strcmp(g, group) != 0)
				fprintf(fp, "  %s\n", g);
			group = g;
			fprintf(fp, "    %s: %s -> %s\n", json_get_string(o, "setting", "?"),
			        json_get_string(o, "a", "(none)"),
			        json_get_string(o, "b", "(none)"));
		}
		if (cause != NULL)
			fprintf(fp, "Changes below are %s.\n", cause);
		fputc('\n', fp);
	}
	for (size_t i = 0; v != NULL && i < json_object_array_length(v); i++) {
		json_object *o = json_object_array_get_idx(v, i), *vals = member(o, "values");
		fprintf(fp, "(!) %s: %s differs across its results (the runs were not alike):",
		        json_get_string(o, "side", "?"), json_get_string(o, "setting", "?"));
		for (size_t k = 0; vals != NULL && k < json_object_array_length(vals); k++) {
			json_object *x = json_object_array_get_idx(vals, k);
			fprintf(fp, "%s %s", k ? "," : "",
			        x ? json_object_get_string(x) : "(none)");
		}
		fputc('\n', fp);
	}
	if (v != NULL && json_object_array_length(v) > 0)
		fputc('\n', fp);
}

/* The warnings of the comparison: each with the figures it goes with. */
static void
compare_warnings(json_object *result, FILE *fp)
{
	json_object *w = ctl_array(result, "warnings");

	for (size_t i = 0; w && i < json_object_array_length(w); i++) {
		json_object *o = json_object_array_get_idx(w, i);
		fprintf(fp, "(!) %s: %s\n", json_get_string(o, "side", "?"),
		        json_get_string(o, "message", "?"));
	}
}

/* One row per figure that is not 0 on both sides (all of the summary's), coloured by
 * better/worse, judged in words. */
static void
compare_table(json_object *figs, bool many, bool colour, bool summary, FILE *fp)
{
	static const char *const hdr1[] = {"FIGURE",  "UNIT", ">A",      ">B",
	                                   ">CHANGE", ">%",   "VERDICT", NULL};
	static const char *const hdrn[] = {"FIGURE", "UNIT",    ">A",        ">A SD",   ">A 95% CI",
	                                   ">B",     ">B SD",   ">B 95% CI", ">CHANGE", ">%",
	                                   ">P",     "VERDICT", NULL};
	char sa[3][96], sb[3][96], ch[2][64], tmp[40], pv[40], jd[256];
	size_t zero = 0;
	struct table t;

	table_init(&t, many ? hdrn : hdr1);
	for (size_t i = 0; figs && i < json_object_array_length(figs); i++) {
		json_object *f = json_object_array_get_idx(figs, i), *pct = member(f, "change_pct");
		const char *row[12];
		const char *col = "", *end = "";
		int v = verdict(f);
		size_t n = 2;
		/* The summary's rows are shown even when 0: they are the ones asked for. */
		if (!summary && all_zero(f)) {
			zero++;
			continue;
		}
		if (colour) {
			col = v > 0 ? COLOUR_GOOD : v < 0 ? COLOUR_BAD : COLOUR_PLAIN;
			end = COLOUR_RESET;
		}
		row[0] = json_get_string(f, "figure", "?");
		row[1] = json_get_string(f, "unit", "");
		side_cells(member(f, "a"), many, sa, row + n);
		n += many ? 3 : 1;
		side_cells(member(f, "b"), many, sb, row + n);
		n += many ? 3 : 1;
		num(f, "change", tmp, sizeof(tmp));
		snprintf(ch[0], sizeof(ch[0]), "%s%s%s%s", col,
		         member(f, "change") && json_get_double(f, "change", 0) > 0 ? "+" : "", tmp,
		         end);
		if (pct == NULL || json_object_is_type(pct, json_type_null))
			snprintf(tmp, sizeof(tmp), "-");
		else
			snprintf(tmp, sizeof(tmp), "%+.1f%%", json_object_get_double(pct));
		snprintf(ch[1], sizeof(ch[1]), "%s%s%s", col, tmp, end);
		row[n++] = ch[0];
		row[n++] = ch[1];
		if (many) {
			json_object *p = member(f, "p");
			if (p == NULL || json_object_is_type(p, json_type_null))
				snprintf(pv, sizeof(pv), "-");
			else
				snprintf(pv, sizeof(pv), "%.3g", json_object_get_double(p));
			row[n++] = pv;
		}
		judgement(f, jd, sizeof(jd));
		row[n++] = jd;
		table_row(&t, row);
	}
	table_print(&t, fp);
	table_free(&t);
	if (zero > 0)
		fprintf(fp, "(%zu figures 0 on both sides not shown)\n", zero);
}

/* What one side has and the other lacks: "KEY NAME: only in A". */
static void
compare_missing(json_object *missing, const char *key, FILE *fp)
{
	for (size_t i = 0; missing && i < json_object_array_length(missing); i++) {
		json_object *m = json_object_array_get_idx(missing, i);
		fprintf(fp, "%s %s: only in %s (not compared)\n", key, json_get_string(m, key, "?"),
		        strcmp(json_get_string(m, "in", ""), "a") == 0 ? "A" : "B");
	}
}

/* A multi-host comparison's hosts, one table each, and the cross-host figures. */
static void
compare_hosts(json_object *result, bool many, bool colour, FILE *fp)
{
	json_object *hosts = member(result, "hosts"), *cross = member(result, "cross");
	bool summary = json_get_bool(result, "summary", false);

	if (hosts == NULL || !json_object_is_type(hosts, json_type_object))
		return;
	json_object_object_foreach(hosts, name, cmp)
	{
		fprintf(fp, "\n== host %s ==\n", name);
		compare_table(ctl_array(cmp, "figures"), many, colour, summary, fp);
		compare_windows_note(cmp, fp);
		compare_missing(ctl_array(cmp, "missing"), "device", fp);
	}
	compare_missing(ctl_array(result, "hosts_missing"), "host", fp);
	if (cross != NULL) {
		fprintf(fp, "\n== across hosts (sender>receiver) ==\n");
		compare_table(ctl_array(cross, "figures"), many, colour, false, fp);
		compare_windows_note(cross, fp);
		compare_missing(ctl_array(cross, "missing"), "pair", fp);
	}
}

/* The comparison: its figures, then with multi-host results each host's and the
 * cross-host ones; two suites point by point. */
void
render_compare(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *figs = ctl_array(result, "figures"), *pts;
	const char *nc = getenv("NO_COLOR");
	bool colour = isatty(fileno(fp)) && (nc == NULL || *nc == '\0');
	bool many = json_get_int(member(result, "a"), "n", 1) > 1 ||
	            json_get_int(member(result, "b"), "n", 1) > 1;
	char la[300], lb[300];

	if (json_object_object_get_ex(result, "points", &pts)) {
		/* Two suites: one comparison per point of the matrix. */
		for (size_t i = 0; i < json_object_array_length(pts); i++) {
			json_object *p = json_object_array_get_idx(pts, i);
			if (!opts->csv)
				fprintf(fp, "%s== %s: %s against %s ==\n", i ? "\n" : "",
				        json_get_string(p, "point", "?"),
				        json_get_string(result, "suite_a", "A"),
				        json_get_string(result, "suite_b", "B"));
			render_compare(p, opts, fp);
		}
		return;
	}
	if (opts->csv) {
		compare_csv(figs, fp);
		return;
	}
	side_label(result, "a", la, sizeof(la));
	side_label(result, "b", lb, sizeof(lb));
	fprintf(fp, "A: %s\nB: %s\n", la, lb);
	ctl_incomplete_notes(result, emit_line, fp);
	fputc('\n', fp);
	compare_settings(result, fp);
	compare_table(figs, many, colour, json_get_bool(result, "summary", false), fp);
	compare_windows_note(result, fp);
	compare_warnings(result, fp);
	compare_hosts(result, many, colour, fp);
}
