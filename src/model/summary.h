/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-path summary of a run, computed by one function from two
 * snapshots. stat, top, report and diff all print this structure.
 */
#ifndef BHPROF_SUMMARY_H
#define BHPROF_SUMMARY_H

#include <stdio.h>
#include "snapshot.h"

struct dist {
	uint64_t count;
	double mean;
	uint64_t p50, p90, p99, max;
};

struct path_summary {
	struct bhp_path_stats c;	/* counters over the window */
	struct dist write_lat;		/* ns */
	struct dist dio_lat;		/* ns */
	struct dist wb_lat;		/* ns */
	struct dist bio_size;		/* bytes */
	struct dist read_lat;		/* ns, read_folio / readahead */
	struct dist read_bio_size;	/* bytes */
	struct dist mkwrite_lat;	/* ns */
	struct dist pass_lat;		/* ns, writeback pass of an inode */
	double read_bio_mbps;		/* MiB/s read as bios */
	double read_bios_per_mib;	/* read bios per MiB they carried */
	double write_mbps;		/* MiB/s written by calls */
	double bio_mbps;		/* MiB/s submitted as bios */
	double write_calls_ps, bios_ps, pages_ps, bh_alloc_ps;
	double bh_per_mib;		/* bh allocations per MiB written */
	double bios_per_mib;		/* bios per MiB written, same rule */
	double bh_per_call;		/* bh allocations per write call */
	double bh_per_page;		/* ... per page written back */
	double mean_bio;		/* bytes */
	struct bhp_hist hist[NR_HIST_KINDS];	/* the window's histograms */
	/* whole-run figures, only in the "any" of gate (callers_any()) */
	uint64_t bh_outside;		/* allocations outside any path */
	int64_t bh_alive_peak;
	uint64_t bh_role[4];		/* allocations by enum callers_role */
};

struct dev_summary {
	uint32_t dev;
	char name[32];
	uint64_t bios, bytes;		/* all paths */
	uint64_t path_bios[NR_PATHS + 1], path_bytes[NR_PATHS + 1];
	uint32_t main_path;		/* path with most bytes */
	double mbps, bios_ps, mean_bio;
	uint64_t size_p50, size_p99;	/* from log2 buckets: lower edge */
	uint64_t read_bios, read_bytes;	/* read bios, all paths */
	uint64_t path_read_bios[NR_PATHS + 1], path_read_bytes[NR_PATHS + 1];
	double read_mbps;
	uint64_t read_size_p50, read_size_p99;
};

/* a filesystem type on a path: its counters in the path counters' places
 * (the rest zero: a filesystem's row keeps no distributions) */
struct fs_summary {
	char name[BHP_FS_NAME];	/* "" for no file's */
	uint32_t path;		/* enum bhp_path, PATH_NONE for other */
	struct bhp_path_stats c;
};

struct summary {
	double secs;
	uint64_t self_ns, self_runs;	/* bhprof's programs: time, runs */
	double self_on_secs;	/* ... counted this long (--self-cost) */
	uint32_t nr_self_progs;	/* ... by program loaded, the costliest */
	struct self_prog self_progs[MAX_SELF_PROGS];	/* first */
	struct path_summary path[NR_PATHS];
	/* the other group: writes to files on neither path (btrfs, f2fs,
	 * nfs, tmpfs, fuse without its writeback cache), their writeback,
	 * and every write bio no path claims: counters and the rates they
	 * give, no histograms (other_why() says which the run knows) */
	struct path_summary other;
	struct bhp_global_stats glob;
	/* the window's end: probes a module brought after the start, and
	 * those its unloading took (snapshot.h) */
	uint64_t probes_late, probes_gone;
	uint32_t nr_devs;
	struct dev_summary devs[MAX_SNAP_DEVS];
	/* per filesystem type and path, by name, then path */
	uint32_t nr_fs;
	struct fs_summary fs[MAX_SNAP_FS];
	/* --callers: the window's rows and the peak net since attach */
	int64_t bh_net_peak;
	uint32_t nr_callers;
	struct caller_row callers[MAX_SNAP_CALLERS];
};

/*
 * What a figure computed from samples needs: without it the figure is
 * unknown, never zero. A count or a rate over the window needs nothing:
 * no call counted is a measured zero.
 */
