// SPDX-License-Identifier: GPL-2.0
/*
 * bhprof: the buffer_head and iomap write paths, side by side.
 *
 * Every logical probe exists here in each flavour (fentry/fexit,
 * kprobe/kretprobe, tracepoint); all programs are declared "?" (not
 * loaded) and userspace turns on the flavour that attaches on the running
 * kernel. Counters are per-CPU and cumulative; userspace diffs them.
 *
 * Attribution: a write call or writeback pass opens a per-thread context.
 * A write bio submitted under a context belongs to the path of the inode
 * that owns its pages (so ext4's own writepages still counts as bh); an
 * O_DIRECT bio, whose pages belong to no inode, to the path of the file
 * being written. buffer_head allocations take the context's path.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bhprof.h"
#include "bhprof_hist.h"
#include "compat.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by userspace between open and load. */
const volatile __u32 bdev_path = PATH_BH;
const volatile __u32 filter_tgid = 0;
/* -d: the devices, scanned in place (a hash lookup cost more, on every
 * write call, bio and folio) */
const volatile __u32 nr_filter_devs = 0;
const volatile __u32 filter_devs[BHP_MAX_FILTER_DEVS] = {};
const volatile __u64 bh_cs_lo = 0;	/* alloc_buffer_head's text range */
const volatile __u64 bh_cs_hi = 0;
const volatile bool iomap_wp_wpc_only = false;
const volatile bool gpw_takes_file = false;
const volatile __u32 page_shift = 12;
const volatile bool head_is_mask = false;	/* 7.2 compound_info, see compat */
const volatile bool iomap_read_ctx = false;	/* 7.2 iomap_read_folio(ops, ctx) */
/* dev_slots in use, less one (tests narrow it to make rows share one) */
const volatile __u32 dev_slot_mask = DEV_SLOTS - 1;

/* a compiler barrier: program order is what another program on this CPU
 * sees */
#define barrier() asm volatile("" ::: "memory")

/* Stale contexts (a missed kretprobe) are replaced after this long. */
#define CTX_STALE_NS (60ULL * 1000000000ULL)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NR_PATHS);
	__type(key, __u32);
	__type(value, struct bhp_path_stats);
} path_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bhp_global_stats);
} global_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NR_HISTS);
	__type(key, __u32);
	__type(value, struct bhp_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, MAX_DEVSTATS);
	__type(key, struct bhp_dev_key);
	__type(value, struct bhp_dev_stats);
} dev_stats SEC(".maps");

/*
 * Per-thread state (struct bhp_thread): one lookup finds every context
 * of a thread. A context stays when it closes (src, or wb.ts, set to 0)
 * and is written in place when the next one opens: an update and a
 * delete per call cost more than the rest of a write call's programs. A
 * thread's entry goes when it exits (tp_thread_exit). Only the owning
 * thread writes its entry. Most threads keep theirs in a slot of
 * thread_slots in front of this map (bhprof.h's THREAD_SLOTS).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_THREADS);
	__type(key, __u64);
	__type(value, struct bhp_thread);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, THREAD_SLOTS);
	__type(key, __u32);
	__type(value, struct bhp_thread_slot);
} thread_slots SEC(".maps");

/* a new thread's entry, zeroed: too large for the BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bhp_thread);
} thread_zero SEC(".maps");

static __always_inline struct bhp_global_stats *glob(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&global_stats, &zero);
}

static __always_inline struct bhp_path_stats *pstats(__u32 path)
{
	return bpf_map_lookup_elem(&path_stats, &path);
}

static __always_inline void hist_add(__u32 path, __u32 kind, __u64 v)
{
	__u32 key = HIST_ID(path, kind);
	struct bhp_hist *h = bpf_map_lookup_elem(&hists, &key);
	__u32 b = hist_bucket(v);

	if (!h)
		return;
	if (b < HIST_BUCKETS)
		h->b[b]++;
}

static __always_inline bool dev_ok(__u32 dev)
{
	if (!nr_filter_devs)
		return true;
	for (int i = 0; i < BHP_MAX_FILTER_DEVS; i++) {
		if (i >= nr_filter_devs)
			break;
		if (filter_devs[i] == dev)
			return true;
	}
	return false;
}

static __always_inline bool tgid_ok(__u64 id)
{
	return !filter_tgid || (id >> 32) == filter_tgid;
}

#include "pathsrc.bpf.h"

/*
 * The path an inode of mode i_mode takes, and the device it lives on,
 * read with READ: probe reads for a pointer from memory, plain loads for
 * one the program was handed typed (tp_btf), far cheaper each.
 */
#define INODE_PATH_FN(name, READ)                                          \
	static __always_inline __u32 name(struct inode *inode, __u16 mode, \
					  __u32 *dev)                      \
	{                                                                  \
		if ((mode & BHP_S_IFMT) == BHP_S_IFBLK) {                  \
			*dev = READ(inode, i_rdev);                        \
			return bdev_path;                                  \
		}                                                          \
		if ((mode & BHP_S_IFMT) != BHP_S_IFREG)                    \
			return PATH_NONE;                                  \
		*dev = READ(inode, i_sb, s_dev);                           \
		return FILE_PATH(inode, READ);                             \
	}

