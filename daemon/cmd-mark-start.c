/* cmd-mark-start.c: open a measurement window by hand: a synchronous sample of every
 * source is its start edge. */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "peer-window.h"
#include "window.h"

/* mark-start: open the window args.name (on args.peer too: peer-window.c). */
int
cmd_mark_start(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *peers = NULL;

	if (json_object_object_get_ex(args, "peer", &peers) && json_object_array_length(peers) > 0)
		return peerwin_mark_start(ctx->d->peerwins, ctx, json_get_string(args, "name", ""),
		                          peers, err);
	*result = window_start(ctx->d->windows, json_get_string(args, "name", ""), "hand", err);
	return *result != NULL ? 0 : -1;
}
