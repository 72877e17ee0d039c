/* test-window-collect.c: a window's series copied out of the ring in slices
 * (seriesblock_collect_step) on a fixture host of NDEV devices whose counters move by
 * irregular amounts (every record changes every series), sampled every second on a driven
 * clock into a 1 MiB ring: the slices give the block the copy at once gives, also when the
 * ring learns series or goes on sampling between them; when it evicts the walk's place the
 * block keeps what was copied and ends there; a close on a loop copies over turns of it,
 * refuses another stop and a delete meanwhile, and a shutdown in the middle still stores
 * the result with its series. And the series of a window of one interval: its two edges. */
#include <event2/event.h>
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
#include "ring.h"
#include "sampler.h"
#include "seriesblock.h"
#include "window.h"

#define SEC  1000000000ull
#define T0   (1000 * SEC) /* the timeline's 0, CLOCK_MONOTONIC */
#define NDEV 40

static const char *const off[] = {"interrupts", "softirqs", "cpu",    "snmp",    "queues",
                                  "ethtool",    "sysctl",   "lnstat", "softnet", NULL};

struct world {
	struct daemon_world b; /* the daemon's parts over the fixture */
	unsigned ndev;
	uint64_t acc[NDEV + 1][4];
	uint32_t seed;
};

static uint32_t
lcg(struct world *w)
{
	w->seed = w->seed * 1103515245u + 12345u;
	return w->seed >> 8;
}

/* proc/net/dev with w->ndev devices, every counter moved by an irregular amount. */
static void
write_dev(struct world *w)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/proc/net/dev", w->b.root);
	fp = fopen(path, "r+");
	if (fp == NULL)
		fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(ftruncate(fileno(fp), 0), 0);
	fputs("Inter-|   Receive                                                |  Transmit\n"
	      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
	      "packets errs drop fifo colls carrier compressed\n",
	      fp);
	for (unsigned i = 0; i < w->ndev; i++) {
		for (unsigned k = 0; k < 4; k++)
			w->acc[i][k] += lcg(w) % 100000;
		fprintf(fp, "  eth%u: %llu %llu 0 0 0 0 0 0 %llu %llu 0 0 0 0 0 0\n", i,
		        (unsigned long long)w->acc[i][0], (unsigned long long)w->acc[i][1],
		        (unsigned long long)w->acc[i][2], (unsigned long long)w->acc[i][3]);
	}
	fclose(fp);
}

/* One sample at s seconds into the timeline. */
static void
sample_at(struct world *w, unsigned s)
{
	w->b.now = T0 + s * SEC;
	write_dev(w);
	sampler_sample_all(w->b.d.sampler);
}

static int
setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));

	daemon_world_init(&w->b, "window-collect", "proc/net/stat", off);
	w->ndev = NDEV - 1;
	w->seed = 1;
	w->b.now = T0;
	write_dev(w);
	w->b.cfg.ring_memory = 1u << 20;
	daemon_world_start(&w->b);
	for (unsigned s = 1; s <= 100; s++)
		sample_at(w, s);
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct world *w = *state;

	daemon_world_end(&w->b);
	free(w);
	return 0;
}

/* The first n records of each source of a and b are the same (all of them when n is 0, and
 * then as many in both). */
static void
assert_blocks_equal(const struct seriesblock *a, const struct seriesblock *b, bool prefix)
{
	assert_int_equal(a->nsrc, b->nsrc);
	assert_int_equal(a->reg.n, b->reg.n);
	assert_true(a->t0 == b->t0);
	for (size_t s = 0; s < a->nsrc; s++) {
		size_t n = b->src[s].n;

		assert_string_equal(a->src[s].name, b->src[s].name);
		if (!prefix)
			assert_int_equal(a->src[s].n, b->src[s].n);
		else
			assert_true(n <= a->src[s].n);
		for (size_t i = 0; i < n; i++)
			assert_true(a->src[s].t[i] == b->src[s].t[i]);
	}
	for (series_id id = 0; id < a->reg.n; id++) {
		size_t n = b->src[a->reg.v[id].source].n;

		assert_string_equal(a->reg.v[id].name, b->reg.v[id].name);
		for (size_t i = 0; i < n; i++)
			if (a->v[id][i] != b->v[id][i])
				fail_msg("%s record %zu: %llu, not %llu", a->reg.v[id].name, i,
				         (unsigned long long)b->v[id][i],
				         (unsigned long long)a->v[id][i]);
	}
}

