// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Percentiles over the log-linear histogram of include/bhprof_hist.h. */
#include "summary.h"

uint64_t hist_bucket_low(unsigned int idx)
{
	unsigned int g, sub;

	if (idx < HIST_SUB)
		return idx;
	g = idx / HIST_SUB;
	sub = idx % HIST_SUB;
	return (uint64_t)(HIST_SUB + sub) << (g - 1);
}

uint64_t hist_bucket_width(unsigned int idx)
{
	if (idx < HIST_SUB)
		return 1;
	return 1ULL << (idx / HIST_SUB - 1);
}

uint64_t hist_count(const struct bhp_hist *h)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		n += h->b[i];
	return n;
}

/* Middle of the bucket; exact for the first 2^SUB_BITS values. */
static uint64_t bucket_mid(unsigned int idx)
{
	return hist_bucket_low(idx) + hist_bucket_width(idx) / 2;
}

/*
 * Sizes are almost always multiples of 512, which fall exactly on bucket
 * lower bounds, so they are read at the lower bound; latencies at the
 * middle of the bucket, which halves the worst-case error.
 */
static uint64_t bucket_value(unsigned int idx, enum hist_est est)
{
	return est == EST_LOW ? hist_bucket_low(idx) : bucket_mid(idx);
}

/* nearest rank: the smallest value with at least p% at or below it */
uint64_t nearest_rank(uint64_t n, double p)
{
	uint64_t rank = (uint64_t)((p / 100.0) * (double)n + 0.999999);

	if (rank < 1)
		rank = 1;
	return rank > n ? n : rank;
}

uint64_t hist_percentile(const struct bhp_hist *h, double p,
			 enum hist_est est)
{
	uint64_t n = hist_count(h), seen = 0, rank;

	if (!n)
		return 0;
	rank = nearest_rank(n, p);
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank)
			return bucket_value(i, est);
	}
	return 0;
}

uint64_t hist_max(const struct bhp_hist *h, enum hist_est est)
{
	for (unsigned int i = HIST_BUCKETS; i-- > 0;)
		if (h->b[i])
			return bucket_value(i, est);
	return 0;
}

double hist_mean(const struct bhp_hist *h, enum hist_est est)
{
	double sum = 0;
	uint64_t n = 0;

	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		sum += (double)h->b[i] * (double)bucket_value(i, est);
		n += h->b[i];
	}
	return n ? sum / (double)n : 0;
}

void dist_of(const struct bhp_hist *h, struct dist *d, enum hist_est est)
{
	d->count = hist_count(h);
	d->mean = hist_mean(h, est);
	d->p50 = hist_percentile(h, 50, est);
	d->p90 = hist_percentile(h, 90, est);
	d->p99 = hist_percentile(h, 99, est);
	d->max = hist_max(h, est);
}
