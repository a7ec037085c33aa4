// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "metrics.h"
#include "output/output.h"

#define GET(name, expr)                                                  \
	static double name(const struct path_summary *p)                  \
	{                                                                 \
		return (double)(expr);                                    \
	}

GET(m_write_calls, p->c.write_calls)
GET(m_write_bytes, p->c.write_bytes)
GET(m_write_mbps, p->write_mbps)
GET(m_lat_p50, p->write_lat.p50)
GET(m_lat_p90, p->write_lat.p90)
GET(m_lat_p99, p->write_lat.p99)
GET(m_lat_max, p->write_lat.max)
GET(m_lat_mean, p->write_lat.mean)
GET(m_dio_p50, p->dio_lat.p50)
GET(m_dio_p99, p->dio_lat.p99)
GET(m_wb_p50, p->wb_lat.p50)
GET(m_wb_p99, p->wb_lat.p99)
GET(m_wb_pages, p->c.wb_pages)
GET(m_bios, p->c.bio_count)
GET(m_bio_mbps, p->bio_mbps)
GET(m_bio_mean, p->mean_bio)
GET(m_bio_p50, p->bio_size.p50)
GET(m_bio_p90, p->bio_size.p90)
GET(m_bio_p99, p->bio_size.p99)
GET(m_bh_alloc, p->c.bh_alloc)
GET(m_bh_per_mib, p->bh_per_mib)
/* bios per MiB written, by the same rule as buffer_heads per MiB */
GET(m_bios_per_mib, p->bios_per_mib)
GET(m_bh_per_call, p->bh_per_call)
GET(m_bh_per_page, p->bh_per_page)

GET(m_read_calls, p->c.read_calls)
GET(m_read_pages, p->c.read_pages)
GET(m_read_p50, p->read_lat.p50)
GET(m_read_p99, p->read_lat.p99)
GET(m_read_bios, p->c.read_bio_count)
GET(m_read_bio_bytes, p->c.read_bio_bytes)
GET(m_read_bio_p50, p->read_bio_size.p50)
GET(m_read_bio_p99, p->read_bio_size.p99)
GET(m_read_bios_per_mib, p->read_bios_per_mib)
GET(m_read_bh, p->c.read_bh_alloc)
GET(m_mkwrite_calls, p->c.mkwrite_calls)
GET(m_mkwrite_p50, p->mkwrite_lat.p50)
GET(m_mkwrite_p99, p->mkwrite_lat.p99)
GET(m_dwf_calls, p->c.dwf_calls)
GET(m_dwf_bytes, p->c.dwf_bytes)
GET(m_passes, p->c.wb_passes)
GET(m_pass_p50, p->pass_lat.p50)
GET(m_pass_p99, p->pass_lat.p99)

/* diff prints those with a key, in this order */
/* whole-run figures: gate's any. only (callers_any() fills them) */
static double m_bh_outside_per_mib(const struct path_summary *p)
{
	double mib = (p->c.write_bytes + p->c.dio_bytes) / 1048576.0;

	if (mib <= 0)
		mib = p->c.bio_bytes / 1048576.0;
	return mib > 0 ? p->bh_outside / mib : 0;
}

static double m_bh_alive_peak(const struct path_summary *p)
{
	return (double)p->bh_alive_peak;
}

static double m_bh_data(const struct path_summary *p)
{
	return p->bh_role[0];
}

static double m_bh_metadata(const struct path_summary *p)
{
	return p->bh_role[1];
}

static double m_bh_journal(const struct path_summary *p)
{
	return p->bh_role[2];
}

