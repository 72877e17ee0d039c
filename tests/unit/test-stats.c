/* test-stats.c: the statistics of compare against published values.
 *
 * References:
 *   - Student's t quantiles t(0.975, df): the table of any statistics textbook (NIST/SEMATECH
 *     e-Handbook of Statistical Methods, section 1.3.6.7.2, "Critical values of the Student's
 *     t distribution": 12.706 for df 1, 4.303 for 2, 2.571 for 5, 2.262 for 9, 2.042 for 30,
 *     1.984 for 100), here to 1e-9 with the digits mpmath 1.3 gives (findroot on its
 *     betainc), an implementation independent of ours.
 *   - Welch's t-test: the data of the three examples of the Wikipedia article "Welch's
 *     t-test" (section Examples), whose results it rounds to t -2.46, df 25.0, p 0.021;
 *     t -1.57, df 9.9, p 0.149; t -2.22, df 24.5, p 0.035 (the article's A1 - A2; ours is
 *     B - A, so the sign flips). The rounded p-values are checked to their last digit;
 *     the full digits checked to 1e-9 were computed from the same formulas with mpmath
 *     1.3 at 30 digits (scipy is not available offline).
 *   - I_x(a, b): I_0.4(2, 3) = 0.5248 exactly (the binomial sum 1 - sum_{j<2} C(4,j) .4^j
 *     .6^(4-j)); I_0.3(1/2, 1/2) = (2/pi) asin(sqrt(0.3)) = 0.369010119565545. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "stats.h"

/* |got - want| within tol, with a message naming what. */
static void
near(const char *what, double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("%s: got %.15g, want %.15g (tolerance %g)", what, got, want, tol);
}

/* The incomplete beta function at values known in closed form, and at its edges. */
static void
test_betainc(void **state)
{
	(void)state;
	near("I_0.4(2,3)", stats_betainc(2, 3, 0.4), 0.5248, 1e-12);
	near("I_0.3(.5,.5)", stats_betainc(0.5, 0.5, 0.3), 2 / M_PI * asin(sqrt(0.3)), 1e-12);
	near("I_0.3(.5,.5) mpmath", stats_betainc(0.5, 0.5, 0.3), 0.369010119565545, 1e-12);
	/* I_x(a, b) = 1 - I_{1-x}(b, a): both branches of the continued fraction. */
	near("symmetry", stats_betainc(3, 7, 0.8) + stats_betainc(7, 3, 0.2), 1, 1e-12);
	near("x=0", stats_betainc(2, 3, 0), 0, 0);
	near("x=1", stats_betainc(2, 3, 1), 1, 0);
	assert_true(isnan(stats_betainc(0, 3, 0.5)));
	assert_true(isnan(stats_betainc(2, 3, 1.5)));
}

/* t quantiles of the textbook table, and the CDF they invert. */
static void
test_t_quantiles(void **state)
{
	static const struct {
		double df, q;
	} tab[] = {{1, 12.7062047361747}, {2, 4.30265272974946},  {5, 2.57058183563632},
	           {9, 2.26215716279821}, {30, 2.04227245630124}, {100, 1.98397151852355}};
	char what[64];

	(void)state;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		snprintf(what, sizeof(what), "t(0.975, %g)", tab[i].df);
		near(what, stats_t_quantile(0.975, tab[i].df), tab[i].q, 1e-9);
		near(what, stats_t_quantile(0.025, tab[i].df), -tab[i].q, 1e-9);
		near(what, stats_t_cdf(tab[i].q, tab[i].df), 0.975, 1e-12);
	}
	/* The table's three digits, as people read it. */
	near("t(0.975, 9) 3 digits", stats_t_quantile(0.975, 9), 2.262, 5e-4);
	/* The normal limit. */
	near("t(0.975, 1e6)", stats_t_quantile(0.975, 1e6), 1.95996, 1e-4);
	near("cdf(2, 3)", stats_t_cdf(2, 3), 0.930337015720578, 1e-12);
	near("cdf(0, 4)", stats_t_cdf(0, 4), 0.5, 1e-15);
	near("cdf(-inf)", stats_t_cdf(-INFINITY, 4), 0, 0);
	assert_true(isnan(stats_t_quantile(1, 5)));
	assert_true(isnan(stats_t_quantile(0.5, 0)));
}

