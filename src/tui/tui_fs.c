// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The filesystems view of bhprof top: since the reset, a row per
 * filesystem type and path ("ext4/bh", "fuse/iomap", "-" for no
 * file's), with the interval's write rate beside the totals.
 */
#include <curses.h>
#include "model/fsrows.h"
#include "output/output.h"
#include "tui.h"

/* a count, or "n/a" where the row's path does not see it */
static const char *fs_cell(char *buf, size_t len, const struct run_info *in,
			   unsigned int path, enum figure f, double v,
			   bool bytes)
{
	if (fs_why(in, path, f))
		return "n/a";
	return bytes ? fmt_bytes(buf, len, v) : tui_fmt_num(buf, len, v);
}

void tui_view_fs(const struct tui *t, const struct tui_layout *l, int y,
		 int rows)
{
	static struct path_summary c, w;
	char name[40], a[32], b[32], d[32], e[32], f[32], g[32];
	int end = y + rows, r = y + 1;

	attron(A_BOLD);
	tui_putf(y, 1, l->w - 2, "%-16s %9s %10s %10s %9s %10s %9s",
		 "fs/path", "calls/s", "written", "wb pages", "bios",
		 "bio bytes", "bh");
	attroff(A_BOLD);
	for (uint32_t i = 0; i < t->cum.nr_fs && r < end; i++) {
		const struct fs_summary *fs = &t->cum.fs[i];
		unsigned int p = fs->path;

		fs_path_summary(&t->cum, fs->name, p, &c);
		fs_path_summary(&t->win, fs->name, p, &w);
		snprintf(name, sizeof(name), "%s/%s", fs_label(fs->name),
			 path_name(p));
		tui_putf(r++, 1, l->w - 2, "%-16s %9s %10s %10s %9s %10s %9s",
			 name,
			 fs_cell(a, sizeof(a), t->info, p, FIG_WRITE,
				 w.write_calls_ps, false),
			 fs_cell(b, sizeof(b), t->info, p, FIG_WRITE,
				 (double)(c.c.write_bytes + c.c.dio_bytes),
				 true),
			 fs_cell(d, sizeof(d), t->info, p, FIG_WB_PAGES,
				 (double)c.c.wb_pages, false),
			 fs_cell(e, sizeof(e), t->info, p, FIG_PATH_BIOS,
				 (double)c.c.bio_count, false),
			 fs_cell(f, sizeof(f), t->info, p, FIG_PATH_BIOS,
				 (double)c.c.bio_bytes, true),
			 fs_cell(g, sizeof(g), t->info, p, FIG_BH,
				 (double)c.c.bh_alloc, false));
	}
	if (!t->cum.nr_fs && r < end)
		tui_put(r, 1, l->w - 2, "no write, bio or buffer_head yet");
}
