// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double stats_median(const double *v, size_t n)
{
	double *t, m;

	if (!n)
		return 0;
	t = malloc(n * sizeof(*t));
	if (!t)
		return NAN;
	memcpy(t, v, n * sizeof(*t));
	qsort(t, n, sizeof(*t), dbl_cmp);
	m = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	free(t);
	return m;
}

struct tagged {
	double v;
	bool y;
};

static int tagged_cmp(const void *a, const void *b)
{
	return dbl_cmp(&((const struct tagged *)a)->v,
		       &((const struct tagged *)b)->v);
}

/*
 * Pools x and y and ranks them; tied values share their mean rank.
 * Ranks are doubled so that every midrank is an integer. Returns the
 * ranks in pooled order and the doubled rank sum of y, and the sum of
 * t^3 - t over tie groups for the normal approximation.
 */
static int *pooled_ranks(const double *x, size_t n, const double *y,
			 size_t m, long *sum_y, double *ties)
{
	size_t N = n + m, i, j;
	struct tagged *t = malloc(N * sizeof(*t));
	int *r = malloc(N * sizeof(*r));

	if (!t || !r) {
		free(t);
		free(r);
		return NULL;
	}
	for (i = 0; i < n; i++)
		t[i] = (struct tagged){ x[i], false };
	for (i = 0; i < m; i++)
		t[n + i] = (struct tagged){ y[i], true };
	qsort(t, N, sizeof(*t), tagged_cmp);
	*sum_y = 0;
	*ties = 0;
	for (i = 0; i < N; i = j) {
		for (j = i + 1; j < N && t[j].v == t[i].v; j++)
			;
		/* positions i+1..j share (i+1+j)/2, doubled: i+1+j */
		for (size_t k = i; k < j; k++) {
			r[k] = (int)(i + 1 + j);
			if (t[k].y)
				*sum_y += r[k];
		}
		*ties += (double)(j - i) * (j - i) * (j - i) - (double)(j - i);
	}
	free(t);
	return r;
}

/*
 * How many of the C(N, m) ways to pick m of the N ranks give each sum:
 * dist[s] for s in [0, total]. The exact null distribution of the rank
 * sum, ties included, since ties are fixed by the pooled sample.
 */
static double *rank_sum_dist(const int *r, size_t N, size_t m, long *total)
{
	double *dp, *out;
	long sum = 0;

	for (size_t i = 0; i < N; i++)
		sum += r[i];
	dp = calloc((m + 1) * (size_t)(sum + 1), sizeof(*dp));
	if (!dp)
		return NULL;
#define DP(k, s) dp[(size_t)(k) * (size_t)(sum + 1) + (size_t)(s)]
	DP(0, 0) = 1;
	for (size_t i = 0; i < N; i++)
		for (size_t k = i + 1 < m ? i + 1 : m; k >= 1; k--)
			for (long s = sum; s >= r[i]; s--)
				DP(k, s) += DP(k - 1, s - r[i]);
	out = malloc((size_t)(sum + 1) * sizeof(*out));
	if (out)
		memcpy(out, &DP(m, 0), (size_t)(sum + 1) * sizeof(*out));
#undef DP
	free(dp);
	*total = sum;
	return out;
}

static double normal_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

static double exact_p(const int *r, size_t N, size_t m, long obs,
		      bool greater)
{
	long total, s;
	double *d = rank_sum_dist(r, N, m, &total), hit = 0, all = 0;

	if (!d)
		return NAN;
	for (s = 0; s <= total; s++) {
		all += d[s];
		if (greater ? s >= obs : s <= obs)
			hit += d[s];
	}
	free(d);
	return hit / all;
}

double rank_sum_p(const double *x, size_t n, const double *y, size_t m,
		  bool greater)
{
	size_t N = n + m;
	double ties, mean, var, z, p;
	long obs;
	int *r;

	if (!n || !m)
		return 1;
	r = pooled_ranks(x, n, y, m, &obs, &ties);
	if (!r)
		return NAN;
	if (N <= STATS_EXACT_MAX) {
		p = exact_p(r, N, m, obs, greater);
		free(r);
		return p;
	}
	free(r);
	/* doubled ranks: mean and variance four times the usual */
	mean = (double)m * (N + 1);
	var = 4.0 * n * m / 12.0 * ((N + 1) - ties / ((double)N * (N - 1)));
	if (var <= 0)
		return 1;
	/* continuity: a doubled rank sum moves in steps of at least 1 */
	z = greater ? (obs - mean - 0.5) / sqrt(var) :
		      (mean - obs - 0.5) / sqrt(var);
	return normal_sf(z);
}

