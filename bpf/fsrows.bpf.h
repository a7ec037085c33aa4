/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per filesystem: the write calls, writeback, bios and buffer_heads of
 * each filesystem type on each path. A context keeps its inode's
 * filesystem (its super block's s_type) beside its path, so a row is
 * bumped where the path's counter is, and one type on two paths (fuse
 * with and without its writeback cache, ext4 with journalled data) has
 * a row on each.
 *
 * Included by bhprof.bpf.c: one object.
 */
#ifndef BHPROF_FSROWS_BPF_H
#define BHPROF_FSROWS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, MAX_FS_ROWS);
	__type(key, struct bhp_fs_key);
	__type(value, struct bhp_fs_val);
} fs_stats SEC(".maps");

/* a CPU's rows in front of fs_stats, found without a hashed lookup: a
 * bh filesystem allocates a buffer_head or more a block it writes */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FS_SLOTS);
	__type(key, __u32);
	__type(value, struct bhp_fs_slot);
} fs_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bhp_fs_val);
} fs_zero SEC(".maps");

/*
 * The filesystem of an inode of mode, read with READ as INODE_PATH_FN
 * reads: a block device node's is the block device's own page cache,
 * whatever filesystem holds the node (devtmpfs).
 */
#define INODE_FS_FN(name, READ)                                            \
	static __always_inline __u64 name(struct inode *inode, __u16 mode) \
	{                                                                  \
		if ((mode & BHP_S_IFMT) == BHP_S_IFBLK)                    \
			return BHP_FS_BDEV;                                \
		return (__u64)READ(inode, i_sb, s_type);                   \
	}

/* typed, the last read is a probe read all the same: a loaded pointer
 * stays one to the verifier, which refuses the arithmetic of fs_slot() */
#define TYPED_FS_READ(inode, sb, type) BPF_CORE_READ((inode)->sb, type)

INODE_FS_FN(inode_fs_mode, BPF_CORE_READ)
INODE_FS_FN(inode_fs_typed, TYPED_FS_READ)

static __always_inline __u64 inode_fs_t(struct inode *inode, bool typed)
{
	if (typed)
		return inode_fs_typed(inode, inode->i_mode);
	return inode_fs_mode(inode, BPF_CORE_READ(inode, i_mode));
}

/* the type's name, once per row and CPU */
static __always_inline void fs_name(__u64 fs, char *name)
{
	struct file_system_type *t = (struct file_system_type *)fs;

	__builtin_memset(name, 0, BHP_FS_NAME);
	if (fs == BHP_FS_BDEV)
		__builtin_memcpy(name, "bdev", 5);
	else if (fs)
		bpf_probe_read_kernel_str(name, BHP_FS_NAME,
					  BPF_CORE_READ(t, name));
}

static __always_inline struct bhp_fs_stats *fs_slot(struct bhp_fs_key *key)
{
	__u32 k = (__u32)(key->fs >> 4 ^ key->fs >> 10 ^ key->path * 5) &
		  (FS_SLOTS - 1);
	struct bhp_fs_slot *sl = bpf_map_lookup_elem(&fs_slots, &k);

	if (!sl)
		return NULL;
	if (!sl->used) {
		/* only this CPU's programs write its copy, one at a time */
		sl->key = *key;
		fs_name(key->fs, sl->v.name);
		sl->used = 1;
	}
	if (sl->key.fs != key->fs || sl->key.path != key->path)
		return NULL;
	return &sl->v.s;
}

/* the row of filesystem fs on path (other past the two paths) */
static __always_inline struct bhp_fs_stats *fs_row(__u64 fs, __u32 path)
{
	struct bhp_fs_key key = { .fs = fs, .path = path };
	struct bhp_fs_stats *s;
	struct bhp_fs_val *v;
	__u32 zero = 0;

	if (path > PATH_NONE)
		key.path = PATH_NONE;
	s = fs_slot(&key);
	if (s)
		return s;
	v = bpf_map_lookup_elem(&fs_stats, &key);
	if (!v) {
		v = bpf_map_lookup_elem(&fs_zero, &zero);
		if (!v)
			return NULL;
		fs_name(fs, v->name);
		bpf_map_update_elem(&fs_stats, &key, v, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&fs_stats, &key);
	}
	/* s leads the value, so the compiler cannot offset v before its
	 * null check, which the verifier refuses */
	return (struct bhp_fs_stats *)v;
}

/* pages written back, where tracepoints count them folio by folio */
static __always_inline void fs_pages(__u64 fs, __u32 path, __u64 pages)
{
	struct bhp_fs_stats *s = fs_row(fs, path);

	if (s)
		s->wb_pages += pages;
}

#endif /* BHPROF_FSROWS_BPF_H */
