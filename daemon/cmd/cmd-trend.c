/* cmd-trend.c: trend: the rate of one series step by step over a window or a time range,
 * analysed by trend.c (plateau, onset of decay, decayed level, recovery), and the counters
 * that moved most at the onset. */
#include <event2/buffer.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-util.h"
#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "dispatch.h"
#include "proto.h"
#include "peer-forward.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "results.h"
#include "ring.h"
#include "sampler.h"
#include "trend.h"
#include "window.h"
#include "xmalloc.h"

/* A trend reply made over turns of the loop (dispatch_defer). */
struct trend_reply {
	struct trend_job *job;
	const char *window; /* in args; NULL: a span */
	json_object *args;
	int64_t id;
	bool has_id;
};

static void
reply_free(void *arg)
{
	struct trend_reply *t = arg;

	trend_job_free(t->job);
	json_object_put(t->args);
	free(t);
}

/* The stored series the job waited for are there: its producer runs again. */
static void
wake(void *arg)
{
	control_client_produce_wake(arg);
}

/* The next stage of the trend; the whole line once it is done. */
static int
reply_produce(struct evbuffer *out, void *arg)
{
	struct trend_reply *t = arg;
	struct nm_error err;
	json_object *o, *members;
	size_t len;
	char *line;
	int rc = trend_job_step(t->job, DAEMON_SLICE_NS, &err);

	if (rc == 0)
		return 0;
	if (rc == TREND_JOB_WAIT)
		return CONTROL_PRODUCE_WAIT;
	if (rc < 0)
		line = proto_reply_error(t->id, t->has_id, err.code, err.message, &len);
	else {
		o = json_object_new_object();
		json_object_object_add(
		    o, "window", t->window != NULL ? json_object_new_string(t->window) : NULL);
		members = trend_job_result(t->job);
		json_object_object_foreach(members, k, v)
		    json_object_object_add(o, k, json_object_get(v));
		json_object_put(members);
		line = proto_reply_ok(t->id, t->has_id, o, &len);
		json_object_put(o);
	}
	evbuffer_add(out, line, len);
	free(line);
	return 1;
}

/* trend: over args.window's span, else over from/to as series takes them; made a stage at
 * a time over turns of the loop, the points a slice at a time. */
static int
cmd_trend(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const char *win = json_get_string(args, "window", NULL);
	struct trend_reply *t;
	struct trend_job *job;
	struct ring_stats st;
	uint64_t t0, t1;
	int rc;

	/* --host PEER: that host's daemon answers. */
	if ((rc = peer_forward(ctx, args, err)) != 0)
		return rc < 0 ? -1 : 0;
	if (win != NULL && (json_object_object_get_ex(args, "from", NULL) ||
	                    json_object_object_get_ex(args, "to", NULL)))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"window\": give a window or from/to, not both");
	if (win != NULL)
		job = trend_job_window(d, NULL, win, args, err);
	else {
		ring_get_stats(sampler_ring(d->sampler), &st);
		t0 = cmd_series_time(d, json_get_double(args, "from", -300), st.newest_ns);
		t1 = cmd_series_time(d, json_get_double(args, "to", 0), st.newest_ns);
		job = trend_job_span(d, NULL, args, t0, t1);
	}
	if (job == NULL)
		return -1;
	/* A window's stored series are read off the loop. */
	trend_job_offloop(job, ctx->client != NULL ? wake : NULL, ctx->client,
	                  ctx->client == NULL ? &ctx->offloop_ns : NULL);
	t = xcalloc(1, sizeof(*t));
	t->job = job;
	t->args = json_object_get(args);
	t->window = win;
	t->id = ctx->id;
	t->has_id = ctx->has_id;
	return dispatch_defer(ctx, reply_produce, t, reply_free, result, err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_trend_entry = {.proto = "trend", .exec = cmd_trend};
