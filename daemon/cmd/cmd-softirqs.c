/* cmd-softirqs.c: softirqs per type per CPU per second over the last N seconds, and with
 * "time" the share of each CPU's time each type took (the bpf source's softirq time). Types
 * and CPUs are the labels of the series, never parts of their names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"
#include "xmalloc.h"

/* Compare for qsort: type names as strings, numbers in them numerically (a name ending in
 * 12 after one ending in 2). */
static int
type_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t i = strcspn(x, "0123456789"), j = strcspn(y, "0123456789");

	if (i == j && strncmp(x, y, i) == 0 && x[i] && y[j]) {
		long u = strtol(x + i, NULL, 10), v = strtol(y + j, NULL, 10);
		if (u != v)
			return u < v ? -1 : 1;
	}
	return strcmp(x, y);
}

/* Compare CPU numbers for qsort. */
static int
cpu_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The softirqs source's series by label: its types (sorted), its CPUs (sorted) and the
 * series of each type on each CPU (ids[t * ncpus + c], SERIES_NONE when missing). */
struct sirq_grid {
	const char **types;
	int *cpus;
	size_t ntypes, ncpus;
	series_id *ids;
};

/* Index of v in a sorted array, or -1. */
static long
find_cpu(const int *v, size_t n, int c)
{
	const int *p = bsearch(&c, v, n, sizeof(*v), cpu_cmp);

	return p != NULL ? p - v : -1;
}

/* Fill g from the series labelled source=SOURCE (and field=FIELD when not NULL) that have a
 * type and a CPU. */
static void
grid_build(const struct series_registry *reg, const char *source, const char *field,
           struct sirq_grid *g)
{
	struct series_matcher m[2];
	series_id *sel;
	size_t n;

	memset(g, 0, sizeof(*g));
	if (series_matcher_set(reg, &m[0], "source", source, NULL) < 0 ||
	    (field != NULL && series_matcher_set(reg, &m[1], "field", field, NULL) < 0))
		return;
	n = series_select(reg, m, field != NULL ? 2 : 1, &sel);
	g->types = xcalloc(n ? n : 1, sizeof(*g->types));
	g->cpus = xcalloc(n ? n : 1, sizeof(*g->cpus));
	for (size_t i = 0; i < n; i++) {
		const struct series_labels lv = series_labels_of(reg, sel[i]), *l = &lv;
		const char *t = series_atom_str(reg, l->type);
		bool seen = false;
		if (l->type == SERIES_ATOM_NONE || l->cpu < 0)
			continue;
		for (size_t k = g->ntypes; k > 0 && !seen; k--)
			seen = g->types[k - 1] == t; /* atoms: one string each */
		if (!seen)
			g->types[g->ntypes++] = t;
		seen = false;
		for (size_t k = g->ncpus; k > 0 && !seen; k--)
			seen = g->cpus[k - 1] == l->cpu;
		if (!seen)
			g->cpus[g->ncpus++] = l->cpu;
	}
	qsort(g->types, g->ntypes, sizeof(*g->types), type_cmp);
	qsort(g->cpus, g->ncpus, sizeof(*g->cpus), cpu_cmp);
	g->ids = xreallocarray(NULL, g->ntypes * g->ncpus + 1, sizeof(*g->ids));
	for (size_t k = 0; k < g->ntypes * g->ncpus; k++)
		g->ids[k] = SERIES_NONE;
	for (size_t i = 0; i < n; i++) {
		const struct series_labels lv = series_labels_of(reg, sel[i]), *l = &lv;
		const char *t = series_atom_str(reg, l->type);
		long c;
		if (l->type == SERIES_ATOM_NONE || l->cpu < 0 ||
		    (c = find_cpu(g->cpus, g->ncpus, l->cpu)) < 0)
			continue;
		for (size_t k = 0; k < g->ntypes; k++)
			if (g->types[k] == t)
				g->ids[k * g->ncpus + (size_t)c] = sel[i];
	}
	free(sel);
}

static void
grid_free(struct sirq_grid *g)
{
	free(g->types);
	free(g->cpus);
	free(g->ids);
}

/* The bpf source's softirq time of type t on cpu, as a percent of that CPU's time over the
 * span; -1 when there is no such series. */
static double
time_pct(struct daemon *d, const struct series_registry *reg, const struct sirq_grid *tg,
         const char *type, int cpu)
{
	long c = find_cpu(tg->cpus, tg->ncpus, cpu);

	if (c < 0)
		return -1;
	for (size_t k = 0; k < tg->ntypes; k++) {
		series_id id;

		if (strcmp(tg->types[k], type) != 0)
			continue;
		id = tg->ids[k * tg->ncpus + (size_t)c];
		if (id == SERIES_NONE || !series_get(reg, id)->live)
			return -1;
		return query_rate(d->query, id) / 1e7; /* ns per second -> % */
	}
	return -1;
}

