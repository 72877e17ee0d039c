/* report-bpf.c: a window's "bpf" figure (report-bpf.h): softirq time per CPU, drops by
 * reason, NAPI instances and the programs' own cost, from the two edge snapshots. The series
 * are found by their labels (source bpf; table drop or napi; field time, run_time, run_cnt),
 * never by parsing more of a name than its last part. The qdiscs' drops (source qdisc) go
 * beside the drops by reason, per device and qdisc, where the same packets show as
 * QDISC_DROP or the like. */
#include <stdio.h>
#include <string.h>

#include "jsonutil.h"
#include "report-bpf.h"
#include "xmalloc.h"

/* The seconds of the window as the bpf source saw them. */
static double
bpf_secs(const struct snapshot *a, const struct snapshot *b, const struct series_info *si)
{
	return snapshot_seconds(a, b, si->source);
}

/* The object of o under key, made when new. */
static json_object *
member(json_object *o, const char *key)
{
	json_object *m;

	if (!json_object_object_get_ex(o, key, &m)) {
		m = json_object_new_object();
		json_object_object_add(o, key, m);
	}
	return m;
}

/* One CPU's entry of the softirq time's "cpus", made when new (kept in CPU order: the
 * registry gives a type's CPUs in order, and every type has every CPU). */
static json_object *
cpu_entry(json_object *cpus, int cpu)
{
	size_t n = json_object_array_length(cpus);
	json_object *co;

	for (size_t i = 0; i < n; i++) {
		co = json_object_array_get_idx(cpus, i);
		if (json_get_int(co, "cpu", -1) == cpu)
			return json_object_object_get(co, "pct");
	}
	co = json_object_new_object();
	json_add_int(co, "cpu", cpu);
	json_object_object_add(co, "pct", json_object_new_object());
	json_object_array_add(cpus, co);
	return json_object_object_get(co, "pct");
}

/* A program's entry under "programs", made when new. */
static json_object *
prog_entry(json_object *progs, const char *name)
{
	return member(progs, name);
}

/* A qdisc's drops over the window into drops.qdisc.<DEV>.<ID> (qdisc.<DEV>.<ID>.drops). */
static void
qdisc_drops(const struct series_registry *reg, series_id id, uint64_t d, json_object *drops)
{
	const struct series_info *si = series_get(reg, id);
	struct series_labels l = series_labels_of(reg, id);
	const char *dev = series_atom_str(reg, l.device);
	size_t dl = strlen(dev), nl = strlen(si->name);
	char qid[64];

	if (strcmp(series_atom_str(reg, l.field), "drops") != 0 || d == 0 || nl < 6 + dl + 8 ||
	    strncmp(si->name + 6, dev, dl) != 0)
		return;
	snprintf(qid, sizeof(qid), "%.*s", (int)(nl - 6 - dl - 1 - 6), si->name + 6 + dl + 1);
	json_add_uint(member(member(drops, "qdisc"), dev), qid, d);
}

/* Fill ns_per_run and cpu_pct of each program once runs and run_time_ns are in. */
static void
prog_finish(json_object *progs, double secs)
{
	json_object_object_foreach(progs, name, p)
	{
		double runs = (double)json_get_int(p, "runs", 0);
		double ns = (double)json_get_int(p, "run_time_ns", 0);

		(void)name;
		json_add_double(p, "ns_per_run", runs > 0 ? ns / runs : 0);
		json_add_double(p, "cpu_pct", secs > 0 ? ns / 1e9 / secs * 100 : 0);
	}
}

