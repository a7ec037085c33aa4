/* SPDX-License-Identifier: GPL-2.0 */
/*
 * page_mkwrite, and an O_DIRECT write's buffered fallback: the write
 * paths no syscall shows.
 *
 * Included by bhprof.bpf.c: one object.
 */
#ifndef BHPROF_MKWRITE_BPF_H
#define BHPROF_MKWRITE_BPF_H

/* ---- page_mkwrite: a shared mapping's first write to a clean page ---- */

static __always_inline struct inode *vma_inode(struct vm_area_struct *vma)
{
	return file_inode_of(BPF_CORE_READ(vma, vm_file));
}

static __always_inline void mkwrite_enter(struct inode *inode, __u32 src,
					  __u32 hint)
{
	FAULT_POINT(BHP_GROUP_MKWRITE);
	if (inode)
		ctx_open(CTX_MK, inode, src, 0, hint, CTX_PATHS);
}

static __always_inline void mkwrite_exit(__u32 src)
{
	timed_exit(CTX_MK, src, HIST_MKWRITE_LAT);
}

/* block_page_mkwrite(vma, vmf, get_block) */
static __always_inline void bh_mkwrite_enter(void *vma, void *vmf)
{
	mkwrite_enter(vma_inode(vma), SRC_MKWRITE_BH, PATH_NONE);
}

static __always_inline void bh_mkwrite_leave(long ret)
{
	mkwrite_exit(SRC_MKWRITE_BH);
}

/* ext4_page_mkwrite(vmf): calls block_page_mkwrite only with delalloc */
static __always_inline void ext4_mkwrite_enter(void *vmf, void *a1)
{
	mkwrite_enter(vma_inode(BPF_CORE_READ((struct vm_fault *)vmf, vma)),
		      SRC_MKWRITE_EXT4, PATH_BH);
}

static __always_inline void ext4_mkwrite_leave(long ret)
{
	mkwrite_exit(SRC_MKWRITE_EXT4);
}

/* iomap_page_mkwrite(vmf, ops); 6.18 adds a third, private */
static __always_inline void iomap_mkwrite_enter(void *vmf, void *a1)
{
	mkwrite_enter(vma_inode(BPF_CORE_READ((struct vm_fault *)vmf, vma)),
		      SRC_MKWRITE_IOMAP, PATH_IOMAP);
}

static __always_inline void iomap_mkwrite_leave(long ret)
{
	mkwrite_exit(SRC_MKWRITE_IOMAP);
}

ENTRY_EXIT_PROBE(bh_mkwrite, block_page_mkwrite, bh_mkwrite_enter,
		 bh_mkwrite_leave)
ENTRY_EXIT_PROBE(ext4_mkwrite, ext4_page_mkwrite, ext4_mkwrite_enter,
		 ext4_mkwrite_leave)
ENTRY_EXIT_PROBE(iomap_mkwrite, iomap_page_mkwrite, iomap_mkwrite_enter,
		 iomap_mkwrite_leave)

/* ---- direct_write_fallback(iocb, iter, direct_written, buffered_written),
 * 6.6 and later: an O_DIRECT write whose rest went through the page cache */

static __always_inline void dwf_hit(struct kiocb *iocb, long buffered)
{
	struct inode *inode = file_inode_of(iocb_file(iocb));
	struct bhp_path_stats *ps;
	__u32 dev = 0, path;

	FAULT_POINT(BHP_GROUP_WRITE);
	if (!inode || !tgid_ok(bpf_get_current_pid_tgid()))
		return;
	path = inode_path(inode, &dev);
	ps = path < NR_PATHS && dev_ok(dev) ? pstats(path) : NULL;
	if (!ps)
		return;
	ps->dwf_calls++;
	ps->dwf_bytes += buffered > 0 ? buffered : 0;
}

SEC("?fentry/direct_write_fallback")
int BPF_PROG(fe_dwf)
{
	__u64 iocb = 0, buffered = 0;

	FUNC_ARG(ctx, 0, &iocb);
	FUNC_ARG(ctx, 3, &buffered);
	dwf_hit((struct kiocb *)iocb, (long)buffered);
	return 0;
}

SEC("?kprobe/direct_write_fallback")
int BPF_KPROBE(kp_dwf, struct kiocb *iocb, void *iter, long direct,
	       long buffered)
{
	dwf_hit(iocb, buffered);
	return 0;
}

#endif /* BHPROF_MKWRITE_BPF_H */
