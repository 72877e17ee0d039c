/* cmd-result-show.c: a stored result, exactly as it is on disk, read and serialised off the
 * loop (results-load.c). */
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "results-reply.h"

/* The reader thread: the result is the reply; with arg (--manifest) only its name and
 * manifest (null when it was stored without one). */
static int
show_work(struct results_load *ld, void *arg, json_object **result, struct nm_error *err)
{
	json_object *r = results_load_take(ld, 0, err), *o, *m = NULL, *w;

	if (r == NULL)
		return -1;
	if (arg == NULL) {
		*result = r;
		return 0;
	}
	o = json_object_new_object();
	if (json_object_object_get_ex(r, "window", &w))
		json_add_string(o, "name", json_get_string(w, "name", NULL));
	json_object_object_get_ex(r, "manifest", &m);
	json_object_object_add(o, "manifest", json_object_get(m));
	json_object_put(r);
	*result = o;
	return 0;
}

/* result-show: the result args.name. */
static int
cmd_result_show(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct results_load *ld = results_load_new(ctx->d->results);

	static char only_manifest;

	results_load_add(ld, json_get_string(args, "name", ""), false);
	return results_load_reply(ctx, ld, show_work, NULL,
	                          json_get_bool(args, "manifest", false) ? &only_manifest : NULL,
	                          NULL, result, err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_result_show_entry = {.proto = "result-show", .exec = cmd_result_show};
