/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every figure of a path summary, declared once (figures.c): its names
 * in each output, its unit, where it reads from the summary, and what
 * it rests on. The summary's text and HTML tables, a path's JSON, diff,
 * /metrics, and the gate's metrics (and its KCIDB report) walk this one
 * table in its order.
 */
#ifndef BHPROF_FIGURES_H
#define BHPROF_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include "summary.h"

enum figure_unit { U_COUNT, U_BYTES, U_NS, U_RATE, U_RATIO };

enum figure_type {
	FT_U64,		/* a uint64_t in struct path_summary */
	FT_DOUBLE,	/* ... a double */
	FT_DIST,	/* ... a struct dist: JSON's object of it alone */
	FT_FN,		/* computed by fn */
};

/* when a figure has a row in the text table; HTML shows each it names */
enum figure_when {
	FW_NEVER,
	FW_ALWAYS,
	FW_KNOWN,	/* the bh path's mode sees its figure */
	FW_DIO,		/* either path made O_DIRECT calls */
	FW_ERRORS,	/* either path's writes failed */
	FW_WB_CALLS,	/* either path's mode sees writeback calls */
	FW_WB_NONZERO,	/* ... and either path's figure is not 0 */
	FW_MKWRITE,	/* the mode sees page_mkwrite, and a path faulted */
};

/*
 * How /metrics exports a figure: a series of family per path that knows
 * it, with label="value" besides path where label is set. An FT_U64 is
 * a counter; an FT_DIST a histogram of the path's hist[hist], whose sum
 * is the FT_U64 at sum in struct path_summary (0: estimated from the
 * buckets). Figures sharing a family are its series; the first one's
 * help is the family's.
 */
struct figure_prom {
	const char *family;	/* without _total */
	const char *help;
	const char *label, *value;
	unsigned int hist;	/* enum bhp_hist_kind */
	size_t sum;
};

struct figure_def {
	const char *name;	/* the gate's: "write.lat.p99"; NULL: none */
	const char *diff;	/* diff's JSON key; NULL: diff leaves it out */
	const char *json;	/* in a path's JSON: "write.lat_ns"; NULL: not */
	const char *label;	/* the text table's, diff's and the gate's */
	const char *html;	/* report --html's row; NULL: no row */
	enum figure_unit unit;
	enum figure_type type;
	size_t off;		/* in struct path_summary */
	double (*fn)(const struct path_summary *p);
	enum figure fig;	/* unknown when the group it rests on is */
	enum sample sample;	/* ... or when it has no sample behind it */
	enum figure_when when;
	const struct figure_prom *prom;	/* NULL: not in /metrics */
};

extern const struct figure_def figure_defs[];
extern const size_t nr_figure_defs;

/* the value of a scalar figure (not FT_DIST) of p */
double figure_value(const struct figure_def *d, const struct path_summary *p);
/* an integer: JSON gets every digit */
bool figure_whole(const struct figure_def *d);
/* the figure the gate names so, NULL if none */
const struct figure_def *figure_find(const char *name);
/* does a filesystem's row (summary.h's fs_summary) have d? */
bool figure_per_fs(const struct figure_def *d);
/* ... its /metrics family per filesystem, NULL for none (a rate) */
const char *figure_fs_family(const struct figure_def *d);
/* a figure of the whole run ("bh.*"): the gate's any. alone has it */
bool figure_any_only(const struct figure_def *d);
/* does d have a row in the text table of paths a (bh) and b (iomap)? */
bool figure_shows(const struct figure_def *d, const struct run_info *info,
		  const struct path_summary *a, const struct path_summary *b);

#endif /* BHPROF_FIGURES_H */
