/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The attach table: every logical probe, its candidate kernel functions
 * (newest name first) and its tracepoint stand-in, resolved against the
 * running kernel. Probes are chosen per group so that a group never runs
 * two flavours at once, which would count the same call twice.
 */
#ifndef BHPROF_ATTACH_H
#define BHPROF_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/snapshot.h"

#define PLAN_MAX_LINKS 128

struct bhprof_bpf;
struct bpf_link;

struct attach_plan {
	enum attach_mode request;
	/* MODE_KPROBE here means "kprobe, else tracepoint" under auto */
	enum attach_mode group_mode[BHP_NR_GROUPS];
	bool tp_ok[BHP_NR_GROUPS];		/* tracepoint stand-ins exist */
	bool kprobe_ok;			/* the kernel can make kprobes */
	bool absent[NR_PROBES];
	char func[NR_PROBES][64];	/* BTF / source name */
	char ksym[NR_PROBES][64];	/* kallsyms name for kprobes */
	char mod[NR_PROBES][32];	/* its module, "" for vmlinux */
	char why[BHP_NR_GROUPS][160];	/* why a better flavour lost,
					 * for the whole group */
	char pwhy[NR_PROBES][160];	/* ... for the probe's own function */
	/* the refusal that cost the group fentry, and kprobe: the reason of
	 * a probe whose own function was not refused */
	char fell[BHP_NR_GROUPS][2][96];
	/* a group the kernel refused in every flavour tried: its figures
	 * are missing from the run, the rest goes on */
	bool failed[BHP_NR_GROUPS];
	char fail_why[BHP_NR_GROUPS][224];
	bool kernel_has_bh;
	bool gpw_takes_file;
	bool iomap_tp_new;		/* iomap_writeback_folio (6.18+) */
	bool bio_tp_q;			/* block_bio_queue(q, bio): to 5.10 */
	bool bh_free_tp2;		/* kmem_cache_free(site, ptr): to 5.11 */
	bool read_tp_page;		/* mm_filemap_add_to_page_cache(page) */
	bool typed;			/* bpf_rdonly_cast (6.2+): the
					 * programs' typed twins load */
	bool head_is_mask;		/* 7.2 compound_info as a mask */
	bool iomap_read_ctx;		/* 7.2 iomap_read_folio(ops, ctx) */
	bool read_by_page;		/* up to 5.18: ->readpage(page) */
	bool bpf_atomics;		/* 5.12 BPF_ATOMIC: cmpxchg, fetch */
	bool func_arg_helper;		/* 5.17 bpf_get_func_arg/_ret */
	bool task_btf;			/* 5.11 bpf_get_current_task_btf */
	uint32_t nargs[NR_PROBES];	/* each function's arity, by BTF */
	uint32_t own_nargs[2];		/* ... of the --callers owners' */
	/* a function of a module without BTF (before 5.11) in a group on
	 * fentry: on kprobes alone, the rest of its group on fentry */
	bool kp_alone[NR_PROBES];
	/* a tracepoint of a module without BTF (before 5.11), which tp_btf
	 * cannot attach to: on its raw_tp twin, arguments untyped */
	bool tp_raw[NR_PROBES];
	bool read_tp_pages;		/* mm_filemap_add_to_page_cache */
	bool read_tp_iomap;		/* iomap_readpage, iomap_readahead */
	/* iomap's engine ran a write: its mapping event, iomap_iter_dstmap
	 * (5.15) or iomap_apply_dstmap (before; 5.10.y has both names,
	 * buffered writes on the older) */
	bool write_tp_iomap;		/* either */
	bool write_tp_iter, write_tp_apply;
	uint64_t bh_cs_lo, bh_cs_hi;
	/* --callers: the allocation probes that take stacks, and the
	 * owner and free probes beside them, in the bh group's flavour */
	bool callers;
	bool callers_lost;		/* refused: chains only */
	bool own_jbd2;			/* jbd2 is in this kernel */
	bool own_jbd2_kp;		/* ... on kprobes beside fentry */
	bool bh_free;			/* free_buffer_head is */
	char own_func[64];		/* folio_alloc_buffers, or the page one */
	char callers_why[160];
	/* the syscall programs: one shared by every group on tracepoints,
	 * or (sys_split) one per group once the kernel refused it; on the
	 * per-syscall events (sys_events) where tracefs has them all, else
	 * on raw_syscalls */
	bool sys_events;
	bool sys_split;
	int sys_link_at;	/* its links' index, -1 unattached */
	/* the other group's write calls where the write group runs on
	 * functions (those see the two paths' alone): the write syscalls'
	 * events, for files on neither path (other_sys when attached) */
	bool other_sys;
	struct bpf_link *links[PLAN_MAX_LINKS];
	int nr_links;
};

