/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --callers in bhprof diff. */
#ifndef BHPROF_CALLERS_DIFF_H
#define BHPROF_CALLERS_DIFF_H

#include <stdio.h>
#include "util/json.h"
#include "model/summary.h"

/* the chains (by name) and owners whose counts differ, most first */
void callers_diff_text(FILE *f, const struct run_info *ia,
		       const struct summary *a, const struct run_info *ib,
		       const struct summary *b);
/* member "callers" of the object open in j: null unless both runs
 * were recorded with --callers */
void callers_diff_json(struct json *j, const struct run_info *ia,
		       const struct summary *a, const struct run_info *ib,
		       const struct summary *b);

#endif /* BHPROF_CALLERS_DIFF_H */
