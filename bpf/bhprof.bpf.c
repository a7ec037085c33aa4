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
#include "floor.bpf.h"
#include "bhprof.h"
#include "bhprof_hist.h"
#include "compat.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by userspace between open and load. */
const volatile __u32 bdev_path = PATH_BH;
const volatile __u32 filter_tgid = 0;
/* -d: the devices, scanned in place (a hash lookup cost more, on every
 * write call, bio and folio), then the devices a file on one of them
 * may name instead (btrfs's anonymous ones) */
const volatile __u32 nr_filter_devs = 0;
const volatile __u32 filter_devs[BHP_MAX_DEV_MATCH] = {};
const volatile __u64 bh_cs_lo = 0;	/* alloc_buffer_head's text range */
const volatile __u64 bh_cs_hi = 0;
const volatile bool gpw_takes_file = false;
const volatile __u32 page_shift = 12;
const volatile bool head_is_mask = false;	/* 7.2 compound_info, see compat */
const volatile bool iomap_read_ctx = false;	/* 7.2 iomap_read_folio(ops, ctx) */
const volatile bool read_by_page = false;	/* up to 5.18: ->readpage(page) */
/* BPF_ATOMIC's fetching operations (5.12, "bpf: Add BPF_FETCH field /
 * create atomic_fetch_add instruction" and its cmpxchg): without them a
 * thread keeps its entry in the threads hash alone, and --callers's net
 * count is added then read. The verifier never visits the branch the
 * constant rules out, so 5.10 loads the object */
const volatile bool bpf_atomics = true;
/* dev_slots in use, less one (tests narrow it to make rows share one) */
const volatile __u32 dev_slot_mask = DEV_SLOTS - 1;

/* a compiler barrier: program order is what another program on this CPU
 * sees */
#define barrier() asm volatile("" ::: "memory")

/* BPF_CORE_READ's shape, as plain loads: for a pointer handed typed */
#define PLAIN_READ(p, ...) PLAIN_READ_N(p, __VA_ARGS__, 2, 1)
#define PLAIN_READ_N(p, a, b, n, ...) PLAIN_READ_##n(p, a, b)
#define PLAIN_READ_1(p, a, b) ((p)->a)
#define PLAIN_READ_2(p, a, b) ((p)->a->b)
/* ... where typed (a constant) says so, else probe reads: one body for a
 * tp_btf program and its raw_tp twin, whose pointer comes untyped */
#define READ_T(typed, p, ...) \
	((typed) ? PLAIN_READ(p, __VA_ARGS__) : BPF_CORE_READ(p, __VA_ARGS__))

/* Stale contexts (a missed kretprobe) are replaced after this long. */
#define CTX_STALE_NS (60ULL * 1000000000ULL)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NR_PATH_ROWS);
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

/* the paths' own: the other group keeps counts, no distributions */
static __always_inline void hist_add(__u32 path, __u32 kind, __u64 v)
{
	__u32 key = HIST_ID(path, kind);
	struct bhp_hist *h;
	__u32 b = hist_bucket(v);

	if (path >= NR_PATHS)
		return;
	h = bpf_map_lookup_elem(&hists, &key);
	if (!h)
		return;
	if (b < HIST_BUCKETS)
		h->b[b]++;
}

static __always_inline bool dev_ok(__u32 dev)
{
	if (!nr_filter_devs)
		return true;
	for (int i = 0; i < BHP_MAX_DEV_MATCH; i++) {
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

/* The probe groups, one header each, every one after what it uses. */
#include "pathsrc.bpf.h"
#include "fsrows.bpf.h"
#include "ctx.bpf.h"
#include "write.bpf.h"
#include "writeback.bpf.h"
#include "bh.bpf.h"
#include "callers.bpf.h"
#include "read.bpf.h"
#include "sys.bpf.h"
#include "passes.bpf.h"
#include "mkwrite.bpf.h"
#include "bio.bpf.h"

/* ---- a thread's contexts go with it ---- */

SEC("?tp_btf/sched_process_exit")
int BPF_PROG(tp_thread_exit)
{
	thread_drop(bpf_get_current_pid_tgid());
	return 0;
}
