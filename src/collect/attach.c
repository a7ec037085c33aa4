// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Attaching the loaded programs, group by group, and detaching them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "attach_int.h"

int link_add(struct attach_plan *p, struct bpf_link *l)
{
	int err = (int)libbpf_get_error(l);

	if (!l)
		return err ? err : -EINVAL;
	if (err)
		return err;
	if (p->nr_links >= PLAN_MAX_LINKS) {
		bpf_link__destroy(l);
		return -E2BIG;
	}
	p->links[p->nr_links++] = l;
	return 0;
}

static int attach_prog(struct attach_plan *p, struct bpf_program *prog)
{
	if (!bpf_program__autoload(prog))
		return 0;
	return link_add(p, bpf_program__attach(prog));
}

/*
 * The syscall programs of group g: its own events, or the shared raw
 * ones, attached once for every group, or its own raw ones after a
 * split.
 */
static int attach_sys(struct attach_plan *p, struct bpf_program *enter,
		      struct bpf_program *exit, struct bhprof_bpf *s,
		      enum bhp_group g)
{
	int mark = p->nr_links, err;

	if (p->sys_events)
		return attach_sys_events(p, s, g);
	if (p->sys_split) {
		err = attach_prog(p, enter);
		return err ?: attach_prog(p, exit);
	}
	if (p->sys_link_at >= 0)
		return 0;
	err = attach_prog(p, s->progs.tp_sys_enter);
	err = err ?: attach_prog(p, s->progs.tp_sys_exit);
	if (!err)
		p->sys_link_at = mark;
	return err;
}

static void links_truncate(struct attach_plan *p, int mark);

static void attach_iomap_reads(struct attach_plan *p, struct bhprof_bpf *s)
{
	int mark = p->nr_links;
	int err = attach_prog(p, s->progs.tp_iomap_readpage);

	err = err ?: attach_prog(p, s->progs.tp_iomap_readahead);
	s->bss->iomap_read_witness = !err;
	if (!err)
		return;
	links_truncate(p, mark);
	iomap_reads_lost(p, "tracepoint attach", strerror(-err));
}

static void attach_iomap_witness(struct attach_plan *p, struct bhprof_bpf *s)
{
	int mark = p->nr_links;
	int err = 0;

	if (!p->write_tp_iomap)
		return;
	if (p->write_tp_iter)
		err = attach_prog(p, s->progs.tp_iomap_write_seen);
	if (!err && p->write_tp_apply)
		err = attach_prog(p, s->progs.tp_iomap_write_seen_apply);
	s->bss->iomap_witness = !err;
	if (!err)
		return;
	links_truncate(p, mark);
	iomap_witness_lost(p, "tracepoint attach", strerror(-err));
}

static int attach_tracepoints(struct attach_plan *p, struct bhprof_bpf *s,
			      enum bhp_group g)
{
	int err = 0;

	switch (g) {
	case BHP_GROUP_WRITE:
		err = attach_sys(p, s->progs.tp_write_enter,
				 s->progs.tp_write_exit, s, g);
		if (!err)
			attach_iomap_witness(p, s);
		break;
	case BHP_GROUP_WB:
		err = attach_sys(p, s->progs.tp_sync_enter,
				 s->progs.tp_sync_exit, s, g);
		err = err ?: attach_prog(p, s->progs.tp_flush_enter);
		err = err ?: attach_prog(p, s->progs.tp_flush_exit);
		err = err ?: attach_prog(p, s->progs.tp_iomap_folio);
		err = err ?: attach_prog(p, s->progs.tp_iomap_folio_new);
		err = err ?: attach_prog(p, s->progs.tp_bh_folio);
		err = err ?: attach_prog(p, s->progs.tp_bh_folio_t);
		err = err ?: attach_prog(p, s->progs.tp_wb_ext4);
		err = err ?: attach_prog(p, s->progs.tp_wb_ext4_raw);
		break;
	case BHP_GROUP_BH:
		err = attach_prog(p, p->callers ? s->progs.tp_bh_alloc_c :
						  s->progs.tp_bh_alloc);
		break;
	case BHP_GROUP_BIO:
		err = attach_prog(p, tp_bio_prog(p, s));
		break;
	case BHP_GROUP_READ:
		err = attach_sys(p, s->progs.tp_read_enter,
				 s->progs.tp_read_exit, s, g);
		err = err ?: attach_prog(p, tp_read_added_prog(p, s));
		if (!err)
			attach_iomap_reads(p, s);
		break;
	case BHP_GROUP_PASS:
		err = attach_prog(p, s->progs.tp_pass_start);
		err = err ?: attach_prog(p, s->progs.tp_pass_end);
		err = err ?: attach_prog(p, s->progs.tp_pass_ext4);
		err = err ?: attach_prog(p, s->progs.tp_pass_ext4_end);
		err = err ?: attach_prog(p, s->progs.tp_pass_ext4_raw);
		err = err ?: attach_prog(p, s->progs.tp_pass_ext4_end_raw);
		break;
	default:
		break;
	}
	return err;
}

