// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tracepoint mode's stand-ins: the syscalls whose events stand in for
 * the write calls, writeback passes and read calls no tracepoint marks.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "attach_int.h"

/*
 * The syscalls that stand in for write calls, writeback passes and read
 * calls in tracepoint mode. The programs on their events (syscalls:
 * sys_enter_NAME, or raw_syscalls:sys_enter for every syscall where
 * those are missing) look each syscall's number up in this table
 * (sys_class[] in the BPF object): another syscall is one more line,
 * another class a value of enum bhp_sys_class and its case in its
 * group's programs. The numbers are those of the architecture bhprof is
 * built for, from its libc headers; the names, the kernel's
 * SYSCALL_DEFINE ones, name the events.
 */
static const struct sys_entry {
	long nr;
	enum bhp_sys_class cls;
	const char *name;
} sys_table[] = {
	{ SYS_write, BHP_SYS_WRITE, "write" },
	{ SYS_pwrite64, BHP_SYS_WRITE, "pwrite64" },
	{ SYS_writev, BHP_SYS_WRITE, "writev" },
	{ SYS_pwritev, BHP_SYS_WRITE, "pwritev" },
	{ SYS_pwritev2, BHP_SYS_WRITE, "pwritev2" },
	{ SYS_fsync, BHP_SYS_SYNC_FD, "fsync" },
	{ SYS_fdatasync, BHP_SYS_SYNC_FD, "fdatasync" },
	{ SYS_sync_file_range, BHP_SYS_SYNC_FD, "sync_file_range" },
	{ SYS_syncfs, BHP_SYS_SYNC_FD, "syncfs" },
	/* the last close of a block device writes it back */
	{ SYS_close, BHP_SYS_SYNC_FD, "close" },
	{ SYS_sync, BHP_SYS_SYNC, "sync" },
	{ SYS_msync, BHP_SYS_SYNC, "msync" },
	/* a read call's context attributes O_DIRECT read bios */
	{ SYS_read, BHP_SYS_READ, "read" },
	{ SYS_pread64, BHP_SYS_READ, "pread64" },
	{ SYS_readv, BHP_SYS_READ, "readv" },
	{ SYS_preadv, BHP_SYS_READ, "preadv" },
	{ SYS_preadv2, BHP_SYS_READ, "preadv2" },
};

/* the probe group whose figures a class of syscalls makes */
static const enum bhp_group sys_class_group[] = {
	[BHP_SYS_WRITE] = BHP_GROUP_WRITE,
	[BHP_SYS_SYNC_FD] = BHP_GROUP_WB,
	[BHP_SYS_SYNC] = BHP_GROUP_WB,
	[BHP_SYS_READ] = BHP_GROUP_READ,
	[BHP_SYS_WRITE_OTHER] = BHP_GROUP_WRITE,
};

void attach_plan_syscalls(const struct attach_plan *p, uint8_t *cls,
			  size_t n)
{
	memset(cls, BHP_SYS_NONE, n);
	for (size_t i = 0; i < ARRAY_SIZE(sys_table); i++) {
		enum bhp_sys_class c = sys_table[i].cls;
		enum bhp_group g = sys_class_group[c];

		if (c == BHP_SYS_WRITE && p->other_sys)
			c = BHP_SYS_WRITE_OTHER;
		else if (p->group_mode[g] != MODE_TRACEPOINT || p->failed[g])
			continue;
		if (sys_table[i].nr >= 0 && (size_t)sys_table[i].nr < n)
			cls[sys_table[i].nr] = c;
	}
}

/* "write/pwrite64/...": the syscalls of the classes in mask */
void sys_names(char *buf, size_t len, unsigned int mask)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sys_table) && off < len; i++)
		if (mask & (1u << sys_table[i].cls))
			off += snprintf(buf + off, len - off, "%s%s",
					off ? "/" : "", sys_table[i].name);
}

/*
 * Does tracefs hold the enter and exit event of every syscall of the
 * table? Only then do the per-syscall events stand in: a syscall left
 * out would be a write or a sync nobody sees.
 */
bool sys_events_ok(void)
{
	const char *roots[] = { "/sys/kernel/tracing",
				"/sys/kernel/debug/tracing" };
	char path[160];

	/* as perf does: a kernel with tracefs that nobody mounted (no
	 * systemd, a bare initramfs) has its events all the same */
	if (access("/sys/kernel/tracing/events", F_OK) &&
	    access("/sys/kernel/debug/tracing/events", F_OK))
		mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);

	for (size_t r = 0; r < ARRAY_SIZE(roots); r++) {
		size_t n = 2 * ARRAY_SIZE(sys_table), i = 0;

		/* enter and exit of each: bit 0 of i picks the direction */
		for (; i < n; i++) {
			snprintf(path, sizeof(path),
				 "%s/events/syscalls/sys_%s_%s/id", roots[r],
				 i & 1 ? "exit" : "enter", sys_table[i / 2].name);
			if (access(path, R_OK))
				break;
		}
		if (i == n)
			return true;
	}
	return false;
}

/*
 * The per-syscall events of group g's syscalls: each syscall is one
 * group's, so a group that goes takes only its own events with it.
 */
int attach_sys_events(struct attach_plan *p, struct bhprof_bpf *s,
		      enum bhp_group g)
{
	char name[64];
	int err = 0;

	for (size_t i = 0; i < ARRAY_SIZE(sys_table) && !err; i++) {
		if (sys_class_group[sys_table[i].cls] != g)
			continue;
		snprintf(name, sizeof(name), "sys_enter_%s", sys_table[i].name);
		err = link_add(p, bpf_program__attach_tracepoint(
					  sys_table[i].cls == BHP_SYS_SYNC ?
						  s->progs.tp_sysev_enter0 :
					  p->typed ? s->progs.tp_sysev_enter_t :
						     s->progs.tp_sysev_enter,
					  "syscalls", name));
		snprintf(name, sizeof(name), "sys_exit_%s", sys_table[i].name);
		err = err ?: link_add(p, bpf_program__attach_tracepoint(
						 s->progs.tp_sysev_exit,
						 "syscalls", name));
	}
	return err;
}
