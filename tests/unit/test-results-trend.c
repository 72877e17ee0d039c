/* test-results-trend.c: the regression watch's judgement (results-trend.c): the band of a
 * fixed and of a rolling baseline, the floor for a noise-free figure, the first result
 * outside and the one before it, results without the figure, and the --baseline word. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "results-trend.h"

/* |got - want| within tol. */
static void
near(const char *what, double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("%s: got %.15g, want %.15g", what, got, want);
}

/* Points named r0.. from values (NAN: no figure). */
static void
points(struct results_trend_point *p, const double *v, size_t n)
{
	static char names[32][8];

	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "r%zu", i);
		p[i] = (struct results_trend_point){.name = names[i], .value = v[i]};
	}
}

/* A fixed baseline: 100, 102, 98, 101, 99 (mean 100, sd sqrt(2.5) = 1.5811388300841898),
 * k 3: band [95.256583509747431, 104.74341649025257]; 103 and 96 inside, 94 below. */
static void
test_fixed(void **state)
{
	const double v[] = {100, 102, 98, 101, 99, 103, 96, 94, 100};
	struct results_trend_point p[9];
	struct results_trend_opts o = {.last = 0, .k = 3, .min_pct = 1};
	long prev, first;

	(void)state;
	points(p, v, 9);
	for (int i = 0; i < 5; i++)
		p[i].baseline = true;
	first = results_trend_judge(p, 9, &o, &prev);
	assert_int_equal(first, 7);
	assert_int_equal(prev, 6);
	for (int i = 0; i < 5; i++)
		assert_int_equal(p[i].pos, RT_BASELINE);
	assert_int_equal(p[5].pos, RT_INSIDE);
	assert_int_equal(p[6].pos, RT_INSIDE);
	assert_int_equal(p[7].pos, RT_BELOW);
	assert_int_equal(p[8].pos, RT_INSIDE);
	assert_int_equal(p[7].band_n, 5);
	near("mean", p[7].mean, 100, 1e-12);
	near("sd", p[7].sd, 1.5811388300841898, 1e-12);
	near("low", p[7].low, 95.256583509747431, 1e-9);
	near("high", p[7].high, 104.74341649025257, 1e-9);
	assert_string_equal(results_trend_pos_name(p[7].pos), "below");
}

/* A noise-free baseline: sd 0, the band is the floor, min_pct of the mean: 50 -+ 0.5 at 1 %;
 * 50.4 inside, 50.6 above. With min_pct 0 any change is outside. */
static void
test_floor(void **state)
{
	const double v[] = {50, 50, 50, 50.4, 50.6};
	struct results_trend_point p[5];
	struct results_trend_opts o = {.last = 0, .k = 3, .min_pct = 1};
	long prev;

	(void)state;
	points(p, v, 5);
	p[0].baseline = p[1].baseline = p[2].baseline = true;
	assert_int_equal(results_trend_judge(p, 5, &o, &prev), 4);
	assert_int_equal(prev, 3);
	near("low", p[4].low, 49.5, 1e-12);
	near("high", p[4].high, 50.5, 1e-12);
	assert_int_equal(p[3].pos, RT_INSIDE);
	assert_int_equal(p[4].pos, RT_ABOVE);
	o.min_pct = 0;
	assert_int_equal(results_trend_judge(p, 5, &o, &prev), 3);
	assert_int_equal(prev, 2);
}

/* Rolling, last-3: each value against the 3 before it; the first two have too few values
 * before them (forming); results without the figure are skipped, not counted; the one
 * before the step is the nearest with a value. 10, 11, (none), 9, 10.5, 10, (none), 20:
 * 20 is judged against 9, 10.5, 10 (mean 9.8333.., sd 0.7637626158259734). */
static void
test_rolling(void **state)
{
	const double v[] = {10, 11, NAN, 9, 10.5, 10, NAN, 20, 10};
	struct results_trend_point p[9];
	struct results_trend_opts o = {.last = 3, .k = 3, .min_pct = 1};
	long prev;

	(void)state;
	points(p, v, 9);
	p[0].baseline = true; /* ignored when rolling */
	assert_int_equal(results_trend_judge(p, 9, &o, &prev), 7);
	assert_int_equal(prev, 5);
	assert_int_equal(p[0].pos, RT_FORMING);
	assert_int_equal(p[1].pos, RT_FORMING);
	assert_int_equal(p[2].pos, RT_NO_VALUE);
	assert_int_equal(p[3].pos, RT_INSIDE); /* 10, 11: mean 10.5, sd .707: [8.38, 12.62] */
	assert_int_equal(p[6].pos, RT_NO_VALUE);
	assert_int_equal(p[7].pos, RT_ABOVE);
	assert_int_equal(p[7].band_n, 3);
	near("mean", p[7].mean, 29.5 / 3, 1e-12);
	near("sd", p[7].sd, 0.7637626158259734, 1e-12);
	/* 10 after the step: against 10.5, 10, 20 (mean 13.5, sd 5.6347...): inside. */
	assert_int_equal(p[8].pos, RT_INSIDE);
	assert_true(isnan(p[2].mean) && p[2].band_n == 0);
}

/* Nothing outside: -1, and prev -1. A fixed baseline without values judges nothing. */
static void
test_none(void **state)
{
	const double v[] = {5, 5.01, 4.99, 5};
	struct results_trend_point p[4];
	struct results_trend_opts o = {.last = 2, .k = 3, .min_pct = 1};
	long prev;

	(void)state;
	points(p, v, 4);
	assert_int_equal(results_trend_judge(p, 4, &o, &prev), -1);
	assert_int_equal(prev, -1);
	o.last = 0;
	assert_int_equal(results_trend_judge(p, 4, &o, &prev), -1);
	for (int i = 0; i < 4; i++)
		assert_int_equal(p[i].pos, RT_FORMING);
}

/* --baseline: last-N, or a name. */
static void
test_baseline_arg(void **state)
{
	size_t last = 0;

	(void)state;
	assert_int_equal(results_trend_baseline_arg("last-4", &last), 1);
	assert_int_equal(last, 4);
	assert_int_equal(results_trend_baseline_arg("last-1000", &last), 1);
	assert_int_equal(results_trend_baseline_arg("org", &last), 0);
	assert_int_equal(results_trend_baseline_arg("suite1/*", &last), 0);
	assert_int_equal(results_trend_baseline_arg("last-1", &last), -1);
	assert_int_equal(results_trend_baseline_arg("last-", &last), -1);
	assert_int_equal(results_trend_baseline_arg("last-3x", &last), -1);
	assert_int_equal(results_trend_baseline_arg("last-1001", &last), -1);
	assert_int_equal(last, 1000);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixed),        cmocka_unit_test(test_floor),
	    cmocka_unit_test(test_rolling),      cmocka_unit_test(test_none),
	    cmocka_unit_test(test_baseline_arg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
