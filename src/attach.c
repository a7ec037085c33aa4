// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "kernel.h"
#include "pathsrc.h"
#include "bhprof.skel.h"

/* Candidate functions, newest name first. */
static const char *const candidates[NR_PROBES][3] = {
	[PROBE_WRITE_BLKDEV] = { "blkdev_write_iter" },
	[PROBE_WRITE_IOMAP] = { "iomap_file_buffered_write" },
	[PROBE_WRITE_GENERIC] = { "generic_perform_write" },
	/* renamed by the folio conversion in 6.8 */
	[PROBE_WB_BH] = { "block_write_full_folio", "block_write_full_page" },
	[PROBE_WB_IOMAP] = { "iomap_writepages" },
	[PROBE_WB_CTX] = { "do_writepages" },
	[PROBE_BH_ALLOC] = { "alloc_buffer_head" },
	[PROBE_BIO] = { "block_bio_queue" },
	[PROBE_READ_BH_FOLIO] = { "block_read_full_folio" },
	[PROBE_READ_BH_RA] = { "mpage_readahead" },
	[PROBE_READ_EXT4_FOLIO] = { "ext4_read_folio" },
	[PROBE_READ_EXT4_RA] = { "ext4_readahead" },
	[PROBE_READ_IOMAP_FOLIO] = { "iomap_read_folio" },
	[PROBE_READ_IOMAP_RA] = { "iomap_readahead" },
	[PROBE_READ_BLKDEV] = { "blkdev_read_iter" },
	[PROBE_MKWRITE_BH] = { "block_page_mkwrite" },
	[PROBE_MKWRITE_EXT4] = { "ext4_page_mkwrite" },
	[PROBE_MKWRITE_IOMAP] = { "iomap_page_mkwrite" },
	/* factored out of the O_DIRECT write paths in 6.6 */
	[PROBE_DIO_FALLBACK] = { "direct_write_fallback" },
	/* tracepoints, each one of a pair (the other is checked too) */
	[PROBE_PASS_INODE] = { "writeback_single_inode" },
	[PROBE_PASS_EXT4] = { "ext4_writepages" },
};

/* the other event of a tracepoint probe's pair */
static const char *const tp_pair[NR_PROBES] = {
	[PROBE_PASS_INODE] = "writeback_single_inode_start",
	[PROBE_PASS_EXT4] = "ext4_writepages_result",
};

/* probes that are tracepoints in every mode, not functions */
static bool is_tp_probe(enum probe_id id)
{
	return id == PROBE_BIO || id == PROBE_PASS_INODE ||
	       id == PROBE_PASS_EXT4;
}

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
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

bool caps_ok(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	uint64_t eff;

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &hdr, data))
		return false;
	eff = data[0].effective | ((uint64_t)data[1].effective << 32);
	if (eff & (1ULL << CAP_SYS_ADMIN))
		return true;
	/* CAP_BPF (39) and CAP_PERFMON (38), which older headers lack */
	return (eff & (1ULL << 39)) && (eff & (1ULL << 38));
}

struct progs {
	struct bpf_program *fe, *fx, *kp, *kr;
};

#define FLAVOURS(s, n) \
	((struct progs){ s->progs.fe_##n, s->progs.fx_##n, s->progs.kp_##n, \
			 s->progs.kr_##n })

static struct progs probe_progs(const struct attach_plan *p,
			       struct bhprof_bpf *s, enum probe_id id)
{
	switch (id) {
	case PROBE_WRITE_BLKDEV:
		return FLAVOURS(s, blkdev_write);
	case PROBE_WRITE_IOMAP:
		return FLAVOURS(s, iomap_write);
	case PROBE_WRITE_GENERIC:
		return FLAVOURS(s, generic_write);
	case PROBE_WB_BH:
		return FLAVOURS(s, bh_writeback);
	case PROBE_WB_IOMAP:
		return FLAVOURS(s, iomap_writeback);
	case PROBE_WB_CTX:
		return FLAVOURS(s, do_writepages);
	case PROBE_BH_ALLOC:
		/* counted on entry: no return flavours */
		if (p->callers)
			return (struct progs){ s->progs.fe_bh_alloc_c, NULL,
					       s->progs.kp_bh_alloc_c, NULL };
		return (struct progs){ s->progs.fe_bh_alloc, NULL,
				       s->progs.kp_bh_alloc, NULL };
	case PROBE_READ_BH_FOLIO:
		return FLAVOURS(s, bh_read_folio);
	case PROBE_READ_BH_RA:
		return FLAVOURS(s, bh_readahead);
	case PROBE_READ_EXT4_FOLIO:
		return FLAVOURS(s, ext4_read_folio);
	case PROBE_READ_EXT4_RA:
		return FLAVOURS(s, ext4_readahead);
	case PROBE_READ_IOMAP_FOLIO:
		return FLAVOURS(s, iomap_read_folio);
	case PROBE_READ_IOMAP_RA:
		return FLAVOURS(s, iomap_readahead);
	case PROBE_READ_BLKDEV:
		return FLAVOURS(s, blkdev_read);
	case PROBE_MKWRITE_BH:
		return FLAVOURS(s, bh_mkwrite);
	case PROBE_MKWRITE_EXT4:
		return FLAVOURS(s, ext4_mkwrite);
	case PROBE_MKWRITE_IOMAP:
		return FLAVOURS(s, iomap_mkwrite);
	case PROBE_DIO_FALLBACK:
		return (struct progs){ s->progs.fe_dwf, NULL, s->progs.kp_dwf,
				       NULL };
	default:
		return (struct progs){};
	}
}

/* Load and attach a two-instruction fentry program: the only test that
 * catches lockdown, missing trampolines and notrace functions alike. */
static int fentry_try(int btf_id, int btf_obj_fd)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = btf_id,
		    .attach_btf_obj_fd = btf_obj_fd > 0 ? btf_obj_fd : 0);
	int prog, link, err;

	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "bhprof_try", "GPL", insns,
			     ARRAY_LEN(insns), &opts);
	if (prog < 0)
		return -errno;
	link = bpf_raw_tracepoint_open(NULL, prog);
	err = link < 0 ? -errno : 0;
	if (link >= 0)
		close(link);
	close(prog);
	return err;
}

