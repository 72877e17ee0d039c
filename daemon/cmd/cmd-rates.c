/* cmd-rates.c: per-second rates and deltas of matched series over the last N seconds (as
 * the source of the first matched series samples them) or over a window. Each series says
 * the seconds its own source covered. The glob is matched and the values read a slice at a
 * time over turns of the loop, on a span of the request's own, before any row (cmd-rows). */
#include <stdlib.h>
#include <string.h>

#include "cmd-rows.h"
#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"
#include "timeutil.h"
#include "xmalloc.h"

#define RATES_ROW_BYTES 96 /* most bytes of a row besides its name and unit */

/* The series of the reply with their deltas and rates over the span, read a slice at a time
 * before any row is written: the glob matched, the span set on a query of the request's
 * own (d->query's is another request's between turns), the values read. */
struct rates_rows {
	struct query *q;
	json_object *args; /* a reference: the span is set once the glob is matched */
	bool all, matched, edged, spanned;
	struct cmd_span_edges e;
	struct query_matching m;
	size_t next, shown;
	series_id *ids;
	double *delta, *rate, *span_s;
};

/* Free the rows' state. */
static void
rates_rows_free(void *arg)
{
	struct rates_rows *r = arg;

	query_put(r->q);
	json_object_put(r->args);
	query_matching_free(&r->m);
	free(r->ids);
	free(r->delta);
	free(r->rate);
	free(r->span_s);
	free(r);
}

/* The rows' prep (cmd_rows_prep_fn): the glob a slice at a time; then the span, as the
 * source of the first series matched samples it; then the series' values a slice at a time,
 * idle ones left out unless asked for (most of a big host is idle). */
static int
rates_prep(struct daemon *d, void *arg, json_object *head, size_t *n, struct nm_error *err)
{
	struct rates_rows *r = arg;
	const struct series_registry *reg = sampler_registry(d->sampler);
	uint64_t start = time_mono_ns();
	const struct source *so;
	size_t nm;

	if (!r->matched) {
		r->matched = query_matching_step(d->query, &r->m, DAEMON_SLICE_NS);
		return 0; /* the span on the next turn */
	}
	nm = r->m.n;
	if (!r->edged) {
		/* The span's edges from the records' headers; the cursors placed on them a
		 * part at a time from the next turn on. */
		so = nm > 0 ? sampler_source_at(d->sampler, series_get(reg, r->m.ids[0])->source)
		            : NULL;
		if (cmd_span_edges(d, r->q, r->args, CMD_DEFAULT_LAST_S,
		                   so != NULL ? (enum sampler_kind)so->index : SAMPLER_NONE, &r->e,
		                   err) < 0)
			return -1;
		r->ids = xreallocarray(NULL, nm ? nm : 1, sizeof(*r->ids));
		r->delta = xreallocarray(NULL, nm ? nm : 1, sizeof(*r->delta));
		r->rate = xreallocarray(NULL, nm ? nm : 1, sizeof(*r->rate));
		r->span_s = xreallocarray(NULL, nm ? nm : 1, sizeof(*r->span_s));
		r->edged = true;
		return 0;
	}
	if (!r->spanned) {
		int rc = query_span_part(r->q, r->e.t0, r->e.t1, start + DAEMON_SLICE_NS, err);
		if (rc <= 0)
			return rc;
		cmd_span_add(d, r->q, &r->e, head);
		r->spanned = true;
		return 0; /* the values on the next turn */
	}
	if (query_respan(r->q, err) < 0)
		return -1;
	while (r->next < nm) {
		series_id id = r->m.ids[r->next++];
		if (query_delta(r->q, id) != 0 || r->all) {
			r->ids[r->shown] = id;
			r->delta[r->shown] = query_delta_scaled(r->q, id);
			r->rate[r->shown] = query_rate(r->q, id);
			r->span_s[r->shown] = query_seconds(r->q, series_get(reg, id)->source);
			r->shown++;
		}
		if ((r->next & 255) == 0 && time_mono_ns() - start >= DAEMON_SLICE_NS)
			return 0;
	}
	json_add_uint(head, "matched", nm);
	json_add_uint(head, "count", r->shown);
	*n = r->shown;
	return 1;
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

static int
cmd_rates(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const char *glob = json_get_string(args, "glob", NULL);
	struct cmd_rows rows = {0, rates_row, rates_bytes, 256, "series", NULL, rates_prep};
	struct rates_rows *r = xcalloc(1, sizeof(*r));

	/* Matched, spanned and read in the first turns (rates_prep), before any byte. */
	r->q = query_take(d->sampler);
	r->args = json_object_get(args);
	r->all = json_get_bool(args, "all", false);
	query_matching_init(d->query, &r->m, glob, false);
	return cmd_rows_reply(ctx, json_object_new_object(), "series", &rows, r, rates_rows_free,
	                      result, err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_rates_entry = {.proto = "rates", .exec = cmd_rates};
