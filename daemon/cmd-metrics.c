/* cmd-metrics.c: the series the daemon knows, matched by glob. */
#include <stdlib.h>
#include <string.h>

#include "cmd-rows.h"
#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"
#include "xmalloc.h"

#define METRICS_ROW_BYTES 96 /* most bytes of a row besides its name and unit */

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
	return m;
}

/* The most bytes row i takes. */
static uint64_t
metrics_bytes(struct daemon *d, size_t i, void *arg)
{
	struct metrics_rows *r = arg;

	return METRICS_ROW_BYTES + cmd_rows_series_bytes(d, r->ids[i]);
}

int
cmd_metrics(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const char *glob = json_get_string(args, "glob", NULL);
	bool live = json_get_bool(args, "live", false);
	size_t n = query_match(d->query, glob, live, &d->ids, &d->ids_cap);
	struct cmd_rows rows = {n, metrics_row, metrics_bytes, 64, "series", NULL};
	struct metrics_rows *r;
	json_object *o;

	r = xcalloc(1, sizeof(*r));
	r->ids = xreallocarray(NULL, n ? n : 1, sizeof(*r->ids));
	if (n > 0)
		memcpy(r->ids, d->ids, n * sizeof(*r->ids));
	o = json_object_new_object();
	json_add_uint(o, "count", n);
	return cmd_rows_reply(ctx, o, "series", &rows, r, metrics_rows_free, result, err);
}