/* "__traceiter_NAME": the text symbol of a tracepoint (5.10 and
 * later), which kallsyms names with the module that defines it */
#define TRACEITER "__traceiter_"

/* A tracepoint in vmlinux's BTF or in its module's: *mod says which. */
static bool tp_found(struct kbtf *kb, const struct ksyms *ks,
		     const char *name, const char **mod)
{
	char iter[96];

	*mod = NULL;
	if (btf_has_tracepoint(kb->vmlinux, name))
		return true;
	snprintf(iter, sizeof(iter), TRACEITER "%s", name);
	*mod = ksyms_module_of(ks, iter);
	return *mod && btf_has_tracepoint(kbtf_module(kb, *mod), name);
}

/* A function in vmlinux's BTF, or in kallsyms (a module's or one built
 * without BTF): *sym is its kallsyms name, *mod its module. */
static bool func_found(struct kbtf *kb, const struct ksyms *ks,
		       const char *name, const char **sym, const char **mod)
{
	*sym = ksyms_func(ks, name);
	*mod = *sym ? ksyms_module_of(ks, name) : NULL;
	return btf_has_func(kb->vmlinux, name) || *sym;
}

static bool probe_found(struct kbtf *kb, const struct ksyms *ks, int id,
			const char *name, const char **sym, const char **mod)
{
	const char *pmod;

	if (!is_tp_probe(id))
		return func_found(kb, ks, name, sym, mod);
	*sym = NULL;
	if (!tp_found(kb, ks, name, mod))
		return false;
	/* both events of a pair, from the same module */
	return !tp_pair[id] || (tp_found(kb, ks, tp_pair[id], &pmod) &&
				!strcmp(pmod ?: "", *mod ?: ""));
}

static void resolve(struct attach_plan *p, struct kbtf *kb,
		    const struct ksyms *ks)
{
	for (int id = 0; id < NR_PROBES; id++) {
		p->absent[id] = true;
		for (int c = 0; c < 3 && candidates[id][c]; c++) {
			const char *name = candidates[id][c], *sym, *mod;

			if (!probe_found(kb, ks, id, name, &sym, &mod))
				continue;
			p->absent[id] = false;
			snprintf(p->func[id], sizeof(p->func[id]), "%s", name);
			snprintf(p->ksym[id], sizeof(p->ksym[id]), "%s",
				 sym ? sym : name);
			snprintf(p->mod[id], sizeof(p->mod[id]), "%s",
				 mod ? mod : "");
			break;
		}
		if (p->absent[id])
			snprintf(p->func[id], sizeof(p->func[id]), "%s",
				 candidates[id][0]);
	}
}

/* a refusal of probe id's own function, after those before it */
static void pwhy_add(struct attach_plan *p, int id, const char *what,
		     const char *why)
{
	size_t n = strnlen(p->pwhy[id], sizeof(p->pwhy[id]));

	snprintf(p->pwhy[id] + n, sizeof(p->pwhy[id]) - n, "%s%s on %s: %s",
		 n ? "; " : "", what, p->func[id], why);
}

/* Tries every function of the group, so that each probe can say why its
 * own was refused. On failure, the first refusal is the group's reason. */
/* fentry on probe id's function, vmlinux's or its module's: 0, or why
 * not in *why */
