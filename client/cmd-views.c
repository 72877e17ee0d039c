/* cmd-views.c: renderers for the host views: cpu, softirqs, queues, interrupts. */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "jsonutil.h"
#include "render-table.h"

/* One percentage cell. */
static void
pct(json_object *o, const char *key, char *buf, size_t size)
{
	snprintf(buf, size, "%.1f", json_get_double(o, key, 0));
}

/* A row of the cpu table for one CPU or a total: the ten modes (user without guest, nice
 * without guest_nice: they add up to 100), busy and CPUs busy. */
static void
cpu_row(struct table *t, const char *label, json_object *o)
{
	static const char *const keys[] = {"user",       "nice",   "system", "irq",
	                                   "softirq",    "iowait", "steal",  "guest",
	                                   "guest_nice", "idle",   "busy"};
	char cells[12][24];
	const char *row[13];

	row[0] = label;
	for (size_t i = 0; i < 11; i++) {
		pct(o, keys[i], cells[i], sizeof(cells[i]));
		row[i + 1] = cells[i];
	}
	snprintf(cells[11], sizeof(cells[11]), "%.2f", json_get_double(o, "busy_cpus", 0));
	row[12] = cells[11];
	table_row(t, row);
}

void
render_cpu(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {">CPU",   ">%USR",  ">%NICE",     ">%SYS",   ">%IRQ",
	                                  ">%SOFT", ">%IOW",  ">%STEAL",    ">%GUEST", ">%GNICE",
	                                  ">%IDLE", ">%BUSY", ">CPUS BUSY", NULL};
	json_object *arr = ctl_array(result, "cpus"), *o;
	struct table t;
	char label[32];

	ctl_span_line(result, opts, fp);
	table_init(&t, hdr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		o = json_object_array_get_idx(arr, i);
		snprintf(label, sizeof(label), "%lld", (long long)json_get_int(o, "cpu", -1));
		cpu_row(&t, label, o);
	}
	/* The --cpus set's sum, when it sums more than the one row already shown. */
	if (json_object_object_get_ex(result, "set", &o) && json_get_int(o, "count", 0) > 1)
		cpu_row(&t, json_get_string(o, "cpus", "set"), o);
	if (json_object_object_get_ex(result, "all", &o))
		cpu_row(&t, "all", o);
	ctl_table_out(&t, opts, fp);
}

/* One cell of a softirqs row: the rate of type name, or with pct its share of time. */
static void
softirq_cell(json_object *rates, json_object *pct, const char *name, bool time, char *buf,
             size_t size)
{
	if (!time)
		fmt_decimal(json_get_double(rates, name, 0), 0, buf, size);
	else if (pct != NULL && json_object_object_get_ex(pct, name, NULL))
		snprintf(buf, size, "%.2f", json_get_double(pct, name, 0));
	else
		snprintf(buf, size, "-");
}