/* Step a copy one record a slice, with between(w, k) after slice k; the block. */
static struct seriesblock *
in_slices(struct world *w, uint64_t t0, uint64_t t1, void (*between)(struct world *, unsigned),
          struct seriesblock_collect_cost *cost)
{
	struct seriesblock_collect *cs = seriesblock_collect_new(w->b.d.sampler, t0, t1);
	struct seriesblock *b;
	unsigned k = 0;

	assert_non_null(cs);
	while (seriesblock_collect_step(cs, UINT64_MAX, 1) == 0)
		if (between != NULL)
			between(w, k++);
	b = seriesblock_collect_finish(cs);
	*cost = *seriesblock_collect_cost(cs);
	seriesblock_collect_free(cs);
	return b;
}

static void
nothing_between(struct world *w, unsigned k)
{
	(void)w;
	(void)k;
}

/* The ring goes on sampling between slices: nothing evicted yet, the walk stops at t1. */
static void
sample_between(struct world *w, unsigned k)
{
	if (k < 5)
		sample_at(w, 101 + k);
}

/* A device appears after the third slice: the ring learns series, the walk seeks again. */
static void
learn_between(struct world *w, unsigned k)
{
	if (k == 3) {
		w->ndev = NDEV;
		sample_at(w, 101);
	}
}

/* One record a slice gives the block the copy at once gives, with the ring sampling or
 * learning series in between. */
static void
test_slices_same(void **state)
{
	struct world *w = *state;
	struct seriesblock *once, *b;
	struct seriesblock_collect_cost cost;
	uint64_t t0 = T0 + 10 * SEC + SEC / 2, t1 = T0 + 60 * SEC;

	once = seriesblock_collect(w->b.d.sampler, t0, t1);
	assert_non_null(once);
	assert_int_equal(once->nsrc, 1);
	assert_int_equal(once->src[0].n, 51); /* the state at 10 s, then 11..60 s */
	assert_int_equal(once->reg.n, 16 * (NDEV - 1));

	b = in_slices(w, t0, t1, nothing_between, &cost);
	assert_blocks_equal(once, b, false);
	assert_true(cost.slices > 50);
	assert_false(cost.cut);
	seriesblock_free(b);

	b = in_slices(w, t0, t1, sample_between, &cost);
	assert_blocks_equal(once, b, false);
	seriesblock_free(b);

	b = in_slices(w, t0, t1, learn_between, &cost);
	assert_true(cost.reseeks >= 1);
	assert_false(cost.cut);
	assert_blocks_equal(once, b, false);
	seriesblock_free(b);
	seriesblock_free(once);
}

/* A span sampled 20 times as often as its interval says (more records than the room the
 * copy made at its start): the room grows a few arrays a record, and every record keeps
 * its value: the counter's moves as written, record after record. */
static void
test_room_grows(void **state)
{
	struct world *w = *state;
	struct seriesblock *once, *b;
	struct seriesblock_collect_cost cost;
	uint64_t written[400], t0 = T0 + 100 * SEC + SEC / 40, t1 = T0 + 110 * SEC;
	series_id id = 0;

	for (unsigned k = 1; k < 400; k++) {
		w->b.now = T0 + 100 * SEC + k * (SEC / 20);
		write_dev(w);
		written[k] = w->acc[0][1];
		sampler_sample_all(w->b.d.sampler);
	}
	once = seriesblock_collect(w->b.d.sampler, t0, t1);
	b = in_slices(w, t0, t1, nothing_between, &cost);
	assert_blocks_equal(once, b, false);
	/* The state at 100 s, then 100.05 .. 110 s. */
	assert_int_equal(b->src[0].n, 201);
	while (id < b->reg.n && strcmp(b->reg.v[id].name, "link.eth0.rx_packets") != 0)
		id++;
	assert_true(id < b->reg.n);
	for (size_t i = 2; i < b->src[0].n; i++)
		if (b->v[id][i] - b->v[id][i - 1] != written[i] - written[i - 1])
			fail_msg("record %zu: moved %llu, not %llu", i,
			         (unsigned long long)(b->v[id][i] - b->v[id][i - 1]),
			         (unsigned long long)(written[i] - written[i - 1]));
	seriesblock_free(b);
	seriesblock_free(once);
}

/* The ring evicts everything the walk had reached, after the tenth slice: the block keeps
 * the records copied, ends at the last one (t1 cut), and reads nothing freed (ASan). */
