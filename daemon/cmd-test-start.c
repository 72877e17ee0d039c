/* cmd-test-start.c: start a benchmark test (runner.c): its arguments are checked, its
 * profile applied and its processes started before the reply; the window and the result
 * follow on the loop. */
#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "runner.h"

/* test-start: check the arguments, start the test (its processes run as the client, see
 * struct test_cred), describe it. */
int
cmd_test_start(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct test_spec spec;

	if (runner_spec_parse(ctx->d->runner, args, &spec, err) < 0)
		return -1;
	spec.cred = (struct test_cred){true, control_client_uid(ctx->client),
	                               control_client_gid(ctx->client)};
	*result = runner_start(ctx->d->runner, &spec, NULL, NULL, err);
	return *result != NULL ? 0 : -1;
}
