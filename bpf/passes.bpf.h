/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Writeback passes over an inode, timed, from tracepoints in every attach
 * mode (the pass group): __writeback_single_inode() for any filesystem,
 * and on ext4 ext4_writepages(), whose pair also fires for the passes no
 * flusher makes (fsync, sync_file_range, jbd2's ordered data). A thread
 * holds one pass at a time: the outermost counts, so an ext4 inode that
 * the flusher writes back is one pass, not two.
 *
 * Included by bhprof.bpf.c: one object.
 */
#ifndef BHPROF_PASSES_BPF_H
#define BHPROF_PASSES_BPF_H

/* the block-device pseudo filesystem, which holds every bdev inode */
#define BHP_BDEVFS_MAGIC 0x62646576

/*
 * A super block -> the path of its regular files, learnt from passes.
 * Its magic is in the key: a super block freed at umount and its memory
 * given to another filesystem's is another key.
 */
struct sb_key {
	__u64 sb;
	__u64 magic;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_AOPS);
	__type(key, struct sb_key);
	__type(value, __u32);
} sb_paths SEC(".maps");

/*
 * The path of a pass over an inode that is not a regular file: a
 * directory's page cache has no helpers of either family (ext4's has
 * empty operations), yet its pass writes the inode all the same, on its
 * filesystem's path: the path the super block's regular files were
 * found on. Before one is, the filesystem table says.
 */
static __always_inline __u32 sb_path(struct sb_key *key)
{
	__u32 *p;

	if (!aops_on)
		return fs_path(key->magic);
	p = bpf_map_lookup_elem(&sb_paths, key);
	return p ? *p : fs_path(key->magic);
}

/* the latest regular file's path is its super block's */
static __always_inline __u32 file_pass_path(struct inode *inode,
					    struct sb_key *key, bool typed)
{
	__u32 path = typed ? FILE_PATH(inode, PLAIN_READ) :
			     FILE_PATH(inode, BPF_CORE_READ), *p;

	if (!aops_on || path >= NR_PATHS)
		return path;
	p = bpf_map_lookup_elem(&sb_paths, key);
	if (!p || *p != path)
		bpf_map_update_elem(&sb_paths, key, &path, BPF_ANY);
	return path;
}

/*
 * The path and device of any inode a pass goes over. A block device's
 * own inode takes the bdev path, a regular file its page cache's. Any
 * other inode takes its filesystem's, whatever its type: a directory's
 * pass writes its inode all the same. A device node (S_IFBLK on ext4) is
 * its filesystem's: its pass writes the node, not the device. typed (a
 * constant) says inode came typed (tp_btf), not raw (raw_tp).
 */
static __always_inline __u32 pass_path(struct inode *inode, __u32 *dev,
				       bool typed)
{
	struct super_block *sb = READ_T(typed, inode, i_sb);
	struct sb_key key = { (__u64)sb, READ_T(typed, sb, s_magic) };

	if (key.magic == BHP_BDEVFS_MAGIC) {
		*dev = READ_T(typed, inode, i_rdev);
		return bdev_path;
	}
	*dev = READ_T(typed, sb, s_dev);
	if ((READ_T(typed, inode, i_mode) & BHP_S_IFMT) == BHP_S_IFREG)
		return file_pass_path(inode, &key, typed);
	return sb_path(&key);
}

static __always_inline void pass_open(struct inode *inode, __u32 src,
				      bool typed)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct bhp_ctx c = {};

	/*
	 * A module's tracepoint (ext4's, where ext4 is a module) hands its
	 * pointers over as maybe-NULL since 6.12.y and 6.13: the verifier
	 * refuses the load without this test.
	 */
	if (!inode)
		return;
	FAULT_POINT(BHP_GROUP_PASS);
	if (!tgid_ok(id))
		return;
	c.path = pass_path(inode, &c.dev, typed);
	if (c.path >= NR_PATHS || !dev_ok(c.dev))
		return;
	c.src = src;
	c.inode = (__u64)inode;
	ctx_set(id, CTX_PASS, &c);
}

SEC("?tp_btf/writeback_single_inode_start")
int BPF_PROG(tp_pass_start, struct inode *inode)
{
	pass_open(inode, SRC_PASS_INODE, true);
	return 0;
}

SEC("?tp_btf/writeback_single_inode")
int BPF_PROG(tp_pass_end)
{
	timed_exit(CTX_PASS, SRC_PASS_INODE, HIST_PASS_LAT);
	return 0;
}

SEC("?tp_btf/ext4_writepages")
int BPF_PROG(tp_pass_ext4, struct inode *inode)
{
	pass_open(inode, SRC_PASS_EXT4, true);
	return 0;
}

SEC("?tp_btf/ext4_writepages_result")
int BPF_PROG(tp_pass_ext4_end)
{
	timed_exit(CTX_PASS, SRC_PASS_EXT4, HIST_PASS_LAT);
	return 0;
}

/*
 * The same events where ext4 is a module without BTF (before 5.11),
 * which tp_btf cannot attach to: a raw tracepoint needs no BTF of its
 * arguments, and finds a module's since 5.0. Its inode is a number to
 * the verifier: probe reads only.
 */
SEC("?raw_tp/ext4_writepages")
int BPF_PROG(tp_pass_ext4_raw, struct inode *inode)
{
	pass_open(inode, SRC_PASS_EXT4, false);
	return 0;
}

SEC("?raw_tp/ext4_writepages_result")
int BPF_PROG(tp_pass_ext4_end_raw)
{
	timed_exit(CTX_PASS, SRC_PASS_EXT4, HIST_PASS_LAT);
	return 0;
}

#endif /* BHPROF_PASSES_BPF_H */
