// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which programs the kernel loads: the planned flavour's, and the
 * next flavour's of a group whose programs it refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "attach_int.h"

void autoload(struct bpf_program *prog, bool on)
{
	if (prog)
		bpf_program__set_autoload(prog, on);
}

/* the flavours of an event whose arguments changed: the kernel's own */
struct bpf_program *tp_bio_prog(const struct attach_plan *p,
				struct bhprof_bpf *s)
{
	return p->bio_tp_q ? s->progs.tp_bio_queue_q : s->progs.tp_bio_queue;
}

struct bpf_program *tp_read_added_prog(const struct attach_plan *p,
				       struct bhprof_bpf *s)
{
	return p->read_tp_page ? s->progs.tp_read_page_added :
				 s->progs.tp_read_folio_added;
}

struct bpf_program *tp_bh_free_prog(const struct attach_plan *p,
				    struct bhprof_bpf *s)
{
	return p->bh_free_tp2 ? s->progs.tp_bh_free2 : s->progs.tp_bh_free;
}

/* ext4's events: tp_btf with its module's BTF, raw_tp without (5.10) */
static struct bpf_program *ext4_tp(const struct attach_plan *p,
				   struct bpf_program *btf,
				   struct bpf_program *raw)
{
	return p->tp_raw[PROBE_PASS_EXT4] ? raw : btf;
}

/* the pass group's: ext4_writepages and its result */
static void autoload_ext4_passes(const struct attach_plan *p,
				 struct bhprof_bpf *s, bool on)
{
	autoload(ext4_tp(p, s->progs.tp_pass_ext4, s->progs.tp_pass_ext4_raw),
		 on);
	autoload(ext4_tp(p, s->progs.tp_pass_ext4_end,
			 s->progs.tp_pass_ext4_end_raw), on);
}

/* the writeback group's: the result's pages */
static void autoload_ext4_pages(const struct attach_plan *p,
				struct bhprof_bpf *s, bool on)
{
	autoload(ext4_tp(p, s->progs.tp_wb_ext4, s->progs.tp_wb_ext4_raw), on);
}

/* The tracepoint stand-ins of each group, every variant. */
bool is_tp_prog(struct bhprof_bpf *s, const struct bpf_program *prog,
		enum bhp_group *g)
{
	const struct {
		const struct bpf_program *prog;
		enum bhp_group g;
	} t[] = {
		{ s->progs.tp_write_enter, BHP_GROUP_WRITE },
		{ s->progs.tp_write_exit, BHP_GROUP_WRITE },
		{ s->progs.tp_sync_enter, BHP_GROUP_WB },
		{ s->progs.tp_sync_exit, BHP_GROUP_WB },
		{ s->progs.tp_flush_enter, BHP_GROUP_WB },
		{ s->progs.tp_flush_exit, BHP_GROUP_WB },
		{ s->progs.tp_iomap_folio, BHP_GROUP_WB },
		{ s->progs.tp_iomap_folio_new, BHP_GROUP_WB },
		{ s->progs.tp_bh_folio, BHP_GROUP_WB },
		{ s->progs.tp_bh_folio_t, BHP_GROUP_WB },
		{ s->progs.tp_wb_ext4, BHP_GROUP_WB },
		{ s->progs.tp_wb_ext4_raw, BHP_GROUP_WB },
		{ s->progs.tp_bh_alloc, BHP_GROUP_BH },
		{ s->progs.tp_bh_alloc_c, BHP_GROUP_BH },
		{ s->progs.tp_bio_queue, BHP_GROUP_BIO },
		{ s->progs.tp_bio_queue_q, BHP_GROUP_BIO },
		{ s->progs.tp_read_enter, BHP_GROUP_READ },
		{ s->progs.tp_read_exit, BHP_GROUP_READ },
		{ s->progs.tp_read_folio_added, BHP_GROUP_READ },
		{ s->progs.tp_read_page_added, BHP_GROUP_READ },
		{ s->progs.tp_iomap_readpage, BHP_GROUP_READ },
		{ s->progs.tp_iomap_readahead, BHP_GROUP_READ },
		{ s->progs.tp_pass_start, BHP_GROUP_PASS },
		{ s->progs.tp_pass_end, BHP_GROUP_PASS },
		{ s->progs.tp_pass_ext4, BHP_GROUP_PASS },
		{ s->progs.tp_pass_ext4_end, BHP_GROUP_PASS },
		{ s->progs.tp_pass_ext4_raw, BHP_GROUP_PASS },
		{ s->progs.tp_pass_ext4_end_raw, BHP_GROUP_PASS },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		if (t[i].prog == prog) {
			if (g)
				*g = t[i].g;
			return true;
		}
	}
	return false;
}