json_object *
report_bpf_json(const struct series_registry *reg, const struct snapshot *a,
                const struct snapshot *b)
{
	json_object *o = json_object_new_object(), *cpus = json_object_new_array();
	json_object *tot = json_object_new_object(), *drops = json_object_new_object();
	json_object *progs = json_object_new_object(), *napis = json_object_new_object();
	double secs = 0;
	bool any = false;

	for (series_id id = 0; id < reg->n; id++) {
		const struct series_info *si = series_get(reg, id);
		struct series_labels l;
		const char *src, *table, *field, *name;
		uint64_t d;

		if (si != NULL && si->name != NULL && strncmp(si->name, "qdisc.", 6) == 0 &&
		    (src = series_source_name(reg, id)) != NULL && strcmp(src, "qdisc") == 0) {
			qdisc_drops(reg, id, snapshot_delta(a, b, id), drops);
			continue;
		}
		if (si == NULL || si->name == NULL || strncmp(si->name, "bpf.", 4) != 0)
			continue;
		src = series_source_name(reg, id);
		if (src == NULL || strcmp(src, "bpf") != 0)
			continue;
		any = true;
		if (secs == 0)
			secs = bpf_secs(a, b, si);
		l = series_labels_of(reg, id);
		table = series_atom_str(reg, l.table);
		field = series_atom_str(reg, l.field);
		name = si->name;
		d = snapshot_delta(a, b, id);
		if (strcmp(field, "time") == 0 && l.type != SERIES_ATOM_NONE && l.cpu >= 0) {
			const char *type = series_atom_str(reg, l.type);
			double s = (double)d / 1e9, prev = json_get_double(tot, type, 0);
			double span = bpf_secs(a, b, si);

			if (span > 0)
				json_add_double(cpu_entry(cpus, l.cpu), type, s / span * 100);
			json_add_double(tot, type, prev + s);
		} else if (strcmp(table, "drop") == 0 && d > 0) {
			if (l.device != SERIES_ATOM_NONE)
				json_add_uint(member(member(drops, "devices"),
				                     series_atom_str(reg, l.device)),
				              field, d);
			else
				json_add_uint(member(drops, "reasons"), field, d);
		} else if (strcmp(table, "napi") == 0 && l.cpu < 0) {
			/* bpf.napi.<ID>.<field>: the instance is the name less its last part. */
			const char *dot = strrchr(name, '.');
			char id9[48];
			json_object *n;

			if (dot == NULL || dot - name <= 9)
				continue;
			snprintf(id9, sizeof(id9), "%.*s", (int)(dot - name - 9), name + 9);
			n = member(napis, id9);
			json_add_uint(n, field, d);
			if (l.device != SERIES_ATOM_NONE)
				json_add_string(n, "device", series_atom_str(reg, l.device));
		} else if (strcmp(field, "run_time") == 0 || strcmp(field, "run_cnt") == 0) {
			json_add_uint(prog_entry(progs, table),
			              strcmp(field, "run_time") == 0 ? "run_time_ns" : "runs", d);
		}
	}
	if (!any) {
		json_object_put(o);
		json_object_put(cpus);
		json_object_put(tot);
		json_object_put(drops);
		json_object_put(progs);
		json_object_put(napis);
		return NULL;
	}
	if (json_object_array_length(cpus) > 0) {
		json_object *st = json_object_new_object();

		json_object_object_add(st, "cpus", cpus);
		json_object_object_add(st, "total_s", tot);
		json_object_object_add(o, "softirq_time", st);
	} else {
		json_object_put(cpus);
		json_object_put(tot);
	}
	json_object_object_add(o, "drops", drops);
	{
		json_object *arr = json_object_new_array();

		json_object_object_foreach(napis, id9, n)
		{
			json_object *e;
			uint64_t polls = (uint64_t)json_get_int(n, "polls", 0);
			uint64_t packets = (uint64_t)json_get_int(n, "packets", 0);

			if (polls == 0)
				continue; /* not one poll in the window */
			e = json_object_new_object();
			json_add_string(e, "id", id9);
			if (json_object_object_get_ex(n, "device", NULL))
				json_add_string(e, "device", json_get_string(n, "device", ""));
			json_add_uint(e, "polls", polls);
			json_add_uint(e, "packets", packets);
			json_add_uint(e, "exhausted", (uint64_t)json_get_int(n, "exhausted", 0));
			json_add_double(e, "packets_per_poll", (double)packets / (double)polls);
			json_object_array_add(arr, e);
		}
		json_object_put(napis);
		json_object_object_add(o, "napi", arr);
	}
	prog_finish(progs, secs);
	json_object_object_add(o, "programs", progs);
	return o;
}