static struct bpf_link *attach_one(struct bpf_program *prog,
				   enum attach_mode m, bool ret,
				   const char *sym)
{
	if (m == MODE_FENTRY)
		return bpf_program__attach(prog);
	/* kernels without the kprobe PMU make them in tracefs */
	tracefs_ensure();
	return bpf_program__attach_kprobe(prog, ret, sym);
}

/* Every function of group g, entry and return, as fentry or kprobe.
 * All are tried, so that each probe keeps its own refusal (after its
 * fentry one: both explain a fallback); msg gets the first. */
static int attach_functions(struct attach_plan *p, struct bhprof_bpf *s,
			    enum bhp_group g, enum attach_mode m, char *msg,
			    size_t len)
{
	int first = 0;

	for (int id = 0; id < NR_PROBES; id++) {
		struct progs pr = probe_progs(p, s, id);
		enum attach_mode pm = m == MODE_FENTRY ? probe_mode(p, id) : m;
		struct bpf_program *entry = pm == MODE_FENTRY ? pr.fe : pr.kp;
		struct bpf_program *ret = pm == MODE_FENTRY ? pr.fx : pr.kr;
		size_t n;
		int err;

		if (probe_group_of(id) != g || p->absent[id])
			continue;
		err = link_add(p, attach_one(entry, pm, false, p->ksym[id]));
		if (!err && ret)
			err = link_add(p, attach_one(ret, pm, true, p->ksym[id]));
		if (!err)
			continue;
		n = strnlen(p->pwhy[id], sizeof(p->pwhy[id]));
		pwhy_add(p, id, mode_name(m), strerror(-err));
		if (!first) {
			snprintf(msg, len, "%s on %s: %s", mode_name(m),
				 m == MODE_FENTRY ? p->func[id] : p->ksym[id],
				 strerror(-err));
			snprintf(p->fell[g][m == MODE_KPROBE],
				 sizeof(p->fell[g][0]), "%s",
				 p->pwhy[id] + n + (n ? 2 : 0));
		}
		first = first ?: err;
	}
	return first;
}

/* Drop the links made since mark: a group never runs half-attached. */
static void links_truncate(struct attach_plan *p, int mark)
{
	while (p->nr_links > mark)
		bpf_link__destroy(p->links[--p->nr_links]);
	if (p->sys_link_at >= p->nr_links)
		p->sys_link_at = -1;
}

#define DETACH_THREADS 8

struct detach_slice {
	struct bpf_link **links;
	int from, to;
};

static void *detach_slice(void *arg)
{
	struct detach_slice *d = arg;

	for (int i = d->from; i < d->to; i++)
		bpf_link__destroy(d->links[i]);
	return NULL;
}

/*
 * Each tracepoint link waits out an RCU grace period when it goes, about
 * 70 ms here; two dozen of them one after another kept bhprof from
 * exiting for two seconds. Grace periods waited for in parallel overlap.
 */
static void links_destroy_parallel(struct attach_plan *p)
{
	struct detach_slice d[DETACH_THREADS];
	pthread_t t[DETACH_THREADS];
	bool started[DETACH_THREADS] = {};
	int n = p->nr_links, per = (n + DETACH_THREADS - 1) / DETACH_THREADS;

	for (int i = 0; i < DETACH_THREADS; i++) {
		d[i] = (struct detach_slice){ p->links, i * per,
					      (i + 1) * per < n ? (i + 1) * per : n };
		if (d[i].from >= d[i].to)
			continue;
		started[i] = !pthread_create(&t[i], NULL, detach_slice, &d[i]);
		if (!started[i])
			detach_slice(&d[i]);
	}
	for (int i = 0; i < DETACH_THREADS; i++)
		if (started[i])
			pthread_join(t[i], NULL);
	p->nr_links = 0;
}

