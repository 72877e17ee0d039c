/* cmd-test-status.c: the running tests, or one test (running or recently finished) by
 * name: state, elapsed, live throughput, processes; a finished one with its figures. */
#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "follow.h"
#include "jsonutil.h"
#include "runner.h"

/* The test followed, now (follow.c): ended once it has its status (its result stored). */
static json_object *
test_now(struct daemon *d, const char *name, bool *ended, struct nm_error *err)
{
	struct test *t = runner_find(d->runner, name);
	json_object *o;

	if (t == NULL) {
		nm_error_set(err, NM_ERR_NOT_FOUND,
		             "no test named %s in this daemon run (tests --all, result show %s)",
		             name, name);
		return NULL;
	}
	o = runner_test_json(t);
	*ended = json_object_object_get_ex(o, "status", NULL);
	return o;
}

/* test-status: one test by name (or its progress as a stream, --follow), or the running
 * ones. */
static int
cmd_test_status(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	const char *name = json_get_string(args, "name", NULL);
	json_object *o, *all, *running;
	struct test *t;

	if (name != NULL && json_get_bool(args, "follow", false)) {
		*result = NULL;
		return follow_start(ctx, "test", name, test_now, err);
	}
	if (name != NULL) {
		if ((t = runner_find(ctx->d->runner, name)) == NULL)
			return nm_error_set(err, NM_ERR_NOT_FOUND,
			                    "no test named %s in this daemon run (tests --all, "
			                    "result show %s)",
			                    name, name);
		o = json_object_new_object();
		running = json_object_new_array();
		json_object_array_add(running, runner_test_json(t));
		json_object_object_add(o, "tests", running);
		*result = o;
		return 0;
	}
	all = runner_list_json(ctx->d->runner);
	running = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *e = json_object_array_get_idx(all, i);
		const char *st = json_get_string(e, "state", "");
		if (!json_object_object_get_ex(e, "status", NULL) || st[0] == '\0')
			json_object_array_add(running, json_object_get(e));
	}
	json_object_put(all);
	o = json_object_new_object();
	json_object_object_add(o, "tests", running);
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_test_status_entry = {.proto = "test-status", .exec = cmd_test_status};
