/* cmd-tests.c: the tests of this daemon run (running first, then the finished ones kept in
 * memory); with --all also every stored result a test produced, from earlier runs too, read
 * from the results index (not from the files), newest first. */
#include <math.h>
#include <string.h>

#include "cmd-rows.h"
#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "results.h"
#include "runner.h"

#define TESTS_ROW_BYTES 2048 /* what one entry takes on the wire, about: headline, figures */

/* What the stored tests are added to. */
struct stored {
	struct runner *runner;
	json_object *list;
};

/* A stored test result as a list entry: its test object's headline members, as the index
 * keeps them. One of this run, listed already, is left out. */
static void
stored_entry(const struct resultindex_row *row, void *arg)
{
	struct stored *s = arg;
	json_object *t, *o;

	if (runner_find(s->runner, row->name) != NULL || row->test == NULL)
		return;
	t = json_tokener_parse(row->test);
	if (!json_object_is_type(t, json_type_object)) {
		json_object_put(t);
		return;
	}
	o = json_object_new_object();
	json_add_string(o, "name", row->name);
	json_add_string(o, "state", json_get_string(t, "status", ""));
	json_object_object_foreach(t, k, v)
	{
		json_object_object_add(o, k, json_object_get(v));
	}
	json_add_bool(o, "stored", true);
	json_object_put(t);
	json_object_array_add(s->list, o);
}

/* One file the index could not read. */
static void
skipped_entry(const char *name, const char *why, void *arg)
{
	json_object *o = json_object_new_object();

	json_add_string(o, "name", name);
	json_add_string(o, "error", why);
	json_object_array_add(arg, o);
}

/* tests: this run's tests, and with args.all the stored ones. */
static int
cmd_tests(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *o = json_object_new_object(), *list = runner_list_json(ctx->d->runner);

	if (json_get_bool(args, "all", false)) {
		size_t cap = cmd_rows_cap(ctx->d, TESTS_ROW_BYTES);
		struct resultindex_filter f = {
		    .since = NAN, .until = NAN, .tests_only = true, .limit = cap + 1};
		struct stored s = {ctx->d->runner, list};
		json_object *skipped = json_object_new_array();

		if (results_list(ctx->d->results, &f, stored_entry, &s, err) < 0) {
			if (err->code != NM_ERR_BUSY) {
				json_object_put(skipped);
				json_object_put(list);
				json_object_put(o);
				return -1;
			}
			json_add_string(o, "index", "rebuilding");
			json_add_string(o, "note",
			                "index rebuilding: stored tests follow once it is "
			                "built");
		} else if (json_object_array_length(list) > cap) {
			json_object_put(skipped);
			json_object_put(list);
			json_object_put(o);
			return nm_error_set(
			    err, NM_ERR_TOO_LARGE,
			    "more than %zu tests are stored, the most one reply holds "
			    "(reply_max_points, reply_max_bytes): list them with "
			    "results --limit N",
			    cap);
		} else
			results_list_skipped(ctx->d->results, NULL, skipped_entry, skipped, err);
		/* Unreadable files are left out of the list, and named here. */
		if (json_object_array_length(skipped) > 0)
			json_object_object_add(o, "skipped", skipped);
		else
			json_object_put(skipped);
	}
	json_add_uint(o, "running", runner_running(ctx->d->runner));
	json_object_object_add(o, "tests", list);
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_tests_entry = {.proto = "tests", .exec = cmd_tests};
