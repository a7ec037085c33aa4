/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CO-RE helpers for the structures that changed between 6.1 and 7.2.
 * vmlinux.h is generated from a 6.18 (x86) or 7.2 (arm64) kernel; the
 * ___flavour structs below describe older and newer layouts so that one
 * object loads everywhere.
 * Each names the kernel and the change that forced it; README.md's
 * compatibility table says which kernel takes which.
 */
#ifndef BHPROF_COMPAT_BPF_H
#define BHPROF_COMPAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include "bhprof.h"

/* folio->flags was a plain unsigned long until 6.17; 6.18 wrapped it in
 * memdesc_flags_t ("mm: introduce memdesc_flags_t"). */
struct folio___ulflags {
	unsigned long flags;
} __attribute__((preserve_access_index));

/* 6.1 kept the order in its own byte, _folio_order; by 6.6 it had moved
 * to the low byte of the first tail page's flags, _flags_1. */
struct folio___v61 {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

/* 7.2 iomap_read_folio(ops, ctx) and iomap_readahead(ops, ctx): the
 * folio or the readahead control moved into a context ("iomap: add
 * iomap_read_folio_ctx", for fuse's iomap reads in 6.19) */
struct iomap_read_folio_ctx___v72 {
	struct folio *cur_folio;
	struct readahead_control *rac;
} __attribute__((preserve_access_index));

/* folio->flags; typed (a constant) when folio may be loaded from plainly */
static __always_inline unsigned long folio_flags_t(struct folio *folio,
						   bool typed)
{
	if (bpf_core_field_exists(((struct folio___ulflags *)0)->flags))
		return typed ? ((struct folio___ulflags *)folio)->flags :
			       BPF_CORE_READ((struct folio___ulflags *)folio,
					     flags);
	return typed ? folio->flags.f : BPF_CORE_READ(folio, flags.f);
}

/* folio_nr_pages() for every layout; a plain page counts as one. */
static __always_inline __u32 folio_pages_t(struct folio *folio, bool typed)
{
	unsigned long head = 1UL << bpf_core_enum_value(enum pageflags, PG_head);
	struct folio___v61 *v61 = (void *)folio;
	__u32 order;

	if (!(folio_flags_t(folio, typed) & head))
		return 1;
	if (bpf_core_field_exists(v61->_folio_order))
		order = typed ? v61->_folio_order :
				BPF_CORE_READ(v61, _folio_order);
	else
		order = (typed ? folio->_flags_1 :
				 BPF_CORE_READ(folio, _flags_1)) & 0xff;
	return 1U << (order & 31);
}

static __always_inline __u32 folio_pages(struct folio *folio)
{
	return folio_pages_t(folio, false);
}

/*
 * Up to 7.1 a tail page points to its head through compound_head, bit 0
 * set. 7.2 renamed the field compound_info ("mm: rename the
 * 'compound_head' field in the 'struct page' to 'compound_info'") and,
 * with HugeTLB vmemmap optimisation and a power-of-two struct page, keeps
 * there the mask that turns the tail's address into its head's ("mm:
 * rework compound_head() for power-of-2 sizeof(struct page)"); userspace
 * tells which encoding the running kernel uses (head_is_mask).
 */
struct page___v72 {
	unsigned long compound_info;
} __attribute__((preserve_access_index));

struct page___v61 {
	unsigned long compound_head;
} __attribute__((preserve_access_index));

/* compound_head (compound_info): bit 0 set on a tail page */
static __always_inline unsigned long page_info(struct page *pg)
{
	/* a union with lru: a plain load would be typed as a list_head * */
	if (bpf_core_field_exists(((struct page___v72 *)0)->compound_info))
		return BPF_CORE_READ((struct page___v72 *)pg, compound_info);
	return BPF_CORE_READ((struct page___v61 *)pg, compound_head);
}

/* the head of the tail page bv holds, whose page_info() is info */
static __always_inline struct page *tail_head(struct bio_vec *bv,
					      unsigned long info,
					      bool head_is_mask)
{
	unsigned long pg = 0;

	if (head_is_mask &&
	    bpf_core_field_exists(((struct page___v72 *)0)->compound_info)) {
		/* the typed pointer as a number: pointer math is refused */
		bpf_probe_read_kernel(&pg, sizeof(pg), &bv->bv_page);
		return (struct page *)(pg & info);
	}
	return (struct page *)(info - 1);
}

/*
 * The inode whose page cache holds a page, or NULL for anonymous, slab
 * or driver memory (O_DIRECT user buffers, XFS log, journal copies). A
 * slab page keeps its kmem_cache where a page keeps its mapping, and an
 * anonymous or movable one tags its mapping in the low bits: either way
 * the mapping's host does not point back at it. Two flavours: pg typed
 * (tp_btf's own pointer, plain loads) or not (probe reads).
 */
static __always_inline struct inode *page_owner_typed(struct page *pg)
{
	struct address_space *mapping = pg->mapping;
	struct inode *host;

	if (!mapping)
		return NULL;
	host = mapping->host;
	if (!host || host->i_mapping != mapping)
		return NULL;
	return host;
}

static __always_inline struct inode *page_owner(struct page *pg)
{
	unsigned long mapping = (unsigned long)BPF_CORE_READ(pg, mapping);
	struct inode *host;

	if (!mapping || (mapping & 3))
		return NULL;
	host = BPF_CORE_READ((struct address_space *)mapping, host);
	if (!host || (unsigned long)BPF_CORE_READ(host, i_mapping) != mapping)
		return NULL;
	return host;
}

/*
 * bpf_rdonly_cast() (6.2) types again a pointer that was read from
 * memory, so what hangs off it costs plain loads rather than a probe
 * read each, about 35 ns apiece; the verifier turns the call into a move.
 * Older kernels lack it, and a weak kfunc left unresolved is refused
 * only in a program that loads: the programs that cast have an untyped
 * twin, and userspace loads one of the pair (attach_plan's typed).
 */
extern void *bpf_rdonly_cast(void *obj, __u32 btf_id) __ksym __weak;

#define TYPED_AS(type, p)                                                  \
	((type *)bpf_rdonly_cast((void *)(p), bpf_core_type_id_kernel(type)))

/* bpf_get_current_task_btf() (5.11, "bpf: Add a BPF helper for getting
 * the task_struct pointer" of BTF type): before it, the walk is probe
 * reads off the untyped task, and the typed twins are never loaded */
const volatile bool task_btf = true;

static __always_inline struct file *fd_to_file_old(unsigned long fd)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file *file = NULL;

