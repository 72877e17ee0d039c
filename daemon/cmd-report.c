/* cmd-report.c: a window's report: live for an open window, stored, or recomputed from the
 * kept edge snapshots with other CPU sets. */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "window.h"

/* report: the report of the window args.name. */
int
cmd_report(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	*result = window_report(ctx->d->windows, json_get_string(args, "name", ""), args, err);
	return *result != NULL ? 0 : -1;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_report_entry = {.proto = "report", .exec = cmd_report};
