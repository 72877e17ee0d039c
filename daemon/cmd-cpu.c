/* cmd-cpu.c: CPU utilisation per CPU and in total over the last N seconds: user, system,
 * softirq, irq, idle... in %, and CPUs busy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-util.h"
#include "cmd.h"
#include "cpulist.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"

static const char *const modes[] = {"user", "nice",    "system", "idle",  "iowait",
                                    "irq",  "softirq", "steal",  "guest", "guest_nice"};
#define NMODES (sizeof(modes) / sizeof(modes[0]))

/* Seconds spent in each mode by one CPU ("all" or a number) over the span. */
static bool
cpu_seconds(struct daemon *d, const char *cpu, double secs[NMODES])
{
	const struct series_registry *reg = sampler_registry(d->sampler);
	char name[64];
	bool any = false;

	for (size_t m = 0; m < NMODES; m++) {
		series_id id;
		snprintf(name, sizeof(name), "cpu.%s.%s", cpu, modes[m]);
		id = series_find(reg, name);
		if (id != SERIES_NONE && !series_get(reg, id)->live)
			id = SERIES_NONE; /* an offline CPU */
		secs[m] = id == SERIES_NONE ? 0 : query_delta_scaled(d->query, id);
		any |= id != SERIES_NONE;
	}
	return any;
}

/* The percentages of one CPU (or a sum of CPUs) as an object. guest time is already part
 * of user time in /proc/stat, so it is not added again. */
static json_object *
cpu_json(const double secs[NMODES], double span)
{
	json_object *o = json_object_new_object();
	double total = 0, busy;

	for (size_t m = 0; m < NMODES; m++)
		if (strncmp(modes[m], "guest", 5) != 0)
			total += secs[m];
	busy = total - secs[3] - secs[4];
	for (size_t m = 0; m < NMODES; m++)
		json_add_double(o, modes[m], total > 0 ? 100.0 * secs[m] / total : 0);
	json_add_double(o, "busy", total > 0 ? 100.0 * busy / total : 0);
	json_add_double(o, "busy_cpus", span > 0 ? busy / span : 0);
	return o;
}

int
cmd_build_cpu(struct daemon *d, json_object *args, json_object *o, struct nm_error *err)
{
	const char *list = json_get_string(args, "cpus", NULL);
	struct cpuset set;
	char **cpus;
	size_t n = cmd_collect_parts(d, "cpu.", &cpus);
	double span = query_seconds(d->query, sampler_source(d->sampler, "cpu")->index);
	double secs[NMODES], sum[NMODES] = {0};
	json_object *arr = json_object_new_array();
	unsigned nset = 0;
	int rc = 0;

	if (list != NULL && cpuset_parse_any(&set, list, err) < 0) {
		json_object_put(arr);
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char *end;
		long c = strtol(cpus[i], &end, 10);
		json_object *co;
		if (*end != '\0' || end == cpus[i])
			continue; /* "all" */
		if (list != NULL && !cpuset_has(&set, (unsigned)c))
			continue;
		if (!cpu_seconds(d, cpus[i], secs))
			continue;
		co = cpu_json(secs, span);
		json_object_object_add(co, "cpu", json_object_new_int((int)c));
		json_object_array_add(arr, co);
		for (size_t m = 0; m < NMODES; m++)
			sum[m] += secs[m];
		nset++;
	}
	if (cpu_seconds(d, "all", secs))
		json_object_object_add(o, "all", cpu_json(secs, span));
	if (list != NULL) {
		json_object *so = cpu_json(sum, span);
		json_add_string(so, "cpus", list);
		json_add_uint(so, "count", nset);
		json_object_object_add(o, "set", so);
	}
	json_add_uint(o, "online", nset);
	json_object_object_add(o, "cpus", arr);
out:
	for (size_t i = 0; i < n; i++)
		free(cpus[i]);
	free(cpus);
	return rc;
}

int
cmd_cpu(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *o = json_object_new_object();

	if (cmd_span_last(ctx->d, args, CMD_DEFAULT_LAST_S, o, err) < 0 ||
	    cmd_build_cpu(ctx->d, args, o, err) < 0) {
		json_object_put(o);
		return -1;
	}
	*result = o;
	return 0;
}