/* The group and flavour (fentry or kprobe) of a function probe's program. */
static bool is_func_prog(const struct attach_plan *p, struct bhprof_bpf *s,
			 const struct bpf_program *prog, enum bhp_group *g,
			 enum attach_mode *m)
{
	for (int id = 0; id < NR_PROBES; id++) {
		struct progs pr = probe_progs(p, s, id);

		*g = probe_group_of(id);
		if (prog == pr.fe || (pr.fx && prog == pr.fx)) {
			*m = MODE_FENTRY;
			return true;
		}
		if (prog == pr.kp || (pr.kr && prog == pr.kr)) {
			*m = MODE_KPROBE;
			return true;
		}
	}
	return false;
}

void group_lost(struct attach_plan *p, enum bhp_group g, const char *why)
{
	p->failed[g] = true;
	p->group_mode[g] = MODE_NONE;
	snprintf(p->fail_why[g], sizeof(p->fail_why[g]), "%s", why);
}

static void why_add(struct attach_plan *p, enum bhp_group g, const char *fmt,
		    const char *a, const char *b)
{
	size_t n = strnlen(p->why[g], sizeof(p->why[g]));

	snprintf(p->why[g] + n, sizeof(p->why[g]) - n, "%s", n ? "; " : "");
	n = strnlen(p->why[g], sizeof(p->why[g]));
	snprintf(p->why[g] + n, sizeof(p->why[g]) - n, fmt, a, b);
}

/*
 * A program the kernel refused costs its flavour: fentry falls to
 * kprobe, kprobe to the tracepoint stand-in, and a group with nothing
 * left is lost. --attach MODE asked for one flavour: nothing to fall to.
 * m is the refused program's flavour.
 */
static int demote(struct attach_plan *p, enum bhp_group g, enum attach_mode m,
		  const char *what, const char *why)
{
	if (group_modeless(g) && !p->failed[g]) {
		group_lost(p, g, why);
		return g;
	}
	if (p->request != MODE_AUTO || p->failed[g])
		return -EINVAL;
	why_add(p, g, "%s: %s", what, why);
	if (m == MODE_FENTRY) {
		p->group_mode[g] = MODE_KPROBE;
	} else if (m == MODE_KPROBE && p->tp_ok[g]) {
		p->group_mode[g] = MODE_TRACEPOINT;
	} else if (m == MODE_TRACEPOINT && p->group_mode[g] == MODE_KPROBE) {
		/* a stand-in loaded behind kprobes: keep the kprobes */
		p->tp_ok[g] = false;
	} else if (m == MODE_KPROBE && group_unseen_ok(g)) {
		p->group_mode[g] = MODE_NONE;
	} else {
		group_lost(p, g, why);
	}
	return g;
}

/* iomap's engine's event only confirms a write call's path: refused,
 * at load or at attach, the file's operations alone decide it */
void iomap_witness_lost(struct attach_plan *p, const char *what,
			const char *why)
{
	p->write_tp_iomap = false;
	pwhy_add(p, PROBE_WRITE_IOMAP, what, why);
	fprintf(stderr, "bhprof: iomap's mapping event was refused (%s: %s): "
		"a write call's path is its file's operations', unconfirmed\n",
		what, why);
}

