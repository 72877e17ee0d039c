/* cmd-result-show.c: a stored result, exactly as it is on disk. */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "results.h"

/* result-show: the result args.name. */
int
cmd_result_show(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	*result = results_get(ctx->d->results, json_get_string(args, "name", ""), err);
	return *result != NULL ? 0 : -1;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_result_show_entry = {.proto = "result-show", .exec = cmd_result_show};
