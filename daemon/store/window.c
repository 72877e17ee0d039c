/* window.c: the registry of measurement windows: open ones, closed ones kept in memory with
 * both edge snapshots, the files that mark open windows on disk, and recovery of windows a
 * crash left open. */
#include <assert.h>
#include <event2/event.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bursts-src.h"
#include "bursts.h"
#include "daemon.h"
#include "error.h"
#include "irqtable.h"
#include "jsonutil.h"
#include "log.h"
#include "manifest.h"
#include "report.h"
#include "results.h"
#include "sampler.h"
#include "snapshot.h"
#include "statefile.h"
#include "seriesblock.h"
#include "timeutil.h"
#include "testseries.h"
#include "tuning.h"
#include "window.h"
#include "writer.h"
#include "xmalloc.h"

#define WINDOW_SUFFIX ".json"
#define CRASH_REASON  "the daemon stopped without closing it (crash or kill)"

struct closing;
static void collect_end(struct closing *c);

/* The manifest's settings at a window's start edge, read on the writer thread
 * (manifest_job). Held by the window and by the job until its done, then by a closing
 * until its manifest is built; counted on the loop thread only. Its settings are written
 * by the job and read by later jobs on the same thread (jobs run in order). */
struct manifest_edge {
	unsigned refs;
	char *root, *state_dir;
	json_object *settings;
	json_object *knobs; /* the applied profile's values at the edge (tuning_knobs_read) */
};

struct window {
	char *name;
	char origin[8]; /* "hand" or "test" */
	bool open;
	const char *closed_by;      /* "hand" or "shutdown" once closed */
	uint64_t close_seq;         /* order of closing: the first closed is forgotten first */
	json_object *opts;          /* closed: {"cpus": [...], "min_rate": N} of its report */
	bool frozen;                /* open, but its end edge is taken (end) */
	bool storing;               /* open and frozen, its report on the writer thread */
	struct closing *collecting; /* storing: its series still being copied (loop turns) */
	struct snapshot start, end;
	/* A test's live figures, added to its block at the close (window_test_series). */
	struct testseries *test;
	struct manifest_edge *mstart; /* the start edge's settings (set: the tuning is recorded) */
	json_object *bench;           /* the test's benchmark (window_set_benchmark) */
};

struct windows {
	struct sampler *sampler;
	struct results *results;
	char *dir;          /* STATE_DIR/windows: one file per open window */
	struct window **ws; /* in the order they were opened */
	size_t n, cap;
	uint64_t close_seq;
	char *root, *state_dir;  /* set: a closing window's result records the tuning */
	struct event_base *base; /* set: the series of a close are copied over loop turns */
	uint64_t slice_ns;       /* of a copy's slice (DAEMON_SLICE_NS; tests: smaller) */
	size_t slice_records;
	unsigned slice_pause_ms; /* between slices (0; tests: more, to let the ring move) */
	size_t bursts_max;       /* [bursts] max_series (bursts.h) */
};

/* Let go of e (loop thread). */
static void
edge_unref(struct manifest_edge *e)
{
	if (e == NULL || --e->refs > 0)
		return;
	json_object_put(e->settings);
	json_object_put(e->knobs);
	free(e->root);
	free(e->state_dir);
	free(e);
}

/* On the writer thread: the host's settings at the start edge. */
static void
manifest_job(void *arg)
{
	struct manifest_edge *e = arg;

	e->settings = manifest_read(e->root, e->state_dir);
	e->knobs = tuning_knobs_read(e->root, e->state_dir);
}

/* Back on the loop: the job's reference goes. */
static void
manifest_job_done(void *arg)
{
	edge_unref(arg);
}

/* The index of the window named name, or -1. */
static ssize_t
find(const struct windows *ws, const char *name)
{
	for (size_t i = 0; i < ws->n; i++)
		if (strcmp(ws->ws[i]->name, name) == 0)
			return (ssize_t)i;
	return -1;
}

/* The file of an open window, relative to ws->dir. */
static void
window_rel(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", name, WINDOW_SUFFIX);
}

/* Free a test's live figures kept for w's block. */
static void
test_series_drop(struct window *w)
{
	if (w->test != NULL)
		testseries_free(w->test);
	free(w->test);
	w->test = NULL;
}

/* Free a window and take it out of the list (its files are left alone). */
static void
drop(struct windows *ws, size_t i)
{
	struct window *w = ws->ws[i];

	snapshot_free(&w->start);
	snapshot_free(&w->end);
	test_series_drop(w);
	edge_unref(w->mstart);
	json_object_put(w->bench);
	json_object_put(w->opts);
	free(w->name);
	free(w);
	memmove(ws->ws + i, ws->ws + i + 1, (ws->n - i - 1) * sizeof(*ws->ws));
	ws->n--;
}

/* Memory the snapshots of a window hold. */
static size_t
snap_bytes(const struct window *w)
{
	return snapshot_bytes(&w->start) + snapshot_bytes(&w->end);
}

/* Forget the first-closed windows while more than the bounds are kept. */
static void
trim(struct windows *ws)
{
	for (;;) {
		size_t nclosed = 0, bytes = 0, oldest = 0;
		uint64_t seq = UINT64_MAX;

		for (size_t i = 0; i < ws->n; i++) {
			if (ws->ws[i]->open)
				continue;
			nclosed++;
			bytes += snap_bytes(ws->ws[i]);
			if (ws->ws[i]->close_seq < seq) {
				seq = ws->ws[i]->close_seq;
				oldest = i;
			}
		}
		if (nclosed <= WINDOW_KEEP_MAX && bytes <= WINDOW_KEEP_BYTES)
			return;
		log_debug("window %s: snapshots dropped from memory (result stays on disk)",
		          ws->ws[oldest]->name);
		drop(ws, oldest);
	}
}

/* RFC 3339 of a snapshot's instant. */
static void
snap_time(const struct snapshot *s, char *buf, size_t size)
{
	time_format_rfc3339(s->real_ns, buf, size);
}

/* The options of a report from args with defaults: {"cpus": [...], "min_rate": N}; a member
 * args lacks comes from base (the options of the stored result) when given. */
