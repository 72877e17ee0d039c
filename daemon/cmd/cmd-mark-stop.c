/* cmd-mark-stop.c: close a measurement window: a synchronous sample of every source is its
 * end edge; the report is stored on the results writer thread, and the reply goes out once
 * it is durable (written, fsync'ed, renamed, its directory fsync'ed), while the loop goes
 * on sampling and answering others. */
#include <stdlib.h>

#include "cmd-mark-peers.h"
#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "peer-window.h"
#include "sampler.h"
#include "source-bpf.h"
#include "window.h"
#include "xmalloc.h"

/* Where the outcome of a stop goes: a deferred reply, or the handler itself when the
 * store was done before window_stop returned. */
struct stop_reply {
	struct control_later *later;
	bool done;
	bool orphan; /* nobody to tell: free on completion */
	json_object *report;
	struct nm_error err;
};

/* The report is durable (or could not be stored): answer. */
static void
stored(void *arg, json_object *report, const struct nm_error *err)
{
	struct stop_reply *sr = arg;

	if (sr->later != NULL || sr->orphan) {
		if (sr->later != NULL)
			control_later_reply(sr->later, err == NULL ? json_object_get(report) : NULL,
			                    err);
		free(sr);
		return;
	}
	sr->done = true;
	if (err != NULL)
		sr->err = *err;
	else
		sr->report = json_object_get(report);
}

/* mark-stop: close the window args.name with the report options in args. */
static int
cmd_mark_stop(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct stop_reply *sr, now;
	struct source *bpf;

	if (peerwin_has(ctx->d->peerwins, json_get_string(args, "name", "")))
		return mark_peers_stop(ctx->d->peerwins, ctx, json_get_string(args, "name", ""),
		                       args, err);
	sr = xcalloc(1, sizeof(*sr));
	if (window_stop(ctx->d->windows, json_get_string(args, "name", ""), args, "hand", NULL,
	                stored, sr, err) < 0) {
		free(sr);
		return -1;
	}
	/* The end edge is taken: programs held for the window (mark start --bpf) can go. */
	if ((bpf = sampler_source(ctx->d->sampler, "bpf")) != NULL)
		source_bpf_release(bpf, json_get_string(args, "name", ""));
	if (!sr->done) {
		/* Answered from stored(), once the writer thread is done. */
		if (ctx->client != NULL) {
			sr->later = control_later_new(ctx->client, ctx->id, ctx->has_id);
			ctx->deferred = true;
			return 0;
		}
		sr->orphan = true;
		return nm_error_set(err, NM_ERR_BUSY, "the result is being stored");
	}
	now = *sr;
	free(sr);
	if (now.report == NULL)
		return nm_error_set(err, now.err.code, "%s", now.err.message);
	*result = now.report;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_mark_stop_entry = {.proto = "mark-stop", .exec = cmd_mark_stop};
