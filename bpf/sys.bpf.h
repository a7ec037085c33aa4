/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint mode: the syscalls that stand in for the calls no
 * tracepoint marks.
 *
 * Included by bhprof.bpf.c: one object.
 */
#ifndef BHPROF_SYS_BPF_H
#define BHPROF_SYS_BPF_H

/*
 * The write, sync and read syscalls, through the raw syscall tracepoints
 * and a table of numbers, where per-syscall tracepoints (syscalls:
 * sys_enter_write, ...) would each be a perf event that copies the
 * syscall's arguments into a record before any program runs. Every
 * syscall on the machine runs these programs on sys_enter and sys_exit,
 * so an uninteresting one costs a table load, and one program per
 * direction serves every probe group (tp_sys_enter, tp_sys_exit). Should
 * the kernel refuse it (the code of one group), one program per group and
 * direction stands in, so that a refused group costs only itself.
 *
 * Userspace fills the table once the groups are attached, with the
 * classes of the groups that run on tracepoints: until then, and for a
 * group on fentry or kprobes, a syscall is nobody's.
 */
__u8 sys_class[BHP_MAX_SYSCALL];

static __always_inline __u32 syscall_class(struct pt_regs *regs, long nr)
{
	__u32 cls;

	if ((unsigned long)nr >= BHP_MAX_SYSCALL)
		return BHP_SYS_NONE;
	cls = sys_class[nr];
	if (cls != BHP_SYS_NONE && in_compat_syscall(regs))
		return BHP_SYS_NONE;
	return cls;
}

/* fsync, fdatasync, sync_file_range, syncfs and close (the last close of
 * a block device writes it back) name a file; sync and msync do not, so
 * their bios are judged by their pages alone */
static __always_inline void sync_enter_t(struct file *file, __u32 cls,
					 bool typed)
{
	struct inode *inode;

	if (cls == BHP_SYS_SYNC_FD) {
		inode = file_inode_t(file, typed);
		if (inode)
			ctx_open_t(CTX_WB, inode, SRC_SYSCALL_SYNC, 0,
				   PATH_NONE, CTX_ANY, 0, typed);
	} else if (cls == BHP_SYS_SYNC) {
		ctx_open(CTX_WB, NULL, SRC_SYSCALL_SYNC, 0, PATH_NONE, CTX_ANY);
	}
}

static __always_inline void sync_enter(struct file *file, __u32 cls)
{
	sync_enter_t(file, cls, false);
}

static __always_inline void sync_exit(__u32 cls)
{
	if (cls == BHP_SYS_SYNC_FD || cls == BHP_SYS_SYNC)
		ctx_close(CTX_WB, SRC_SYSCALL_SYNC);
}

/* the file a syscall of class cls names, NULL for none */
static __always_inline struct file *sys_file(struct pt_regs *regs, __u32 cls)
{
	if (cls == BHP_SYS_NONE || cls == BHP_SYS_SYNC)
		return NULL;
	return fd_to_file(syscall_arg0(regs));
}

/* BHP_SYS_WRITE_OTHER: a context for the write group's functions to
 * take over, the other group's where none does */
static __always_inline void sys_enter_t(__u32 cls, struct file *file,
					bool typed)
{
	if (cls == BHP_SYS_WRITE)
		write_enter_t(file, SRC_SYSCALL_WRITE, PATH_NONE, CTX_FILES,
			      typed);
	else if (cls == BHP_SYS_WRITE_OTHER)
		write_enter_prov(file, typed);
	else if (cls == BHP_SYS_READ)
		rcall_enter_t(file, SRC_SYSCALL_READ, typed);
	else
		sync_enter_t(file, cls, typed);
}

static __always_inline void sys_enter_any(__u32 cls, struct file *file)
{
	sys_enter_t(cls, file, false);
}

static __always_inline void sys_exit_any(__u32 cls, long ret)
{
	if (cls == BHP_SYS_WRITE || cls == BHP_SYS_WRITE_OTHER)
		write_exit(SRC_SYSCALL_WRITE, ret);
	else if (cls == BHP_SYS_READ)
		ctx_close(CTX_RCALL, SRC_SYSCALL_READ);
	else
		sync_exit(cls);
}