/* iomap's read events give its read calls alone: refused, at load or
 * at attach, those read n/a and the rest of the read group stays */
void iomap_reads_lost(struct attach_plan *p, const char *what, const char *why)
{
	p->read_tp_iomap = false;
	pwhy_add(p, PROBE_READ_IOMAP_FOLIO, what, why);
	fprintf(stderr, "bhprof: the iomap read events were refused (%s: %s): "
		"iomap read calls are not counted\n", what, why);
}

int attach_plan_demote(struct attach_plan *p, struct bhprof_bpf *s,
		       const struct bpf_program *prog, const char *why)
{
	enum attach_mode m = MODE_TRACEPOINT;
	enum bhp_group g;

	/* a typed twin refused: the untyped one, the same figures */
	if (p->typed && (prog == s->progs.tp_sysev_enter_t ||
			 prog == s->progs.tp_bh_folio_t)) {
		p->typed = false;
		return prog == s->progs.tp_bh_folio_t ? BHP_GROUP_WB :
							BHP_GROUP_WRITE;
	}
	/* the per-syscall events refused: raw_syscalls instead */
	if (p->sys_events &&
	    (prog == s->progs.tp_sysev_enter || prog == s->progs.tp_sysev_exit ||
	     prog == s->progs.tp_sysev_enter0)) {
		p->sys_events = false;
		return BHP_GROUP_WRITE;
	}
	/* the syscall programs every group shares: one per group instead */
	if (prog == s->progs.tp_sys_enter || prog == s->progs.tp_sys_exit)
		return attach_plan_split_syscalls(p);
	if (p->write_tp_iomap && (prog == s->progs.tp_iomap_write_seen ||
				  prog == s->progs.tp_iomap_write_seen_apply)) {
		iomap_witness_lost(p, bpf_program__name(prog), why);
		return BHP_GROUP_WRITE;
	}
	if (p->read_tp_iomap && (prog == s->progs.tp_iomap_readpage ||
				 prog == s->progs.tp_iomap_readahead)) {
		iomap_reads_lost(p, bpf_program__name(prog), why);
		return BHP_GROUP_READ;
	}
	if (is_callers_prog(s, prog)) {
		if (p->callers_lost)
			return -EINVAL;
		p->callers_lost = true;
		snprintf(p->callers_why, sizeof(p->callers_why),
			 "owners and frees lost: %s: %s",
			 bpf_program__name(prog), why);
		return BHP_GROUP_CALLERS;
	}
	if (!is_tp_prog(s, prog, &g) && !is_func_prog(p, s, prog, &g, &m))
		return -ENOENT;
	return demote(p, g, m, bpf_program__name(prog), why);
}

int attach_plan_split_syscalls(struct attach_plan *p)
{
	if (p->sys_split)
		return -EINVAL;
	p->sys_split = true;
	p->sys_events = false;
	return BHP_GROUP_WRITE;
}

int attach_plan_demote_group(struct attach_plan *p, enum bhp_group g,
			     const char *why)
{
	enum attach_mode m = p->group_mode[g];

	/* the typed twins first: the untyped ones cost the group nothing */
	if (p->typed && (g == BHP_GROUP_WRITE || g == BHP_GROUP_WB ||
			 g == BHP_GROUP_READ)) {
		p->typed = false;
		return g;
	}
	/* under kprobe the stand-in loads too: either may be the one */
	if (m == MODE_KPROBE)
		p->tp_ok[g] = false;
	return demote(p, g, m, group_name(g), why);
}

