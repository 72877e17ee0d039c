/* cmd-mark-stop.c: close a measurement window: a synchronous sample of every source is its
 * end edge; the report is stored before the reply goes out. */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "window.h"

/* mark-stop: close the window args.name with the report options in args. */
int
cmd_mark_stop(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	*result = window_stop(ctx->d->windows, json_get_string(args, "name", ""), args, "hand",
	                      NULL, err);
	return *result != NULL ? 0 : -1;
}
