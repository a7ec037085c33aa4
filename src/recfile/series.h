/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every figure of a recording's time series, declared once (series.c):
 * report's CSV columns and its JSON intervals walk this table in its
 * order; report's text table and the HTML charts pick the entries they
 * show from it.
 */
#ifndef BHPROF_SERIES_H
#define BHPROF_SERIES_H

#include "model/figures.h"
#include "run.h"

/* the figures of a ts_path, by what they rest on */
enum ts_fig {
	TS_ROW,		/* the row's own: always known */
	TS_WRITE, TS_WRITE_LAT, TS_BIOS, TS_WB, TS_BH, TS_BH_PER_MIB,
	TS_READ_BIOS, TS_READ_PAGES,
};

enum series_id {
	S_WRITE_CALLS, S_WRITE_BYTES, S_DIRECT_BYTES, S_WRITE_MIB_S,
	S_BIO_COUNT, S_BIO_BYTES, S_BIO_MIB_S, S_LAT_P50, S_LAT_P99,
	S_WB_PAGES, S_BH_ALLOC, S_BH_PER_MIB, S_FRAMES_LOST,
	S_READ_BIO_COUNT, S_READ_BIO_BYTES, S_READ_PAGES,
	NR_SERIES
};

struct series_def {
	const char *csv;	/* report --csv's column */
	const char *json;	/* in an interval's path; NULL: the row's */
	const char *text;	/* report's table header, where it shows */
	enum figure_unit unit;	/* U_RATE and U_RATIO are fractions */
	double (*value)(const struct ts_row *r, unsigned int path);
	enum ts_fig fig;	/* what it rests on, for series_why() */
};

extern const struct series_def series_defs[NR_SERIES];

/* why the figure of path in row r is unknown; NULL if known */
const char *series_why(enum series_id id, const struct ts_row *r,
		       const struct run_info *in, unsigned int path);
/* a whole number (every digit in JSON), not a fraction */
bool series_whole(enum series_id id);

#endif /* BHPROF_SERIES_H */
