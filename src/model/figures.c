// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The figures of a path summary, once for every output. The order is
 * every output's: the text and HTML tables show their rows in it, diff
 * and the gate list their metrics in it, and a path's JSON writes its
 * members in it, so the members of one JSON object stay together.
 *
 * A new figure is one entry here (and, if the summary does not hold it
 * yet, a member of struct path_summary or a function of one).
 */
#include <string.h>
#include "figures.h"
#include "util/array.h"

#define U(m) FT_U64, offsetof(struct path_summary, m), NULL
#define D(m) FT_DOUBLE, offsetof(struct path_summary, m), NULL
#define F(fn) FT_FN, 0, fn
/* a distribution: JSON's object of count, p50, p90, p99, max and mean */
#define DIST(json, m, unit, fig, smp, prom)                                \
	{ NULL, NULL, json, NULL, NULL, unit, FT_DIST,                      \
	  offsetof(struct path_summary, m), NULL, fig, smp, FW_NEVER, prom }

/* /metrics: a counter per path, labelled l="v" too (figures.h) ... */
#define PROM(fam, help) PROM_L(fam, help, NULL, NULL)
#define PROM_L(fam, help, l, v) PROM_HIST(fam, help, l, v, 0)
/* ... a histogram of hist, its sum estimated from the buckets ... */
#define PROM_HIST(fam, help, l, v, h)                                      \
	(&(const struct figure_prom){ fam, help, l, v, h, 0 })
/* ... or a histogram whose sum the counter sum_m holds */
#define PROM_SUMMED(fam, help, l, v, h, sum_m)                             \
	(&(const struct figure_prom){ fam, help, l, v, h,                   \
				      offsetof(struct path_summary, sum_m) })

/* bh writes back a folio a call, iomap a whole range of an inode */
static double wb_pages_per_call(const struct path_summary *p)
{
	return p->c.wb_calls ? (double)p->c.wb_pages / p->c.wb_calls : 0;
}

/* an engine's calls under a path's writeback calls, by its function */
#define ENGINE_HELP                                                        \
	"Calls of each writeback engine inside the writeback calls, per "   \
	"path (absent in tracepoint mode)."
#define ENGINE(fn, m)                                                      \
	{ "writeback.engines." fn, NULL, "writeback.engines." fn, "  " fn,  \
	  "writeback engine " fn, U_COUNT, U(c.m), FIG_WB_ENGINES,          \
	  SAMPLE_COUNT, FW_WB_NONZERO,                                     \
	  PROM_L("bhprof_writeback_engine_calls", ENGINE_HELP, "engine", fn) }

/* the families of write calls, split by io */
#define WRITE_CALLS_HELP                                                   \
	"Write calls that returned, per path (other: files on neither) "   \
	"and io (buffered or O_DIRECT)."
#define WRITE_BYTES_HELP "Bytes written by write calls, per path and io."
#define WRITE_LAT_HELP "Write call latency, per path and io."

/* the whole run's figures, in the gate's any. alone (callers_any()) */
static double bh_outside_per_mib(const struct path_summary *p)
{
	double mib = (p->c.write_bytes + p->c.dio_bytes) / 1048576.0;

	if (mib <= 0)
		mib = p->c.bio_bytes / 1048576.0;
	return mib > 0 ? p->bh_outside / mib : 0;
}

static double bh_alive_peak(const struct path_summary *p)
{
	return (double)p->bh_alive_peak;
}

static double bh_data(const struct path_summary *p)
{
	return p->bh_role[0];
}

static double bh_metadata(const struct path_summary *p)
{
	return p->bh_role[1];
}

static double bh_journal(const struct path_summary *p)
{
	return p->bh_role[2];
}