void
render_softirqs(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *types = ctl_array(result, "types"), *cpus = ctl_array(result, "cpus");
	json_object *tot = NULL, *ttot = NULL;
	const char *hdr[TABLE_MAX_COLS + 1] = {">CPU"};
	static char names[TABLE_MAX_COLS][40];
	const char *tn[TABLE_MAX_COLS];
	bool is_time[TABLE_MAX_COLS];
	size_t nt = 0;
	struct table t;

	json_object_object_get_ex(result, "total", &tot);
	json_object_object_get_ex(result, "time_total_pct", &ttot);
	/* Only the types that moved, to keep the table narrow; with --time each one's share of
	 * the CPU's time (%) after its rate. */
	for (size_t i = 0; types && i < json_object_array_length(types) && nt + 1 < TABLE_MAX_COLS;
	     i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(types, i));
		if (json_get_double(tot, name, 0) == 0)
			continue;
		snprintf(names[nt], sizeof(names[nt]), ">%s/s", name);
		tn[nt] = name;
		is_time[nt] = false;
		hdr[nt + 1] = names[nt];
		nt++;
		if (ttot != NULL && nt + 1 < TABLE_MAX_COLS) {
			snprintf(names[nt], sizeof(names[nt]), ">%s%%", name);
			tn[nt] = name;
			is_time[nt] = true;
			hdr[nt + 1] = names[nt];
			nt++;
		}
	}
	hdr[nt + 1] = NULL;
	ctl_span_line(result, opts, fp);
	if (!opts->csv && json_object_object_get_ex(result, "time", NULL) && ttot == NULL)
		fprintf(fp, "softirq time: %s\n", json_get_string(result, "time", ""));
	else if (!opts->csv && ttot != NULL)
		fprintf(fp,
		        "softirq time: %% of each CPU's time, from the bpf source (entry to exit, "
		        "less the hard IRQ handler time inside)\n");
	table_init(&t, hdr);
	for (size_t c = 0; cpus && c <= json_object_array_length(cpus); c++) {
		bool total = c == json_object_array_length(cpus);
		json_object *co = total ? NULL : json_object_array_get_idx(cpus, c);
		json_object *rates = tot, *pct = ttot;
		char cells[TABLE_MAX_COLS][32];
		const char *row[TABLE_MAX_COLS];
		if (!total) {
			json_object_object_get_ex(co, "rates", &rates);
			pct = NULL;
			json_object_object_get_ex(co, "time_pct", &pct);
			snprintf(cells[0], sizeof(cells[0]), "%lld",
			         (long long)json_get_int(co, "cpu", -1));
		} else
			snprintf(cells[0], sizeof(cells[0]), "all");
		row[0] = cells[0];
		for (size_t i = 0; i < nt; i++) {
			softirq_cell(rates, pct, tn[i], is_time[i], cells[i + 1],
			             sizeof(cells[i + 1]));
			row[i + 1] = cells[i + 1];
		}
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
}

/* The NAPI ids the kernel links a queue row's rx and tx queue to. */
void
ctl_napi_cell(json_object *qo, char *buf, size_t size)
{
	json_object *rx = NULL, *tx = NULL;
	char r[24] = "-", t[24] = "-";

	if (json_object_object_get_ex(qo, "rx_napi", &rx) && rx != NULL)
		snprintf(r, sizeof(r), "%lld", (long long)json_get_int(rx, "id", -1));
	if (json_object_object_get_ex(qo, "tx_napi", &tx) && tx != NULL)
		snprintf(t, sizeof(t), "%lld", (long long)json_get_int(tx, "id", -1));
	if (strcmp(r, t) == 0)
		snprintf(buf, size, "%s", r);
	else
		snprintf(buf, size, "%s/%s", r, t);
}

