/* cmd-now.c: sample every source now and report the current values. */
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

/* The series of the reply and their raw values, read when it was asked for. */
struct now_rows {
	series_id *ids;
	uint64_t *raw;
};

/* Free the rows' state. */
static void
now_rows_free(void *arg)
{
	struct now_rows *r = arg;

	free(r->ids);
	free(r->raw);
	free(r);
}

/* Row i: one series' name, raw reading, value and unit. */
static json_object *
now_row(struct daemon *d, size_t i, void *arg)
{
	struct now_rows *r = arg;
	const struct series_info *si = series_get(sampler_registry(d->sampler), r->ids[i]);
	uint64_t raw = r->raw[i];
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

	return NOW_ROW_BYTES + cmd_rows_series_bytes(d, r->ids[i]);
}

int
cmd_now(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const char *glob = json_get_string(args, "glob", NULL);
	uint64_t t = sampler_sample_all(d->sampler);
	size_t n = query_match(d->query, glob, true, &d->ids, &d->ids_cap);
	struct cmd_rows rows = {n, now_row, now_bytes, 128, "series", NULL};
	struct now_rows *r;
	json_object *o;
	char when[40];

	r = xcalloc(1, sizeof(*r));
	r->ids = xreallocarray(NULL, n ? n : 1, sizeof(*r->ids));
	r->raw = xreallocarray(NULL, n ? n : 1, sizeof(*r->raw));
	for (size_t i = 0; i < n; i++) {
		r->ids[i] = d->ids[i];
		r->raw[i] = sampler_raw(d->sampler, d->ids[i]);
	}
	o = json_object_new_object();
	cmd_format_mono(d, t, when, sizeof(when));
	json_add_string(o, "time", when);
	json_add_uint(o, "count", n);
	return cmd_rows_reply(ctx, o, "series", &rows, r, now_rows_free, result, err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_now_entry = {.proto = "now", .exec = cmd_now};
