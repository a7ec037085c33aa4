// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The callers view of bhprof top (--callers): since the reset, the
 * buffer_heads alive, then who allocates them, by chain and by owner.
 */
#include <curses.h>
#include <string.h>
#include "output/callers_out.h"
#include "model/devices.h"
#include "output/output.h"
#include "tui.h"

bool tui_view_on(const struct tui *t, enum tui_view v)
{
	if (v == VIEW_FS)
		return t->info->features & RUN_F_FS;
	return v != VIEW_CALLERS || callers_known(t->info);
}

static int alive_line(const struct tui *t, int y, int w)
{
	const struct summary *s = &t->cum;
	int64_t net = (int64_t)(s->glob.bh_alloc_total - s->glob.bh_freed);
	char b[32];

	if (t->info->buffer_head == 0)
		return tui_put(y, 1, w, "alive 0: no buffer_heads in this kernel");
	return tui_putf(y, 1, w, "alive %+lld (%s%s), peak %+lld; %llu "
			"allocated, %llu freed", (long long)net,
			net < 0 ? "-" : "+",
			fmt_bytes(b, sizeof(b),
				  (double)(net < 0 ? -net : net) *
					  t->info->bh_size),
			(long long)s->bh_net_peak,
			(unsigned long long)s->glob.bh_alloc_total,
			(unsigned long long)s->glob.bh_freed);
}

void tui_view_callers(const struct tui *t, const struct tui_layout *l, int y,
		      int rows)
{
	static struct callers_table tab;
	int end = y + rows, half = l->w / 2;
	char name[96], dev[32];
	uint32_t i;
	int r;

	if (!callers_known(t->info)) {
		tui_put(y, 1, l->w - 2, "bhprof top --callers shows who "
			"allocates buffer_heads, and how many are alive");
		return;
	}
	alive_line(t, y++, l->w - 2);
	callers_tables(&t->cum, &tab);
	if (y >= end)
		return;
	attron(A_BOLD);
	tui_put(y, 1, half - 2, "caller");
	tui_put(y, half, l->w - half - 1, "owner");
	attroff(A_BOLD);
	for (i = 0, r = y + 1; r < end && i < tab.nr_chains; i++, r++) {
		callers_chain_name(callers_chain(tab.chains[i].stack), name,
				   sizeof(name));
		tui_putf(r, 1, half - 2, "%9llu %s",
			 (unsigned long long)tab.chains[i].n, name);
	}
	for (i = 0, r = y + 1; r < end && i < tab.nr_owners; i++, r++) {
		const struct callers_owner_row *o = &tab.owners[i];

		tui_putf(r, half, l->w - half - 1, "%9llu %s %s %s",
			 (unsigned long long)o->n, o->o.fs,
			 o->o.dev ? dev_name(o->o.dev, dev, sizeof(dev)) : "?",
			 callers_role_name(o->o.role));
	}
}
