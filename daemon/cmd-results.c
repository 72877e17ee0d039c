/* cmd-results.c: the stored results whose names match a glob, with what their windows say:
 * origin, start, end, duration, complete. */
#include <stdlib.h>

#include "cmd-rows.h"
#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "results.h"
#include "xmalloc.h"

/* What one entry takes on the wire, about: name, window times, driver, status, a reason. */
#define RESULTS_ROW_BYTES 1024

/* Window members a listing shows, copied when present. */
static const char *const listed[] = {"origin",   "start",     "end",    "duration_s",
                                     "complete", "closed_by", "reason", NULL};

/* One result for the list, from its stored "window" object. */
static json_object *
entry(struct results *rs, const char *name)
{
	json_object *o = json_object_new_object(), *r, *win, *v;
	struct nm_error err;

	json_add_string(o, "name", name);
	if ((r = results_get(rs, name, &err)) == NULL) {
		json_add_string(o, "error", err.message);
		return o;
	}
	if (json_object_object_get_ex(r, "window", &win))
		for (size_t i = 0; listed[i] != NULL; i++)
			if (json_object_object_get_ex(win, listed[i], &v))
				json_object_object_add(o, listed[i], json_object_get(v));
	/* A test's result: its driver and how it ended. */
	if (json_object_object_get_ex(r, "test", &v)) {
		json_add_string(o, "driver", json_get_string(v, "driver", ""));
		json_add_string(o, "test_status", json_get_string(v, "status", ""));
	}
	json_object_put(r);
	return o;
}

/* The names of the listing, copied: a result stored or deleted while the reply is made
 * in parts changes the index's array. */
struct results_rows {
	char **names;
	size_t n;
};

/* Free the rows' state. */
static void
results_rows_free(void *arg)
{
	struct results_rows *r = arg;

	for (size_t i = 0; i < r->n; i++)
		free(r->names[i]);
	free(r->names);
	free(r);
}

/* Row i: one result's entry, read from its file when the row is written. */
static json_object *
results_row(struct daemon *d, size_t i, void *arg)
{
	struct results_rows *r = arg;

	return entry(d->results, r->names[i]);
}

/* results: list the stored results matching args.glob, a part at a time (each row reads a
 * file). */
int
cmd_results(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct results *rs = ctx->d->results;
	const char *const *names;
	size_t n = results_match(rs, json_get_string(args, "glob", NULL), &names);
	struct results_rows *r;
	json_object *o;
	struct cmd_rows rows = {n, results_row, NULL, 64 + (uint64_t)n * RESULTS_ROW_BYTES,
	                        "results", NULL};

	r = xcalloc(1, sizeof(*r));
	r->names = xreallocarray(NULL, n ? n : 1, sizeof(*r->names));
	for (size_t i = 0; i < n; i++)
		r->names[i] = xstrdup(names[i]);
	r->n = n;
	o = json_object_new_object();
	json_add_uint(o, "count", n);
	return cmd_rows_reply(ctx, o, "results", &rows, r, results_rows_free, result, err);
}
