// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Histogram bucket edges and percentile estimates. */
#include <string.h>
#include "bhprof_hist.h"
#include "harness.h"
#include "model/summary.h"

TEST(hist_small_values_are_exact)
{
	for (unsigned int v = 0; v < 2 * HIST_SUB; v++) {
		CHECK_EQ_U64(hist_bucket(v), v);
		CHECK_EQ_U64(hist_bucket_low(v), v);
		CHECK_EQ_U64(hist_bucket_width(v), 1);
	}
}

/* every value lies in [low, low + width) of its bucket, and the bucket
 * is never wider than 1/32 of its lower bound */
TEST(hist_bucket_bounds_hold)
{
	uint64_t samples[] = { 64, 65, 100, 511, 512, 4095, 4096, 4097,
			       65536, 1000000, 123456789, 1ULL << 39,
			       (1ULL << 40) - 1 };

	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		uint64_t v = samples[i];
		unsigned int b = hist_bucket(v);

		CHECK(b < HIST_BUCKETS);
		CHECK(hist_bucket_low(b) <= v);
		CHECK(v < hist_bucket_low(b) + hist_bucket_width(b));
		CHECK(hist_bucket_width(b) * HIST_SUB <= hist_bucket_low(b) ||
		      b < HIST_SUB);
	}
}

TEST(hist_buckets_are_monotonic_and_contiguous)
{
	for (unsigned int b = 1; b < HIST_BUCKETS; b++)
		CHECK_EQ_U64(hist_bucket_low(b),
			     hist_bucket_low(b - 1) + hist_bucket_width(b - 1));
}

TEST(hist_clamps_huge_values)
{
	CHECK_EQ_U64(hist_bucket(1ULL << 40), HIST_BUCKETS - 1);
	CHECK_EQ_U64(hist_bucket(~0ULL), HIST_BUCKETS - 1);
}

TEST(hist_log2_matches_builtin)
{
	for (int s = 0; s < 64; s++) {
		uint64_t v = 1ULL << s;

		CHECK_EQ_U64(bhp_log2(v), s);
		CHECK_EQ_U64(bhp_log2(v | (v >> 1)), s);
	}
}

static struct bhp_hist h;

static void fill(uint64_t v, uint64_t n)
{
	h.b[hist_bucket(v)] += n;
}

TEST(percentile_of_block_sized_bios_is_exact)
{
	memset(&h, 0, sizeof(h));
	fill(4096, 1000);
	CHECK_EQ_U64(hist_percentile(&h, 50, EST_LOW), 4096);
	CHECK_EQ_U64(hist_percentile(&h, 99, EST_LOW), 4096);
	CHECK_EQ_U64(hist_max(&h, EST_LOW), 4096);
	CHECK_EQ_U64(hist_count(&h), 1000);
}

TEST(percentile_nearest_rank)
{
	memset(&h, 0, sizeof(h));
	/* 1..60 are all exact buckets: p50 is the 30th value, p99 the
	 * ceil(59.4) = 60th */
	for (uint64_t v = 1; v <= 60; v++)
		fill(v, 1);
	CHECK_EQ_U64(hist_percentile(&h, 50, EST_LOW), 30);
	CHECK_EQ_U64(hist_percentile(&h, 90, EST_LOW), 54);
	CHECK_EQ_U64(hist_percentile(&h, 99, EST_LOW), 60);
	CHECK_EQ_U64(hist_percentile(&h, 100, EST_LOW), 60);
	CHECK_EQ_U64(hist_percentile(&h, 0, EST_LOW), 1);
}

/* the brief: p99 within a few percent, for latencies spread over decades */
TEST(percentile_error_is_small)
{
	uint64_t v = 1000, n = 0;

	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 10000; i++) {
		fill(v, 1);
		v = v * 1001 / 1000 + 7;
		n++;
	}
	/* recompute the true p99 the same way */
	v = 1000;
	for (int i = 0; i < 9900 - 1; i++)
		v = v * 1001 / 1000 + 7;
	{
		double est = (double)hist_percentile(&h, 99, EST_MID);
		double err = est > v ? est - v : v - est;

		CHECK(err / v < 0.02);
	}
	CHECK_EQ_U64(hist_count(&h), n);
}

TEST(percentile_of_empty_is_zero)
{
	memset(&h, 0, sizeof(h));
	CHECK_EQ_U64(hist_percentile(&h, 99, EST_MID), 0);
	CHECK_EQ_U64(hist_max(&h, EST_MID), 0);
	CHECK(hist_mean(&h, EST_MID) == 0);
}
