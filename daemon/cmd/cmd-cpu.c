/* cmd-cpu.c: CPU utilisation per CPU and in total over the last N seconds: user, system,
 * softirq, irq, idle... in %, and CPUs busy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-util.h"
#include "cmd.h"
#include "cpulist.h"
#include "cpuutil.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"
#include "xmalloc.h"

/* The cpu source's series by label: the mode series of each CPU (row 0: all CPUs, row c + 1:
 * CPU c) and each CPU's online gauge. */
struct cpu_grid {
	series_id (*mode)[CPUUTIL_NMODES];
	series_id *online;
	size_t nrows; /* highest CPU + 2 */
};

/* Fill g from the series labelled source=cpu. */
static void
grid_build(const struct series_registry *reg, struct cpu_grid *g)
{
	struct series_matcher m;
	series_atom modes[CPUUTIL_NMODES], online = series_atom_find(reg, "online");
	series_id *sel;
	size_t n;

	memset(g, 0, sizeof(*g));
	if (series_matcher_set(reg, &m, "source", "cpu", NULL) < 0)
		return;
	n = series_select(reg, &m, 1, &sel);
	for (size_t k = 0; k < CPUUTIL_NMODES; k++)
		modes[k] = series_atom_find(reg, cpuutil_modes[k]);
	for (size_t i = 0; i < n; i++) {
		const struct series_labels lv = series_labels_of(reg, sel[i]), *l = &lv;
		size_t row = (size_t)(l->cpu + 1);
		if (row >= g->nrows) {
			size_t old = g->nrows;
			g->nrows = row + 1;
			g->mode = xreallocarray(g->mode, g->nrows, sizeof(*g->mode));
			g->online = xreallocarray(g->online, g->nrows, sizeof(*g->online));
			for (size_t r = old; r < g->nrows; r++) {
				for (size_t k = 0; k < CPUUTIL_NMODES; k++)
					g->mode[r][k] = SERIES_NONE;
				g->online[r] = SERIES_NONE;
			}
		}
		if (l->field == online && online != SERIES_ATOM_NONE)
			g->online[row] = sel[i];
		for (size_t k = 0; k < CPUUTIL_NMODES && l->mode != SERIES_ATOM_NONE; k++)
			if (l->mode == modes[k])
				g->mode[row][k] = sel[i];
	}
	free(sel);
}

/* Seconds spent in each mode by grid row r (0: all CPUs, c + 1: CPU c) over the span. False
 * for a CPU to leave out: one with no series, or offline at the end and idle over the span
 * (as mpstat leaves out an offline CPU). A CPU online at the end with no tick in the span is
 * shown: 100 % idle. */
static bool
cpu_seconds(struct daemon *d, const struct cpu_grid *g, size_t r, double secs[CPUUTIL_NMODES])
{
	bool any = false, moved = false;
	series_id id;

	for (size_t m = 0; m < CPUUTIL_NMODES; m++) {
		id = r < g->nrows ? g->mode[r][m] : SERIES_NONE;
		secs[m] = id == SERIES_NONE ? 0 : query_delta_scaled(d->query, id);
		any |= id != SERIES_NONE;
		moved |= secs[m] > 0;
	}
	if (!any || moved || r == 0)
		return any;
	id = g->online[r];
	return id != SERIES_NONE && query_value_end(d->query, id) > 0;
}

int
cmd_build_cpu(struct daemon *d, json_object *args, json_object *o, struct nm_error *err)
{
	const char *list = json_get_string(args, "cpus", NULL);
	struct cpuset set;
	struct cpu_grid g;
	double span = query_seconds(d->query, sampler_source_of(d->sampler, SAMPLER_CPU)->index);
	double secs[CPUUTIL_NMODES], sum[CPUUTIL_NMODES] = {0};
	json_object *arr;
	unsigned nset = 0, nall = 0; /* CPUs in the set, CPUs in all */

	if (list != NULL && cpuset_parse_any(&set, list, err) < 0)
		return -1;
	grid_build(sampler_registry(d->sampler), &g);
	arr = json_object_new_array();
	for (size_t r = 1; r < g.nrows; r++) {
		unsigned c = (unsigned)(r - 1);
		json_object *co;
		if (!cpu_seconds(d, &g, r, secs))
			continue;
		nall++;
		if (list != NULL && !cpuset_has(&set, c))
			continue;
		co = cpuutil_json(secs, span, 1);
		json_object_object_add(co, "cpu", json_object_new_int((int)c));
		json_object_array_add(arr, co);
		for (size_t m = 0; m < CPUUTIL_NMODES; m++)
			sum[m] += secs[m];
		nset++;
	}
	if (cpu_seconds(d, &g, 0, secs))
		json_object_object_add(o, "all", cpuutil_json(secs, span, nall));
	if (list != NULL) {
		json_object *so = cpuutil_json(sum, span, nset);
		json_add_string(so, "cpus", list);
		json_add_uint(so, "count", nset);
		json_object_object_add(o, "set", so);
	}
	json_add_uint(o, "online", nset);
	json_object_object_add(o, "cpus", arr);
	free(g.mode);
	free(g.online);
	return 0;
}

static int
cmd_cpu(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *o = json_object_new_object();

	if (cmd_span(ctx->d, args, CMD_DEFAULT_LAST_S, SAMPLER_CPU, o, err) < 0 ||
	    cmd_build_cpu(ctx->d, args, o, err) < 0) {
		json_object_put(o);
		return -1;
	}
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_cpu_entry = {.proto = "cpu", .exec = cmd_cpu};
