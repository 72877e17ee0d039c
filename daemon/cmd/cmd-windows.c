/* cmd-windows.c: the open windows and the closed ones still kept in memory. */
#include "cmd.h"
#include "daemon.h"
#include "window.h"

/* windows: list them. */
static int
cmd_windows(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	(void)args;
	(void)err;
	*result = window_list_json(ctx->d->windows);
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_windows_entry = {.proto = "windows", .exec = cmd_windows};
