/* cmd-metrics.c: the series the daemon knows, matched by glob and by labels. */
#include <string.h>

#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"

/* The most label matchers a metrics request takes. */
#define METRICS_MAX_LABELS 16

/* Parse args.label (["KEY=VALUE", ...]) into matchers; their count, or -1 with err. */
static int
label_matchers(const struct series_registry *reg, json_object *args, struct series_matcher *m,
               struct nm_error *err)
{
	json_object *arr;
	size_t n;

	if (!json_object_object_get_ex(args, "label", &arr))
		return 0;
	n = json_object_array_length(arr);
	if (n > METRICS_MAX_LABELS)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "argument \"label\": at most %d",
		                    METRICS_MAX_LABELS);
	for (size_t i = 0; i < n; i++) {
		const char *kv = json_object_get_string(json_object_array_get_idx(arr, i));
		const char *eq = strchr(kv, '=');
		char key[32];
		if (eq == NULL || (size_t)(eq - kv) >= sizeof(key))
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "argument \"label\": \"%s\" is not KEY=VALUE", kv);
		memcpy(key, kv, (size_t)(eq - kv));
		key[eq - kv] = '\0';
		if (series_matcher_set(reg, &m[i], key, eq + 1, err) < 0)
			return -1;
	}
	return (int)n;
}

int
cmd_metrics(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const struct series_registry *reg = sampler_registry(d->sampler);
	const char *glob = json_get_string(args, "glob", NULL);
	bool live = json_get_bool(args, "live", false);
	struct series_matcher lm[METRICS_MAX_LABELS];
	int nlm = label_matchers(reg, args, lm, err);
	size_t n, shown = 0;
	json_object *o, *arr;

	if (nlm < 0)
		return -1;
	n = query_match(d->query, glob, live, &d->ids, &d->ids_cap);
	o = json_object_new_object();
	arr = json_object_new_array_ext((int)n);
	for (size_t i = 0; i < n; i++) {
		const struct series_info *si = series_get(reg, d->ids[i]);
		json_object *m;
		if (!series_matches(reg, d->ids[i], lm, (size_t)nlm))
			continue;
		shown++;
		m = json_object_new_object();
		json_add_string(m, "name", si->name);
		json_add_string(m, "kind", cmd_kind_name(si->kind));
		json_add_string(m, "unit", si->unit);
		json_add_string(m, "source", sampler_source_at(d->sampler, si->source)->ops->name);
		json_add_bool(m, "live", si->live);
		cmd_labels_json(reg, d->ids[i], m);
		json_object_array_add(arr, m);
	}
	json_add_uint(o, "count", shown);
	json_object_object_add(o, "series", arr);
	*result = o;
	return 0;
}
