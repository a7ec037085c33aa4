/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CO-RE helpers for the structures that changed between 6.1 and 6.18.
 * vmlinux.h is generated from a 6.18 kernel; the ___flavour structs below
 * describe older layouts so that one object loads everywhere.
 */
#ifndef BHPROF_COMPAT_BPF_H
#define BHPROF_COMPAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include "bhprof.h"

/* folio->flags was a plain unsigned long before memdesc_flags_t (6.18). */
struct folio___ulflags {
	unsigned long flags;
} __attribute__((preserve_access_index));

/* 6.1 kept the order in its own byte; 6.6+ in the low byte of _flags_1. */
struct folio___v61 {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

/* 6.18 iomap_writepages() takes only the context, which carries the wbc. */
struct iomap_writepage_ctx___v618 {
	struct inode *inode;
	struct writeback_control *wbc;
} __attribute__((preserve_access_index));

static __always_inline unsigned long folio_flags(struct folio *folio)
{
	if (bpf_core_field_exists(((struct folio___ulflags *)0)->flags))
		return BPF_CORE_READ((struct folio___ulflags *)folio, flags);
	return BPF_CORE_READ(folio, flags.f);
}

/* folio_nr_pages() for every layout; a plain page counts as one. */
static __always_inline __u32 folio_pages(struct folio *folio)
{
	unsigned long head = 1UL << bpf_core_enum_value(enum pageflags, PG_head);
	__u32 order;

	if (!(folio_flags(folio) & head))
		return 1;
	if (bpf_core_field_exists(((struct folio___v61 *)0)->_folio_order))
		order = BPF_CORE_READ((struct folio___v61 *)folio, _folio_order);
	else
		order = BPF_CORE_READ(folio, _flags_1) & 0xff;
	return 1U << (order & 31);
}

/*
 * The inode whose page cache holds the first page of a bio, or NULL for
 * anonymous, slab or driver memory (O_DIRECT user buffers, XFS log,
 * journal copies). Tail pages point to their head through compound_head.
 * A slab page keeps its kmem_cache where a page keeps its mapping, so a
 * mapping only counts if its host's i_mapping points back at it.
 */
static __always_inline struct inode *bio_owner(struct bio *bio)
{
	/* bio is tp_btf's typed argument: plain loads down to the page */
	struct bio_vec *bv = bio->bi_io_vec;
	struct inode *host;
	struct page *pg;
	unsigned long head, mapping;

	if (!bv)
		return NULL;
	pg = bv->bv_page;
	if (!pg)
		return NULL;
	/* a union with lru: a plain load would be typed as a list_head * */
	head = BPF_CORE_READ(pg, compound_head);
	if (head & 1)
		pg = (struct page *)(head - 1);
	mapping = (unsigned long)BPF_CORE_READ(pg, mapping);
	/* low bits tag anon, movable and KSM mappings */
	if (!mapping || (mapping & 3))
		return NULL;
	host = BPF_CORE_READ((struct address_space *)mapping, host);
	if (!host || (unsigned long)BPF_CORE_READ(host, i_mapping) != mapping)
		return NULL;
	return host;
}

/*
 * The file behind fd in the current task. The walk to the fd table uses
 * plain loads off the typed task pointer (a NULL on the way reads as 0):
 * the syscall stand-ins run once per write, and each probe read they
 * save is worth more than the rest of the program.
 */
static __always_inline struct file *fd_to_file(unsigned long fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = task->files->fdt;
	struct file *file = NULL;

	if (fd >= fdt->max_fds)
		return NULL;
	bpf_probe_read_kernel(&file, sizeof(file), &fdt->fd[fd]);
	return file;
}

#endif /* BHPROF_COMPAT_BPF_H */
