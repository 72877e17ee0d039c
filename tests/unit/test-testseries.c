/* test-testseries.c: a test's live figures over time (testseries.c) and their source "test"
 * in the series block (seriesblock-test.c): the integral of each figure at each grid point,
 * for the sum and each process, once every process has passed it; the buffer bounded to
 * SERIESBLOCK_MAX_POINTS records by keeping every k-th one (the first and the newest always)
 * without losing traffic; the records of a window's span added to a block, encoded, decoded and
 * read back as the figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "query.h"
#include "series.h"
#include "seriesblock.h"
#include "testseries.h"
#include "xmalloc.h"

#define SEC    1000000000ull
#define M2R    1700000000000000000ll /* mono -> epoch ns */
#define T_BASE (1000 * SEC)
#define MILLI  1000000ull /* values are millionths */

/* The value of series s at record i. */
static uint64_t
val(const struct testseries *ts, size_t i, size_t s)
{
	return ts->v[i * ts->nseries + s];
}

/* Two processes on the grid of whole seconds from T_BASE: process 0 reports 100 every
 * second, process 1 50 over a first interval of 2.5 s, then each half second. A grid point
 * is recorded once both have passed it, each one's integral there taken from the report
 * over it as a steady rate; the sum is theirs. */
static void
test_record(void **state)
{
	struct testseries ts;

	(void)state;
	testseries_init(&ts, 2, "throughput_mbps", "Mbit", 1000, T_BASE);
	assert_int_equal(ts.nseries, 3);
	assert_int_equal(testseries_count(&ts), 0);
	testseries_add(&ts, 0, 100, T_BASE, T_BASE + SEC);
	/* The start (zeros); 1 s waits for process 1. */
	assert_int_equal(testseries_count(&ts), 1);
	assert_int_equal(ts.t[0], T_BASE);
	assert_int_equal(val(&ts, 0, 0), 0);
	testseries_add(&ts, 0, 100, T_BASE + SEC, T_BASE + 2 * SEC);
	assert_int_equal(testseries_count(&ts), 1);
	testseries_add(&ts, 1, 50, T_BASE, T_BASE + 5 * SEC / 2);
	assert_int_equal(testseries_count(&ts), 3);
	assert_int_equal(ts.t[1], T_BASE + SEC);
	assert_int_equal(val(&ts, 1, 0), 150 * MILLI);
	assert_int_equal(val(&ts, 1, 1), 100 * MILLI);
	assert_int_equal(val(&ts, 1, 2), 50 * MILLI);
	assert_int_equal(ts.t[2], T_BASE + 2 * SEC);
	assert_int_equal(val(&ts, 2, 0), 300 * MILLI);
	assert_int_equal(val(&ts, 2, 2), 100 * MILLI);
	testseries_add(&ts, 0, 100, T_BASE + 2 * SEC, T_BASE + 3 * SEC);
	assert_int_equal(testseries_count(&ts), 3);
	testseries_add(&ts, 1, 50, T_BASE + 5 * SEC / 2, T_BASE + 3 * SEC);
	assert_int_equal(testseries_count(&ts), 4);
	assert_int_equal(ts.t[3], T_BASE + 3 * SEC);
	assert_int_equal(val(&ts, 3, 0), 450 * MILLI);
	assert_int_equal(val(&ts, 3, 1), 300 * MILLI);
	assert_int_equal(val(&ts, 3, 2), 150 * MILLI);
	/* Nothing negative or not a number is counted; an interval starting before the
	 * process's previous end starts there. */
	testseries_add(&ts, 1, -5, T_BASE + 3 * SEC, T_BASE + 4 * SEC);
	testseries_add(&ts, 0, 0.0 / 0.0, T_BASE + 3 * SEC, T_BASE + 4 * SEC);
	assert_int_equal(testseries_count(&ts), 5);
	assert_int_equal(val(&ts, 4, 0), 450 * MILLI);
	testseries_add(&ts, 0, 100, T_BASE + 3 * SEC, T_BASE + 4 * SEC + SEC / 2);
	/* The end: the grid up to the last report's end, and that end. */
	testseries_end(&ts);
	assert_int_equal(testseries_count(&ts), 6);
	assert_int_equal(ts.t[5], T_BASE + 4 * SEC + SEC / 2);
	assert_int_equal(val(&ts, 5, 0), 500 * MILLI);
	assert_int_equal(val(&ts, 5, 1), 350 * MILLI);
	/* Reports after the end are not taken. */
	testseries_add(&ts, 0, 100, T_BASE + 5 * SEC, T_BASE + 6 * SEC);
	assert_int_equal(testseries_count(&ts), 6);
	testseries_free(&ts);
}