static void autoload_sys(struct attach_plan *p, struct bhprof_bpf *s)
{
	bool raw = !p->sys_split && !p->sys_events;

	autoload(s->progs.tp_sys_enter, raw);
	autoload(s->progs.tp_sys_exit, raw);
	autoload(s->progs.tp_sysev_enter, p->sys_events && !p->typed);
	autoload(s->progs.tp_sysev_enter_t, p->sys_events && p->typed);
	autoload(s->progs.tp_sysev_enter0, p->sys_events);
	autoload(s->progs.tp_sysev_exit, p->sys_events);
}

static void autoload_tracepoints(struct attach_plan *p,
				 struct bhprof_bpf *s, enum bhp_group g)
{
	switch (g) {
	case BHP_GROUP_WRITE:
		autoload_sys(p, s);
		autoload(s->progs.tp_write_enter, p->sys_split);
		autoload(s->progs.tp_write_exit, p->sys_split);
		autoload(s->progs.tp_iomap_write_seen,
			 p->write_tp_iomap && p->write_tp_iter);
		autoload(s->progs.tp_iomap_write_seen_apply,
			 p->write_tp_iomap && p->write_tp_apply);
		break;
	case BHP_GROUP_WB:
		autoload_sys(p, s);
		autoload(s->progs.tp_sync_enter, p->sys_split);
		autoload(s->progs.tp_sync_exit, p->sys_split);
		autoload(s->progs.tp_flush_enter, true);
		autoload(s->progs.tp_flush_exit, true);
		if (!p->absent[PROBE_WB_IOMAP])
			autoload(p->iomap_tp_new ? s->progs.tp_iomap_folio_new :
						   s->progs.tp_iomap_folio,
				 true);
		autoload(p->typed ? s->progs.tp_bh_folio_t :
				    s->progs.tp_bh_folio,
			 !p->absent[PROBE_WB_BH]);
		/* ext4's own pages: the pass group's events, where ext4 is */
		autoload_ext4_pages(p, s, !p->absent[PROBE_PASS_EXT4]);
		break;
	case BHP_GROUP_BH:
		autoload(p->callers ? s->progs.tp_bh_alloc_c :
				      s->progs.tp_bh_alloc, true);
		break;
	case BHP_GROUP_READ:
		autoload_sys(p, s);
		autoload(s->progs.tp_read_enter, p->sys_split);
		autoload(s->progs.tp_read_exit, p->sys_split);
		autoload(tp_read_added_prog(p, s), p->read_tp_pages);
		autoload(s->progs.tp_iomap_readpage, p->read_tp_iomap);
		autoload(s->progs.tp_iomap_readahead, p->read_tp_iomap);
		break;
	case BHP_GROUP_PASS:
		autoload(s->progs.tp_pass_start, !p->absent[PROBE_PASS_INODE]);
		autoload(s->progs.tp_pass_end, !p->absent[PROBE_PASS_INODE]);
		autoload_ext4_passes(p, s, !p->absent[PROBE_PASS_EXT4]);
		break;
	default:
		break;
	}
}

/*
 * The write syscalls' events for the other group's calls, where the
 * write group runs on functions: on the per-syscall events alone, which
 * cost only the write syscalls (raw_syscalls would cost every one).
 */
static void other_autoload(struct attach_plan *p, struct bhprof_bpf *s)
{
	enum attach_mode m = p->group_mode[BHP_GROUP_WRITE];

	if (p->failed[BHP_GROUP_WRITE] || !p->sys_events ||
	    (m != MODE_FENTRY && m != MODE_KPROBE))
		return;
	autoload(p->typed ? s->progs.tp_sysev_enter_t :
			    s->progs.tp_sysev_enter, true);
	autoload(s->progs.tp_sysev_exit, true);
}

/* Every present function's programs in its group's flavour (fentry or
 * kprobe; the bio probe is a tracepoint in every mode). */
