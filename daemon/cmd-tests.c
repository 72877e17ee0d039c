/* cmd-tests.c: the tests of this daemon run (running first, then the finished ones kept in
 * memory); with --all also every stored result a test produced, from earlier runs too. */
#include <stdlib.h>
#include <string.h>

#include "cmd-rows.h"
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "results.h"
#include "runner.h"
#include "xmalloc.h"

/* What one entry takes on the wire, about: its headline members and figures. */
#define TESTS_ROW_BYTES 2048

/* A stored test result as a list entry: its test object's headline members. A file that
 * cannot be read (or is not a result) is added to skipped, with why. */
static json_object *
stored_entry(struct results *rs, const char *name, json_object *skipped)
{
	static const char *const keep[] = {"driver",     "type",    "host",   "procs",
	                                   "duration_s", "status",  "reason", "started",
	                                   "suite",      "figures", NULL};
	json_object *r, *t, *o, *v;
	struct nm_error err;

	if ((r = results_get(rs, name, &err)) == NULL) {
		o = json_object_new_object();
		json_add_string(o, "name", name);
		json_add_string(o, "error", err.message);
		json_object_array_add(skipped, o);
		return NULL;
	}
	if (!json_object_object_get_ex(r, "test", &t)) {
		json_object_put(r);
		return NULL;
	}
	o = json_object_new_object();
	json_add_string(o, "name", name);
	json_add_string(o, "state", json_get_string(t, "status", ""));
	for (size_t i = 0; keep[i] != NULL; i++)
		if (json_object_object_get_ex(t, keep[i], &v))
			json_object_object_add(o, keep[i], json_object_get(v));
	json_add_bool(o, "stored", true);
	json_object_put(r);
	return o;
}

/* The entries of this run's tests, then the names of stored ones (copied: the index's
 * array changes when a result is stored or deleted meanwhile). */
struct tests_rows {
	json_object *running; /* array */
	size_t nrunning;
	char **names;
	size_t n;
	json_object *skipped; /* array: the stored files that could not be read, with why */
};

/* Free the rows' state. */
static void
tests_rows_free(void *arg)
{
	struct tests_rows *r = arg;

	json_object_put(r->running);
	json_object_put(r->skipped);
	for (size_t i = 0; i < r->n; i++)
		free(r->names[i]);
	free(r->names);
	free(r);
}

/* Row i: a test of this run, or a stored one read from its file when the row is written
 * (NULL, left out, when the file holds no test: a hand-made window's result). */
static json_object *
tests_row(struct daemon *d, size_t i, void *arg)
{
	struct tests_rows *r = arg;

	if (i < r->nrunning)
		return json_object_get(json_object_array_get_idx(r->running, i));
	return stored_entry(d->results, r->names[i - r->nrunning], r->skipped);
}

/* After the rows: the unreadable files left out of them, named with why (none: nothing). */
static json_object *
tests_tail(void *arg)
{
	struct tests_rows *r = arg;
	json_object *t;

	if (json_object_array_length(r->skipped) == 0)
		return NULL;
	t = json_object_new_object();
	json_object_object_add(t, "skipped", json_object_get(r->skipped));
	return t;
}

/* tests: this run's tests, and with args.all the stored ones, a part at a time. */
int
cmd_tests(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct tests_rows *r = xcalloc(1, sizeof(*r));
	struct cmd_rows rows = {0, tests_row, NULL, 0, "tests", tests_tail};
	json_object *o;

	r->running = runner_list_json(ctx->d->runner);
	r->skipped = json_object_new_array();
	r->nrunning = json_object_array_length(r->running);
	if (json_get_bool(args, "all", false)) {
		const char *const *names;
		size_t n = results_match(ctx->d->results, NULL, &names);

		r->names = xreallocarray(NULL, n ? n : 1, sizeof(*r->names));
		for (size_t i = 0; i < n; i++)
			if (runner_find(ctx->d->runner, names[i]) == NULL)
				r->names[r->n++] = xstrdup(names[i]);
	}
	rows.n = r->nrunning + r->n;
	rows.fixed_bytes = 64 + (uint64_t)rows.n * TESTS_ROW_BYTES;
	o = json_object_new_object();
	json_add_uint(o, "running", runner_running(ctx->d->runner));
	return cmd_rows_reply(ctx, o, "tests", &rows, r, tests_rows_free, result, err);
}
