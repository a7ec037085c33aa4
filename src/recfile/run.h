/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A recording loaded for report, the HTML page, diff and gate: its
 * metadata, the summary of the whole run, and the time series.
 */
#ifndef BHPROF_RUN_H
#define BHPROF_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include "recfile.h"
#include "model/summary.h"

/* One point of the time series: one or more intervals, one path. */
struct ts_path {
	uint64_t write_calls, write_bytes, dio_bytes;
	uint64_t bio_count, bio_bytes, wb_pages, bh_alloc;
	uint64_t lat_p50, lat_p99;	/* buffered write latency, ns */
	uint64_t read_bio_count, read_bio_bytes, read_pages;
};

struct ts_row {
	double t;		/* end, seconds since the first snapshot */
	double secs;		/* length */
	bool gap;		/* recorded frames were lost inside */
	struct ts_path p[NR_PATHS];
};

/* a -d device that vanished, or came back, during the recording */
struct dev_event {
	uint32_t dev;
	bool gone;		/* else back */
	double at_s;		/* seconds since the first snapshot */
};

#define MAX_DEV_EVENTS 64

/* a probe attached once its module loaded, or taken by its unloading */
struct probe_event {
	uint32_t probe;		/* enum probe_id */
	bool gone;		/* else attached */
	double at_s;
};

#define MAX_PROBE_EVENTS 64

struct loaded_run {
	const char *path;
	struct recfile *rec;
	struct summary *sum;
	uint64_t snapshots;	/* handed out by the reader */
	double secs;		/* first to last snapshot */
	struct ts_row *rows;
	size_t nr_rows;
	unsigned long every;	/* intervals per row */
	/* with a time series (every != 0): the first MAX_DEV_EVENTS, and
	 * how many more there were */
	struct dev_event events[MAX_DEV_EVENTS];
	size_t nr_events, more_events;
	/* ... and of probes, in the order they happened */
	struct probe_event pevents[MAX_PROBE_EVENTS];
	size_t nr_pevents, more_pevents;
};

/*
 * Reads path whole. every: intervals per time-series row; 0 for none,
 * and a negative value -n for "about n rows in all". Prints warnings,
 * or one error line, on stderr. Returns 0 or -1.
 */
int run_load(struct loaded_run *run, const char *path, long every);
/* The same from fd, opened by run_open (which prints why it could not):
 * the file is opened with root, and read and parsed without. */
int run_open(const char *path);
int run_load_fd(struct loaded_run *run, const char *path, int fd,
		long every);
void run_free(struct loaded_run *run);

/* bh allocations per MiB written (or sent as bios if nothing was) */
double ts_bh_per_mib(const struct ts_path *p);
/* "2026-12-03 07:00:00 UTC" */
const char *fmt_utc(char *buf, size_t len, uint64_t realtime_ns);
/* "ran until the duration ended", "SIGINT", ... */
const char *stop_text(char *buf, size_t len, const struct rec_end *e);

#endif /* BHPROF_RUN_H */
