/* cmd-window-delete.c: forget a window, open or closed; its stored result stays. */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "peer-window.h"
#include "sampler.h"
#include "source-bpf.h"
#include "window.h"

/* window-delete: forget the window args.name. */
int
cmd_window_delete(struct cmd_ctx *ctx, json_object *args, json_object **result,
                  struct nm_error *err)
{
	*result = window_delete(ctx->d->windows, json_get_string(args, "name", ""), err);
	/* A multi-host window is forgotten here too (its peers keep theirs); programs an open
	 * one held (mark start --bpf) are let go. */
	if (*result != NULL) {
		struct source *bpf = sampler_source(ctx->d->sampler, "bpf");

		peerwin_forget(ctx->d->peerwins, json_get_string(args, "name", ""));
		if (bpf != NULL)
			source_bpf_release(bpf, json_get_string(args, "name", ""));
	}
	return *result != NULL ? 0 : -1;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_window_delete_entry = {.proto = "window-delete",
                                                  .exec = cmd_window_delete};
