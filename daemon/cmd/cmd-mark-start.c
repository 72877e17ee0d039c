/* cmd-mark-start.c: open a measurement window by hand: a synchronous sample of every
 * source is its start edge. */
#include "cmd-mark-peers.h"
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "peer-window.h"
#include "sampler.h"
#include "source-bpf.h"
#include "window.h"

/* With args.bpf: the bpf source's programs held on for the window name (source-bpf.h), before
 * its start edge. The source, or NULL when not asked. 1 held now, 0 not asked or held
 * already, -1 with err. */
static int
hold_bpf(struct daemon *d, json_object *args, const char *name, struct source **src,
         struct nm_error *err)
{
	*src = NULL;
	if (!json_get_bool(args, "bpf", false))
		return 0;
	if ((*src = sampler_source(d->sampler, "bpf")) == NULL)
		return nm_error_set(err, NM_ERR_UNSUPPORTED, "bpf: this daemon has no bpf source");
	return source_bpf_hold(*src, name, err);
}

/* mark-start: open the window args.name (on args.peer too: peer-window.c); with
 * args.replace, a closed window or stored result of that name goes once it is open; with
 * args.bpf, the eBPF programs are on from before its start to after its stop. */
static int
cmd_mark_start(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	const char *name = json_get_string(args, "name", "");
	json_object *peers = NULL;
	struct source *bpf;
	int r, held;

	if ((held = hold_bpf(ctx->d, args, name, &bpf, err)) < 0)
		return -1;
	if (json_object_object_get_ex(args, "peer", &peers) && json_object_array_length(peers) > 0)
		r = mark_peers_start(ctx->d->peerwins, ctx, name, peers, err);
	else {
		*result = window_start_replace(ctx->d->windows, name, "hand",
		                               json_get_bool(args, "replace", false), err);
		r = *result != NULL ? 0 : -1;
		if (r == 0 && bpf != NULL)
			json_add_bool(*result, "bpf", true);
	}
	if (r < 0 && held == 1)
		source_bpf_release(bpf, name); /* not one an open window of the name held */
	return r;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_mark_start_entry = {.proto = "mark-start", .exec = cmd_mark_start};
