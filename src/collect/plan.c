// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Attach planning: which function or tracepoint each probe finds on
 * this kernel, and which flavour (fentry, kprobe, tracepoint) each
 * probe group takes.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "pathsrc.h"
#include "attach_int.h"

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
	/* ->readpage(page) until "fs: Convert ... to read_folio" (5.19) */
	[PROBE_READ_BH_FOLIO] = { "block_read_full_folio", "block_read_full_page" },
	[PROBE_READ_BH_RA] = { "mpage_readahead" },
	[PROBE_READ_EXT4_FOLIO] = { "ext4_read_folio", "ext4_readpage" },
	[PROBE_READ_EXT4_RA] = { "ext4_readahead" },
	[PROBE_READ_IOMAP_FOLIO] = { "iomap_read_folio", "iomap_readpage" },
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
	/* an inline wrapper of __mpage_writepages() in 7.x */
	[PROBE_WB_MPAGE] = { "__mpage_writepages", "mpage_writepages" },
	[PROBE_WB_EXT4] = { "ext4_writepages" },
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

/* ... whose programs have raw_tp twins, for a module without BTF */
static bool has_raw_tp(enum probe_id id)
{
	return id == PROBE_PASS_EXT4;
}

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

struct progs probe_progs(const struct attach_plan *p, struct bhprof_bpf *s,
			 enum probe_id id)
{
	switch (id) {
	case PROBE_WRITE_BLKDEV:
		return FLAVOURS(s, blkdev_write);
	case PROBE_WRITE_IOMAP:
		return FLAVOURS(s, iomap_write);
	case PROBE_WRITE_GENERIC:
		return FLAVOURS(s, generic_write);
	/* the engines: counted on entry, no return flavours */
	case PROBE_WB_BH:
		return ENTRY_FLAVOURS(s, bh_writeback);
	case PROBE_WB_IOMAP:
		return ENTRY_FLAVOURS(s, iomap_writeback);
	case PROBE_WB_MPAGE:
		return ENTRY_FLAVOURS(s, mpage_writeback);
	case PROBE_WB_EXT4:
		return ENTRY_FLAVOURS(s, ext4_writeback);
	case PROBE_WB_CTX:
		return FLAVOURS(s, do_writepages);
	case PROBE_BH_ALLOC:
		/* counted on entry: no return flavours */
		if (p->callers)
			return ENTRY_FLAVOURS(s, bh_alloc_c);
		return ENTRY_FLAVOURS(s, bh_alloc);
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
		return ENTRY_FLAVOURS(s, dwf);
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
			     ARRAY_SIZE(insns), &opts);
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

/*
 * A tracepoint in vmlinux's BTF or in its module's: *mod says which. A
 * module without BTF (before 5.11) has its tracepoints all the same, by
 * kallsyms: *raw says only a raw tracepoint can take them.
 */
static bool tp_found(struct kbtf *kb, const struct ksyms *ks,
		     const char *name, const char **mod, bool *raw)
{
	char iter[96];

	*mod = NULL;
	*raw = false;
	if (btf_has_tracepoint(kb->vmlinux, name))
		return true;
	snprintf(iter, sizeof(iter), TRACEITER "%s", name);
	*mod = ksyms_module_of(ks, iter);
	if (!*mod)
		return false;
	*raw = !btf_module_has_btf(*mod);
	return *raw || btf_has_tracepoint(kbtf_module(kb, *mod), name);
}

/* A function in vmlinux's BTF, or in kallsyms (a module's or one built
 * without BTF): *sym is its kallsyms name, *mod its module. */
uint32_t kbtf_func_nargs(struct kbtf *kb, const struct ksyms *ks,
			 const char *name)
{
	const char *mod = ksyms_module_of(ks, name);

	return btf_func_nargs(kbtf_module(kb, mod ? mod : ""), name);
}

bool func_found(struct kbtf *kb, const struct ksyms *ks, const char *name,
		const char **sym, const char **mod)
{
	*sym = ksyms_func(ks, name);
	*mod = *sym ? ksyms_module_of(ks, name) : NULL;
	return btf_has_func(kb->vmlinux, name) || *sym;
}

/* *raw: a tracepoint probe on its raw_tp programs (tp_found) */
static bool probe_found(struct kbtf *kb, const struct ksyms *ks, int id,
			const char *name, const char **sym, const char **mod,
			bool *raw)
{
	const char *pmod;
	bool praw;

	*raw = false;
	if (!is_tp_probe(id))
		return func_found(kb, ks, name, sym, mod);
	*sym = NULL;
	if (!tp_found(kb, ks, name, mod, raw) || (*raw && !has_raw_tp(id)))
		return false;
	/* both events of a pair, from the same module */
	return !tp_pair[id] || (tp_found(kb, ks, tp_pair[id], &pmod, &praw) &&
				!strcmp(pmod ?: "", *mod ?: ""));
}

static void resolve(struct attach_plan *p, struct kbtf *kb,
		    const struct ksyms *ks)
{
	for (int id = 0; id < NR_PROBES; id++) {
		p->absent[id] = true;
		for (int c = 0; c < 3 && candidates[id][c]; c++) {
			const char *name = candidates[id][c], *sym, *mod;
			bool raw;

			if (!probe_found(kb, ks, id, name, &sym, &mod, &raw))
				continue;
			p->absent[id] = false;
			p->tp_raw[id] = raw;
			snprintf(p->func[id], sizeof(p->func[id]), "%s", name);
			snprintf(p->ksym[id], sizeof(p->ksym[id]), "%s",
				 sym ? sym : name);
			snprintf(p->mod[id], sizeof(p->mod[id]), "%s",
				 mod ? mod : "");
			if (!is_tp_probe(id))
				p->nargs[id] = kbtf_func_nargs(kb, ks, name);
			break;
		}
		if (p->absent[id])
			snprintf(p->func[id], sizeof(p->func[id]), "%s",
				 candidates[id][0]);
	}
}

/* module BTF came in 5.11: kprobes reach a module's function that fentry
 * cannot, and a function has one flavour, so nothing counts twice. The
 * module's own entry in /sys/kernel/btf says, where the kernel's config
 * may be out of sight (no /proc/config.gz) */
bool module_kprobes_only(const struct attach_plan *p, const char *mod)
{
	return mod && mod[0] && p->kprobe_ok && !btf_module_has_btf(mod);
}

static bool kp_alone_ok(const struct attach_plan *p, int id)
{
	return module_kprobes_only(p, p->mod[id]);
}

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
		p->kp_alone[id] = false;
		if (!fentry_probe(p, kb, id, &why))
			continue;
		pwhy_add(p, id, "fentry", why);
		if (kp_alone_ok(p, id)) {
			p->kp_alone[id] = true;
			continue;
		}
		if (ok) {
			snprintf(first, len, "%s", p->pwhy[id]);
			snprintf(p->fell[g][0], sizeof(p->fell[g][0]), "%s",
				 p->pwhy[id]);
		}
		ok = false;
	}
	return ok;
}

