/* cmd-suite-run.c: start a suite from the text of its file (the client reads it); the
 * suite then runs in the daemon, whatever happens to the client. */
#include "clientfd.h"
#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "runner.h"
#include "jsonutil.h"
#include "suite.h"

/* suite-run: parse, check every run, start the first. */
int
cmd_suite_run(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct test_cred cred = {true, control_client_uid(ctx->client),
	                         control_client_gid(ctx->client),
	                         clientfd_new(control_client_fd(ctx->client))};

	*result =
	    suite_run(ctx->d->suites, json_get_string(args, "text", ""),
	              json_get_string(args, "file", "(text)"), json_get_string(args, "name", NULL),
	              json_get_bool(args, "dry_run", false), &cred, err);
	clientfd_unref(cred.peer); /* the suite took its own reference */
	return *result != NULL ? 0 : -1;
}