static void autoload_functions(struct attach_plan *p, struct bhprof_bpf *s)
{
	for (int id = 0; id < NR_PROBES; id++) {
		enum attach_mode m = probe_mode(p, id);
		struct progs pr = probe_progs(p, s, id);

		if (p->absent[id] || id == PROBE_BIO ||
		    p->failed[probe_group_of(id)])
			continue;
		if (m == MODE_FENTRY) {
			autoload(pr.fe, true);
			autoload(pr.fx, true);
			if (pr.fx_nargs)
				*pr.fx_nargs = p->nargs[id];
			/* the program is named after the newest function */
			bpf_program__set_attach_target(pr.fe, 0, p->func[id]);
			if (pr.fx)
				bpf_program__set_attach_target(pr.fx, 0,
							       p->func[id]);
		} else if (m == MODE_KPROBE) {
			autoload(pr.kp, true);
			autoload(pr.kr, true);
		}
	}
}

/*
 * Before 5.12 the verifier refuses any BPF_ATOMIC with a fetch (cmpxchg,
 * fetch-and-add) in a program, even where the bpf_atomics constant
 * rules it out: its first pass over the instructions checks their
 * fields before it knows what runs. Those it would never reach become
 * no-ops ("goto +0"), one for one, so that no jump or relocation moves.
 */
static void strip_fetch_atomics(struct attach_plan *p, struct bhprof_bpf *s)
{
	struct bpf_program *prog;
	struct bpf_insn *insns;
	size_t n;

	if (p->bpf_atomics)
		return;
	bpf_object__for_each_program(prog, s->obj) {
		if (!bpf_program__autoload(prog))
			continue;
		n = bpf_program__insn_cnt(prog);
		insns = malloc(n * sizeof(*insns));
		if (!insns)
			continue;
		memcpy(insns, bpf_program__insns(prog), n * sizeof(*insns));
		for (size_t i = 0; i < n; i++) {
			if (insns[i].code != (BPF_STX | BPF_ATOMIC | BPF_DW) &&
			    insns[i].code != (BPF_STX | BPF_ATOMIC | BPF_W))
				continue;
			if (!(insns[i].imm & BPF_FETCH))
				continue;
			insns[i] = (struct bpf_insn){ .code = BPF_JMP | BPF_JA };
		}
		bpf_program__set_insns(prog, insns, n);
		free(insns);
	}
}

void attach_plan_autoload(struct attach_plan *p, struct bhprof_bpf *s)
{
	autoload(tp_bio_prog(p, s), !p->failed[BHP_GROUP_BIO]);
	autoload(s->progs.tp_thread_exit, true);
	autoload_functions(p, s);
	for (int g = 0; g < BHP_NR_GROUPS; g++) {
		enum attach_mode m = p->group_mode[g];

		if (p->failed[g] || g == BHP_GROUP_BIO)
			continue;
		/* under auto, a kprobe group keeps its stand-in ready */
		if (m == MODE_TRACEPOINT ||
		    (m == MODE_KPROBE && p->request == MODE_AUTO && p->tp_ok[g]))
			autoload_tracepoints(p, s, g);
	}
	other_autoload(p, s);
	callers_autoload(p, s);
	strip_fetch_atomics(p, s);
}

/* ext4's events of the pass group, and of the writeback group where it
 * runs on tracepoints: the tracepoint probes a module can bring */
static void late_tracepoints(struct attach_plan *p, struct bhprof_bpf *s)
{
	bool ext4 = !p->absent[PROBE_PASS_EXT4];
	bool wb_tp = p->group_mode[BHP_GROUP_WB] == MODE_TRACEPOINT &&
		     !p->failed[BHP_GROUP_WB];

	autoload_ext4_passes(p, s, ext4);
	autoload_ext4_pages(p, s, ext4 && wb_tp);
}

void attach_plan_late_autoload(struct attach_plan *p, struct bhprof_bpf *s)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, s->obj)
		autoload(prog, false);
	autoload_functions(p, s);
	late_tracepoints(p, s);
	strip_fetch_atomics(p, s);
}
