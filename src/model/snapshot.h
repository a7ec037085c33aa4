/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one thing that flows through bhprof: a cumulative snapshot of every
 * counter and histogram, taken live from the BPF maps or read back from a
 * record file. Consumers (stat, top, record, report, diff) only ever see
 * pairs of snapshots and the run metadata.
 */
#ifndef BHPROF_SNAPSHOT_H
#define BHPROF_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include "bhprof.h"

#define MAX_SNAP_DEVS 64

struct dev_row {
	uint32_t dev;	/* kernel dev_t, major << 20 | minor */
	uint32_t path;	/* enum bhp_path or PATH_NONE */
	struct bhp_dev_stats s;
};

/* a filesystem type on a path: its name ("" for no file's) and counts */
#define MAX_SNAP_FS 32
struct fs_row {
	char name[BHP_FS_NAME];
	uint32_t path;	/* enum bhp_path, PATH_NONE for other */
	struct bhp_fs_stats s;
};

/* --callers: allocations of one chain, owner and context (cumulative) */
struct caller_row {
	struct bhp_caller_key k;
	uint64_t n;
};

#define MAX_SNAP_CALLERS BHP_MAX_CALLERS

/* --self-cost: what one of bhprof's programs cost, by its name (the
 * programs a late module brought add to the row of theirs) */
#define MAX_SELF_PROGS 128
struct self_prog {
	char name[24];
	uint64_t ns, runs;
};

struct snapshot {
	uint64_t ts_ns;	/* CLOCK_MONOTONIC when read */
	struct bhp_path_stats paths[NR_PATH_ROWS];	/* bh, iomap, other */
	struct bhp_global_stats glob;
	struct bhp_hist hists[NR_HISTS];
	uint32_t nr_devs;
	struct dev_row devs[MAX_SNAP_DEVS];
	/* per filesystem type and path, sorted by name, then path */
	uint32_t nr_fs;
	struct fs_row fs[MAX_SNAP_FS];
	/* bit i: the run's i-th -d device (run_info.filter_devs) was gone
	 * when this was read (state, not a counter: deltas keep the later) */
	uint32_t dev_gone;
	/* bit id: probe id attached since the start, by a module loaded
	 * then; or taken by its module's unloading (state, as dev_gone) */
	uint64_t probes_late, probes_gone;
	/* bhprof's own cost: its programs' run time and runs, from the
	 * kernel's BPF statistics, on for self_on_ns (--self-cost; zero
	 * without, or where they cannot be enabled) */
	uint64_t self_ns, self_runs, self_on_ns;
	uint32_t nr_self_progs;
	struct self_prog self_progs[MAX_SELF_PROGS];	/* ... by program */
	/* --callers: the highest net of allocations over frees since
	 * attach (not a counter: a delta keeps the later one), and the
	 * rows, sorted by key */
	int64_t bh_net_peak;
	uint32_t nr_callers;
	struct caller_row callers[MAX_SNAP_CALLERS];
};

/* Logical probes; each resolves to one attach mode on a given kernel. */
enum probe_id {
	PROBE_WRITE_BLKDEV,	/* blkdev_write_iter */
	PROBE_WRITE_IOMAP,	/* iomap_file_buffered_write */
	PROBE_WRITE_GENERIC,	/* generic_perform_write */
	PROBE_WB_BH,		/* block_write_full_folio / _page */
	PROBE_WB_IOMAP,		/* iomap_writepages */
	PROBE_WB_CTX,		/* do_writepages: the writeback calls */
	PROBE_BH_ALLOC,		/* alloc_buffer_head */
	PROBE_BIO,		/* block_bio_queue */
	/* ids are kept in record files: new probes go at the end */
	PROBE_READ_BH_FOLIO,	/* block_read_full_folio */
	PROBE_READ_BH_RA,	/* mpage_readahead */
	PROBE_READ_EXT4_FOLIO,	/* ext4_read_folio */
	PROBE_READ_EXT4_RA,	/* ext4_readahead */
	PROBE_READ_IOMAP_FOLIO,	/* iomap_read_folio */
	PROBE_READ_IOMAP_RA,	/* iomap_readahead */
	PROBE_READ_BLKDEV,	/* blkdev_read_iter: read call context */
	PROBE_MKWRITE_BH,	/* block_page_mkwrite */
	PROBE_MKWRITE_EXT4,	/* ext4_page_mkwrite */
	PROBE_MKWRITE_IOMAP,	/* iomap_page_mkwrite */
	PROBE_DIO_FALLBACK,	/* direct_write_fallback (6.6+) */
	PROBE_PASS_INODE,	/* writeback_single_inode{_start,} events */
	PROBE_PASS_EXT4,	/* ext4_writepages{,_result} events */
	PROBE_WB_MPAGE,		/* mpage_writepages / __mpage_writepages */
	PROBE_WB_EXT4,		/* ext4_writepages */
	NR_PROBES,
};

