// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rows of the per-path summary, once for both tables that show it:
 * stat's and report's text, and report --html's. Each names its figure
 * and sample (what makes it unknown), where it reads from the summary,
 * and its label in each table; the order is both tables'.
 */
#include <stddef.h>
#include "rows.h"

#define U(m) offsetof(struct path_summary, m), true
#define D(m) offsetof(struct path_summary, m), false

/* p50, p99 and max of a latency: text label NAME p50, ...; html as given */
#define LAT3(name, h50, h99, hmax, m, fig, smp, when)                       \
	{ name " p50", h50, C_NS, U(m.p50), fig, smp, when },               \
	{ name " p99", h99, C_NS, U(m.p99), fig, smp, when },               \
	{ name " max", hmax, C_NS, U(m.max), fig, smp, when }

const struct summary_row summary_rows[] = {
	{ "write calls", "write calls", C_COUNT, U(c.write_calls), FIG_WRITE,
	  SAMPLE_COUNT, RW_ALWAYS },
	{ "write bytes", "write bytes", C_BYTES, U(c.write_bytes), FIG_WRITE,
	  SAMPLE_COUNT, RW_ALWAYS },
	/* buffered and O_DIRECT together: what the writers achieved */
	{ "written MiB/s", "write MiB/s", C_RATIO, D(write_mbps), FIG_WRITE,
	  SAMPLE_COUNT, RW_ALWAYS },
	LAT3("write lat", "write latency p50", "write latency p99",
	     "write latency max", write_lat, FIG_WRITE, SAMPLE_WRITE, RW_KNOWN),
	/* the O_DIRECT block only where there was O_DIRECT */
	{ "direct calls", NULL, C_COUNT, U(c.dio_calls), FIG_WRITE,
	  SAMPLE_COUNT, RW_DIO },
	{ "direct bytes", NULL, C_BYTES, U(c.dio_bytes), FIG_WRITE,
	  SAMPLE_COUNT, RW_DIO },
	LAT3("direct lat", NULL, NULL, NULL, dio_lat, FIG_WRITE, SAMPLE_DIO,
	     RW_DIO),
	{ "write errors", NULL, C_COUNT, U(c.write_errors), FIG_WRITE,
	  SAMPLE_COUNT, RW_ERRORS },
	{ "writeback calls", NULL, C_COUNT, U(c.wb_calls), FIG_WB_CALLS,
	  SAMPLE_COUNT, RW_WB_CALLS },
	{ "writeback pages", "writeback pages", C_COUNT, U(c.wb_pages),
	  FIG_WB_PAGES, SAMPLE_COUNT, RW_ALWAYS },
	LAT3("writeback lat", NULL, NULL, NULL, wb_lat, FIG_WB_CALLS,
	     SAMPLE_WB, RW_WB_CALLS),
	{ "writeback passes", "writeback passes", C_COUNT, U(c.wb_passes),
	  FIG_PASSES, SAMPLE_COUNT, RW_ALWAYS },
	LAT3("pass lat", NULL, "pass latency p99", NULL, pass_lat, FIG_PASSES,
	     SAMPLE_PASS, RW_KNOWN),
	{ "bios", "bios", C_COUNT, U(c.bio_count), FIG_PATH_BIOS, SAMPLE_COUNT,
	  RW_ALWAYS },
	{ NULL, "bio MiB/s", C_RATIO, D(bio_mbps), FIG_PATH_BIOS, SAMPLE_COUNT,
	  RW_ALWAYS },
	{ "bio bytes", NULL, C_BYTES, U(c.bio_bytes), FIG_PATH_BIOS,
	  SAMPLE_COUNT, RW_ALWAYS },
	{ "bio size p50", "bio size p50", C_BYTES, U(bio_size.p50),
	  FIG_PATH_BIOS, SAMPLE_BIO, RW_ALWAYS },
	{ "bio size p99", "bio size p99", C_BYTES, U(bio_size.p99),
	  FIG_PATH_BIOS, SAMPLE_BIO, RW_ALWAYS },
	{ NULL, "mean bio size", C_BYTES, D(mean_bio), FIG_PATH_BIOS,
	  SAMPLE_BIO, RW_ALWAYS },
	{ "bio size max", NULL, C_BYTES, U(bio_size.max), FIG_PATH_BIOS,
	  SAMPLE_BIO, RW_ALWAYS },
	/* buffer_heads: in all, per MiB written (1 MiB at least), per call */
	{ "bh allocations", "bh allocations", C_COUNT, U(c.bh_alloc), FIG_BH,
	  SAMPLE_COUNT, RW_ALWAYS },
	{ "bh per MiB", "bh allocations per MiB", C_RATIO, D(bh_per_mib),
	  FIG_BH, SAMPLE_MIB, RW_ALWAYS },
	{ "bios per MiB", "bios per MiB", C_RATIO, D(bios_per_mib),
	  FIG_PATH_BIOS, SAMPLE_MIB, RW_ALWAYS },
	{ "bh per write call", "bh allocations per write call", C_RATIO,
	  D(bh_per_call), FIG_BH, SAMPLE_CALL, RW_ALWAYS },
	{ "bh per wb page", "bh allocations per writeback page", C_RATIO,
	  D(bh_per_page), FIG_BH, SAMPLE_PAGE, RW_ALWAYS },
	/* reads, page_mkwrite faults and direct-write fallbacks: what the
	 * comparison of the paths needs besides write calls and writeback */
	{ "read calls", "read calls", C_COUNT, U(c.read_calls), FIG_READ,
	  SAMPLE_COUNT, RW_ALWAYS },
	{ "read pages", "read pages", C_COUNT, U(c.read_pages), FIG_READ_PAGES,
	  SAMPLE_COUNT, RW_ALWAYS },
	LAT3("read lat", NULL, NULL, NULL, read_lat, FIG_READ_LAT, SAMPLE_READ,
	     RW_KNOWN),
	{ "read bios", "read bios", C_COUNT, U(c.read_bio_count), FIG_READ_BIOS,
	  SAMPLE_COUNT, RW_ALWAYS },
	{ "read bio bytes", NULL, C_BYTES, U(c.read_bio_bytes), FIG_READ_BIOS,
	  SAMPLE_COUNT, RW_ALWAYS },
	{ "read bio size p50", "read bio size p50", C_BYTES,
	  U(read_bio_size.p50), FIG_READ_BIOS, SAMPLE_READ_BIO, RW_ALWAYS },
	{ "read bio size max", NULL, C_BYTES, U(read_bio_size.max),
	  FIG_READ_BIOS, SAMPLE_READ_BIO, RW_ALWAYS },
	{ "read bh allocations", "read bh allocations", C_COUNT,
	  U(c.read_bh_alloc), FIG_READ_BH, SAMPLE_COUNT, RW_ALWAYS },
	{ "mkwrite faults", "page_mkwrite faults", C_COUNT, U(c.mkwrite_calls),
	  FIG_MKWRITE, SAMPLE_COUNT, RW_ALWAYS },
	LAT3("mkwrite lat", NULL, NULL, NULL, mkwrite_lat, FIG_MKWRITE,
	     SAMPLE_MKWRITE, RW_MKWRITE),
	{ "direct fallbacks", "O_DIRECT fallbacks", C_COUNT, U(c.dwf_calls),
	  FIG_DWF, SAMPLE_COUNT, RW_ALWAYS },
	{ "fallback bytes", NULL, C_BYTES, U(c.dwf_bytes), FIG_DWF,
	  SAMPLE_COUNT, RW_ALWAYS },
};

const size_t nr_summary_rows = sizeof(summary_rows) / sizeof(summary_rows[0]);

double row_value(const struct summary_row *r, const struct path_summary *p)
{
	const char *at = (const char *)p + r->off;

	return r->u64 ? (double)*(const uint64_t *)at : *(const double *)at;
}

bool wb_calls_seen(const struct run_info *info)
{
	return figure_known(info, PATH_BH, FIG_WB_CALLS) ||
	       figure_known(info, PATH_IOMAP, FIG_WB_CALLS);
}

bool row_shows(const struct summary_row *r, const struct run_info *info,
	       const struct path_summary *a, const struct path_summary *b)
{
	switch (r->when) {
	case RW_KNOWN:
		return figure_known(info, PATH_BH, r->fig);
	case RW_DIO:
		return a->c.dio_calls || b->c.dio_calls;
	case RW_ERRORS:
		return a->c.write_errors || b->c.write_errors;
	case RW_WB_CALLS:
		return wb_calls_seen(info);
	case RW_MKWRITE:
		return figure_known(info, PATH_BH, FIG_MKWRITE) &&
		       (a->c.mkwrite_calls || b->c.mkwrite_calls);
	default:
		return true;
	}
}
