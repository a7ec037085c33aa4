// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "model/callers.h"
#include "model/snapshot.h"

static const char *name_of(const char *chain)
{
	static char buf[96];

	return callers_chain_name(chain, buf, sizeof(buf));
}

TEST(callers_chain_named_after_first_non_helper)
{
	CHECK(!strcmp(name_of("do_syscall_64;ext4_da_write_begin;"
			      "ext4_block_write_begin;create_empty_buffers;"
			      "folio_alloc_buffers;alloc_buffer_head"),
		      "ext4_block_write_begin"));
	CHECK(!strcmp(name_of("kthread;jbd2_journal_commit_transaction;"
			      "jbd2_journal_get_descriptor_buffer;__getblk_gfp;"
			      "__getblk_slow;grow_dev_page;alloc_page_buffers;"
			      "alloc_buffer_head"),
		      "jbd2_journal_get_descriptor_buffer"));
	/* a compiler's copy of a helper is a helper */
	CHECK(!strcmp(name_of("ext4_getblk;__getblk_slow.constprop.0;"
			      "alloc_buffer_head"), "ext4_getblk"));
	/* nothing but helpers: the root */
	CHECK(!strcmp(name_of("folio_alloc_buffers;alloc_buffer_head"),
		      "folio_alloc_buffers"));
	CHECK(!strcmp(name_of("alloc_buffer_head"), "alloc_buffer_head"));
}

TEST(callers_lost_and_unknown_chains)
{
	uint32_t a = callers_chain_intern("x;y;alloc_buffer_head");

	CHECK(!strcmp(callers_chain(BHP_STACK_LOST), "[lost]"));
	CHECK(!strcmp(callers_chain(1u << 30), "[unknown]"));
	CHECK(!strcmp(callers_chain(a), "x;y;alloc_buffer_head"));
	/* the same text, the same id: runs compare by id */
	CHECK_EQ_U64(callers_chain_intern("x;y;alloc_buffer_head"), a);
	CHECK(callers_chain_intern("z;alloc_buffer_head") != a);
}

static void row(struct snapshot *s, uint32_t stack, uint32_t where,
		uint64_t n)
{
	struct caller_row *r = &s->callers[s->nr_callers++];

	memset(r, 0, sizeof(*r));
	r->k.stack = stack;
	r->k.where = where;
	r->n = n;
}

TEST(callers_delta_keeps_rows_that_moved)
{
	struct snapshot *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct snapshot *d = calloc(1, sizeof(*d));

	row(a, 1, 0, 5);
	row(a, 2, 0, 7);
	row(b, 1, 0, 5);	/* did not move: goes */
	row(b, 2, 0, 10);
	row(b, 3, 1, 4);	/* new */
	b->bh_net_peak = 42;
	snapshot_delta(a, b, d);
	CHECK_EQ_U64(d->nr_callers, 2);
	CHECK_EQ_U64(d->callers[0].k.stack, 2);
	CHECK_EQ_U64(d->callers[0].n, 3);
	CHECK_EQ_U64(d->callers[1].k.stack, 3);
	CHECK_EQ_U64(d->callers[1].n, 4);
	CHECK_EQ_U64(d->bh_net_peak, 42);
	free(a);
	free(b);
	free(d);
}
