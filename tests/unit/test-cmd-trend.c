/* test-cmd-trend.c: the trend command on a fixture tree sampled on a driven clock: eth0
 * forwards 100,000 packets/s, then 30,000/s while nf_conntrack drops and CPU 0 squeezes,
 * then 95,000/s. Samples come every second a few ms off the beat, and a window's edges add
 * samples off it: the steps still hold one sample each, the onset, levels and recovery are
 * exact, the movers are the drops and the squeeze; the same from the stored result once the
 * window is forgotten; a gauge's level; the refusals; series steps of one interval hold
 * one sample each; and the trend a test's report keeps (taken as the runner takes it, with
 * the test's own parameters) is the one trend --window gives, kept or stored. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "daemon-world.h"

#include "cmd-util.h"
#include "cmd.h"
#include "dispatch.h"
#include "config.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "results.h"
#include "sampler.h"
#include "trend.h"
#include "window.h"

#define MS       1000000ull
#define T0       (1000 * 1000 * MS) /* the timeline's 0, CLOCK_MONOTONIC */
#define LAST     60                 /* samples at 1..LAST s */
#define WIN_FROM 2400               /* ms: the window's edges, off the beat */
#define WIN_TO   58600

static const char *const off[] = {"interrupts", "softirqs", "cpu",    "snmp",
                                  "queues",     "ethtool",  "sysctl", NULL};

/* How far off the beat sample k is: -20, -10, 0, 10 or 20 ms. */
static int64_t
jitter_ms(unsigned k)
{
	return ((int64_t)(k * 7 % 5) - 2) * 10;
}

/* Write a file below the root in place (the sources keep their fds). */
static void
put_file(struct daemon_world *w, const char *rel, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", w->root, rel);
	fp = fopen(path, "r+");
	if (fp == NULL)
		fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(ftruncate(fileno(fp), 0), 0);
	fputs(text, fp);
	fclose(fp);
}

/* The counters t ms into the timeline (t a multiple of 10): packets at 100, 30 then 95 per ms
 * (switching at 20 s and 40 s); drops 5, insert failures 2 and squeezes 0.2 per ms between. */
static void
write_host(struct daemon_world *w, int64_t t)
{
	int64_t b = t < 20000 ? 0 : (t < 40000 ? t : 40000) - 20000;
	int64_t pkts = 100 * (t < 20000 ? t : 20000) + 30 * b + (t > 40000 ? 95 * (t - 40000) : 0);
	char buf[1024];

	snprintf(buf, sizeof(buf),
	         "Inter-|   Receive                                                |  Transmit\n"
	         " face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
	         "packets errs drop fifo colls carrier compressed\n"
	         "  eth0: %lld %lld 0 0 0 0 0 0 %lld %lld 0 0 0 0 0 0\n",
	         (long long)pkts * 64, (long long)pkts, (long long)pkts * 60, (long long)pkts);
	put_file(w, "proc/net/dev", buf);
	snprintf(buf, sizeof(buf),
	         "entries  clashres found new invalid ignore delete chainlength insert "
	         "insert_failed drop early_drop icmp_error  expect_new expect_create "
	         "expect_delete search_restart\n"
	         "000001f4 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
	         "00000000 %08llx %08llx 00000000 00000000 00000000 00000000 00000000 00000000\n",
	         (unsigned long long)(2 * b), (unsigned long long)(5 * b));
	put_file(w, "proc/net/stat/nf_conntrack", buf);
	snprintf(buf, sizeof(buf),
	         "%08llx 00000000 %08llx 00000000 00000000 00000000 00000000 00000000 00000000 "
	         "00000000 00000000 00000000 00000000\n"
	         "%08llx 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
	         "00000000 00000000 00000000 00000001\n",
	         (unsigned long long)(pkts / 2), (unsigned long long)(b / 5),
	         (unsigned long long)(pkts / 2));
	put_file(w, "proc/net/softnet_stat", buf);
}

/* Move the clock to t ms and write the counters of then. */
static void
at(struct daemon_world *w, int64_t t)
{
	w->now = T0 + (uint64_t)t * MS;
	write_host(w, t);
}

/* What the runner stores with a test's result at its end: the end edge taken, the trend of
 * the window with the test's parameters. Here tx packets (test_window analyses rx), with a
 * recovery at 96% of the plateau, which 95,000/s never reaches: "decay", where trend's
 * defaults (90%) say "decay-recovered". Returns {"trend": ...}, new. */
