/* test-bursts-live.c: the live walk of `watch bursts` (bursts-src.c) over a real sampler and
 * ring on a driven clock: a fixture host whose eth0 receives 100 packets a second but 10,000
 * in one second; a view of the last 5 s holds the records of those 5 s (the one at their
 * start included) and the burst's peak and mean; the next view, walked on from the last,
 * only the new records; a device learnt between two views (the walk starts over) changes
 * nothing for eth0; with no device, every device's series; a walk over an empty ring gives
 * nothing. And `series --bursts` over fine sampling on the same clock: each second's mean,
 * peak and peak-to-mean of eth0's rx packets, 1,000/s steady, one second holding a 20 ms
 * burst. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "daemon-world.h"

#include "bursts-src.h"
#include "bursts.h"
#include "cmd-util.h"
#include "cmd.h"
#include "dispatch.h"
#include "jsonutil.h"
#include "sampler.h"
#include "seriesblock.h"

#define SEC 1000000000ull
#define MS  1000000ull
#define T0  (1000 * SEC)

static const char *const off[] = {"interrupts", "softirqs", "cpu",    "snmp",    "queues",
                                  "ethtool",    "sysctl",   "lnstat", "softnet", NULL};

struct world {
	struct daemon_world b;
	uint64_t rx; /* eth0's rx packets */
	unsigned ndev;
};

/* proc/net/dev: eth0 with w->rx, the others idle at 5. */
static void
write_dev(struct world *w)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/proc/net/dev", w->b.root);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("Inter-|   Receive                                                |  Transmit\n"
	      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
	      "packets errs drop fifo colls carrier compressed\n",
	      fp);
	for (unsigned i = 0; i < w->ndev; i++)
		fprintf(fp, "  eth%u: %llu %llu 0 0 0 0 0 0 5 5 0 0 0 0 0 0\n", i,
		        (unsigned long long)(i == 0 ? 64 * w->rx : 5),
		        (unsigned long long)(i == 0 ? w->rx : 5));
	fclose(fp);
}

/* A sample at s seconds, eth0 having received d packets since the last one. */
static void
sample_at(struct world *w, unsigned s, uint64_t d)
{
	w->rx += d;
	w->b.now = T0 + s * SEC;
	write_dev(w);
	sampler_sample_all(w->b.d.sampler);
}

static int
setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));

	daemon_world_init(&w->b, "bursts-live", "proc/net", off);
	w->ndev = 2;
	w->rx = 1000;
	w->b.now = T0;
	write_dev(w);
	daemon_world_start(&w->b);
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

/* The entry of series name in the figures of block b over its span; NULL when absent. The
 * caller puts *j. */
static json_object *
entry(const struct seriesblock *b, const char *name, json_object **j)
{
	json_object *ser;

	*j = bursts_json(b, b->t0, b->t1, BURSTS_THRESHOLD);
	if (*j == NULL || !json_object_object_get_ex(*j, "series", &ser))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(ser); i++) {
		json_object *e = json_object_array_get_idx(ser, i);
		if (strcmp(json_get_string(e, "series", ""), name) == 0)
			return e;
	}
	return NULL;
}

/* The source "link" of b (its index), failing when absent. */
static const struct seriesblock_source *
link_src(const struct seriesblock *b)
{
	for (size_t i = 0; i < b->nsrc; i++)
		if (strcmp(b->src[i].name, "link") == 0)
			return &b->src[i];
	fail_msg("no link source in the block");
	return NULL;
}