#define PLAIN_READ(p, ...) PLAIN_READ_N(p, __VA_ARGS__, 2, 1)
#define PLAIN_READ_N(p, a, b, n, ...) PLAIN_READ_##n(p, a, b)
#define PLAIN_READ_1(p, a, b) ((p)->a)
#define PLAIN_READ_2(p, a, b) ((p)->a->b)

INODE_PATH_FN(inode_path_mode, BPF_CORE_READ)
INODE_PATH_FN(inode_path_typed, PLAIN_READ)

/* The path an inode's page cache takes, and the device it lives on. */
static __always_inline __u32 inode_path(struct inode *inode, __u32 *dev)
{
	return inode_path_mode(inode, BPF_CORE_READ(inode, i_mode), dev);
}

/* the same, inode typed when typed is (a constant: one flavour is built) */
static __always_inline __u32 inode_path_t(struct inode *inode, __u32 *dev,
					  bool typed)
{
	if (typed)
		return inode_path_typed(inode, inode->i_mode, dev);
	return inode_path(inode, dev);
}

/* the slot of thread id; none for the idle task, whose id 0 marks a
 * free slot */
static __always_inline struct bhp_thread_slot *slot_of(__u64 id)
{
	__u32 k = (__u32)id & (THREAD_SLOTS - 1);

	return id ? bpf_map_lookup_elem(&thread_slots, &k) : NULL;
}

/* the thread's entry: its slot, if it holds it, else the hash's */
static __always_inline struct bhp_thread *thread_of(__u64 id)
{
	struct bhp_thread_slot *s = slot_of(id);

	if (s && s->owner == id)
		return &s->t;
	return bpf_map_lookup_elem(&threads, &id);
}

/* the thread's open context of a kind in t, or NULL */
static __always_inline struct bhp_ctx *ctx_in(struct bhp_thread *t,
					      __u32 kind)
{
	struct bhp_ctx *c;

	if (!t || kind >= NR_CTX_KINDS)
		return NULL;
	c = &t->ctx[kind];
	return c->src ? c : NULL;
}

static __always_inline struct bhp_ctx *ctx_get(__u32 kind, __u64 id)
{
	return ctx_in(thread_of(id), kind);
}

static __always_inline void ctx_lost(void)
{
	struct bhp_global_stats *g = glob();

	if (g)
		g->ctx_lost++;
}

/*
 * Entries in threads. Past half the map, a thread's entry goes as soon
 * as its last context closes, as every entry did before they were kept:
 * a machine with more threads than the map holds then loses nothing but
 * the saving.
 */
__u64 nr_threads;

/* the thread's entry, made if it has none yet (NULL: the map is full) */
static __always_inline struct bhp_thread *thread_get(__u64 id)
{
	struct bhp_thread_slot *s = slot_of(id);
	struct bhp_thread *t;
	__u32 zero = 0;

	if (s && s->owner == id)
		return &s->t;
	t = bpf_map_lookup_elem(&threads, &id);
	if (t)
		return t;
	/* a free slot: whoever swaps its id in first holds it (a slot is
	 * left with every context closed) */
	if (s && !s->owner && !__sync_val_compare_and_swap(&s->owner, 0, id))
		return &s->t;
	t = bpf_map_lookup_elem(&thread_zero, &zero);
	if (!t)
		return NULL;
	if (!bpf_map_update_elem(&threads, &id, t, BPF_NOEXIST))
		__sync_fetch_and_add(&nr_threads, 1);
	t = thread_of(id);
	if (!t)
		ctx_lost();
	return t;
}

static __always_inline void thread_drop(__u64 id)
{
	struct bhp_thread_slot *s = slot_of(id);

	if (s && s->owner == id) {
		/* closed for its next holder, then let go */
		for (int k = 0; k < NR_CTX_KINDS; k++)
			s->t.ctx[k].src = 0;
		s->t.wb.ts = 0;
		barrier();
		s->owner = 0;
		return;
	}
	if (!bpf_map_delete_elem(&threads, &id))
		__sync_fetch_and_add(&nr_threads, -1);
}

/* after a context of the thread closed: its entry, if the map fills */
static __always_inline void thread_trim(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct bhp_thread *t;

	if (nr_threads < MAX_THREADS / 2)
		return;
	t = thread_of(id);
	if (!t || t->wb.ts)
		return;
	for (int k = 0; k < NR_CTX_KINDS; k++)
		if (t->ctx[k].src)
			return;
	thread_drop(id);
}

/*
 * A closed entry written in place: an interrupt on this CPU running a
 * program for the interrupted thread sees it closed until it is whole.
 */
static __always_inline void ctx_reopen(struct bhp_ctx *old,
				       const struct bhp_ctx *c)
{
	old->src = 0;
	barrier();
	old->ts = c->ts;
	old->inode = c->inode;
	old->path = c->path;
	old->flags = c->flags;
	old->dev = c->dev;
	old->pages = c->pages;
	barrier();
	old->src = c->src;
}

