/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The per-path summary's rows, for its text and HTML tables (rows.c). */
#ifndef BHPROF_ROWS_H
#define BHPROF_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include "output.h"

/* when a row shows in the text table; the HTML page shows every row */
enum row_when {
	RW_ALWAYS,
	RW_KNOWN,	/* the bh path's mode sees its figure */
	RW_DIO,		/* either path made O_DIRECT calls */
	RW_ERRORS,	/* either path's writes failed */
	RW_WB_CALLS,	/* either path's mode sees writeback calls */
	RW_MKWRITE,	/* the mode sees page_mkwrite, and a path faulted */
};

struct summary_row {
	const char *text;	/* label in the text table; NULL: not there */
	const char *html;	/* ... in the HTML one */
	enum cell_kind kind;
	size_t off;		/* in struct path_summary */
	bool u64;		/* else a double */
	enum figure fig;	/* unknown when its probe group is */
	enum sample sample;	/* "-" when the path has no such sample */
	enum row_when when;
};

extern const struct summary_row summary_rows[];
extern const size_t nr_summary_rows;

/* does either path's mode see writeback calls? */
bool wb_calls_seen(const struct run_info *info);
double row_value(const struct summary_row *r, const struct path_summary *p);
/* does r show in the text table of paths a (bh) and b (iomap)? */
bool row_shows(const struct summary_row *r, const struct run_info *info,
	       const struct path_summary *a, const struct path_summary *b);

#endif /* BHPROF_ROWS_H */
