/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The figures diff compares and the gate judges (model/figures.h's
 * with a name), as they print.
 */
#ifndef BHPROF_METRICS_H
#define BHPROF_METRICS_H

#include <stddef.h>
#include "model/figures.h"

/* why the figure of path p has no value in the run, NULL if it has one */
const char *metric_why(const struct figure_def *m, const struct run_info *info,
		       unsigned int path, const struct path_summary *p);
/* v in the figure's unit, signed: "-1.50 MiB", "250 us", "12" */
const char *metric_fmt(char *buf, size_t len, enum figure_unit u, double v);

#endif /* BHPROF_METRICS_H */