static json_object *
opts_effective(json_object *args, json_object *base)
{
	json_object *o = json_object_new_object(), *cpus = NULL, *v = NULL;

	if (!json_object_object_get_ex(args, "cpus", &cpus))
		json_object_object_get_ex(base, "cpus", &cpus);
	json_object_object_add(o, "cpus",
	                       json_object_is_type(cpus, json_type_array)
	                           ? json_object_get(cpus)
	                           : json_object_new_array());
	if (!json_object_object_get_ex(args, "min_rate", &v))
		json_object_object_get_ex(base, "min_rate", &v);
	json_object_object_add(o, "min_rate", json_double(v ? json_object_get_double(v) : 0));
	v = NULL;
	if (!json_object_object_get_ex(args, "tcpext", &v))
		json_object_object_get_ex(base, "tcpext", &v);
	if (json_object_is_type(v, json_type_array))
		json_object_object_add(o, "tcpext", json_object_get(v));
	return o;
}

/* Fill report_opts from effective options (opts_effective). 0 ok; -1 with err. */
static int
opts_parse(json_object *eff, struct report_opts *opts, struct nm_error *err)
{
	json_object *cpus = json_object_object_get(eff, "cpus");

	memset(opts, 0, sizeof(*opts));
	for (size_t i = 0; i < json_object_array_length(cpus); i++)
		if (report_parse_cpuset(
		        opts, json_object_get_string(json_object_array_get_idx(cpus, i)), err) < 0)
			return -1;
	opts->min_queue_rate = json_get_double(eff, "min_rate", 0);
	/* Extra TcpExt fields: names, kept by eff while the report is built. */
	{
		json_object *tx = json_object_object_get(eff, "tcpext");
		size_t n = tx ? json_object_array_length(tx) : 0;
		if (n > REPORT_MAX_TCPEXT)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "argument \"tcpext\": at most %d fields",
			                    REPORT_MAX_TCPEXT);
		for (size_t i = 0; i < n; i++)
			opts->tcpext_buf[i] =
			    json_object_get_string(json_object_array_get_idx(tx, i));
		opts->tcpext_buf[n] = NULL;
		opts->tcpext = n ? opts->tcpext_buf : NULL;
	}
	return 0;
}

/* Are two sets of effective options the same? */
static bool
opts_equal(json_object *a, json_object *b)
{
	return json_object_equal(json_object_object_get(a, "cpus"),
	                         json_object_object_get(b, "cpus")) &&
	       json_object_equal(json_object_object_get(a, "tcpext"),
	                         json_object_object_get(b, "tcpext")) &&
	       json_get_double(a, "min_rate", 0) == json_get_double(b, "min_rate", 0);
}

/* The "window" object of a report over [w->start, end]. */
static json_object *
window_json(const struct window *w, const struct snapshot *end, json_object *eff)
{
	json_object *o = json_object_new_object();
	char t[40];

	json_add_string(o, "name", w->name);
	json_add_string(o, "origin", w->origin);
	snap_time(&w->start, t, sizeof(t));
	json_add_string(o, "start", t);
	snap_time(end, t, sizeof(t));
	json_add_string(o, "end", t);
	/* The edges to the nanosecond, for the skew between hosts (peer-window.c). */
	json_add_uint(o, "start_real_ns", w->start.real_ns);
	json_add_uint(o, "end_real_ns", end->real_ns);
	json_object_object_add(o, "duration_s",
	                       json_double((double)(end->mono_ns - w->start.mono_ns) / 1e9));
	if (w->open) {
		json_add_string(o, "state", "open");
		json_add_bool(o, "complete", false);
	} else {
		json_add_string(o, "closed_by", w->closed_by);
		json_add_bool(o, "complete", true);
	}
	json_object_object_foreach(eff, k, v)
	{
		json_object_object_add(o, k, json_object_get(v));
	}
	return o;
}

/* Build the report of w over [w->start, end] with the effective options eff: the "window"
 * object first, then what report_build returned. NULL with err. */
static json_object *
build(struct windows *ws, struct window *w, const struct snapshot *end, json_object *eff,
      struct nm_error *err)
{
	struct report_opts opts;
	json_object *rep, *out, *win, *theirs;

	if (opts_parse(eff, &opts, err) < 0 ||
	    (rep = report_build(ws->sampler, &w->start, end, &opts, err)) == NULL)
		return NULL;
	out = json_object_new_object();
	win = window_json(w, end, eff);
	/* report.h leaves "window" to the caller; keep anything it put there all the same. */
	if (json_object_object_get_ex(rep, "window", &theirs) &&
	    json_object_is_type(theirs, json_type_object)) {
		json_object_object_foreach(theirs, k, v)
		{
			if (!json_object_object_get_ex(win, k, NULL))
				json_object_object_add(win, k, json_object_get(v));
		}
	}
	json_object_object_add(out, "window", win);
	json_object_object_foreach(rep, k, v)
	{
		if (strcmp(k, "window") != 0)
			json_object_object_add(out, k, json_object_get(v));
	}
	json_object_put(rep);
	return out;
}

static void recover_all(struct windows *ws);

/* Add the caller's members to a report: those of extra.window go into its "window" object
 * (over what is there), the others at the top. A null member of extra.hosts (the local
 * host of a multi-host window, peer-window.c) becomes a copy of the local report. */
static void
merge_extra(json_object *r, json_object *extra)
{
	json_object *win, *hosts = NULL, *local = NULL;

	if (!json_object_is_type(extra, json_type_object))
		return;
	if (json_object_object_get_ex(extra, "hosts", &hosts) &&
	    json_object_is_type(hosts, json_type_object)) {
		json_object_object_foreach(hosts, hk, hv)
		{
			if (hv == NULL && local == NULL &&
			    json_object_deep_copy(r, &local, NULL) == 0)
				json_object_object_add(hosts, hk, local);
		}
	}
	json_object_object_foreach(extra, k, v)
	{
		if (strcmp(k, "window") == 0 && json_object_object_get_ex(r, "window", &win) &&
		    json_object_is_type(v, json_type_object)) {
			json_object_object_foreach(v, wk, wv)
			{
				json_object_object_add(win, wk, json_object_get(wv));
			}
		} else
			json_object_object_add(r, k, json_object_get(v));
	}
}

/* Create the registry and recover windows a crash left open. */
struct windows *
window_init(struct sampler *s, struct results *rs, const char *state_dir, struct nm_error *err)
{
	struct windows *ws = xcalloc(1, sizeof(*ws));

	ws->sampler = s;
	ws->results = rs;
	ws->slice_ns = DAEMON_SLICE_NS;
	ws->slice_records = WINDOW_SLICE_RECORDS;
	ws->bursts_max = CONFIG_BURSTS_MAX_SERIES;
	ws->dir = xasprintf("%s/windows", state_dir);
	if (statefile_mkdir(ws->dir, err) < 0) {
		free(ws->dir);
		free(ws);
		return NULL;
	}
	recover_all(ws);
	return ws;
}