enum attach_mode probe_mode(const struct attach_plan *p, enum probe_id id)
{
	enum attach_mode m = p->group_mode[probe_group_of(id)];

	return m == MODE_FENTRY && p->kp_alone[id] ? MODE_KPROBE : m;
}

bool group_present(const struct attach_plan *p, enum bhp_group g)
{
	for (int id = 0; id < NR_PROBES; id++)
		if (probe_group_of(id) == g && !p->absent[id])
			return true;
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
	p->bio_tp_q = btf_tp_nargs(btf, "block_bio_queue") == 2;
	p->bh_free_tp2 = btf_tp_nargs(btf, "kmem_cache_free") == 2;
	p->read_tp_page = btf_tp_arg0_is(btf, "mm_filemap_add_to_page_cache",
					 "page");
	p->typed = btf_has_func(btf, "bpf_rdonly_cast");
	p->tp_ok[BHP_GROUP_WRITE] = classic;
	p->tp_ok[BHP_GROUP_WB] = classic &&
			     btf_has_tracepoint(btf, "writeback_single_inode") &&
			     btf_has_tracepoint(btf, "wbc_writepage");
	p->tp_ok[BHP_GROUP_BH] = btf_has_tracepoint(btf, "kmem_cache_alloc");
	p->tp_ok[BHP_GROUP_BIO] = !p->absent[PROBE_BIO];
	p->tp_ok[BHP_GROUP_READ] = classic;
	p->read_tp_pages = btf_has_tracepoint(btf, "mm_filemap_add_to_page_cache");
	p->write_tp_iter = btf_has_tracepoint(btf, "iomap_iter_dstmap");
	p->write_tp_apply = btf_has_tracepoint(btf, "iomap_apply_dstmap");
	p->write_tp_iomap = !p->absent[PROBE_WRITE_IOMAP] &&
			    (p->write_tp_iter || p->write_tp_apply);
	/* either of iomap's read functions says iomap reads here */
	p->read_tp_iomap = !(p->absent[PROBE_READ_IOMAP_FOLIO] &&
			     p->absent[PROBE_READ_IOMAP_RA]) &&
			   btf_has_tracepoint(btf, "iomap_readpage") &&
			   btf_has_tracepoint(btf, "iomap_readahead");
	/* no tracepoint anywhere near page_mkwrite */
	p->tp_ok[BHP_GROUP_MKWRITE] = false;
}

