/* cmd-rates.c: per-second rates and deltas of matched series over the last N seconds (as
 * the source of the first matched series samples them) or over a window. Each series says
 * the seconds its own source covered. */
#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"

int
cmd_rates(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const struct series_registry *reg = sampler_registry(d->sampler);
	const char *glob = json_get_string(args, "glob", NULL);
	bool all = json_get_bool(args, "all", false);
	json_object *o = json_object_new_object(), *arr;
	const struct source *so;
	size_t n, shown = 0;

	n = query_match(d->query, glob, false, &d->ids, &d->ids_cap);
	so = n > 0 ? sampler_source_at(d->sampler, series_get(reg, d->ids[0])->source) : NULL;
	if (cmd_span(d, args, CMD_DEFAULT_LAST_S,
	             so != NULL ? (enum sampler_kind)so->index : SAMPLER_NONE, o, err) < 0) {
		json_object_put(o);
		return -1;
	}
	arr = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		series_id id = d->ids[i];
		const struct series_info *si = series_get(reg, id);
		json_object *m;
		/* Idle series are left out unless asked for: most of a big host is idle. */
		if (query_delta(d->query, id) == 0 && !all)
			continue;
		m = json_object_new_object();
		json_add_string(m, "name", si->name);
		json_add_double(m, "delta", query_delta_scaled(d->query, id));
		json_add_double(m, "rate", query_rate(d->query, id));
		json_add_double(m, "span_s", query_seconds(d->query, si->source));
		json_add_string(m, "unit", si->unit);
		json_object_array_add(arr, m);
		shown++;
	}
	json_add_uint(o, "matched", n);
	json_add_uint(o, "count", shown);
	json_object_object_add(o, "series", arr);
	*result = o;
	return 0;
}