/* A test hook: NETMETRICS_TEST_COLLECT_PACE="RECORDS,MS" makes a close's copy of the series
 * take RECORDS records a slice and wait MS ms between slices (so the ring can evict under
 * it, or a signal come in the middle). */
static void
pace_hook(struct windows *ws)
{
	const char *v = getenv("NETMETRICS_TEST_COLLECT_PACE");
	unsigned long rec, ms;
	char *end;

	if (v == NULL || *v == '\0')
		return;
	rec = strtoul(v, &end, 10);
	if (*end != ',' || rec == 0 || rec > 1000000 || (ms = strtoul(end + 1, &end, 10)) > 10000 ||
	    *end != '\0') {
		log_warnx("NETMETRICS_TEST_COLLECT_PACE=%s ignored: not RECORDS,MS", v);
		return;
	}
	log_warnx("test hook: a close copies %lu records of series a slice, %lu ms apart", rec, ms);
	window_set_pace(ws, 0, (size_t)rec, (unsigned)ms);
}

void
window_set_pace(struct windows *ws, uint64_t slice_ns, size_t records, unsigned pause_ms)
{
	ws->slice_ns = slice_ns != 0 ? slice_ns : DAEMON_SLICE_NS;
	ws->slice_records = records != 0 ? records : WINDOW_SLICE_RECORDS;
	ws->slice_pause_ms = pause_ms;
}

void
window_set_loop(struct windows *ws, struct event_base *base)
{
	if (base == NULL) {
		/* The loop no longer runs: every copy in slices is finished now (a store may
		 * forget closed windows: look again from the start each time). */
		for (size_t i = 0; i < ws->n;)
			if (ws->ws[i]->collecting != NULL) {
				log_info(
				    "window %s: the rest of its series copied at once (the loop "
				    "stopped)",
				    ws->ws[i]->name);
				collect_end(ws->ws[i]->collecting);
				i = 0;
			} else
				i++;
	} else if (ws->base == NULL)
		pace_hook(ws);
	ws->base = base;
}

/* Record the host's tuning (tuning.h) in each result from now on. */
void
window_record_tuning(struct windows *ws, const char *root, const char *state_dir)
{
	free(ws->root);
	free(ws->state_dir);
	ws->root = xstrdup(root);
	ws->state_dir = xstrdup(state_dir);
}

/* Cap the burst figures of each result from now on at max_series (bursts.h; 0: no cap). */
void
window_bursts_max(struct windows *ws, size_t max_series)
{
	ws->bursts_max = max_series;
}

/* A window being closed: its report on its way to disk. */
struct closing {
	struct windows *ws;
	struct window *w;
	json_object *report, *eff;
	const char *closed_by;
	window_stored_fn done;
	void *arg;
	json_object *tuning;             /* read on the writer thread (tuning_job) */
	json_object *manifest;           /* built there too */
	json_object *bursts;             /* the span's burst figures (bursts.h), built there too */
	struct manifest_edge *mstart;    /* the start edge's settings (a reference) */
	json_object *bench;              /* the window's benchmark (a reference) */
	struct seriesblock *blk;         /* the span's per-sample history, stored with the report */
	struct seriesblock_collect *col; /* blk being copied, a slice a turn (ev) */
	bool col_done;                   /* col copied: fcol's turn */
	struct seriesblock *fblk;        /* the span out of the fine history, for the bursts */
	struct seriesblock_collect *fcol; /* fblk being copied, after col */
	struct event *ev;
	bool reserved; /* results_reserve'd: the tuning is read before the put */
};

/* The report is durable, or could not be stored (loop): mark w closed, or leave it open
 * with the edge taken (a retry closes at the same instant), and tell the caller. */
static void
closing_done(void *arg, const struct nm_error *err)
{
	struct closing *c = arg;
	struct windows *ws = c->ws;
	struct window *w = c->w;
	struct nm_error e;
	char rel[PATH_MAX];

	w->storing = false;
	if (err != NULL) {
		json_object_put(c->eff);
		if (c->done != NULL)
			c->done(c->arg, NULL, err);
		json_object_put(c->report);
		free(c);
		return;
	}
	/* The result is on disk: the open-window file has served its purpose. A crash before
	 * it goes is harmless, as recovery finds the result stored. */
	window_rel(w->name, rel, sizeof(rel));
	if (statefile_remove_flags(ws->dir, rel, STATEFILE_NOSYNC, &e) < 0)
		log_warnx("window %s: %s", w->name, e.message);
	w->open = false;
	w->frozen = false;
	sampler_fine_update(ws->sampler); /* fine sampling stops with the last window */
	test_series_drop(w);              /* in the stored block now */
	w->closed_by = c->closed_by;
	w->opts = c->eff;
	w->close_seq = ++ws->close_seq;
	log_info("window %s closed (%s), result stored", w->name, c->closed_by);
	if (c->done != NULL)
		c->done(c->arg, c->report, NULL);
	json_object_put(c->report);
	free(c);
	trim(ws);
}

/* The burst figures of the window's span from the finest records of it (bursts-src.h), off
 * the loop: on the writer thread, before the block is downsampled for the disk. NULL when
 * the block has none of their series. */
static json_object *
closing_bursts(struct closing *c)
{
	const struct seriesblock *bv[2], *b;
	size_t nb = bursts_src_blocks(c->blk, c->fblk, bv);
	uint64_t t = time_mono_ns();
	json_object *j, *ser;

	if (nb == 0)
		return NULL;
	/* The main block's span is the window's (or ends where eviction cut the copy). */
	b = c->blk != NULL ? c->blk : c->fblk;
	j = bursts_json_blocks(bv, nb, b->t0, b->t1, BURSTS_THRESHOLD, c->ws->bursts_max);
	seriesblock_free(c->fblk); /* only the bursts read it */
	c->fblk = NULL;
	log_info("window %s: bursts of %zu series in %.1f ms", c->w->name,
	         j != NULL && json_object_object_get_ex(j, "series", &ser)
	             ? json_object_array_length(ser)
	             : (size_t)0,
	         (double)(time_mono_ns() - t) / 1e6);
	return j;
}

/* Put the burst figures (NULL: none) in the report, and in its copy of this host's report
 * under hosts.<local_host> when it is a multi-host window's (merge_extra copied it before the
 * figures were made): each host's part has its bursts, the peers' from their own windows. */