/* With "time": each CPU's "time_pct" {type: % of the CPU's time in that softirq}, and
 * "time_total_pct" (summed over the CPUs: 100 is one CPU), from the bpf source's
 * bpf.softirq_time.* series (entry to exit, less the hard IRQ handler time inside); "time"
 * says where they came from, or why there are none. */
static void
add_times(struct daemon *d, const struct series_registry *reg, const struct sirq_grid *g,
          json_object *carr, json_object *o)
{
	struct sirq_grid tg;
	json_object *tot = json_object_new_object();

	grid_build(reg, "bpf", "time", &tg);
	if (tg.ntypes == 0) {
		json_add_string(o, "time",
		                "none: the bpf source has no softirq time here (see "
		                "status: not built, no BTF, or not attached)");
		json_object_put(tot);
		grid_free(&tg);
		return;
	}
	json_add_string(o, "time", "bpf");
	for (size_t i = 0; i < json_object_array_length(carr); i++) {
		json_object *co = json_object_array_get_idx(carr, i),
		            *pct = json_object_new_object();
		int cpu = (int)json_get_int(co, "cpu", -1);

		for (size_t t = 0; t < g->ntypes; t++) {
			double v = time_pct(d, reg, &tg, g->types[t], cpu);

			if (v >= 0)
				json_add_double(pct, g->types[t], v);
		}
		json_object_object_add(co, "time_pct", pct);
	}
	for (size_t t = 0; t < g->ntypes; t++) {
		double sum = 0;
		bool any = false;

		for (size_t c = 0; c < tg.ncpus; c++) {
			double v = time_pct(d, reg, &tg, g->types[t], tg.cpus[c]);

			if (v >= 0) {
				sum += v;
				any = true;
			}
		}
		if (any)
			json_add_double(tot, g->types[t], sum);
	}
	json_object_object_add(o, "time_total_pct", tot);
	grid_free(&tg);
}

int
cmd_build_softirqs(struct daemon *d, json_object *args, json_object *o, struct nm_error *err)
{
	const struct series_registry *reg = sampler_registry(d->sampler);
	bool all = json_get_bool(args, "all", false);
	struct sirq_grid g;
	json_object *tarr = json_object_new_array(), *carr = json_object_new_array();
	json_object *tot = json_object_new_object();

	(void)err;
	grid_build(reg, "softirqs", NULL, &g);
	for (size_t t = 0; t < g.ntypes; t++)
		json_object_array_add(tarr, json_object_new_string(g.types[t]));
	for (size_t c = 0; c < g.ncpus; c++) {
		json_object *co = json_object_new_object(), *rates = json_object_new_object();
		bool moved = false;
		for (size_t t = 0; t < g.ntypes; t++) {
			series_id id = g.ids[t * g.ncpus + c];
			if (id == SERIES_NONE || !series_get(reg, id)->live)
				continue;
			json_add_double(rates, g.types[t], query_rate(d->query, id));
			moved |= query_delta(d->query, id) != 0;
		}
		if (!moved && !all) {
			json_object_put(co);
			json_object_put(rates);
			continue;
		}
		json_add_int(co, "cpu", g.cpus[c]);
		json_object_object_add(co, "rates", rates);
		json_object_array_add(carr, co);
	}
	for (size_t t = 0; t < g.ntypes; t++) {
		double sum = 0;
		for (size_t c = 0; c < g.ncpus; c++) {
			series_id id = g.ids[t * g.ncpus + c];
			if (id != SERIES_NONE)
				sum += query_rate(d->query, id);
		}
		json_add_double(tot, g.types[t], sum);
	}
	json_object_object_add(o, "types", tarr);
	json_object_object_add(o, "total", tot);
	json_object_object_add(o, "cpus", carr);
	if (json_get_bool(args, "time", false))
		add_times(d, reg, &g, carr, o);
	grid_free(&g);
	return 0;
}

static int
cmd_softirqs(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *o = json_object_new_object();

	if (cmd_span(ctx->d, args, CMD_DEFAULT_LAST_S, SAMPLER_SOFTIRQS, o, err) < 0 ||
	    cmd_build_softirqs(ctx->d, args, o, err) < 0) {
		json_object_put(o);
		return -1;
	}
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_softirqs_entry = {.proto = "softirqs", .exec = cmd_softirqs};
