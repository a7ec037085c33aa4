/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Write calls of each path: blkdev_write_iter(),
 * iomap_file_buffered_write() and generic_perform_write().
 *
 * Included by bhprof.bpf.c: one object.
 */
#ifndef BHPROF_WRITE_BPF_H
#define BHPROF_WRITE_BPF_H

static __always_inline void blkdev_write_enter(void *iocb, void *from)
{
	write_enter(iocb_file(iocb), SRC_BLKDEV_WRITE, PATH_NONE);
}

static __always_inline void blkdev_write_leave(long ret)
{
	write_exit(SRC_BLKDEV_WRITE, ret);
}

/* set by userspace: the write group on fentry and fexit, whose exits
 * are never missed (a kretprobe's can be): no call's context goes stale */
const volatile bool write_exits_sure = false;

/*
 * iomap_file_buffered_write() and generic_perform_write() run nested
 * inside blkdev_write_iter() for every block device write, where the
 * outer call already holds the thread's context: one lookup says so
 * before the file is resolved to a path. The write syscall's own
 * context is no outer call: the engine takes it over. The clock is read
 * only where an exit may have been missed.
 */
static __always_inline struct bhp_ctx *write_outer(void)
{
	struct bhp_ctx *c = ctx_get(CTX_WRITE, bpf_get_current_pid_tgid());

	if (!c || (c->flags & CTX_F_PROV))
		return NULL;
	if (write_exits_sure || bpf_ktime_get_ns() - c->ts < CTX_STALE_NS)
		return c;
	return NULL;
}

static __always_inline bool write_nested(void)
{
	return write_outer() != NULL;
}

/* iomap's own engine: iomap even on a filesystem bhprof does not know */
static __always_inline void iomap_write_enter(void *iocb, void *from)
{
	struct bhp_ctx *c = write_outer();

	if (!c)
		write_enter(iocb_file(iocb), SRC_IOMAP_WRITE, PATH_IOMAP);
	else if (c->path == PATH_NONE)
		c->path = PATH_IOMAP;
}

static __always_inline void iomap_write_leave(long ret)
{
	write_exit(SRC_IOMAP_WRITE, ret);
}

static __always_inline void generic_write_enter(void *arg0, void *from)
{
	if (!write_nested())
		write_enter(gpw_file(arg0), SRC_GENERIC_WRITE, PATH_NONE);
}

static __always_inline void generic_write_leave(long ret)
{
	write_exit(SRC_GENERIC_WRITE, ret);
}

/*
 * Tracepoint mode's witness of iomap's engine inside a write syscall:
 * iomap_iter() maps every extent iomap_file_buffered_write() (and
 * iomap's direct I/O) writes, and iomap_iter_dstmap fires once for each
 * (the iomap_iter event twice a write). 5.15 on; before, iomap_apply()
 * and its iomap_apply_dstmap (5.10.y kernels have both events, their
 * buffered writes on iomap_apply). A block device's path is its
 * kernel's, whichever engine runs it (6.6 on, iomap's with buffer heads
 * where they are built): its writes, most of what a raw writer makes,
 * end here before any lookup.
 */
static __always_inline void iomap_write_seen(struct inode *inode)
{
	struct bhp_ctx *c;

	if (!inode || (inode->i_mode & BHP_S_IFMT) == BHP_S_IFBLK)
		return;
	c = ctx_get(CTX_WRITE, bpf_get_current_pid_tgid());
	if (c && c->src == SRC_SYSCALL_WRITE && !(c->flags & CTX_F_IOMAP))
		c->flags |= CTX_F_IOMAP;
}

SEC("?tp_btf/iomap_iter_dstmap")
int BPF_PROG(tp_iomap_write_seen, struct inode *inode)
{
	iomap_write_seen(inode);
	return 0;
}

SEC("?tp_btf/iomap_apply_dstmap")
int BPF_PROG(tp_iomap_write_seen_apply, struct inode *inode)
{
	iomap_write_seen(inode);
	return 0;
}

/*
 * blkdev_write_iter(iocb, from) in every kernel: its fentry program takes
 * the iocb typed, so that the file and its inode are plain loads, where
 * the shared flavour's probe reads cost some 35 ns each, on every write
 * to a block device.
 */
SEC("?fentry/blkdev_write_iter")
int BPF_PROG(fe_blkdev_write, struct kiocb *iocb)
{
	engine_enter(iocb->ki_filp, SRC_BLKDEV_WRITE, PATH_NONE, true);
	return 0;
}

EXIT_AND_KPROBES(blkdev_write, blkdev_write_iter, blkdev_write_enter,
		 blkdev_write_leave)
ENTRY_EXIT_PROBE(iomap_write, iomap_file_buffered_write, iomap_write_enter,
		 iomap_write_leave)
ENTRY_EXIT_PROBE(generic_write, generic_perform_write, generic_write_enter,
		 generic_write_leave)

#endif /* BHPROF_WRITE_BPF_H */
