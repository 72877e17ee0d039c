/* cmd-metrics.c: the series the daemon knows, matched by glob. */
#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"

int
cmd_metrics(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const struct series_registry *reg = sampler_registry(d->sampler);
	const char *glob = json_get_string(args, "glob", NULL);
	bool live = json_get_bool(args, "live", false);
	size_t n = query_match(d->query, glob, live, &d->ids, &d->ids_cap);
	json_object *o = json_object_new_object(), *arr = json_object_new_array_ext((int)n);

	(void)err;
	for (size_t i = 0; i < n; i++) {
		const struct series_info *si = series_get(reg, d->ids[i]);
		json_object *m = json_object_new_object();
		json_add_string(m, "name", si->name);
		json_add_string(m, "kind", cmd_kind_name(si->kind));
		json_add_string(m, "unit", si->unit);
		json_add_string(m, "source", sampler_source_at(d->sampler, si->source)->ops->name);
		json_add_bool(m, "live", si->live);
		cmd_labels_json(reg, d->ids[i], m);
		json_object_array_add(arr, m);
	}
	json_add_uint(o, "count", n);
	json_object_object_add(o, "series", arr);
	*result = o;
	return 0;
}
