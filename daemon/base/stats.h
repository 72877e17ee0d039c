/* stats.h: the statistics compare gives a set of iterations: mean, sample standard
 * deviation, a 95 % confidence interval of the mean from Student's t, and Welch's t-test
 * of two sets, its p-value from the t distribution through the regularized incomplete
 * beta function; the Mann-Whitney rank test for skewed figures. Plain C and libm. */
#ifndef NM_STATS_H
#define NM_STATS_H

#include <stddef.h>

/* What describes one set of values. */
struct stats_desc {
	size_t n;
	double mean, min, max, sd; /* NAN when n is 0; sd 0 when n is 1 */
};

/* Welch's t-test of two sets. */
struct stats_welch {
	double t;  /* (mean B - mean A) / standard error; +-INFINITY when the error is 0 */
	double df; /* Welch-Satterthwaite degrees of freedom; NAN when the error is 0 */
	double p;  /* two-sided p-value */
};

/* n, mean, min, max and sample standard deviation of v[0..n), NAN values skipped. */
void stats_describe(const double *v, size_t n, struct stats_desc *d);

/* The regularized incomplete beta function I_x(a, b) (a, b > 0, 0 <= x <= 1); NAN outside. */
double stats_betainc(double a, double b, double x);

/* P(T <= t) for Student's t with df > 0 degrees of freedom; NAN for bad df. */
double stats_t_cdf(double t, double df);

/* The t with P(T <= t) = p (0 < p < 1), df > 0; NAN outside. */
double stats_t_quantile(double p, double df);

/* The 95 % confidence interval of d's mean: mean -+ t(0.975, n-1) sd / sqrt(n). -1 when
 * n < 2 (there is no interval), else 0. */
int stats_ci95(const struct stats_desc *d, double *lo, double *hi);
/* The same with the quantile given (tq = stats_t_quantile(0.975, n - 1)), for a caller
 * that reuses it over many sets of the same size. */
int stats_ci(const struct stats_desc *d, double tq, double *lo, double *hi);

/* Welch's t-test of a against b. -1 when either has fewer than 2 values, else 0. When both
 * standard deviations are 0 the test degenerates: p is 1 for equal means, 0 otherwise. */
int stats_welch(const struct stats_desc *a, const struct stats_desc *b, struct stats_welch *w);

/* The 95 % confidence interval of the difference of the means (b's minus a's), Welch's:
 * (mean B - mean A) -+ t(0.975, df) sqrt(sd_a^2/n_a + sd_b^2/n_b), df Welch-Satterthwaite's.
 * *diff the difference, *half the half-width (0 when neither set varies). -1 when either
 * has fewer than 2 values, else 0. */
int stats_diff_ci95(const struct stats_desc *a, const struct stats_desc *b, double *diff,
                    double *half);
/* The same at confidence level (0 < level < 1): the quantile t((1 + level) / 2, df). */
int stats_diff_ci(const struct stats_desc *a, const struct stats_desc *b, double level,
                  double *diff, double *half);

/* The Mann-Whitney U test (the Wilcoxon rank-sum test) of a against b, for figures whose
 * distribution is skewed (latency percentiles), where a mean and its t interval mislead.
 * As R's wilcox.test(a, b) computes it: W is the U of a (pairs with a_i > b_j, a tie
 * counting one half); without ties and with both sides under STATS_RANK_EXACT_MAX values,
 * p is exact (the distribution of U counted); else the normal approximation with the tie
 * correction of the variance and the continuity correction. NAN values are skipped. */
#define STATS_RANK_EXACT_MAX 50
struct stats_rank {
	double w; /* U of a */
	double z; /* the normal approximation's z (NAN when exact) */
	double p; /* two-sided; 1 when every value is the same */
	int exact;
};
/* 0, or -1 when a side has no value (or memory runs out). Allocates a little (the pooled
 * ranks; for the exact p a table of (n_a + 1) * (n_a n_b + 1) doubles), freed before it
 * returns. */
int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                       struct stats_rank *r);

#endif
