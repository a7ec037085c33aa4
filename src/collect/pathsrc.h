/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a file's path comes from: the kernel's own page-cache helpers,
 * which a mapping's address_space_operations point to (bpf/pathsrc.bpf.h
 * judges each table by them), or, where kallsyms gives none of them, the
 * filesystem table.
 */
#ifndef BHPROF_PATHSRC_H
#define BHPROF_PATHSRC_H

#include <stddef.h>
#include <stdint.h>
#include "bhprof.h"

struct ksyms;

struct pathsrc {
	unsigned int nr;	/* helpers found on this kernel; 0: the table */
	uint64_t addr[MAX_PATH_HELPERS];
	uint32_t path[MAX_PATH_HELPERS];
};

/* the helpers' names as kallsyms groups (attach_ksyms_load): appends
 * at most max entries to want, returns how many */
size_t pathsrc_want(const char **want, size_t max);
/* the helpers' addresses on this kernel */
void pathsrc_resolve(struct pathsrc *ps, const struct ksyms *ks);
/* fills the BPF side's helper and filesystem maps */
int pathsrc_fill(const struct pathsrc *ps, int helper_fd, int fs_fd);
/* "page-cache helpers (9 on this kernel)" or the table's fallback */
const char *pathsrc_text(unsigned int nr_helpers);

#endif /* BHPROF_PATHSRC_H */