enum attach_mode {
	MODE_NONE = 0,	/* absent from this kernel, or not attached */
	MODE_FENTRY,
	MODE_KPROBE,
	MODE_TRACEPOINT,
	MODE_AUTO,	/* only as a request */
};

struct probe_state {
	enum attach_mode mode;
	bool absent;		/* the kernel has no such function */
	bool failed;		/* present, but its group could not be loaded
				 * or attached: detail says why */
	char func[64];		/* name resolved on this kernel */
	char module[32];	/* the module it lives in, "" for vmlinux */
	char detail[256];	/* why absent / failed, or the tracepoint used */
};

#define MAX_FILTER_DEVS BHP_MAX_FILTER_DEVS

/* run_info.features: what the recording bhprof measured at all; a file
 * written before a feature lacks its figures, which are unknown, not 0 */
#define RUN_F_READS 0x1	/* reads, page_mkwrite, direct-write fallback */
#define RUN_F_CALLERS 0x2	/* --callers: chains, owners, frees */
#define RUN_F_PASSES 0x4	/* writeback passes over an inode, timed */
#define RUN_F_TP_READ_CALLS 0x8	/* tracepoint mode counted iomap's read
				 * calls (from its events, no latency) */
#define RUN_F_WB_MAPPING 0x10	/* writeback calls are do_writepages() over
				 * a mapping, with their engines; before,
				 * they were the engines' calls */
#define RUN_F_OTHER 0x20	/* the other group: files on neither path,
				 * and the bios no path claims */
#define RUN_F_FS 0x40		/* per filesystem type (struct fs_row) */
#define MAX_ARGV_TEXT 1024

/* What a run is: written once at the head of a record file. */
struct run_info {
	char version[32];
	char release[65];
	int buffer_head;	/* 1 y, 0 n, -1 unknown */
	bool btf;
	char hostname[65];
	/* the machine (uname -m) and its page size, in bytes: pages turn
	 * into bytes and buffer_heads into per-page figures by it */
	char machine[16];
	uint32_t page_size;
	uint64_t start_realtime_ns;
	uint64_t interval_ms;
	uint32_t nr_filter_devs;
	uint32_t filter_devs[MAX_FILTER_DEVS];
	uint32_t filter_pid;
	char cmdline[MAX_ARGV_TEXT];	/* bhprof's own argv, space-joined */
	uint32_t features;		/* RUN_F_* */
	struct probe_state probes[NR_PROBES];
	/* --callers: sizeof(struct buffer_head) in the kernel's BTF, 0 if
	 * unknown; owners and frees as they were attached */
	uint32_t bh_size;
	/* page-cache helpers that decide each file's path; 0: the
	 * filesystem table did (live runs only, not recorded) */
	uint32_t path_helpers;
	enum attach_mode callers_mode;
	char callers_detail[160];
	/* the other group's write calls: seen in this mode (none: not
	 * seen), from what, or why not */
	enum attach_mode other_mode;
	char other_detail[160];
};

const char *probe_name(enum probe_id id);
enum bhp_group probe_group_of(enum probe_id id);
/* "absent", "failed" or the attach mode's name */
const char *probe_state_text(const struct probe_state *ps);
/* "ext4_read_folio [ext4]" for a module's function, else the function */
const char *probe_func_text(const struct probe_state *ps, char *buf,
			    size_t len);