/* Describe a set; the CI of its mean. */
static void
test_describe_ci(void **state)
{
	const double v[] = {10, NAN, 12, 14, 16, 18, 20, 22, 24, 26, 28};
	struct stats_desc d;
	double lo, hi, half;

	(void)state;
	stats_describe(v, 11, &d);
	assert_int_equal(d.n, 10);
	near("mean", d.mean, 19, 1e-12);
	near("min", d.min, 10, 0);
	near("max", d.max, 28, 0);
	near("sd", d.sd, sqrt(330.0 / 9), 1e-12); /* sum of squares 330 over n - 1 */
	assert_int_equal(stats_ci95(&d, &lo, &hi), 0);
	half = 2.26215716279821 * sqrt(330.0 / 9) / sqrt(10);
	near("ci lo", lo, 19 - half, 1e-9);
	near("ci hi", hi, 19 + half, 1e-9);
	stats_describe(v, 1, &d);
	assert_int_equal(d.n, 1);
	near("sd of one", d.sd, 0, 0);
	assert_int_equal(stats_ci95(&d, &lo, &hi), -1);
	stats_describe(v + 1, 1, &d);
	assert_int_equal(d.n, 0);
	assert_true(isnan(d.mean));
}

/* Welch's t of a set against another, from their values. */
static void
welch_of(const double *a, size_t na, const double *b, size_t nb, struct stats_welch *w)
{
	struct stats_desc da, db;

	stats_describe(a, na, &da);
	stats_describe(b, nb, &db);
	assert_int_equal(stats_welch(&da, &db, w), 0);
}

/* Wikipedia's three examples of Welch's t-test. */
static void
test_welch_examples(void **state)
{
	static const double a1[] = {27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
	                            21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4};
	static const double a2[] = {27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
	                            24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4};
	static const double b1[] = {17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8};
	static const double b2[] = {21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8,
	                            20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5, 21.5, 21.8};
	static const double c1[] = {19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0};
	static const double c2[] = {28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
	                            23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3};
	struct stats_welch w;

	(void)state;
	welch_of(a1, 15, a2, 15, &w);
	near("ex1 t", w.t, 2.45535639828601, 1e-9);
	near("ex1 df", w.df, 24.9885292902314, 1e-9);
	near("ex1 p", w.p, 0.021378001462867, 1e-10);
	near("ex1 published p", w.p, 0.021, 5e-4);
	welch_of(b1, 10, b2, 20, &w);
	near("ex2 t", w.t, 1.56543352359851, 1e-9);
	near("ex2 df", w.df, 9.90474124865083, 1e-9);
	near("ex2 p", w.p, 0.148841696605328, 1e-10);
	near("ex2 published p", w.p, 0.149, 5e-4);
	welch_of(c1, 10, c2, 20, &w);
	near("ex3 t", w.t, 2.22551203996985, 1e-9);
	near("ex3 df", w.df, 24.5246349442573, 1e-9);
	near("ex3 p", w.p, 0.0354845308300102, 1e-10);
	near("ex3 published p", w.p, 0.035, 5e-4);
	/* Swapping the sides flips t, not p. */
	welch_of(c2, 20, c1, 10, &w);
	near("ex3 swapped t", w.t, -2.22551203996985, 1e-9);
	near("ex3 swapped p", w.p, 0.0354845308300102, 1e-10);
}

/* No spread at all, and too few values. */
static void
test_welch_degenerate(void **state)
{
	static const double two[] = {5, 5}, three[] = {7, 7, 7}, one[] = {1};
	struct stats_desc da, db;
	struct stats_welch w;

	(void)state;
	welch_of(two, 2, two, 2, &w);
	near("equal p", w.p, 1, 0);
	near("equal t", w.t, 0, 0);
	welch_of(two, 2, three, 3, &w);
	near("differ p", w.p, 0, 0);
	assert_true(isinf(w.t) && w.t > 0);
	assert_true(isnan(w.df));
	stats_describe(one, 1, &da);
	stats_describe(three, 3, &db);
	assert_int_equal(stats_welch(&da, &db, &w), -1);
}

