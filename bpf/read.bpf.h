/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read calls of each path, the read call contexts that attribute
 * O_DIRECT read bios, and what tracepoint mode sees of reads.
 *
 * Included by bhprof.bpf.c: one object.
 */
#ifndef BHPROF_READ_BPF_H
#define BHPROF_READ_BPF_H

/* ---- read calls: read_folio and readahead of each path ---- */

static __always_inline void read_fn_enter(struct inode *inode, __u32 src,
					  __u32 hint, __u32 pages)
{
	FAULT_POINT(BHP_GROUP_READ);
	if (inode)
		ctx_open_n(CTX_READ, inode, src, 0, hint, CTX_PATHS, pages);
}

/* The end of a timed read or page_mkwrite call opened by src: counted,
 * and its latency in histogram kind. */
static __always_inline void timed_exit(__u32 ctx_kind, __u32 src,
				       __u32 kind)
{
	struct bhp_ctx *c = ctx_get(ctx_kind, bpf_get_current_pid_tgid());
	struct bhp_path_stats *ps;

	if (!c || c->src != src)
		return;
	ps = c->path < NR_PATHS ? pstats(c->path) : NULL;
	if (ps) {
		if (kind == HIST_MKWRITE_LAT) {
			ps->mkwrite_calls++;
		} else if (kind == HIST_PASS_LAT) {
			ps->wb_passes++;
		} else {
			ps->read_calls++;
			ps->read_pages += c->pages;
		}
		hist_add(c->path, kind, bpf_ktime_get_ns() - c->ts);
	}
	c->src = 0;
	thread_trim();
}

static __always_inline void read_fn_exit(__u32 src)
{
	timed_exit(CTX_READ, src, HIST_READ_LAT);
}

static __always_inline struct inode *folio_inode(struct folio *folio)
{
	return BPF_CORE_READ(folio, mapping, host);
}

static __always_inline struct inode *rac_inode(struct readahead_control *rac)
{
	return BPF_CORE_READ(rac, mapping, host);
}

/* readahead_count(): the batch the readahead function must read */
static __always_inline __u32 rac_pages(struct readahead_control *rac)
{
	return BPF_CORE_READ(rac, _nr_pages);
}

/*
 * The folio a read function is handed, or up to 5.18 its page ("fs:
 * Convert ... to read_folio" changed every family at once in 5.19):
 * one page then, a file's page cache had no large folios.
 */
static __always_inline void read_one_enter(void *f, __u32 src, __u32 hint)
{
	struct page *page = f;

	if (!f)
		return;
	if (read_by_page)
		read_fn_enter(BPF_CORE_READ(page, mapping, host), src, hint, 1);
	else
		read_fn_enter(folio_inode(f), src, hint, folio_pages(f));
}

/* ARG: the folio's place, a0 or a1 */
#define READ_FOLIO_FN(name, src, hint, ARG)                                \
	static __always_inline void name##_enter(void *a0, void *a1)       \
	{                                                                  \
		read_one_enter(ARG, src, hint);                            \
	}                                                                  \
	static __always_inline void name##_leave(long ret)                 \
	{                                                                  \
		read_fn_exit(src);                                         \
	}

#define READAHEAD_FN(name, src, hint)                                      \
	static __always_inline void name##_enter(void *rac, void *a1)      \
	{                                                                  \
		read_fn_enter(rac_inode(rac), src, hint, rac_pages(rac));  \
	}                                                                  \
	static __always_inline void name##_leave(long ret)                 \
	{                                                                  \
		read_fn_exit(src);                                         \
	}

/* block_read_full_folio(folio, get_block), mpage_readahead(rac, get_block):
 * block devices with buffer heads and most bh filesystems */
READ_FOLIO_FN(bh_read_folio, SRC_READ_BH_FOLIO, PATH_NONE, a0)
READAHEAD_FN(bh_readahead, SRC_READ_BH_RA, PATH_NONE)
/* ext4 reads through its own ext4_mpage_readpages(), not the two above;
 * ext4_read_folio(file, folio), as ->read_folio is called */
READ_FOLIO_FN(ext4_read_folio, SRC_READ_EXT4_FOLIO, PATH_BH, a1)
READAHEAD_FN(ext4_readahead, SRC_READ_EXT4_RA, PATH_BH)

/*
 * iomap_read_folio(folio, ops) and iomap_readahead(rac, ops) until 7.1;
 * 7.2 passes (ops, ctx) with the folio or rac inside the context
 * (iomap_read_folio_ctx, after 6.18). Userspace
 * reads which from BTF.
 */
static __always_inline void iomap_read_folio_enter(void *a0, void *a1)
{
	void *folio = a0;

	if (iomap_read_ctx)
		folio = BPF_CORE_READ((struct iomap_read_folio_ctx___v72 *)a1,
				      cur_folio);
	read_one_enter(folio, SRC_READ_IOMAP_FOLIO, PATH_IOMAP);
}

static __always_inline void iomap_read_folio_leave(long ret)
{
	read_fn_exit(SRC_READ_IOMAP_FOLIO);
}

static __always_inline void iomap_readahead_enter(void *a0, void *a1)
{
	struct readahead_control *rac = a0;

	if (iomap_read_ctx)
		rac = BPF_CORE_READ((struct iomap_read_folio_ctx___v72 *)a1,
				    rac);
	if (rac)
		read_fn_enter(rac_inode(rac), SRC_READ_IOMAP_RA, PATH_IOMAP,
			      rac_pages(rac));
}

