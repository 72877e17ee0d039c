/* cmd-rates.c: per-second rates and deltas of matched series over the last N seconds (as
 * the source of the first matched series samples them) or over a window. Each series says
 * the seconds its own source covered. */
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

#define RATES_ROW_BYTES 96 /* most bytes of a row besides its name and unit */

/* The series of the reply with their deltas and rates over the span, computed when it was
 * asked for (the span of d->query is another request's once this one is in parts). */
struct rates_rows {
	series_id *ids;
	double *delta, *rate, *span_s;
};

/* Free the rows' state. */
static void
rates_rows_free(void *arg)
{
	struct rates_rows *r = arg;

	free(r->ids);
	free(r->delta);
	free(r->rate);
	free(r->span_s);
	free(r);
}

/* Row i: one series' name, delta, rate and unit. */
static json_object *
rates_row(struct daemon *d, size_t i, void *arg)
{
	struct rates_rows *r = arg;
	const struct series_info *si = series_get(sampler_registry(d->sampler), r->ids[i]);
	json_object *m = json_object_new_object();

	json_add_string(m, "name", si->name);
	json_add_double(m, "delta", r->delta[i]);
	json_add_double(m, "rate", r->rate[i]);
	json_add_double(m, "span_s", r->span_s[i]);
	json_add_string(m, "unit", si->unit);
	return m;
}

/* The most bytes row i takes. */
static uint64_t
rates_bytes(struct daemon *d, size_t i, void *arg)
{
	struct rates_rows *r = arg;

	return RATES_ROW_BYTES + cmd_rows_series_bytes(d, r->ids[i]);
}

int
cmd_rates(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const char *glob = json_get_string(args, "glob", NULL);
	bool all = json_get_bool(args, "all", false);
	const struct series_registry *reg = sampler_registry(d->sampler);
	json_object *o = json_object_new_object();
	const struct source *so;
	struct rates_rows *r;
	struct cmd_rows rows = {0, rates_row, rates_bytes, 256, "series", NULL};
	size_t n, shown = 0;

	n = query_match(d->query, glob, false, &d->ids, &d->ids_cap);
	so = n > 0 ? sampler_source_at(d->sampler, series_get(reg, d->ids[0])->source) : NULL;
	if (cmd_span(d, args, CMD_DEFAULT_LAST_S,
	             so != NULL ? (enum sampler_kind)so->index : SAMPLER_NONE, o, err) < 0) {
		json_object_put(o);
		return -1;
	}
	r = xcalloc(1, sizeof(*r));
	r->ids = xreallocarray(NULL, n ? n : 1, sizeof(*r->ids));
	r->delta = xreallocarray(NULL, n ? n : 1, sizeof(*r->delta));
	r->rate = xreallocarray(NULL, n ? n : 1, sizeof(*r->rate));
	r->span_s = xreallocarray(NULL, n ? n : 1, sizeof(*r->span_s));
	for (size_t i = 0; i < n; i++) {
		series_id id = d->ids[i];
		/* Idle series are left out unless asked for: most of a big host is idle. */
		if (query_delta(d->query, id) == 0 && !all)
			continue;
		r->ids[shown] = id;
		r->delta[shown] = query_delta_scaled(d->query, id);
		r->rate[shown] = query_rate(d->query, id);
		r->span_s[shown] = query_seconds(d->query, series_get(reg, id)->source);
		shown++;
	}
	json_add_uint(o, "matched", n);
	json_add_uint(o, "count", shown);
	rows.n = shown;
	return cmd_rows_reply(ctx, o, "series", &rows, r, rates_rows_free, result, err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_rates_entry = {.proto = "rates", .exec = cmd_rates};
