/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --callers: the tables of a summary's rows, as text, JSON and folded
 * stacks. */
#ifndef BHPROF_CALLERS_OUT_H
#define BHPROF_CALLERS_OUT_H

#include <stdbool.h>
#include <stdio.h>
#include "model/callers.h"
#include "util/json.h"
#include "model/summary.h"

struct callers_chain_row {
	uint32_t stack;
	uint64_t n;
};

struct callers_owner_row {
	struct callers_owner o;
	uint64_t n;
	uint64_t where[NR_WHERE];
};

struct callers_table {
	uint64_t total;		/* every row */
	uint32_t nr_chains, nr_owners;
	struct callers_chain_row chains[MAX_SNAP_CALLERS];	/* most first */
	struct callers_owner_row owners[MAX_SNAP_CALLERS];	/* most first */
};

/* were chains and owners measured in this run at all? */
bool callers_known(const struct run_info *info);
void callers_tables(const struct summary *s, struct callers_table *t);
/* the top chains (whole with full), owners, and freed and alive */
void callers_text(FILE *f, const struct run_info *info,
		  const struct summary *s, bool full);
/* members "callers" and "bh_alive" of the object open in j; null, with
 * the reason in w, for a run without --callers */
void callers_json(struct json *j, struct json_whys *w,
		  const struct run_info *info, const struct summary *s);
/* gate's any.: the whole run's figures a path summary lacks */
void callers_any(const struct summary *s, struct path_summary *any);
/* one "root;...;leaf count" line per chain */
void callers_folded(FILE *f, const struct summary *s);
/* --folded FILE: opened first (NULL and an error line if it cannot be;
 * NULL without a path), then written with s and closed: 0 or -1 */
FILE *callers_folded_open(const char *path);
int callers_folded_close(FILE *f, const char *path, const struct summary *s);

#endif /* BHPROF_CALLERS_OUT_H */
