// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Opens the BPF object, decides per probe group which flavour runs
 * (attach.c), attaches and reads the maps into snapshots.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "model/callers.h"
#include "closer.h"
#include "collector.h"
#include "model/fsrows.h"
#include "model/devices.h"
#include "kernel.h"
#include "latemod.h"
#include "progcost.h"
#include "pathsrc.h"
#include "refusal.h"
#include "bhprof.skel.h"

/*
 * bhprof's own cost comes from the kernel's BPF run-time statistics, on
 * request only (--self-cost): while they are on, every BPF program on the
 * machine pays two sched_clock() reads per run, in a KVM guest a pvclock
 * read each, as much as a small program itself. Switching them is a
 * static key patched into the code every program runs through, so it
 * happens only while none of bhprof's runs: before they are attached and
 * after they are detached. Switched every second to sample, with the
 * programs running, they hung 6.1 guests of the QEMU matrix, both CPUs
 * spinning in bpf_trace_run5().
 */
struct self_figs {
	uint64_t on_ns;
	uint32_t n;
	struct self_prog rows[MAX_SELF_PROGS];
};

struct self_stats {
	int fd;		/* the statistics are on while this is open */
	uint64_t on_start;
	struct self_figs base;	/* the programs' counts when switched on */
	struct self_figs off;	/* what they counted, once switched off */
	struct self_figs late;	/* the module helper's, once it ended */
};

struct collector {
	struct bhprof_bpf *skel;
	struct self_stats self;
	struct attach_plan plan;
	struct pathsrc paths;
	int nr_cpus;
	void *percpu;	/* scratch for one per-CPU value */
	/* --callers: chain id + 1 of each kernel stack id, 0 unseen */
	uint32_t chain_of[BHP_MAX_STACKS];
	/* -d devices, and which of them were gone at the last read */
	uint32_t nr_devs;
	uint32_t devs[MAX_FILTER_DEVS];
	uint32_t gone;
	struct latemod *late;	/* NULL: no module can bring a probe */
};

static bool verbose;

static void self_stats_on(struct collector *c);

/* libbpf's warnings during a load, to find the program it refused */
static struct {
	bool on;
	size_t len;
	char text[1 << 16];
} load_log;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	va_list copy;
	size_t room = sizeof(load_log.text) - load_log.len;
	int n;

	if (load_log.on && level == LIBBPF_WARN && room > 1) {
		va_copy(copy, args);
		n = vsnprintf(load_log.text + load_log.len, room, fmt, copy);
		va_end(copy);
		if (n > 0)
			load_log.len += (size_t)n < room ? (size_t)n : room - 1;
	}
	/* failed attaches are expected while falling back: quiet unless -v */
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static int fill_maps(struct collector *c, const struct collector_opts *o)
{
	return pathsrc_fill(&c->paths, bpf_map__fd(c->skel->maps.helper_paths),
			    bpf_map__fd(c->skel->maps.fs_paths));
}

/* BHPROF_DEV_SLOTS=N (tests only; 1 to DEV_SLOTS): fewer device slots,
 * so that rows go on to the hash and are added up from both */
static uint32_t dev_slot_mask(void)
{
	const char *e = getenv("BHPROF_DEV_SLOTS");
	int want = e ? atoi(e) : 0;
	uint32_t n = DEV_SLOTS;

	if (want >= 1 && want <= DEV_SLOTS)
		n = (uint32_t)want;
	while (n & (n - 1))
		n &= n - 1;
	return n - 1;
}

/* the write group's functions all on fentry and fexit, none on kprobes
 * beside them (a module's without BTF) */
static bool write_exits_sure(const struct attach_plan *p)
{
	if (p->group_mode[BHP_GROUP_WRITE] != MODE_FENTRY)
		return false;
	for (int id = 0; id < NR_PROBES; id++)
		if (probe_group_of(id) == BHP_GROUP_WRITE && !p->absent[id] &&
		    probe_mode(p, id) != MODE_FENTRY)
			return false;
	return true;
}

/*
 * BHPROF_FLOOR=1 (make bench-vm): the programs on their attach points,
 * each returning before its body. Every figure reads zero; said once.
 */
static bool floor_run(void)
{
	const char *e = getenv("BHPROF_FLOOR");

	if (!e || strcmp(e, "1"))
		return false;
	fprintf(stderr, "bhprof: BHPROF_FLOOR=1: every program returns "
		"before its body; nothing is measured\n");
	return true;
}

