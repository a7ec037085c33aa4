/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --callers in the HTML report: a flame graph of the chains. */
#ifndef BHPROF_CALLERS_SVG_H
#define BHPROF_CALLERS_SVG_H

#include <stdio.h>
#include "model/summary.h"

/* a section with the flame graph as inline SVG; nothing for a run
 * without --callers */
void callers_html(FILE *f, const struct run_info *info,
		  const struct summary *s);

#endif /* BHPROF_CALLERS_SVG_H */