const struct figure_def figure_defs[] = {
	/* buffered and O_DIRECT calls: what the writers asked for */
	{ "write.calls", "write_calls", "write.calls", "write calls",
	  "write calls", U_COUNT, U(c.write_calls), FIG_WRITE, SAMPLE_COUNT,
	  FW_ALWAYS, PROM_L("bhprof_write_calls", WRITE_CALLS_HELP, "io",
			    "buffered") },
	{ "write.bytes", "write_bytes", "write.bytes", "write bytes",
	  "write bytes", U_BYTES, U(c.write_bytes), FIG_WRITE, SAMPLE_COUNT,
	  FW_ALWAYS, PROM_L("bhprof_write_bytes", WRITE_BYTES_HELP, "io",
			    "buffered") },
	{ NULL, NULL, "write.errors", "write errors", NULL, U_COUNT,
	  U(c.write_errors), FIG_WRITE, SAMPLE_COUNT, FW_ERRORS,
	  PROM("bhprof_write_errors",
	       "Write calls that returned an error, per path.") },
	/* buffered and O_DIRECT together: what the writers achieved */
	{ "write.mb_per_s", "write_mb_per_s", "write.mb_per_s",
	  "written MiB/s", "write MiB/s", U_RATE, D(write_mbps), FIG_WRITE,
	  SAMPLE_COUNT, FW_ALWAYS, NULL },
	DIST("write.lat_ns", write_lat, U_NS, FIG_WRITE, SAMPLE_WRITE,
	     PROM_HIST("bhprof_write_latency_seconds", WRITE_LAT_HELP, "io",
		      "buffered", HIST_WRITE_LAT)),
	{ "write.lat.p50", "write_lat_p50_ns", NULL, "write lat p50",
	  "write latency p50", U_NS, U(write_lat.p50), FIG_WRITE,
	  SAMPLE_WRITE, FW_KNOWN, NULL },
	{ "write.lat.p90", NULL, NULL, "write lat p90", NULL, U_NS,
	  U(write_lat.p90), FIG_WRITE, SAMPLE_WRITE, FW_NEVER, NULL },
	{ "write.lat.p99", "write_lat_p99_ns", NULL, "write lat p99",
	  "write latency p99", U_NS, U(write_lat.p99), FIG_WRITE,
	  SAMPLE_WRITE, FW_KNOWN, NULL },
	{ "write.lat.max", "write_lat_max_ns", NULL, "write lat max",
	  "write latency max", U_NS, U(write_lat.max), FIG_WRITE,
	  SAMPLE_WRITE, FW_KNOWN, NULL },
	{ "write.lat.mean", NULL, NULL, "write lat mean", NULL, U_NS,
	  D(write_lat.mean), FIG_WRITE, SAMPLE_WRITE, FW_NEVER, NULL },
	/* the O_DIRECT rows only where there was O_DIRECT */
	{ NULL, NULL, "direct.calls", "direct calls", NULL, U_COUNT,
	  U(c.dio_calls), FIG_WRITE, SAMPLE_COUNT, FW_DIO,
	  PROM_L("bhprof_write_calls", WRITE_CALLS_HELP, "io", "direct") },
	{ NULL, NULL, "direct.bytes", "direct bytes", NULL, U_BYTES,
	  U(c.dio_bytes), FIG_WRITE, SAMPLE_COUNT, FW_DIO,
	  PROM_L("bhprof_write_bytes", WRITE_BYTES_HELP, "io", "direct") },
	DIST("direct.lat_ns", dio_lat, U_NS, FIG_WRITE, SAMPLE_DIO,
	     PROM_HIST("bhprof_write_latency_seconds", WRITE_LAT_HELP, "io",
		      "direct", HIST_DIO_LAT)),
	{ "direct.lat.p50", NULL, NULL, "direct lat p50", NULL, U_NS,
	  U(dio_lat.p50), FIG_WRITE, SAMPLE_DIO, FW_DIO, NULL },
	{ "direct.lat.p99", NULL, NULL, "direct lat p99", NULL, U_NS,
	  U(dio_lat.p99), FIG_WRITE, SAMPLE_DIO, FW_DIO, NULL },
	{ NULL, NULL, NULL, "direct lat max", NULL, U_NS, U(dio_lat.max),
	  FIG_WRITE, SAMPLE_DIO, FW_DIO, NULL },
	/* writeback: do_writepages() calls over the path's mappings, the
	 * pages they wrote, the engines under them, and passes over an inode */
	{ NULL, NULL, "writeback.calls", "writeback calls", NULL, U_COUNT,
	  U(c.wb_calls), FIG_WB_CALLS, SAMPLE_COUNT, FW_WB_CALLS,
	  PROM("bhprof_writeback_calls",
	       "Writeback calls (do_writepages over a mapping), per path "
	       "(absent in tracepoint mode).") },
	{ "writeback.pages", "wb_pages", "writeback.pages", "writeback pages",
	  "writeback pages", U_COUNT, U(c.wb_pages), FIG_WB_PAGES,
	  SAMPLE_COUNT, FW_ALWAYS,
	  PROM("bhprof_writeback_pages", "Pages handed to writeback, per path.") },
	{ "writeback.pages_per_call", "wb_pages_per_call",
	  "writeback.pages_per_call", "wb pages/call",
	  "writeback pages per call", U_RATIO, F(wb_pages_per_call),
	  FIG_WB_CALLS, SAMPLE_WB, FW_WB_CALLS, NULL },
	DIST("writeback.lat_ns", wb_lat, U_NS, FIG_WB_CALLS, SAMPLE_WB,
	     PROM_HIST("bhprof_writeback_latency_seconds",
		      "Writeback call latency, per path (absent in tracepoint mode).",
		      NULL, NULL, HIST_WB_LAT)),
	{ "writeback.lat.p50", NULL, NULL, "writeback lat p50", NULL, U_NS,
	  U(wb_lat.p50), FIG_WB_CALLS, SAMPLE_WB, FW_WB_CALLS, NULL },
	{ "writeback.lat.p99", NULL, NULL, "writeback lat p99", NULL, U_NS,
	  U(wb_lat.p99), FIG_WB_CALLS, SAMPLE_WB, FW_WB_CALLS, NULL },
	{ NULL, NULL, NULL, "writeback lat max", NULL, U_NS, U(wb_lat.max),
	  FIG_WB_CALLS, SAMPLE_WB, FW_WB_CALLS, NULL },
	/* the engines under them: a detail of each path's writeback */
	ENGINE("block_write_full_folio", wb_eng_folio),
	ENGINE("mpage_writepages", wb_eng_mpage),
	ENGINE("ext4_writepages", wb_eng_ext4),
	ENGINE("iomap_writepages", wb_eng_iomap),
	{ "writeback.passes", "wb_passes", "writeback.passes",
	  "writeback passes", "writeback passes", U_COUNT, U(c.wb_passes),
	  FIG_PASSES, SAMPLE_COUNT, FW_ALWAYS,
	  PROM("bhprof_writeback_passes",
	       "Writeback passes over an inode, per path.") },
	DIST("writeback.pass_lat_ns", pass_lat, U_NS, FIG_PASSES, SAMPLE_PASS,
	     PROM_HIST("bhprof_writeback_pass_latency_seconds",
		      "Writeback pass latency, per path.", NULL, NULL,
		      HIST_PASS_LAT)),
	{ "writeback.pass.lat.p50", "wb_pass_lat_p50_ns", NULL,
	  "pass lat p50", NULL, U_NS, U(pass_lat.p50), FIG_PASSES,
	  SAMPLE_PASS, FW_KNOWN, NULL },
	{ "writeback.pass.lat.p99", "wb_pass_lat_p99_ns", NULL,
	  "pass lat p99", "pass latency p99", U_NS, U(pass_lat.p99),
	  FIG_PASSES, SAMPLE_PASS, FW_KNOWN, NULL },
	{ NULL, NULL, NULL, "pass lat max", NULL, U_NS, U(pass_lat.max),
	  FIG_PASSES, SAMPLE_PASS, FW_KNOWN, NULL },
	/* the path's write bios */
	{ "bio.count", "bio_count", "bio.count", "bios", "bios", U_COUNT,
	  U(c.bio_count), FIG_PATH_BIOS, SAMPLE_COUNT, FW_ALWAYS, NULL },
	{ NULL, NULL, "bio.bytes", "bio bytes", NULL, U_BYTES, U(c.bio_bytes),
	  FIG_PATH_BIOS, SAMPLE_COUNT, FW_ALWAYS, NULL },
	{ "bio.mb_per_s", "bio_mb_per_s", "bio.mb_per_s", "bio MiB/s",
	  "bio MiB/s", U_RATE, D(bio_mbps), FIG_PATH_BIOS, SAMPLE_COUNT,
	  FW_NEVER, NULL },
	/* /metrics has the bios with their path "none" (promfmt.c) */
	DIST("bio.size_bytes", bio_size, U_BYTES, FIG_PATH_BIOS, SAMPLE_BIO,
	     NULL),
	{ "bio.size.p50", "bio_size_p50", NULL, "bio size p50",
	  "bio size p50", U_BYTES, U(bio_size.p50), FIG_PATH_BIOS, SAMPLE_BIO,
	  FW_ALWAYS, NULL },
	{ "bio.size.p90", NULL, NULL, "bio size p90", NULL, U_BYTES,
	  U(bio_size.p90), FIG_PATH_BIOS, SAMPLE_BIO, FW_NEVER, NULL },
	{ "bio.size.p99", "bio_size_p99", NULL, "bio size p99",
	  "bio size p99", U_BYTES, U(bio_size.p99), FIG_PATH_BIOS, SAMPLE_BIO,
	  FW_ALWAYS, NULL },
	{ "bio.size.mean", "bio_size_mean", NULL, "bio size mean",
	  "mean bio size", U_BYTES, D(mean_bio), FIG_PATH_BIOS, SAMPLE_BIO,
	  FW_NEVER, NULL },
	{ NULL, NULL, NULL, "bio size max", NULL, U_BYTES, U(bio_size.max),
	  FIG_PATH_BIOS, SAMPLE_BIO, FW_ALWAYS, NULL },
	/* buffer_heads: in all, per MiB written (1 MiB at least), per call */
	{ "bh_alloc", "bh_alloc", "bh_alloc", "bh allocations",
	  "bh allocations", U_COUNT, U(c.bh_alloc), FIG_BH, SAMPLE_COUNT,
	  FW_ALWAYS, NULL },
	{ "bh_alloc_per_mib", "bh_per_mib", "bh_per_mib", "bh per MiB",
	  "bh allocations per MiB", U_RATIO, D(bh_per_mib), FIG_BH, SAMPLE_MIB,
	  FW_ALWAYS, NULL },
	/* bios per MiB written, by the same rule as buffer_heads per MiB */
	{ "bios_per_mib", NULL, "bios_per_mib", "bios per MiB",
	  "bios per MiB", U_RATIO, D(bios_per_mib), FIG_PATH_BIOS, SAMPLE_MIB,
	  FW_ALWAYS, NULL },
	{ "bh_alloc_per_call", NULL, "bh_per_write_call", "bh per write call",
	  "bh allocations per write call", U_RATIO, D(bh_per_call), FIG_BH,
	  SAMPLE_CALL, FW_ALWAYS, NULL },
	{ "bh_alloc_per_page", NULL, "bh_per_wb_page", "bh per wb page",
	  "bh allocations per writeback page", U_RATIO, D(bh_per_page), FIG_BH,
	  SAMPLE_PAGE, FW_ALWAYS, NULL },
	/* reads, page_mkwrite faults and direct-write fallbacks: what the
	 * comparison of the paths needs besides write calls and writeback */
	{ "read.calls", "read_calls", "read.calls", "read calls", "read calls",
	  U_COUNT, U(c.read_calls), FIG_READ, SAMPLE_COUNT, FW_ALWAYS,
	  PROM("bhprof_read_calls",
	       "Read calls (read_folio and readahead), per path.") },
	{ "read.pages", "read_pages", "read.pages", "read pages", "read pages",
	  U_COUNT, U(c.read_pages), FIG_READ_PAGES, SAMPLE_COUNT, FW_ALWAYS,
	  PROM("bhprof_read_pages", "Pages the read calls asked for, per path.") },
	DIST("read.lat_ns", read_lat, U_NS, FIG_READ_LAT, SAMPLE_READ,
	     PROM_HIST("bhprof_read_latency_seconds",
		      "Read call latency, per path.", NULL, NULL,
		      HIST_READ_LAT)),
	{ "read.lat.p50", "read_lat_p50_ns", NULL, "read lat p50", NULL, U_NS,
	  U(read_lat.p50), FIG_READ_LAT, SAMPLE_READ, FW_KNOWN, NULL },
	{ "read.lat.p99", "read_lat_p99_ns", NULL, "read lat p99", NULL, U_NS,
	  U(read_lat.p99), FIG_READ_LAT, SAMPLE_READ, FW_KNOWN, NULL },
	{ NULL, NULL, NULL, "read lat max", NULL, U_NS, U(read_lat.max),
	  FIG_READ_LAT, SAMPLE_READ, FW_KNOWN, NULL },
	{ "read.bio.count", "read_bio_count", "read_bio.count", "read bios",
	  "read bios", U_COUNT, U(c.read_bio_count), FIG_READ_BIOS,
	  SAMPLE_COUNT, FW_ALWAYS,
	  PROM("bhprof_read_bios", "Read bios on the watched devices, per path.") },
	{ "read.bio.bytes", "read_bio_bytes", "read_bio.bytes",
	  "read bio bytes", NULL, U_BYTES, U(c.read_bio_bytes), FIG_READ_BIOS,
	  SAMPLE_COUNT, FW_ALWAYS,
	  PROM("bhprof_read_bio_bytes",
	       "Bytes of read bios on the watched devices, per path.") },
	{ NULL, NULL, "read_bio.mb_per_s", "read bio MiB/s", NULL, U_RATE,
	  D(read_bio_mbps), FIG_READ_BIOS, SAMPLE_COUNT, FW_NEVER, NULL },
	DIST("read_bio.size_bytes", read_bio_size, U_BYTES, FIG_READ_BIOS,
	     SAMPLE_READ_BIO,
	     PROM_SUMMED("bhprof_read_bio_size_bytes", "Read bio size, per path.",
		    NULL, NULL, HIST_READ_BIO_SIZE, c.read_bio_bytes)),
	{ "read.bio.size.p50", "read_bio_size_p50", NULL, "read bio size p50",
	  "read bio size p50", U_BYTES, U(read_bio_size.p50), FIG_READ_BIOS,
	  SAMPLE_READ_BIO, FW_ALWAYS, NULL },
	{ "read.bio.size.p99", "read_bio_size_p99", NULL, "read bio size p99",
	  NULL, U_BYTES, U(read_bio_size.p99), FIG_READ_BIOS, SAMPLE_READ_BIO,
	  FW_NEVER, NULL },
	{ NULL, NULL, NULL, "read bio size max", NULL, U_BYTES,
	  U(read_bio_size.max), FIG_READ_BIOS, SAMPLE_READ_BIO, FW_ALWAYS, NULL },
	{ "read.bios_per_mib", "read_bios_per_mib", NULL, "read bios per MiB",
	  NULL, U_RATIO, D(read_bios_per_mib), FIG_READ_BIOS, SAMPLE_READ_MIB,
	  FW_NEVER, NULL },
	{ "read.bh_alloc", "read_bh_alloc", "read_bh_alloc",
	  "read bh allocations", "read bh allocations", U_COUNT,
	  U(c.read_bh_alloc), FIG_READ_BH, SAMPLE_COUNT, FW_ALWAYS,
	  PROM("bhprof_read_buffer_heads_allocated",
	       "buffer_head allocations of read calls, per path.") },
	{ "mkwrite.calls", "mkwrite_calls", "mkwrite.calls", "mkwrite faults",
	  "page_mkwrite faults", U_COUNT, U(c.mkwrite_calls), FIG_MKWRITE,
	  SAMPLE_COUNT, FW_ALWAYS,
	  PROM("bhprof_mkwrite_faults",
	       "page_mkwrite faults of shared mappings, per path.") },
	DIST("mkwrite.lat_ns", mkwrite_lat, U_NS, FIG_MKWRITE, SAMPLE_MKWRITE,
	     PROM_HIST("bhprof_mkwrite_latency_seconds",
		      "page_mkwrite latency, per path.", NULL, NULL,
		      HIST_MKWRITE_LAT)),
	{ "mkwrite.lat.p50", "mkwrite_lat_p50_ns", NULL, "mkwrite lat p50",
	  NULL, U_NS, U(mkwrite_lat.p50), FIG_MKWRITE, SAMPLE_MKWRITE,
	  FW_MKWRITE, NULL },
	{ "mkwrite.lat.p99", "mkwrite_lat_p99_ns", NULL, "mkwrite lat p99",
	  NULL, U_NS, U(mkwrite_lat.p99), FIG_MKWRITE, SAMPLE_MKWRITE,
	  FW_MKWRITE, NULL },
	{ NULL, NULL, NULL, "mkwrite lat max", NULL, U_NS,
	  U(mkwrite_lat.max), FIG_MKWRITE, SAMPLE_MKWRITE, FW_MKWRITE, NULL },
	{ "dio_fallback.calls", "dio_fallback_calls", "dio_fallback.calls",
	  "direct fallbacks", "O_DIRECT fallbacks", U_COUNT, U(c.dwf_calls),
	  FIG_DWF, SAMPLE_COUNT, FW_ALWAYS,
	  PROM("bhprof_direct_fallback_calls",
	       "O_DIRECT writes that fell back to buffered I/O, per path.") },
	{ "dio_fallback.bytes", "dio_fallback_bytes", "dio_fallback.bytes",
	  "fallback bytes", NULL, U_BYTES, U(c.dwf_bytes), FIG_DWF,
	  SAMPLE_COUNT, FW_ALWAYS,
	  PROM("bhprof_direct_fallback_bytes",
	       "Bytes of the O_DIRECT writes that fell back, per path.") },
	/* the whole run's; the last three and the peak need --callers */
	{ "bh.outside_per_mib", NULL, NULL, "bh outside per MiB", NULL,
	  U_RATIO, F(bh_outside_per_mib), FIG_BH_TOTAL, SAMPLE_MIB, FW_NEVER, NULL },
	{ "bh.alive_peak", NULL, NULL, "bh alive peak", NULL, U_COUNT,
	  F(bh_alive_peak), FIG_CALLERS, SAMPLE_COUNT, FW_NEVER, NULL },
	{ "bh.alloc.data", NULL, NULL, "bh data", NULL, U_COUNT, F(bh_data),
	  FIG_OWNERS, SAMPLE_COUNT, FW_NEVER, NULL },
	{ "bh.alloc.metadata", NULL, NULL, "bh metadata", NULL, U_COUNT,
	  F(bh_metadata), FIG_OWNERS, SAMPLE_COUNT, FW_NEVER, NULL },
	{ "bh.alloc.journal", NULL, NULL, "bh journal", NULL, U_COUNT,
	  F(bh_journal), FIG_OWNERS, SAMPLE_COUNT, FW_NEVER, NULL },
};

