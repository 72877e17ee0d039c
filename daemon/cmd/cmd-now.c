/* cmd-now.c: sample every source now and report the current values: every value read at
 * once, the glob matched a slice at a time over the next turns of the loop (cmd-rows). */
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

#define NOW_ROW_BYTES 96 /* most bytes of a row besides its name and unit */

/* The series of the reply and their raw values: every series' value read when it was
 * asked for, the glob matched a slice at a time before any row is written. */
struct now_rows {
	struct query_matching m;
	uint64_t *raw; /* [id], for the ids the registry had then */
	size_t nraw;
};

/* Free the rows' state. */
static void
now_rows_free(void *arg)
{
	struct now_rows *r = arg;

	query_matching_free(&r->m);
	free(r->raw);
	free(r);
}

/* The rows' prep (cmd_rows_prep_fn): the glob, a slice at a time; then the count. */
static int
now_prep(struct daemon *d, void *arg, json_object *head, size_t *n, struct nm_error *err)
{
	struct now_rows *r = arg;

	(void)err;
	if (!query_matching_step(d->query, &r->m, DAEMON_SLICE_NS))
		return 0;
	json_add_uint(head, "count", r->m.n);
	*n = r->m.n;
	return 1;
}

/* Row i: one series' name, raw reading, value and unit. */
static json_object *
now_row(struct daemon *d, size_t i, void *arg)
{
	struct now_rows *r = arg;
	series_id id = r->m.ids[i];
	const struct series_info *si = series_get(sampler_registry(d->sampler), id);
	uint64_t raw = id < r->nraw ? r->raw[id] : 0;
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
	return m;
}

/* The most bytes row i takes. */
static uint64_t
now_bytes(struct daemon *d, size_t i, void *arg)
{
	struct now_rows *r = arg;

	return NOW_ROW_BYTES + cmd_rows_series_bytes(d, r->m.ids[i]);
}

static int
cmd_now(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const char *glob = json_get_string(args, "glob", NULL);
	uint64_t t = sampler_sample_all(d->sampler);
	struct cmd_rows rows = {0, now_row, now_bytes, 128, "series", NULL, now_prep};
	struct now_rows *r = xcalloc(1, sizeof(*r));
	json_object *o;
	char when[40];

	/* The values of now, for every series (no name read: a pass over an array); the glob
	 * matched over the next turns (now_prep) among the series there are now. */
	query_matching_init(d->query, &r->m, glob, true);
	r->nraw = r->m.end;
	r->raw = xreallocarray(NULL, r->nraw ? r->nraw : 1, sizeof(*r->raw));
	for (size_t id = 0; id < r->nraw; id++)
		r->raw[id] = sampler_raw(d->sampler, (series_id)id);
	o = json_object_new_object();
	cmd_format_mono(d, t, when, sizeof(when));
	json_add_string(o, "time", when);
	return cmd_rows_reply(ctx, o, "series", &rows, r, now_rows_free, result, err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_now_entry = {.proto = "now", .exec = cmd_now};