static __always_inline void iomap_readahead_leave(long ret)
{
	read_fn_exit(SRC_READ_IOMAP_RA);
}

ENTRY_EXIT_PROBE(bh_read_folio, block_read_full_folio, bh_read_folio_enter,
		 bh_read_folio_leave)
ENTRY_EXIT_PROBE(bh_readahead, mpage_readahead, bh_readahead_enter,
		 bh_readahead_leave)
ENTRY_EXIT_PROBE(ext4_read_folio, ext4_read_folio, ext4_read_folio_enter,
		 ext4_read_folio_leave)
ENTRY_EXIT_PROBE(ext4_readahead, ext4_readahead, ext4_readahead_enter,
		 ext4_readahead_leave)
ENTRY_EXIT_PROBE(iomap_read_folio, iomap_read_folio, iomap_read_folio_enter,
		 iomap_read_folio_leave)
ENTRY_EXIT_PROBE(iomap_readahead, iomap_readahead, iomap_readahead_enter,
		 iomap_readahead_leave)

/* ---- read call contexts: they attribute O_DIRECT read bios ---- */

static __always_inline void rcall_enter_t(struct file *file, __u32 src,
					  bool typed)
{
	struct inode *inode;
	__u32 flags = 0;

	FAULT_POINT(BHP_GROUP_READ);
	inode = call_inode(file, &flags, typed);
	if (inode)
		ctx_open_t(CTX_RCALL, inode, src, flags, PATH_NONE, CTX_PATHS, 0,
			   typed);
}

static __always_inline void rcall_enter(struct file *file, __u32 src)
{
	rcall_enter_t(file, src, false);
}

static __always_inline void blkdev_read_enter(void *iocb, void *to)
{
	rcall_enter(iocb_file(iocb), SRC_BLKDEV_READ);
}

static __always_inline void blkdev_read_leave(long ret)
{
	ctx_close(CTX_RCALL, SRC_BLKDEV_READ);
}

ENTRY_EXIT_PROBE(blkdev_read, blkdev_read_iter, blkdev_read_enter,
		 blkdev_read_leave)

/* set by userspace once iomap's read events are attached */
bool iomap_read_witness;

/*
 * Pages read, in tracepoint mode: a folio the read syscall adds to the
 * page cache is one it is about to read (readahead and read_folio both
 * add before they read). No function of the read path has a tracepoint
 * for its calls or latency. A file of iomap's by its operations reads
 * through iomap only if iomap's read event follows (7.x's fuse names
 * iomap's helpers and reads through its own fuse_readahead): its pages
 * wait in the call's context for that event (iomap_read_seen()), and go
 * uncounted without it, read by no path's engine.
 */
static __always_inline void read_added(struct address_space *mapping,
				       __u32 pages)
{
	struct bhp_ctx *c = ctx_get(CTX_RCALL, bpf_get_current_pid_tgid());
	struct bhp_path_stats *ps;
	__u32 dev = 0, path;

	if (!c || c->src != SRC_SYSCALL_READ)
		return;
	/* the event's page or folio is typed: plain loads to the inode */
	path = inode_path_t(mapping->host, &dev, true);
	if (path >= NR_PATHS || !dev_ok(dev))
		return;
	if (path == PATH_IOMAP && iomap_read_witness &&
	    !(c->flags & CTX_F_IOMAP)) {
		c->pages += pages;
		return;
	}
	ps = pstats(path);
	if (ps)
		ps->read_pages += pages;
}

SEC("?tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(tp_read_folio_added, struct folio *folio)
{
	read_added(folio->mapping, folio_pages_t(folio, true));
	return 0;
}

/* the same before 5.16, whose event hands a page ("mm/filemap: Add
 * filemap_add_folio()" moved it to folios) */
SEC("?tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(tp_read_page_added, struct page *page)
{
	read_added(page->mapping, 1);
	return 0;
}

/*
 * Read calls of the iomap path, in tracepoint mode: iomap_read_folio()
 * and iomap_readahead() each fire one event per call. Their pages are
 * those tp_read_folio_added kept waiting for it (the readpage event says
 * 1 whatever the folio's size), their latency unknown: no event marks
 * the end.
 */
static __always_inline void iomap_read_seen(struct inode *inode)
{
	struct bhp_path_stats *ps;
	struct bhp_ctx *c;
	__u32 dev = 0;

	FAULT_POINT(BHPROF_FAULT_IOMAP_READS);
	if (!tgid_ok(bpf_get_current_pid_tgid()))
		return;
	if (!iomap_event_inode(inode, &dev) || !dev_ok(dev))
		return;
	ps = pstats(PATH_IOMAP);
	if (!ps)
		return;
	ps->read_calls++;
	/* the pages its read syscall added before it, iomap's now */
	c = ctx_get(CTX_RCALL, bpf_get_current_pid_tgid());
	if (c && c->src == SRC_SYSCALL_READ) {
		c->flags |= CTX_F_IOMAP;
		ps->read_pages += c->pages;
		c->pages = 0;
	}
}

SEC("?tp_btf/iomap_readpage")
int BPF_PROG(tp_iomap_readpage, struct inode *inode)
{
	iomap_read_seen(inode);
	return 0;
}

SEC("?tp_btf/iomap_readahead")
int BPF_PROG(tp_iomap_readahead, struct inode *inode)
{
	iomap_read_seen(inode);
	return 0;
}

#endif /* BHPROF_READ_BPF_H */