const size_t nr_figure_defs = ARRAY_SIZE(figure_defs);

double figure_value(const struct figure_def *d, const struct path_summary *p)
{
	const char *at = (const char *)p + d->off;

	switch (d->type) {
	case FT_U64:
		return (double)*(const uint64_t *)at;
	case FT_DOUBLE:
		return *(const double *)at;
	case FT_FN:
		return d->fn(p);
	default:
		return 0;
	}
}

bool figure_whole(const struct figure_def *d)
{
	return d->type == FT_U64 || (d->type == FT_FN && d->unit == U_COUNT);
}

const struct figure_def *figure_find(const char *name)
{
	for (size_t i = 0; i < nr_figure_defs; i++)
		if (figure_defs[i].name && !strcmp(figure_defs[i].name, name))
			return &figure_defs[i];
	return NULL;
}

/*
 * The figures a filesystem's row has too: its counters, each with its
 * /metrics family per filesystem, and the rates of them alone (NULL), by
 * their JSON key.
 */
static const struct {
	const char *json, *family;
} fs_figures[] = {
	{ "write.calls", "bhprof_fs_write_calls" },
	{ "write.bytes", "bhprof_fs_write_bytes" },
	{ "write.mb_per_s", NULL },
	{ "direct.calls", "bhprof_fs_write_calls" },
	{ "direct.bytes", "bhprof_fs_write_bytes" },
	{ "writeback.calls", "bhprof_fs_writeback_calls" },
	{ "writeback.pages", "bhprof_fs_writeback_pages" },
	{ "bio.count", "bhprof_fs_bios" },
	{ "bio.bytes", "bhprof_fs_bio_bytes" },
	{ "bio.mb_per_s", NULL },
	{ "bh_alloc", "bhprof_fs_buffer_heads_allocated" },
	{ "bh_per_mib", NULL },
	{ "bios_per_mib", NULL },
	{ "bh_per_write_call", NULL },
	{ "bh_per_wb_page", NULL },
};

