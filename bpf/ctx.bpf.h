/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-thread contexts: a write call, writeback pass or read call opens
 * one; what runs under it (a bio, a buffer_head allocation, a folio)
 * takes the context's path. Also the path of an inode, and the macro
 * that builds every function's fentry/fexit and kprobe pair.
 *
 * Included by bhprof.bpf.c: one object.
 */
#ifndef BHPROF_CTX_BPF_H
#define BHPROF_CTX_BPF_H

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
			return PATH_NOFILE;                                \
		*dev = READ(inode, i_sb, s_dev);                           \
		return FILE_PATH(inode, READ);                             \
	}

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

/*
 * An inode iomap's own event names (tp_btf: typed), and its device:
 * the event says iomap runs it, so an inode whose helpers name no path
 * (an NTFS driver's metadata inodes) is iomap's too, as the engine makes
 * it in wb_engine(). False for one of the bh path.
 */
static __always_inline bool iomap_event_inode(struct inode *inode,
					      __u32 *dev)
{
	__u32 path = inode_path_typed(inode, inode->i_mode, dev);

	if (path >= PATH_NONE)
		*dev = inode->i_sb->s_dev;
	return path != PATH_BH;
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
	if (bpf_atomics && s && !s->owner &&
	    !__sync_val_compare_and_swap(&s->owner, 0, id))
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
	old->fs = c->fs;
	barrier();
	old->src = c->src;
}

/* c, stamped now, as the thread's context of kind: outermost wins, but
 * for a write syscall's, which the engine inside it takes over */
static __always_inline void ctx_set(__u64 id, __u32 kind, struct bhp_ctx *c)
{
	struct bhp_thread *t = thread_get(id);
	struct bhp_ctx *old;
	__u64 now;

	if (!t || kind >= NR_CTX_KINDS)
		return;
	old = &t->ctx[kind];
	now = bpf_ktime_get_ns();
	if (old->src && now - old->ts < CTX_STALE_NS &&
	    !(old->flags & CTX_F_PROV))
		return;
	c->ts = now;
	ctx_reopen(old, c);
}

/*
 * Opens a context unless the thread is already inside one (outermost
 * wins). A write context is only worth opening for a file with a page
 * cache, of either path or neither (other): a write to a pipe or a
 * socket returns before any map is touched, which is most of the cost.
 * Read and page_mkwrite contexts, whose figures are the paths' alone,
 * open for a file of a path. A writeback context opens for any inode,
 * or none (sync(2)): its bios are judged by the pages they carry. paths
 * says which: a context opens for a path whose bit it has.
 */
#define CTX_PATHS (1u << PATH_BH | 1u << PATH_IOMAP)	/* bh or iomap */
#define CTX_OTHER (1u << PATH_NONE)		/* a file of neither */
#define CTX_FILES (CTX_PATHS | CTX_OTHER)
#define CTX_ANY (CTX_FILES | 1u << PATH_NOFILE)	/* any inode, or none */

static __always_inline void ctx_open_t(__u32 kind, struct inode *inode,
				       __u32 src, __u32 flags, __u32 hint,
				       __u32 paths, __u32 pages, bool typed)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct bhp_ctx c = {};
	__u16 mode = 0;

	if (!tgid_ok(id))
		return;
	c.path = PATH_NONE;
	if (inode) {
		mode = typed ? inode->i_mode : BPF_CORE_READ(inode, i_mode);
		c.path = typed ? inode_path_typed(inode, mode, &c.dev) :
				 inode_path_mode(inode, mode, &c.dev);
		if ((mode & BHP_S_IFMT) == BHP_S_IFBLK)
			flags |= CTX_F_BDEV;
		if (!dev_ok(c.dev))
			return;
	}
	/* the engine's word, where the inode's operations give none (an
	 * NTFS driver's metadata inodes, some not regular files) */
	if (c.path >= PATH_NONE && hint != PATH_NONE)
		c.path = hint;
	if (c.path > PATH_NOFILE || !(paths & 1u << c.path))
		return;
	if (inode)
		c.fs = typed ? inode_fs_typed(inode, mode) :
			       inode_fs_mode(inode, mode);
	c.src = src;
	c.flags = flags;
	c.pages = pages;
	c.inode = (__u64)inode;
	ctx_set(id, kind, &c);
}

static __always_inline void ctx_open_n(__u32 kind, struct inode *inode,
				       __u32 src, __u32 flags, __u32 hint,
				       __u32 paths, __u32 pages)
{
	ctx_open_t(kind, inode, src, flags, hint, paths, pages, false);
}