void
render_queues(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"DEVICE",      ">QUEUE",      ">RX PKT/S", ">TX PKT/S",
	                                  ">RX BYTES/S", ">TX BYTES/S", "NAPI",      "IRQ",
	                                  "IRQ FROM",    "CPUS",        NULL};
	json_object *devs = ctl_array(result, "devices");
	struct table t;

	ctl_span_line(result, opts, fp);
	table_init(&t, hdr);
	for (size_t i = 0; devs && i < json_object_array_length(devs); i++) {
		json_object *dev = json_object_array_get_idx(devs, i);
		json_object *qs = ctl_array(dev, "queues"), *tot = NULL;
		const char *name = json_get_string(dev, "name", "?");
		char c[4][32], q[16], irq[64], napi[48];
		for (size_t j = 0; qs && j <= json_object_array_length(qs); j++) {
			bool total = j == json_object_array_length(qs);
			json_object *qo;
			if (total) {
				if (!json_object_object_get_ex(dev, "total", &tot))
					break;
				qo = tot;
				snprintf(q, sizeof(q), "all");
				irq[0] = napi[0] = '\0';
			} else {
				qo = json_object_array_get_idx(qs, j);
				snprintf(q, sizeof(q), "%lld",
				         (long long)json_get_int(qo, "queue", -1));
				snprintf(irq, sizeof(irq), "%s", json_get_string(qo, "irqs", ""));
				ctl_napi_cell(qo, napi, sizeof(napi));
			}
			fmt_decimal(json_get_double(qo, "rx_pps", 0), 0, c[0], sizeof(c[0]));
			fmt_decimal(json_get_double(qo, "tx_pps", 0), 0, c[1], sizeof(c[1]));
			fmt_bytes(json_get_double(qo, "rx_bytes_ps", 0), c[2], sizeof(c[2]));
			fmt_bytes(json_get_double(qo, "tx_bytes_ps", 0), c[3], sizeof(c[3]));
			const char *row[] = {name,
			                     q,
			                     c[0],
			                     c[1],
			                     c[2],
			                     c[3],
			                     napi,
			                     irq,
			                     total ? "" : json_get_string(qo, "irq_origin", ""),
			                     total ? "" : json_get_string(qo, "cpus", "")};
			table_row(&t, row);
		}
	}
	ctl_table_out(&t, opts, fp);
	if (!opts->csv && json_get_double(result, "min_rate", 0) > 0)
		fprintf(fp, "(queues below %.0f packets/s hidden)\n",
		        json_get_double(result, "min_rate", 0));
	/* What a driver's queue counters lack (gve: no packets). */
	devs = ctl_array(result, "devices");
	for (size_t i = 0; !opts->csv && devs && i < json_object_array_length(devs); i++) {
		json_object *o = json_object_array_get_idx(devs, i);
		const char *note = json_get_string(o, "note", NULL);
		json_object *pp = NULL;
		if (note != NULL)
			fprintf(fp, "%s: %s\n", json_get_string(o, "name", "?"), note);
		if (json_object_object_get_ex(o, "drops_per_port", &pp) &&
		    json_object_get_boolean(pp))
			fprintf(fp,
			        "%s: every drop was counted on queue 0 while other queues carried "
			        "packets: the port's drops, not queue 0's\n",
			        json_get_string(o, "name", "?"));
	}
	/* Devices whose queue figures are not their own counters, and why. */
	devs = ctl_array(result, "queue_counters");
	for (size_t i = 0; !opts->csv && devs && i < json_object_array_length(devs); i++) {
		json_object *o = json_object_array_get_idx(devs, i);
		bool mq = strcmp(json_get_string(o, "counters", ""), "mq-class") == 0;
		fprintf(fp, "%s: %s: %s\n", json_get_string(o, "name", "?"),
		        mq ? "tx queues from mq classes" : "no per-queue counters",
		        json_get_string(o, "why", ""));
	}
}

void
render_interrupts(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {">IRQ", "NAME",     "DEVICE",      ">QUEUE",
	                                  "FROM", "AFFINITY", ">PER SECOND", "CPUS (PER SECOND)",
	                                  NULL};
	json_object *arr = ctl_array(result, "irqs");
	struct table t;

	ctl_span_line(result, opts, fp);
	table_init(&t, hdr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i), *cpus = NULL;
		char rate[32], q[16], where[256] = "";
		size_t off = 0;
		fmt_decimal(json_get_double(o, "rate", 0), 0, rate, sizeof(rate));
		if (json_get_int(o, "queue", -1) >= 0)
			snprintf(q, sizeof(q), "%lld", (long long)json_get_int(o, "queue", -1));
		else
			q[0] = '\0';
		if (json_object_object_get_ex(o, "cpus", &cpus)) {
			json_object_object_foreach(cpus, k, v)
			{
				char r[32];
				fmt_decimal(json_object_get_double(v), 0, r, sizeof(r));
				if (off < sizeof(where) - 40)
					off += (size_t)snprintf(where + off, sizeof(where) - off,
					                        "%s%s:%s", off ? " " : "", k, r);
			}
		}
		const char *row[] = {json_get_string(o, "irq", ""),
		                     json_get_string(o, "name", ""),
		                     json_get_string(o, "device", ""),
		                     q,
		                     json_get_string(o, "origin", ""),
		                     json_get_string(o, "affinity", ""),
		                     rate,
		                     where};
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
}

