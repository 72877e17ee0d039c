/* cmd-report.c: a window's report: live for an open window, stored, or recomputed from the
 * kept edge snapshots with other CPU sets. A stored result is read off the loop
 * (results-load.c); answered as stored it is serialised there too, and only a report
 * recomputed from the kept snapshots is made on the loop. */
#include <event2/buffer.h>
#include <stdlib.h>

#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "proto.h"
#include "results.h"
#include "results-reply.h"
#include "snapshot.h"
#include "window.h"
#include "xmalloc.h"

/* What the loop's half needs: the request's arguments (a copy: the request's are freed when
 * the handler returns) and its window's name. */
struct report_args {
	struct windows *ws; /* loop only */
	char *name;
	json_object *args;
};

/* Free a report_args. */
static void
report_args_free(void *arg)
{
	struct report_args *ra = arg;

	free(ra->name);
	json_object_put(ra->args);
	free(ra);
}

/* The reader thread: the stored result answers as it is, or the loop makes the report. */
static int
report_work(struct results_load *ld, void *arg, json_object **result, struct nm_error *err)
{
	struct report_args *ra = arg;
	struct results_load_item *it = &ld->items[0];

	if (it->result == NULL && it->err.code != NM_ERR_NOT_FOUND) {
		*err = it->err;
		return -1;
	}
	if (it->result == NULL)
		return RESULTS_LOAD_ON_LOOP;
	if (!window_report_as_stored(ra->args, it->result)) {
		/* Recomputed on the loop, which needs only the stored options (its "window"):
		 * the rest is freed here, not there. */
		json_object *slim = json_object_new_object(), *w = NULL, *copy = NULL;

		if (json_object_object_get_ex(it->result, "window", &w) && w != NULL &&
		    json_object_deep_copy(w, &copy, NULL) == 0)
			json_object_object_add(slim, "window", copy);
		json_object_put(it->result);
		it->result = slim;
		return RESULTS_LOAD_ON_LOOP;
	}
	*result = results_load_take(ld, 0, NULL);
	json_add_bool(*result, "stored", true);
	return 0;
}

/* The loop: a window opened since, one kept, or no such report. */
static int
report_done(struct results_load *ld, void *arg, json_object **result, struct nm_error *err)
{
	struct report_args *ra = arg;

	*result =
	    window_report_loaded(ra->ws, ra->name, ra->args, results_load_take(ld, 0, NULL), err);
	return *result != NULL ? 0 : -1;
}

/* The live report of an open window, made over three turns of the loop (dispatch_defer). */
struct live_report {
	struct windows *ws;
	char *name;
	json_object *args; /* a reference */
	int64_t id;
	bool has_id;
	bool sampled, edged, taken; /* sampled; the end edge asked for; one was taken into now */
	struct snapshot now;
};

static void
live_free(void *arg)
{
	struct live_report *lr = arg;

	if (lr->taken)
		snapshot_free(&lr->now);
	free(lr->name);
	json_object_put(lr->args);
	free(lr);
}

/* The sample in the first turn, the edge in the next, then the report and its line. */
static int
live_produce(struct evbuffer *out, void *arg)
{
	struct live_report *lr = arg;
	struct nm_error err;
	json_object *r;
	size_t len;
	char *line;

	if (!lr->sampled) {
		lr->sampled = true;
		window_live_sample(lr->ws, lr->name);
		return 0;
	}
	if (!lr->edged) {
		lr->edged = true;
		lr->taken = window_live_edge(lr->ws, lr->name, &lr->now);
		return 0;
	}
	r = window_live_report(lr->ws, lr->name, lr->args, lr->taken ? &lr->now : NULL, &err);
	line = r != NULL ? proto_reply_ok(lr->id, lr->has_id, r, &len)
	                 : proto_reply_error(lr->id, lr->has_id, err.code, err.message, &len);
	json_object_put(r);
	evbuffer_add(out, line, len);
	free(line);
	return 1;
}

/* report: the report of the window args.name. */
static int
cmd_report(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	const char *name = json_get_string(args, "name", "");
	struct report_args *ra;
	struct results_load *ld;

	/* Live: a sample, the edge, the report, a turn each (a big host's are a few ms each). */
	if (window_is_open(ctx->d->windows, name)) {
		struct live_report *lr = xcalloc(1, sizeof(*lr));
		lr->ws = ctx->d->windows;
		lr->name = xstrdup(name);
		lr->args = json_object_get(args);
		lr->id = ctx->id;
		lr->has_id = ctx->has_id;
		return dispatch_defer(ctx, live_produce, lr, live_free, result, err);
	}
	/* Kept or none (a bad name too): nothing to read from disk. */
	if (!results_exists(ctx->d->results, name)) {
		*result = window_report(ctx->d->windows, name, args, err);
		return *result != NULL ? 0 : -1;
	}
	ra = xcalloc(1, sizeof(*ra));
	ra->ws = ctx->d->windows;
	ra->name = xstrdup(name);
	if (json_object_deep_copy(args, &ra->args, NULL) < 0)
		ra->args = NULL;
	ld = results_load_new(ctx->d->results);
	results_load_add(ld, name, false);
	return results_load_reply(ctx, ld, report_work, report_done, ra, report_args_free, result,
	                          err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_report_entry = {.proto = "report", .exec = cmd_report};