static json_object *
report_trend(struct daemon_world *w)
{
	json_object *args = json_tokener_parse(
	    "{\"metric\":\"link.eth0.tx_packets\",\"recover\":0.96,\"sustain\":3}");
	json_object *o = json_object_new_object(), *extra = json_object_new_object();
	struct nm_error err;

	assert_int_equal(window_freeze(w->d.windows, "run", &err), 0);
	if (trend_window(&w->d, w->d.query, "run", args, o, &err) < 0)
		fail_msg("trend_window: %s", err.message);
	json_object_object_add(extra, "trend", o);
	json_object_put(args);
	return extra;
}

/* The host, the daemon's parts over it, a window from 2.4 s to 58.6 s and samples every
 * second off the beat. */
static int
setup(void **state)
{
	struct daemon_world *w = calloc(1, sizeof(*w));
	struct nm_error err;
	json_object *r;

	daemon_world_init(w, "cmd-trend", "proc/net/stat", off);
	at(w, 0);
	daemon_world_start(w);
	for (unsigned k = 1; k <= LAST; k++) {
		int64_t t = (int64_t)k * 1000 + jitter_ms(k);
		if (t > WIN_FROM && (t - 1000) <= WIN_FROM) {
			at(w, WIN_FROM);
			assert_non_null(r = window_start(w->d.windows, "run", "hand", &err));
			json_object_put(r);
		}
		if (t > WIN_TO && (t - 1000) <= WIN_TO) {
			at(w, WIN_TO);
			json_object *extra = report_trend(w);
			/* No writer thread here (results_start not called): stored on return. */
			if (window_stop(w->d.windows, "run", NULL, "hand", extra, NULL, NULL,
			                &err) < 0)
				fail_msg("window_stop: %s", err.message);
			json_object_put(extra);
		}
		at(w, t);
		sampler_sample_all(w->d.sampler);
	}
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct daemon_world *w = *state;

	daemon_world_end(w);
	free(w);
	return 0;
}

/* Run trend with args (JSON text); the result, or NULL with err. */
static json_object *
trend(struct daemon_world *w, const char *args_text, struct nm_error *err)
{
	struct cmd_ctx ctx = {.d = &w->d};
	json_object *args = json_tokener_parse(args_text), *result = NULL;
	int rc;

	assert_non_null(args);
	rc = dispatch_handler_find("trend")(&ctx, args, &result, err);
	json_object_put(args);
	return rc == 0 ? result : NULL;
}

/* The member at a dotted path; fails when missing. */
static json_object *
get(json_object *o, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k != NULL; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, k, &o))
			fail_msg("no member \"%s\" (path %s)", k, path);
	return o;
}

/* Check a time member: t ms into the timeline (plus the beat's half). */
static void
assert_time(struct daemon_world *w, json_object *o, const char *path, int64_t t)
{
	char want[40];

	cmd_format_mono(&w->d, T0 + (uint64_t)t * MS, want, sizeof(want));
	if (strcmp(json_object_get_string(get(o, path)), want) != 0)
		fail_msg("%s: %s, not %s (%lld ms)", path, json_object_get_string(get(o, path)),
		         want, (long long)t);
}

static void
assert_level(json_object *o, const char *path, double want)
{
	double v = json_object_get_double(get(o, path));

	if (fabs(v - want) > 1e-6 * fabs(want) + 1e-9)
		fail_msg("%s: %.9g, not %.9g", path, v, want);
}

/* The beat is the phase nearest the other samples' (0 ms, the middle of their jitter): step
 * edges fall at k s + 500 ms. */
#define EDGE(k) ((int64_t)(k)*1000 + 500)