/* c, stamped now, as the thread's context of kind: outermost wins */
static __always_inline void ctx_set(__u64 id, __u32 kind, struct bhp_ctx *c)
{
	struct bhp_thread *t = thread_get(id);
	struct bhp_ctx *old;
	__u64 now;

	if (!t || kind >= NR_CTX_KINDS)
		return;
	old = &t->ctx[kind];
	now = bpf_ktime_get_ns();
	if (old->src && now - old->ts < CTX_STALE_NS)
		return;
	c->ts = now;
	ctx_reopen(old, c);
}

/*
 * Opens a context unless the thread is already inside one (outermost
 * wins). A write context is only worth opening for a file of a path: a
 * write to a pipe, a socket or tmpfs returns before any map is touched,
 * which is most of the cost. A writeback context opens for any inode,
 * or none (sync(2)): its bios are judged by the pages they carry.
 */
static __always_inline void ctx_open_t(__u32 kind, struct inode *inode,
				       __u32 src, __u32 flags, __u32 hint,
				       bool need_path, __u32 pages, bool typed)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct bhp_ctx c = {};

	if (!tgid_ok(id))
		return;
	c.path = PATH_NONE;
	if (inode) {
		c.path = inode_path_t(inode, &c.dev, typed);
		if (!dev_ok(c.dev))
			return;
	}
	if (c.path == PATH_NONE)
		c.path = hint;
	if (need_path && c.path == PATH_NONE)
		return;
	c.src = src;
	c.flags = flags;
	c.pages = pages;
	c.inode = (__u64)inode;
	ctx_set(id, kind, &c);
}

static __always_inline void ctx_open_n(__u32 kind, struct inode *inode,
				       __u32 src, __u32 flags, __u32 hint,
				       bool need_path, __u32 pages)
{
	ctx_open_t(kind, inode, src, flags, hint, need_path, pages, false);
}

static __always_inline void ctx_open(__u32 kind, struct inode *inode,
				     __u32 src, __u32 flags, __u32 hint,
				     bool need_path)
{
	ctx_open_n(kind, inode, src, flags, hint, need_path, 0);
}

static __always_inline struct inode *file_inode_t(struct file *file,
						  bool typed)
{
	if (!file)
		return NULL;
	if (typed)
		return TYPED_AS(struct file, file)->f_mapping->host;
	return BPF_CORE_READ(file, f_mapping, host);
}

static __always_inline struct inode *file_inode_of(struct file *file)
{
	return file_inode_t(file, false);
}

/*
 * The inode a read or write call goes to, for its path and device: the
 * file's own (file_inode()), one read where f_mapping->host takes two.
 * For a block device that is the device node's inode, whose mode and
 * i_rdev say what the bdev inode's would; the page cache's owner, which
 * writeback contexts keep, is f_mapping->host.
 */
static __always_inline struct inode *call_inode(struct file *file,
					       __u32 *flags, bool typed)
{
	__u32 f_flags;

	if (!file)
		return NULL;
	if (typed) {
		file = TYPED_AS(struct file, file);
		f_flags = file->f_flags;
	} else {
		f_flags = BPF_CORE_READ(file, f_flags);
	}
	*flags = f_flags & BHP_O_DIRECT ? CTX_F_DIRECT : 0;
	return typed ? file->f_inode : BPF_CORE_READ(file, f_inode);
}

/* a write call to file: typed says whether it may be cast (a constant) */
static __always_inline void write_enter_t(struct file *file, __u32 src,
					  __u32 hint, bool typed)
{
	struct inode *inode;
	__u32 flags = 0;

	FAULT_POINT(BHP_GROUP_WRITE);
	inode = call_inode(file, &flags, typed);
	if (inode)
		ctx_open_t(CTX_WRITE, inode, src, flags, hint, true, 0,
			   typed);
}

static __always_inline void write_enter(struct file *file, __u32 src,
					__u32 hint)
{
	write_enter_t(file, src, hint, false);
}

/* -EIOCBQUEUED: an async direct write that completes later */
#define BHP_EIOCBQUEUED 529

static __always_inline void account_write(const struct bhp_ctx *c, long ret)
{
	struct bhp_path_stats *ps = pstats(c->path);
	__u64 lat = bpf_ktime_get_ns() - c->ts;

	if (!ps)
		return;
	if (ret < 0 && ret != -BHP_EIOCBQUEUED) {
		ps->write_errors++;
	} else if (c->flags & CTX_F_DIRECT) {
		ps->dio_calls++;
		ps->dio_bytes += ret > 0 ? ret : 0;
		hist_add(c->path, HIST_DIO_LAT, lat);
	} else {
		ps->write_calls++;
		ps->write_bytes += ret;
		hist_add(c->path, HIST_WRITE_LAT, lat);
	}
}

static __always_inline void write_exit(__u32 src, long ret)
{
	struct bhp_ctx *c = ctx_get(CTX_WRITE, bpf_get_current_pid_tgid());

	if (!c || c->src != src)
		return;
	if (c->path < NR_PATHS)
		account_write(c, ret);
	c->src = 0;
	thread_trim();
}