static __always_inline void ctx_open(__u32 kind, struct inode *inode,
				     __u32 src, __u32 flags, __u32 hint,
				     __u32 paths)
{
	ctx_open_n(kind, inode, src, flags, hint, paths, 0);
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

/* a write call to file, if its path is one of paths: typed says whether
 * it may be cast (a constant) */
static __always_inline void write_enter_t(struct file *file, __u32 src,
					  __u32 hint, __u32 paths, bool typed)
{
	struct inode *inode;
	__u32 flags = 0;

	FAULT_POINT(BHP_GROUP_WRITE);
	inode = call_inode(file, &flags, typed);
	if (inode)
		ctx_open_t(CTX_WRITE, inode, src, flags, hint, paths, 0,
			   typed);
}

/*
 * An engine taking over its write syscall's context (CTX_F_PROV): the
 * same file, so its path, device and filesystem stand as the syscall
 * judged them, but for the engine's word where the operations gave
 * none; one lookup where opening anew takes four. Rewritten closed, as
 * ctx_reopen() does.
 */
static __always_inline bool write_claim(struct inode *inode, __u32 src,
					__u32 hint)
{
	struct bhp_ctx *c = ctx_get(CTX_WRITE, bpf_get_current_pid_tgid());

	if (!c || !(c->flags & CTX_F_PROV) || c->inode != (__u64)inode)
		return false;
	c->src = 0;
	barrier();
	c->ts = bpf_ktime_get_ns();
	c->flags &= ~CTX_F_PROV;
	if (c->path >= PATH_NONE && hint != PATH_NONE)
		c->path = hint;
	barrier();
	c->src = src;
	return true;
}

/*
 * A write engine's call (or a write syscall's, split per group): the
 * syscall's context taken over, else one of its own. The file's flags
 * only for a context of its own: the takeover, nearly every call, goes
 * without their read. trusted: file came typed (an fentry program's
 * typed argument), its fields plain loads.
 */
static __always_inline void engine_enter(struct file *file, __u32 src,
					 __u32 hint, bool trusted)
{
	struct inode *inode;
	__u32 flags;

	FAULT_POINT(BHP_GROUP_WRITE);
	if (!file)
		return;
	inode = trusted ? file->f_inode : BPF_CORE_READ(file, f_inode);
	if (!inode || write_claim(inode, src, hint))
		return;
	flags = (trusted ? file->f_flags : BPF_CORE_READ(file, f_flags)) &
			BHP_O_DIRECT ? CTX_F_DIRECT : 0;
	ctx_open_t(CTX_WRITE, inode, src, flags, hint, CTX_FILES, 0, trusted);
}

static __always_inline void write_enter(struct file *file, __u32 src,
					__u32 hint)
{
	engine_enter(file, src, hint, false);
}

/*
 * A write syscall where the write group runs on functions: open for any
 * file, for an engine to take over. An O_DIRECT call goes through
 * neither buffered engine (iomap_dio_rw, __blockdev_direct_IO), so it
 * stays the other group's files' alone, as the paths' direct calls are
 * the block devices' (blkdev_write_iter).
 */
static __always_inline void write_enter_prov(struct file *file, bool typed)
{
	struct inode *inode;
	__u32 flags = 0;

	FAULT_POINT(BHP_GROUP_WRITE);
	inode = call_inode(file, &flags, typed);
	if (inode)
		ctx_open_t(CTX_WRITE, inode, SRC_SYSCALL_WRITE,
			   flags | CTX_F_PROV, PATH_NONE,
			   flags & CTX_F_DIRECT ? CTX_OTHER : CTX_FILES, 0,
			   typed);
}

/* set by userspace once tp_iomap_write_seen is attached */
bool iomap_witness;

/*
 * The path of a write syscall's call is the engine's that ran it, not
 * its file's operations alone: 7.x's fuse names iomap's helpers on every
 * mount, but writes through iomap only with its writeback cache (else
 * fuse_perform_write). A call no engine took over ran neither path's;
 * in tracepoint mode a call iomap's did not run (its mapping event)
 * is not iomap's. The buffer_head engine has no such event, nor any
 * direct I/O needs one, and a block device's path is its kernel's
 * whichever engine runs it (the witness leaves its events unread):
 * there the operations' or the kernel's word stands.
 */
static __always_inline void write_engine_path(struct bhp_ctx *c)
{
	if (c->flags & CTX_F_PROV)
		c->path = PATH_NONE;
	else if (c->path == PATH_IOMAP && iomap_witness &&
		 !(c->flags & (CTX_F_IOMAP | CTX_F_DIRECT | CTX_F_BDEV)))
		c->path = PATH_NONE;
}

/* -EIOCBQUEUED: an async direct write that completes later */
#define BHP_EIOCBQUEUED 529

static __always_inline void account_write(const struct bhp_ctx *c, long ret)
{
	struct bhp_path_stats *ps = pstats(c->path);
	__u64 lat = bpf_ktime_get_ns() - c->ts;
	struct bhp_fs_stats *fs;

	if (!ps)
		return;
	if (ret < 0 && ret != -BHP_EIOCBQUEUED) {
		ps->write_errors++;
		return;
	}
	fs = fs_row(c->fs, c->path);
	if (c->flags & CTX_F_DIRECT) {
		ps->dio_calls++;
		ps->dio_bytes += ret > 0 ? ret : 0;
		hist_add(c->path, HIST_DIO_LAT, lat);
		if (fs) {
			fs->dio_calls++;
			fs->dio_bytes += ret > 0 ? ret : 0;
		}
	} else {
		ps->write_calls++;
		ps->write_bytes += ret;
		hist_add(c->path, HIST_WRITE_LAT, lat);
		if (fs) {
			fs->write_calls++;
			fs->write_bytes += ret;
		}
	}
}

static __always_inline void write_exit(__u32 src, long ret)
{
	struct bhp_ctx *c = ctx_get(CTX_WRITE, bpf_get_current_pid_tgid());

	if (!c || c->src != src)
		return;
	if (src == SRC_SYSCALL_WRITE)
		write_engine_path(c);
	if (c->path < NR_PATH_ROWS)
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
 * A trampoline's context: the function's arguments, then (fexit) its
 * return value. bpf_get_func_arg() and bpf_get_func_ret() (5.17, "bpf:
 * Add get_func_[arg|ret|arg_cnt] helpers") read them whatever the
 * function's arity; before them the slots are probe-read, the return
 * value's at the arity userspace found in BTF (nargs). A plain load of
 * a slot would be typed, and past the last argument refused.
 */
const volatile bool func_arg_helper = true;

#define FUNC_ARG(ctx, i, v)                                                \
	(func_arg_helper ?                                                 \
		 bpf_get_func_arg(ctx, i, v) :                             \
		 bpf_probe_read_kernel(v, sizeof(__u64), (__u64 *)(ctx) + (i)))
#define FUNC_RET(ctx, v, nargs)                                            \
	(func_arg_helper ?                                                 \
		 bpf_get_func_ret(ctx, v) :                                \
		 bpf_probe_read_kernel(v, sizeof(__u64),                   \
				       (__u64 *)(ctx) + (nargs)))

/*
 * fentry/fexit and kprobe/kretprobe of one function, sharing handlers:
 * enter(arg0, arg1) on entry, leave(ret) on return. fentry reads its
 * arguments as FUNC_ARG() does, which is safe whatever the function's
 * arity (iomap_writepages() lost its second argument in 6.18), where a
 * typed BPF_PROG() reading past the last argument would fail to load.
 * fx_nargs_NAME is the function's arity, for kernels before the helpers.
 */
#define ENTRY_EXIT_PROBE(name, func, enter, leave)                         \
	SEC("?fentry/" #func)                                              \
	int BPF_PROG(fe_##name)                                            \
	{                                                                  \
		__u64 a0 = 0, a1 = 0;                                      \
		FUNC_ARG(ctx, 0, &a0);                                     \
		FUNC_ARG(ctx, 1, &a1);                                     \
		enter((void *)a0, (void *)a1);                             \
		return 0;                                                  \
	}                                                                  \
	EXIT_AND_KPROBES(name, func, enter, leave)

/* the same but fentry's, for a function that has a typed fentry program
 * of its own (fe_NAME) */
#define EXIT_AND_KPROBES(name, func, enter, leave)                         \
	const volatile __u32 fx_nargs_##name = 0;                          \
	SEC("?fexit/" #func)                                               \
	int BPF_PROG(fx_##name)                                            \
	{                                                                  \
		__u64 ret = 0;                                             \
		FUNC_RET(ctx, &ret, fx_nargs_##name);                      \
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

#endif /* BHPROF_CTX_BPF_H */