double rank_sum_min_p(size_t n, size_t m)
{
	double c = 1;

	/* C(n+m, m), built up so that it stays exact while it can */
	for (size_t i = 1; i <= m; i++)
		c = c * (double)(n + i) / (double)i;
	return 1 / c;
}

/*
 * k: how many of the sorted differences to leave out at each end for an
 * interval of confidence at least conf. The rank-sum statistic without
 * ties, U, has P(U <= k - 1) <= (1 - conf) / 2.
 */
static long ci_trim(size_t n, size_t m, double conf)
{
	double tail = (1 - conf) / 2, acc = 0, all = 0, z, lo = 0, hi = 10;
	size_t N = n + m;
	long k, total;
	int *r;
	double *d;

	if (N > STATS_EXACT_MAX) {
		/* normal quantile by bisection: erfc is all libm offers */
		for (int i = 0; i < 60; i++) {
			z = (lo + hi) / 2;
			if (normal_sf(z) > tail)
				lo = z;
			else
				hi = z;
		}
		return (long)floor(n * m / 2.0 -
				   z * sqrt(n * m * (N + 1) / 12.0));
	}
	r = malloc(N * sizeof(*r));
	if (!r)
		return -1;
	for (size_t i = 0; i < N; i++)
		r[i] = (int)(2 * (i + 1));
	d = rank_sum_dist(r, N, m, &total);
	free(r);
	if (!d)
		return -1;
	for (long s = 0; s <= total; s++)
		all += d[s];
	/* U = S/2 - m(m+1)/2, so U = u is the doubled sum 2u + m(m+1) */
	for (k = 0;; k++) {
		long s = 2 * k + (long)(m * (m + 1));

		if (s > total || (acc + d[s]) / all > tail)
			break;
		acc += d[s];
	}
	free(d);
	return k;
}

/* the median of every y_j - x_i (or y_j / x_i), and the interval */
static int pairs_estimate(const double *x, size_t n, const double *y,
			  size_t m, double conf, bool ratio,
			  struct shift *out)
{
	size_t nm = n * m, i, j;
	double *d;
	long k;

	memset(out, 0, sizeof(*out));
	if (!nm)
		return -EINVAL;
	d = malloc(nm * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++)
			d[i * m + j] = ratio ? y[j] / x[i] : y[j] - x[i];
	qsort(d, nm, sizeof(*d), dbl_cmp);
	out->est = nm % 2 ? d[nm / 2] : (d[nm / 2 - 1] + d[nm / 2]) / 2;
	k = ci_trim(n, m, conf);
	if (k >= 1 && (size_t)k <= nm / 2) {
		out->lo = d[k - 1];
		out->hi = d[nm - (size_t)k];
		out->have_ci = true;
	}
	free(d);
	return 0;
}

int shift_estimate(const double *x, size_t n, const double *y, size_t m,
		   double conf, struct shift *out)
{
	return pairs_estimate(x, n, y, m, conf, false, out);
}

/*
 * The same on the ratio scale: under y = c * x the ratios y_j / x_i are
 * what the differences are under y = x + c, and their order statistics
 * give c and its interval. A ratio is never below 0, so neither is the
 * interval: a figure that cannot be negative cannot fall by over 100%.
 */
int ratio_estimate(const double *x, size_t n, const double *y, size_t m,
		   double conf, struct shift *out)
{
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0))
			return -EDOM;
	for (size_t j = 0; j < m; j++)
		if (!(y[j] >= 0))
			return -EDOM;
	return pairs_estimate(x, n, y, m, conf, true, out);
}

void holm_adjust(const double *p, size_t k, double *adj)
{
	size_t *idx = malloc(k * sizeof(*idx));
	double run = 0;

	if (!idx) {
		/* Bonferroni is never less strict than Holm */
		for (size_t i = 0; i < k; i++)
			adj[i] = fmin(1, p[i] * (double)k);
		return;
	}
	for (size_t i = 0; i < k; i++)
		idx[i] = i;
	/* insertion sort by p: a gate has tens of rules, not thousands */
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && p[idx[j]] < p[idx[j - 1]]; j--) {
			size_t t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (size_t i = 0; i < k; i++) {
		double a = fmin(1, p[idx[i]] * (double)(k - i));

		run = fmax(run, a);
		adj[idx[i]] = run;
	}
	free(idx);
}