static int fentry_probe(const struct attach_plan *p, struct kbtf *kb, int id,
			const char **why)
{
	const char *mod = p->mod[id];
	int bid = btf_func_id(kbtf_module(kb, mod), p->func[id]), fd = 0, err;

	if (bid <= 0) {
		*why = mod[0] ? "no BTF in its module" : "no BTF";
		return -ENOENT;
	}
	if (mod[0]) {
		fd = btf_module_fd(mod);
		if (fd < 0) {
			*why = "its module's BTF is not loaded";
			return fd;
		}
	}
	err = fentry_try(bid, fd);
	if (fd > 0)
		close(fd);
	*why = err ? strerror(-err) : NULL;
	return err;
}

/* Tries every function of the group, so that each probe can say why its
 * own was refused. On failure, the first refusal is the group's reason. */
static bool group_fentry_ok(struct attach_plan *p, struct kbtf *kb,
			    enum bhp_group g, char *first, size_t len)
{
	bool ok = true;

	for (int id = 0; id < NR_PROBES; id++) {
		const char *why;

		if (probe_group_of(id) != g || p->absent[id])
			continue;
		if (!fentry_probe(p, kb, id, &why))
			continue;
		pwhy_add(p, id, "fentry", why);
		if (ok) {
			snprintf(first, len, "%s", p->pwhy[id]);
			snprintf(p->fell[g][0], sizeof(p->fell[g][0]), "%s",
				 p->pwhy[id]);
		}
		ok = false;
	}
	return ok;
}

static bool group_present(const struct attach_plan *p, enum bhp_group g)
{
	for (int id = 0; id < NR_PROBES; id++)
		if (probe_group_of(id) == g && !p->absent[id])
			return true;
	return false;
}

void attach_plan_syscalls(const struct attach_plan *p, uint8_t *cls,
			  size_t n)
{
	memset(cls, BHP_SYS_NONE, n);
	for (size_t i = 0; i < ARRAY_LEN(sys_table); i++) {
		enum bhp_group g = sys_class_group[sys_table[i].cls];

		if (p->group_mode[g] != MODE_TRACEPOINT || p->failed[g])
			continue;
		if (sys_table[i].nr >= 0 && (size_t)sys_table[i].nr < n)
			cls[sys_table[i].nr] = sys_table[i].cls;
	}
}

/* "write/pwrite64/...": the syscalls of the classes in mask */
static void sys_names(char *buf, size_t len, unsigned int mask)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < ARRAY_LEN(sys_table) && off < len; i++)
		if (mask & (1u << sys_table[i].cls))
			off += snprintf(buf + off, len - off, "%s%s",
					off ? "/" : "", sys_table[i].name);
}

/*
 * Does tracefs hold the enter and exit event of every syscall of the
 * table? Only then do the per-syscall events stand in: a syscall left
 * out would be a write or a sync nobody sees.
 */
