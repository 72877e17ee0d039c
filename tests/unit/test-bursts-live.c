/* test-bursts-live.c: the live walk of `watch bursts` (bursts-src.c) over a real sampler and
 * ring on a driven clock: a fixture host whose eth0 receives 100 packets a second but 10,000
 * in one second; a view of the last 5 s holds the records of those 5 s (the one at their
 * start included) and the burst's peak and mean; the next view, walked on from the last,
 * only the new records; a device learnt between two views (the walk starts over) changes
 * nothing for eth0; with no device, every device's series; a walk over an empty ring gives
 * nothing. */
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
#include "jsonutil.h"
#include "sampler.h"
#include "seriesblock.h"

#define SEC 1000000000ull
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_views, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