SEC("?tp_btf/sys_enter")
int BPF_PROG(tp_sys_enter, struct pt_regs *regs, long nr)
{
	__u32 cls = syscall_class(regs, nr);

	/* one walk to the file for every class: the loads off the task are
	 * costly to verify in each state that reaches them */
	sys_enter_any(cls, sys_file(regs, cls));
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(tp_sys_exit, struct pt_regs *regs, long ret)
{
	sys_exit_any(syscall_class(regs, syscall_nr(regs)), ret);
	return 0;
}

/*
 * The same on the per-syscall events (syscalls:sys_enter_write, ...),
 * attached to each syscall of sys_class[] alone: the syscalls nobody
 * watches no longer run a program at all, only the kernel's check of
 * TIF_SYSCALL_TRACEPOINT. They exist with CONFIG_FTRACE_SYSCALLS; the
 * event already skips a 32-bit task's syscalls, and hands over the
 * number and arguments with no registers to read.
 */
static __always_inline void sysev_enter(struct syscall_trace_enter *ctx,
					bool typed)
{
	unsigned int nr = ctx->nr;
	__u32 cls;

	if (typed)
		FAULT_POINT(BHPROF_FAULT_TYPED);
	if (nr >= BHP_MAX_SYSCALL)
		return;
	cls = sys_class[nr];
	if (cls == BHP_SYS_NONE)
		return;
	sys_enter_t(cls, cls == BHP_SYS_SYNC ? NULL :
		    fd_to_file_t(ctx->args[0], typed), typed);
}

SEC("?tracepoint/syscalls/sys_enter_write")
int tp_sysev_enter(struct syscall_trace_enter *ctx)
{
	FLOOR_RETURN();
	sysev_enter(ctx, false);
	return 0;
}

/* the same, the fd table's slot, the file and its inode loaded typed */
SEC("?tracepoint/syscalls/sys_enter_write")
int tp_sysev_enter_t(struct syscall_trace_enter *ctx)
{
	FLOOR_RETURN();
	sysev_enter(ctx, true);
	return 0;
}

/* sync(2) has no arguments, and a program may read no further into the
 * record than the shortest event it is attached to holds */
SEC("?tracepoint/syscalls/sys_enter_sync")
int tp_sysev_enter0(struct syscall_trace_enter *ctx)
{
	unsigned int nr = ctx->nr;

	FLOOR_RETURN();
	if (nr < BHP_MAX_SYSCALL)
		sync_enter(NULL, sys_class[nr]);
	return 0;
}

SEC("?tracepoint/syscalls/sys_exit_write")
int tp_sysev_exit(struct syscall_trace_exit *ctx)
{
	unsigned int nr = ctx->nr;

	FLOOR_RETURN();
	if (nr < BHP_MAX_SYSCALL)
		sys_exit_any(sys_class[nr], ctx->ret);
	return 0;
}

/* the same, one program per group and direction */
SEC("?tp_btf/sys_enter")
int BPF_PROG(tp_write_enter, struct pt_regs *regs, long nr)
{
	if (syscall_class(regs, nr) == BHP_SYS_WRITE)
		write_enter(fd_to_file(syscall_arg0(regs)), SRC_SYSCALL_WRITE,
			    PATH_NONE);
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(tp_write_exit, struct pt_regs *regs, long ret)
{
	if (syscall_class(regs, syscall_nr(regs)) == BHP_SYS_WRITE)
		write_exit(SRC_SYSCALL_WRITE, ret);
	return 0;
}

SEC("?tp_btf/sys_enter")
int BPF_PROG(tp_sync_enter, struct pt_regs *regs, long nr)
{
	__u32 cls = syscall_class(regs, nr);

	sync_enter(sys_file(regs, cls), cls);
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(tp_sync_exit, struct pt_regs *regs)
{
	sync_exit(syscall_class(regs, syscall_nr(regs)));
	return 0;
}

SEC("?tp_btf/sys_enter")
int BPF_PROG(tp_read_enter, struct pt_regs *regs, long nr)
{
	if (syscall_class(regs, nr) == BHP_SYS_READ)
		rcall_enter(fd_to_file(syscall_arg0(regs)), SRC_SYSCALL_READ);
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(tp_read_exit, struct pt_regs *regs)
{
	if (syscall_class(regs, syscall_nr(regs)) == BHP_SYS_READ)
		ctx_close(CTX_RCALL, SRC_SYSCALL_READ);
	return 0;
}

#endif /* BHPROF_SYS_BPF_H */
