/* cmd-mark-start.c: open a measurement window by hand: a synchronous sample of every
 * source is its start edge. */
#include "cmd-mark-peers.h"
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "peer-window.h"
#include "window.h"

/* mark-start: open the window args.name (on args.peer too: peer-window.c); with
 * args.replace, a closed window or stored result of that name goes once it is open. */
static int
cmd_mark_start(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *peers = NULL;

	if (json_object_object_get_ex(args, "peer", &peers) && json_object_array_length(peers) > 0)
		return mark_peers_start(ctx->d->peerwins, ctx, json_get_string(args, "name", ""),
		                        peers, err);
	*result = window_start_replace(ctx->d->windows, json_get_string(args, "name", ""), "hand",
	                               json_get_bool(args, "replace", false), err);
	return *result != NULL ? 0 : -1;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_mark_start_entry = {.proto = "mark-start", .exec = cmd_mark_start};
