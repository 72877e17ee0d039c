/* cmd-now.c: sample every source now and report the current values. */
#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"

int
cmd_now(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const struct series_registry *reg = sampler_registry(d->sampler);
	const char *glob = json_get_string(args, "glob", NULL);
	uint64_t t = sampler_sample_all(d->sampler);
	size_t n = query_match(d->query, glob, true, &d->ids, &d->ids_cap);
	json_object *o = json_object_new_object(), *arr = json_object_new_array_ext((int)n);
	char when[40];

	(void)err;
	cmd_format_mono(d, t, when, sizeof(when));
	json_add_string(o, "time", when);
	for (size_t i = 0; i < n; i++) {
		const struct series_info *si = series_get(reg, d->ids[i]);
		uint64_t raw = sampler_raw(d->sampler, d->ids[i]);
		json_object *m = json_object_new_object();
		json_add_string(m, "name", si->name);
		if (si->kind == SERIES_GAUGE)
			json_add_int(m, "raw", (int64_t)raw);
		else
			json_add_uint(m, "raw", raw);
		json_add_double(m, "value",
		                (si->kind == SERIES_GAUGE ? (double)(int64_t)raw : (double)raw) *
		                    si->scale);
		json_add_string(m, "unit", si->unit);
		json_object_array_add(arr, m);
	}
	json_add_uint(o, "count", n);
	json_object_object_add(o, "series", arr);
	*result = o;
	return 0;
}
