// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The page-cache helpers that decide a path, as kallsyms gives them:
 * folio names (5.18 and 6.0 on), page names before, and all zero where
 * kptr_restrict hides addresses, when the filesystem table decides.
 */
#include <string.h>
#include "harness.h"
#include "collect/kernel.h"
#include "ksyms_text.h"
#include "collect/pathsrc.h"

static struct ksyms *load_text(const char *text)
{
	const char *want[2 * MAX_PATH_HELPERS];

	return ksyms_from_text(text, want,
			       pathsrc_want(want, sizeof(want) / sizeof(want[0])));
}

static uint32_t path_at(const struct pathsrc *ps, uint64_t addr)
{
	for (unsigned int i = 0; i < ps->nr; i++)
		if (ps->addr[i] == addr)
			return ps->path[i];
	return PATH_NONE;
}

TEST(pathsrc_folio_helpers)
{
	struct ksyms *k = load_text(
		"ffffffff81100000 T block_dirty_folio\n"
		"ffffffff81100100 T block_invalidate_folio\n"
		"ffffffff81100200 T block_is_partially_uptodate\n"
		"ffffffff81100300 T buffer_migrate_folio\n"
		"ffffffff81100400 t buffer_migrate_folio.isra.0\n"
		"ffffffff81200000 T iomap_dirty_folio\n"
		"ffffffff81200100 T iomap_release_folio\n"
		"ffffffff81200200 T iomap_is_partially_uptodate\n"
		"ffffffffc0a01000 t ext4_dirty_folio\t[ext4]\n");
	struct pathsrc ps;

	CHECK(k != NULL);
	pathsrc_resolve(&ps, k);
	CHECK_EQ_U64(ps.nr, 7);
	CHECK_EQ_U64(path_at(&ps, 0xffffffff81100000ULL), PATH_BH);
	CHECK_EQ_U64(path_at(&ps, 0xffffffff81100300ULL), PATH_BH);
	CHECK_EQ_U64(path_at(&ps, 0xffffffff81200100ULL), PATH_IOMAP);
	CHECK_EQ_U64(path_at(&ps, 0xffffffff81200200ULL), PATH_IOMAP);
	/* a compiler's clone is not what a table points to */
	CHECK_EQ_U64(path_at(&ps, 0xffffffff81100400ULL), PATH_NONE);
	/* a filesystem's own helper is no family's */
	CHECK_EQ_U64(path_at(&ps, 0xffffffffc0a01000ULL), PATH_NONE);
	CHECK(strstr(pathsrc_text(ps.nr), "helpers (7 ") != NULL);
	ksyms_free(k);
}

TEST(pathsrc_page_helpers)
{
	struct ksyms *k = load_text(
		"ffffffff81100000 T __set_page_dirty_buffers\n"
		"ffffffff81100100 T block_invalidatepage\n"
		"ffffffff81100200 T buffer_migrate_page\n"
		"ffffffff81200000 T iomap_set_page_dirty\n"
		"ffffffff81200100 T iomap_releasepage\n");
	struct pathsrc ps;

	CHECK(k != NULL);
	pathsrc_resolve(&ps, k);
	CHECK_EQ_U64(ps.nr, 5);
	CHECK_EQ_U64(path_at(&ps, 0xffffffff81100100ULL), PATH_BH);
	CHECK_EQ_U64(path_at(&ps, 0xffffffff81200000ULL), PATH_IOMAP);
	ksyms_free(k);
}

TEST(pathsrc_hidden_addresses_fall_back)
{
	struct ksyms *k = load_text(
		"0000000000000000 T block_dirty_folio\n"
		"0000000000000000 T iomap_release_folio\n");
	struct pathsrc ps;

	CHECK(k != NULL);
	pathsrc_resolve(&ps, k);
	CHECK_EQ_U64(ps.nr, 0);
	CHECK(strstr(pathsrc_text(ps.nr), "filesystem table") != NULL);
	pathsrc_resolve(&ps, NULL);
	CHECK_EQ_U64(ps.nr, 0);
	ksyms_free(k);
}
