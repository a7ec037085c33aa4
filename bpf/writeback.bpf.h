/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writeback: do_writepages() over a mapping, timed on both paths, the
 * engines under it, and the tracepoint flavours.
 *
 * Included by bhprof.bpf.c: one object.
 */
#ifndef BHPROF_WRITEBACK_BPF_H
#define BHPROF_WRITEBACK_BPF_H

/*
 * ---- writeback calls: do_writepages() over a mapping, on both paths ----
 *
 * One call of the mapping's ->writepages, whoever started it (the
 * flusher, fsync, sync): timed, its pages the drop in wbc->nr_to_write
 * (the writeback loops of every engine take a folio's pages off it),
 * and counted on the path of the mapping's inode. It opens the writeback
 * context that the bios and buffer_heads made under it take their path
 * from. A do_writepages() inside another on one thread (depth) is part
 * of the outer call.
 */
static __always_inline void wb_ctx_enter(void *mapping, void *wbc)
{
	__u64 id = bpf_get_current_pid_tgid(), now;
	struct bhp_thread *t;
	struct inode *inode;
	struct bhp_ctx *c;

	FAULT_POINT(BHP_GROUP_WB);
	if (!tgid_ok(id))
		return;
	t = thread_get(id);
	if (!t)
		return;
	now = bpf_ktime_get_ns();
	/* a missed return (a kretprobe out of instances) goes stale */
	if (t->wb.ts && now - t->wb.ts < CTX_STALE_NS) {
		t->wb.depth++;
		return;
	}
	inode = BPF_CORE_READ((struct address_space *)mapping, host);
	ctx_open(CTX_WB, inode, SRC_DO_WRITEPAGES, 0, PATH_NONE, CTX_ANY);
	/* ours, not one left open by a missed return (-d may refuse ours) */
	c = ctx_in(t, CTX_WB);
	c = c && c->src == SRC_DO_WRITEPAGES && c->inode == (__u64)inode ?
		    c : NULL;
	t->wb.path = c ? c->path : PATH_NONE;
	t->wb.fs = c ? c->fs : 0;
	t->wb.wbc = (__u64)wbc;
	t->wb.nr_to_write = wbc ? BPF_CORE_READ((struct writeback_control *)wbc,
					       nr_to_write) : 0;
	t->wb.depth = 0;
	barrier();
	t->wb.ts = now;
}

static __always_inline void wb_ctx_leave(long ret)
{
	struct bhp_thread *t = thread_of(bpf_get_current_pid_tgid());
	struct bhp_wb_entry *e = t ? &t->wb : NULL;
	struct writeback_control *wbc;
	struct bhp_path_stats *ps;
	struct bhp_fs_stats *fs;
	long left, pages;

	if (!e || !e->ts)
		return;
	if (e->depth) {
		e->depth--;
		return;
	}
	ps = pstats(e->path);
	if (ps) {
		/* a plain load first: CO-RE would relocate e's own type */
		wbc = (struct writeback_control *)e->wbc;
		left = BPF_CORE_READ(wbc, nr_to_write);
		pages = e->nr_to_write > left ? e->nr_to_write - left : 0;
		ps->wb_calls++;
		ps->wb_pages += pages;
		hist_add(e->path, HIST_WB_LAT, bpf_ktime_get_ns() - e->ts);
		fs = fs_row(e->fs, e->path);
		if (fs) {
			fs->wb_calls++;
			fs->wb_pages += pages;
		}
	}
	e->ts = 0;
	ctx_close(CTX_WB, SRC_DO_WRITEPAGES);
}

ENTRY_EXIT_PROBE(do_writepages, do_writepages, wb_ctx_enter, wb_ctx_leave)

/*
 * ---- the engines under a writeback call ----
 *
 * Which code wrote the pages back: a detail of the writeback call around
 * it, counted on its path. Each is counted on entry, inside a writeback
 * call only (memory reclaim's ->writepage is none).
 *
 * A mapping whose helpers name no path takes the path of the engine that
 * writes it back: the new ntfs driver's own metadata inodes ($MFT, its
 * bitmap) have none of the helpers a file's mapping has, and go through
 * iomap_writepages. The call, and the bios and buffer_heads made under
 * it from then on, land on that path.
 */
