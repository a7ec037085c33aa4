/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --callers: every buffer_head allocation counted by its kernel call
 * chain, its owner and the path context it came in; and the frees, for
 * the buffer_heads left alive. Included by bhprof.bpf.c after the bh
 * allocation probes; nothing here loads without --callers, and the
 * allocation probes without it are the plain ones, unchanged.
 *
 * The owner is the page cache the buffers go to. alloc_buffer_head() is
 * not told, so the functions that call it for a folio (and jbd2's copy
 * of a metadata buffer) leave the owner in owners, by thread, for their
 * duration.
 */
#ifndef BHPROF_CALLERS_BPF_H
#define BHPROF_CALLERS_BPF_H

const volatile __u64 bh_free_lo = 0;	/* free_buffer_head's text range */
const volatile __u64 bh_free_hi = 0;

/* buffer_heads allocated minus freed since attach, and its highest */
__s64 bh_net;
__s64 bh_net_peak;

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, BHP_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, BHP_STACK_DEPTH * sizeof(__u64));
} callers_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, BHP_MAX_CALLERS);
	__type(key, struct bhp_caller_key);
	__type(value, __u64);
} callers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_THREADS);
	__type(key, __u64);
	__type(value, struct bhp_owner);
} owners SEC(".maps");

/* the path context of the thread, in bh_alloc_hit()'s order */
static __always_inline __u32 callers_where(__u64 id)
{
	struct bhp_thread *t = thread_of(id);

	if (ctx_in(t, CTX_WRITE) || ctx_in(t, CTX_WB))
		return WHERE_WRITE;
	if (ctx_in(t, CTX_MK))
		return WHERE_MKWRITE;
	if (ctx_in(t, CTX_READ) || ctx_in(t, CTX_RCALL))
		return WHERE_READ;
	return WHERE_NONE;
}

static __always_inline void net_add(__s64 d)
{
	__s64 now;

	if (bpf_atomics) {
		now = __sync_add_and_fetch(&bh_net, d);
	} else {
		__sync_fetch_and_add(&bh_net, d);	/* BPF_XADD */
		now = bh_net;
	}

	/* racy between CPUs, by at most the allocations in flight */
	if (d > 0 && now > bh_net_peak)
		bh_net_peak = now;
}

static __always_inline void callers_hit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct bhp_caller_key key = {};
	struct bhp_global_stats *g;
	struct bhp_owner *o;
	__u64 one = 1, *n;
	long sid;

	net_add(1);
	sid = bpf_get_stackid(ctx, &callers_stacks, 0);
	key.stack = sid < 0 ? BHP_STACK_LOST : (__u32)sid;
	o = bpf_map_lookup_elem(&owners, &id);
	if (o) {
		key.dev = o->dev;
		key.kind = o->kind;
	}
	key.where = callers_where(id);
	n = bpf_map_lookup_elem(&callers, &key);
	if (n) {
		(*n)++;
		return;
	}
	if (!bpf_map_update_elem(&callers, &key, &one, BPF_NOEXIST))
		return;
	g = glob();
	if (g)
		g->callers_lost++;
}

SEC("?fentry/alloc_buffer_head")
int BPF_PROG(fe_bh_alloc_c)
{
	bh_alloc_hit();
	callers_hit(ctx);
	return 0;
}

SEC("?kprobe/alloc_buffer_head")
int BPF_KPROBE(kp_bh_alloc_c)
{
	bh_alloc_hit();
	callers_hit(ctx);
	return 0;
}

SEC("?tp_btf/kmem_cache_alloc")
int BPF_PROG(tp_bh_alloc_c, unsigned long call_site, const void *ptr,
	     struct kmem_cache *s)
{
	if (!bh_site(call_site, s, bh_cs_lo, bh_cs_hi))
		return 0;
	bh_alloc_hit();
	callers_hit(ctx);
	return 0;
}

/* ---- owners ---- */

