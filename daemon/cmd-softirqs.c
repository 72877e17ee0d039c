/* cmd-softirqs.c: softirqs per type per CPU per second over the last N seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"

int
cmd_build_softirqs(struct daemon *d, json_object *args, json_object *o, struct nm_error *err)
{
	const struct series_registry *reg = sampler_registry(d->sampler);
	bool all = json_get_bool(args, "all", false);
	char **types, **cpus, name[96];
	size_t ntypes = cmd_collect_parts(d, "softirq.", &types);
	size_t ncpus = 0;
	json_object *tarr = json_object_new_array(), *carr = json_object_new_array();
	json_object *tot = json_object_new_object();

	(void)err;
	/* CPUs: from the first type's series ("softirq.HI.cpu3"). */
	if (ntypes > 0) {
		snprintf(name, sizeof(name), "softirq.%s.", types[0]);
		ncpus = cmd_collect_parts(d, name, &cpus);
	}
	for (size_t t = 0; t < ntypes; t++)
		json_object_array_add(tarr, json_object_new_string(types[t]));
	for (size_t c = 0; c < ncpus; c++) {
		json_object *co = json_object_new_object(), *rates = json_object_new_object();
		bool moved = false;
		for (size_t t = 0; t < ntypes; t++) {
			series_id id;
			snprintf(name, sizeof(name), "softirq.%s.%s", types[t], cpus[c]);
			if ((id = series_find(reg, name)) == SERIES_NONE ||
			    !series_get(reg, id)->live)
				continue;
			json_add_double(rates, types[t], query_rate(d->query, id));
			moved |= query_delta(d->query, id) != 0;
		}
		if (!moved && !all) {
			json_object_put(co);
			json_object_put(rates);
			continue;
		}
		json_add_int(co, "cpu", strtol(cpus[c] + 3, NULL, 10));
		json_object_object_add(co, "rates", rates);
		json_object_array_add(carr, co);
	}
	for (size_t t = 0; t < ntypes; t++) {
		double sum = 0;
		for (size_t c = 0; c < ncpus; c++) {
			series_id id;
			snprintf(name, sizeof(name), "softirq.%s.%s", types[t], cpus[c]);
			if ((id = series_find(reg, name)) != SERIES_NONE)
				sum += query_rate(d->query, id);
		}
		json_add_double(tot, types[t], sum);
	}
	json_object_object_add(o, "types", tarr);
	json_object_object_add(o, "total", tot);
	json_object_object_add(o, "cpus", carr);
	for (size_t i = 0; i < ntypes; i++)
		free(types[i]);
	free(types);
	for (size_t i = 0; i < ncpus; i++)
		free(cpus[i]);
	if (ncpus)
		free(cpus);
	return 0;
}

int
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