/* Over the window: the plateau, the onset, the decayed level, the recovery, the movers. */
static void
test_window(void **state)
{
	struct daemon_world *w = *state;
	struct nm_error err;
	json_object *t = trend(w, "{\"metric\":\"link.eth0.rx_packets\",\"window\":\"run\"}", &err);
	json_object *mv;

	if (t == NULL)
		fail_msg("trend: %s", err.message);
	assert_string_equal(json_object_get_string(get(t, "window")), "run");
	assert_string_equal(json_object_get_string(get(t, "metric")), "link.eth0.rx_packets");
	assert_string_equal(json_object_get_string(get(t, "values")), "rate");
	assert_int_equal(json_object_get_double(get(t, "step")), 1);
	/* From the first edge after 2.4 s to the last before 58.6 s: 56 steps of one sample. */
	assert_time(w, t, "from", EDGE(2));
	assert_time(w, t, "to", EDGE(58));
	assert_int_equal(json_object_get_int(get(t, "points")), 56);
	assert_false(json_object_get_boolean(get(t, "clipped")));
	assert_string_equal(json_object_get_string(get(t, "verdict")), "decay-recovered");
	assert_int_equal(json_object_get_int(get(t, "decays")), 1);
	assert_time(w, t, "plateau.start", EDGE(2));
	assert_level(t, "plateau.level", 100000);
	/* Sample 20 came at 19.98 s: the step from 20.5 s holds 20 ms of the plateau and 1 s
	 * at 30,000/s, 31,373/s: the onset is there, its level that of the steps after. */
	assert_time(w, t, "plateau.end", EDGE(20));
	assert_time(w, t, "onset.time", EDGE(20));
	assert_level(t, "onset.level", 30000);
	assert_level(t, "onset.fraction", 0.3);
	assert_time(w, t, "decayed.start", EDGE(20));
	assert_time(w, t, "decayed.end", EDGE(40));
	assert_level(t, "decayed.level", 30000);
	/* Sample 40 came at 39.98 s: the step from 40.5 s, at 93,725/s, is the recovery. */
	assert_time(w, t, "recovery.time", EDGE(40));
	assert_level(t, "recovery.level", 95000);
	assert_level(t, "recovery.fraction", 0.95);

	/* 5 s before the step before the onset against 5 s after the onset's step. */
	assert_int_equal(json_object_get_int(get(t, "movers_span_s")), 5);
	assert_time(w, json_object_array_get_idx(get(t, "movers_before"), 0), "", EDGE(14));
	mv = get(t, "movers");
	assert_int_equal(json_object_array_length(mv), 8);               /* all that moved */
	assert_int_equal(json_object_get_int(get(t, "candidates")), 43); /* 2 cpu_collision */
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(mv, 0), "series")),
	                    "lnstat.nf_conntrack.drop");
	assert_level(json_object_array_get_idx(mv, 0), "before_rate", 0);
	assert_level(json_object_array_get_idx(mv, 0), "after_rate", 5000);
	assert_level(json_object_array_get_idx(mv, 0), "change", 2500); /* floor: 10 in 5 s */
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(mv, 1), "series")),
	                    "lnstat.nf_conntrack.insert_failed");
	assert_level(json_object_array_get_idx(mv, 1), "after_rate", 2000);
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(mv, 2), "series")),
	                    "softnet.cpu0.time_squeeze");
	assert_level(json_object_array_get_idx(mv, 2), "after_rate", 200);
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(mv, 2), "unit")),
	                    "events");
	for (size_t i = 3; i < 8; i++) {
		json_object *m = json_object_array_get_idx(mv, i);
		const char *name = json_object_get_string(get(m, "series"));
		assert_level(m, "change", -0.7);
		assert_true(strncmp(name, "link.eth0.", 10) == 0 ||
		            strncmp(name, "softnet.", 8) == 0);
		assert_string_not_equal(name, "link.eth0.rx_packets");
	}
	json_object_put(t);
}

/* The window forgotten, its stored result gives the same span, to the millisecond. */
static void
test_stored_result(void **state)
{
	struct daemon_world *w = *state;
	struct nm_error err;
	json_object *kept, *stored, *r;
	const char *args = "{\"metric\":\"link.eth0.rx_packets\",\"window\":\"run\",\"movers\":3}";

	assert_non_null(kept = trend(w, args, &err));
	assert_non_null(r = window_delete(w->d.windows, "run", &err));
	json_object_put(r);
	stored = trend(w, args, &err);
	if (stored == NULL)
		fail_msg("trend: %s", err.message);
	assert_string_equal(json_to_line(stored, NULL), json_to_line(kept, NULL));
	json_object_put(kept);
	json_object_put(stored);
}

/* o without the members that name the request, not the analysis. */
static const char *
analysis_line(json_object *o)
{
	json_object_object_del(o, "window");
	json_object_object_del(o, "params_from");
	return json_to_line(o, NULL);
}

/* One verdict per window: trend --window gives the trend the report keeps, with the
 * parameters the test gave it, from the window kept and from the stored result; a
 * parameter given to trend is the request's. */