/* Attaches group g in its flavour; on failure msg says why. */
static int attach_group(struct attach_plan *p, struct bhprof_bpf *s,
			enum bhp_group g, char *msg, size_t len)
{
	int mark = p->nr_links, err;

	switch (p->group_mode[g]) {
	case MODE_FENTRY:
		return attach_functions(p, s, g, MODE_FENTRY, msg, len);
	case MODE_KPROBE:
		err = attach_functions(p, s, g, MODE_KPROBE, msg, len);
		if (!err)
			return 0;
		links_truncate(p, mark);
		if (p->request == MODE_AUTO && group_unseen_ok(g)) {
			p->group_mode[g] = MODE_NONE;
			return 0;
		}
		if (p->request != MODE_AUTO || !p->tp_ok[g])
			return err;
		p->group_mode[g] = MODE_TRACEPOINT;
		/* fall through */
	case MODE_TRACEPOINT:
		err = attach_tracepoints(p, s, g);
		if (err)
			snprintf(msg, len, "cannot attach the %s tracepoints: %s",
				 group_name(g), strerror(-err));
		return err;
	default:
		return 0;
	}
}

/*
 * The groups that put figures on a path. buffer_head allocations alone
 * (5.10 loaded that group and no other) say nothing of which path made
 * them: a run with only those would print a summary of nothing.
 */
static bool path_group(int g)
{
	return g != BHP_GROUP_BH && g != BHP_GROUP_CALLERS;
}

/* Is any group that the kernel has still standing and attached? (One
 * no attach mode can see, page_mkwrite's in tracepoints, is not.) */
static bool any_group_left(const struct attach_plan *p)
{
	for (int g = 0; g < BHP_NR_GROUPS; g++)
		if (path_group(g) && group_present(p, g) &&
		    attach_group_runs(p, g))
			return true;
	return false;
}

static int callers_attach_funcs(struct attach_plan *p, struct bhprof_bpf *s,
				enum attach_mode m)
{
	int err = 0;

	for (int i = 0; i < NR_CALLERS_PROGS && !err; i++) {
		struct progs pr = callers_progs(s, i);
		const char *fn = callers_func(p, i);
		enum attach_mode pm = callers_mode(p, i, m);
		struct bpf_program *in = pm == MODE_FENTRY ? pr.fe : pr.kp;
		struct bpf_program *out = pm == MODE_FENTRY ? pr.fx : pr.kr;

		if (!fn)
			continue;
		err = link_add(p, attach_one(in, pm, false, fn));
		if (!err && out)
			err = link_add(p, attach_one(out, pm, true, fn));
		if (err)
			snprintf(p->callers_why, sizeof(p->callers_why),
				 "owners and frees lost: %s on %s: %s",
				 mode_name(pm), fn, strerror(-err));
	}
	return err;
}

/*
 * The owner and free probes, once the bh group stands in its flavour.
 * Failing, they cost the owners and the frees, never the chains.
 */
static void attach_callers(struct attach_plan *p, struct bhprof_bpf *s,
			   struct run_info *info)
{
	enum attach_mode m = p->group_mode[BHP_GROUP_BH];
	int mark = p->nr_links, err = 0;

	if (!p->callers)
		return;
	info->features |= RUN_F_CALLERS;
	if (!p->callers_lost && !p->failed[BHP_GROUP_BH] &&
	    !p->absent[PROBE_BH_ALLOC]) {
		if (m == MODE_FENTRY || m == MODE_KPROBE)
			err = callers_attach_funcs(p, s, m);
		else if (m == MODE_TRACEPOINT)
			err = attach_prog(p, tp_bh_free_prog(p, s));
		if (err)
			links_truncate(p, mark);
		if (!err && m == MODE_TRACEPOINT)
			snprintf(p->callers_why, sizeof(p->callers_why),
				 "tracepoints: no owners; frees from "
				 "kmem:kmem_cache_free");
	}
	info->callers_mode = err || p->callers_lost ? MODE_NONE : m;
	snprintf(info->callers_detail, sizeof(info->callers_detail), "%s",
		 p->callers_why);
}

/*
 * The other group's write calls: the write group's own syscall events in
 * tracepoint mode see every file; beside functions, the write syscalls'
 * events see the calls that no path's engine took over (btrfs, fuse
 * without its writeback cache, whatever its operations name). Failing,
 * they cost that figure alone.
 */
static void attach_other(struct attach_plan *p, struct bhprof_bpf *s,
			 struct run_info *info)
{
	enum attach_mode m = p->group_mode[BHP_GROUP_WRITE];
	int mark = p->nr_links, err;