static bool sys_events_ok(void)
{
	const char *roots[] = { "/sys/kernel/tracing",
				"/sys/kernel/debug/tracing" };
	char path[160];

	/* as perf does: a kernel with tracefs that nobody mounted (no
	 * systemd, a bare initramfs) has its events all the same */
	if (access("/sys/kernel/tracing/events", F_OK) &&
	    access("/sys/kernel/debug/tracing/events", F_OK))
		mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);

	for (size_t r = 0; r < ARRAY_LEN(roots); r++) {
		size_t n = 2 * ARRAY_LEN(sys_table), i = 0;

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

static void tracepoints_probe(struct attach_plan *p, const struct btf *btf)
{
	/* BTF-typed raw tracepoints: no tracefs needed */
	bool classic;

	p->sys_events = getenv("BHPROF_RAW_SYSCALLS") == NULL &&
			sys_events_ok();
	classic = p->sys_events || (btf_has_tracepoint(btf, "sys_enter") &&
				    btf_has_tracepoint(btf, "sys_exit"));

	p->iomap_tp_new = btf_has_tracepoint(btf, "iomap_writeback_folio");
	p->typed = btf_has_func(btf, "bpf_rdonly_cast");
	p->tp_ok[BHP_GROUP_WRITE] = classic;
	p->tp_ok[BHP_GROUP_WB] = classic &&
			     btf_has_tracepoint(btf, "writeback_single_inode") &&
			     btf_has_tracepoint(btf, "wbc_writepage");
	p->tp_ok[BHP_GROUP_BH] = btf_has_tracepoint(btf, "kmem_cache_alloc");
	p->tp_ok[BHP_GROUP_BIO] = !p->absent[PROBE_BIO];
	p->tp_ok[BHP_GROUP_READ] = classic;
	p->read_tp_pages = btf_has_tracepoint(btf, "mm_filemap_add_to_page_cache");
	p->read_tp_iomap = !p->absent[PROBE_READ_IOMAP_FOLIO] &&
			   btf_has_tracepoint(btf, "iomap_readpage") &&
			   btf_has_tracepoint(btf, "iomap_readahead");
	/* no tracepoint anywhere near page_mkwrite */
	p->tp_ok[BHP_GROUP_MKWRITE] = false;
}

/* A group on tracepoints whatever the mode, which --attach MODE does
 * not ask for: refused, it is lost alone, as under auto. (bio is too,
 * but every run needs its bios.) */
static bool group_modeless(enum bhp_group g)
{
	return g == BHP_GROUP_PASS;
}

/* A group that no tracepoint can stand in for is unseen, not lost, when
 * its functions cannot be probed: its figures read n/a. */
static bool group_unseen_ok(enum bhp_group g)
{
	return g == BHP_GROUP_MKWRITE;
}

enum attach_mode select_mode(enum attach_mode request, bool present,
			     bool fentry_ok, bool tp_ok, int *err)
{
	*err = 0;
	if (!present)
		return MODE_NONE;
	if (fentry_ok && (request == MODE_AUTO || request == MODE_FENTRY))
		return MODE_FENTRY;
	switch (request) {
	case MODE_FENTRY:
		*err = -EOPNOTSUPP;
		return MODE_NONE;
	case MODE_TRACEPOINT:
		if (tp_ok)
			return MODE_TRACEPOINT;
		*err = -ENOENT;
		return MODE_NONE;
	default:
		/* kprobes are only known to work once attached; under auto
		 * the tracepoints wait behind them (attach_group) */
		return MODE_KPROBE;
	}
}

static int choose(struct attach_plan *p, struct kbtf *kb, enum bhp_group g)
{
	bool present = group_present(p, g), fentry_ok = false;
	enum attach_mode r = p->request;
	char first[160] = "";
	int err;

	/* on tracepoints in every mode */
	if (g == BHP_GROUP_BIO || g == BHP_GROUP_PASS) {
		p->group_mode[g] = present ? MODE_TRACEPOINT : MODE_NONE;
		return 0;
	}
	if (group_unseen_ok(g) && r == MODE_TRACEPOINT) {
		p->group_mode[g] = MODE_NONE;
		snprintf(p->why[g], sizeof(p->why[g]), "no tracepoint sees it");
		return 0;
	}
	if (present && (r == MODE_AUTO || r == MODE_FENTRY))
		fentry_ok = group_fentry_ok(p, kb, g, first, sizeof(first));
	p->group_mode[g] = select_mode(r, present, fentry_ok, p->tp_ok[g],
				       &err);
	if (err == -EOPNOTSUPP)
		fprintf(stderr, "bhprof: --attach=fentry: %s\n", first);
	else if (err)
		fprintf(stderr, "bhprof: no tracepoints for the %s probes in "
			"this kernel's BTF\n", group_name(g));
	return err;
}

static bool absent_or_folio(const struct attach_plan *p,
			    const struct btf *btf, enum probe_id id)
{
	return p->absent[id] || btf_func_param0_is(btf, p->func[id], "folio");
}

static void plan_flags(struct attach_plan *p, const struct btf *btf,
		       const struct ksyms *ks)
{
	p->kernel_has_bh = !p->absent[PROBE_BH_ALLOC];
	p->iomap_wp_wpc_only = btf_func_nr_params(btf, "iomap_writepages") == 1;
	p->gpw_takes_file = btf_func_param0_is(btf, "generic_perform_write",
					       "file");
	p->head_is_mask = kernel_head_is_mask(btf);
	/* iomap_read_folio(folio, ops) until 7.1, (ops, ctx, private) in 7.2 */
	p->iomap_read_ctx = !absent_or_folio(p, btf, PROBE_READ_IOMAP_FOLIO);
	p->bh_cs_lo = ksyms_addr(ks, "alloc_buffer_head", &p->bh_cs_hi);
	if (!p->bh_cs_lo)
		p->bh_cs_hi = 0;
}

/* the functions of --callers, which may live in modules (jbd2) */
static const char *const callers_owners[] = { "folio_alloc_buffers",
					      "alloc_page_buffers" };
#define CALLERS_JBD2 "jbd2_journal_write_metadata_buffer"
#define CALLERS_FREE "free_buffer_head"

struct ksyms *attach_ksyms_load(void)
{
	static char iter[NR_PROBES][2][80];
	const char *want[NR_PROBES * 4 + 8 + 2 * MAX_PATH_HELPERS];
	size_t n = 0;

	for (int id = 0; id < NR_PROBES; id++) {
		if (n)
			want[n++] = NULL;
		if (!is_tp_probe(id)) {
			for (int c = 0; c < 3 && candidates[id][c]; c++)
				want[n++] = candidates[id][c];
			continue;
		}
		/* a tracepoint's module, by its iterator's symbol */
		snprintf(iter[id][0], sizeof(iter[id][0]), TRACEITER "%s",
			 candidates[id][0]);
		want[n++] = iter[id][0];
		if (!tp_pair[id])
			continue;
		snprintf(iter[id][1], sizeof(iter[id][1]), TRACEITER "%s",
			 tp_pair[id]);
		want[n++] = iter[id][1];
	}
	want[n++] = NULL;
	n += pathsrc_want(want + n, ARRAY_LEN(want) - n - 8);
	want[n++] = CALLERS_JBD2;
	want[n++] = NULL;
	want[n++] = CALLERS_FREE;
	want[n++] = NULL;
	for (size_t i = 0; i < ARRAY_LEN(callers_owners); i++)
		want[n++] = callers_owners[i];
	return ksyms_load(want, n);
}

int attach_plan_make(struct attach_plan *p, enum attach_mode request,
		     struct run_info *info, struct kbtf *kb,
		     const struct ksyms *ks)
{
	const struct btf *btf = kb ? kb->vmlinux : NULL;
	int err = 0;

	memset(p, 0, sizeof(*p));
	p->request = request;
	p->sys_link_at = -1;
	resolve(p, kb, ks);
	plan_flags(p, btf, ks);
	tracepoints_probe(p, btf);
	for (int g = 0; g < BHP_NR_GROUPS && !err; g++)
		err = choose(p, kb, g);
	info->features = RUN_F_READS | RUN_F_PASSES;
	for (int id = 0; id < NR_PROBES; id++) {
		info->probes[id].absent = p->absent[id];
		snprintf(info->probes[id].func, sizeof(info->probes[id].func),
			 "%s", p->func[id]);
		snprintf(info->probes[id].module,
			 sizeof(info->probes[id].module), "%s", p->mod[id]);
	}
	return err;
}

static void autoload(struct bpf_program *prog, bool on)
{
	if (prog)
		bpf_program__set_autoload(prog, on);
}

/* The tracepoint stand-ins of each group, every variant. */
static bool is_tp_prog(struct bhprof_bpf *s, const struct bpf_program *prog,
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
		{ s->progs.tp_bh_alloc, BHP_GROUP_BH },
		{ s->progs.tp_bh_alloc_c, BHP_GROUP_BH },
		{ s->progs.tp_bio_queue, BHP_GROUP_BIO },
		{ s->progs.tp_read_enter, BHP_GROUP_READ },
		{ s->progs.tp_read_exit, BHP_GROUP_READ },
		{ s->progs.tp_read_folio_added, BHP_GROUP_READ },
		{ s->progs.tp_iomap_readpage, BHP_GROUP_READ },
		{ s->progs.tp_iomap_readahead, BHP_GROUP_READ },
		{ s->progs.tp_pass_start, BHP_GROUP_PASS },
		{ s->progs.tp_pass_end, BHP_GROUP_PASS },
		{ s->progs.tp_pass_ext4, BHP_GROUP_PASS },
		{ s->progs.tp_pass_ext4_end, BHP_GROUP_PASS },
	};

	for (size_t i = 0; i < ARRAY_LEN(t); i++) {
		if (t[i].prog == prog) {
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

static void group_lost(struct attach_plan *p, enum bhp_group g,
		       const char *why)
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

/* the owner and free programs of --callers, every flavour */
static struct progs callers_progs(struct bhprof_bpf *s, int i)
{
	switch (i) {
	case 0:
		return FLAVOURS(s, own_folio);
	case 1:
		return FLAVOURS(s, own_jbd2);
	default:
		return (struct progs){ s->progs.fe_bh_free, NULL,
				       s->progs.kp_bh_free, NULL };
	}
}

#define NR_CALLERS_PROGS 3

static bool is_callers_prog(struct bhprof_bpf *s,
			    const struct bpf_program *prog)
{
	for (int i = 0; i < NR_CALLERS_PROGS; i++) {
		struct progs pr = callers_progs(s, i);

		if (prog == pr.fe || prog == pr.fx || prog == pr.kp ||
		    prog == pr.kr)
			return true;
	}
	return prog == s->progs.tp_bh_free;
}

/* the function a callers program goes on, NULL if the kernel has none */
static const char *callers_func(const struct attach_plan *p, int i)
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

void attach_plan_callers(struct attach_plan *p, struct kbtf *kb,
			 const struct ksyms *ks)
{
	p->callers = true;
	if (p->absent[PROBE_BH_ALLOC]) {
		snprintf(p->callers_why, sizeof(p->callers_why),
			 "no buffer_heads in this kernel");
		return;
	}
	for (size_t i = 0; i < ARRAY_LEN(callers_owners) && !p->own_func[0];
	     i++)
		if (kernel_has_func(kb, ks, callers_owners[i]))
			snprintf(p->own_func, sizeof(p->own_func), "%s",
				 callers_owners[i]);
	/* jbd2 is a module on distribution kernels */
	p->own_jbd2 = kernel_has_func(kb, ks, CALLERS_JBD2);
	p->bh_free = kernel_has_func(kb, ks, CALLERS_FREE);
}

/* Owners and frees go in the bh group's flavour; under kprobes (auto)
 * the free tracepoint waits behind them, as the group's own does. */
static void callers_autoload(struct attach_plan *p, struct bhprof_bpf *s)
{
	enum attach_mode m = p->group_mode[BHP_GROUP_BH];

	if (!p->callers || p->callers_lost || p->failed[BHP_GROUP_BH] ||
	    p->absent[PROBE_BH_ALLOC])
		return;
	for (int i = 0; i < NR_CALLERS_PROGS; i++) {
		struct progs pr = callers_progs(s, i);
		const char *fn = callers_func(p, i);

		if (!fn)
			continue;
		if (m == MODE_FENTRY) {
			autoload(pr.fe, true);
			autoload(pr.fx, true);
			bpf_program__set_attach_target(pr.fe, 0, fn);
			if (pr.fx)
				bpf_program__set_attach_target(pr.fx, 0, fn);
		} else if (m == MODE_KPROBE) {
			autoload(pr.kp, true);
			autoload(pr.kr, true);
		}
	}
	if (m == MODE_TRACEPOINT ||
	    (m == MODE_KPROBE && p->request == MODE_AUTO &&
	     p->tp_ok[BHP_GROUP_BH]))
		autoload(s->progs.tp_bh_free, true);
}

/* iomap's read events give its read calls alone: refused, at load or
 * at attach, those read n/a and the rest of the read group stays */
static void iomap_reads_lost(struct attach_plan *p, const char *what,
			     const char *why)
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
		break;
	case BHP_GROUP_BH:
		autoload(p->callers ? s->progs.tp_bh_alloc_c :
				      s->progs.tp_bh_alloc, true);
		break;
	case BHP_GROUP_READ:
		autoload_sys(p, s);
		autoload(s->progs.tp_read_enter, p->sys_split);
		autoload(s->progs.tp_read_exit, p->sys_split);
		autoload(s->progs.tp_read_folio_added, p->read_tp_pages);
		autoload(s->progs.tp_iomap_readpage, p->read_tp_iomap);
		autoload(s->progs.tp_iomap_readahead, p->read_tp_iomap);
		break;
	case BHP_GROUP_PASS:
		autoload(s->progs.tp_pass_start, !p->absent[PROBE_PASS_INODE]);
		autoload(s->progs.tp_pass_end, !p->absent[PROBE_PASS_INODE]);
		autoload(s->progs.tp_pass_ext4, !p->absent[PROBE_PASS_EXT4]);
		autoload(s->progs.tp_pass_ext4_end,
			 !p->absent[PROBE_PASS_EXT4]);
		break;
	default:
		break;
	}
}

static void callers_autoload(struct attach_plan *p, struct bhprof_bpf *s);

void attach_plan_autoload(struct attach_plan *p, struct bhprof_bpf *s)
{
	autoload(s->progs.tp_bio_queue, !p->failed[BHP_GROUP_BIO]);
	autoload(s->progs.tp_thread_exit, true);
	for (int id = 0; id < NR_PROBES; id++) {
		enum attach_mode m = p->group_mode[probe_group_of(id)];
		struct progs pr = probe_progs(p, s, id);

		if (p->absent[id] || id == PROBE_BIO ||
		    p->failed[probe_group_of(id)])
			continue;
		if (m == MODE_FENTRY) {
			autoload(pr.fe, true);
			autoload(pr.fx, true);
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
	for (int g = 0; g < BHP_NR_GROUPS; g++) {
		enum attach_mode m = p->group_mode[g];

		if (p->failed[g] || g == BHP_GROUP_BIO)
			continue;
		/* under auto, a kprobe group keeps its stand-in ready */
		if (m == MODE_TRACEPOINT ||
		    (m == MODE_KPROBE && p->request == MODE_AUTO && p->tp_ok[g]))
			autoload_tracepoints(p, s, g);
	}
	callers_autoload(p, s);
}

static int link_add(struct attach_plan *p, struct bpf_link *l)
{
	int err = (int)libbpf_get_error(l);

	if (!l)
		return err ? err : -EINVAL;
	if (err)
		return err;
	if (p->nr_links >= MAX_LINKS) {
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
 * The per-syscall events of group g's syscalls: each syscall is one
 * group's, so a group that goes takes only its own events with it.
 */
static int attach_sys_events(struct attach_plan *p, struct bhprof_bpf *s,
			     enum bhp_group g)
{
	char name[64];
	int err = 0;

	for (size_t i = 0; i < ARRAY_LEN(sys_table) && !err; i++) {
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
	if (!err)
		return;
	links_truncate(p, mark);
	iomap_reads_lost(p, "tracepoint attach", strerror(-err));
}

static int attach_tracepoints(struct attach_plan *p, struct bhprof_bpf *s,
			      enum bhp_group g)
{
	int err = 0;

	switch (g) {
	case BHP_GROUP_WRITE:
		err = attach_sys(p, s->progs.tp_write_enter,
				 s->progs.tp_write_exit, s, g);
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
		break;
	case BHP_GROUP_BH:
		err = attach_prog(p, p->callers ? s->progs.tp_bh_alloc_c :
						  s->progs.tp_bh_alloc);
		break;
	case BHP_GROUP_BIO:
		err = attach_prog(p, s->progs.tp_bio_queue);
		break;
	case BHP_GROUP_READ:
		err = attach_sys(p, s->progs.tp_read_enter,
				 s->progs.tp_read_exit, s, g);
		err = err ?: attach_prog(p, s->progs.tp_read_folio_added);
		if (!err)
			attach_iomap_reads(p, s);
		break;
	case BHP_GROUP_PASS:
		err = attach_prog(p, s->progs.tp_pass_start);
		err = err ?: attach_prog(p, s->progs.tp_pass_end);
		err = err ?: attach_prog(p, s->progs.tp_pass_ext4);
		err = err ?: attach_prog(p, s->progs.tp_pass_ext4_end);
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
		struct bpf_program *entry = m == MODE_FENTRY ? pr.fe : pr.kp;
		struct bpf_program *ret = m == MODE_FENTRY ? pr.fx : pr.kr;
		size_t n;
		int err;

		if (probe_group_of(id) != g || p->absent[id])
			continue;
		err = link_add(p, attach_one(entry, m, false, p->ksym[id]));
		if (!err && ret)
			err = link_add(p, attach_one(ret, m, true, p->ksym[id]));
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

/* read_folio and readahead: the tracepoint sees the pages they add */
static bool is_read_fn(enum probe_id id)
{
	return id >= PROBE_READ_BH_FOLIO && id <= PROBE_READ_IOMAP_RA;
}

#define READ_TP_PAGES \
	"filemap:mm_filemap_add_to_page_cache in a read syscall (pages)"

static const char *tp_fixed_detail(enum probe_id id,
				   const struct attach_plan *p)
{
	switch (id) {
	case PROBE_WB_BH:
		return p->typed ? "writeback:wbc_writepage (pages only, typed)" :
				  "writeback:wbc_writepage (pages only)";
	case PROBE_WB_IOMAP:
		return p->iomap_tp_new ? "iomap:iomap_writeback_folio (pages only)" :
					 "iomap:iomap_writepage (pages only)";
	case PROBE_BH_ALLOC:
		return p->bh_cs_hi ? "kmem:kmem_cache_alloc (call site)" :
				     "kmem:kmem_cache_alloc (cache name)";
	case PROBE_BIO:
		return "block:block_bio_queue (tp_btf)";
	case PROBE_PASS_INODE:
		return "writeback:writeback_single_inode{_start,} (tp_btf)";
	case PROBE_PASS_EXT4:
		return "ext4:ext4_writepages{,_result} outside a "
		       "writeback_single_inode (tp_btf)";
	case PROBE_READ_IOMAP_FOLIO:
	case PROBE_READ_IOMAP_RA:
		if (p->read_tp_iomap && id == PROBE_READ_IOMAP_FOLIO)
			return "iomap:iomap_readpage (calls), " READ_TP_PAGES;
		if (p->read_tp_iomap)
			return "iomap:iomap_readahead (calls), " READ_TP_PAGES;
		/* fall through */
	default:
		/* tp_blind() probes never get here */
		return is_read_fn(id) ? "filemap:mm_filemap_add_to_page_cache "
					"in a read syscall (pages only)" : "";
	}
}

/* "typed": the probe's program is a typed twin (TYPED_AS) */
static void tp_detail(enum probe_id id, const struct attach_plan *p,
		      char *buf, size_t len)
{
	const char *ev = p->sys_events ? "syscalls:sys_{enter,exit}_*" :
					 "raw_syscalls:sys_{enter,exit}";
	bool typed = p->sys_events && p->typed;
	char names[128];

	switch (id) {
	case PROBE_WRITE_BLKDEV:
	case PROBE_WRITE_IOMAP:
	case PROBE_WRITE_GENERIC:
		sys_names(names, sizeof(names), 1u << BHP_SYS_WRITE);
		snprintf(buf, len, "%s for %s%s", ev, names,
			 typed ? " (typed)" : "");
		return;
	case PROBE_WB_CTX:
		sys_names(names, sizeof(names),
			  1u << BHP_SYS_SYNC_FD | 1u << BHP_SYS_SYNC);
		snprintf(buf, len, "%s for %s%s + "
			 "writeback:writeback_single_inode", ev, names,
			 typed ? " (typed)" : "");
		return;
	case PROBE_READ_BLKDEV:
		sys_names(names, sizeof(names), 1u << BHP_SYS_READ);
		snprintf(buf, len, "%s for %s (context only%s)", ev, names,
			 typed ? ", typed" : "");
		return;
	default:
		snprintf(buf, len, "%s", tp_fixed_detail(id, p));
	}
}

/* Probes that the tracepoint stand-ins of their group cannot see: in
 * tracepoint mode they run in no mode at all. */
static bool tp_blind(enum probe_id id, const struct attach_plan *p)
{
	if (id == PROBE_DIO_FALLBACK)
		return true;
	return is_read_fn(id) && !p->read_tp_pages;
}

/* the refusal that cost the group flavour f (0 fentry, 1 kprobe), for a
 * probe whose own function was not refused in it */
static const char *fell_of(const struct attach_plan *p, enum probe_id id, int f)
{
	const char *fell = p->fell[probe_group_of(id)][f];
	char own[16];

	snprintf(own, sizeof(own), "%s on ", f ? "kprobe" : "fentry");
	return fell[0] && !strstr(p->pwhy[id], own) ? fell : "";
}

/* "what it runs as; its own function's refusals; its group's" */
static void detail_of(enum probe_id id, const struct attach_plan *p,
		      const char *head, char *buf, size_t len)
{
	enum bhp_group g = probe_group_of(id);
	const char *parts[] = { head, p->pwhy[id], fell_of(p, id, 0),
				fell_of(p, id, 1), p->why[g] };
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < ARRAY_LEN(parts) && n < len; i++)
		if (parts[i][0])
			n += snprintf(buf + n, len - n, "%s%s%s", n ? "; " : "",
				      i == 2 || i == 3 ? "group: " : "",
				      parts[i]);
}

static void fill_state(const struct attach_plan *p, enum probe_id id,
		       struct probe_state *st)
{
	enum bhp_group g = probe_group_of(id);
	char head[256] = "";

	st->mode = p->absent[id] ? MODE_NONE : p->group_mode[g];
	st->failed = !p->absent[id] && p->failed[g];
	if (st->mode == MODE_TRACEPOINT && tp_blind(id, p)) {
		st->mode = MODE_NONE;
		snprintf(head, sizeof(head), "no tracepoint sees it");
	}
	if (st->failed) {
		snprintf(st->detail, sizeof(st->detail), "%s", p->fail_why[g]);
		return;
	}
	if (p->absent[id]) {
		snprintf(st->detail, sizeof(st->detail), "not in this kernel");
		return;
	}
	if (st->mode == MODE_TRACEPOINT)
		tp_detail(id, p, head, sizeof(head));
	else if (st->mode == MODE_KPROBE)
		snprintf(head, sizeof(head), "%s", p->ksym[id]);
	else if (st->mode == MODE_FENTRY)
		snprintf(head, sizeof(head), "%s", p->func[id]);
	detail_of(id, p, head, st->detail, sizeof(st->detail));
	if (!st->detail[0])
		snprintf(st->detail, sizeof(st->detail), "not attached");
}

static void fill_states(const struct attach_plan *p, struct run_info *info)
{
	for (int id = 0; id < NR_PROBES; id++)
		fill_state(p, id, &info->probes[id]);
}

/* Is any group that the kernel has still standing and attached? (One
 * no attach mode can see, page_mkwrite's in tracepoints, is not.) */
/*
 * The groups that put figures on a path. buffer_head allocations alone
 * (5.10 loaded that group and no other) say nothing of which path made
 * them: a run with only those would print a summary of nothing.
 */
static bool path_group(int g)
{
	return g != BHP_GROUP_BH && g != BHP_GROUP_CALLERS;
}

static bool any_group_left(const struct attach_plan *p)
{
	for (int g = 0; g < BHP_NR_GROUPS; g++)
		if (path_group(g) && group_present(p, g) && !p->failed[g] &&
		    p->group_mode[g] != MODE_NONE)
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
		struct bpf_program *in = m == MODE_FENTRY ? pr.fe : pr.kp;
		struct bpf_program *out = m == MODE_FENTRY ? pr.fx : pr.kr;

		if (!fn)
			continue;
		err = link_add(p, attach_one(in, m, false, fn));
		if (!err && out)
			err = link_add(p, attach_one(out, m, true, fn));
		if (err)
			snprintf(p->callers_why, sizeof(p->callers_why),
				 "owners and frees lost: %s on %s: %s",
				 mode_name(m), fn, strerror(-err));
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
			err = attach_prog(p, s->progs.tp_bh_free);
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

void attach_plan_detach(struct attach_plan *p)
{
	links_destroy_parallel(p);
	p->sys_link_at = -1;
}
