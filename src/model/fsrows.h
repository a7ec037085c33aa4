/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per filesystem type and path: the rows of a snapshot, found by name
 * and path (the kernel's key, a pointer, means nothing to a recording),
 * and what a summary makes of them.
 */
#ifndef BHPROF_FSROWS_H
#define BHPROF_FSROWS_H

#include "snapshot.h"

/* the row of name on path in s, added (zeroed, in order) if new; NULL:
 * no room */
struct fs_row *fs_row_get(struct snapshot *s, const char *name,
			  uint32_t path);
const struct fs_row *fs_row_find(const struct snapshot *s, const char *name,
				 uint32_t path);
/* out's rows: b's less a's, row by row */
void fs_rows_delta(const struct snapshot *a, const struct snapshot *b,
		   struct snapshot *out);
/* acc's rows plus d's */
void fs_rows_add(struct snapshot *acc, const struct snapshot *d);
/* what a table prints for a row's name: "-" for no file's */
const char *fs_label(const char *name);

#endif /* BHPROF_FSROWS_H */