static void
test_one_verdict(void **state)
{
	struct daemon_world *w = *state;
	const char *args = "{\"metric\":\"link.eth0.tx_packets\",\"window\":\"run\"}";
	json_object *stored, *kept, *t;
	struct nm_error err;
	char *want;

	assert_non_null(stored = results_get(w->d.results, "run", &err));
	assert_string_equal(json_object_get_string(get(stored, "trend.verdict")), "decay");
	assert_string_equal(json_object_get_string(get(stored, "trend.params_from")), "request");
	assert_level(stored, "trend.recover", 0.96);
	assert_level(stored, "trend.sustain_s", 3);
	assert_true(json_object_is_type(get(stored, "trend.recovery"), json_type_null));
	want = strdup(analysis_line(get(stored, "trend")));
	if ((kept = trend(w, args, &err)) == NULL)
		fail_msg("trend: %s", err.message);
	assert_string_equal(json_object_get_string(get(kept, "params_from")), "result");
	assert_string_equal(json_object_get_string(get(kept, "verdict")), "decay");
	assert_string_equal(analysis_line(kept), want);

	/* Asked with another recovery level, trend answers that: it recovered at 95%. */
	t = trend(w, "{\"metric\":\"link.eth0.tx_packets\",\"window\":\"run\",\"recover\":0.9}",
	          &err);
	assert_non_null(t);
	assert_string_equal(json_object_get_string(get(t, "verdict")), "decay-recovered");
	assert_level(t, "sustain_s", 3); /* the rest still the report's */
	json_object_put(t);

	json_object_put(kept);
	json_object_put(stored);
	free(want);
}

/* The same once the window is forgotten (test_stored_result): its stored result's span. */
static void
test_one_verdict_stored(void **state)
{
	struct daemon_world *w = *state;
	json_object *stored, *t;
	struct nm_error err;

	assert_null(window_delete(w->d.windows, "run", &err)); /* gone already */
	assert_non_null(stored = results_get(w->d.results, "run", &err));
	t = trend(w, "{\"metric\":\"link.eth0.tx_packets\",\"window\":\"run\"}", &err);
	if (t == NULL)
		fail_msg("trend: %s", err.message);
	assert_string_equal(json_object_get_string(get(t, "params_from")), "result");
	assert_string_equal(json_object_get_string(get(t, "verdict")), "decay");
	{
		char *want = strdup(analysis_line(get(stored, "trend")));
		assert_string_equal(analysis_line(t), want);
		free(want);
	}
	json_object_put(t);
	json_object_put(stored);
}

/* A gauge is read as its level; from/to instead of a window. */
static void
test_gauge_and_from_to(void **state)
{
	struct daemon_world *w = *state;
	struct nm_error err;
	char args[256];
	json_object *t;

	snprintf(args, sizeof(args),
	         "{\"metric\":\"lnstat.nf_conntrack.entries\",\"from\":%.3f,\"to\":%.3f}",
	         cmd_epoch_s(&w->d, T0 + 5000 * MS), cmd_epoch_s(&w->d, T0 + 50000 * MS));
	t = trend(w, args, &err);
	if (t == NULL)
		fail_msg("trend: %s", err.message);
	assert_string_equal(json_object_get_string(get(t, "values")), "level");
	assert_string_equal(json_object_get_string(get(t, "kind")), "gauge");
	assert_string_equal(json_object_get_string(get(t, "verdict")), "steady");
	assert_level(t, "plateau.level", 500);
	assert_true(json_object_is_type(get(t, "window"), json_type_null));
	assert_true(json_object_is_type(get(t, "onset"), json_type_null));
	assert_int_equal(json_object_array_length(get(t, "movers")), 0);
	json_object_put(t);

	/* The decay alone, with 2 s steps: no recovery yet. */
	snprintf(args, sizeof(args),
	         "{\"metric\":\"link.eth0.rx_packets\",\"from\":%.3f,\"to\":%.3f,\"step\":2,"
	         "\"sustain\":4,\"movers\":0}",
	         cmd_epoch_s(&w->d, T0 + 5000 * MS), cmd_epoch_s(&w->d, T0 + 38000 * MS));
	t = trend(w, args, &err);
	if (t == NULL)
		fail_msg("trend: %s", err.message);
	assert_int_equal(json_object_get_int(get(t, "step")), 2);
	assert_string_equal(json_object_get_string(get(t, "verdict")), "decay");
	assert_true(json_object_is_type(get(t, "recovery"), json_type_null));
	assert_level(t, "decayed.level", 30000);
	assert_int_equal(json_object_array_length(get(t, "movers")), 0);
	json_object_put(t);
}

