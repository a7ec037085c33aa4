// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The figures of one interval of a recording, per path, once for every
 * output. The order is report --csv's columns and the members of each
 * path of report --json's intervals; report's text table and the HTML
 * charts pick the entries they show.
 *
 * A new figure of the time series is one entry here (and, if struct
 * ts_path does not hold it yet, a member there, filled in run.c).
 */
#include <math.h>
#include "series.h"

#define V(m)                                                               \
	static double v_##m(const struct ts_row *r, unsigned int p)         \
	{                                                                  \
		return (double)r->p[p].m;                                  \
	}

V(write_calls)
V(write_bytes)
V(dio_bytes)
V(bio_count)
V(bio_bytes)
V(lat_p50)
V(lat_p99)
V(wb_pages)
V(bh_alloc)
V(read_bio_count)
V(read_bio_bytes)
V(read_pages)

/* buffered and O_DIRECT together: what the writers achieved */
static double v_write_mib_s(const struct ts_row *r, unsigned int p)
{
	return mib_per_sec(r->p[p].write_bytes + r->p[p].dio_bytes, r->secs);
}

static double v_bio_mib_s(const struct ts_row *r, unsigned int p)
{
	return mib_per_sec(r->p[p].bio_bytes, r->secs);
}

static double v_bh_per_mib(const struct ts_row *r, unsigned int p)
{
	return ts_bh_per_mib(&r->p[p]);
}

static double v_gap(const struct ts_row *r, unsigned int p)
{
	(void)p;
	return r->gap;
}

const struct series_def series_defs[NR_SERIES] = {
	[S_WRITE_CALLS] = { "write_calls", "write_calls", NULL, U_COUNT,
			    v_write_calls, TS_WRITE },
	[S_WRITE_BYTES] = { "write_bytes", "write_bytes", NULL, U_BYTES,
			    v_write_bytes, TS_WRITE },
	[S_DIRECT_BYTES] = { "direct_bytes", "direct_bytes", NULL, U_BYTES,
			     v_dio_bytes, TS_WRITE },
	[S_WRITE_MIB_S] = { "write_mib_s", "write_mb_per_s", "write MiB/s",
			    U_RATE, v_write_mib_s, TS_WRITE },
	[S_BIO_COUNT] = { "bio_count", "bio_count", "bios", U_COUNT,
			  v_bio_count, TS_BIOS },
	[S_BIO_BYTES] = { "bio_bytes", "bio_bytes", NULL, U_BYTES,
			  v_bio_bytes, TS_BIOS },
	[S_BIO_MIB_S] = { "bio_mib_s", "bio_mb_per_s", "bio MiB/s", U_RATE,
			  v_bio_mib_s, TS_BIOS },
	[S_LAT_P50] = { "write_lat_p50_ns", "write_lat_p50_ns", NULL, U_NS,
			v_lat_p50, TS_WRITE_LAT },
	[S_LAT_P99] = { "write_lat_p99_ns", "write_lat_p99_ns", "write p99",
			U_NS, v_lat_p99, TS_WRITE_LAT },
	[S_WB_PAGES] = { "wb_pages", "wb_pages", NULL, U_COUNT, v_wb_pages,
			 TS_WB },
	[S_BH_ALLOC] = { "bh_alloc", "bh_alloc", "bh allocs", U_COUNT,
			 v_bh_alloc, TS_BH },
	[S_BH_PER_MIB] = { "bh_per_mib", "bh_per_mib", NULL, U_RATIO,
			   v_bh_per_mib, TS_BH_PER_MIB },
	/* the row's, in JSON beside its paths */
	[S_FRAMES_LOST] = { "frames_lost", NULL, NULL, U_COUNT, v_gap,
			    TS_ROW },
	[S_READ_BIO_COUNT] = { "read_bio_count", "read_bio_count", NULL,
			       U_COUNT, v_read_bio_count, TS_READ_BIOS },
	[S_READ_BIO_BYTES] = { "read_bio_bytes", "read_bio_bytes", NULL,
			       U_BYTES, v_read_bio_bytes, TS_READ_BIOS },
	[S_READ_PAGES] = { "read_pages", "read_pages", NULL, U_COUNT,
			   v_read_pages, TS_READ_PAGES },
};

const char *series_why(enum series_id id, const struct ts_row *r,
		       const struct run_info *in, unsigned int path)
{
	const struct ts_path *tp = &r->p[path];

	switch (series_defs[id].fig) {
	case TS_ROW:
		return NULL;
	case TS_WRITE:
		return figure_why(in, path, FIG_WRITE);
	case TS_WRITE_LAT:
		return figure_why(in, path, FIG_WRITE) ?:
		       tp->write_calls ? NULL : "no write call in the interval";
	case TS_BIOS:
		return figure_why(in, path, FIG_PATH_BIOS);
	case TS_WB:
		return figure_why(in, path, FIG_WB_PAGES);
	case TS_BH:
		return figure_why(in, path, FIG_BH);
	case TS_BH_PER_MIB:
		return figure_why(in, path, FIG_BH) ?:
		       isfinite(ts_bh_per_mib(tp)) ? NULL :
		       "under 1 MiB written in the interval";
	case TS_READ_BIOS:
		return figure_why(in, path, FIG_READ_BIOS);
	case TS_READ_PAGES:
		return figure_why(in, path, FIG_READ_PAGES);
	}
	return NULL;
}

bool series_whole(enum series_id id)
{
	return series_defs[id].unit != U_RATE && series_defs[id].unit != U_RATIO;
}