static void set_rodata(struct collector *c, const struct collector_opts *o)
{
	struct bhprof_bpf__rodata *r = c->skel->rodata;
	const struct attach_plan *p = &c->plan;
	long page = sysconf(_SC_PAGESIZE);

	r->bdev_path = p->kernel_has_bh ? PATH_BH : PATH_IOMAP;
	r->filter_tgid = o->filter_pid;
	r->nr_filter_devs = o->nr_filter_devs;
	memcpy((void *)r->filter_devs, o->filter_devs,
	       o->nr_filter_devs * sizeof(r->filter_devs[0]));
	if (o->nr_filter_devs)
		r->nr_filter_devs += mount_anon_devs(
			o->filter_devs, o->nr_filter_devs,
			(uint32_t *)r->filter_devs + o->nr_filter_devs,
			BHP_MAX_DEV_MATCH - o->nr_filter_devs);
	r->bh_cs_lo = p->bh_cs_lo;
	r->bh_cs_hi = p->bh_cs_hi;
	r->gpw_takes_file = p->gpw_takes_file;
	r->head_is_mask = p->head_is_mask;
	r->iomap_read_ctx = p->iomap_read_ctx;
	r->read_by_page = p->read_by_page;
	r->aops_on = c->paths.nr > 0;
	r->dev_slot_mask = dev_slot_mask();
	r->bpf_atomics = p->bpf_atomics;
	r->func_arg_helper = p->func_arg_helper;
	r->task_btf = p->task_btf;
	r->bh_free_lo = p->callers ? callers_sym_range("free_buffer_head",
						       (uint64_t *)&r->bh_free_hi) : 0;
	r->write_exits_sure = write_exits_sure(p);
	r->floor_only = floor_run();
	r->page_shift = 0;
	while (page > 1) {
		page >>= 1;
		r->page_shift++;
	}
}

static int check_privileges(void)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "bhprof: this kernel has no BTF "
			"(/sys/kernel/btf/vmlinux): CONFIG_DEBUG_INFO_BTF=y "
			"is needed\n");
		return -ENOENT;
	}
	if (!caps_ok()) {
		fprintf(stderr, "bhprof: permission denied: run as root or "
			"with CAP_BPF and CAP_PERFMON\n");
		return -EPERM;
	}
	return 0;
}

/* The kernel's BTF, parsed once for the facts and the attach plan. */
static struct btf *kernel_btf(void)
{
	struct btf *btf = btf__load_vmlinux_btf();

	return libbpf_get_error(btf) ? NULL : btf;
}

/*
 * The program libbpf refused, from its warnings: every one of them about
 * a program starts "prog 'NAME': ", and the last is the failure.
 */
static struct bpf_program *refused_prog(struct bpf_object *obj)
{
	const char *at = NULL, *p = load_log.text;
	char name[BPF_OBJ_NAME_LEN * 4];
	size_t n;

#ifdef BHPROF_FAULT
	/* tests only: as if libbpf's wording had changed */
	if (getenv("BHPROF_FAULT_ANON"))
		return NULL;
#endif
	while ((p = strstr(p, "prog '"))) {
		at = p + 6;
		p = at;
	}
	if (!at)
		return NULL;
	n = strcspn(at, "'");
	if (n >= sizeof(name) || at[n] != '\'')
		return NULL;
	memcpy(name, at, n);
	name[n] = 0;
	return bpf_object__find_program_by_name(obj, name);
}

/* The kernel's reason, short (refusal.c). */
static void refusal_reason(int err, char *buf, size_t len)
{
	refusal_text(load_log.text, strerror(-err), buf, len);
}

/*
 * libbpf named no program (another libbpf's wording): load each group
 * alone to find one the kernel refuses. Only on this rare path does
 * bhprof pay for extra loads.
 */