/* Refusals: a glob of many, no such series, no such window, window and from, recover below
 * threshold. */
static void
test_refusals(void **state)
{
	struct daemon_world *w = *state;
	struct nm_error err;

	assert_null(trend(w, "{\"metric\":\"link.eth0.*\"}", &err));
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	assert_non_null(strstr(err.message, "name one"));
	assert_null(trend(w, "{\"metric\":\"link.eth9.rx_packets\"}", &err));
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);
	assert_null(trend(w, "{\"metric\":\"link.eth0.rx_packets\",\"window\":\"nope\"}", &err));
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);
	assert_null(
	    trend(w, "{\"metric\":\"link.eth0.rx_packets\",\"window\":\"run\",\"from\":-5}", &err));
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	assert_null(trend(
	    w, "{\"metric\":\"link.eth0.rx_packets\",\"threshold\":0.8,\"recover\":0.5}", &err));
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
}

/* series: steps of one interval each hold one sample, though samples come off the beat and
 * the window's edges added two more: every rate is one of the phases' (or a step across a
 * switch), none 0 or doubled. */
static void
test_series_one_sample_per_step(void **state)
{
	struct daemon_world *w = *state;
	struct cmd_ctx ctx = {.d = &w->d};
	struct nm_error err;
	json_object *args = json_object_new_object(), *r = NULL, *pts;

	json_add_string(args, "glob", "link.eth0.rx_packets");
	json_add_double(args, "from", cmd_epoch_s(&w->d, T0 + 1000 * MS));
	json_add_double(args, "to", cmd_epoch_s(&w->d, T0 + 60000 * MS));
	if (dispatch_handler_find("series")(&ctx, args, &r, &err) < 0)
		fail_msg("series: %s", err.message);
	pts = get(json_object_array_get_idx(get(r, "series"), 0), "points");
	assert_int_equal(json_object_array_length(pts), 58);
	for (size_t i = 0; i < json_object_array_length(pts); i++) {
		double v = json_object_get_double(
		    json_object_array_get_idx(json_object_array_get_idx(pts, i), 1));
		bool ok = fabs(v - 100000) < 1e-3 || fabs(v - 30000) < 1e-3 ||
		          fabs(v - 95000) < 1e-3 ||
		          fabs(v - 100000 * 0.02 / 1.02 - 30000 / 1.02) < 1e-3 ||
		          fabs(v - 30000 * 0.02 / 1.02 - 95000 / 1.02) < 1e-3;
		if (!ok)
			fail_msg("point %zu: %.3f", i, v);
	}
	json_object_put(args);
	json_object_put(r);
}

/* series: a reply of many parts (its text passes one part of 64 KiB) reads back as one
 * line holding every step, each point at its step's end. */
static void
test_series_in_parts(void **state)
{
	struct daemon_world *w = *state;
	struct cmd_ctx ctx = {.d = &w->d};
	struct nm_error err;
	json_object *args = json_object_new_object(), *r = NULL, *pts;
	size_t n;

	json_add_string(args, "glob", "link.eth0.rx_packets");
	json_add_double(args, "from", cmd_epoch_s(&w->d, T0 + 1000 * MS));
	json_add_double(args, "to", cmd_epoch_s(&w->d, T0 + 60000 * MS));
	json_add_double(args, "step", 0.01);
	if (dispatch_handler_find("series")(&ctx, args, &r, &err) < 0)
		fail_msg("series: %s", err.message);
	pts = get(json_object_array_get_idx(get(r, "series"), 0), "points");
	n = json_object_array_length(pts);
	/* 58 s of aligned span at 10 ms a step; about 25 bytes a point: many parts. */
	assert_int_equal(n, 5800);
	for (size_t i = 1; i < n; i++) {
		double a = json_object_get_double(
		    json_object_array_get_idx(json_object_array_get_idx(pts, i - 1), 0));
		double b = json_object_get_double(
		    json_object_array_get_idx(json_object_array_get_idx(pts, i), 0));
		if (fabs(b - a - 0.01) > 1.5e-3)
			fail_msg("point %zu: %.3f after %.3f", i, b, a);
	}
	json_object_put(args);
	json_object_put(r);
}

/* series over its budget: too_large, saying which step and how many series would fit, and
 * that step fits. */