/*
 * What a run's figures rest on. A figure whose probe group failed is
 * unknown, never zero; stat, report, diff, top and gate ask here.
 */
enum figure {
	FIG_WRITE,	/* write and O_DIRECT calls, bytes, latency */
	FIG_WB_CALLS,	/* writeback calls and latency (not in tracepoints) */
	FIG_WB_PAGES,	/* pages written back */
	FIG_WB_ENGINES,	/* the engines' calls under them (not either) */
	FIG_PATH_BIOS,	/* bios per path: needs the contexts as well */
	FIG_BIOS,	/* bios per device and in all */
	FIG_BH,		/* buffer_head allocations per path: contexts too */
	FIG_BH_TOTAL,	/* buffer_head allocations in all */
	FIG_READ,	/* read_folio/readahead calls (tracepoints: iomap's) */
	FIG_READ_LAT,	/* ... their latency (not in tracepoints) */
	FIG_READ_PAGES,	/* pages they read */
	FIG_READ_BIOS,	/* read bios per path: the read context too */
	FIG_READ_DEV,	/* read bios per device and in all */
	FIG_READ_BH,	/* buffer_heads allocated while reading */
	FIG_MKWRITE,	/* page_mkwrite faults, latency (not in tracepoints) */
	FIG_DWF,	/* direct-write fallbacks (6.6+, not in tracepoints) */
	FIG_PASSES,	/* writeback passes over an inode, latency (every
			 * mode: the pass group is always tracepoints) */
	FIG_CALLERS,	/* --callers: frees, the alive peak */
	FIG_OWNERS,	/* --callers: owners and roles (not in tracepoints) */
};

bool figure_known(const struct run_info *info, unsigned int path,
		  enum figure f);
/* why a figure is unknown: "failed" (its group was lost), "absent" (no
 * such function before some kernel), "n/a" (the attach mode cannot see
 * it), "unrecorded" (an older bhprof wrote the file); NULL if known */
const char *figure_why(const struct run_info *info, unsigned int path,
		       enum figure f);
/* the other group's figures: files on neither path, unclaimed bios */
enum other_part {
	OTHER_WRITE,	/* write and O_DIRECT calls, bytes */
	OTHER_WB,	/* writeback calls and pages (do_writepages) */
	OTHER_BIOS,	/* bios no path claims */
};

/* why a figure of the other group is unknown, as figure_why(); NULL if
 * known */
const char *other_why(const struct run_info *info, enum other_part part);
/* why figure f of a filesystem's row on path is unknown: its path's,
 * or the other group's; NULL if known */
const char *fs_why(const struct run_info *info, unsigned int path,
		   enum figure f);
/* the groups lost in a run, as "bio, bh_alloc" ("" if none) */
const char *lost_groups_text(const struct run_info *info, char *buf,
			     size_t len);
const char *group_name(enum bhp_group g);
const char *mode_name(enum attach_mode m);
int mode_parse(const char *s, enum attach_mode *m);
const char *path_name(unsigned int path);

/* b - a, counter by counter; b must be the later snapshot. */
void snapshot_delta(const struct snapshot *a, const struct snapshot *b,
		    struct snapshot *out);
void snapshot_add(struct snapshot *acc, const struct snapshot *d);
int caller_key_cmp(const struct bhp_caller_key *a,
		   const struct bhp_caller_key *b);
/* for qsort() of struct caller_row: rows are kept in key order */
int caller_row_cmp(const void *a, const void *b);
/* The row of program name in rows[*n], added as zeros if new; NULL when
 * all max are taken. */
struct self_prog *self_prog_row(struct self_prog *rows, uint32_t *n,
				uint32_t max, const char *name);
/* rows[*n] += the n_add rows of add, by name */
void self_progs_add(struct self_prog *rows, uint32_t *n,
		    const struct self_prog *add, uint32_t n_add);
/* rows[n] -= the n_sub rows of sub, by name; a name not in rows is
 * passed over (a program new since sub counts from zero) */
void self_progs_sub(struct self_prog *rows, uint32_t n,
		    const struct self_prog *sub, uint32_t n_sub);

#endif /* BHPROF_SNAPSHOT_H */