static int refused_group(struct collector *c, const struct collector_opts *o)
{
	struct attach_plan *one = malloc(sizeof(*one));
	struct bhprof_bpf *keep = c->skel;
	int found = -ENOENT;

	for (int g = 0; one && g < BHP_NR_GROUPS && found < 0; g++) {
		if (!attach_group_runs(&c->plan, g))
			continue;
		*one = c->plan;
		for (int h = 0; h < BHP_NR_GROUPS; h++)
			one->failed[h] = h != g;
		c->skel = bhprof_bpf__open();
		if (!c->skel)
			break;
		set_rodata(c, o);
		attach_plan_autoload(one, c->skel);
		if (bhprof_bpf__load(c->skel))
			found = g;
		bhprof_bpf__destroy(c->skel);
	}
	c->skel = keep;
	free(one);
	/* the shared syscall programs carry every group's code: once one
	 * group is refused, each group has programs of its own */
	if (found >= 0 && attach_plan_split_syscalls(&c->plan) >= 0)
		found = BHP_NR_GROUPS;
	return found;
}

/* Without --callers its maps are made, as every map of the object is,
 * but hold one entry: no memory for what is not counted. */
static void callers_maps_size(struct collector *c)
{
	if (c->plan.callers)
		return;
	bpf_map__set_max_entries(c->skel->maps.callers_stacks, 1);
	bpf_map__set_max_entries(c->skel->maps.callers, 1);
	bpf_map__set_max_entries(c->skel->maps.owners, 1);
}

/*
 * Loads the object. A program the kernel refuses costs its flavour, then
 * its group (attach_plan_demote), not the run: each try drops one
 * flavour, so the loop ends.
 */
static int load_object(struct collector *c, const struct collector_opts *o)
{
	struct bpf_program *prog;
	char why[200];
	int err, g;

	for (;;) {
		c->skel = bhprof_bpf__open();
		if (!c->skel) {
			fprintf(stderr, "bhprof: failed to open the BPF object\n");
			return -ENOMEM;
		}
		set_rodata(c, o);
		callers_maps_size(c);
		attach_plan_autoload(&c->plan, c->skel);
		load_log.len = 0;
		load_log.text[0] = 0;
		load_log.on = true;
		err = bhprof_bpf__load(c->skel);
		load_log.on = false;
		if (!err)
			return 0;
		refusal_reason(err, why, sizeof(why));
		prog = refused_prog(c->skel->obj);
		if (prog) {
			g = attach_plan_demote(&c->plan, c->skel, prog, why);
		} else {
			g = refused_group(c, o);
			if (g >= 0 && g < BHP_NR_GROUPS)
				g = attach_plan_demote_group(&c->plan, g, why);
		}
		if (g < 0) {
			fprintf(stderr, "bhprof: failed to load the BPF "
				"programs: %s%s\n", why,
				verbose ? "" : " (-v shows the log)");
			return err;
		}
		bhprof_bpf__destroy(c->skel);
		c->skel = NULL;
	}
}

/* One line per group lost: what is missing, and the kernel's reason. */
static void report_lost(const struct run_info *info)
{
	bool said[BHP_NR_GROUPS] = {};

	for (int id = 0; id < NR_PROBES; id++) {
		const struct probe_state *ps = &info->probes[id];
		enum bhp_group g = probe_group_of(id);

		if (!ps->failed || said[g])
			continue;
		said[g] = true;
		fprintf(stderr, "bhprof: lost the %s probes (%s): %s; their "
			"figures are missing from this run\n", group_name(g),
			ps->func, ps->detail);
	}
}

/* kallsyms, read on a thread of its own while the BTF is parsed */
struct ksyms_reader {
	pthread_t thread;
	bool started;
	struct ksyms *ks;
};

static void *ksyms_read(void *arg)
{
	struct ksyms_reader *r = arg;

	r->ks = attach_ksyms_load();
	return NULL;
}

static struct ksyms *ksyms_wait(struct ksyms_reader *r)
{
	if (r->started) {
		pthread_join(r->thread, NULL);
		r->started = false;
	}
	return r->ks;
}

/* kallsyms whole, while bhprof still holds root: chains are named from it */
static void callers_open(struct collector *c, struct run_info *info,
			 struct kbtf *kb, const struct ksyms *ks)
{
	long sz = kb->vmlinux ? btf_struct_size(kb->vmlinux, "buffer_head") : -1;
	int err;

	attach_plan_callers(&c->plan, kb, ks);
	info->bh_size = sz > 0 ? (uint32_t)sz : 0;
	err = callers_syms_load();
	if (err)
		fprintf(stderr, "bhprof: --callers: /proc/kallsyms: %s; chains "
			"are not named\n", strerror(-err));
	callers_mounts_scan();
}

