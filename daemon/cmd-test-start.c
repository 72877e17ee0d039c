/* cmd-test-start.c: start a benchmark test (runner.c): its arguments are checked, its
 * profile applied and its processes started before the reply; the window and the result
 * follow on the loop. */
#include "cmd.h"
#include "daemon.h"
#include "runner.h"

/* test-start: check the arguments, start the test, describe it. */
int
cmd_test_start(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct test_spec spec;

	if (runner_spec_parse(ctx->d->runner, args, &spec, err) < 0)
		return -1;
	*result = runner_start(ctx->d->runner, &spec, NULL, NULL, err);
	return *result != NULL ? 0 : -1;
}