/* A process that never reports holds the others back TESTSERIES_LAG grid points, no more;
 * nothing reported at all: no records. */
static void
test_silent(void **state)
{
	struct testseries ts;

	(void)state;
	testseries_init(&ts, 2, "throughput_mbps", "Mbit", 1000, T_BASE);
	for (unsigned i = 1; i <= 10; i++)
		testseries_add(&ts, 0, 10, T_BASE + (i - 1) * SEC, T_BASE + i * SEC);
	/* Points 0 .. 10 - LAG. */
	assert_int_equal(testseries_count(&ts), 11 - TESTSERIES_LAG);
	assert_int_equal(ts.t[testseries_count(&ts) - 1], T_BASE + (10 - TESTSERIES_LAG) * SEC);
	assert_int_equal(val(&ts, 2, 0), 20 * MILLI);
	assert_int_equal(val(&ts, 2, 2), 0);
	testseries_end(&ts);
	assert_int_equal(testseries_count(&ts), 11);
	assert_int_equal(val(&ts, 10, 0), 100 * MILLI);
	testseries_free(&ts);
	testseries_init(&ts, 1, "throughput_mbps", "Mbit", 1000, T_BASE);
	testseries_end(&ts);
	assert_int_equal(testseries_count(&ts), 0);
	testseries_free(&ts);
}

/* Past TESTSERIES_PROCS_MAX processes, the others count in the sum only. */
static void
test_many_procs(void **state)
{
	struct testseries ts;

	(void)state;
	testseries_init(&ts, 100, "transactions_per_s", "transactions", 1000, T_BASE);
	assert_int_equal(ts.nown, TESTSERIES_PROCS_MAX);
	assert_int_equal(ts.nseries, TESTSERIES_PROCS_MAX + 1);
	testseries_add(&ts, 99, 1000, T_BASE, T_BASE + SEC);
	testseries_add(&ts, 63, 10, T_BASE, T_BASE + SEC);
	testseries_end(&ts);
	assert_int_equal(testseries_count(&ts), 2);
	assert_int_equal(val(&ts, 1, 0), 1010 * MILLI);
	assert_int_equal(val(&ts, 1, 64), 10 * MILLI);
	testseries_free(&ts);
}

/* A long test: at most SERIESBLOCK_MAX_POINTS records, every k-th kept (k a power of two),
 * the first and the newest always; the buffer never past the bound; every kept record
 * still holds the traffic up to its time (a constant rate: rate x elapsed). */