/* The interval of the difference of means on Wikipedia's first example: R's
 * t.test(a2, a1) gives 0.3492 .. 3.9841; the digits below are the t quantile found by
 * Simpson's rule over the t density (tests/integration/test_compare.py's method). */
static void
test_diff_ci(void **state)
{
	static const double a1[] = {27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
	                            21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4};
	static const double a2[] = {27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
	                            24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4};
	static const double same[] = {5, 5, 5};
	static const double more[] = {7, 7, 7};
	struct stats_desc da, db;
	double diff, half;

	(void)state;
	stats_describe(a1, 15, &da);
	stats_describe(a2, 15, &db);
	assert_int_equal(stats_diff_ci95(&da, &db, &diff, &half), 0);
	near("diff", diff, 2.1666666666666714, 1e-12);
	near("half", half, 1.8174296004742267, 1e-8);
	near("low", diff - half, 0.34923706619244466, 1e-8);
	near("high", diff + half, 3.984096267140898, 1e-8);
	near("R low", diff - half, 0.3492, 1e-4);
	near("R high", diff + half, 3.9841, 1e-4);
	/* Other levels, as suite run --until-ci takes them (1 - 0.05 / looks): R 4.2.2's
	 * t.test(a2, a1, conf.level = L)$conf.int, 15 digits. */
	assert_int_equal(stats_diff_ci(&da, &db, 0.99, &diff, &half), 0);
	near("R 0.99 low", diff - half, -0.293127127881097, 1e-8);
	near("R 0.99 high", diff + half, 4.626460461214433, 1e-8);
	assert_int_equal(stats_diff_ci(&da, &db, 1 - 0.05 / 3, &diff, &half), 0);
	near("R 1-0.05/3 low", diff - half, -0.0976899912697674, 1e-8);
	near("R 1-0.05/3 high", diff + half, 4.4310233246031023, 1e-8);
	assert_int_equal(stats_diff_ci(&da, &db, 0.95, &diff, &half), 0);
	near("0.95 is ci95", diff - half, 0.34923706619244466, 1e-12);
	assert_int_equal(stats_diff_ci(&da, &db, 1, &diff, &half), -1);
	assert_int_equal(stats_diff_ci(&da, &db, 0, &diff, &half), -1);
	/* Neither varies: no width. */
	stats_describe(same, 3, &da);
	stats_describe(more, 3, &db);
	assert_int_equal(stats_diff_ci95(&da, &db, &diff, &half), 0);
	near("diff", diff, 2, 0);
	near("half", half, 0, 0);
	/* One value on a side: no interval. */
	stats_describe(same, 1, &da);
	assert_int_equal(stats_diff_ci95(&da, &db, &diff, &half), -1);
}

/* One Mann-Whitney case against R's wilcox.test(a, b) (R 4.2.2, Debian 12's r-base-core:
 * the W and p-value it printed, to its 15 digits). */
static void
mw_case(const char *what, const double *a, size_t na, const double *b, size_t nb, double w,
        double p, int exact)
{
	struct stats_rank r;
	char name[64];

	assert_int_equal(stats_mann_whitney(a, na, b, nb, &r), 0);
	snprintf(name, sizeof(name), "%s W", what);
	near(name, r.w, w, 1e-12);
	snprintf(name, sizeof(name), "%s p", what);
	near(name, r.p, p, 1e-12);
	if (r.exact != exact)
		fail_msg("%s: exact %d, want %d", what, r.exact, exact);
}

/* The rank test against R:
 *   wilcox.test(c(1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30),
 *               c(0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29))
 *     W = 58, p-value = 0.132919458185319 (with continuity correction: ties)
 *   wilcox.test(c(10.2, 11.5, 9.8, 12.1), c(13.4, 14.0, 12.9, 15.2))
 *     W = 0, p-value = 0.0285714285714286 (exact: 2/70)
 *   wilcox.test(c(50,52,51,49,300,53,50.5,48), c(55,57,56,54,58,400,56.5,59))
 *     W = 7, p-value = 0.00699300699300699 (exact; a latency-like skewed pair, where
 *     Welch's t sees no difference through the outliers)
 *   wilcox.test(c(3.1, 4.7, 2.2, 5.9, 4.1), c(3.8, 6.2, 5.1, 4.4, 7.0, 5.5))
 *     W = 7, p-value = 0.177489177489177 (exact)
 *   wilcox.test((1:60)*1.5, (1:55)*1.5+7.25)
 *     W = 1540, p-value = 0.539821923412244 (normal: 60 values, no ties)
 *   wilcox.test(c(1,2,2,3,3,3,4), c(3,3,4,4,5,5,6))
 *     W = 6, p-value = 0.017854292789383 (normal, tie-corrected)
 *   wilcox.test(c(1,2), c(3,4))  W = 0, p-value = 0.333333333333333 (exact) */
