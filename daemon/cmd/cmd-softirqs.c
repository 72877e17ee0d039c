/* cmd-softirqs.c: softirqs per type per CPU per second over the last N seconds. Types and
 * CPUs are the labels of the softirqs source's series, never parts of their names. */
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

/* Fill g from the series labelled source=softirqs that have a type and a CPU. */
static void
grid_build(const struct series_registry *reg, struct sirq_grid *g)
{
	struct series_matcher m;
	series_id *sel;
	size_t n;

	memset(g, 0, sizeof(*g));
	if (series_matcher_set(reg, &m, "source", "softirqs", NULL) < 0)
		return;
	n = series_select(reg, &m, 1, &sel);
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

int
cmd_build_softirqs(struct daemon *d, json_object *args, json_object *o, struct nm_error *err)
{
	const struct series_registry *reg = sampler_registry(d->sampler);
	bool all = json_get_bool(args, "all", false);
	struct sirq_grid g;
	json_object *tarr = json_object_new_array(), *carr = json_object_new_array();
	json_object *tot = json_object_new_object();

	(void)err;
	grid_build(reg, &g);
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