static void
report_add_bursts(json_object *report, json_object *bursts)
{
	json_object *hosts, *local;

	if (bursts == NULL)
		return;
	if (json_object_object_get_ex(report, "hosts", &hosts) &&
	    json_object_is_type(hosts, json_type_object) &&
	    json_object_object_get_ex(hosts, json_get_string(report, "local_host", ""), &local) &&
	    json_object_is_type(local, json_type_object))
		json_object_object_add(local, "bursts", json_object_get(bursts));
	json_object_object_add(report, "bursts", bursts);
}

/* On the writer thread: the host's tuning for the report (tens of sysfs files per queue of a
 * device: up to ~13 ms on 144-queue devices, too long for the loop). Touches c->report only
 * to read it: until tuning_done the loop only reads it too (results_get's copy of the
 * reserved report, whose "tuning" is null until then). */
static void
tuning_job(void *arg)
{
	struct closing *c = arg;

	json_object *end, *knobs;

	c->tuning = tuning_read(c->ws->root, c->ws->state_dir, c->report);
	/* Every value the profile set at both edges: the open edge's read by an earlier job. */
	knobs = tuning_knobs_read(c->ws->root, c->ws->state_dir);
	tuning_knobs_edges(c->tuning, c->mstart != NULL,
	                   c->mstart != NULL ? c->mstart->knobs : NULL, knobs);
	json_object_put(knobs);
	/* The end edge's settings, beside the start edge's read by an earlier job. */
	end = manifest_read(c->ws->root, c->ws->state_dir);
	c->manifest = manifest_build(c->mstart != NULL ? c->mstart->settings : NULL, end, c->bench);
	json_object_put(end);
	c->bursts = closing_bursts(c);
}

/* Back on the loop: the tuning in its place (the key was added, null, in order), then the
 * put, on the writer thread in its turn. */
static void
tuning_done(void *arg)
{
	struct closing *c = arg;
	struct seriesblock *blk;
	struct nm_error err;

	json_object_object_add(c->report, "tuning", c->tuning);
	json_object_object_add(c->report, "manifest", c->manifest);
	report_add_bursts(c->report, c->bursts);
	c->bursts = NULL;
	c->tuning = NULL;
	c->manifest = NULL;
	edge_unref(c->mstart);
	c->mstart = NULL;
	json_object_put(c->bench);
	c->bench = NULL;
	blk = c->blk;
	c->blk = NULL;
	if (results_put_async_series(c->ws->results, c->w->name, c->report, blk, closing_done, c,
	                             &err) < 0)
		closing_done(c, &err);
}

/* The series are copied: on to the tuning (writer thread) and the put. With err set (the
 * put refused at once without a reservation, as results_put_async refuses) c is freed, done
 * not called, -1; from a later turn of the loop (err NULL) a refusal goes to done. */
static int
collected(struct closing *c, struct nm_error *err)
{
	struct seriesblock *blk;
	struct nm_error e;

	if (c->col != NULL) {
		c->blk = seriesblock_collect_finish(c->col);
		seriesblock_collect_free(c->col);
		c->col = NULL;
	}
	if (c->fcol != NULL) {
		c->fblk = seriesblock_collect_finish(c->fcol);
		seriesblock_collect_free(c->fcol);
		c->fcol = NULL;
	}
	/* A test's own figures over the span: a source of the block the ring has not. */
	c->blk = seriesblock_test_add(c->blk, c->w->test, c->w->start.mono_ns, c->w->end.mono_ns,
	                              sampler_mono_to_real(c->ws->sampler));
	if (c->reserved) {
		c->mstart = c->w->mstart;
		if (c->mstart != NULL)
			c->mstart->refs++;
		c->bench = json_object_get(c->w->bench);
		writer_submit(results_writer(c->ws->results), tuning_job, tuning_done, c);
		return 0;
	}
	/* Without a tuning job (no root: tests), the burst figures are made here. */
	c->bursts = closing_bursts(c);
	report_add_bursts(c->report, c->bursts);
	c->bursts = NULL;
	blk = c->blk;
	c->blk = NULL;
	if (results_put_async_series(c->ws->results, c->w->name, c->report, blk, closing_done, c,
	                             err != NULL ? err : &e) == 0)
		return 0;
	if (err == NULL) {
		closing_done(c, &e);
		return -1;
	}
	c->w->storing = false;
	json_object_put(c->report);
	json_object_put(c->eff);
	free(c);
	return -1;
}

/* The next slice of c's copy at the next turn of the loop. */
static void
collect_again(struct closing *c)
{
	struct timeval tv = {0, (suseconds_t)c->ws->slice_pause_ms * 1000};

	evtimer_add(c->ev, &tv);
}

/* The copy is over (or finished at once): its event goes, the store goes on. */
static void
collect_end(struct closing *c)
{
	event_free(c->ev);
	c->ev = NULL;
	c->w->collecting = NULL;
	collected(c, NULL);
}

/* One slice of a close's copy of the series, on the loop. */
static void
collect_cb(evutil_socket_t fd, short what, void *arg)
{
	struct closing *c = arg;

	struct seriesblock_collect *cs = !c->col_done ? c->col : c->fcol;
	int done;

	(void)fd;
	(void)what;
	done = seriesblock_collect_step(cs, c->ws->slice_ns, c->ws->slice_records);
	if (cs == c->col && done)
		c->col_done = true; /* then the fine history's copy, when there is one */
	if (!done || (cs == c->col && c->fcol != NULL))
		collect_again(c);
	else
		collect_end(c);
}

/* Close w (open) with the options in args: build its report, store it on the writer thread
 * (after reading the host's tuning there), mark it closed once it is durable
 * (closing_done). 0 when storing began; -1 with err, w still open, done not called. */