static void
test_mann_whitney_r(void **state)
{
	const double ex_a[] = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
	const double ex_b[] = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
	const double ap_a[] = {10.2, 11.5, 9.8, 12.1}, ap_b[] = {13.4, 14.0, 12.9, 15.2};
	const double sk_a[] = {50, 52, 51, 49, 300, 53, 50.5, 48};
	const double sk_b[] = {55, 57, 56, 54, 58, 400, 56.5, 59};
	const double ov_a[] = {3.1, 4.7, 2.2, 5.9, 4.1}, ov_b[] = {3.8, 6.2, 5.1, 4.4, 7.0, 5.5};
	const double ti_a[] = {1, 2, 2, 3, 3, 3, 4}, ti_b[] = {3, 3, 4, 4, 5, 5, 6};
	const double tw_a[] = {1, 2}, tw_b[] = {3, 4};
	double lg_a[60], lg_b[55];
	struct stats_desc da, db;
	struct stats_welch w;

	(void)state;
	for (int i = 0; i < 60; i++)
		lg_a[i] = (i + 1) * 1.5;
	for (int i = 0; i < 55; i++)
		lg_b[i] = (i + 1) * 1.5 + 7.25;
	mw_case("r example", ex_a, 9, ex_b, 9, 58, 0.132919458185319, 0);
	mw_case("apart", ap_a, 4, ap_b, 4, 0, 0.0285714285714286, 1);
	mw_case("skewed", sk_a, 8, sk_b, 8, 7, 0.00699300699300699, 1);
	mw_case("overlap", ov_a, 5, ov_b, 6, 7, 0.177489177489177, 1);
	mw_case("large", lg_a, 60, lg_b, 55, 1540, 0.539821923412244, 0);
	mw_case("ties", ti_a, 7, ti_b, 7, 6, 0.017854292789383, 0);
	mw_case("two against two", tw_a, 2, tw_b, 2, 0, 0.333333333333333, 1);
	/* The reason for the rank test: on the skewed pair Welch's t is far from sure. */
	stats_describe(sk_a, 8, &da);
	stats_describe(sk_b, 8, &db);
	assert_int_equal(stats_welch(&da, &db, &w), 0);
	assert_true(w.p > 0.5);
}

/* Edges: NAN values skipped; all values equal: p 1 (R says NaN); an empty side: -1. */
static void
test_mann_whitney_edges(void **state)
{
	const double a[] = {10.2, NAN, 11.5, 9.8, 12.1}, b[] = {13.4, 14.0, NAN, 12.9, 15.2};
	const double same[] = {1, 1, 1};
	struct stats_rank r;

	(void)state;
	assert_int_equal(stats_mann_whitney(a, 5, b, 5, &r), 0);
	near("nan skipped W", r.w, 0, 0);
	near("nan skipped p", r.p, 0.0285714285714286, 1e-12);
	assert_int_equal(stats_mann_whitney(same, 3, same, 2, &r), 0);
	assert_int_equal(r.exact, 0);
	near("all tied p", r.p, 1, 0);
	near("all tied W", r.w, 3, 0);
	assert_int_equal(stats_mann_whitney(a, 0, b, 5, &r), -1);
	assert_int_equal(stats_mann_whitney(a + 1, 1, b, 5, &r), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_betainc),          cmocka_unit_test(test_t_quantiles),
	    cmocka_unit_test(test_describe_ci),      cmocka_unit_test(test_welch_examples),
	    cmocka_unit_test(test_welch_degenerate), cmocka_unit_test(test_diff_ci),
	    cmocka_unit_test(test_mann_whitney_r),   cmocka_unit_test(test_mann_whitney_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