int collector_open(const struct collector_opts *o, struct run_info *info,
		   struct collector **out)
{
	struct ksyms_reader kr = {};
	struct kbtf *kb = NULL;
	struct collector *c;
	int err;

	verbose = o->verbose;
	libbpf_set_print(libbpf_print);
	/* the two slow reads of start-up, /proc/kallsyms and the kernel's
	 * BTF, side by side */
	kr.started = !pthread_create(&kr.thread, NULL, ksyms_read, &kr);
	if (!kr.started)
		kr.ks = attach_ksyms_load();
	kb = kbtf_new(kernel_btf());
	if (!kb) {
		err = -ENOMEM;
		goto out;
	}
	kernel_facts(info, kb->vmlinux);
	err = check_privileges();
	if (err)
		goto out;
	err = -ENOMEM;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto out;
	c->self.fd = -1;
	c->nr_devs = o->nr_filter_devs;
	memcpy(c->devs, o->filter_devs, sizeof(c->devs));
	c->nr_cpus = libbpf_num_possible_cpus();
	/* the largest per-CPU value read through it */
	c->percpu = calloc(c->nr_cpus, sizeof(struct bhp_hist) >
					       sizeof(struct bhp_dev_slot) ?
				       sizeof(struct bhp_hist) :
				       sizeof(struct bhp_dev_slot));
	if (!c->percpu)
		goto fail;
	err = attach_plan_make(&c->plan, o->mode, info, kb, ksyms_wait(&kr));
	if (err)
		goto fail;
	pathsrc_resolve(&c->paths, kr.ks);
	info->path_helpers = c->paths.nr;
	if (o->callers)
		callers_open(c, info, kb, kr.ks);
	/* libbpf parses its own copy for the load: not both at once */
	kbtf_free(kb);
	kb = NULL;
	ksyms_free(kr.ks);
	kr.ks = NULL;
	err = load_object(c, o);
	if (err)
		goto fail;
	err = fill_maps(c, o);
	if (err) {
		fprintf(stderr, "bhprof: failed to fill BPF maps: %s\n",
			strerror(-err));
		goto fail;
	}
	if (o->self_cost)
		self_stats_on(c);
	err = attach_plan_attach(&c->plan, c->skel, info);
	if (err)
		goto fail;
	/* the syscall stand-ins start to count only now */
	attach_plan_syscalls(&c->plan, c->skel->bss->sys_class,
			     sizeof(c->skel->bss->sys_class));
	report_lost(info);
	if (o->watch_modules)
		c->late = latemod_start(&c->plan, c->skel);
	*out = c;
	goto out;
fail:
	collector_close(c);
out:
	ksyms_free(ksyms_wait(&kr));
	kbtf_free(kb);
	return err;
}

/* Sum one per-CPU value of size sz into out. */
static int read_percpu(struct collector *c, int fd, uint32_t key, void *out,
		       size_t sz)
{
	uint64_t *acc = out;
	size_t n = sz / sizeof(uint64_t);

	if (bpf_map_lookup_elem(fd, &key, c->percpu))
		return -errno;
	memset(out, 0, sz);
	for (int cpu = 0; cpu < c->nr_cpus; cpu++) {
		const uint64_t *v = (const uint64_t *)((char *)c->percpu +
						       (size_t)cpu * sz);

		for (size_t i = 0; i < n; i++)
			acc[i] += v[i];
	}
	return 0;
}

/* the snapshot's row of key, added if new (NULL: no room) */
static struct bhp_dev_stats *snap_dev_row(struct snapshot *s,
					  const struct bhp_dev_key *key)
{
	struct dev_row *r;

	for (uint32_t i = 0; i < s->nr_devs; i++)
		if (s->devs[i].dev == key->dev && s->devs[i].path == key->path)
			return &s->devs[i].s;
	if (s->nr_devs >= MAX_SNAP_DEVS)
		return NULL;
	r = &s->devs[s->nr_devs++];
	memset(r, 0, sizeof(*r));
	r->dev = key->dev;
	r->path = key->path;
	return &r->s;
}

static void dev_add(struct bhp_dev_stats *row, const struct bhp_dev_stats *v)
{
	uint64_t *acc = (uint64_t *)row;
	const uint64_t *add = (const uint64_t *)v;

	for (size_t i = 0; i < sizeof(*row) / sizeof(*acc); i++)
		acc[i] += add[i];
}