static int
close_window(struct windows *ws, struct window *w, json_object *args, const char *closed_by,
             json_object *extra, window_stored_fn done, void *arg, struct nm_error *err)
{
	json_object *eff = opts_effective(args, NULL), *r;
	struct closing *c;
	struct snapshot end;

	if (w->frozen) {
		end = w->end;
		memset(&w->end, 0, sizeof(w->end));
		w->frozen = false;
	} else
		snapshot_take(ws->sampler, &end);
	/* The report says how the window closed. */
	w->open = false;
	w->closed_by = closed_by;
	r = build(ws, w, &end, eff, err);
	/* Its place among the keys now, its value from the writer thread (tuning_job). */
	if (r != NULL && ws->root != NULL) {
		json_object_object_add(r, "tuning", NULL);
		json_object_object_add(r, "manifest", NULL);
	}
	if (r != NULL) {
		merge_extra(r, extra);
		/* The joins of the result, for views of it once its snapshots are gone. */
		json_object_object_add(r, "irq_table", irqtable_json(&end.irqs));
	}
	w->open = true;
	w->closed_by = NULL;
	/* Until it is stored (or on failure) the window stays open with this end edge. */
	w->end = end;
	w->frozen = true;
	if (r == NULL) {
		json_object_put(eff);
		return -1;
	}
	c = xcalloc(1, sizeof(*c));
	*c = (struct closing){.ws = ws,
	                      .w = w,
	                      .report = r,
	                      .eff = eff,
	                      .closed_by = closed_by,
	                      .done = done,
	                      .arg = arg};
	w->storing = true;
	if (ws->root != NULL) {
		/* The name taken and the report served now, as by results_put_async (what it
		 * refuses at once, refused now: done not called); the put after the series and
		 * the tuning. */
		if (results_reserve(ws->results, w->name, r, err) < 0) {
			w->storing = false;
			json_object_put(r);
			json_object_put(eff);
			free(c);
			return -1;
		}
		c->reserved = true;
	}
	/* The per-sample history of the span goes with it (seriesblock.h): the records are
	 * copied out of the ring now, at once without a loop, else a slice per turn of the
	 * loop (collect_cb); encoded and written on the writer thread. */
	c->col = seriesblock_collect_new(ws->sampler, w->start.mono_ns, end.mono_ns);
	c->col_done = c->col == NULL;
	/* The bursts read the fine sources' records out of the fine history (bursts-src.h),
	 * copied after the main ring's, in slices too. */
	c->fcol = seriesblock_collect_new_fine(ws->sampler, w->start.mono_ns, end.mono_ns);
	if ((c->col != NULL || c->fcol != NULL) && ws->base != NULL) {
		c->ev = evtimer_new(ws->base, collect_cb, c);
		w->collecting = c;
		collect_again(c);
		return 0;
	}
	return collected(c, err);
}

/* What an inline stop stored: its report, or why not. */
struct inline_stop {
	bool done;
	json_object *report;
	struct nm_error err;
};

static void
inline_stored(void *arg, json_object *report, const struct nm_error *err)
{
	struct inline_stop *st = arg;

	st->done = true;
	if (err != NULL)
		st->err = *err;
	else
		st->report = json_object_get(report);
}

json_object *
window_stop_inline(struct windows *ws, const char *name, json_object *args, const char *closed_by,
                   json_object *extra, struct nm_error *err)
{
	struct inline_stop st = {0};
	struct event_base *base = ws->base;
	int rc;

	/* The series copied at once too. */
	ws->base = NULL;
	rc = window_stop(ws, name, args, closed_by, extra, inline_stored, &st, err);
	ws->base = base;
	if (rc < 0)
		return NULL;
	/* A writer thread would answer later: this caller has none. */
	assert(st.done);
	if (st.report == NULL)
		*err = st.err;
	return st.report;
}

/* At shutdown: note whether a window could not be stored. */
static void
shutdown_stored(void *arg, json_object *report, const struct nm_error *err)
{
	bool *failed = arg;

	(void)report;
	*failed = err != NULL;
}

/* Close every open window, then free the registry. */
void
window_free(struct windows *ws)
{
	struct nm_error err;

	if (ws == NULL)
		return;
	window_set_loop(ws, NULL);
	/* Closing one may forget others (trim): look for the next open one from the start. */
	for (;;) {
		bool failed = false;
		size_t i = 0;

		while (i < ws->n && !ws->ws[i]->open)
			i++;
		if (i == ws->n)
			break;
		/* The results writer runs inline by now (results_stop_thread): stored on return. */
		if (close_window(ws, ws->ws[i], NULL, "shutdown", NULL, shutdown_stored, &failed,
		                 &err) < 0 ||
		    failed || ws->ws[i]->open) {
			/* Its file stays: the next start stores it as incomplete. */
			log_warnx("window %s: not closed at shutdown%s%s", ws->ws[i]->name,
			          failed ? "" : ": ", failed ? "" : err.message);
			drop(ws, i);
		}
	}
	while (ws->n > 0)
		drop(ws, ws->n - 1);
	free(ws->ws);
	free(ws->dir);
	free(ws->root);
	free(ws->state_dir);
	free(ws);
}

/* Count the open windows. */
static size_t
count_open(const struct windows *ws)
{
	size_t n = 0;

	for (size_t i = 0; i < ws->n; i++)
		n += ws->ws[i]->open;
	return n;
}

size_t
window_open_count(const struct windows *ws)
{
	return count_open(ws);
}

/* Refuse a name in use by a window or a stored result; with replace only an open window or
 * one being stored (what --replace cannot take away). The hint names the one step that
 * frees the name: --replace, which removes the kept window and the stored result both. */
static int
name_free(struct windows *ws, const char *name, bool replace, struct nm_error *err)
{
	ssize_t i = find(ws, name);
	bool stored = results_exists(ws->results, name);

	if (i >= 0 && ws->ws[i]->open)
		return nm_error_set(err, NM_ERR_EXISTS, "window %s is open", name);
	if (i >= 0 && ws->ws[i]->storing)
		return nm_error_set(err, NM_ERR_BUSY, "window %s is being stored", name);
	if (replace || (i < 0 && !stored))
		return 0;
	return nm_error_set(err, NM_ERR_EXISTS, "%s named %s exist%s (--replace replaces %s)",
	                    i >= 0 && stored ? "a closed window and a stored result"
	                    : i >= 0         ? "a closed window"
	                                     : "a stored result",
	                    name, i >= 0 && stored ? "" : "s", i >= 0 && stored ? "both" : "it");
}

/* With replace, remove what name_free let through: the stored result (which can fail, so
 * first), then the kept window. Adds "replaced": [what went] to o. */
static int
replace_old(struct windows *ws, const char *name, json_object *o, struct nm_error *err)
{
	ssize_t i = find(ws, name);
	json_object *gone = json_object_new_array();

	if (results_exists(ws->results, name)) {
		if (results_delete(ws->results, name, err) < 0) {
			json_object_put(gone);
			return -1;
		}
		json_object_array_add(gone, json_object_new_string("result"));
	}
	if (i >= 0) {
		drop(ws, (size_t)i);
		json_object_array_add(gone, json_object_new_string("window"));
	}
	if (json_object_array_length(gone) > 0)
		log_info("window %s: replaced the old one", name);
	json_object_object_add(o, "replaced", gone);
	return 0;
}

