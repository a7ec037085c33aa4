/* SPDX-License-Identifier: GPL-2.0 */
/*
 * buffer_head allocations: alloc_buffer_head() in fentry and kprobe
 * mode, its kmem_cache_alloc events in tracepoint mode.
 *
 * Included by bhprof.bpf.c: one object.
 */
#ifndef BHPROF_BH_BPF_H
#define BHPROF_BH_BPF_H

static __always_inline void bh_alloc_hit(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct bhp_global_stats *g = glob();
	struct bhp_path_stats *ps;
	struct bhp_fs_stats *fs;
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
	if (!reading) {
		fs = fs_row(c ? c->fs : 0, path);
		if (fs)
			fs->bh_alloc++;
	}
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

#endif /* BHPROF_BH_BPF_H */
