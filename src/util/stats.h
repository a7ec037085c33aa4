/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Distribution-free statistics for the gate: the Wilcoxon rank-sum
 * (Mann-Whitney) test, exact for small samples and with ties, the
 * Hodges-Lehmann shift with its confidence interval, and Holm's
 * step-down correction for many tests at once.
 */
#ifndef BHPROF_STATS_H
#define BHPROF_STATS_H

#include <stdbool.h>
#include <stddef.h>

double stats_median(const double *v, size_t n);

/*
 * One-sided p-value of the rank-sum test that y tends to be greater than
 * x (greater) or smaller (!greater). Exact (ties by midranks) up to
 * STATS_EXACT_MAX values in all, normal with tie correction beyond.
 */
#define STATS_EXACT_MAX 60
double rank_sum_p(const double *x, size_t n, const double *y, size_t m,
		  bool greater);

/* the smallest one-sided p-value n and m values can give: 1/C(n+m, m) */
double rank_sum_min_p(size_t n, size_t m);

struct shift {
	double est;		/* median of all y_j - x_i */
	double lo, hi;		/* confidence interval, if have_ci */
	bool have_ci;		/* false: too few values for that confidence */
};

/* Hodges-Lehmann estimate of how far y lies from x, and its interval at
 * confidence conf (0.95), from the rank-sum distribution. */
int shift_estimate(const double *x, size_t n, const double *y, size_t m,
		   double conf, struct shift *out);

/* The ratio y / x the same way, for figures never below 0: est, lo and
 * hi are ratios (1.1 is 10% more). -EDOM if an x is not above 0 or a y
 * is below 0. */
int ratio_estimate(const double *x, size_t n, const double *y, size_t m,
		   double conf, struct shift *out);

/* Holm's adjusted p-values: reject those <= alpha, and the chance of
 * any false alarm among the k stays <= alpha. */
void holm_adjust(const double *p, size_t k, double *adj);

#endif /* BHPROF_STATS_H */