static __always_inline void wb_engine(__u32 off, __u32 path)
{
	struct bhp_thread *t = thread_of(bpf_get_current_pid_tgid());
	struct bhp_path_stats *ps;
	struct bhp_ctx *c;

	if (!t || !t->wb.ts)
		return;
	if (t->wb.path >= NR_PATHS) {
		/* ours only: -d refuses a context of another device */
		c = ctx_in(t, CTX_WB);
		if (!c || c->src != SRC_DO_WRITEPAGES || c->path < PATH_NONE)
			return;
		c->path = path;
		t->wb.path = path;
	}
	ps = pstats(t->wb.path);
	if (ps)
		(*(bhp_u64 *)((char *)ps + off))++;
}

#define ENGINE_PROBE(name, func, field, path)                              \
	SEC("?fentry/" #func)                                              \
	int BPF_PROG(fe_##name)                                            \
	{                                                                  \
		wb_engine(offsetof(struct bhp_path_stats, field), path);   \
		return 0;                                                  \
	}                                                                  \
	SEC("?kprobe/" #func)                                              \
	int BPF_KPROBE(kp_##name)                                          \
	{                                                                  \
		wb_engine(offsetof(struct bhp_path_stats, field), path);   \
		return 0;                                                  \
	}

/* block_write_full_folio(), block_write_full_page() before 6.8: a folio */
ENGINE_PROBE(bh_writeback, block_write_full_folio, wb_eng_folio, PATH_BH)
/* __mpage_writepages() since mpage_writepages() became its inline
 * wrapper (7.x) */
ENGINE_PROBE(mpage_writeback, mpage_writepages, wb_eng_mpage, PATH_BH)
ENGINE_PROBE(ext4_writeback, ext4_writepages, wb_eng_ext4, PATH_BH)
ENGINE_PROBE(iomap_writeback, iomap_writepages, wb_eng_iomap, PATH_IOMAP)

/* ---- tracepoint flavours of the write and writeback contexts ---- */

/* the flusher: __writeback_single_inode() start and end */
SEC("?tp_btf/writeback_single_inode_start")
int BPF_PROG(tp_flush_enter, struct inode *inode)
{
	FAULT_POINT(BHP_GROUP_WB);
	ctx_open(CTX_WB, inode, SRC_FLUSHER, 0, PATH_NONE, CTX_ANY);
	return 0;
}

SEC("?tp_btf/writeback_single_inode")
int BPF_PROG(tp_flush_exit)
{
	ctx_close(CTX_WB, SRC_FLUSHER);
	return 0;
}

/* iomap pages: one event per folio, iomap_writepage until 6.17 */
static __always_inline void iomap_folio_seen(struct inode *inode, __u64 len)
{
	__u64 pages = (len + (1ULL << page_shift) - 1) >> page_shift;
	struct bhp_path_stats *ps;
	__u32 dev = 0;

	if (!tgid_ok(bpf_get_current_pid_tgid()))
		return;
	if (!iomap_event_inode(inode, &dev) || !dev_ok(dev))
		return;
	ps = pstats(PATH_IOMAP);
	if (ps)
		ps->wb_pages += pages;
	fs_pages(inode_fs_typed(inode, inode->i_mode), PATH_IOMAP, pages);
}

SEC("?tp_btf/iomap_writepage")
int BPF_PROG(tp_iomap_folio, struct inode *inode, loff_t off, u64 len)
{
	iomap_folio_seen(inode, len);
	return 0;
}

SEC("?tp_btf/iomap_writeback_folio")
int BPF_PROG(tp_iomap_folio_new, struct inode *inode, loff_t off, u64 len)
{
	iomap_folio_seen(inode, len);
	return 0;
}

/*
 * bh pages: wbc_writepage fires once per folio the generic writeback loop
 * hands out (write_cache_pages, and writeback_iter since 6.9: block
 * devices, mpage_writepages' FAT and exFAT, and iomap's, whose own
 * events count them). Since 6.9 the folio sits in wbc->fbatch; before
 * that, only the thread's writeback context says which inode it came
 * from. The folio is probe-read, not loaded typed: a variable index into
 * the typed array would need one load per slot, and the verifier of 6.4
 * and later spends about 2 ms on each (a name search through the
 * kernel's BTF for every pointer loaded off a trusted one), 60 ms at
 * every start. The typed twin casts the one folio read so (TYPED_AS) and
 * loads the rest.
 */
static __always_inline void bh_folio_seen(struct writeback_control *wbc,
					  bool typed)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct bhp_path_stats *ps;
	struct inode *inode = NULL;
	struct folio *folio = NULL;
	struct bhp_ctx *c;
	__u32 dev = 0, i;
	__u64 pages;

	if (typed)
		FAULT_POINT(BHPROF_FAULT_TYPED);
	if (!tgid_ok(id))
		return;
	if (bpf_core_field_exists(wbc->fbatch)) {
		i = wbc->fbatch.i;	/* a typed argument: a plain load */
		if (i < 1 || i > 31)
			return;
		folio = BPF_CORE_READ(wbc, fbatch.folios[i - 1]);
		if (!folio)
			return;
		if (typed) {
			folio = TYPED_AS(struct folio, folio);
			inode = folio->mapping->host;
		} else {
			inode = BPF_CORE_READ(folio, mapping, host);
		}
	} else {
		c = ctx_get(CTX_WB, id);
		if (c)
			inode = (struct inode *)c->inode;
	}
	if (!inode)
		return;
	if (typed)
		inode = TYPED_AS(struct inode, inode);
	/* a block device's own, or a file's of a bh filesystem */
	if (inode_path_t(inode, &dev, typed) != PATH_BH || !dev_ok(dev))
		return;
	pages = folio ? folio_pages_t(folio, typed) : 1;
	ps = pstats(PATH_BH);
	if (ps)
		ps->wb_pages += pages;
	fs_pages(inode_fs_t(inode, typed), PATH_BH, pages);
}

SEC("?tp_btf/wbc_writepage")
int BPF_PROG(tp_bh_folio, struct writeback_control *wbc)
{
	bh_folio_seen(wbc, false);
	return 0;
}

/* the same, the folio cast typed */
SEC("?tp_btf/wbc_writepage")
int BPF_PROG(tp_bh_folio_t, struct writeback_control *wbc)
{
	bh_folio_seen(wbc, true);
	return 0;
}

/*
 * ext4 pages: ext4 writes its data back through its own loop, which fires
 * no wbc_writepage; ext4_writepages_result gives what it wrote. A module's
 * tracepoint (ext4's, where ext4 is a module) hands its pointers over as
 * maybe-NULL since 6.12.y and 6.13. The inode is probe-read: the raw_tp
 * twin, for a module without BTF, gets it untyped.
 */
static __always_inline void ext4_pages_seen(struct inode *inode,
					    int pages_written)
{
	struct bhp_path_stats *ps;
	__u32 dev = 0, path;

	if (!inode || pages_written <= 0 ||
	    !tgid_ok(bpf_get_current_pid_tgid()))
		return;
	path = inode_path_t(inode, &dev, false);
	if (path >= NR_PATHS || !dev_ok(dev))
		return;
	ps = pstats(path);
	if (ps)
		ps->wb_pages += pages_written;
	fs_pages(inode_fs_t(inode, false), path, pages_written);
}

SEC("?tp_btf/ext4_writepages_result")
int BPF_PROG(tp_wb_ext4, struct inode *inode, struct writeback_control *wbc,
	     int ret, int pages_written)
{
	ext4_pages_seen(inode, pages_written);
	return 0;
}

SEC("?raw_tp/ext4_writepages_result")
int BPF_PROG(tp_wb_ext4_raw, struct inode *inode,
	     struct writeback_control *wbc, int ret, int pages_written)
{
	ext4_pages_seen(inode, pages_written);
	return 0;
}

#endif /* BHPROF_WRITEBACK_BPF_H */