static void
test_views(void **state)
{
	struct world *w = *state;
	struct bursts_live *lv = bursts_src_live_new(w->b.d.sampler, "eth0");
	const struct seriesblock *b;
	const struct seriesblock_source *so;
	json_object *j, *e;

	assert_null(bursts_src_live_step(lv, 5 * SEC)); /* nothing sampled yet */
	for (unsigned s = 1; s <= 10; s++)
		sample_at(w, s, s == 6 ? 10000 : 100);
	b = bursts_src_live_step(lv, 5 * SEC);
	assert_non_null(b);
	assert_true(b->t0 == T0 + 5 * SEC && b->t1 == T0 + 10 * SEC);
	so = link_src(b);
	assert_int_equal(so->n, 6);
	assert_true(so->t[0] == T0 + 5 * SEC && so->t[5] == T0 + 10 * SEC);
	e = entry(b, "link.eth0.rx_packets", &j);
	assert_non_null(e);
	assert_float_equal(json_get_double(e, "peak", 0), 10000, 1e-6);
	assert_float_equal(json_get_double(e, "mean", 0), (10000 + 4 * 100) / 5.0, 1e-6);
	assert_float_equal(json_get_double(e, "peak_offset_s", -1), 0, 1e-9);
	json_object_put(j);
	/* eth1 is not in a view of eth0. */
	assert_true(series_find(&b->reg, "link.eth1.rx_packets") == SERIES_NONE);
	/* On from there: 4 more seconds, steady. */
	for (unsigned s = 11; s <= 14; s++)
		sample_at(w, s, 100);
	b = bursts_src_live_step(lv, 5 * SEC);
	so = link_src(b);
	assert_int_equal(so->n, 6);
	assert_true(so->t[0] == T0 + 9 * SEC && so->t[5] == T0 + 14 * SEC);
	e = entry(b, "link.eth0.rx_packets", &j);
	assert_float_equal(json_get_double(e, "peak", 0), 100, 1e-6);
	assert_float_equal(json_get_double(e, "peak_to_mean", 0), 1, 1e-9);
	json_object_put(j);
	/* A device learnt: the walk starts over, eth0's figures are the same kind. */
	w->ndev = 3;
	sample_at(w, 15, 2000);
	b = bursts_src_live_step(lv, 5 * SEC);
	so = link_src(b);
	assert_true(so->t[0] == T0 + 10 * SEC && so->t[so->n - 1] == T0 + 15 * SEC);
	e = entry(b, "link.eth0.rx_packets", &j);
	assert_float_equal(json_get_double(e, "peak", 0), 2000, 1e-6);
	assert_float_equal(json_get_double(e, "mean", 0), (4 * 100 + 2000) / 5.0, 1e-6);
	json_object_put(j);
	bursts_src_live_free(lv);
	/* Every device: eth1 and eth2 are there, idle (no figures: they did not move). */
	lv = bursts_src_live_new(w->b.d.sampler, NULL);
	b = bursts_src_live_step(lv, 5 * SEC);
	assert_non_null(b);
	assert_true(series_find(&b->reg, "link.eth1.rx_packets") != SERIES_NONE);
	assert_true(series_find(&b->reg, "link.eth2.rx_packets") != SERIES_NONE);
	bursts_src_live_free(lv);
}

/* Fine sampling always on: the same host with one device. */
static int
setup_fine(void **state)
{
	struct world *w = calloc(1, sizeof(*w));

	daemon_world_init(&w->b, "bursts-series", "proc/net", off);
	w->b.cfg.fine_when = CONFIG_FINE_ALWAYS;
	w->ndev = 1;
	w->rx = 1000;
	w->b.now = T0;
	write_dev(w);
	daemon_world_start(&w->b);
	*state = w;
	return 0;
}

/* The points of entry i of a series reply as values (the rates), n of them. */
static double
point(json_object *r, size_t i, size_t k)
{
	json_object *e = json_object_array_get_idx(json_object_object_get(r, "series"), i);
	json_object *pts = json_object_object_get(e, "points");

	return json_object_get_double(
	    json_object_array_get_idx(json_object_array_get_idx(pts, k), 1));
}

/* series --bursts: eth0 receives 10 packets every 10 ms (1,000/s), but 1,000 in each of the
 * two fine intervals from 3.50 s (a 20 ms burst at 100,000/s): per second, the mean is 1,000
 * and the peak 1,000 (ratio 1), and in the second from 3 s the mean (98 x 10 + 2,000) / 1 s
 * = 2,980, the peak 100,000 and the ratio 100,000 / 2,980. Three entries per counter, in
 * order: the counter, peak.NAME, peak_to_mean.NAME (unit ratio). tx did not move: no peak
 * series, no entries. */
