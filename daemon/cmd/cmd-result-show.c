/* cmd-result-show.c: a stored result, exactly as it is on disk, read and serialised off the
 * loop (results-load.c). */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "results-reply.h"

/* The reader thread: the result is the reply. */
static int
show_work(struct results_load *ld, void *arg, json_object **result, struct nm_error *err)
{
	(void)arg;
	*result = results_load_take(ld, 0, err);
	return *result != NULL ? 0 : -1;
}

/* result-show: the result args.name. */
static int
cmd_result_show(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct results_load *ld = results_load_new(ctx->d->results);

	results_load_add(ld, json_get_string(args, "name", ""), false);
	return results_load_reply(ctx, ld, show_work, NULL, NULL, NULL, result, err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_result_show_entry = {.proto = "result-show", .exec = cmd_result_show};
