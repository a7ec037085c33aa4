// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kallsyms as a distribution kernel prints it: vmlinux's symbols, then
 * each module's with a "\t[module]" suffix. The host has no modules,
 * so the module lines are only seen here and in the QEMU matrix.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"
#include "collect/kernel.h"
#include "ksyms_text.h"

static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81200000 T iomap_writepages\n"
	"ffffffff81200400 t iomap_writepages.cold\n"
	"ffffffff81201000 T alloc_buffer_head\n"
	"ffffffff81201200 T free_buffer_head\n"
	"ffffffff81300000 D some_data\n"
	"ffffffffc0a01000 t ext4_read_folio\t[ext4]\n"
	"ffffffffc0a02000 t ext4_readahead.isra.0\t[ext4]\n"
	"ffffffffc0a03000 t __traceiter_ext4_writepages\t[ext4]\n"
	"ffffffffc0b00000 t xfs_vm_writepages\t[xfs]\n"
	"ffffffffc0b00100 t broken_line\t[xfs\n";

static const char *const want[] = {
	"iomap_writepages", NULL, "alloc_buffer_head", NULL,
	"ext4_read_folio", NULL, "ext4_readahead", NULL,
	"__traceiter_ext4_writepages", NULL, "broken_line", NULL,
	"absent_func",
};

struct ksyms *ksyms_from_text(const char *text, const char *const *want,
			     size_t nr_want)
{
	char path[] = "/tmp/bhprof-ksyms-XXXXXX";
	struct ksyms *k;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	if (write(fd, text, strlen(text)) < 0) {
		close(fd);
		unlink(path);
		return NULL;
	}
	close(fd);
	k = ksyms_load_file(path, want, nr_want);
	unlink(path);
	return k;
}

static struct ksyms *load_fixture(void)
{
	return ksyms_from_text(kallsyms_text, want,
			       sizeof(want) / sizeof(want[0]));
}

TEST(ksyms_module_names)
{
	struct ksyms *k = load_fixture();

	CHECK(k != NULL);
	if (!k)
		return;
	CHECK(ksyms_func(k, "iomap_writepages") != NULL);
	CHECK(ksyms_module_of(k, "iomap_writepages") == NULL);
	CHECK(ksyms_func(k, "ext4_read_folio") &&
	      !strcmp(ksyms_func(k, "ext4_read_folio"), "ext4_read_folio"));
	CHECK(ksyms_module_of(k, "ext4_read_folio") &&
	      !strcmp(ksyms_module_of(k, "ext4_read_folio"), "ext4"));
	/* a compiler's suffix keeps its module */
	CHECK(ksyms_func(k, "ext4_readahead") &&
	      !strcmp(ksyms_func(k, "ext4_readahead"), "ext4_readahead.isra.0"));
	CHECK(ksyms_module_of(k, "ext4_readahead") &&
	      !strcmp(ksyms_module_of(k, "ext4_readahead"), "ext4"));
	CHECK(ksyms_module_of(k, "__traceiter_ext4_writepages") &&
	      !strcmp(ksyms_module_of(k, "__traceiter_ext4_writepages"),
		      "ext4"));
	/* an unterminated "[xfs" is no module name, but still the symbol */
	CHECK(ksyms_func(k, "broken_line") != NULL);
	CHECK(ksyms_module_of(k, "broken_line") == NULL);
	CHECK(ksyms_func(k, "absent_func") == NULL);
	CHECK(ksyms_module_of(k, "absent_func") == NULL);
	ksyms_free(k);
}

TEST(ksyms_module_bounds)
{
	struct ksyms *k = load_fixture();
	uint64_t next = 0;

	CHECK(k != NULL);
	if (!k)
		return;
	/* a module function's body ends at the next text symbol */
	CHECK_EQ_U64(ksyms_addr(k, "ext4_read_folio", &next),
		     0xffffffffc0a01000ULL);
	CHECK_EQ_U64(next, 0xffffffffc0a02000ULL);
	CHECK_EQ_U64(ksyms_addr(k, "alloc_buffer_head", &next),
		     0xffffffff81201000ULL);
	CHECK_EQ_U64(next, 0xffffffff81201200ULL);
	ksyms_free(k);
}