enum attach_mode select_mode(enum attach_mode request, bool present,
			     bool fentry_ok, bool kprobe_ok, bool tp_ok,
			     int *err)
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
	case MODE_KPROBE:
		if (kprobe_ok)
			return MODE_KPROBE;
		*err = -ENOSYS;
		return MODE_NONE;
	case MODE_TRACEPOINT:
		if (tp_ok)
			return MODE_TRACEPOINT;
		*err = -ENOENT;
		return MODE_NONE;
	default:
		/* kprobes are only known to work once attached; under auto
		 * the tracepoints wait behind them (attach_group). A kernel
		 * that makes no kprobes goes to them at once: loading
		 * programs that cannot attach costs the verifier's time */
		if (kprobe_ok)
			return MODE_KPROBE;
		return tp_ok ? MODE_TRACEPOINT : MODE_NONE;
	}
}

/*
 * Can this kernel make kprobes at all? libbpf makes them through the
 * kprobe PMU (4.17 and later) or tracefs' kprobe_events; a kernel
 * without CONFIG_KPROBE_EVENTS has neither, and every kprobe would fail
 * to attach after its programs were verified.
 */
static bool kprobes_possible(void)
{
	static const char *const where[] = {
		"/sys/bus/event_source/devices/kprobe/type",
		"/sys/kernel/tracing/kprobe_events",
		"/sys/kernel/debug/tracing/kprobe_events",
	};

	for (size_t i = 0; i < ARRAY_SIZE(where); i++)
		if (!access(where[i], F_OK))
			return true;
	return false;
}

#define NO_KPROBES "this kernel makes no kprobes (no kprobe PMU, no kprobe_events)"

/* Each probe of a group says why kprobes were not tried. */
static void kprobes_impossible(struct attach_plan *p, enum bhp_group g)
{
	for (int id = 0; id < NR_PROBES; id++) {
		if (probe_group_of(id) != g || p->absent[id])
			continue;
		pwhy_add(p, id, "kprobe", NO_KPROBES);
	}
	snprintf(p->fell[g][1], sizeof(p->fell[g][1]), "%s", NO_KPROBES);
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
	p->group_mode[g] = select_mode(r, present, fentry_ok, p->kprobe_ok,
				       p->tp_ok[g], &err);
	if (present && !fentry_ok && !p->kprobe_ok &&
	    (r == MODE_AUTO || r == MODE_KPROBE))
		kprobes_impossible(p, g);
	if (err == -EOPNOTSUPP)
		fprintf(stderr, "bhprof: --attach=fentry: %s\n", first);
	else if (err == -ENOSYS)
		fprintf(stderr, "bhprof: --attach=kprobe: %s\n", NO_KPROBES);
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

/* the read functions of 5.18 and before, which take a page: all three
 * families were converted to folios at once */
static bool read_takes_page(const struct attach_plan *p)
{
	static const enum probe_id ids[] = { PROBE_READ_BH_FOLIO,
					     PROBE_READ_EXT4_FOLIO,
					     PROBE_READ_IOMAP_FOLIO };

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		size_t n = strlen(p->func[ids[i]]);

		if (!p->absent[ids[i]] && n > 4 &&
		    !strcmp(p->func[ids[i]] + n - 4, "page"))
			return true;
	}
	return false;
}

