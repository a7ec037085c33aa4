// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A snapshot's filesystem rows, kept sorted by name and path so that
 * every output lists them alike and a delta pairs them by a walk.
 */
#include <string.h>
#include "fsrows.h"

#define NR_FS_U64 (sizeof(struct bhp_fs_stats) / sizeof(uint64_t))

static int row_cmp(const char *name, uint32_t path, const struct fs_row *r)
{
	int c = strncmp(name, r->name, BHP_FS_NAME);

	if (c)
		return c;
	return path < r->path ? -1 : path > r->path;
}

const struct fs_row *fs_row_find(const struct snapshot *s, const char *name,
				 uint32_t path)
{
	for (uint32_t i = 0; i < s->nr_fs; i++)
		if (!row_cmp(name, path, &s->fs[i]))
			return &s->fs[i];
	return NULL;
}

struct fs_row *fs_row_get(struct snapshot *s, const char *name,
			  uint32_t path)
{
	uint32_t i = 0;
	int c = 1;

	while (i < s->nr_fs && (c = row_cmp(name, path, &s->fs[i])) > 0)
		i++;
	if (i < s->nr_fs && !c)
		return &s->fs[i];
	if (s->nr_fs >= MAX_SNAP_FS)
		return NULL;
	memmove(&s->fs[i + 1], &s->fs[i], (s->nr_fs - i) * sizeof(s->fs[0]));
	s->nr_fs++;
	memset(&s->fs[i], 0, sizeof(s->fs[i]));
	strncpy(s->fs[i].name, name, BHP_FS_NAME - 1);
	s->fs[i].path = path;
	return &s->fs[i];
}

void fs_rows_delta(const struct snapshot *a, const struct snapshot *b,
		   struct snapshot *out)
{
	out->nr_fs = b->nr_fs;
	for (uint32_t i = 0; i < b->nr_fs; i++) {
		const struct fs_row *ra = fs_row_find(a, b->fs[i].name,
						      b->fs[i].path);
		const uint64_t *x = ra ? (const uint64_t *)&ra->s : NULL;
		const uint64_t *y = (const uint64_t *)&b->fs[i].s;
		uint64_t *o = (uint64_t *)&out->fs[i].s;

		out->fs[i] = b->fs[i];
		/* counters only grow: a reset shows as no change */
		for (size_t k = 0; k < NR_FS_U64; k++)
			o[k] = x && x[k] <= y[k] ? y[k] - x[k] : x ? 0 : y[k];
	}
}

void fs_rows_add(struct snapshot *acc, const struct snapshot *d)
{
	for (uint32_t i = 0; i < d->nr_fs; i++) {
		struct fs_row *r = fs_row_get(acc, d->fs[i].name,
					      d->fs[i].path);
		const uint64_t *y = (const uint64_t *)&d->fs[i].s;
		uint64_t *o;

		if (!r)
			continue;
		o = (uint64_t *)&r->s;
		for (size_t k = 0; k < NR_FS_U64; k++)
			o[k] += y[k];
	}
}

const char *fs_label(const char *name)
{
	return name[0] ? name : "-";
}