static void
test_bounded(void **state)
{
	const size_t reports = 10000;
	const double rate = 250;
	struct testseries ts;
	size_t n;

	(void)state;
	testseries_init(&ts, 1, "throughput_mbps", "Mbit", 1000, T_BASE);
	for (size_t i = 1; i <= reports; i++) {
		testseries_add(&ts, 0, rate, T_BASE + (i - 1) * SEC, T_BASE + i * SEC);
		assert_true(testseries_count(&ts) <= SERIESBLOCK_MAX_POINTS);
		assert_true(ts.cap <= SERIESBLOCK_MAX_POINTS);
	}
	n = testseries_count(&ts);
	/* 10,001 records made: k = 4 keeps 2,501 of them, and the newest. */
	assert_int_equal(ts.k, 4);
	assert_int_equal(n, 2501);
	assert_true(n > SERIESBLOCK_MAX_POINTS / 2);
	assert_int_equal(ts.t[0], T_BASE);
	assert_int_equal(val(&ts, 0, 0), 0);
	assert_int_equal(ts.t[n - 1], T_BASE + reports * SEC);
	assert_int_equal(val(&ts, n - 1, 0), (uint64_t)(rate * reports) * MILLI);
	for (size_t i = 1; i < n; i++) {
		uint64_t el = (ts.t[i] - T_BASE) / SEC;
		assert_true(ts.t[i] > ts.t[i - 1]);
		assert_int_equal(val(&ts, i, 0), (uint64_t)(rate * (double)el) * MILLI);
		/* Every k-th record made: at whole multiples of k seconds (but the newest). */
		if (i < n - 1)
			assert_int_equal(el % ts.k, 0);
	}
	testseries_free(&ts);
}

/* The records of a window's span go into a block as the source "test": the one at or before
 * its start, none after its end; encoded and decoded, a query over them gives the figures
 * back as rates per second, for the sum and each process. */
static void
test_block(void **state)
{
	struct seriesblock *b, *d;
	struct testseries ts;
	struct nm_error err;
	struct query *q;
	series_id sum, p1;
	uint8_t *buf;
	size_t len;

	(void)state;
	testseries_init(&ts, 2, "throughput_mbps", "Mbit", 1000, T_BASE);
	for (unsigned i = 1; i <= 10; i++) {
		testseries_add(&ts, 0, 100 * i, T_BASE + (i - 1) * SEC, T_BASE + i * SEC);
		testseries_add(&ts, 1, 40, T_BASE + (i - 1) * SEC, T_BASE + i * SEC);
	}
	testseries_end(&ts);
	assert_int_equal(testseries_count(&ts), 11);
	assert_null(seriesblock_test_add(NULL, NULL, T_BASE, T_BASE + SEC, M2R));
	/* Nothing of ts in a span before it: nothing added. */
	assert_null(seriesblock_test_add(NULL, &ts, 0, T_BASE / 2, M2R));
	/* The span [2.5 s, 6.5 s]: records at its edges (between those either side) and at
	 * 3 s ... 6 s. */
	b = seriesblock_test_add(NULL, &ts, T_BASE + 5 * SEC / 2, T_BASE + 13 * SEC / 2, M2R);
	assert_non_null(b);
	assert_int_equal(b->nsrc, 1);
	assert_string_equal(b->src[0].name, "test");
	assert_int_equal(b->src[0].interval_ms, 1000);
	assert_int_equal(b->src[0].step_k, 1);
	assert_int_equal(b->src[0].first_t, T_BASE);
	/* 2.5 s, one record a second from 3 s to 6 s, 6.5 s. */
	assert_int_equal(b->src[0].n, 6);
	assert_int_equal(b->src[0].t[0], T_BASE + 5 * SEC / 2);
	assert_int_equal(b->src[0].t[1], T_BASE + 3 * SEC);
	assert_int_equal(b->src[0].t[4], T_BASE + 6 * SEC);
	assert_int_equal(b->src[0].t[5], T_BASE + 13 * SEC / 2);
	assert_int_equal(b->reg.n, 3);
	assert_int_equal(seriesblock_encode(b, &buf, &len, &err), 0);
	d = seriesblock_decode(buf, len, M2R, &err);
	assert_non_null(d);
	free(buf);
	sum = series_find(&d->reg, "test.throughput_mbps");
	p1 = series_find(&d->reg, "test.throughput_mbps.proc1");
	assert_int_not_equal(sum, SERIES_NONE);
	assert_int_not_equal(p1, SERIES_NONE);
	assert_int_not_equal(series_find(&d->reg, "test.throughput_mbps.proc0"), SERIES_NONE);
	assert_string_equal(series_get(&d->reg, sum)->unit, "Mbit");
	assert_int_equal(series_get(&d->reg, sum)->kind, SERIES_COUNTER);
	assert_string_equal(series_source_name(&d->reg, sum), "test");
	/* [4 s, 5 s]: process 0 reported 500, process 1 40. */
	q = query_new_block(NULL, d);
	assert_int_equal(query_span(q, T_BASE + 4 * SEC, T_BASE + 5 * SEC, &err), 0);
	assert_float_equal(query_rate(q, sum), 540, 1e-6);
	assert_float_equal(query_rate(q, p1), 40, 1e-6);
	/* [2 s, 6 s] starts at the block's start, 2.5 s: half of 300, 400, 500, 600 over
	 * 3.5 s, and 40. */
	assert_int_equal(query_span(q, T_BASE + 2 * SEC, T_BASE + 6 * SEC, &err), 0);
	assert_float_equal(query_rate(q, sum), (150 + 400 + 500 + 600) / 3.5 + 40, 1e-6);
	/* The whole span, edges to the ns: half of 300, 400, 500, 600, half of 700, over 4 s;
	 * from the edges taken at or before them it would be 2 s to 6 s, 490. */
	assert_int_equal(query_span(q, T_BASE + 5 * SEC / 2, T_BASE + 13 * SEC / 2, &err), 0);
	assert_float_equal(query_seconds(q, series_get(&d->reg, sum)->source), 4, 1e-9);
	assert_float_equal(query_rate(q, sum), 500 + 40, 1e-6);
	query_free(q);
	seriesblock_free(d);
	seriesblock_free(b);
	testseries_free(&ts);
}