static void
test_series_budget(void **state)
{
	struct daemon_world *w = *state;
	struct cmd_ctx ctx = {.d = &w->d};
	struct nm_error err;
	json_object *args = json_object_new_object(), *r = NULL;
	uint64_t saved = w->d.config.reply_max_points;
	const char *p;
	double step;

	w->d.config.reply_max_points = 1000;
	json_add_string(args, "glob", "link.eth0.*");
	json_add_double(args, "from", cmd_epoch_s(&w->d, T0 + 1000 * MS));
	json_add_double(args, "to", cmd_epoch_s(&w->d, T0 + 60000 * MS));
	json_add_double(args, "step", 0.01);
	assert_int_equal(dispatch_handler_find("series")(&ctx, args, &r, &err), -1);
	assert_null(r);
	assert_int_equal(err.code, NM_ERR_TOO_LARGE);
	assert_non_null(strstr(err.message, "reply_max_points"));
	assert_non_null(p = strstr(err.message, "a step of at least "));
	step = atof(p + strlen("a step of at least "));
	assert_true(step > 0.01);
	json_object_object_add(args, "step", json_object_new_double(step));
	if (dispatch_handler_find("series")(&ctx, args, &r, &err) < 0)
		fail_msg("series at the step the error named: %s", err.message);
	{
		json_object *ser = get(r, "series");
		size_t total = 0;
		for (size_t i = 0; i < json_object_array_length(ser); i++)
			total += json_object_array_length(
			    get(json_object_array_get_idx(ser, i), "points"));
		assert_true(total > 0 && total <= 1000);
	}
	w->d.config.reply_max_points = saved;
	json_object_put(args);
	json_object_put(r);
}

/* What rates answered when it was made at once (before its matching and reading became
 * stages over turns of the loop): the glob matched, the span of the first series' source on
 * d->query, each moving series (all: every one) read, then the rows. */
static json_object *
rates_at_once(struct daemon_world *w, json_object *args)
{
	struct daemon *d = &w->d;
	const struct series_registry *reg = sampler_registry(d->sampler);
	json_object *o = json_object_new_object(), *rows = json_object_new_array();
	bool all = json_get_bool(args, "all", false);
	const struct source *so;
	series_id *ids = NULL;
	size_t cap = 0, n, shown = 0;
	struct nm_error err;

	n = query_match(d->query, json_get_string(args, "glob", NULL), false, &ids, &cap);
	so = n > 0 ? sampler_source_at(d->sampler, series_get(reg, ids[0])->source) : NULL;
	if (cmd_span(d, args, CMD_DEFAULT_LAST_S,
	             so != NULL ? (enum sampler_kind)so->index : SAMPLER_NONE, o, &err) < 0)
		fail_msg("span: %s", err.message);
	for (size_t i = 0; i < n; i++) {
		const struct series_info *si = series_get(reg, ids[i]);
		json_object *m;
		if (query_delta(d->query, ids[i]) == 0 && !all)
			continue;
		m = json_object_new_object();
		json_add_string(m, "name", si->name);
		json_add_double(m, "delta", query_delta_scaled(d->query, ids[i]));
		json_add_double(m, "rate", query_rate(d->query, ids[i]));
		json_add_double(m, "span_s", query_seconds(d->query, si->source));
		json_add_string(m, "unit", si->unit);
		json_object_array_add(rows, m);
		shown++;
	}
	json_add_uint(o, "matched", n);
	json_add_uint(o, "count", shown);
	json_object_object_add(o, "series", rows);
	free(ids);
	return o;
}

/* rates matches its glob, sets its span (on a query of its own) and reads its series in
 * stages over turns of the loop, before the rows: the replies are the ones it made at once,
 * byte for byte, for every span form and glob; the stages are parts of their own. */
