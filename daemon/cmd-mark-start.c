/* cmd-mark-start.c: open a measurement window by hand: a synchronous sample of every
 * source is its start edge. */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "window.h"

/* mark-start: open the window args.name. */
int
cmd_mark_start(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	*result = window_start(ctx->d->windows, json_get_string(args, "name", ""), "hand", err);
	return *result != NULL ? 0 : -1;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_mark_start_entry = {.proto = "mark-start", .exec = cmd_mark_start};