static __always_inline void ctx_close(__u32 kind, __u32 src)
{
	struct bhp_ctx *c = ctx_get(kind, bpf_get_current_pid_tgid());

	if (c && c->src == src) {
		c->src = 0;
		thread_trim();
	}
}

static __always_inline struct file *iocb_file(struct kiocb *iocb)
{
	return BPF_CORE_READ(iocb, ki_filp);
}

static __always_inline struct file *gpw_file(void *arg0)
{
	if (gpw_takes_file)
		return arg0;
	return iocb_file(arg0);
}

/*
 * fentry/fexit and kprobe/kretprobe of one function, sharing handlers:
 * enter(arg0, arg1) on entry, leave(ret) on return. fentry reads its
 * arguments with bpf_get_func_arg(), which is safe whatever the function's
 * arity (iomap_writepages() lost its second argument in 6.18), where a
 * typed BPF_PROG() reading past the last argument would fail to load.
 */
#define ENTRY_EXIT_PROBE(name, func, enter, leave)                         \
	SEC("?fentry/" #func)                                              \
	int BPF_PROG(fe_##name)                                            \
	{                                                                  \
		__u64 a0 = 0, a1 = 0;                                      \
		bpf_get_func_arg(ctx, 0, &a0);                             \
		bpf_get_func_arg(ctx, 1, &a1);                             \
		enter((void *)a0, (void *)a1);                             \
		return 0;                                                  \
	}                                                                  \
	SEC("?fexit/" #func)                                               \
	int BPF_PROG(fx_##name)                                            \
	{                                                                  \
		__u64 ret = 0;                                             \
		bpf_get_func_ret(ctx, &ret);                               \
		leave((long)ret);                                          \
		return 0;                                                  \
	}                                                                  \
	SEC("?kprobe/" #func)                                              \
	int BPF_KPROBE(kp_##name, void *a0, void *a1)                      \
	{                                                                  \
		enter(a0, a1);                                             \
		return 0;                                                  \
	}                                                                  \
	SEC("?kretprobe/" #func)                                           \
	int BPF_KRETPROBE(kr_##name, long ret)                             \
	{                                                                  \
		leave(ret);                                                \
		return 0;                                                  \
	}

/* ---- write calls ---- */

static __always_inline void blkdev_write_enter(void *iocb, void *from)
{
	write_enter(iocb_file(iocb), SRC_BLKDEV_WRITE, PATH_NONE);
}

static __always_inline void blkdev_write_leave(long ret)
{
	write_exit(SRC_BLKDEV_WRITE, ret);
}

/*
 * iomap_file_buffered_write() and generic_perform_write() run nested
 * inside blkdev_write_iter() for every block device write, where the
 * outer call already holds the thread's context: one lookup says so
 * before the file is resolved to a path.
 */
static __always_inline bool write_nested(void)
{
	struct bhp_ctx *c = ctx_get(CTX_WRITE, bpf_get_current_pid_tgid());

	return c && bpf_ktime_get_ns() - c->ts < CTX_STALE_NS;
}

/* iomap's own engine: iomap even on a filesystem bhprof does not know */
static __always_inline void iomap_write_enter(void *iocb, void *from)
{
	if (!write_nested())
		write_enter(iocb_file(iocb), SRC_IOMAP_WRITE, PATH_IOMAP);
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

ENTRY_EXIT_PROBE(blkdev_write, blkdev_write_iter, blkdev_write_enter,
		 blkdev_write_leave)
ENTRY_EXIT_PROBE(iomap_write, iomap_file_buffered_write, iomap_write_enter,
		 iomap_write_leave)
ENTRY_EXIT_PROBE(generic_write, generic_perform_write, generic_write_enter,
		 generic_write_leave)

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

/* ---- buffer_head allocations ---- */

static __always_inline void bh_alloc_hit(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct bhp_global_stats *g = glob();
	struct bhp_path_stats *ps;
	struct bhp_thread *t;
	struct bhp_ctx *c;
	__u32 path = PATH_NONE;
	bool reading = false;

	FAULT_POINT(BHP_GROUP_BH);
	if (!g)
		return;
	g->bh_alloc_total++;
	t = thread_of(id);
	c = ctx_in(t, CTX_WRITE);
	if (!c)
		c = ctx_in(t, CTX_WB);
	/* block_page_mkwrite attaches buffers to the faulting folio */
	if (!c)
		c = ctx_in(t, CTX_MK);
	if (!c) {
		c = ctx_in(t, CTX_READ);
		if (!c)
			c = ctx_in(t, CTX_RCALL);
		reading = c != NULL;
	}
	if (c)
		path = c->path;
	ps = path < NR_PATHS ? pstats(path) : NULL;
	if (ps && reading)
		ps->read_bh_alloc++;
	else if (ps)
		ps->bh_alloc++;
	else
		g->bh_alloc_none++;
}

SEC("?fentry/alloc_buffer_head")
int BPF_PROG(fe_bh_alloc)
{
	bh_alloc_hit();
	return 0;
}

SEC("?kprobe/alloc_buffer_head")
int BPF_KPROBE(kp_bh_alloc)
{
	bh_alloc_hit();
	return 0;
}

static __always_inline bool is_bh_cache(struct kmem_cache *s)
{
	char name[12] = {};
	static const char want[12] = "buffer_head";

	bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(s, name));
	for (int i = 0; i < sizeof(name); i++)
		if (name[i] != want[i])
			return false;
	return true;
}

/*
 * ptr (arg 1) is a "const void *": the verifier of 6.1 and 6.12 refuses
 * any read of it ("arg1 type UNKNOWN is not a struct"), so it is left
 * unread. fentry and kprobe count the calls, failed ones included; this
 * counts them the same way.
 */
/* A slab event of a buffer_head from the function [lo, hi): a text-range
 * test is one compare; the name is the fallback for hosts that hide
 * kallsyms. */
static __always_inline bool bh_site(unsigned long call_site,
				    struct kmem_cache *s, __u64 lo, __u64 hi)
{
	if (hi)
		return call_site >= lo && call_site < hi;
	return is_bh_cache(s);
}

SEC("?tp_btf/kmem_cache_alloc")
int BPF_PROG(tp_bh_alloc, unsigned long call_site, const void *ptr,
	     struct kmem_cache *s)
{
	if (!bh_site(call_site, s, bh_cs_lo, bh_cs_hi))
		return 0;
	bh_alloc_hit();
	return 0;
}

#include "callers.bpf.h"

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

/* ---- read calls: read_folio and readahead of each path ---- */

static __always_inline void read_fn_enter(struct inode *inode, __u32 src,
					  __u32 hint, __u32 pages)
{
	FAULT_POINT(BHP_GROUP_READ);
	if (inode)
		ctx_open_n(CTX_READ, inode, src, 0, hint, true, pages);
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

#define READ_FOLIO_FN(name, src, hint)                                     \
	static __always_inline void name##_enter(void *folio, void *a1)    \
	{                                                                  \
		read_fn_enter(folio_inode(folio), src, hint,               \
			      folio_pages(folio));                         \
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
READ_FOLIO_FN(bh_read_folio, SRC_READ_BH_FOLIO, PATH_NONE)
READAHEAD_FN(bh_readahead, SRC_READ_BH_RA, PATH_NONE)
/* ext4 reads through its own ext4_mpage_readpages(), not the two above */
READ_FOLIO_FN(ext4_read_folio, SRC_READ_EXT4_FOLIO, PATH_BH)
READAHEAD_FN(ext4_readahead, SRC_READ_EXT4_RA, PATH_BH)

/*
 * iomap_read_folio(folio, ops) and iomap_readahead(rac, ops) until 7.1;
 * 7.2 passes (ops, ctx) with the folio or rac inside the context
 * (iomap_read_folio_ctx, after 6.18). Userspace
 * reads which from BTF.
 */
static __always_inline void iomap_read_folio_enter(void *a0, void *a1)
{
	struct folio *folio = a0;

	if (iomap_read_ctx)
		folio = BPF_CORE_READ((struct iomap_read_folio_ctx___v72 *)a1,
				      cur_folio);
	if (folio)
		read_fn_enter(folio_inode(folio), SRC_READ_IOMAP_FOLIO,
			      PATH_IOMAP, folio_pages(folio));
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
		ctx_open_t(CTX_RCALL, inode, src, flags, PATH_NONE, true, 0,
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

/* ---- tracepoint mode: the syscalls that stand in for the calls ---- */

/*
 * The write, sync and read syscalls, through the raw syscall tracepoints
 * and a table of numbers, where per-syscall tracepoints (syscalls:
 * sys_enter_write, ...) would each be a perf event that copies the
 * syscall's arguments into a record before any program runs. Every
 * syscall on the machine runs these programs on sys_enter and sys_exit,
 * so an uninteresting one costs a table load, and one program per
 * direction serves every probe group (tp_sys_enter, tp_sys_exit). Should
 * the kernel refuse it (the code of one group), one program per group and
 * direction stands in, so that a refused group costs only itself.
 *
 * Userspace fills the table once the groups are attached, with the
 * classes of the groups that run on tracepoints: until then, and for a
 * group on fentry or kprobes, a syscall is nobody's.
 */
__u8 sys_class[BHP_MAX_SYSCALL];

static __always_inline __u32 syscall_class(struct pt_regs *regs, long nr)
{
	__u32 cls;

	if ((unsigned long)nr >= BHP_MAX_SYSCALL)
		return BHP_SYS_NONE;
	cls = sys_class[nr];
	if (cls != BHP_SYS_NONE && in_compat_syscall(regs))
		return BHP_SYS_NONE;
	return cls;
}

/* fsync, fdatasync, sync_file_range, syncfs and close (the last close of
 * a block device writes it back) name a file; sync and msync do not, so
 * their bios are judged by their pages alone */
static __always_inline void sync_enter_t(struct file *file, __u32 cls,
					 bool typed)
{
	struct inode *inode;

	if (cls == BHP_SYS_SYNC_FD) {
		inode = file_inode_t(file, typed);
		if (inode)
			ctx_open_t(CTX_WB, inode, SRC_SYSCALL_SYNC, 0,
				   PATH_NONE, false, 0, typed);
	} else if (cls == BHP_SYS_SYNC) {
		ctx_open(CTX_WB, NULL, SRC_SYSCALL_SYNC, 0, PATH_NONE, false);
	}
}

static __always_inline void sync_enter(struct file *file, __u32 cls)
{
	sync_enter_t(file, cls, false);
}

static __always_inline void sync_exit(__u32 cls)
{
	if (cls == BHP_SYS_SYNC_FD || cls == BHP_SYS_SYNC)
		ctx_close(CTX_WB, SRC_SYSCALL_SYNC);
}

/* the file a syscall of class cls names, NULL for none */
static __always_inline struct file *sys_file(struct pt_regs *regs, __u32 cls)
{
	if (cls == BHP_SYS_NONE || cls == BHP_SYS_SYNC)
		return NULL;
	return fd_to_file(syscall_arg0(regs));
}

static __always_inline void sys_enter_t(__u32 cls, struct file *file,
					bool typed)
{
	if (cls == BHP_SYS_WRITE)
		write_enter_t(file, SRC_SYSCALL_WRITE, PATH_NONE, typed);
	else if (cls == BHP_SYS_READ)
		rcall_enter_t(file, SRC_SYSCALL_READ, typed);
	else
		sync_enter_t(file, cls, typed);
}

static __always_inline void sys_enter_any(__u32 cls, struct file *file)
{
	sys_enter_t(cls, file, false);
}

static __always_inline void sys_exit_any(__u32 cls, long ret)
{
	if (cls == BHP_SYS_WRITE)
		write_exit(SRC_SYSCALL_WRITE, ret);
	else if (cls == BHP_SYS_READ)
		ctx_close(CTX_RCALL, SRC_SYSCALL_READ);
	else
		sync_exit(cls);
}

SEC("?tp_btf/sys_enter")
int BPF_PROG(tp_sys_enter, struct pt_regs *regs, long nr)
{
	__u32 cls = syscall_class(regs, nr);

	/* one walk to the file for every class: the loads off the task are
	 * costly to verify in each state that reaches them */
	sys_enter_any(cls, sys_file(regs, cls));
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(tp_sys_exit, struct pt_regs *regs, long ret)
{
	sys_exit_any(syscall_class(regs, syscall_nr(regs)), ret);
	return 0;
}

/*
 * The same on the per-syscall events (syscalls:sys_enter_write, ...),
 * attached to each syscall of sys_class[] alone: the syscalls nobody
 * watches no longer run a program at all, only the kernel's check of
 * TIF_SYSCALL_TRACEPOINT. They exist with CONFIG_FTRACE_SYSCALLS; the
 * event already skips a 32-bit task's syscalls, and hands over the
 * number and arguments with no registers to read.
 */
static __always_inline void sysev_enter(struct syscall_trace_enter *ctx,
					bool typed)
{
	unsigned int nr = ctx->nr;
	__u32 cls;

	if (typed)
		FAULT_POINT(BHPROF_FAULT_TYPED);
	if (nr >= BHP_MAX_SYSCALL)
		return;
	cls = sys_class[nr];
	if (cls == BHP_SYS_NONE)
		return;
	sys_enter_t(cls, cls == BHP_SYS_SYNC ? NULL :
		    fd_to_file_t(ctx->args[0], typed), typed);
}

SEC("?tracepoint/syscalls/sys_enter_write")
int tp_sysev_enter(struct syscall_trace_enter *ctx)
{
	sysev_enter(ctx, false);
	return 0;
}

/* the same, the fd table's slot, the file and its inode loaded typed */
SEC("?tracepoint/syscalls/sys_enter_write")
int tp_sysev_enter_t(struct syscall_trace_enter *ctx)
{
	sysev_enter(ctx, true);
	return 0;
}

/* sync(2) has no arguments, and a program may read no further into the
 * record than the shortest event it is attached to holds */
SEC("?tracepoint/syscalls/sys_enter_sync")
int tp_sysev_enter0(struct syscall_trace_enter *ctx)
{
	unsigned int nr = ctx->nr;

	if (nr < BHP_MAX_SYSCALL)
		sync_enter(NULL, sys_class[nr]);
	return 0;
}

SEC("?tracepoint/syscalls/sys_exit_write")
int tp_sysev_exit(struct syscall_trace_exit *ctx)
{
	unsigned int nr = ctx->nr;

	if (nr < BHP_MAX_SYSCALL)
		sys_exit_any(sys_class[nr], ctx->ret);
	return 0;
}

/* the same, one program per group and direction */
SEC("?tp_btf/sys_enter")
int BPF_PROG(tp_write_enter, struct pt_regs *regs, long nr)
{
	if (syscall_class(regs, nr) == BHP_SYS_WRITE)
		write_enter(fd_to_file(syscall_arg0(regs)), SRC_SYSCALL_WRITE,
			    PATH_NONE);
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(tp_write_exit, struct pt_regs *regs, long ret)
{
	if (syscall_class(regs, syscall_nr(regs)) == BHP_SYS_WRITE)
		write_exit(SRC_SYSCALL_WRITE, ret);
	return 0;
}

SEC("?tp_btf/sys_enter")
int BPF_PROG(tp_sync_enter, struct pt_regs *regs, long nr)
{
	__u32 cls = syscall_class(regs, nr);

	sync_enter(sys_file(regs, cls), cls);
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(tp_sync_exit, struct pt_regs *regs)
{
	sync_exit(syscall_class(regs, syscall_nr(regs)));
	return 0;
}

SEC("?tp_btf/sys_enter")
int BPF_PROG(tp_read_enter, struct pt_regs *regs, long nr)
{
	if (syscall_class(regs, nr) == BHP_SYS_READ)
		rcall_enter(fd_to_file(syscall_arg0(regs)), SRC_SYSCALL_READ);
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(tp_read_exit, struct pt_regs *regs)
{
	if (syscall_class(regs, syscall_nr(regs)) == BHP_SYS_READ)
		ctx_close(CTX_RCALL, SRC_SYSCALL_READ);
	return 0;
}

/*
 * Pages read, in tracepoint mode: a folio the read syscall adds to the
 * page cache is one it is about to read (readahead and read_folio both
 * add before they read). No function of the read path has a tracepoint
 * for its calls or latency.
 */
SEC("?tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(tp_read_folio_added, struct folio *folio)
{
	struct bhp_ctx *c = ctx_get(CTX_RCALL, bpf_get_current_pid_tgid());
	struct bhp_path_stats *ps;
	__u32 dev = 0, path;

	if (!c || c->src != SRC_SYSCALL_READ)
		return 0;
	/* the event's folio is typed: plain loads to the inode */
	path = inode_path_t(folio->mapping->host, &dev, true);
	ps = path < NR_PATHS && dev_ok(dev) ? pstats(path) : NULL;
	if (ps)
		ps->read_pages += folio_pages_t(folio, true);
	return 0;
}

/*
 * Read calls of the iomap path, in tracepoint mode: iomap_read_folio()
 * and iomap_readahead() each fire one event per call. Their pages stay
 * with tp_read_folio_added (the readpage event says 1 whatever the
 * folio's size), their latency unknown: no event marks the end.
 */
static __always_inline void iomap_read_seen(struct inode *inode)
{
	struct bhp_path_stats *ps;
	__u32 dev = 0;

	FAULT_POINT(BHPROF_FAULT_IOMAP_READS);
	if (!tgid_ok(bpf_get_current_pid_tgid()))
		return;
	if (inode_path_typed(inode, inode->i_mode, &dev) != PATH_IOMAP ||
	    !dev_ok(dev))
		return;
	ps = pstats(PATH_IOMAP);
	if (ps)
		ps->read_calls++;
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

#include "passes.bpf.h"

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
		ctx_open(CTX_MK, inode, src, 0, hint, true);
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

	bpf_get_func_arg(ctx, 0, &iocb);
	bpf_get_func_arg(ctx, 3, &buffered);
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

/* ---- bios: the block_bio_queue tracepoint in every mode ---- */

/*
 * The path of the inode whose page cache holds a bio's first page, bv. A
 * page comes typed from the bio: plain loads all the way to the inode of
 * a head or order-0 page. Only when that finds none is compound_head
 * probe-read (a union the verifier would type as a pointer), to tell a
 * tail page, whose mapping field is not a mapping and so names no
 * owner, from anonymous or slab memory.
 */
static __always_inline __u32 bio_owner_path(struct bio_vec *bv)
{
	struct inode *owner;
	struct page *pg;
	unsigned long info;
	__u32 dev = 0;

	if (!bv)
		return PATH_NONE;
	pg = bv->bv_page;
	if (!pg)
		return PATH_NONE;
	owner = page_owner_typed(pg);
	if (owner)
		return inode_path_typed(owner, owner->i_mode, &dev);
	info = page_info(pg);
	if (!(info & 1))
		return PATH_NONE;
	owner = page_owner(tail_head(bv, info, head_is_mask));
	return owner ? inode_path(owner, &dev) : PATH_NONE;
}

/* what a bio's own pages say: a value past every enum bhp_path */
#define BIO_OWNER 0xffu

/* A write bio: the path of an O_DIRECT write call, none outside a write
 * or writeback context, else BIO_OWNER. */
static __always_inline __u32 bio_path(void)
{
	struct bhp_thread *t = thread_of(bpf_get_current_pid_tgid());
	struct bhp_ctx *w = ctx_in(t, CTX_WRITE);

	if (w && (w->flags & CTX_F_DIRECT))
		return w->path;
	if (!w && !ctx_in(t, CTX_WB))
		return PATH_NONE;
	return BIO_OWNER;
}

/* the zero row is too large for the BPF stack: a per-CPU scratch */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bhp_dev_stats);
} dev_zero SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, DEV_SLOTS);
	__type(key, __u32);
	__type(value, struct bhp_dev_slot);
} dev_slots SEC(".maps");

/* key's row in this CPU's slot for it, taken if free, else NULL */
static __always_inline struct bhp_dev_stats *dev_slot(struct bhp_dev_key *key)
{
	__u32 k = (key->dev ^ (key->dev >> 20) ^ (key->path << 3)) &
		  dev_slot_mask & (DEV_SLOTS - 1);
	struct bhp_dev_slot *sl = bpf_map_lookup_elem(&dev_slots, &k);

	if (!sl)
		return NULL;
	if (!sl->used) {
		/* only this CPU's programs write its copy, one at a time */
		sl->key = *key;
		sl->used = 1;
	}
	if (sl->key.dev != key->dev || sl->key.path != key->path)
		return NULL;
	return &sl->s;
}

static __always_inline struct bhp_dev_stats *dev_row(struct bhp_dev_key *key)
{
	struct bhp_dev_stats *ds = dev_slot(key), *z;
	__u32 zero = 0;

	if (ds)
		return ds;
	ds = bpf_map_lookup_elem(&dev_stats, key);
	if (ds)
		return ds;
	z = bpf_map_lookup_elem(&dev_zero, &zero);
	if (!z)
		return NULL;
	bpf_map_update_elem(&dev_stats, key, z, BPF_NOEXIST);
	return bpf_map_lookup_elem(&dev_stats, key);
}

/*
 * A read bio belongs to the path of the inode whose page cache it fills
 * (BIO_OWNER), when a read call or read function is under way on the
 * thread; an O_DIRECT read's to the file read.
 */
static __always_inline __u32 read_bio_path(void)
{
	struct bhp_thread *t = thread_of(bpf_get_current_pid_tgid());
	struct bhp_ctx *c = ctx_in(t, CTX_READ);

	if (!c) {
		c = ctx_in(t, CTX_RCALL);
		if (!c)
			return PATH_NONE;
		if (c->flags & CTX_F_DIRECT)
			return c->path;
	}
	return BIO_OWNER;
}

/*
 * Of a pair of u64 counters in *obj, the write one (wf) or the read one
 * (rf), by arithmetic on read (0 or 1) rather than a test: each test on
 * read doubled the paths the verifier walked through the rest of the
 * bio program, about 100 ms at every start.
 */
#define PICK(obj, read, wf, rf)                                            \
	((__u64 *)((char *)(obj) + __builtin_offsetof(typeof(*(obj)), wf) + \
		   (read) * (__builtin_offsetof(typeof(*(obj)), rf) -       \
			     __builtin_offsetof(typeof(*(obj)), wf))))

/*
 * One bio, write or read, on the device, its path and in all. A device
 * row keeps the read counters in the same shape right after the write
 * ones (bios, bytes, size slots).
 */
static __always_inline void bio_account(struct bio_vec *bv, __u32 dev,
					__u32 size, __u64 read)
{
	struct bhp_dev_key key = { .dev = dev };
	struct bhp_global_stats *g = glob();
	struct bhp_path_stats *ps;
	struct bhp_dev_stats *ds;
	/* 64-bit: the 6.1 verifier loses the bound of a 32-bit index that
	 * the compiler widens again after the test */
	__u64 slot = bhp_log2(size);
	__u64 *row;

	if (g) {
		*PICK(g, read, bio_count, read_bio_count) += 1;
		*PICK(g, read, bio_bytes, read_bio_bytes) += size;
	}
	key.path = read ? read_bio_path() : bio_path();
	/* one place for the owner's walk: its typed loads cost the verifier
	 * dearly in every state that reaches them */
	if (key.path == BIO_OWNER)
		key.path = bio_owner_path(bv);
	ds = dev_row(&key);
	if (ds) {
		row = PICK(ds, read, bios, read_bios);
		row[0]++;
		row[1] += size;
		if (slot < DEV_SIZE_SLOTS)
			row[2 + slot]++;
	}
	ps = key.path < NR_PATHS ? pstats(key.path) : NULL;
	if (!ps)
		return;
	*PICK(ps, read, bio_count, read_bio_count) += 1;
	*PICK(ps, read, bio_bytes, read_bio_bytes) += size;
	hist_add(key.path, HIST_BIO_SIZE +
			   read * (HIST_READ_BIO_SIZE - HIST_BIO_SIZE), size);
}

SEC("?tp_btf/block_bio_queue")
int BPF_PROG(tp_bio_queue, struct bio *bio)
{
	__u32 dev, size, op;

	FAULT_POINT(BHP_GROUP_BIO);
	/* tp_btf hands a typed pointer: plain loads, each far cheaper than
	 * a bpf_probe_read_kernel() call, on the hottest program we have */
	op = bio->bi_opf & 0xff;
	if (op != REQ_OP_WRITE && op != REQ_OP_READ)
		return 0;
	size = bio->bi_iter.bi_size;
	if (!size)
		return 0;
	dev = bio->bi_bdev->bd_dev;
	if (!dev_ok(dev))
		return 0;
	/* loaded once, here: each pointer loaded off the trusted bio costs
	 * the verifier of 6.4 and later a name search through the kernel's
	 * BTF, about 2 ms, in every state that reaches the load */
	bio_account(bio->bi_io_vec, dev, size, op == REQ_OP_READ);
	return 0;
}

/* ---- a thread's contexts go with it ---- */

SEC("?tp_btf/sched_process_exit")
int BPF_PROG(tp_thread_exit)
{
	thread_drop(bpf_get_current_pid_tgid());
	return 0;
}
