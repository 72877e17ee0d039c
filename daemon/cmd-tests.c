/* cmd-tests.c: the tests of this daemon run (running first, then the finished ones kept in
 * memory); with --all also every stored result a test produced, from earlier runs too. */
#include <string.h>

#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "results.h"
#include "runner.h"

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

/* tests: this run's tests, and with args.all the stored ones. */
int
cmd_tests(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *o = json_object_new_object(), *list = runner_list_json(ctx->d->runner);

	(void)err;
	if (json_get_bool(args, "all", false)) {
		const char *const *names;
		size_t n = results_match(ctx->d->results, NULL, &names);
		json_object *skipped = json_object_new_array();

		for (size_t i = 0; i < n; i++) {
			json_object *e;
			if (runner_find(ctx->d->runner, names[i]) != NULL)
				continue;
			if ((e = stored_entry(ctx->d->results, names[i], skipped)) != NULL)
				json_object_array_add(list, e);
		}
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
