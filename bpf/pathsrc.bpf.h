/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which path a file's page cache takes, from the running kernel itself:
 * the helpers its mapping's address_space_operations point to. ext4's
 * ->is_partially_uptodate is block_is_partially_uptodate and its
 * ->migrate_folio buffer_migrate_folio; XFS's, and from 7.x exfat's and
 * ntfs's, are iomap_*. A filesystem that moves between releases lands on
 * its path on each, and two mounts with their own operations (ext4's
 * journalled data, a future iomap ext4) on theirs. An operations table
 * that points to neither family's helpers (btrfs, f2fs, nfs, tmpfs) is
 * on neither path.
 *
 * Userspace gives the helpers' addresses from kallsyms; each operations
 * table is judged once, at its first sight, and kept. Where kallsyms
 * gives no helper, the filesystem table (magic -> path) decides: the
 * fallback `bhprof probe` names.
 *
 * Included by bhprof.bpf.c: one object.
 */
#ifndef BHPROF_PATHSRC_BPF_H
#define BHPROF_PATHSRC_BPF_H

/* set by userspace: helper_paths holds the kernel's helpers */
const volatile bool aops_on = false;

/* filesystem magic -> enum bhp_path, the fallback, filled by userspace */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_FS_TYPES);
	__type(key, __u64);
	__type(value, __u32);
} fs_paths SEC(".maps");

/* a page-cache helper's address -> its path, filled by userspace */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_PATH_HELPERS);
	__type(key, __u64);
	__type(value, __u32);
} helper_paths SEC(".maps");

/* an address_space_operations' address -> the path it was judged to */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_AOPS);
	__type(key, __u64);
	__type(value, __u32);
} aops_paths SEC(".maps");

/* the operations' helper slots under their names over time */
struct address_space_operations___folio {	/* 5.18 */
	void *dirty_folio;
	void *invalidate_folio;
};

struct address_space_operations___v60 {		/* 6.0 */
	void *release_folio;
	void *migrate_folio;
};

struct address_space_operations___page {	/* before */
	void *writepage;
	void *writepages;
	void *set_page_dirty;
	void *invalidatepage;
	void *releasepage;
	void *migratepage;
	void *is_partially_uptodate;
};

static __always_inline __u32 fs_path(__u64 magic)
{
	__u32 *p = bpf_map_lookup_elem(&fs_paths, &magic);

	return p ? *p : PATH_NONE;
}

/* +1 for a buffer_head helper, -1 for an iomap one, 0 for any other */
static __always_inline int helper_vote(void *fn)
{
	__u64 key = (__u64)fn;
	__u32 *p = key ? bpf_map_lookup_elem(&helper_paths, &key) : NULL;

	if (!p)
		return 0;
	return *p == PATH_BH ? 1 : *p == PATH_IOMAP ? -1 : 0;
}

#define AOPS_SLOT(ops, flavour, field)                                       \
	(bpf_core_field_exists(                                              \
		 ((struct address_space_operations___##flavour *)0)->field) ? \
		 helper_vote(BPF_CORE_READ(                                  \
			 (struct address_space_operations___##flavour *)(ops), \
			 field)) :                                           \
		 0)

/*
 * Up to 5.13 a table without ->set_page_dirty had its pages dirtied by
 * __set_page_dirty_buffers (set_page_dirty() under CONFIG_BLOCK, until
 * "mm: require ->set_page_dirty to be explicitly wired up" in 5.14):
 * 5.10's FAT and exfat name no helper of either family but that empty
 * slot. Only a table that writes pages back: pseudo filesystems'
 * empty_aops has no slot at all. From 5.14 to 5.17 no such table is
 * left to vote.
 */
static __always_inline int dirty_default_vote(__u64 ops)
{
	struct address_space_operations___page *o = (void *)ops;

	if (bpf_core_field_exists(
		    ((struct address_space_operations___folio *)0)->dirty_folio) ||
	    !bpf_core_field_exists(o->set_page_dirty) ||
	    BPF_CORE_READ(o, set_page_dirty))
		return 0;
	return BPF_CORE_READ(o, writepage) || BPF_CORE_READ(o, writepages);
}

/*
 * One table's path, by the majority of its helper slots: gfs2's
 * journalled-data operations mix the two families. A tie, or no helper
 * of either, is neither path.
 */
static __noinline __u32 aops_judge(__u64 ops)
{
	int v = dirty_default_vote(ops);
	__u32 path;

	v += AOPS_SLOT(ops, folio, dirty_folio);
	v += AOPS_SLOT(ops, folio, invalidate_folio);
	v += AOPS_SLOT(ops, v60, release_folio);
	v += AOPS_SLOT(ops, v60, migrate_folio);
	v += AOPS_SLOT(ops, page, set_page_dirty);
	v += AOPS_SLOT(ops, page, invalidatepage);
	v += AOPS_SLOT(ops, page, releasepage);
	v += AOPS_SLOT(ops, page, migratepage);
	v += AOPS_SLOT(ops, page, is_partially_uptodate);
	path = v > 0 ? PATH_BH : v < 0 ? PATH_IOMAP : PATH_NONE;
	bpf_map_update_elem(&aops_paths, &ops, &path, BPF_ANY);
	return path;
}

static __always_inline __u32 aops_path(__u64 ops)
{
	__u32 *p = bpf_map_lookup_elem(&aops_paths, &ops);

	return p ? *p : aops_judge(ops);
}

/*
 * The path of a regular file's page cache: its operations' when the
 * helpers are known, else its filesystem's by the table. READ is a probe
 * read or a plain load, as the caller's inode is typed or not.
 */
#define FILE_PATH(inode, READ)                                         \
	(aops_on ? aops_path((__u64)READ(inode, i_mapping, a_ops)) :   \
		   fs_path(READ(inode, i_sb, s_magic)))

#endif /* BHPROF_PATHSRC_BPF_H */
