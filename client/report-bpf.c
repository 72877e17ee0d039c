/* report-bpf.c: the sections of a window's report from its "bpf" figure (the daemon's
 * report-bpf.c): softirq time per CPU, drops by reason, NAPI instances, and what the eBPF
 * programs cost during the window. */
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "jsonutil.h"
#include "render-table.h"

/* Print a table under a title line, or nothing when it has no rows. */
static void
bpf_section(FILE *fp, const char *title, struct table *t)
{
	if (t->nrows > 0) {
		fprintf(fp, "\n%s\n", title);
		table_print(t, fp);
	}
	table_free(t);
}

/* One row per CPU, one column per softirq type that took time, then the seconds in all. */
static void
softirq_time_table(json_object *st, FILE *fp)
{
	json_object *cpus = ctl_array(st, "cpus"), *tot = NULL;
	const char *hdr[TABLE_MAX_COLS + 1] = {">CPU"}, *types[TABLE_MAX_COLS];
	static char names[TABLE_MAX_COLS][48];
	size_t nt = 0;
	struct table t;

	json_object_object_get_ex(st, "total_s", &tot);
	if (tot == NULL)
		return;
	json_object_object_foreach(tot, type, v)
	{
		if (json_object_get_double(v) <= 0 || nt + 1 >= TABLE_MAX_COLS)
			continue;
		snprintf(names[nt], sizeof(names[nt]), ">%s%%", type);
		types[nt] = type;
		hdr[nt + 1] = names[nt];
		nt++;
	}
	hdr[nt + 1] = NULL;
	table_init(&t, hdr);
	for (size_t c = 0; cpus && c <= json_object_array_length(cpus); c++) {
		bool all = c == json_object_array_length(cpus);
		json_object *co = all ? NULL : json_object_array_get_idx(cpus, c), *pct = NULL;
		char cells[TABLE_MAX_COLS][32];
		const char *row[TABLE_MAX_COLS];

		if (all)
			snprintf(cells[0], sizeof(cells[0]), "all (s)");
		else {
			snprintf(cells[0], sizeof(cells[0]), "%lld",
			         (long long)json_get_int(co, "cpu", -1));
			json_object_object_get_ex(co, "pct", &pct);
		}
		row[0] = cells[0];
		for (size_t i = 0; i < nt; i++) {
			if (all)
				snprintf(cells[i + 1], sizeof(cells[i + 1]), "%.3f",
				         json_get_double(tot, types[i], 0));
			else
				snprintf(cells[i + 1], sizeof(cells[i + 1]), "%.2f",
				         json_get_double(pct, types[i], 0));
			row[i + 1] = cells[i + 1];
		}
		table_row(&t, row);
	}
	bpf_section(fp,
	            "Softirq time per CPU (% of each CPU's time; eBPF: entry to exit, less the "
	            "hard IRQ handler time inside)",
	            &t);
}

/* The reasons in all, then their parts per device, then the qdiscs' drops per device. */
static void
drops_table(json_object *drops, FILE *fp)
{
	static const char *const hdr[] = {"REASON", "DEVICE", ">PACKETS", NULL};
	json_object *reasons = NULL, *devices = NULL, *qdisc = NULL;
	struct table t;
	char n[32], what[80];

	json_object_object_get_ex(drops, "reasons", &reasons);
	json_object_object_get_ex(drops, "devices", &devices);
	table_init(&t, hdr);
	if (reasons != NULL) {
		json_object_object_foreach(reasons, reason, v)
		{
			fmt_decimal(json_object_get_double(v), 0, n, sizeof(n));
			const char *row[] = {reason, "(all)", n};
			table_row(&t, row);
		}
	}
	if (devices != NULL) {
		json_object_object_foreach(devices, dev, rs)
		{
			json_object_object_foreach(rs, reason, v)
			{
				fmt_decimal(json_object_get_double(v), 0, n, sizeof(n));
				const char *row[] = {reason, dev, n};
				table_row(&t, row);
			}
		}
	}
	json_object_object_get_ex(drops, "qdisc", &qdisc);
	if (qdisc != NULL) {
		json_object_object_foreach(qdisc, dev, qs)
		{
			json_object_object_foreach(qs, qid, v)
			{
				fmt_decimal(json_object_get_double(v), 0, n, sizeof(n));
				snprintf(what, sizeof(what), "qdisc %s", qid);
				const char *row[] = {what, dev, n};
				table_row(&t, row);
			}
		}
	}
	bpf_section(fp, "Drops by reason (eBPF, skb:kfree_skb; qdisc: the qdisc's own count)", &t);
}

/* The NAPI instances that polled. */
static void
napi_table(json_object *arr, FILE *fp)
{
	static const char *const hdr[] = {">NAPI",      "DEVICE",     ">POLLS", ">PACKETS",
	                                  ">PKTS/POLL", ">EXHAUSTED", NULL};
	struct table t;

	table_init(&t, hdr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		char c[4][32];

		fmt_decimal((double)json_get_int(o, "polls", 0), 0, c[0], sizeof(c[0]));
		fmt_decimal((double)json_get_int(o, "packets", 0), 0, c[1], sizeof(c[1]));
		snprintf(c[2], sizeof(c[2]), "%.1f", json_get_double(o, "packets_per_poll", 0));
		fmt_decimal((double)json_get_int(o, "exhausted", 0), 0, c[3], sizeof(c[3]));
		const char *row[] = {json_get_string(o, "id", ""),
		                     json_get_string(o, "device", ""),
		                     c[0],
		                     c[1],
		                     c[2],
		                     c[3]};
		table_row(&t, row);
	}
	bpf_section(fp,
	            "NAPI instances (eBPF, napi:napi_poll; EXHAUSTED: polls that used their "
	            "whole budget)",
	            &t);
}

/* What each program cost in the window. */
static void
programs_table(json_object *progs, FILE *fp)
{
	static const char *const hdr[] = {"PROGRAM", ">RUNS", ">NS/RUN", ">CPU%", NULL};
	struct table t;

	table_init(&t, hdr);
	json_object_object_foreach(progs, name, p)
	{
		char c[3][32];

		fmt_decimal((double)json_get_int(p, "runs", 0), 0, c[0], sizeof(c[0]));
		snprintf(c[1], sizeof(c[1]), "%.0f", json_get_double(p, "ns_per_run", 0));
		snprintf(c[2], sizeof(c[2]), "%.3f", json_get_double(p, "cpu_pct", 0));
		const char *row[] = {name, c[0], c[1], c[2]};
		table_row(&t, row);
	}
	bpf_section(fp, "eBPF programs' cost in the window (CPU%: their run time against one CPU)",
	            &t);
}

void
ctl_report_bpf(json_object *bpf, FILE *fp)
{
	json_object *g;

	if (json_object_object_get_ex(bpf, "softirq_time", &g))
		softirq_time_table(g, fp);
	if (json_object_object_get_ex(bpf, "drops", &g))
		drops_table(g, fp);
	if (json_object_object_get_ex(bpf, "napi", &g))
		napi_table(g, fp);
	if (json_object_object_get_ex(bpf, "programs", &g))
		programs_table(g, fp);
}
