/* cmd-suite-stop.c: stop the running suite: its current test is stopped (its partial
 * window kept), no further run starts, the suite is recorded as stopped. */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "suite.h"

/* suite-stop: stop args.name, or whichever suite runs. */
static int
cmd_suite_stop(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	*result = suite_stop(ctx->d->suites, json_get_string(args, "name", NULL), err);
	return *result != NULL ? 0 : -1;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_suite_stop_entry = {.proto = "suite-stop", .exec = cmd_suite_stop};