/* Open a window: take its start snapshot and mark it open on disk. */
json_object *
window_start(struct windows *ws, const char *name, const char *origin, struct nm_error *err)
{
	return window_start_replace(ws, name, origin, false, err);
}

json_object *
window_start_replace(struct windows *ws, const char *name, const char *origin, bool replace,
                     struct nm_error *err)
{
	json_object *o;
	struct window *w;
	char rel[PATH_MAX], t[40];
	struct nm_error e;

	if (results_name_check(name, err) < 0 || name_free(ws, name, replace, err) < 0)
		return NULL;
	if (strcmp(origin, "hand") != 0 && strcmp(origin, "test") != 0) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "origin \"%s\" is not hand or test", origin);
		return NULL;
	}
	if (count_open(ws) >= WINDOW_OPEN_MAX) {
		nm_error_set(err, NM_ERR_BUSY, "%d windows are open already", WINDOW_OPEN_MAX);
		return NULL;
	}
	w = xcalloc(1, sizeof(*w));
	w->name = xstrdup(name);
	snprintf(w->origin, sizeof(w->origin), "%s", origin);
	w->open = true;
	snapshot_take(ws->sampler, &w->start);
	snap_time(&w->start, t, sizeof(t));
	o = json_object_new_object();
	json_add_string(o, "name", name);
	json_add_string(o, "origin", origin);
	json_add_string(o, "start", t);
	json_add_uint(o, "start_real_ns", w->start.real_ns);
	window_rel(name, rel, sizeof(rel));
	/* Not fsync'ed: the marker only helps recovery, and the loop must not wait for a busy
	 * disk while a test's timers are due. The old window and result go only once the new
	 * one has its marker: a start that fails leaves them. */
	if (statefile_write_json_flags(ws->dir, rel, o, STATEFILE_NOSYNC, err) < 0 ||
	    (replace && replace_old(ws, name, o, err) < 0)) {
		statefile_remove(ws->dir, rel, &e);
		json_object_put(o);
		snapshot_free(&w->start);
		free(w->name);
		free(w);
		return NULL;
	}
	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? ws->cap * 2 : 16;
		ws->ws = xreallocarray(ws->ws, ws->cap, sizeof(*ws->ws));
	}
	ws->ws[ws->n++] = w;
	sampler_fine_update(ws->sampler); /* fine sampling while a window is open */
	if (ws->root != NULL) {
		/* The manifest's start edge, off the loop (manifest.h). */
		struct manifest_edge *e = xcalloc(1, sizeof(*e));
		e->refs = 2;
		e->root = xstrdup(ws->root);
		e->state_dir = xstrdup(ws->state_dir);
		w->mstart = e;
		writer_submit(results_writer(ws->results), manifest_job, manifest_job_done, e);
	}
	json_add_string(o, "state", "open");
	log_info("window %s opened (%s)", name, origin);
	return o;
}

/* Close the open window name and store its report on the writer thread. */
int
window_stop(struct windows *ws, const char *name, json_object *args, const char *closed_by,
            json_object *extra, window_stored_fn done, void *arg, struct nm_error *err)
{
	ssize_t i = find(ws, name);

	if (strcmp(closed_by, "hand") != 0 && strcmp(closed_by, "test") != 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "closed_by \"%s\" is not hand or test",
		                    closed_by);
	if (i < 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no open window named %s", name);
	if (!ws->ws[i]->open)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "window %s is closed already", name);
	if (ws->ws[i]->storing)
		return nm_error_set(err, NM_ERR_BUSY, "window %s is being stored", name);
	return close_window(ws, ws->ws[i], args, closed_by, extra, done, arg, err);
}

/* Take the end edge of an open window now; it stays open until window_stop. */
int
window_freeze(struct windows *ws, const char *name, struct nm_error *err)
{
	ssize_t i = find(ws, name);
	struct window *w;

	if (i < 0 || !ws->ws[i]->open)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no open window named %s", name);
	w = ws->ws[i];
	if (!w->frozen) {
		snapshot_take(ws->sampler, &w->end);
		w->frozen = true;
	}
	return 0;
}

/* Keep a test's live figures for the open window's block. */
int
window_test_series(struct windows *ws, const char *name, struct testseries *ts)
{
	ssize_t i = find(ws, name);

	if (i < 0 || !ws->ws[i]->open) {
		if (ts != NULL)
			testseries_free(ts);
		free(ts);
		return -1;
	}
	test_series_drop(ws->ws[i]);
	ws->ws[i]->test = ts;
	return 0;
}

int
window_set_benchmark(struct windows *ws, const char *name, json_object *bench)
{
	ssize_t i = find(ws, name);

	if (i < 0 || !ws->ws[i]->open) {
		json_object_put(bench);
		return -1;
	}
	json_object_put(ws->ws[i]->bench);
	ws->ws[i]->bench = bench;
	return 0;
}

uint64_t
window_edge_real_ns(const struct windows *ws, const char *name)
{
	ssize_t i = find(ws, name);

	if (i < 0 || !ws->ws[i]->open)
		return 0;
	return ws->ws[i]->frozen ? ws->ws[i]->end.real_ns : ws->ws[i]->start.real_ns;
}

/* A live report of the open window w, from its start to now. */
static json_object *
report_live(struct windows *ws, struct window *w, json_object *args, struct nm_error *err)
{
	json_object *eff = opts_effective(args, NULL), *r;
	struct snapshot now;

	if (w->frozen) {
		r = build(ws, w, &w->end, eff, err);
	} else {
		snapshot_take(ws->sampler, &now);
		r = build(ws, w, &now, eff, err);
		snapshot_free(&now);
	}
	json_object_put(eff);
	return r;
}

/* Is there an open window named name whose end edge is still to take? */
static bool
live_edge_wanted(const struct windows *ws, const char *name)
{
	ssize_t i = find(ws, name);

	return i >= 0 && ws->ws[i]->open && !ws->ws[i]->frozen;
}

void
window_live_sample(struct windows *ws, const char *name)
{
	if (live_edge_wanted(ws, name))
		sampler_sample_all(ws->sampler);
}

bool
window_live_edge(struct windows *ws, const char *name, struct snapshot *now)
{
	if (!live_edge_wanted(ws, name))
		return false;
	/* As snapshot_take, its sample made in the turn before. */
	snapshot_copy_live(ws->sampler, now);
	return true;
}