static void
test_series_bursts(void **state)
{
	struct world *w = *state;
	struct cmd_ctx ctx = {.d = &w->b.d};
	struct nm_error err;
	json_object *args = json_object_new_object(), *r = NULL, *ser, *e;
	size_t np, burst = 0, nburst = 0;

	sampler_fine_update(w->b.d.sampler);
	assert_true(sampler_fine_on(w->b.d.sampler));
	sampler_sample_all(w->b.d.sampler);
	for (unsigned k = 1; k <= 800; k++) {
		w->rx += k == 351 || k == 352 ? 1000 : 10;
		w->b.now = T0 + k * 10 * MS;
		write_dev(w);
		sampler_fine_tick(w->b.d.sampler);
		if (k % 100 == 0)
			sampler_beat(w->b.d.sampler, SAMPLER_LINK);
	}
	json_add_string(args, "glob", "link.eth0.*x_packets");
	json_add_double(args, "from", cmd_epoch_s(&w->b.d, T0 + 1 * SEC));
	json_add_double(args, "to", cmd_epoch_s(&w->b.d, T0 + 8 * SEC));
	json_object_object_add(args, "bursts", json_object_new_boolean(1));
	if (dispatch_handler_find("series")(&ctx, args, &r, &err) < 0)
		fail_msg("series: %s", err.message);
	ser = json_object_object_get(r, "series");
	assert_int_equal(json_object_array_length(ser), 3);
	e = json_object_array_get_idx(ser, 0);
	assert_string_equal(json_get_string(e, "name", ""), "link.eth0.rx_packets");
	e = json_object_array_get_idx(ser, 1);
	assert_string_equal(json_get_string(e, "name", ""), "peak.link.eth0.rx_packets");
	assert_string_equal(json_get_string(e, "unit", ""), "packets/s");
	e = json_object_array_get_idx(ser, 2);
	assert_string_equal(json_get_string(e, "name", ""), "peak_to_mean.link.eth0.rx_packets");
	assert_string_equal(json_get_string(e, "unit", ""), "ratio");
	assert_string_equal(json_get_string(json_object_object_get(e, "labels"), "field", ""),
	                    "rx_packets.peak_to_mean");
	assert_string_equal(json_get_string(json_object_object_get(e, "labels"), "unit", ""),
	                    "ratio");
	assert_string_equal(json_get_string(json_object_object_get(e, "labels"), "device", ""),
	                    "eth0");
	np = json_object_array_length(json_object_object_get(e, "points"));
	assert_true(np >= 5);
	for (size_t k = 0; k < np; k++) {
		double mean = point(r, 0, k), peak = point(r, 1, k), ratio = point(r, 2, k);
		if (fabs(mean - 2980) < 1e-6) {
			burst = k;
			nburst++;
			assert_float_equal(peak, 100000, 1e-6);
			assert_float_equal(ratio, 100000.0 / 2980, 1e-9);
			continue;
		}
		if (fabs(mean - 1000) > 1e-6 || fabs(peak - 1000) > 1e-6 || fabs(ratio - 1) > 1e-9)
			fail_msg("point %zu: mean %.3f peak %.3f ratio %.6f", k, mean, peak, ratio);
	}
	assert_int_equal(nburst, 1);
	/* The burst's second ends at 4 s: its point is there. */
	assert_float_equal(
	    json_object_get_double(json_object_array_get_idx(
	        json_object_array_get_idx(json_object_object_get(e, "points"), burst), 0)),
	    cmd_epoch_s(&w->b.d, T0 + 4 * SEC), 0.6);
	json_object_put(r);
	/* Without bursts: the glob's series as they are (rx, tx and rx's peak). */
	json_object_object_del(args, "bursts");
	if (dispatch_handler_find("series")(&ctx, args, &r, &err) < 0)
		fail_msg("series: %s", err.message);
	assert_int_equal(json_object_array_length(json_object_object_get(r, "series")), 2);
	json_object_put(r);
	json_object_put(args);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_views, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_series_bursts, setup_fine, teardown),
	};
	dispatch_init(cmd_table);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
