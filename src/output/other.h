/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The other group (files on neither path) in text and JSON. */
#ifndef BHPROF_OTHER_H
#define BHPROF_OTHER_H

#include "output.h"

/* its table under the two paths' (nothing for a file before it) */
void other_text(FILE *f, const struct run_info *info,
		const struct bhp_path_stats *o);
/* "other": {write, dio, writeback, bio, write_source}, or null and why */
void other_json(struct json *j, struct json_whys *w,
		const struct run_info *info, const struct bhp_path_stats *o);

#endif /* BHPROF_OTHER_H */