json_object *
window_live_report(struct windows *ws, const char *name, json_object *args,
                   const struct snapshot *now, struct nm_error *err)
{
	ssize_t i = find(ws, name);
	struct window *w = i >= 0 ? ws->ws[i] : NULL;
	json_object *eff, *r;

	/* Closed or deleted since the edge, or not frozen and no edge taken: as it is now. */
	if (w == NULL || !w->open || (!w->frozen && now == NULL))
		return window_report(ws, name, args, err);
	eff = opts_effective(args, NULL);
	/* Being stored since: its end edge is the report's, as report_live has it. */
	if ((r = build(ws, w, w->frozen ? &w->end : now, eff, err)) != NULL)
		json_add_bool(r, "stored", false);
	json_object_put(eff);
	return r;
}

/* A window's report: live, stored or recomputed. */
bool
window_exists(const struct windows *ws, const char *name)
{
	return find(ws, name) >= 0;
}

bool
window_is_open(const struct windows *ws, const char *name)
{
	ssize_t i = find(ws, name);

	return i >= 0 && ws->ws[i]->open;
}

json_object *
window_report(struct windows *ws, const char *name, json_object *args, struct nm_error *err)
{
	json_object *stored = NULL;
	struct nm_error e;

	if (results_name_check(name, err) < 0)
		return NULL;
	if (!window_is_open(ws, name) && (stored = results_get(ws->results, name, &e)) == NULL &&
	    e.code != NM_ERR_NOT_FOUND) {
		nm_error_set(err, e.code, "%s", e.message);
		return NULL;
	}
	return window_report_loaded(ws, name, args, stored, err);
}

bool
window_report_as_stored(json_object *args, json_object *stored)
{
	json_object *base = NULL, *eff, *own;
	bool same;

	json_object_object_get_ex(stored, "window", &base);
	eff = opts_effective(args, base);
	own = opts_effective(NULL, base);
	same = opts_equal(eff, own);
	json_object_put(own);
	json_object_put(eff);
	return same;
}

json_object *
window_report_loaded(struct windows *ws, const char *name, json_object *args, json_object *stored,
                     struct nm_error *err)
{
	ssize_t i = find(ws, name);
	struct window *w = i >= 0 ? ws->ws[i] : NULL;
	json_object *base = NULL, *eff, *r;

	if (w != NULL && w->open) {
		json_object_put(stored);
		if ((r = report_live(ws, w, args, err)) != NULL)
			json_add_bool(r, "stored", false);
		return r;
	}
	if (stored == NULL && w == NULL) {
		nm_error_set(err, NM_ERR_NOT_FOUND, "no window or result named %s", name);
		return NULL;
	}
	/* What args leaves out is as the stored result (or the kept window) had it. */
	if (stored != NULL)
		json_object_object_get_ex(stored, "window", &base);
	else
		base = w->opts;
	if (stored != NULL && window_report_as_stored(args, stored)) {
		json_add_bool(stored, "stored", true);
		return stored;
	}
	eff = opts_effective(args, base);
	if (w != NULL) {
		if ((r = build(ws, w, &w->end, eff, err)) != NULL)
			json_add_bool(r, "stored", false);
	} else {
		r = NULL;
		nm_error_set(
		    err, NM_ERR_NOT_FOUND,
		    "window %s: its edge snapshots are gone (the daemon restarted, the window "
		    "was deleted, or over %d windows closed since), so its report cannot be "
		    "computed with other --cpus or --min-rate; without them, report %s shows "
		    "the stored one",
		    name, WINDOW_KEEP_MAX, name);
	}
	json_object_put(eff);
	json_object_put(stored);
	return r;
}

/* Forget a window; its stored result stays. */
json_object *
window_delete(struct windows *ws, const char *name, struct nm_error *err)
{
	ssize_t i = find(ws, name);
	json_object *o;
	char rel[PATH_MAX];
	struct nm_error e;
	bool was_open;

	if (results_name_check(name, err) < 0)
		return NULL;
	if (i < 0) {
		nm_error_set(err, NM_ERR_NOT_FOUND, "no window named %s%s", name,
		             results_exists(ws->results, name)
		                 ? " (a stored result has that name: result delete removes it)"
		                 : "");
		return NULL;
	}
	if (ws->ws[i]->storing) {
		nm_error_set(err, NM_ERR_BUSY, "window %s is being stored", name);
		return NULL;
	}
	was_open = ws->ws[i]->open;
	if (was_open) {
		window_rel(name, rel, sizeof(rel));
		if (statefile_remove(ws->dir, rel, &e) < 0 && e.code != NM_ERR_NOT_FOUND) {
			nm_error_set(err, e.code, "window %s: %s", name, e.message);
			return NULL;
		}
	}
	drop(ws, (size_t)i);
	log_info("window %s deleted", name);
	o = json_object_new_object();
	json_add_string(o, "deleted", name);
	json_add_string(o, "state", was_open ? "open" : "closed");
	json_add_bool(o, "result_kept", results_exists(ws->results, name));
	return o;
}

/* One window for the list. */
static json_object *
list_entry(struct windows *ws, const struct window *w)
{
	json_object *o = json_object_new_object();
	uint64_t end = w->open ? time_mono_ns() : w->end.mono_ns;
	char t[40];

	json_add_string(o, "name", w->name);
	json_add_string(o, "origin", w->origin);
	json_add_string(o, "state", w->storing ? "storing" : w->open ? "open" : "closed");
	snap_time(&w->start, t, sizeof(t));
	json_add_string(o, "start", t);
	if (!w->open) {
		snap_time(&w->end, t, sizeof(t));
		json_add_string(o, "end", t);
	}
	json_object_object_add(
	    o, "duration_s",
	    json_double(end > w->start.mono_ns ? (double)(end - w->start.mono_ns) / 1e9 : 0));
	if (!w->open)
		json_add_string(o, "closed_by", w->closed_by);
	json_add_bool(o, "stored", results_exists(ws->results, w->name));
	return o;
}

/* Open and kept windows. */
json_object *
window_list_json(struct windows *ws)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();

	for (size_t i = 0; i < ws->n; i++)
		json_object_array_add(arr, list_entry(ws, ws->ws[i]));
	json_add_uint(o, "count", ws->n);
	json_add_uint(o, "open", count_open(ws));
	json_object_object_add(o, "windows", arr);
	return o;
}

/* Store the window left open in the file rel as an incomplete result, then remove the file.
 * When its result is stored already (the crash came between storing it and removing the
 * file), only the file goes. */
