/* test-fine.c: the arithmetic of fine sampling (fine.h): sums since a record, peak rates
 * over real gaps (a late sample is no burst, a too-short gap gives no rate of its own),
 * lateness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fine.h"

#define MS 1000000ull

/* One sample of source 0 at t_ms moving series 1 by d (a counter) and series 2 (a gauge) by
 * g, in 10 ms fine intervals. */
static void
sample(struct fine *f, uint64_t t_ms, uint64_t d, uint64_t g)
{
	fine_add(f, 0, 1, d, true);
	fine_add(f, 0, 2, g, false);
	fine_end(f, 0, t_ms * MS, 5 * MS);
}

static void
test_rate(void **state)
{
	(void)state;
	assert_int_equal(fine_rate(1000, 10 * MS), 100000);
	assert_int_equal(fine_rate(1, 3 * 1000000000ull), 0); /* 0.33/s rounds to 0 */
	assert_int_equal(fine_rate(2, 3 * 1000000000ull), 1); /* 0.67/s rounds to 1 */
	assert_int_equal(fine_rate(5, 0), 0);
	/* 40 G bytes over 1 s: d * 1e9 would overflow 64 bits */
	assert_int_equal(fine_rate(40000000000ull, 1000000000ull), 40000000000ull);
	/* A half rounds up, in 64 bits and in 128. */
	assert_int_equal(fine_rate(1, 2000000000ull), 1);
	assert_int_equal(fine_rate(3, 2), 1500000000ull);
	/* Past 64 bits in the 128-bit way: 2e19 / 3, and the largest that fits */
	assert_int_equal(fine_rate(20000000000ull, 3), 6666666666666666667ull);
	assert_int_equal(fine_rate(18446744073ull, 1000000000ull), 18446744073ull);
	assert_int_equal(fine_rate(18446744074ull, 1000000000ull), 18446744074ull);
	/* A rate past 2^64 a second is UINT64_MAX, not wrapped */
	assert_int_equal(fine_rate(UINT64_MAX, 1), UINT64_MAX);
	assert_int_equal(fine_rate(UINT64_MAX, 1000000000ull), UINT64_MAX);
}

/* A 10 ms burst inside a second of steady traffic: the peak is the burst's rate. */
static void
test_peak_of_burst(void **state)
{
	struct fine f;
	const series_id *ids;
	size_t n;

	(void)state;
	fine_init(&f);
	sample(&f, 1000, 0, 0); /* the first sample starts the first interval */
	for (uint64_t t = 1010; t <= 2000; t += 10)
		sample(&f, t, t == 1500 ? 5000 : 10, 1);
	n = fine_touched(&f, 0, &ids);
	assert_int_equal(n, 2);
	/* 99 intervals of 10 and one of 5000 */
	assert_int_equal(fine_pending(&f, 1), 99 * 10 + 5000);
	assert_int_equal(fine_peak(&f, 1), 500000); /* 5000 in 10 ms */
	assert_int_equal(fine_pending(&f, 2), 100);
	assert_int_equal(fine_peak(&f, 2), 0); /* a gauge has no rate */
	fine_take_done(&f, 0);
	assert_int_equal(fine_touched(&f, 0, &ids), 0);
	assert_int_equal(fine_pending(&f, 1), 0);
	/* The next record starts from nothing: a steady second peaks at its steady rate. */
	for (uint64_t t = 2010; t <= 3000; t += 10)
		sample(&f, t, 10, 0);
	assert_int_equal(fine_pending(&f, 1), 1000);
	assert_int_equal(fine_peak(&f, 1), 1000);
	fine_free(&f);
}

/* A sample 90 ms late carries 90 ms more of the same traffic: its rate over its real gap is
 * the steady rate, not a burst (divided by the nominal 10 ms it would be 10 times it). */