static void plan_flags(struct attach_plan *p, const struct btf *btf,
		       const struct ksyms *ks)
{
	p->kernel_has_bh = !p->absent[PROBE_BH_ALLOC];
	p->gpw_takes_file = btf_func_param0_is(btf, "generic_perform_write",
					       "file");
	p->head_is_mask = kernel_head_is_mask(btf);
	/* iomap_read_folio(folio, ops) until 7.1, (ops, ctx, private) in 7.2 */
	p->read_by_page = read_takes_page(p);
	p->iomap_read_ctx = !p->read_by_page &&
			    !absent_or_folio(p, btf, PROBE_READ_IOMAP_FOLIO);
	p->bpf_atomics = kernel_bpf_atomics();
	p->func_arg_helper = btf_has_enum_value(btf, "bpf_func_id",
						"BPF_FUNC_get_func_arg");
	p->task_btf = btf_has_enum_value(btf, "bpf_func_id",
					 "BPF_FUNC_get_current_task_btf");
	p->bh_cs_lo = ksyms_addr(ks, "alloc_buffer_head", &p->bh_cs_hi);
	if (!p->bh_cs_lo)
		p->bh_cs_hi = 0;
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
	p->kprobe_ok = kprobes_possible();
	for (int g = 0; g < BHP_NR_GROUPS && !err; g++)
		err = choose(p, kb, g);
	info->features = RUN_F_READS | RUN_F_PASSES | RUN_F_WB_MAPPING | RUN_F_FS;
	for (int id = 0; id < NR_PROBES; id++) {
		info->probes[id].absent = p->absent[id];
		snprintf(info->probes[id].func, sizeof(info->probes[id].func),
			 "%s", p->func[id]);
		snprintf(info->probes[id].module,
			 sizeof(info->probes[id].module), "%s", p->mod[id]);
	}
	return err;
}

struct ksyms *attach_ksyms_load(void)
{
	static char iter[NR_PROBES][2][80];
	const char *want[NR_PROBES * 4 + CALLERS_WANT + 2 * MAX_PATH_HELPERS];
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
	n += pathsrc_want(want + n, ARRAY_SIZE(want) - n - CALLERS_WANT);
	n += callers_want(want + n);
	return ksyms_load(want, n);
}

uint64_t attach_plan_module(struct attach_plan *mini,
			    const struct attach_plan *base, struct kbtf *kb,
			    const struct ksyms *ks, const char *mod,
			    uint64_t want)
{
	uint64_t found = 0;

	*mini = *base;
	mini->nr_links = 0;
	mini->sys_link_at = -1;
	mini->callers = false;
	for (int id = 0; id < NR_PROBES; id++) {
		mini->absent[id] = true;
		mini->tp_raw[id] = false;
		mini->kp_alone[id] = false;
		if (!(want & (1ULL << id)))
			continue;
		for (int c = 0; c < 3 && candidates[id][c]; c++) {
			const char *name = candidates[id][c], *sym, *m;
			bool raw;

			if (!probe_found(kb, ks, id, name, &sym, &m, &raw) ||
			    !m || strcmp(m, mod))
				continue;
			mini->absent[id] = false;
			mini->tp_raw[id] = raw;
			found |= 1ULL << id;
			snprintf(mini->func[id], sizeof(mini->func[id]), "%s",
				 name);
			snprintf(mini->ksym[id], sizeof(mini->ksym[id]), "%s",
				 sym ? sym : name);
			snprintf(mini->mod[id], sizeof(mini->mod[id]), "%s", mod);
			/* as at the start (group_fentry_ok) */
			mini->kp_alone[id] = !is_tp_probe(id) &&
					     kp_alone_ok(mini, id);
			break;
		}
	}
	/* a group that ran no flavour at the start takes none now */
	for (int g = 0; g < BHP_NR_GROUPS; g++)
		mini->failed[g] = !attach_group_runs(base, g) ||
				  !group_present(mini, g);
	for (int id = 0; id < NR_PROBES; id++) {
		if (!mini->failed[probe_group_of(id)])
			continue;
		mini->absent[id] = true;
		found &= ~(1ULL << id);
	}
	return found;
}