static void
evict_between(struct world *w, unsigned k)
{
	struct ring_stats st;
	unsigned s = 200;

	if (k != 10)
		return;
	do {
		sample_at(w, s++);
		ring_get_stats(sampler_ring(w->b.d.sampler), &st);
	} while (st.oldest_ns <= T0 + 100 * SEC && s < 100000);
	assert_true(st.oldest_ns > T0 + 100 * SEC);
}

static void
test_evicted_between_slices(void **state)
{
	struct world *w = *state;
	struct seriesblock *once, *b;
	struct seriesblock_collect_cost cost;
	struct ring_stats st;
	uint64_t t0, t1 = T0 + 90 * SEC;

	ring_get_stats(sampler_ring(w->b.d.sampler), &st);
	t0 = st.oldest_ns;
	once = seriesblock_collect(w->b.d.sampler, t0, t1);
	assert_non_null(once);
	b = in_slices(w, t0, t1, evict_between, &cost);
	assert_true(cost.cut);
	/* The state at t0 and the record of each of the ten slices before the eviction (the
	 * first chose the series and placed the cursor). */
	assert_int_equal(b->src[0].n, 11);
	assert_true(b->t1 == b->src[0].t[10]);
	assert_true(b->t1 < t1);
	assert_blocks_equal(once, b, true);
	seriesblock_free(b);
	seriesblock_free(once);
}

/* What a stop told. */
struct told {
	int calls;
	json_object *report;
	struct nm_error err;
};

static void
stored(void *arg, json_object *report, const struct nm_error *err)
{
	struct told *t = arg;

	t->calls++;
	if (err != NULL)
		t->err = *err;
	else
		t->report = json_object_get(report);
}

/* The state of window name in windows. */
static const char *
list_state(struct world *w, const char *name, json_object **keep)
{
	json_object *l = window_list_json(w->b.d.windows), *arr;

	*keep = l;
	arr = json_object_object_get(l, "windows");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		if (strcmp(json_get_string(o, "name", ""), name) == 0)
			return json_get_string(o, "state", "");
	}
	return "";
}

/* The stored block of result name, decoded. */
static struct seriesblock *
stored_block(struct world *w, const char *name)
{
	char path[256];
	struct nm_error err;
	struct seriesblock *b;
	uint8_t *buf;
	FILE *fp;
	long len;

	snprintf(path, sizeof(path), "%s/results/%s.series", w->b.state, name);
	assert_non_null(fp = fopen(path, "rb"));
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	len = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)len);
	assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	b = seriesblock_decode(buf, (size_t)len, sampler_mono_to_real(w->b.d.sampler), &err);
	if (b == NULL)
		fail_msg("decode: %s", err.message);
	free(buf);
	return b;
}

/* A window from 110 s to 150 s, closed on a loop with one record a slice: window_stop
 * returns at once, the copy goes on over turns of the loop, the window is "storing" and
 * refuses another stop and a delete; then either the loop runs it to the end, or (at
 * shutdown) window_set_loop(NULL) finishes it at once. Either way the result is stored with
 * its series, done told once. */
static void
close_on_loop(struct world *w, const char *name, bool shutdown, bool tuning)
{
	struct event_base *base = event_base_new();
	struct told t = {0};
	struct nm_error err;
	struct seriesblock *b;
	json_object *o, *keep;
	unsigned turns = 0;

	assert_non_null(base);
	for (unsigned s = 101; s <= 110; s++)
		sample_at(w, s);
	if (tuning)
		window_record_tuning(w->b.d.windows, w->b.root, w->b.state);
	json_object_put(window_start(w->b.d.windows, name, "hand", &err));
	for (unsigned s = 111; s <= 150; s++)
		sample_at(w, s);
	window_set_loop(w->b.d.windows, base);
	window_set_pace(w->b.d.windows, 0, 1, 0);
	assert_int_equal(window_stop(w->b.d.windows, name, NULL, "hand", NULL, stored, &t, &err),
	                 0);
	assert_int_equal(t.calls, 0);
	assert_string_equal(list_state(w, name, &keep), "storing");
	json_object_put(keep);
	assert_int_equal(window_stop(w->b.d.windows, name, NULL, "hand", NULL, stored, &t, &err),
	                 -1);
	assert_int_equal(err.code, NM_ERR_BUSY);
	assert_null(window_delete(w->b.d.windows, name, &err));
	assert_int_equal(err.code, NM_ERR_BUSY);
	/* The loop: a slice a turn, the ring sampled meanwhile. */
	for (; turns < 5; turns++) {
		assert_int_equal(event_base_loop(base, EVLOOP_ONCE), 0);
		sample_at(w, 151 + turns);
	}
	assert_int_equal(t.calls, 0);
	if (shutdown)
		window_set_loop(w->b.d.windows, NULL);
	else
		while (t.calls == 0 && turns++ < 10000)
			assert_true(event_base_loop(base, EVLOOP_ONCE) >= 0);
	assert_int_equal(t.calls, 1);
	if (t.report == NULL)
		fail_msg("not stored: %s", t.err.message);
	json_object_put(t.report);
	assert_string_equal(list_state(w, name, &keep), "closed");
	json_object_put(keep);
	assert_true(results_exists(w->b.d.results, name));
	if (tuning) {
		o = results_get(w->b.d.results, name, &err);
		assert_non_null(o);
		assert_true(json_object_object_get_ex(o, "tuning", NULL));
		json_object_put(o);
	}
	/* Every record of the span: the state at 110 s (the start's sample), 111..150 s and
	 * the end's sample. */
	b = stored_block(w, name);
	assert_int_equal(b->nsrc, 1);
	assert_int_equal(b->src[0].n, 42);
	seriesblock_free(b);
	window_set_loop(w->b.d.windows, NULL);
	event_base_free(base);
}