static int fs_figure(const struct figure_def *d)
{
	for (size_t i = 0; d->json && i < ARRAY_SIZE(fs_figures); i++)
		if (!strcmp(fs_figures[i].json, d->json))
			return (int)i;
	return -1;
}

bool figure_per_fs(const struct figure_def *d)
{
	return fs_figure(d) >= 0;
}

const char *figure_fs_family(const struct figure_def *d)
{
	int i = fs_figure(d);

	return i < 0 ? NULL : fs_figures[i].family;
}

bool figure_any_only(const struct figure_def *d)
{
	return d->name && !strncmp(d->name, "bh.", 3);
}

/* does either path's mode see writeback calls? */
static bool wb_calls_seen(const struct run_info *info)
{
	return figure_known(info, PATH_BH, FIG_WB_CALLS) ||
	       figure_known(info, PATH_IOMAP, FIG_WB_CALLS);
}

bool figure_shows(const struct figure_def *d, const struct run_info *info,
		  const struct path_summary *a, const struct path_summary *b)
{
	switch (d->when) {
	case FW_NEVER:
		return false;
	case FW_KNOWN:
		return figure_known(info, PATH_BH, d->fig);
	case FW_DIO:
		return a->c.dio_calls || b->c.dio_calls;
	case FW_ERRORS:
		return a->c.write_errors || b->c.write_errors;
	case FW_WB_CALLS:
		return wb_calls_seen(info);
	case FW_WB_NONZERO:
		return wb_calls_seen(info) &&
		       (figure_value(d, a) || figure_value(d, b));
	case FW_MKWRITE:
		return figure_known(info, PATH_BH, FIG_MKWRITE) &&
		       (a->c.mkwrite_calls || b->c.mkwrite_calls);
	default:
		return true;
	}
}
