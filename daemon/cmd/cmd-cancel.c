/* cmd-cancel.c: stop a streaming command of the same connection. */
#include "cmd.h"
#include "control.h"
#include "error.h"
#include "jsonutil.h"

static int
cmd_cancel(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	int64_t id = json_get_int(args, "id", -1);

	if (control_stream_cancel(ctx->client, id) < 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "no stream with id %lld on this connection", (long long)id);
	*result = json_object_new_object();
	json_object_object_add(*result, "cancelled", json_object_new_int64(id));
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_cancel_entry = {.proto = "cancel", .exec = cmd_cancel};
