/* cmd-watch.c: stream queues, cpu or softirqs rates every interval, like bwm-ng. */
#include <stdlib.h>
#include <string.h>

#include "cmd-util.h"
#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "ring.h"
#include "sampler.h"

typedef int (*build_fn)(struct daemon *d, json_object *args, json_object *o, struct nm_error *err);

struct watch {
	struct daemon *d;
	json_object *args; /* a reference to the request's args */
	build_fn build;
	const char *what;
	enum sampler_kind src; /* the source whose samples the view's spans end on */
	double interval_s;
	uint64_t last_newest; /* the newest sample the last view showed */
};

static const struct {
	const char *what;
	build_fn build;
	enum sampler_kind src;
} views[] = {
    {"queues", cmd_build_queues, SAMPLER_QUEUES},
    {"cpu", cmd_build_cpu, SAMPLER_CPU},
    {"softirqs", cmd_build_softirqs, SAMPLER_SOFTIRQS},
    {"interrupts", cmd_build_interrupts, SAMPLER_INTERRUPTS},
};

/* One tick: the view over the last interval, sent as an event. */
static void
watch_tick(struct client *c, int64_t id, void *arg)
{
	struct watch *w = arg;
	json_object *data = json_object_new_object(), *view = json_object_new_object();
	struct nm_error err;
	size_t len;
	char *line;

	struct ring_stats st;
	const struct source *so;

	/* Views are as fresh as the sources: no new sample, no new view. */
	ring_get_stats(sampler_ring(w->d->sampler), &st);
	if (st.newest_ns == w->last_newest) {
		json_object_put(data);
		json_object_put(view);
		return;
	}
	w->last_newest = st.newest_ns;
	nm_error_clear(&err);
	json_add_string(data, "what", w->what);
	/* Each view over the last interval as its own source samples it: its figures span
	 * exactly the edges it states. */
	so = sampler_source_of(w->d->sampler, w->src);
	if ((so != NULL ? query_span_last_src(w->d->query, w->interval_s, so->index, &err)
	                : query_span_last(w->d->query, w->interval_s, &err)) < 0 ||
	    w->build(w->d, w->args, view, &err) < 0) {
		json_object_put(view);
		json_add_string(data, "error", err.message);
	} else {
		cmd_span_json(w->d, view);
		json_object_object_add(data, "view", view);
	}
	line = proto_event(id, "watch", data, &len);
	control_client_send(c, line, len);
	free(line);
	json_object_put(data);
}

/* Free a watch when its stream ends. */
static void
watch_free(void *arg)
{
	struct watch *w = arg;

	json_object_put(w->args);
	free(w);
}

static int
cmd_watch(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	const char *what = json_get_string(args, "what", "");
	int64_t interval = json_get_int(args, "interval", 1000);
	struct watch *w;

	(void)result;
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		if (strcmp(views[i].what, what) != 0)
			continue;
		w = calloc(1, sizeof(*w));
		w->d = ctx->d;
		w->args = json_object_get(args);
		w->build = views[i].build;
		w->what = views[i].what;
		w->src = views[i].src;
		w->interval_s = (double)interval / 1000.0;
		if (control_stream_add(ctx->client, ctx->id, (uint64_t)interval, watch_tick, w,
		                       watch_free, err) < 0) {
			watch_free(w);
			return -1;
		}
		/* First view at once, then every interval; no reply: events carry the id. */
		watch_tick(ctx->client, ctx->id, w);
		*result = NULL;
		return 0;
	}
	return nm_error_set(err, NM_ERR_BAD_ARGS,
	                    "argument \"what\": \"%s\" is not queues, cpu, softirqs or interrupts",
	                    what);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_watch_entry = {.proto = "watch", .exec = cmd_watch};
