/* stats.c: descriptive statistics, Student's t distribution, Welch's t-test and the
 * Mann-Whitney rank test.
 *
 * The t distribution's CDF is written with the regularized incomplete beta function:
 * for x = df / (df + t^2), P(|T| > |t|) = I_x(df/2, 1/2). I_x(a, b) is evaluated by its
 * continued fraction (modified Lentz), on the side of x where it converges fast, and the
 * quantile by bisection on the CDF, which is monotone: no table, no approximation of
 * the quantile beyond the bisection's own tolerance. */
#include <math.h>
#include <stdlib.h>

#include "stats.h"

#define CF_MAX_ITER 10000
#define CF_EPS      1e-15
#define CF_TINY     1e-300

/* Mean, min, max and sample standard deviation, NAN values skipped. */
void
stats_describe(const double *v, size_t n, struct stats_desc *d)
{
	double sum = 0, sq = 0;

	d->n = 0;
	d->mean = d->min = d->max = d->sd = NAN;
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		if (d->n == 0 || v[i] < d->min)
			d->min = v[i];
		if (d->n == 0 || v[i] > d->max)
			d->max = v[i];
		sum += v[i];
		d->n++;
	}
	if (d->n == 0)
		return;
	d->mean = sum / (double)d->n;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			sq += (v[i] - d->mean) * (v[i] - d->mean);
	d->sd = d->n > 1 ? sqrt(sq / (double)(d->n - 1)) : 0;
}

/* The continued fraction of I_x(a, b), for x < (a + 1) / (a + b + 2). */
static double
betacf(double a, double b, double x)
{
	double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < CF_TINY)
		d = CF_TINY;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= CF_MAX_ITER; m++) {
		double m2 = 2.0 * m, aa, del;
		/* the even step */
		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < CF_TINY)
			d = CF_TINY;
		c = 1 + aa / c;
		if (fabs(c) < CF_TINY)
			c = CF_TINY;
		d = 1 / d;
		h *= d * c;
		/* the odd step */
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < CF_TINY)
			d = CF_TINY;
		c = 1 + aa / c;
		if (fabs(c) < CF_TINY)
			c = CF_TINY;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < CF_EPS)
			break;
	}
	return h;
}

/* I_x(a, b). */
double
stats_betainc(double a, double b, double x)
{
	double front;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, 1 - x) / b;
}

/* The CDF of Student's t. */
double
stats_t_cdf(double t, double df)
{
	double tail;

	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	tail = 0.5 * stats_betainc(df / 2, 0.5, df / (df + t * t)); /* P(T > |t|) */
	return t > 0 ? 1 - tail : tail;
}

/* Bisection on the CDF: widen [0, hi] until it holds the upper quantile, then halve it. */
double
stats_t_quantile(double p, double df)
{
	double q, lo = 0, hi = 1;

	if (!(df > 0) || !(p > 0) || !(p < 1))
		return NAN;
	if (p == 0.5)
		return 0;
	q = p > 0.5 ? p : 1 - p;
	while (stats_t_cdf(hi, df) < q && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 2000 && hi - lo > 1e-13 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (stats_t_cdf(mid, df) < q)
			lo = mid;
		else
			hi = mid;
	}
	q = (lo + hi) / 2;
	return p > 0.5 ? q : -q;
}

/* mean -+ tq * sd / sqrt(n). */
int
stats_ci(const struct stats_desc *d, double tq, double *lo, double *hi)
{
	double half;

	if (d->n < 2)
		return -1;
	half = tq * d->sd / sqrt((double)d->n);
	*lo = d->mean - half;
	*hi = d->mean + half;
	return 0;
}

/* The interval with tq = t(0.975, n - 1). */
int
stats_ci95(const struct stats_desc *d, double *lo, double *hi)
{
	if (d->n < 2)
		return -1;
	return stats_ci(d, stats_t_quantile(0.975, (double)(d->n - 1)), lo, hi);
}

/* t = (mean_b - mean_a) / sqrt(va + vb) with va = sd_a^2 / n_a; Welch-Satterthwaite
 * df = (va + vb)^2 / (va^2 / (n_a - 1) + vb^2 / (n_b - 1)); p = I_{df/(df+t^2)}(df/2, 1/2). */
int
stats_welch(const struct stats_desc *a, const struct stats_desc *b, struct stats_welch *w)
{
	double va, vb, se, diff;

	if (a->n < 2 || b->n < 2)
		return -1;
	va = a->sd * a->sd / (double)a->n;
	vb = b->sd * b->sd / (double)b->n;
	se = sqrt(va + vb);
	diff = b->mean - a->mean;
	if (se == 0) {
		w->t = diff == 0 ? 0 : diff > 0 ? INFINITY : -INFINITY;
		w->df = NAN;
		w->p = diff == 0 ? 1 : 0;
		return 0;
	}
	w->t = diff / se;
	w->df =
	    (va + vb) * (va + vb) / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
	w->p = stats_betainc(w->df / 2, 0.5, w->df / (w->df + w->t * w->t));
	return 0;
}