static void
test_late_is_no_burst(void **state)
{
	struct fine f;

	(void)state;
	fine_init(&f);
	sample(&f, 0 + 1000, 0, 0);
	sample(&f, 1010, 10, 0);
	sample(&f, 1020, 10, 0);
	sample(&f, 1120, 100, 0); /* 100 ms gap: late */
	sample(&f, 1130, 10, 0);
	assert_int_equal(fine_pending(&f, 1), 130);
	assert_int_equal(fine_peak(&f, 1), 1000);
	fine_free(&f);
}

/* A sample right after another (a window's edge) gives no rate of its own: its increment is
 * rated with the next sample's, over both gaps. */
static void
test_short_gap(void **state)
{
	struct fine f;

	(void)state;
	fine_init(&f);
	sample(&f, 1000, 0, 0);
	sample(&f, 1010, 10, 0); /* 1000/s */
	fine_add(&f, 0, 1, 7, true);
	fine_end(&f, 0, 1010 * MS + 1000, 5 * MS); /* 1 us later: 7 would be 7 M/s */
	assert_int_equal(fine_peak(&f, 1), 1000);
	sample(&f, 1020, 13, 0); /* 20 over 10 ms */
	assert_int_equal(fine_peak(&f, 1), 2000);
	assert_int_equal(fine_pending(&f, 1), 30);
	fine_free(&f);
}

/* A series that moved before a take and is rated after it counts in the next record. */
static void
test_rate_across_take(void **state)
{
	struct fine f;
	const series_id *ids;

	(void)state;
	fine_init(&f);
	sample(&f, 1000, 0, 0);
	fine_add(&f, 0, 1, 50, true);
	fine_end(&f, 0, 1000 * MS + 2000, 5 * MS); /* too short: not rated */
	assert_int_equal(fine_pending(&f, 1), 50);
	fine_take_done(&f, 0); /* the record took 50 */
	fine_add(&f, 0, 3, 0, true);
	fine_end(&f, 0, 1010 * MS, 5 * MS);
	assert_int_equal(fine_touched(&f, 0, &ids), 2);
	assert_int_equal(fine_pending(&f, 1), 0);
	assert_int_equal(fine_peak(&f, 1), 5000); /* 50 over 10 ms */
	fine_free(&f);
}

static void
test_lateness(void **state)
{
	struct fine_late l;

	(void)state;
	memset(&l, 0, sizeof(l));
	assert_int_equal(fine_late_median(&l), 0);
	fine_late_add(&l, 10 * MS, 10 * MS);
	fine_late_add(&l, 11 * MS, 10 * MS);
	fine_late_add(&l, 12 * MS, 10 * MS);
	fine_late_add(&l, 35 * MS, 10 * MS); /* more than twice: late */
	fine_late_add(&l, 9 * MS, 10 * MS);  /* early counts 0 */
	assert_int_equal(fine_late_median(&l), 1 * MS);
	assert_int_equal(l.max_ns, 25 * MS);
	assert_int_equal(l.late, 1);
	assert_int_equal(l.samples, 5);
	for (int i = 0; i < 2 * FINE_LATE_N; i++)
		fine_late_add(&l, 13 * MS, 10 * MS);
	assert_int_equal(fine_late_median(&l), 3 * MS); /* the newest FINE_LATE_N */
	assert_int_equal(l.max_ns, 25 * MS);
}

static void
test_units(void **state)
{
	(void)state;
	assert_string_equal(fine_peak_unit("packets"), "packets/s");
	assert_string_equal(fine_peak_unit("bytes"), "bytes/s");
	assert_string_equal(fine_peak_unit("whatever"), "per_s");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rate),
	    cmocka_unit_test(test_peak_of_burst),
	    cmocka_unit_test(test_late_is_no_burst),
	    cmocka_unit_test(test_short_gap),
	    cmocka_unit_test(test_rate_across_take),
	    cmocka_unit_test(test_lateness),
	    cmocka_unit_test(test_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