static void
test_rates_in_parts(void **state)
{
	struct daemon_world *w = *state;
	static const char *const reqs[] = {
	    "{}",
	    "{\"last\":30}",
	    "{\"all\":true,\"last\":3600}",
	    "{\"glob\":\"link.eth0.*\",\"last\":10}",
	    "{\"glob\":\"link.eth0.rx_packets\",\"all\":true,\"last\":2}",
	    "{\"glob\":\"lnstat.*drop*\",\"last\":20}",
	    "{\"glob\":\"softnet.cpu?.*\",\"all\":true}",
	    "{\"glob\":\"nothing.*\",\"last\":5}",
	    "{\"window\":\"run\"}",
	};

	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		struct cmd_ctx ctx = {.d = &w->d};
		json_object *args = json_tokener_parse(reqs[i]), *r = NULL, *want;
		struct nm_error err;
		char *got;
		if (dispatch_handler_find("rates")(&ctx, args, &r, &err) < 0)
			fail_msg("rates %s: %s", reqs[i], err.message);
		/* Matching, the span, the values, the size check, the rows: a part each. */
		if (ctx.parts < 5)
			fail_msg("rates %s: %zu parts", reqs[i], ctx.parts);
		got = strdup(json_to_line(r, NULL));
		want = rates_at_once(w, args);
		if (strcmp(got, json_to_line(want, NULL)) != 0)
			fail_msg("rates %s:\n  got  %s\n  want %s", reqs[i], got,
			         json_to_line(want, NULL));
		free(got);
		json_object_put(want);
		json_object_put(r);
		json_object_put(args);
	}
	{
		/* Over its budget: the same too_large, from a part, before any row. */
		struct cmd_ctx ctx = {.d = &w->d};
		json_object *args = json_tokener_parse("{\"all\":true}"), *r = NULL;
		uint64_t saved = w->d.config.reply_max_points;
		struct nm_error err;
		w->d.config.reply_max_points = 3;
		assert_int_equal(dispatch_handler_find("rates")(&ctx, args, &r, &err), -1);
		assert_int_equal(err.code, NM_ERR_TOO_LARGE);
		assert_non_null(strstr(err.message, "narrow the glob to at most 3 series"));
		w->d.config.reply_max_points = saved;
		json_object_put(args);
	}
}

/* now matches its glob in parts after reading every value: the replies are the ones it made
 * at once (the values of the sample it takes, the live series matched), byte for byte. */
static void
test_now_in_parts(void **state)
{
	struct daemon_world *w = *state;
	static const char *const reqs[] = {"{}", "{\"glob\":\"link.*\"}", "{\"glob\":\"*drop*\"}",
	                                   "{\"glob\":\"none\"}"};
	const struct series_registry *reg = sampler_registry(w->d.sampler);

	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		struct cmd_ctx ctx = {.d = &w->d};
		json_object *args = json_tokener_parse(reqs[i]), *r = NULL;
		json_object *want = json_object_new_object(), *rows = json_object_new_array();
		series_id *ids = NULL;
		size_t cap = 0, n;
		struct nm_error err;
		char when[40], *got;
		if (dispatch_handler_find("now")(&ctx, args, &r, &err) < 0)
			fail_msg("now %s: %s", reqs[i], err.message);
		assert_true(ctx.parts >= 3); /* the match, the size check, the rows */
		got = strdup(json_to_line(r, NULL));
		/* At once, on the sample it took (the clock has not moved). */
		cmd_format_mono(&w->d, w->now, when, sizeof(when));
		json_add_string(want, "time", when);
		n = query_match(w->d.query, json_get_string(args, "glob", NULL), true, &ids, &cap);
		json_add_uint(want, "count", n);
		for (size_t k = 0; k < n; k++) {
			const struct series_info *si = series_get(reg, ids[k]);
			uint64_t raw = sampler_raw(w->d.sampler, ids[k]);
			json_object *m = json_object_new_object();
			json_add_string(m, "name", si->name);
			if (si->kind == SERIES_GAUGE)
				json_add_int(m, "raw", (int64_t)raw);
			else
				json_add_uint(m, "raw", raw);
			json_add_double(
			    m, "value",
			    (si->kind == SERIES_GAUGE ? (double)(int64_t)raw : (double)raw) *
			        si->scale);
			json_add_string(m, "unit", si->unit);
			json_object_array_add(rows, m);
		}
		json_object_object_add(want, "series", rows);
		if (strcmp(got, json_to_line(want, NULL)) != 0)
			fail_msg("now %s:\n  got  %s\n  want %s", reqs[i], got,
			         json_to_line(want, NULL));
		free(got);
		free(ids);
		json_object_put(want);
		json_object_put(r);
		json_object_put(args);
	}
}

/* series matches its glob, lays its steps and checks its points against the budget in the
 * first part, not in the handler: a too_large by points is one part (the error line), and a
 * small reply has that part before the estimate, the compute and the text. */
