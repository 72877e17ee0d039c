/* cmd-metrics.c: the series the daemon knows, matched by glob and by labels. */
#include <stdlib.h>
#include <string.h>

#include "cmd-rows.h"
#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"
#include "xmalloc.h"

#define METRICS_ROW_BYTES 512 /* most bytes of a row besides its name and unit (labels) */

/* The series of the reply, fixed when it was asked for. */
struct metrics_rows {
	series_id *ids;
};

/* Free the rows' state. */
static void
metrics_rows_free(void *arg)
{
	struct metrics_rows *r = arg;

	free(r->ids);
	free(r);
}

/* Row i: one series' name, kind, unit, source and liveness. */
static json_object *
metrics_row(struct daemon *d, size_t i, void *arg)
{
	struct metrics_rows *r = arg;
	const struct series_info *si = series_get(sampler_registry(d->sampler), r->ids[i]);
	json_object *m = json_object_new_object();

	json_add_string(m, "name", si->name);
	json_add_string(m, "kind", series_kind_name(si->kind));
	json_add_string(m, "unit", si->unit);
	json_add_string(m, "source", sampler_source_at(d->sampler, si->source)->ops->name);
	json_add_bool(m, "live", si->live);
	cmd_labels_json(sampler_registry(d->sampler), r->ids[i], m);
	return m;
}

/* The most bytes row i takes. */
static uint64_t
metrics_bytes(struct daemon *d, size_t i, void *arg)
{
	struct metrics_rows *r = arg;

	return METRICS_ROW_BYTES + cmd_rows_series_bytes(d, r->ids[i]);
}

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

static int
cmd_metrics(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const char *glob = json_get_string(args, "glob", NULL);
	bool live = json_get_bool(args, "live", false);
	const struct series_registry *reg = sampler_registry(d->sampler);
	struct series_matcher lm[METRICS_MAX_LABELS];
	int nlm = label_matchers(reg, args, lm, err);
	size_t n, shown = 0;
	struct cmd_rows rows = {0, metrics_row, metrics_bytes, 64, "series", NULL, NULL};
	struct metrics_rows *r;
	json_object *o;

	if (nlm < 0)
		return -1;
	n = query_match(d->query, glob, live, &d->ids, &d->ids_cap);
	r = xcalloc(1, sizeof(*r));
	r->ids = xreallocarray(NULL, n ? n : 1, sizeof(*r->ids));
	for (size_t i = 0; i < n; i++)
		if (series_matches(reg, d->ids[i], lm, (size_t)nlm))
			r->ids[shown++] = d->ids[i];
	rows.n = shown;
	o = json_object_new_object();
	json_add_uint(o, "count", shown);
	return cmd_rows_reply(ctx, o, "series", &rows, r, metrics_rows_free, result, err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_metrics_entry = {.proto = "metrics", .exec = cmd_metrics};
