/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Per filesystem type and path, in text and JSON. */
#ifndef BHPROF_FSTABLE_H
#define BHPROF_FSTABLE_H

#include "output.h"

/* the table of the filesystems' rows (nothing without any) */
void fs_text(FILE *f, const struct run_info *info, const struct summary *s);
/* "filesystems": [{fs, path, figures...}], or null and why */
void fs_json(struct json *j, struct json_whys *w,
	     const struct run_info *info, const struct summary *s);

#endif /* BHPROF_FSTABLE_H */
