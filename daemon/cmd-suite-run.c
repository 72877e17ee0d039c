/* cmd-suite-run.c: start a suite from the text of its file (the client reads it); the
 * suite then runs in the daemon, whatever happens to the client. */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "suite.h"

/* suite-run: parse, check every run, start the first. */
int
cmd_suite_run(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	*result =
	    suite_run(ctx->d->suites, json_get_string(args, "text", ""),
	              json_get_string(args, "file", "(text)"), json_get_string(args, "name", NULL),
	              json_get_bool(args, "dry_run", false), err);
	return *result != NULL ? 0 : -1;
}