static void
recover(struct windows *ws, const char *rel)
{
	char name[PATH_MAX], now[40];
	json_object *old, *r, *win;
	struct nm_error err;

	snprintf(name, sizeof(name), "%.*s", (int)(strlen(rel) - strlen(WINDOW_SUFFIX)), rel);
	if (results_name_check(name, &err) < 0) {
		log_warnx("window: ignoring %s/%s: %s", ws->dir, rel, err.message);
		return;
	}
	if (!results_exists(ws->results, name)) {
		if ((old = statefile_read_json(ws->dir, rel, &err)) == NULL)
			log_warnx("window %s: %s", name, err.message);
		time_format_rfc3339(time_real_ns(), now, sizeof(now));
		r = json_object_new_object();
		win = json_object_new_object();
		json_add_string(win, "name", name);
		json_add_string(win, "origin", json_get_string(old, "origin", "hand"));
		json_add_string(win, "start", json_get_string(old, "start", NULL));
		json_add_bool(win, "complete", false);
		json_add_string(win, "reason", CRASH_REASON);
		json_add_string(win, "recovered", now);
		json_object_object_add(r, "window", win);
		json_object_object_add(r, "figures", json_object_new_object());
		json_object_put(old);
		if (results_put(ws->results, name, r, &err) < 0) {
			/* The file stays, so the next start tries again. */
			log_warnx("window %s: left open by the last run: %s", name, err.message);
			json_object_put(r);
			return;
		}
		json_object_put(r);
		log_warnx("window %s: left open by the last run; stored as incomplete", name);
	}
	if (statefile_remove(ws->dir, rel, &err) < 0)
		log_warnx("window %s: %s", name, err.message);
}

/* Paths of open-window files found by a scan. */
struct rel_list {
	char **v;
	size_t n, cap;
};

/* Collect the path of one open-window file (recovered after the scan, which must not see
 * the tree change under it). */
static void
collect(const char *rel, void *arg)
{
	struct rel_list *list = arg;

	if (list->n == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 8;
		list->v = xreallocarray(list->v, list->cap, sizeof(*list->v));
	}
	list->v[list->n++] = xstrdup(rel);
}

/* Recover every window the last run left open. */
static void
recover_all(struct windows *ws)
{
	struct rel_list list = {NULL, 0, 0};

	statefile_scan(ws->dir, WINDOW_SUFFIX, collect, &list);
	for (size_t i = 0; i < list.n; i++) {
		recover(ws, list.v[i]);
		free(list.v[i]);
	}
	free(list.v);
}

/* Wall-clock ns of an RFC 3339 UTC time as reports carry it ("2026-11-29T23:52:40.123Z"); 0
 * when s is not one. */
static uint64_t
parse_rfc3339(const char *s)
{
	struct tm tm = {0};
	double frac = 0;
	char *end;
	time_t sec;
	int n = 0;

	if (s == NULL || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
	                        &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6)
		return 0;
	s += n;
	if (*s == '.') {
		frac = strtod(s, &end);
		s = end;
	}
	if (strcmp(s, "Z") != 0)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	if ((sec = timegm(&tm)) <= 0)
		return 0;
	return (uint64_t)sec * 1000000000ull + (uint64_t)(frac * 1e9 + 0.5);
}

/* CLOCK_MONOTONIC ns of a wall-clock time, 0 when it was before the clock's start. */
static uint64_t
real_to_mono(struct windows *ws, uint64_t real_ns)
{
	int64_t mono = (int64_t)real_ns - sampler_mono_to_real(ws->sampler);

	return mono > 0 ? (uint64_t)mono : 0;
}

/* The span of a window: kept edges, an open window's start to now, or a stored result's. */
int
window_span(struct windows *ws, const char *name, uint64_t *t0_ns, uint64_t *t1_ns,
            struct nm_error *err)
{
	ssize_t i = find(ws, name);
	json_object *stored, *win = NULL;
	struct ring_stats st;
	struct nm_error e;
	uint64_t a, b;

	if (results_name_check(name, err) < 0)
		return -1;
	if (i >= 0) {
		const struct window *w = ws->ws[i];

		*t0_ns = w->start.mono_ns;
		/* An open window has no end edge unless it was frozen (end taken, still open). */
		if (!w->open || w->end.mono_ns != 0)
			*t1_ns = w->end.mono_ns;
		else {
			ring_get_stats(sampler_ring(ws->sampler), &st);
			*t1_ns = st.newest_ns;
		}
		return 0;
	}
	if ((stored = results_get(ws->results, name, &e)) == NULL) {
		if (e.code == NM_ERR_NOT_FOUND)
			return nm_error_set(err, e.code, "no window or result named %s", name);
		return nm_error_set(err, e.code, "%s", e.message);
	}
	json_object_object_get_ex(stored, "window", &win);
	a = parse_rfc3339(json_get_string(win, "start", NULL));
	b = parse_rfc3339(json_get_string(win, "end", NULL));
	json_object_put(stored);
	if (a == 0 || b == 0 || b < a)
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "result %s has no start and end (a window a crash left open)",
		                    name);
	*t0_ns = real_to_mono(ws, a);
	*t1_ns = real_to_mono(ws, b);
	return 0;
}

/* The IRQ table of a window: its edge's copy, the stored one, or today's with a note. */
int
window_irq_table(struct windows *ws, const char *name, struct irq_table *out, char *note,
                 size_t size, struct nm_error *err)
{
	ssize_t i = find(ws, name);
	struct window *w = i >= 0 ? ws->ws[i] : NULL;
	const struct irq_table *today;
	json_object *stored, *arr;
	struct nm_error e;

	snprintf(note, size, "%s", "");
	if (w != NULL) {
		irqtable_copy(out, w->open && !w->frozen ? &w->start.irqs : &w->end.irqs);
		return 0;
	}
	if ((stored = results_get(ws->results, name, &e)) == NULL) {
		if (e.code == NM_ERR_NOT_FOUND)
			return nm_error_set(err, NM_ERR_NOT_FOUND, "no window or result named %s",
			                    name);
		return nm_error_set(err, e.code, "%s", e.message);
	}
	if (!json_object_object_get_ex(stored, "irq_table", &arr))
		snprintf(note, size,
		         "result %s keeps no IRQ table (stored by an older version): today's is "
		         "used",
		         name);
	else if (irqtable_from_json(out, arr, &e) == 0) {
		json_object_put(stored);
		return 0;
	} else
		snprintf(note, size, "result %s: %s: today's IRQ table is used", name, e.message);
	json_object_put(stored);
	if ((today = sampler_irq_table(ws->sampler, err)) == NULL)
		return -1;
	irqtable_copy(out, today);
	return 0;
}