static void
test_close_on_loop(void **state)
{
	close_on_loop(*state, "looped", false, true);
}

static void
test_shutdown_mid_copy(void **state)
{
	close_on_loop(*state, "cut-short", true, false);
}

/* series --window of a window of one sampling interval (mark start, mark stop at once):
 * the two edges, each the rate over the window from its edge samples; from and to the
 * window's edges. */
static void
test_series_short_window(void **state)
{
	struct world *w = *state;
	struct cmd_ctx ctx = {.d = &w->b.d};
	struct nm_error err;
	json_object *args, *r = NULL, *pts, *rep;
	uint64_t a0, a1;
	double want, from, to;

	for (unsigned s = 101; s <= 110; s++)
		sample_at(w, s);
	w->b.now = T0 + 110 * SEC + SEC / 4;
	write_dev(w);
	a0 = w->acc[0][1];
	json_object_put(window_start(w->b.d.windows, "short", "hand", &err));
	w->b.now = T0 + 110 * SEC + SEC / 2;
	write_dev(w);
	a1 = w->acc[0][1];
	rep = window_stop_inline(w->b.d.windows, "short", NULL, "hand", NULL, &err);
	if (rep == NULL)
		fail_msg("stop: %s", err.message);
	json_object_put(rep);
	want = (double)(a1 - a0) / 0.25;
	for (int fallback = 0; fallback < 2; fallback++) {
		if (fallback) {
			/* The ring moves on until the window's span is gone from it: the stored
			 * block answers. */
			struct ring_stats st;
			unsigned s = 111;
			do {
				sample_at(w, s++);
				ring_get_stats(sampler_ring(w->b.d.sampler), &st);
			} while (st.oldest_ns <= T0 + 111 * SEC && s < 100000);
		}
		args = json_object_new_object();
		json_add_string(args, "glob", "link.eth0.rx_packets");
		json_add_string(args, "window", "short");
		if (dispatch_handler_find("series")(&ctx, args, &r, &err) < 0)
			fail_msg("series (%s): %s", fallback ? "stored" : "ring", err.message);
		from = json_get_double(r, "from", 0);
		to = json_get_double(r, "to", 0);
		assert_true(fabs(from - cmd_epoch_s(&w->b.d, T0 + 110 * SEC + SEC / 4)) < 1e-3);
		assert_true(fabs(to - cmd_epoch_s(&w->b.d, T0 + 110 * SEC + SEC / 2)) < 1e-3);
		pts = json_object_object_get(
		    json_object_array_get_idx(json_object_object_get(r, "series"), 0), "points");
		assert_int_equal(json_object_array_length(pts), 2);
		for (size_t i = 0; i < 2; i++) {
			json_object *p = json_object_array_get_idx(pts, i);
			double t = json_object_get_double(json_object_array_get_idx(p, 0));
			double v = json_object_get_double(json_object_array_get_idx(p, 1));
			assert_true(fabs(t - (i == 0 ? from : to)) < 1e-3);
			if (fabs(v - want) > 1e-6 * want)
				fail_msg("point %zu: %.3f, not %.3f", i, v, want);
		}
		json_object_put(args);
		json_object_put(r);
		r = NULL;
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_slices_same, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_evicted_between_slices, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_room_grows, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_close_on_loop, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shutdown_mid_copy, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_series_short_window, setup, teardown),
	};

	dispatch_init(cmd_table);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
