/* cmd-result-delete.c: remove a stored result from the state directory. */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "log.h"
#include "results.h"

/* result-delete: remove the result args.name. */
int
cmd_result_delete(struct cmd_ctx *ctx, json_object *args, json_object **result,
                  struct nm_error *err)
{
	const char *name = json_get_string(args, "name", "");

	if (results_delete(ctx->d->results, name, err) < 0)
		return -1;
	log_info("result %s deleted", name);
	*result = json_add_string(json_object_new_object(), "deleted", name);
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_result_delete_entry = {.proto = "result-delete",
                                                  .exec = cmd_result_delete};