enum sample {
	SAMPLE_COUNT,	/* counts and rates */
	SAMPLE_WRITE,	/* buffered write latency: a write call */
	SAMPLE_DIO,	/* O_DIRECT latency: an O_DIRECT call */
	SAMPLE_WB,	/* writeback latency: a writeback call */
	SAMPLE_BIO,	/* bio sizes: a bio */
	SAMPLE_READ,	/* read latency: a read_folio or readahead */
	SAMPLE_READ_BIO,	/* read bio sizes: a read bio */
	SAMPLE_MKWRITE,	/* page_mkwrite latency: a fault */
	SAMPLE_PASS,	/* writeback pass latency: a pass */
	SAMPLE_MIB,	/* per MiB written: 1 MiB written (PER_MIB_MIN) */
	SAMPLE_READ_MIB,	/* per MiB read as bios: 1 MiB of them */
	SAMPLE_CALL,	/* per write call: a write call */
	SAMPLE_PAGE,	/* per page written back: a page */
};

/* a per-MiB figure over less is noise: 3 bytes written, 1.6 M bh/MiB */
#define PER_MIB_MIN (1024 * 1024)

/* why p has no sample for s ("no write call on this path"), NULL if it
 * has one */
const char *sample_why(const struct path_summary *p, enum sample s);
/* did the path see no event at all: no call, page, bio or buffer_head */
bool path_idle(const struct path_summary *p);
/*
 * The figures of filesystem name on path in out, from its row (all its
 * rows as one for NR_PATH_ROWS); zero where the run has none.
 */
void fs_path_summary(const struct summary *s, const char *name,
		     unsigned int path, struct path_summary *out);
/* fs_why() first, then sample_why() */
const char *fs_figure_why(const struct run_info *info, unsigned int path,
			  const struct path_summary *p, enum figure f,
			  enum sample s);
/* figure_why() first, then sample_why() */
const char *path_figure_why(const struct run_info *info, unsigned int path,
			    const struct path_summary *p, enum figure f,
			    enum sample s);
/* a why code as a sentence: "n/a" is "n/a: the attach mode cannot see
 * it"; sample reasons are sentences already */
const char *why_text(const char *why);
/* a why in a table cell: the code itself, or "-" for a sample reason
 * (the path had nothing to measure); NULL for NULL */
const char *why_cell(const char *why);

/* Both paths as one: the workload's figures whatever path carried them
 * (a block device moves from bh to iomap without buffer heads). out may
 * not be a or b. */
void path_merge(const struct path_summary *a, const struct path_summary *b,
		double secs, struct path_summary *out);

/* Summary of the window (a, b]; a may be NULL for "since zero". */
void summarize(const struct snapshot *a, const struct snapshot *b,
	       struct summary *out);

/* how a bucket stands for its values: its middle (latency) or its lower
 * bound (sizes, which are multiples of 512 and land on bounds exactly) */
enum hist_est { EST_MID, EST_LOW };

/* nearest-rank percentile p (0..100) of a log-linear histogram */
uint64_t hist_percentile(const struct bhp_hist *h, double p,
			 enum hist_est est);
uint64_t hist_count(const struct bhp_hist *h);
uint64_t hist_max(const struct bhp_hist *h, enum hist_est est);
double hist_mean(const struct bhp_hist *h, enum hist_est est);
uint64_t hist_bucket_low(unsigned int idx);
uint64_t nearest_rank(uint64_t n, double p);
double mib_per_sec(uint64_t bytes, double secs);
/* buffer_heads per MiB written by calls, or per MiB of bios when no call
 * wrote (a writeback-only window); NAN under PER_MIB_MIN */
double bh_per_mib(uint64_t bh_alloc, uint64_t written, uint64_t bio_bytes);
/* what bh_per_mib divides by, in bytes */
uint64_t per_mib_base(uint64_t written, uint64_t bio_bytes);
/* per-device log2 slots: slot s holds sizes in [2^s, 2^(s+1)); the
 * percentile is read at the slot's lower edge */
uint64_t log2_percentile(const uint64_t *slots, double p);
uint64_t hist_bucket_width(unsigned int idx);
void dist_of(const struct bhp_hist *h, struct dist *d, enum hist_est est);

#endif /* BHPROF_SUMMARY_H */