	if (fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	bpf_probe_read_kernel(&file, sizeof(file),
			      BPF_CORE_READ(fdt, fd) + fd);
	return file;
}

/*
 * The file behind fd in the current task. The walk to the fd table uses
 * plain loads off the typed task pointer (a NULL on the way reads as 0):
 * the syscall stand-ins run once per write, and each probe read they
 * save is worth more than the rest of the program. The slot itself is a
 * struct file ** the verifier cannot type; typed (a constant), it is
 * cast as a struct kiocb, whose first member has been the struct file *
 * ki_filp in every kernel, and loaded plainly too.
 */
static __always_inline struct file *fd_to_file_t(unsigned long fd,
						 bool typed)
{
	struct task_struct *task;
	struct fdtable *fdt;
	struct file *file = NULL;

	if (!task_btf)
		return fd_to_file_old(fd);
	task = bpf_get_current_task_btf();
	fdt = task->files->fdt;
	if (fd >= fdt->max_fds)
		return NULL;
	if (typed && bpf_core_field_offset(struct kiocb, ki_filp) == 0)
		return TYPED_AS(struct kiocb, &fdt->fd[fd])->ki_filp;
	bpf_probe_read_kernel(&file, sizeof(file), &fdt->fd[fd]);
	return file;
}

static __always_inline struct file *fd_to_file(unsigned long fd)
{
	return fd_to_file_t(fd, false);
}

/*
 * The raw syscall tracepoints (sys_enter, sys_exit) hand over the user
 * registers as the architecture saved them, so reading the syscall's
 * number and first argument is per architecture (vmlinux/ARCH/vmlinux.h
 * gives each its own struct pt_regs). A 32-bit task's syscalls carry
 * another table's numbers; the classic syscall tracepoints ignore them
 * (ARCH_TRACE_IGNORE_COMPAT_SYSCALLS), and so do we.
 */
#if defined(__TARGET_ARCH_x86)
/* O_DIRECT is per architecture too (asm/fcntl.h): x86 keeps the generic
 * value */
#define BHP_O_DIRECT 040000
/* TS_COMPAT, arch/x86/include/asm/thread_info.h */
#define BHP_TS_COMPAT 0x0002

static __always_inline unsigned long syscall_arg0(struct pt_regs *regs)
{
	return regs->di;
}

static __always_inline long syscall_nr(struct pt_regs *regs)
{
	return regs->orig_ax;
}

static __always_inline bool in_compat_syscall(struct pt_regs *regs)
{
	struct task_struct *task;

	if (!task_btf) {
		task = (void *)bpf_get_current_task();
		return BPF_CORE_READ(task, thread_info.status) & BHP_TS_COMPAT;
	}
	task = bpf_get_current_task_btf();
	return task->thread_info.status & BHP_TS_COMPAT;
}
#elif defined(__TARGET_ARCH_arm64)
/*
 * x0 is both the first argument and the return value: entry saves the
 * argument in orig_x0, which sys_exit still sees. An AArch32 task runs
 * with PSR_MODE32_BIT in its saved pstate (compat_user_mode()); the bit
 * is architectural, unlike the TIF_32BIT flag's number.
 */
#define BHP_PSR_MODE32_BIT 0x10
/* arch/arm64/include/uapi/asm/fcntl.h: 040000 is O_DIRECTORY there */
#define BHP_O_DIRECT 0200000

static __always_inline unsigned long syscall_arg0(struct pt_regs *regs)
{
	return regs->orig_x0;
}

static __always_inline long syscall_nr(struct pt_regs *regs)
{
	return regs->syscallno;
}

static __always_inline bool in_compat_syscall(struct pt_regs *regs)
{
	return regs->pstate & BHP_PSR_MODE32_BIT;
}
#else
#error "bhprof: no syscall registers for this architecture (ARCH=x86 or arm64)"
#endif

/*
 * Tests only (make faults): BHPROF_FAULT=group (enum bhp_group, or
 * BHPROF_FAULT_ALL, or a point of its own below) makes a program of that
 * probe group read a field no kernel has, so that its load fails the way
 * a renamed field fails on a newer kernel. The shipped object has none of
 * this.
 */
#define BHPROF_FAULT_ALL 99
/* ... or only the iomap read events, which degrade apart from their group */
#define BHPROF_FAULT_IOMAP_READS 98
/* ... or only the typed twins (TYPED_AS), whose untyped ones stand in */
#define BHPROF_FAULT_TYPED 97
/* ... or every group but the buffer_head allocations, as on 5.10 */
#define BHPROF_FAULT_PATHS 96
struct task_struct___bhprof_fault {
	int bhprof_no_such_field;
} __attribute__((preserve_access_index));

#ifdef BHPROF_FAULT
#define FAULT_POINT(group)                                                  \
	do {                                                                \
		struct task_struct___bhprof_fault *t =                      \
			(void *)bpf_get_current_task();                     \
		int v;                                                      \
		if (BHPROF_FAULT == (group) ||                              \
		    BHPROF_FAULT == BHPROF_FAULT_ALL ||                     \
		    (BHPROF_FAULT == BHPROF_FAULT_PATHS &&                  \
		     (group) != BHP_GROUP_BH))                              \
			bpf_core_read(&v, sizeof(v),                        \
				      &t->bhprof_no_such_field);            \
	} while (0)
#else
#define FAULT_POINT(group) do { } while (0)
#endif

#endif /* BHPROF_COMPAT_BPF_H */
