// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Per filesystem type and path: the figures of model/figures.c that a
 * filesystem's row has (figure_per_fs()), a column per row, as the
 * paths' table has a column per path. A type on two paths (fuse with
 * and without its writeback cache) has a column on each; "-" is no
 * file's: bios and buffer_heads no write or writeback claimed (a
 * journal's, metadata written by a kernel thread).
 */
#include <string.h>
#include "model/fsrows.h"
#include "fstable.h"

#define FS_COLS 4	/* columns a block of the table, 80 characters */

static bool any_dio(const struct summary *s)
{
	for (uint32_t i = 0; i < s->nr_fs; i++)
		if (s->fs[i].c.dio_calls)
			return true;
	return false;
}

static void fs_block(FILE *f, const struct run_info *info,
		     const struct summary *s, uint32_t from, uint32_t to)
{
	static struct path_summary p[FS_COLS];
	char head[32], b[32];

	fprintf(f, "%-24s", "");
	for (uint32_t i = from; i < to; i++) {
		snprintf(head, sizeof(head), "%s/%s", fs_label(s->fs[i].name),
			 path_name(s->fs[i].path));
		fs_path_summary(s, s->fs[i].name, s->fs[i].path, &p[i - from]);
		fprintf(f, " %13s", head);
	}
	fputc('\n', f);
	for (size_t k = 0; k < nr_figure_defs; k++) {
		const struct figure_def *d = &figure_defs[k];

		if (!figure_per_fs(d) || d->when == FW_NEVER ||
		    (d->when == FW_DIO && !any_dio(s)))
			continue;
		fprintf(f, "%-24s", d->label);
		for (uint32_t i = from; i < to; i++) {
			const struct path_summary *ps = &p[i - from];

			fprintf(f, " %13s",
				cell(b, sizeof(b), d->unit, figure_value(d, ps),
				     fs_figure_why(info, s->fs[i].path, ps,
						   d->fig, d->sample)));
		}
		fputc('\n', f);
	}
}

void fs_text(FILE *f, const struct run_info *info, const struct summary *s)
{
	if (!(info->features & RUN_F_FS) || !s->nr_fs)
		return;
	fprintf(f, "\nper filesystem (type/path):\n");
	for (uint32_t i = 0; i < s->nr_fs; i += FS_COLS) {
		if (i)
			fputc('\n', f);
		fs_block(f, info, s, i,
			 i + FS_COLS < s->nr_fs ? i + FS_COLS : s->nr_fs);
	}
}

void fs_json(struct json *j, struct json_whys *w,
	     const struct run_info *info, const struct summary *s)
{
	static struct path_summary p;
	const char *obj = w->obj;

	w->obj = NULL;
	if (!(info->features & RUN_F_FS)) {
		json_null_why(j, w, "filesystems", why_text("unrecorded"));
		w->obj = obj;
		return;
	}
	json_arr_open(j, "filesystems");
	for (uint32_t i = 0; i < s->nr_fs; i++) {
		const struct fs_summary *fs = &s->fs[i];
		struct json_whys fw = { 0 };

		fs_path_summary(s, fs->name, fs->path, &p);
		json_obj_open(j, NULL);
		json_str(j, "fs", fs_label(fs->name));
		json_str(j, "path", path_name(fs->path));
		figures_json(j, &fw, &p, info, fs->path, true);
		json_whys_close(j, &fw);
		json_obj_close(j);
	}
	json_arr_close(j);
	w->obj = obj;
}