/* The napi view: one row per NAPI instance that polled. */
void
render_napi(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {">NAPI",      "DEVICE",     ">QUEUE",
	                                  ">POLLS/S",   ">PACKETS/S", ">PKTS/POLL",
	                                  ">EXHAUSTED", ">EXH%",      "CPUS (SHARE OF POLLS)",
	                                  NULL};
	json_object *arr = ctl_array(result, "napis");
	struct table t;

	ctl_span_line(result, opts, fp);
	if (!opts->csv && strcmp(json_get_string(result, "napi", "bpf"), "bpf") != 0)
		fprintf(fp, "napi: %s\n", json_get_string(result, "napi", ""));
	table_init(&t, hdr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i), *cpus = ctl_array(o, "cpus");
		char q[16] = "", polls[32], pkts[32], ppp[32], exh[32], exhp[32], where[256] = "";
		size_t off = 0;

		if (json_get_int(o, "queue", -1) >= 0)
			snprintf(q, sizeof(q), "%lld", (long long)json_get_int(o, "queue", -1));
		fmt_decimal(json_get_double(o, "polls_per_s", 0), 0, polls, sizeof(polls));
		fmt_decimal(json_get_double(o, "packets_per_s", 0), 0, pkts, sizeof(pkts));
		snprintf(ppp, sizeof(ppp), "%.1f", json_get_double(o, "packets_per_poll", 0));
		fmt_decimal((double)json_get_int(o, "exhausted", 0), 0, exh, sizeof(exh));
		snprintf(exhp, sizeof(exhp), "%.2f", json_get_double(o, "exhausted_pct", 0));
		for (size_t c = 0; cpus && c < json_object_array_length(cpus); c++) {
			json_object *co = json_object_array_get_idx(cpus, c);

			if (off < sizeof(where) - 40)
				off += (size_t)snprintf(where + off, sizeof(where) - off,
				                        "%s%lld:%.0f%%", off ? " " : "",
				                        (long long)json_get_int(co, "cpu", -1),
				                        json_get_double(co, "share_pct", 0));
		}
		const char *row[] = {json_get_string(o, "id", ""),
		                     json_get_string(o, "device", ""),
		                     q,
		                     polls,
		                     pkts,
		                     ppp,
		                     exh,
		                     exhp,
		                     where};
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
}

/* The drops view: the counters that moved, grouped by where the packets were lost. */
void
render_drops(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"WHERE",  "COUNTER",     "DEVICE",         ">CPU",
	                                  ">DROPS", ">PER SECOND", "DEVICE REASONS", NULL};
	json_object *groups = ctl_array(result, "groups");
	struct table t;

	ctl_span_line(result, opts, fp);
	if (!opts->csv && strcmp(json_get_string(result, "reasons", "bpf"), "bpf") != 0)
		fprintf(fp, "drop reasons: %s\n", json_get_string(result, "reasons", ""));
	table_init(&t, hdr);
	for (size_t g = 0; groups && g < json_object_array_length(groups); g++) {
		json_object *go = json_object_array_get_idx(groups, g),
		            *arr = ctl_array(go, "counters");

		for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
			json_object *o = json_object_array_get_idx(arr, i), *l = NULL, *dr = NULL;
			char cpu[16] = "", delta[32], rate[32], reasons[160] = "", n[32];
			size_t rl = 0;

			json_object_object_get_ex(o, "labels", &l);
			/* A qdisc's row: the bpf drop reasons on its device, beside it. */
			if (json_object_object_get_ex(o, "device_reasons", &dr) && dr != NULL) {
				json_object_object_foreach(dr, reason, v)
				{
					fmt_decimal(json_object_get_double(v), 0, n, sizeof(n));
					if (rl < sizeof(reasons))
						rl += (size_t)snprintf(
						    reasons + rl, sizeof(reasons) - rl, "%s%s %s",
						    rl ? ", " : "", reason, n);
				}
			}
			if (json_get_int(l, "cpu", -1) >= 0)
				snprintf(cpu, sizeof(cpu), "%lld",
				         (long long)json_get_int(l, "cpu", -1));
			fmt_decimal((double)json_get_int(o, "delta", 0), 0, delta, sizeof(delta));
			fmt_decimal(json_get_double(o, "rate", 0), 1, rate, sizeof(rate));
			const char *row[] = {json_get_string(go, "where", ""),
			                     json_get_string(o, "name", ""),
			                     json_get_string(l, "device", ""),
			                     cpu,
			                     delta,
			                     rate,
			                     reasons};
			table_row(&t, row);
		}
	}
	ctl_table_out(&t, opts, fp);
}
