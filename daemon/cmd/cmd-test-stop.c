/* cmd-test-stop.c: stop a running test by hand: SIGTERM to its processes (SIGKILL after a
 * grace), its window closed where it stands and stored as incomplete with the reason. */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "runner.h"

/* test-stop: end the running test args.name. */
static int
cmd_test_stop(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	*result = runner_stop(ctx->d->runner, json_get_string(args, "name", ""), err);
	return *result != NULL ? 0 : -1;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_test_stop_entry = {.proto = "test-stop", .exec = cmd_test_stop};
