/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the attach planner's files share, and no other file: plan.c
 * (which flavour each group takes), load.c (which programs load),
 * attach.c (links), states.c (what each probe became), syscalls.c and
 * callers_plan.c (tracepoint mode's syscalls, --callers' functions).
 */
#ifndef BHPROF_ATTACH_INT_H
#define BHPROF_ATTACH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "attach.h"
#include "kernel.h"
#include "bhprof.skel.h"
#include "util/array.h"

/* one function's programs in the flavours that take functions */
struct progs {
	struct bpf_program *fe, *fx, *kp, *kr;
	/* fx's function's arity, for kernels without bpf_get_func_ret() */
	__u32 *fx_nargs;
};

#define FLAVOURS(s, n) \
	((struct progs){ s->progs.fe_##n, s->progs.fx_##n, s->progs.kp_##n, \
			 s->progs.kr_##n, (__u32 *)&s->rodata->fx_nargs_##n })
/* ... of a function counted on entry alone */
#define ENTRY_FLAVOURS(s, n) \
	((struct progs){ s->progs.fe_##n, NULL, s->progs.kp_##n, NULL, NULL })

/* A group on tracepoints whatever the mode, which --attach MODE does
 * not ask for: refused, it is lost alone, as under auto. (bio is too,
 * but every run needs its bios.) */
static inline bool group_modeless(enum bhp_group g)
{
	return g == BHP_GROUP_PASS;
}

/* A group that no tracepoint can stand in for is unseen, not lost, when
 * its functions cannot be probed: its figures read n/a. */
static inline bool group_unseen_ok(enum bhp_group g)
{
	return g == BHP_GROUP_MKWRITE;
}

/* a refusal of probe id's own function, after those before it */
static inline void pwhy_add(struct attach_plan *p, int id, const char *what,
			    const char *why)
{
	size_t n = strnlen(p->pwhy[id], sizeof(p->pwhy[id]));

	snprintf(p->pwhy[id] + n, sizeof(p->pwhy[id]) - n, "%s%s on %s: %s",
		 n ? "; " : "", what, p->func[id], why);
}

/* plan.c */
struct progs probe_progs(const struct attach_plan *p, struct bhprof_bpf *s,
			 enum probe_id id);
bool group_present(const struct attach_plan *p, enum bhp_group g);
/* a function of module mod (NULL: vmlinux) reached by kprobes alone
 * beside fentry: the module has no BTF */
bool module_kprobes_only(const struct attach_plan *p, const char *mod);
/* the arity of a function of vmlinux or of its module, by BTF; 0 if
 * BTF does not know it */
uint32_t kbtf_func_nargs(struct kbtf *kb, const struct ksyms *ks,
			 const char *name);
bool func_found(struct kbtf *kb, const struct ksyms *ks, const char *name,
		const char **sym, const char **mod);

/* load.c */
void autoload(struct bpf_program *prog, bool on);
struct bpf_program *tp_bio_prog(const struct attach_plan *p,
				struct bhprof_bpf *s);
struct bpf_program *tp_read_added_prog(const struct attach_plan *p,
				       struct bhprof_bpf *s);
struct bpf_program *tp_bh_free_prog(const struct attach_plan *p,
				    struct bhprof_bpf *s);
/* a tracepoint stand-in of a group, *g (g may be NULL) */
bool is_tp_prog(struct bhprof_bpf *s, const struct bpf_program *prog,
		enum bhp_group *g);
void group_lost(struct attach_plan *p, enum bhp_group g, const char *why);
void iomap_witness_lost(struct attach_plan *p, const char *what,
			const char *why);
void iomap_reads_lost(struct attach_plan *p, const char *what,
		      const char *why);

/* attach.c */
int link_add(struct attach_plan *p, struct bpf_link *l);

/* states.c */
void fill_states(const struct attach_plan *p, struct run_info *info);

/* syscalls.c */
bool sys_events_ok(void);
void sys_names(char *buf, size_t len, unsigned int mask);
int attach_sys_events(struct attach_plan *p, struct bhprof_bpf *s,
		      enum bhp_group g);

/* callers_plan.c: the owner programs and the free program */
#define NR_CALLERS_PROGS 3
#define CALLERS_WANT 8
size_t callers_want(const char **want);
struct progs callers_progs(struct bhprof_bpf *s, int i);
bool is_callers_prog(struct bhprof_bpf *s, const struct bpf_program *prog);
const char *callers_func(const struct attach_plan *p, int i);
/* ... and the flavour it runs in, the bh group's mode m or kprobes */
enum attach_mode callers_mode(const struct attach_plan *p, int i,
			      enum attach_mode m);
void callers_autoload(struct attach_plan *p, struct bhprof_bpf *s);

#endif /* BHPROF_ATTACH_INT_H */
