/* cmd-watch.c: stream queues, cpu or softirqs rates every interval, like bwm-ng; or the
 * bursts inside the last interval (mean and peak per queue, device and CPU). */
#include <stdlib.h>
#include <string.h>

#include "bursts-src.h"
#include "bursts.h"
#include "cmd-util.h"
#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "ring.h"
#include "sampler.h"
#include "seriesblock.h"

typedef int (*build_fn)(struct daemon *d, json_object *args, json_object *o, struct nm_error *err);

struct watch {
	struct daemon *d;
	json_object *args; /* a reference to the request's args */
	build_fn build;
	const char *what;
	enum sampler_kind src; /* the source whose samples the view's spans end on */
	double interval_s;
	uint64_t last_newest;     /* the newest sample the last view showed */
	struct bursts_live *live; /* "bursts": the walk of the finest records */
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
    {"bursts", NULL, SAMPLER_LINK},
};

/* The "bursts" view: per queue, device and CPU that moved, the mean and the peak rate over
 * one sampled interval in the last interval (bursts.h's figures, without the runs). Like a
 * report, every device's and, of the queues' and CPUs', the [bursts] max_series of the
 * highest peak (all with "all"): a 144-queue, 144-CPU host sent 450 entries a second to each
 * watcher. */
static int
build_bursts(struct watch *w, json_object *view, struct nm_error *err)
{
	static const char *const drop[] = {"bursts", "longest_run_s", "longest_run_at",
	                                   "longest_run_offset_s", "threshold"};
	const struct seriesblock *b =
	    bursts_src_live_step(w->live, (uint64_t)(w->interval_s * 1e9));
	json_object *j, *series;
	char t0[40], t1[40];

	if (b == NULL)
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "no samples of link, queues, softnet or softirqs yet");
	j = bursts_json_blocks(
	    &b, 1, b->t0, b->t1, BURSTS_THRESHOLD,
	    json_get_bool(w->args, "all", false) ? 0 : (size_t)w->d->config.bursts_max_series);
	cmd_format_mono(w->d, b->t0, t0, sizeof(t0));
	cmd_format_mono(w->d, b->t1, t1, sizeof(t1));
	json_add_double(view, "span_s", (double)(b->t1 - b->t0) / 1e9);
	json_add_string(view, "from", t0);
	json_add_string(view, "to", t1);
	if (j == NULL || !json_object_object_get_ex(j, "series", &series))
		series = NULL;
	for (size_t i = 0; series != NULL && i < json_object_array_length(series); i++)
		for (size_t k = 0; k < sizeof(drop) / sizeof(drop[0]); k++)
			json_object_object_del(json_object_array_get_idx(series, i), drop[k]);
	json_object_object_add(view, "series",
	                       series != NULL ? json_object_get(series) : json_object_new_array());
	json_add_uint(view, "bursts_omitted",
	              j != NULL ? (uint64_t)json_get_int(j, "bursts_omitted", 0) : 0);
	json_object_put(j);
	return 0;
}

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
	if (w->live != NULL) {
		if (build_bursts(w, view, &err) < 0) {
			json_object_put(view);
			json_add_string(data, "error", err.message);
		} else
			json_object_object_add(data, "view", view);
	} else if ((so != NULL ? query_span_last_src(w->d->query, w->interval_s, so->index, &err)
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
	bursts_src_live_free(w->live);
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
		if (w->build == NULL)
			w->live = bursts_src_live_new(ctx->d->sampler,
			                              json_get_string(args, "dev", NULL));
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
	                    "argument \"what\": \"%s\" is not queues, cpu, softirqs, interrupts or "
	                    "bursts",
	                    what);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_watch_entry = {.proto = "watch", .exec = cmd_watch};