/* each CPU's slots (dev_slots), added to the rows of their keys */
static void read_dev_slots(struct collector *c, struct snapshot *s)
{
	int fd = bpf_map__fd(c->skel->maps.dev_slots);
	const struct bhp_dev_slot *sl;
	struct bhp_dev_stats *row;

	for (uint32_t k = 0; k < DEV_SLOTS; k++) {
		if (bpf_map_lookup_elem(fd, &k, c->percpu))
			continue;
		for (int cpu = 0; cpu < c->nr_cpus; cpu++) {
			sl = (const struct bhp_dev_slot *)((char *)c->percpu +
							    (size_t)cpu *
								    sizeof(*sl));
			if (!sl->used)
				continue;
			row = snap_dev_row(s, &sl->key);
			if (row)
				dev_add(row, &sl->s);
		}
	}
}

static int read_devs(struct collector *c, struct snapshot *s)
{
	int fd = bpf_map__fd(c->skel->maps.dev_stats);
	struct bhp_dev_key key, next, *prev = NULL;
	const size_t sz = sizeof(struct bhp_dev_stats);
	struct bhp_dev_stats *row;

	s->nr_devs = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, c->percpu))
			continue;
		row = snap_dev_row(s, &key);
		if (!row)
			break;
		for (int cpu = 0; cpu < c->nr_cpus; cpu++)
			dev_add(row, (const struct bhp_dev_stats *)(
					     (char *)c->percpu +
					     (size_t)cpu * sz));
	}
	read_dev_slots(c, s);
	return 0;
}

static void fs_add(struct snapshot *s, const char *name, uint32_t path,
		   const struct bhp_fs_stats *v)
{
	struct fs_row *r = fs_row_get(s, name, path);
	uint64_t *acc = r ? (uint64_t *)&r->s : NULL;
	const uint64_t *add = (const uint64_t *)v;

	for (size_t i = 0; acc && i < sizeof(r->s) / sizeof(*acc); i++)
		acc[i] += add[i];
}

/* a hash row's name: the CPU that made the row wrote it, and the
 * kernel gave every other CPU a zeroed copy to count in */
static const char *fs_hash_name(const struct collector *c)
{
	const struct bhp_fs_val *v = c->percpu;

	for (int cpu = 0; cpu < c->nr_cpus; cpu++)
		if (v[cpu].name[0])
			return v[cpu].name;
	return "";
}

/* The filesystems' rows, by name: a slot's name is its CPU's own. */
static void read_fs(struct collector *c, struct snapshot *s)
{
	int hfd = bpf_map__fd(c->skel->maps.fs_stats);
	int sfd = bpf_map__fd(c->skel->maps.fs_slots);
	struct bhp_fs_key key, next, *prev = NULL;
	const struct bhp_fs_val *v = c->percpu;
	const struct bhp_fs_slot *sl;
	char name[BHP_FS_NAME];

	s->nr_fs = 0;
	while (!bpf_map_get_next_key(hfd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(hfd, &key, c->percpu))
			continue;
		snprintf(name, sizeof(name), "%s", fs_hash_name(c));
		for (int cpu = 0; cpu < c->nr_cpus; cpu++)
			fs_add(s, name, key.path, &v[cpu].s);
	}
	for (uint32_t k = 0; k < FS_SLOTS; k++) {
		if (bpf_map_lookup_elem(sfd, &k, c->percpu))
			continue;
		for (int cpu = 0; cpu < c->nr_cpus; cpu++) {
			sl = (const struct bhp_fs_slot *)((char *)c->percpu +
							   (size_t)cpu *
								   sizeof(*sl));
			if (sl->used)
				fs_add(s, sl->v.name, sl->key.path, &sl->v.s);
		}
	}
}