/* Does group g run in some flavour: planned one, and not lost? */
static inline bool attach_group_runs(const struct attach_plan *p,
				     enum bhp_group g)
{
	return !p->failed[g] && p->group_mode[g] != MODE_NONE;
}

/* the flavour probe id runs in: its group's, or kprobes for a module
 * function fentry cannot reach (kp_alone) */
enum attach_mode probe_mode(const struct attach_plan *p, enum probe_id id);

/* The tracepoint stand-ins' syscall table, by number (the BPF object's
 * sys_class[]): the classes of the groups attached on tracepoints. */
void attach_plan_syscalls(const struct attach_plan *p, uint8_t *cls,
			  size_t n);
/* One syscall program per group from now on, as when the shared one was
 * refused: >= 0 to load again, -EINVAL if split already. */
int attach_plan_split_syscalls(struct attach_plan *p);

/* does this thread hold what loading BPF tracing programs takes? */
bool caps_ok(void);

/* The flavour a group gets, from what was found; pure for unit tests.
 * MODE_KPROBE under MODE_AUTO means "kprobe, else tracepoint". */
enum attach_mode select_mode(enum attach_mode request, bool present,
			     bool fentry_ok, bool kprobe_ok, bool tp_ok,
			     int *err);

/* Resolves functions and picks a flavour per group. Prints one error
 * line and returns a negative errno if the requested mode cannot work. */
struct kbtf;
struct ksyms;
int attach_plan_make(struct attach_plan *p, enum attach_mode request,
		     struct run_info *info, struct kbtf *kb,
		     const struct ksyms *ks);
/* kallsyms, with the names of every candidate function */
struct ksyms *attach_ksyms_load(void);
void attach_plan_autoload(struct attach_plan *p, struct bhprof_bpf *skel);
struct bpf_program;
/* After a failed load: the group of prog, the program the kernel refused,
 * takes its next flavour, or is lost (under --attach auto). Returns the
 * group, or a negative errno when the run cannot go on without it. */
int attach_plan_demote(struct attach_plan *p, struct bhprof_bpf *skel,
		       const struct bpf_program *prog, const char *why);
/* The same when only the group is known: its current flavour goes. */
int attach_plan_demote_group(struct attach_plan *p, enum bhp_group g,
			     const char *why);
int attach_plan_attach(struct attach_plan *p, struct bhprof_bpf *skel,
		       struct run_info *info);
/* --callers on a plan made: after attach_plan_make() */
void attach_plan_callers(struct attach_plan *p, struct kbtf *kb,
			 const struct ksyms *ks);
void attach_plan_detach(struct attach_plan *p);

/*
 * A module loaded after the start (latemod.c): mini becomes base with
 * only the probes of want that mod holds, in their groups' flavours.
 * Returns those probes, a bit each; 0 if it holds none.
 */
uint64_t attach_plan_module(struct attach_plan *mini,
			    const struct attach_plan *base, struct kbtf *kb,
			    const struct ksyms *ks, const char *mod,
			    uint64_t want);
/* ... its programs, and nothing else, to load ... */
void attach_plan_late_autoload(struct attach_plan *mini,
			       struct bhprof_bpf *skel);
/* ... and to attach: 0, or a negative errno with why in msg (the links
 * made are dropped: a module's probes stand together or not at all) */
int attach_plan_late_attach(struct attach_plan *mini, struct bhprof_bpf *skel,
			    char *msg, size_t len);

#endif /* BHPROF_ATTACH_H */