/* Welch's interval of the difference of two means. */
int
stats_diff_ci95(const struct stats_desc *a, const struct stats_desc *b, double *diff, double *half)
{
	return stats_diff_ci(a, b, 0.95, diff, half);
}

/* Welch's interval at a confidence level. */
int
stats_diff_ci(const struct stats_desc *a, const struct stats_desc *b, double level, double *diff,
              double *half)
{
	struct stats_welch w;

	if (!(level > 0 && level < 1) || stats_welch(a, b, &w) < 0)
		return -1;
	*diff = b->mean - a->mean;
	if (isnan(w.df)) {
		*half = 0; /* neither varies */
		return 0;
	}
	*half = stats_t_quantile((1 + level) / 2, w.df) *
	        sqrt(a->sd * a->sd / (double)a->n + b->sd * b->sd / (double)b->n);
	return 0;
}

/* A value of the pooled sample and the side it came from. */
struct ranked {
	double v;
	int side; /* 0: a, 1: b */
};

static int
by_value(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;

	return a < b ? -1 : a > b;
}

/* P(Z <= z) of the standard normal. */
static double
norm_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

/* Two-sided exact p of W = w for sizes m (a) and n (b): the counts c(u) of arrangements
 * with U = u from c(m', n', u) = c(m' - 1, n', u - n') + c(m', n' - 1, u) (additions only:
 * no cancellation), then R's rule: P(W >= w) above the middle, P(W <= w) below, doubled.
 * NAN when the table cannot be allocated. */
static double
exact_p(double w, size_t m, size_t n)
{
	size_t width = m * n + 1;
	double *t = malloc((m + 1) * width * sizeof(*t)), tail = 0, all = 0, p;

	if (t == NULL)
		return NAN;
	/* n' = 0: only U = 0. */
	for (size_t i = 0; i <= m; i++)
		for (size_t u = 0; u < width; u++)
			t[i * width + u] = u == 0;
	for (size_t nn = 1; nn <= n; nn++)
		for (size_t mm = 1; mm <= m; mm++)
			for (size_t u = mm * nn + 1; u-- > 0;)
				t[mm * width + u] += u >= nn ? t[(mm - 1) * width + u - nn] : 0;
	for (size_t u = 0; u < width; u++) {
		double c = t[m * width + u];
		all += c;
		if (w > (double)(m * n) / 2 ? (double)u >= w : (double)u <= w)
			tail += c;
	}
	free(t);
	p = 2 * tail / all;
	return p < 1 ? p : 1;
}

int
stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct stats_rank *r)
{
	struct ranked *x = malloc((na + nb + 1) * sizeof(*x));
	double ra = 0, ties = 0, m = 0, n = 0, z, sigma;
	size_t k = 0;

	if (x == NULL)
		return -1;
	for (size_t i = 0; i < na + nb; i++) {
		double v = i < na ? a[i] : b[i - na];
		if (isnan(v))
			continue;
		x[k].v = v;
		x[k++].side = i >= na;
		*(i < na ? &m : &n) += 1;
	}
	if (m < 1 || n < 1) {
		free(x);
		return -1;
	}
	qsort(x, k, sizeof(*x), by_value);
	/* Mid-ranks: a run of equal values shares the mean of its ranks. */
	for (size_t i = 0; i < k;) {
		size_t j = i;
		while (j < k && x[j].v == x[i].v)
			j++;
		double t = (double)(j - i), rank = (double)(i + 1 + j) / 2;
		for (size_t q = i; q < j; q++)
			if (x[q].side == 0)
				ra += rank;
		ties += t * t * t - t;
		i = j;
	}
	free(x);
	r->w = ra - m * (m + 1) / 2;
	if (ties == 0 && m < STATS_RANK_EXACT_MAX && n < STATS_RANK_EXACT_MAX) {
		r->exact = 1;
		r->z = NAN;
		r->p = exact_p(r->w, (size_t)m, (size_t)n);
		if (!isnan(r->p))
			return 0;
	}
	/* The normal approximation, tie-corrected, with the continuity correction. */
	r->exact = 0;
	z = r->w - m * n / 2;
	sigma = sqrt(m * n / 12 * ((m + n + 1) - ties / ((m + n) * (m + n - 1))));
	if (sigma == 0) {
		/* Every value is the same: no evidence of a difference. */
		r->z = 0;
		r->p = 1;
		return 0;
	}
	r->z = (z - (z > 0 ? 0.5 : z < 0 ? -0.5 : 0)) / sigma;
	r->p = 2 * fmin(norm_cdf(r->z), norm_cdf(-r->z));
	if (r->p > 1)
		r->p = 1;
	return 0;
}