/* What the kernel counts of bhprof's programs, summed over them all. */
static void progs_info(struct collector *c, struct bpf_prog_info *sum)
{
	struct bpf_program *prog;

	memset(sum, 0, sizeof(*sum));
	bpf_object__for_each_program(prog, c->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		sum->run_time_ns += info.run_time_ns;
		sum->run_cnt += info.run_cnt;
		sum->recursion_misses += info.recursion_misses;
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* as bpftop does: the kernel counts only while someone holds this fd */
static void self_stats_on(struct collector *c)
{
	struct self_stats *st = &c->self;

	st->fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (st->fd < 0) {
		fprintf(stderr, "bhprof: --self-cost: the kernel's BPF "
			"statistics cannot be switched on: %s\n",
			strerror(errno));
		return;
	}
	st->on_start = mono_ns();
	st->base.n = 0;
	bpf_progs_cost(c->skel->obj, st->base.rows, &st->base.n,
		       MAX_SELF_PROGS);
}

/* what the statistics counted since they were switched on, program by
 * program, the module helper's included, and for how long */
static void self_since_on(struct collector *c, struct self_figs *f)
{
	struct self_stats *st = &c->self;
	struct self_figs late;

	f->on_ns = mono_ns() - st->on_start;
	f->n = 0;
	bpf_progs_cost(c->skel->obj, f->rows, &f->n, MAX_SELF_PROGS);
	self_progs_sub(f->rows, f->n, st->base.rows, st->base.n);
	if (c->late) {
		late.n = latemod_cost(c->late, late.rows, MAX_SELF_PROGS);
		self_progs_add(f->rows, &f->n, late.rows, late.n);
	} else {
		/* the helper ended: what its programs counted, kept */
		self_progs_add(f->rows, &f->n, st->late.rows, st->late.n);
	}
}

/* after every program is detached, the helper's included */
static void self_stats_off(struct collector *c)
{
	struct self_stats *st = &c->self;

	if (st->fd < 0)
		return;
	self_since_on(c, &st->off);
	close(st->fd);
	st->fd = -1;
}

/* Run time and runs of bhprof's programs since --self-cost had the
 * statistics switched on, and for how long; all 0 without. */
static void read_self(struct collector *c, struct snapshot *s)
{
	struct self_stats *st = &c->self;
	static struct self_figs now;
	const struct self_figs *f = &st->off;

	if (st->fd >= 0) {
		self_since_on(c, &now);
		f = &now;
	}
	s->self_on_ns = f->on_ns;
	s->nr_self_progs = f->n;
	memcpy(s->self_progs, f->rows, sizeof(f->rows[0]) * f->n);
	s->self_ns = 0;
	s->self_runs = 0;
	for (uint32_t i = 0; i < f->n; i++) {
		s->self_ns += f->rows[i].ns;
		s->self_runs += f->rows[i].runs;
	}
}

uint64_t collector_missed(struct collector *c)
{
	struct bpf_prog_info sum;

	progs_info(c, &sum);
	return sum.recursion_misses;
}

/* a kernel stack id's chain id (callers.h): named once, on first sight */
static uint32_t callers_chain_read(struct collector *c, uint32_t id)
{
	uint64_t ips[BHP_STACK_DEPTH] = {};
	int fd = bpf_map__fd(c->skel->maps.callers_stacks);

	if (id >= BHP_MAX_STACKS)
		return BHP_STACK_LOST;
	if (!c->chain_of[id]) {
		if (bpf_map_lookup_elem(fd, &id, ips))
			return BHP_STACK_LOST;
		c->chain_of[id] = callers_chain_from_ips(ips, BHP_STACK_DEPTH) + 1;
	}
	return c->chain_of[id] - 1;
}

/* two kernel stacks can make one chain (frames past its depth differ):
 * their rows, sorted, become one */
static void rows_merge(struct snapshot *s)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < s->nr_callers; i++) {
		if (n && !caller_key_cmp(&s->callers[n - 1].k, &s->callers[i].k))
			s->callers[n - 1].n += s->callers[i].n;
		else
			s->callers[n++] = s->callers[i];
	}
	s->nr_callers = n;
}

/* the rows of --callers, summed over CPUs and sorted; new chains named */
static int read_callers(struct collector *c, struct snapshot *s)
{
	int fd = bpf_map__fd(c->skel->maps.callers);
	struct bhp_caller_key key, next, *prev = NULL;
	const uint64_t *v = c->percpu;

	s->nr_callers = 0;
	s->bh_net_peak = 0;
	if (!c->plan.callers)
		return 0;
	s->bh_net_peak = c->skel->bss->bh_net_peak;
	while (!bpf_map_get_next_key(fd, prev, &next) &&
	       s->nr_callers < MAX_SNAP_CALLERS) {
		struct caller_row *r = &s->callers[s->nr_callers];

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, c->percpu))
			continue;
		r->k = key;
		r->k.stack = callers_chain_read(c, key.stack);
		r->n = 0;
		for (int cpu = 0; cpu < c->nr_cpus; cpu++)
			r->n += v[cpu];
		s->nr_callers++;
	}
	qsort(s->callers, s->nr_callers, sizeof(s->callers[0]),
	      caller_row_cmp);
	rows_merge(s);
	callers_mounts_scan();
	return 0;
}