	p->other_sys = false;
	info->features |= RUN_F_OTHER;
	info->other_mode = MODE_NONE;
	if (p->failed[BHP_GROUP_WRITE]) {
		snprintf(info->other_detail, sizeof(info->other_detail),
			 "the write group failed");
		return;
	}
	if (m == MODE_TRACEPOINT) {
		info->other_mode = m;
		snprintf(info->other_detail, sizeof(info->other_detail),
			 "the write group's syscall events, every file");
		return;
	}
	if (!p->sys_events) {
		snprintf(info->other_detail, sizeof(info->other_detail),
			 "no per-syscall events (syscalls:sys_enter_write, "
			 "CONFIG_FTRACE_SYSCALLS)");
		return;
	}
	err = attach_sys_events(p, s, BHP_GROUP_WRITE);
	if (err) {
		links_truncate(p, mark);
		snprintf(info->other_detail, sizeof(info->other_detail),
			 "syscalls:sys_enter_write: %s", strerror(-err));
		return;
	}
	p->other_sys = true;
	info->other_mode = MODE_TRACEPOINT;
	snprintf(info->other_detail, sizeof(info->other_detail),
		 "syscalls:sys_{enter,exit}_* of the write syscalls, for "
		 "calls no path's engine ran");
}

/*
 * Under --attach auto a group that will not attach is lost and the rest
 * goes on; a forced mode is all or nothing.
 */
int attach_plan_attach(struct attach_plan *p, struct bhprof_bpf *s,
		       struct run_info *info)
{
	char msg[sizeof(p->fail_why[0])];
	int err;

	/* every group's thread contexts are dropped when their thread exits:
	 * without, they would only go stale, and a full map loses events */
	err = attach_prog(p, s->progs.tp_thread_exit);
	if (err)
		fprintf(stderr, "bhprof: sched_process_exit: %s; the contexts "
			"of exited threads stay until the maps are full\n",
			strerror(-err));
	for (int g = 0; g < BHP_NR_GROUPS; g++) {
		int mark = p->nr_links;

		if (p->failed[g])
			continue;
		err = attach_group(p, s, g, msg, sizeof(msg));
		if (!err)
			continue;
		if (p->request != MODE_AUTO && !group_modeless(g)) {
			fprintf(stderr, "bhprof: %s\n", msg);
			goto fail;
		}
		links_truncate(p, mark);
		group_lost(p, g, msg);
	}
	attach_callers(p, s, info);
	attach_other(p, s, info);
	if (!any_group_left(p)) {
		int g = 0;

		while (g < BHP_NR_GROUPS - 1 &&
		       !(path_group(g) && group_present(p, g)))
			g++;
		fprintf(stderr, "bhprof: no probe group that measures a path "
			"could be loaded or attached on this kernel (%s: %s; "
			"-v shows libbpf's log)\n", group_name(g),
			p->fail_why[g]);
		err = -ENOENT;
		goto fail;
	}
	fill_states(p, info);
	if (p->group_mode[BHP_GROUP_READ] == MODE_TRACEPOINT &&
	    !p->failed[BHP_GROUP_READ] && p->read_tp_iomap)
		info->features |= RUN_F_TP_READ_CALLS;
	return 0;
fail:
	attach_plan_detach(p);
	return err;
}

int attach_plan_late_attach(struct attach_plan *p, struct bhprof_bpf *s,
			    char *msg, size_t len)
{
	struct bpf_program *prog;
	int err = 0;

	msg[0] = 0;
	for (int g = 0; g < BHP_NR_GROUPS && !err; g++) {
		enum attach_mode m = p->group_mode[g];

		if (!p->failed[g] && (m == MODE_FENTRY || m == MODE_KPROBE))
			err = attach_functions(p, s, g, m, msg, len);
	}
	/* the tracepoints attach_plan_late_autoload() chose */
	bpf_object__for_each_program(prog, s->obj) {
		if (err || !is_tp_prog(s, prog, NULL))
			continue;
		err = attach_prog(p, prog);
		if (err)
			snprintf(msg, len, "tracepoint %s: %s",
				 bpf_program__name(prog), strerror(-err));
	}
	if (err)
		attach_plan_detach(p);
	return err;
}

void attach_plan_detach(struct attach_plan *p)
{
	links_destroy_parallel(p);
	p->sys_link_at = -1;
}