const struct metric metrics[] = {
	{ "write.calls", "write_calls", "write calls", U_COUNT, m_write_calls, true, FIG_WRITE, SAMPLE_COUNT },
	{ "write.bytes", "write_bytes", "write bytes", U_BYTES, m_write_bytes, true, FIG_WRITE, SAMPLE_COUNT },
	{ "write.mb_per_s", "write_mb_per_s", "write MiB/s", U_RATE, m_write_mbps, false, FIG_WRITE, SAMPLE_COUNT },
	{ "write.lat.p50", "write_lat_p50_ns", "write lat p50", U_NS, m_lat_p50, true, FIG_WRITE, SAMPLE_WRITE },
	{ "write.lat.p99", "write_lat_p99_ns", "write lat p99", U_NS, m_lat_p99, true, FIG_WRITE, SAMPLE_WRITE },
	{ "write.lat.max", "write_lat_max_ns", "write lat max", U_NS, m_lat_max, true, FIG_WRITE, SAMPLE_WRITE },
	{ "writeback.pages", "wb_pages", "writeback pages", U_COUNT, m_wb_pages, true, FIG_WB_PAGES, SAMPLE_COUNT },
	{ "bio.count", "bio_count", "bios", U_COUNT, m_bios, true, FIG_PATH_BIOS, SAMPLE_COUNT },
	{ "bio.mb_per_s", "bio_mb_per_s", "bio MiB/s", U_RATE, m_bio_mbps, false, FIG_PATH_BIOS, SAMPLE_COUNT },
	{ "bio.size.mean", "bio_size_mean", "bio size mean", U_BYTES, m_bio_mean, false, FIG_PATH_BIOS, SAMPLE_BIO },
	{ "bio.size.p50", "bio_size_p50", "bio size p50", U_BYTES, m_bio_p50, true, FIG_PATH_BIOS, SAMPLE_BIO },
	{ "bio.size.p99", "bio_size_p99", "bio size p99", U_BYTES, m_bio_p99, true, FIG_PATH_BIOS, SAMPLE_BIO },
	{ "bh_alloc", "bh_alloc", "bh allocations", U_COUNT, m_bh_alloc, true, FIG_BH, SAMPLE_COUNT },
	{ "bh_alloc_per_mib", "bh_per_mib", "bh per MiB", U_RATIO, m_bh_per_mib, false, FIG_BH, SAMPLE_MIB },
	{ "write.lat.p90", NULL, "write lat p90", U_NS, m_lat_p90, true, FIG_WRITE, SAMPLE_WRITE },
	{ "write.lat.mean", NULL, "write lat mean", U_NS, m_lat_mean, false, FIG_WRITE, SAMPLE_WRITE },
	{ "direct.lat.p50", NULL, "direct lat p50", U_NS, m_dio_p50, true, FIG_WRITE, SAMPLE_DIO },
	{ "direct.lat.p99", NULL, "direct lat p99", U_NS, m_dio_p99, true, FIG_WRITE, SAMPLE_DIO },
	{ "writeback.lat.p50", NULL, "writeback lat p50", U_NS, m_wb_p50, true, FIG_WB_CALLS, SAMPLE_WB },
	{ "writeback.lat.p99", NULL, "writeback lat p99", U_NS, m_wb_p99, true, FIG_WB_CALLS, SAMPLE_WB },
	{ "bio.size.p90", NULL, "bio size p90", U_BYTES, m_bio_p90, true, FIG_PATH_BIOS, SAMPLE_BIO },
	{ "bios_per_mib", NULL, "bios per MiB", U_RATIO, m_bios_per_mib, false, FIG_PATH_BIOS, SAMPLE_MIB },
	{ "bh_alloc_per_call", NULL, "bh per write call", U_RATIO, m_bh_per_call, false, FIG_BH, SAMPLE_CALL },
	{ "bh_alloc_per_page", NULL, "bh per wb page", U_RATIO, m_bh_per_page, false, FIG_BH, SAMPLE_PAGE },
	{ "read.calls", "read_calls", "read calls", U_COUNT, m_read_calls, true, FIG_READ, SAMPLE_COUNT },
	{ "read.pages", "read_pages", "read pages", U_COUNT, m_read_pages, true, FIG_READ_PAGES, SAMPLE_COUNT },
	{ "read.lat.p50", "read_lat_p50_ns", "read lat p50", U_NS, m_read_p50, true, FIG_READ_LAT, SAMPLE_READ },
	{ "read.lat.p99", "read_lat_p99_ns", "read lat p99", U_NS, m_read_p99, true, FIG_READ_LAT, SAMPLE_READ },
	{ "read.bio.count", "read_bio_count", "read bios", U_COUNT, m_read_bios, true, FIG_READ_BIOS, SAMPLE_COUNT },
	{ "read.bio.bytes", "read_bio_bytes", "read bio bytes", U_BYTES, m_read_bio_bytes, true, FIG_READ_BIOS, SAMPLE_COUNT },
	{ "read.bio.size.p50", "read_bio_size_p50", "read bio size p50", U_BYTES, m_read_bio_p50, true, FIG_READ_BIOS, SAMPLE_READ_BIO },
	{ "read.bio.size.p99", "read_bio_size_p99", "read bio size p99", U_BYTES, m_read_bio_p99, true, FIG_READ_BIOS, SAMPLE_READ_BIO },
	{ "read.bios_per_mib", "read_bios_per_mib", "read bios per MiB", U_RATIO, m_read_bios_per_mib, false, FIG_READ_BIOS, SAMPLE_READ_MIB },
	{ "read.bh_alloc", "read_bh_alloc", "read bh allocations", U_COUNT, m_read_bh, true, FIG_READ_BH, SAMPLE_COUNT },
	{ "mkwrite.calls", "mkwrite_calls", "mkwrite faults", U_COUNT, m_mkwrite_calls, true, FIG_MKWRITE, SAMPLE_COUNT },
	{ "mkwrite.lat.p50", "mkwrite_lat_p50_ns", "mkwrite lat p50", U_NS, m_mkwrite_p50, true, FIG_MKWRITE, SAMPLE_MKWRITE },
	{ "mkwrite.lat.p99", "mkwrite_lat_p99_ns", "mkwrite lat p99", U_NS, m_mkwrite_p99, true, FIG_MKWRITE, SAMPLE_MKWRITE },
	{ "dio_fallback.calls", "dio_fallback_calls", "direct fallbacks", U_COUNT, m_dwf_calls, true, FIG_DWF, SAMPLE_COUNT },
	{ "dio_fallback.bytes", "dio_fallback_bytes", "fallback bytes", U_BYTES, m_dwf_bytes, true, FIG_DWF, SAMPLE_COUNT },
	{ "writeback.passes", "wb_passes", "wb passes", U_COUNT, m_passes, true, FIG_PASSES, SAMPLE_COUNT },
	{ "writeback.pass.lat.p50", "wb_pass_lat_p50_ns", "wb pass lat p50", U_NS, m_pass_p50, true, FIG_PASSES, SAMPLE_PASS },
	{ "writeback.pass.lat.p99", "wb_pass_lat_p99_ns", "wb pass lat p99", U_NS, m_pass_p99, true, FIG_PASSES, SAMPLE_PASS },
	/* any. only; the last three and the peak need --callers */
	{ "bh.outside_per_mib", NULL, "bh outside per MiB", U_RATIO, m_bh_outside_per_mib, false, FIG_BH_TOTAL, SAMPLE_MIB },
	{ "bh.alive_peak", NULL, "bh alive peak", U_COUNT, m_bh_alive_peak, true, FIG_CALLERS, SAMPLE_COUNT },
	{ "bh.alloc.data", NULL, "bh data", U_COUNT, m_bh_data, true, FIG_OWNERS, SAMPLE_COUNT },
	{ "bh.alloc.metadata", NULL, "bh metadata", U_COUNT, m_bh_metadata, true, FIG_OWNERS, SAMPLE_COUNT },
	{ "bh.alloc.journal", NULL, "bh journal", U_COUNT, m_bh_journal, true, FIG_OWNERS, SAMPLE_COUNT },
};

const size_t nr_metrics = sizeof(metrics) / sizeof(metrics[0]);

bool metric_any_only(const struct metric *m)
{
	return !strncmp(m->name, "bh.", 3);
}

const struct metric *metric_find(const char *name)
{
	for (size_t i = 0; i < nr_metrics; i++)
		if (!strcmp(metrics[i].name, name))
			return &metrics[i];
	return NULL;
}

const char *metric_why(const struct metric *m, const struct run_info *info,
		       unsigned int path, const struct path_summary *p)
{
	return path_figure_why(info, path, p, m->fig, m->sample);
}

const char *metric_fmt(char *buf, size_t len, enum metric_unit u, double v)
{
	const char *sign = v < 0 ? "-" : "";
	double a = fabs(v);
	char t[32];

	switch (u) {
	case U_COUNT:
		snprintf(buf, len, "%s%.0f", sign, a);
		break;
	case U_BYTES:
		snprintf(buf, len, "%s%s", sign, fmt_bytes(t, sizeof(t), a));
		break;
	case U_NS:
		snprintf(buf, len, "%s%s", sign, fmt_ns(t, sizeof(t), a));
		break;
	default:
		snprintf(buf, len, "%.2f", v);
	}
	return buf;
}
