// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --self-cost by program: rows kept by name across snapshots, a late
 * module's programs adding to their name's row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "model/summary.h"

static void row(struct snapshot *s, const char *name, uint64_t ns,
		uint64_t runs)
{
	struct self_prog *r = self_prog_row(s->self_progs, &s->nr_self_progs,
					    MAX_SELF_PROGS, name);

	r->ns += ns;
	r->runs += runs;
	s->self_ns += ns;
	s->self_runs += runs;
}

static const struct self_prog *find(const struct summary *s, const char *n)
{
	for (uint32_t i = 0; i < s->nr_self_progs; i++)
		if (!strcmp(s->self_progs[i].name, n))
			return &s->self_progs[i];
	return NULL;
}

/* a program first seen in the later snapshot (a module loaded in the
 * window) counts from zero; rows come out costliest first */
TEST(self_progs_delta_by_name)
{
	struct snapshot *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct summary *s = calloc(1, sizeof(*s));
	const struct self_prog *r;

	row(a, "tp_bio_queue", 1000, 10);
	row(a, "fe_bh_alloc", 500, 20);
	row(b, "fe_bh_alloc", 900, 30);
	row(b, "tp_bio_queue", 1500, 15);
	row(b, "fe_ext4_read_folio", 4000, 8);
	a->self_on_ns = 1000000000;
	b->self_on_ns = 3000000000;
	b->ts_ns = 2000000000;
	summarize(a, b, s);
	CHECK_EQ_U64(s->nr_self_progs, 3);
	CHECK(!strcmp(s->self_progs[0].name, "fe_ext4_read_folio"));
	r = find(s, "tp_bio_queue");
	CHECK(r && r->ns == 500 && r->runs == 5);
	r = find(s, "fe_bh_alloc");
	CHECK(r && r->ns == 400 && r->runs == 10);
	r = find(s, "fe_ext4_read_folio");
	CHECK(r && r->ns == 4000 && r->runs == 8);
	CHECK_EQ_U64(s->self_runs, 23);
	free(a);
	free(b);
	free(s);
}

/* two objects' programs of one name (the run's, a late module's) are
 * one row; a full table takes no more */
TEST(self_progs_add_merges_names)
{
	struct self_prog rows[MAX_SELF_PROGS] = {}, add[2] = {
		{ "fe_ext4_read_folio", 100, 2 }, { "tp_bio_queue", 7, 1 } };
	uint32_t n = 0;
	char name[24];

	self_prog_row(rows, &n, MAX_SELF_PROGS, "tp_bio_queue")->runs = 4;
	self_progs_add(rows, &n, add, 2);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(rows[0].runs, 5);
	CHECK_EQ_U64(rows[1].ns, 100);
	for (int i = 0; n < MAX_SELF_PROGS; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		self_prog_row(rows, &n, MAX_SELF_PROGS, name);
	}
	CHECK(!self_prog_row(rows, &n, MAX_SELF_PROGS, "one_more"));
	CHECK(self_prog_row(rows, &n, MAX_SELF_PROGS, "tp_bio_queue"));
}