/*
 * A -d device that vanishes (a detached loop device, a removed disk) or
 * comes back is said once on stderr, as it happens, and marked in the
 * snapshot: the rest of the run goes on counting, and the same MAJ:MIN
 * counts again once it is back.
 */
static void watch_devs(struct collector *c, struct snapshot *s)
{
	char name[64];

	for (uint32_t i = 0; i < c->nr_devs; i++) {
		uint64_t n = dev_sectors(c->devs[i]);
		bool gone = !n, was = c->gone & (1u << i);

		if (gone == was)
			continue;
		c->gone ^= 1u << i;
		dev_name(c->devs[i], name, sizeof(name));
		if (gone)
			fprintf(stderr, "bhprof: device %s (%u:%u) is gone (no "
				"size): still counting the rest\n", name,
				KDEV_MAJOR(c->devs[i]), KDEV_MINOR(c->devs[i]));
		else
			fprintf(stderr, "bhprof: device %s (%u:%u) is back, "
				"%llu sectors: counting it again\n", name,
				KDEV_MAJOR(c->devs[i]), KDEV_MINOR(c->devs[i]),
				(unsigned long long)n);
	}
	s->dev_gone = c->gone;
}

int collector_read(struct collector *c, struct snapshot *s)
{
	int ps = bpf_map__fd(c->skel->maps.path_stats);
	int gs = bpf_map__fd(c->skel->maps.global_stats);
	int hs = bpf_map__fd(c->skel->maps.hists);
	struct timespec ts;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->ts_ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	for (uint32_t p = 0; p < NR_PATH_ROWS && !err; p++)
		err = read_percpu(c, ps, p, &s->paths[p], sizeof(s->paths[p]));
	if (!err)
		err = read_percpu(c, gs, 0, &s->glob, sizeof(s->glob));
	for (uint32_t h = 0; h < NR_HISTS && !err; h++)
		err = read_percpu(c, hs, h, &s->hists[h], sizeof(s->hists[h]));
	if (!err)
		err = read_devs(c, s);
	if (!err)
		read_fs(c, s);
	if (!err)
		err = read_callers(c, s);
	read_self(c, s);
	watch_devs(c, s);
	latemod_read(c->late, &s->probes_late, &s->probes_gone);
	return err;
}

void collector_relay_messages(struct collector *c)
{
	latemod_relay(c->late);
}

int collector_check(struct collector *c)
{
	struct bpf_prog_info info = {};
	struct bhp_global_stats g;
	struct bpf_program *prog;
	__u32 len = sizeof(info);
	int err;

	err = read_percpu(c, bpf_map__fd(c->skel->maps.global_stats), 0, &g,
			  sizeof(g));
	if (err)
		return err;
	bpf_object__for_each_program(prog, c->skel->obj) {
		if (bpf_program__fd(prog) < 0)
			continue;	/* not loaded: another flavour won */
		if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			return -errno;
		break;
	}
	return 0;
}

void collector_close(struct collector *c)
{
	if (!c)
		return;
	c->self.late.n = latemod_stop(c->late, c->self.late.rows,
				      MAX_SELF_PROGS);
	c->late = NULL;
	if (c->plan.nr_links) {
		/*
		 * A program on a tracepoint's perf event runs as long as the
		 * event is there, disabled or not: the syscall stand-ins the
		 * closer keeps a moment longer are told that no syscall is
		 * watched, and count nothing more.
		 */
		memset(c->skel->bss->sys_class, BHP_SYS_NONE,
		       sizeof(c->skel->bss->sys_class));
		closer_start();
	}
	attach_plan_detach(&c->plan);
	self_stats_off(c);
	bhprof_bpf__destroy(c->skel);
	free(c->percpu);
	free(c);
}
