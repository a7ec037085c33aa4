// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <bpf/bpf.h>
#include "kernel.h"
#include "pathsrc.h"
#include "util/array.h"

/*
 * The helpers a mapping's operations point to, by family, each slot's
 * names over time in one group (NULL between groups): the folio names
 * from 5.18 and 6.0, the page names before. They are the kernel's
 * library, not any filesystem's: a filesystem that takes them is on
 * their path whatever it is called.
 */
static const struct {
	const char *name;
	uint32_t path;
} helpers[] = {
	{ "block_dirty_folio", PATH_BH },
	{ "__set_page_dirty_buffers", PATH_BH },
	{ NULL },
	{ "block_invalidate_folio", PATH_BH },
	{ "block_invalidatepage", PATH_BH },
	{ NULL },
	{ "block_is_partially_uptodate", PATH_BH },
	{ NULL },
	{ "buffer_migrate_folio", PATH_BH },
	{ "buffer_migrate_page", PATH_BH },
	{ NULL },
	{ "buffer_migrate_folio_norefs", PATH_BH },
	{ "buffer_migrate_page_norefs", PATH_BH },
	{ NULL },
	{ "iomap_dirty_folio", PATH_IOMAP },
	{ "iomap_set_page_dirty", PATH_IOMAP },
	{ NULL },
	{ "iomap_invalidate_folio", PATH_IOMAP },
	{ "iomap_invalidatepage", PATH_IOMAP },
	{ NULL },
	/*
	 * iomap's migrate helper is gone from recent kernels (XFS takes
	 * filemap_migrate_folio). In a group of its own it was found on
	 * none of them, and the kallsyms reader, which stops once every
	 * group is found, read the whole file at each start. It rides with
	 * the release helper: still a vote of its own where it is found.
	 */
	{ "iomap_release_folio", PATH_IOMAP },
	{ "iomap_releasepage", PATH_IOMAP },
	{ "iomap_migrate_folio", PATH_IOMAP },
	{ "iomap_migrate_page", PATH_IOMAP },
	{ NULL },
	{ "iomap_is_partially_uptodate", PATH_IOMAP },
};

/* filesystem magic numbers (include/uapi/linux/magic.h) and their path:
 * only where kallsyms names no helper */
static const struct {
	uint64_t magic;
	uint32_t path;
} fs_table[] = {
	{ 0xEF53, PATH_BH },		/* ext2, ext3, ext4 */
	{ 0x4d44, PATH_BH },		/* msdos, vfat */
	{ 0x2011BAB0, PATH_BH },	/* exfat */
	{ 0x4244, PATH_BH },		/* hfs */
	{ 0x482b, PATH_BH },		/* hfsplus */
	{ 0x15013346, PATH_BH },	/* udf */
	{ 0x137F, PATH_BH },		/* minix */
	{ 0x3153464a, PATH_BH },	/* jfs */
	{ 0x58465342, PATH_IOMAP },	/* xfs */
	{ 0x5a4f4653, PATH_IOMAP },	/* zonefs */
	{ 0x01161970, PATH_IOMAP },	/* gfs2 */
};

size_t pathsrc_want(const char **want, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(helpers) && n + 1 < max; i++)
		want[n++] = helpers[i].name;
	if (n < max)
		want[n++] = NULL;
	return n;
}

void pathsrc_resolve(struct pathsrc *ps, const struct ksyms *ks)
{
	ps->nr = 0;
	for (size_t i = 0; i < ARRAY_SIZE(helpers); i++) {
		uint64_t a;

		if (!helpers[i].name || !ks || ps->nr == MAX_PATH_HELPERS)
			continue;
		/* only the exact name: a .isra clone is not what a table
		 * points to */
		a = ksyms_addr(ks, helpers[i].name, NULL);
		if (!a)
			continue;
		ps->addr[ps->nr] = a;
		ps->path[ps->nr++] = helpers[i].path;
	}
}

int pathsrc_fill(const struct pathsrc *ps, int helper_fd, int fs_fd)
{
	for (unsigned int i = 0; i < ps->nr; i++)
		if (bpf_map_update_elem(helper_fd, &ps->addr[i], &ps->path[i],
					BPF_ANY))
			return -errno;
	for (size_t i = 0; i < ARRAY_SIZE(fs_table); i++)
		if (bpf_map_update_elem(fs_fd, &fs_table[i].magic,
					&fs_table[i].path, BPF_ANY))
			return -errno;
	return 0;
}

const char *pathsrc_text(unsigned int nr_helpers)
{
	static char buf[96];

	if (!nr_helpers)
		return "filesystem table (kallsyms names no page-cache helper)";
	snprintf(buf, sizeof(buf), "page-cache helpers (%u on this kernel)",
		 nr_helpers);
	return buf;
}
