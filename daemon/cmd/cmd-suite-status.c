/* cmd-suite-status.c: a suite's record: its runs with their status and figures, and the
 * summary table (the mean of each figure per point); without a name, the running suite, or
 * the list of every suite when none runs. */
#include <string.h>

#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "follow.h"
#include "jsonutil.h"
#include "suite.h"

/* The suite followed, now (follow.c): ended once it no longer runs. */
static json_object *
suite_now(struct daemon *d, const char *name, bool *ended, struct nm_error *err)
{
	json_object *o = suite_status(d->suites, name, err);

	if (o != NULL)
		*ended = strcmp(json_get_string(o, "state", ""), "running") != 0;
	return o;
}

/* suite-status: one suite (or its progress as a stream, --follow), or the list. */
static int
cmd_suite_status(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	const char *name = json_get_string(args, "name", NULL);
	json_object *o;
	struct nm_error e;

	if (name != NULL && json_get_bool(args, "follow", false)) {
		*result = NULL;
		return follow_start(ctx, "suite", name, suite_now, err);
	}
	if ((o = suite_status(ctx->d->suites, name, &e)) != NULL) {
		*result = o;
		return 0;
	}
	if (name != NULL)
		return nm_error_set(err, e.code, "%s", e.message);
	o = json_object_new_object();
	json_object_object_add(o, "suites", suite_list(ctx->d->suites));
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_suite_status_entry = {.proto = "suite-status", .exec = cmd_suite_status};
