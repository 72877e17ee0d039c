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

/* Seconds spent in each mode by one CPU ("all" or a number) over the span. False for a CPU
 * to leave out: one with no series, or offline at the end and idle over the span (as mpstat
 * leaves out an offline CPU). A CPU online at the end with no tick in the span is shown:
 * 100 % idle. */
static bool
cpu_seconds(struct daemon *d, const char *cpu, double secs[CPUUTIL_NMODES])
{
	const struct series_registry *reg = sampler_registry(d->sampler);
	char name[64];
	bool any = false, moved = false;
	series_id id;

	for (size_t m = 0; m < CPUUTIL_NMODES; m++) {
		snprintf(name, sizeof(name), "cpu.%s.%s", cpu, cpuutil_modes[m]);
		id = series_find(reg, name);
		secs[m] = id == SERIES_NONE ? 0 : query_delta_scaled(d->query, id);
		any |= id != SERIES_NONE;
		moved |= secs[m] > 0;
	}
	if (!any || moved || strcmp(cpu, "all") == 0)
		return any;
	snprintf(name, sizeof(name), "cpu.%s.online", cpu);
	id = series_find(reg, name);
	return id != SERIES_NONE && query_value_end(d->query, id) > 0;
}

int
cmd_build_cpu(struct daemon *d, json_object *args, json_object *o, struct nm_error *err)
{
	const char *list = json_get_string(args, "cpus", NULL);
	struct cpuset set;
	char **cpus;
	size_t n = cmd_collect_parts(d, "cpu.", &cpus);
	double span = query_seconds(d->query, sampler_source_of(d->sampler, SAMPLER_CPU)->index);
	double secs[CPUUTIL_NMODES], sum[CPUUTIL_NMODES] = {0};
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
		co = cpuutil_json(secs, span);
		json_object_object_add(co, "cpu", json_object_new_int((int)c));
		json_object_array_add(arr, co);
		for (size_t m = 0; m < CPUUTIL_NMODES; m++)
			sum[m] += secs[m];
		nset++;
	}
	if (cpu_seconds(d, "all", secs))
		json_object_object_add(o, "all", cpuutil_json(secs, span));
	if (list != NULL) {
		json_object *so = cpuutil_json(sum, span);
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

	if (cmd_span(ctx->d, args, CMD_DEFAULT_LAST_S, SAMPLER_CPU, o, err) < 0 ||
	    cmd_build_cpu(ctx->d, args, o, err) < 0) {
		json_object_put(o);
		return -1;
	}
	*result = o;
	return 0;
}
