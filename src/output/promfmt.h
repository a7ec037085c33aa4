/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A run's cumulative summary as Prometheus metrics, in the text format
 * (0.0.4) and in OpenMetrics 1.0.0. Pure rendering: serve.c does the
 * HTTP and the textfile, tests/unit drive this directly.
 */
#ifndef BHPROF_PROMFMT_H
#define BHPROF_PROMFMT_H

#include <stdio.h>
#include "model/summary.h"

enum prom_format {
	PROM_TEXT = 0,
	PROM_OPENMETRICS = 1,
	NR_PROM_FORMATS = 2,
};

/* The exporter process itself; absent from the textfile, where
 * node_exporter's own process_* metrics would collide with these. */
struct prom_process {
	double cpu_seconds;		/* user + system */
	uint64_t rss_bytes;
	double start_seconds;		/* since the epoch */
	uint64_t scrapes[NR_PROM_FORMATS];	/* so far, per format */
};

/*
 * Histogram buckets: one le per power of two, taken from the in-kernel
 * log-linear buckets, which nest exactly at powers of two. Latencies run
 * from 2^PROM_LAT_LO to 2^PROM_LAT_HI ns, sizes from 2^PROM_SIZE_LO to
 * 2^PROM_SIZE_HI bytes, then +Inf.
 */
#define PROM_LAT_LO 9		/* 512 ns */
#define PROM_LAT_HI 35		/* 34.4 s */
#define PROM_SIZE_LO 9		/* 512 B */
#define PROM_SIZE_HI 27		/* 128 MiB */

/*
 * Cumulative count at le = 2^k of an in-kernel histogram. Sizes (EST_LOW)
 * count the bucket that starts at 2^k, so a 4096-byte bio is at le=4096
 * (exact for multiples of 512 up to 16 KiB, as stat's percentiles);
 * latencies (EST_MID) count the values below 2^k ns, exact but for the
 * single value 2^k ns itself.
 */
uint64_t prom_cumulative(const struct bhp_hist *h, unsigned int k,
			 enum hist_est est);

/* Everything since the programs were loaded: s is summarize(NULL, now).
 * proc may be NULL. Returns 0, or -1 if f reports an error. */
int prom_render(FILE *f, enum prom_format fmt, const struct run_info *info,
		const struct summary *s, const struct prom_process *proc);

/* The format an Accept header asks for: OpenMetrics when it is accepted
 * with a q-value at least that of the text format, else text. */
enum prom_format prom_negotiate(const char *accept);
const char *prom_content_type(enum prom_format fmt);
const char *prom_format_name(enum prom_format fmt);

#endif /* BHPROF_PROMFMT_H */