/* Added to a block the ring's copy made: a source of its own after the others, the others
 * untouched. */
static void
test_block_append(void **state)
{
	struct seriesblock *b = xcalloc(1, sizeof(*b)), *r;
	struct series_labels l = SERIES_LABELS_NONE;
	struct testseries ts;
	series_id a;

	(void)state;
	series_registry_init(&b->reg);
	b->t0 = T_BASE;
	b->t1 = T_BASE + 4 * SEC;
	b->mono_to_real = M2R;
	b->nsrc = 1;
	b->src = xcalloc(1, sizeof(*b->src));
	b->src[0].name = xstrdup("link");
	b->src[0].interval_ms = 1000;
	b->src[0].step_k = 1;
	b->src[0].n = 2;
	b->src[0].t = xcalloc(2, sizeof(uint64_t));
	b->src[0].t[0] = T_BASE;
	b->src[0].t[1] = T_BASE + 4 * SEC;
	series_registry_name_source(&b->reg, 0, "link");
	a = series_intern(&b->reg, "link.x.rx_bytes", 15, SERIES_COUNTER, 0, "bytes", 1, &l);
	b->v = xcalloc(1, sizeof(*b->v));
	b->v[a] = xcalloc(2, sizeof(uint64_t));
	b->v[a][1] = 4000;
	testseries_init(&ts, 1, "transactions_per_s", "transactions", 1000, T_BASE);
	testseries_add(&ts, 0, 20000, T_BASE, T_BASE + 2 * SEC);
	r = seriesblock_test_add(b, &ts, b->t0, b->t1, M2R);
	assert_ptr_equal(r, b);
	assert_int_equal(b->nsrc, 2);
	assert_string_equal(b->src[1].name, "test");
	/* 0 s, 1 s (half of the 2 s report), 2 s. */
	assert_int_equal(b->src[1].n, 3);
	assert_int_equal(b->reg.n, 3);
	assert_int_equal(b->reg.v[1].source, 1);
	assert_string_equal(b->reg.v[1].name, "test.transactions_per_s");
	assert_int_equal(b->v[1][1], 20000 * MILLI);
	assert_int_equal(b->v[1][2], 40000 * MILLI);
	assert_int_equal(b->v[a][1], 4000);
	seriesblock_free(b);
	testseries_free(&ts);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_record),     cmocka_unit_test(test_silent),
	    cmocka_unit_test(test_many_procs), cmocka_unit_test(test_bounded),
	    cmocka_unit_test(test_block),      cmocka_unit_test(test_block_append),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
