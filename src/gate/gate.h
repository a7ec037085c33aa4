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
/* "baseline 4.00 MiB, candidate 1.00 KiB, change -99.9% [...], p 0.001,
 * p(holm) 0.003": a judged rule's figures, as KTAP and JUnit give them */
const char *gate_detail(char *buf, size_t len, const struct judged *j);
/* "pass", "REGRESSION", "skipped", ... */
const char *gate_verdict(const struct judged *j);
/* the distinct kernel releases of a side's recordings, comma-separated */
const char *gate_kernels(char *buf, size_t len, const struct side *s);

/* run's summary of path, or of both paths as one (RULE_ANY, with the
 * whole run's --callers figures) written into *any */
const struct path_summary *gate_run_path(const struct loaded_run *run,
					  int path, struct path_summary *any);

/* a rule as JSON members: rule, path, metric, op, limit_pct */
struct json;
void gate_rule_json(struct json *js, const struct rule *r);

/* KCIDB: the job's names for itself and for the build it tested */
struct kcidb_opts {
	const char *origin;	/* ^[a-z0-9_]+$ */
	const char *build_id;	/* ORIGIN:ID */
};
bool kcidb_origin_ok(const char *s);
bool kcidb_id_ok(const char *s);
/* one KCIDB 5.3 report: a test a rule, a DONE test a measured figure;
 * -1 when out of memory */
int gate_kcidb(FILE *f, const struct gate *g, const struct kcidb_opts *k);

/* "+12.3%", "+inf%", or the absolute change when there is no base */
const char *gate_change(char *buf, size_t len, const struct judged *j,
			double rel, double abs);

#endif /* BHPROF_GATE_H */
