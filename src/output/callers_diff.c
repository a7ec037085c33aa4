// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --callers in bhprof diff: the chains and owners whose counts changed. */
#include <stdlib.h>
#include <string.h>
#include "callers_diff.h"
#include "callers_out.h"
#include "model/devices.h"
#include "output.h"

#define TOP_CHANGES 10

struct change {
	char what[160];		/* chain name, or "fs device role" */
	uint64_t a, b;
};

static int change_cmp(const void *x, const void *y)
{
	const struct change *p = x, *q = y;
	int64_t dp = llabs((int64_t)(p->b - p->a));
	int64_t dq = llabs((int64_t)(q->b - q->a));

	return dp < dq ? 1 : dp > dq ? -1 : strcmp(p->what, q->what);
}

static struct change *change_of(struct change *c, uint32_t *n,
				const char *what)
{
	for (uint32_t i = 0; i < *n; i++)
		if (!strcmp(c[i].what, what))
			return &c[i];
	if (*n >= 2 * MAX_SNAP_CALLERS)
		return NULL;
	memset(&c[*n], 0, sizeof(c[0]));
	snprintf(c[*n].what, sizeof(c[0].what), "%s", what);
	return &c[(*n)++];
}

/* chains by name (the same name in both runs is the same caller, even
 * through other frames), or owners, of both runs side by side */
static uint32_t changes(const struct callers_table *ta,
			const struct callers_table *tb, bool owners,
			struct change *c)
{
	const struct callers_table *t[2] = { ta, tb };
	uint32_t n = 0;
	char buf[160], dev[32];

	for (int side = 0; side < 2; side++) {
		uint32_t rows = owners ? t[side]->nr_owners :
					 t[side]->nr_chains;

		for (uint32_t i = 0; i < rows; i++) {
			struct change *ch;
			uint64_t cnt;

			if (owners) {
				const struct callers_owner_row *o =
					&t[side]->owners[i];

				snprintf(buf, sizeof(buf), "%s %s %s", o->o.fs,
					 o->o.dev ? dev_name(o->o.dev, dev,
							     sizeof(dev)) : "?",
					 callers_role_name(o->o.role));
				cnt = o->n;
			} else {
				callers_chain_name(callers_chain(
					t[side]->chains[i].stack), buf,
					sizeof(buf));
				cnt = t[side]->chains[i].n;
			}
			ch = change_of(c, &n, buf);
			if (!ch)
				continue;
			if (side)
				ch->b += cnt;
			else
				ch->a += cnt;
		}
	}
	qsort(c, n, sizeof(*c), change_cmp);
	return n;
}

static struct callers_table ta, tb;
static struct change ch[2 * MAX_SNAP_CALLERS];

static bool both_known(const struct run_info *a, const struct run_info *b)
{
	return callers_known(a) && callers_known(b);
}

void callers_diff_text(FILE *f, const struct run_info *ia,
		       const struct summary *a, const struct run_info *ib,
		       const struct summary *b)
{
	if (!callers_known(ia) && !callers_known(ib))
		return;
	if (!both_known(ia, ib)) {
		fprintf(f, "\ncallers: only %s was recorded with --callers\n",
			callers_known(ia) ? "A" : "B");
		return;
	}
	callers_tables(a, &ta);
	callers_tables(b, &tb);
	for (int owners = 0; owners < 2; owners++) {
		uint32_t n = changes(&ta, &tb, owners, ch), shown = 0;

		fprintf(f, "\n%-40s %10s %10s %10s\n", owners ?
			"buffer_heads by owner" : "buffer_heads by caller",
			"A", "B", "B - A");
		for (uint32_t i = 0; i < n && shown < TOP_CHANGES; i++) {
			if (ch[i].a == ch[i].b)
				continue;
			fprintf(f, "  %-38.38s %10llu %10llu %+10lld\n",
				ch[i].what, (unsigned long long)ch[i].a,
				(unsigned long long)ch[i].b,
				(long long)(ch[i].b - ch[i].a));
			shown++;
		}
		if (!shown)
			fprintf(f, "  (no change)\n");
	}
	fprintf(f, "  %-38s %10lld %10lld %+10lld\n", "net alive",
		(long long)(a->glob.bh_alloc_total - a->glob.bh_freed),
		(long long)(b->glob.bh_alloc_total - b->glob.bh_freed),
		(long long)((b->glob.bh_alloc_total - b->glob.bh_freed) -
			    (a->glob.bh_alloc_total - a->glob.bh_freed)));
}

void callers_diff_json(struct json *j, const struct run_info *ia,
		       const struct summary *a, const struct run_info *ib,
		       const struct summary *b)
{
	if (!both_known(ia, ib)) {
		json_null(j, "callers");
		return;
	}
	callers_tables(a, &ta);
	callers_tables(b, &tb);
	json_obj_open(j, "callers");
	for (int owners = 0; owners < 2; owners++) {
		uint32_t n = changes(&ta, &tb, owners, ch);

		json_arr_open(j, owners ? "owners" : "chains");
		for (uint32_t i = 0; i < n; i++) {
			if (ch[i].a == ch[i].b)
				continue;
			json_obj_open(j, NULL);
			json_str(j, owners ? "owner" : "name", ch[i].what);
			json_u64(j, "a", ch[i].a);
			json_u64(j, "b", ch[i].b);
			json_i64(j, "abs", (int64_t)(ch[i].b - ch[i].a));
			json_obj_close(j);
		}
		json_arr_close(j);
	}
	json_obj_close(j);
}