static void
test_series_match_in_parts(void **state)
{
	struct daemon_world *w = *state;
	struct cmd_ctx ctx = {.d = &w->d};
	struct nm_error err;
	json_object *args = json_object_new_object(), *r = NULL;
	uint64_t saved = w->d.config.reply_max_points;

	json_add_string(args, "glob", "link.eth0.*");
	json_add_double(args, "from", cmd_epoch_s(&w->d, T0 + 1000 * MS));
	json_add_double(args, "to", cmd_epoch_s(&w->d, T0 + 60000 * MS));
	json_add_double(args, "step", 0.01);
	w->d.config.reply_max_points = 1000;
	assert_int_equal(dispatch_handler_find("series")(&ctx, args, &r, &err), -1);
	assert_int_equal(err.code, NM_ERR_TOO_LARGE);
	assert_non_null(strstr(err.message, "a step of at least "));
	assert_int_equal(ctx.parts, 1);
	w->d.config.reply_max_points = saved;

	json_object_object_add(args, "glob", json_object_new_string("link.eth0.rx_packets"));
	json_object_object_add(args, "step", json_object_new_double(30));
	memset(&ctx, 0, sizeof(ctx));
	ctx.d = &w->d;
	if (dispatch_handler_find("series")(&ctx, args, &r, &err) < 0)
		fail_msg("series: %s", err.message);
	assert_int_equal(json_object_array_length(get(r, "series")), 1);
	/* The match, the estimate, the compute, the text. */
	assert_int_equal(ctx.parts, 4);
	json_object_put(r);
	json_object_put(args);
}

/* trend is made a stage at a time over turns of the loop (dispatch_defer: without a client
 * the parts run at once and are counted): the stored trend's parameters, the series and
 * grid, the points, the analysis, the movers each a part; its reply is the one trend_window
 * (the runner's, made at once) gives. */
static void
test_trend_in_parts(void **state)
{
	struct daemon_world *w = *state;
	struct cmd_ctx ctx = {.d = &w->d};
	struct nm_error err;
	json_object *args = json_tokener_parse("{\"metric\":\"link.eth0.rx_packets\","
	                                       "\"window\":\"run\"}"),
	            *r = NULL, *o = json_object_new_object();

	if (dispatch_handler_find("trend")(&ctx, args, &r, &err) < 0)
		fail_msg("trend: %s", err.message);
	assert_true(ctx.parts >= 6);
	json_object_object_add(o, "window", json_object_new_string("run"));
	if (trend_window(&w->d, w->d.query, "run", args, o, &err) < 0)
		fail_msg("trend_window: %s", err.message);
	assert_int_equal(json_object_array_length(get(r, "movers")), 8);
	assert_string_equal(json_object_to_json_string(r), json_object_to_json_string(o));
	json_object_put(args);
	json_object_put(r);
	json_object_put(o);
}

/* cmd_epoch_s of a time that int64_t cannot hold once mono_to_real is added (what a stored
 * block of 2^63 + 5 gave before blocks were checked): the number where it belongs, not one
 * that wrapped to before 1970; an ordinary time exact. */
static void
test_epoch_out_of_range(void **state)
{
	struct daemon_world *w = *state;
	int64_t m2r = sampler_mono_to_real(w->d.sampler);
	double far = cmd_epoch_s(&w->d, (uint64_t)INT64_MAX - 5);

	assert_true(m2r > 0);
	assert_true(far > 9.2e9);
	assert_true(fabs(far - ((double)INT64_MAX + (double)m2r) / 1e9) < 1.0);
	assert_true(fabs(cmd_epoch_s(&w->d, 5000000000ull) - ((double)(m2r + 5000000000ll) / 1e9)) <
	            1e-6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_window),
	    cmocka_unit_test(test_gauge_and_from_to),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_series_one_sample_per_step),
	    cmocka_unit_test(test_one_verdict),
	    cmocka_unit_test(test_series_in_parts),
	    cmocka_unit_test(test_series_budget),
	    cmocka_unit_test(test_trend_in_parts),
	    cmocka_unit_test(test_rates_in_parts),
	    cmocka_unit_test(test_now_in_parts),
	    cmocka_unit_test(test_series_match_in_parts),
	    cmocka_unit_test(test_stored_result), /* it forgets the window */
	    cmocka_unit_test(test_one_verdict_stored),
	    cmocka_unit_test(test_epoch_out_of_range),
	};

	dispatch_init(cmd_table);
	return cmocka_run_group_tests(tests, setup, teardown);
}
