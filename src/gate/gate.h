/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* bhprof gate: the verdicts, and the four ways gate_out.c prints them. */
#ifndef BHPROF_GATE_H
#define BHPROF_GATE_H

#include <stdbool.h>
#include <stdio.h>
#include "rules.h"
#include "recfile/run.h"
#include "util/stats.h"

struct side {
	const char *name;		/* "baseline", "candidate" */
	struct loaded_run *runs;
	size_t n;
};

struct judged {
	const struct rule *r;
	const char *skipped;		/* why a default rule was not judged */
	bool idle;			/* n/a (idle): skipped says why */
	char idle_why[160];
	double *a, *b;			/* one value per recording */
	double med_a, med_b;
	struct shift d;			/* candidate - baseline, absolute */
	double rel, rel_lo, rel_hi;	/* relative to med_a; NAN if it is 0 */
	double p, p_adj;
	bool beyond;			/* the estimate passes the limit */
	bool regression;		/* beyond, and significant after Holm */
};

struct gate {
	struct side base, cand;
	double alpha;
	bool default_rules;
	struct judged *j;
	size_t nr, nr_judged, nr_regressions;
};

/* 0 no regression, 1 regression, 2 no rule judged */
int gate_exit(const struct gate *g);
void gate_text(FILE *f, const struct gate *g);
void gate_json(FILE *f, const struct gate *g);
void gate_ktap(FILE *f, const struct gate *g);
void gate_junit(FILE *f, const struct gate *g);
/* "+12.3%", "+inf%", or the absolute change when there is no base */
const char *gate_change(char *buf, size_t len, const struct judged *j,
			double rel, double abs);

#endif /* BHPROF_GATE_H */
