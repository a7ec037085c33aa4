// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --callers: which owner and free functions this kernel has, and their
 * programs in every flavour.
 */
#include <stdio.h>
#include <bpf/libbpf.h>
#include "attach_int.h"

/* the functions of --callers, which may live in modules (jbd2) */
static const char *const callers_owners[] = { "folio_alloc_buffers",
					      "alloc_page_buffers" };
#define CALLERS_JBD2 "jbd2_journal_write_metadata_buffer"
#define CALLERS_FREE "free_buffer_head"

/* the names of --callers' functions, as attach_ksyms_load() wants them:
 * at most CALLERS_WANT */
size_t callers_want(const char **want)
{
	size_t n = 0;

	want[n++] = CALLERS_JBD2;
	want[n++] = NULL;
	want[n++] = CALLERS_FREE;
	want[n++] = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(callers_owners); i++)
		want[n++] = callers_owners[i];
	return n;
}

/* the owner and free programs of --callers, every flavour */
struct progs callers_progs(struct bhprof_bpf *s, int i)
{
	switch (i) {
	case 0:
		return FLAVOURS(s, own_folio);
	case 1:
		return FLAVOURS(s, own_jbd2);
	default:
		return (struct progs){ s->progs.fe_bh_free, NULL,
				       s->progs.kp_bh_free, NULL, NULL };
	}
}

bool is_callers_prog(struct bhprof_bpf *s, const struct bpf_program *prog)
{
	for (int i = 0; i < NR_CALLERS_PROGS; i++) {
		struct progs pr = callers_progs(s, i);

		if (prog == pr.fe || prog == pr.fx || prog == pr.kp ||
		    prog == pr.kr)
			return true;
	}
	return prog == s->progs.tp_bh_free || prog == s->progs.tp_bh_free2;
}

/* the function a callers program goes on, NULL if the kernel has none */
const char *callers_func(const struct attach_plan *p, int i)
{
	switch (i) {
	case 0:
		return p->own_func[0] ? p->own_func : NULL;
	case 1:
		return p->own_jbd2 ? CALLERS_JBD2 : NULL;
	default:
		return p->bh_free ? CALLERS_FREE : NULL;
	}
}

/* a function of vmlinux, or of a loaded module, by BTF or kallsyms */
static bool kernel_has_func(struct kbtf *kb, const struct ksyms *ks,
			    const char *name)
{
	const char *sym, *mod;

	return func_found(kb, ks, name, &sym, &mod);
}

/* The flavour of callers program i in a bh group of mode m: jbd2's on
 * kprobes beside fentry where its module has no BTF (before 5.11), as
 * the groups' module functions (kp_alone). */
enum attach_mode callers_mode(const struct attach_plan *p, int i,
			      enum attach_mode m)
{
	return i == 1 && m == MODE_FENTRY && p->own_jbd2_kp ? MODE_KPROBE : m;
}

void attach_plan_callers(struct attach_plan *p, struct kbtf *kb,
			 const struct ksyms *ks)
{
	const char *sym, *mod;

	p->callers = true;
	if (p->absent[PROBE_BH_ALLOC]) {
		snprintf(p->callers_why, sizeof(p->callers_why),
			 "no buffer_heads in this kernel");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(callers_owners) && !p->own_func[0];
	     i++)
		if (kernel_has_func(kb, ks, callers_owners[i]))
			snprintf(p->own_func, sizeof(p->own_func), "%s",
				 callers_owners[i]);
	/* jbd2 is a module on distribution kernels */
	p->own_jbd2 = func_found(kb, ks, CALLERS_JBD2, &sym, &mod);
	p->own_jbd2_kp = p->own_jbd2 && module_kprobes_only(p, mod);
	p->own_nargs[0] = kbtf_func_nargs(kb, ks, p->own_func);
	p->own_nargs[1] = kbtf_func_nargs(kb, ks, CALLERS_JBD2);
	p->bh_free = kernel_has_func(kb, ks, CALLERS_FREE);
}

/* Owners and frees go in the bh group's flavour; under kprobes (auto)
 * the free tracepoint waits behind them, as the group's own does. */
void callers_autoload(struct attach_plan *p, struct bhprof_bpf *s)
{
	enum attach_mode m = p->group_mode[BHP_GROUP_BH];

	if (!p->callers || p->callers_lost || p->failed[BHP_GROUP_BH] ||
	    p->absent[PROBE_BH_ALLOC])
		return;
	for (int i = 0; i < NR_CALLERS_PROGS; i++) {
		struct progs pr = callers_progs(s, i);
		const char *fn = callers_func(p, i);
		enum attach_mode pm = callers_mode(p, i, m);

		if (!fn)
			continue;
		if (pm == MODE_FENTRY) {
			autoload(pr.fe, true);
			autoload(pr.fx, true);
			if (pr.fx_nargs)
				*pr.fx_nargs = p->own_nargs[i];
			bpf_program__set_attach_target(pr.fe, 0, fn);
			if (pr.fx)
				bpf_program__set_attach_target(pr.fx, 0, fn);
		} else if (pm == MODE_KPROBE) {
			autoload(pr.kp, true);
			autoload(pr.kr, true);
		}
	}
	if (m == MODE_TRACEPOINT ||
	    (m == MODE_KPROBE && p->request == MODE_AUTO &&
	     p->tp_ok[BHP_GROUP_BH]))
		autoload(tp_bh_free_prog(p, s), true);
}