static __always_inline void owner_set(__u32 dev, __u32 kind)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct bhp_owner o = { .dev = dev, .kind = kind };

	FAULT_POINT(BHP_GROUP_CALLERS);
	bpf_map_update_elem(&owners, &id, &o, BPF_ANY);
}

static __always_inline void owner_clear(long ret)
{
	__u64 id = bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&owners, &id);
}

/* folio_alloc_buffers(folio, ...), alloc_page_buffers(page, ...) before
 * 6.5: page and folio keep the mapping at the same place. Before 5.16
 * there is no struct folio to relocate against ("mm: Add struct folio"),
 * and a read of one would fail the load */
static __always_inline struct inode *buffers_host(void *a0)
{
	if (bpf_core_type_exists(struct folio))
		return BPF_CORE_READ((struct folio *)a0, mapping, host);
	return BPF_CORE_READ((struct page *)a0, mapping, host);
}

static __always_inline void owner_folio(void *a0, void *a1)
{
	struct inode *host = buffers_host(a0);
	__u16 mode;

	if (!host) {
		owner_set(0, OWNER_NONE);
		return;
	}
	mode = BPF_CORE_READ(host, i_mode);
	if ((mode & BHP_S_IFMT) == BHP_S_IFBLK)
		owner_set(BPF_CORE_READ(host, i_rdev), OWNER_BDEV);
	else
		owner_set(BPF_CORE_READ(host, i_sb, s_dev), OWNER_FILE);
}

/* jbd2_journal_write_metadata_buffer(transaction, jh_in, ...): the copy
 * it makes of a buffer for the log belongs to the buffer's device. Where
 * jbd2 is a module without BTF (before 5.11) its journal_head has no
 * type to relocate against: b_bh, its first field since 2.6, is read
 * where it has always been. */
static __always_inline void owner_jbd2(void *a0, void *a1)
{
	struct buffer_head *bh = NULL;

	if (bpf_core_type_exists(struct journal_head))
		bh = BPF_CORE_READ((struct journal_head *)a1, b_bh);
	else
		bpf_probe_read_kernel(&bh, sizeof(bh), a1);
	owner_set(BPF_CORE_READ(bh, b_bdev, bd_dev), OWNER_BDEV);
}

ENTRY_EXIT_PROBE(own_folio, folio_alloc_buffers, owner_folio, owner_clear)
ENTRY_EXIT_PROBE(own_jbd2, jbd2_journal_write_metadata_buffer, owner_jbd2,
		 owner_clear)

/* ---- frees ---- */

static __always_inline void bh_free_hit(void)
{
	struct bhp_global_stats *g = glob();

	FAULT_POINT(BHP_GROUP_CALLERS);
	if (g)
		g->bh_freed++;
	net_add(-1);
}

SEC("?fentry/free_buffer_head")
int BPF_PROG(fe_bh_free)
{
	bh_free_hit();
	return 0;
}

SEC("?kprobe/free_buffer_head")
int BPF_KPROBE(kp_bh_free)
{
	bh_free_hit();
	return 0;
}

SEC("?tp_btf/kmem_cache_free")
int BPF_PROG(tp_bh_free, unsigned long call_site, const void *ptr,
	     struct kmem_cache *s)
{
	if (!bh_site(call_site, s, bh_free_lo, bh_free_hi))
		return 0;
	bh_free_hit();
	return 0;
}

/* the event's two arguments before it named the cache (5.12, "mm,
 * tracing: record slab name for kmem_cache_free()"): the call site
 * alone tells a buffer_head */
SEC("?tp_btf/kmem_cache_free")
int BPF_PROG(tp_bh_free2, unsigned long call_site, const void *ptr)
{
	if (bh_free_hi && call_site >= bh_free_lo && call_site < bh_free_hi)
		bh_free_hit();
	return 0;
}

#endif /* BHPROF_CALLERS_BPF_H */
