/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The named figures of a path summary: what diff compares and gate
 * judges, with their units and the probe group each rests on.
 */
#ifndef BHPROF_METRICS_H
#define BHPROF_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include "model/summary.h"

enum metric_unit { U_COUNT, U_BYTES, U_RATE, U_NS, U_RATIO };

struct metric {
	const char *name;	/* gate's name: "write.lat.p99" */
	const char *key;	/* diff's JSON key; NULL: diff leaves it out */
	const char *label;	/* text */
	enum metric_unit unit;
	double (*get)(const struct path_summary *p);
	bool whole;		/* an integer: JSON gets every digit */
	enum figure fig;	/* unknown when the group it rests on failed */
	enum sample sample;	/* ... or when it has no sample behind it */
};

extern const struct metric metrics[];
extern const size_t nr_metrics;

const struct metric *metric_find(const char *name);
/* a figure of the whole run ("bh.*"): gate's any. alone has it */
bool metric_any_only(const struct metric *m);
/* why the metric of path p has no value in the run, NULL if it has one */
const char *metric_why(const struct metric *m, const struct run_info *info,
		       unsigned int path, const struct path_summary *p);
/* v in the metric's unit, signed: "-1.50 MiB", "250 us", "12" */
const char *metric_fmt(char *buf, size_t len, enum metric_unit u, double v);

#endif /* BHPROF_METRICS_H */
