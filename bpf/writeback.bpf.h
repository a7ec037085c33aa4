/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writeback: do_writepages()'s context, the timed writeback functions
 * of each path, and their tracepoint flavours.
 *
 * Included by bhprof.bpf.c: one object.
 */
#ifndef BHPROF_WRITEBACK_BPF_H
#define BHPROF_WRITEBACK_BPF_H

/* ---- writeback context: do_writepages() covers every writeback ---- */

static __always_inline void wb_ctx_enter(void *mapping, void *wbc)
{
	FAULT_POINT(BHP_GROUP_WB);
	ctx_open(CTX_WB, BPF_CORE_READ((struct address_space *)mapping, host),
		 SRC_DO_WRITEPAGES, 0, PATH_NONE,
		 false);
}

static __always_inline void wb_ctx_leave(long ret)
{
	ctx_close(CTX_WB, SRC_DO_WRITEPAGES);
}

ENTRY_EXIT_PROBE(do_writepages, do_writepages, wb_ctx_enter, wb_ctx_leave)

/* ---- timed writeback functions ---- */

/* the inode's device passes -d; without -d it is not even read */
static __always_inline bool wb_inode_ok(struct inode *inode)
{
	__u32 dev = 0;

	if (!nr_filter_devs)
		return true;
	inode_path(inode, &dev);
	return dev_ok(dev);
}

/* the folio's inode, needed only to pass -d: once per folio written */
static __always_inline struct inode *wb_folio_inode(struct folio *folio)
{
	if (!nr_filter_devs)
		return NULL;
	return BPF_CORE_READ(folio, mapping, host);
}

static __always_inline void wb_fn_enter(struct inode *inode, __u64 wbc,
					__u32 pages)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct bhp_thread *t;
	long left = 0;

	if (!tgid_ok(id) || !wb_inode_ok(inode))
		return;
	if (wbc)
		left = BPF_CORE_READ((struct writeback_control *)wbc,
				     nr_to_write);
	t = thread_get(id);
	if (!t)
		return;
	t->wb.ts = 0;	/* open once whole: see ctx_reopen() */
	barrier();
	t->wb.wbc = wbc;
	t->wb.pages = pages;
	t->wb.nr_to_write = left;
	barrier();
	t->wb.ts = bpf_ktime_get_ns();
}

static __always_inline void wb_fn_exit(__u32 path)
{
	struct bhp_thread *t = thread_of(bpf_get_current_pid_tgid());
	struct bhp_path_stats *ps = pstats(path);
	struct bhp_wb_entry *e = t ? &t->wb : NULL;
	struct writeback_control *wbc;
	long left;

	if (!e || !e->ts)
		return;
	if (ps) {
		ps->wb_calls++;
		wbc = (struct writeback_control *)e->wbc;
		if (wbc) {
			left = BPF_CORE_READ(wbc, nr_to_write);
			ps->wb_pages += e->nr_to_write > left ?
						e->nr_to_write - left : 0;
		} else {
			ps->wb_pages += e->pages;
		}
		hist_add(path, HIST_WB_LAT, bpf_ktime_get_ns() - e->ts);
	}
	e->ts = 0;
	thread_trim();
}

/* block_write_full_folio(folio, wbc, get_block) and, before 6.8,
 * block_write_full_page(page, get_block, wbc): one folio either way. */
static __always_inline void bh_wb_enter(void *folio, void *arg1)
{
	wb_fn_enter(wb_folio_inode(folio), 0, folio_pages(folio));
}

static __always_inline void bh_wb_leave(long ret)
{
	wb_fn_exit(PATH_BH);
}

ENTRY_EXIT_PROBE(bh_writeback, block_write_full_folio, bh_wb_enter,
		 bh_wb_leave)

/* iomap_writepages(mapping, wbc, wpc, ops); since 6.18 (wpc) alone */
static __always_inline void iomap_wb_enter(void *arg0, void *arg1)
{
	struct writeback_control *wbc = arg1;
	struct address_space *mapping = arg0;
	struct inode *inode;

	if (iomap_wp_wpc_only) {
		struct iomap_writepage_ctx___v618 *wpc = arg0;

		wbc = BPF_CORE_READ(wpc, wbc);
		inode = BPF_CORE_READ(wpc, inode);
	} else {
		inode = BPF_CORE_READ(mapping, host);
	}
	wb_fn_enter(inode, (__u64)wbc, 0);
}

static __always_inline void iomap_wb_leave(long ret)
{
	wb_fn_exit(PATH_IOMAP);
}

ENTRY_EXIT_PROBE(iomap_writeback, iomap_writepages, iomap_wb_enter,
		 iomap_wb_leave)

/* ---- tracepoint flavours of the write and writeback contexts ---- */

/* the flusher: __writeback_single_inode() start and end */
SEC("?tp_btf/writeback_single_inode_start")
int BPF_PROG(tp_flush_enter, struct inode *inode)
{
	FAULT_POINT(BHP_GROUP_WB);
	ctx_open(CTX_WB, inode, SRC_FLUSHER, 0, PATH_NONE,
		 false);
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
	struct bhp_path_stats *ps;
	__u32 dev = 0;

	if (!tgid_ok(bpf_get_current_pid_tgid()))
		return;
	if (inode_path_t(inode, &dev, true) != PATH_IOMAP || !dev_ok(dev))
		return;
	ps = pstats(PATH_IOMAP);
	if (ps)
		ps->wb_pages += (len + (1ULL << page_shift) - 1) >> page_shift;
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
 * hands out. Since 6.9 the folio sits in wbc->fbatch; before that, only
 * the thread's writeback context says which inode it came from. The
 * folio is probe-read, not loaded typed: a variable index into the typed
 * array would need one load per slot, and the verifier of 6.4 and later
 * spends about 2 ms on each (a name search through the kernel's BTF for
 * every pointer loaded off a trusted one), 60 ms at every start. The
 * typed twin casts the one folio read so (TYPED_AS) and loads the rest.
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
	__u16 mode;

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
	if (typed) {
		inode = TYPED_AS(struct inode, inode);
		mode = inode->i_mode;
	} else {
		mode = BPF_CORE_READ(inode, i_mode);
	}
	if ((mode & BHP_S_IFMT) != BHP_S_IFBLK || bdev_path != PATH_BH)
		return;
	dev = typed ? inode->i_rdev : BPF_CORE_READ(inode, i_rdev);
	if (!dev_ok(dev))
		return;
	ps = pstats(PATH_BH);
	if (ps)
		ps->wb_pages += folio ? folio_pages_t(folio, typed) : 1;
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

#endif /* BHPROF_WRITEBACK_BPF_H */
