// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Opens the BPF object, decides per probe group which flavour runs
 * (attach.c), attaches and reads the maps into snapshots.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "collector.h"
#include "kernel.h"
#include "bhprof.skel.h"

struct collector {
	struct bhprof_bpf *skel;
	int stats_fd;	/* holds BPF run-time statistics on while open */
	struct attach_plan plan;
	int nr_cpus;
	void *percpu;	/* scratch for one per-CPU value */
};

static bool verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	/* failed attaches are expected while falling back: quiet unless -v */
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* filesystem magic numbers (include/uapi/linux/magic.h) and their path */
static const struct {
	uint64_t magic;
	uint32_t path;
} fs_table[] = {
	{ 0xEF53, PATH_BH },		/* ext2, ext3, ext4 */
	{ 0x4d44, PATH_BH },		/* msdos, vfat */
	{ 0x2011BAB0, PATH_BH },	/* exfat */
	{ 0x4244, PATH_BH },		/* hfs */
	{ 0x482b, PATH_BH },		/* hfsplus */
	{ 0x15013346, PATH_BH },	/* udf */
	{ 0x137F, PATH_BH },		/* minix */
	{ 0x3153464a, PATH_BH },	/* jfs */
	{ 0x58465342, PATH_IOMAP },	/* xfs */
	{ 0x5a4f4653, PATH_IOMAP },	/* zonefs */
	{ 0x01161970, PATH_IOMAP },	/* gfs2 */
};

static int fill_maps(struct collector *c, const struct collector_opts *o)
{
	int fs_fd = bpf_map__fd(c->skel->maps.fs_paths);
	int dev_fd = bpf_map__fd(c->skel->maps.dev_filter);
	uint8_t one = 1;

	for (size_t i = 0; i < sizeof(fs_table) / sizeof(fs_table[0]); i++)
		if (bpf_map_update_elem(fs_fd, &fs_table[i].magic,
					&fs_table[i].path, BPF_ANY))
			return -errno;
	for (uint32_t i = 0; i < o->nr_filter_devs; i++)
		if (bpf_map_update_elem(dev_fd, &o->filter_devs[i], &one,
					BPF_ANY))
			return -errno;
	return 0;
}

static void set_rodata(struct collector *c, const struct collector_opts *o)
{
	struct bhprof_bpf__rodata *r = c->skel->rodata;
	const struct attach_plan *p = &c->plan;
	long page = sysconf(_SC_PAGESIZE);

	r->bdev_path = p->kernel_has_bh ? PATH_BH : PATH_IOMAP;
	r->filter_tgid = o->filter_pid;
	r->filter_dev = o->nr_filter_devs > 0;
	r->bh_cs_lo = p->bh_cs_lo;
	r->bh_cs_hi = p->bh_cs_hi;
	r->iomap_wp_wpc_only = p->iomap_wp_wpc_only;
	r->gpw_takes_file = p->gpw_takes_file;
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

int collector_open(const struct collector_opts *o, struct run_info *info,
		   struct collector **out)
{
	struct btf *btf = NULL;
	struct collector *c;
	int err;

	verbose = o->verbose;
	libbpf_set_print(libbpf_print);
	btf = kernel_btf();
	kernel_facts(info, btf);
	err = check_privileges();
	if (err)
		goto out;
	err = -ENOMEM;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto out;
	c->stats_fd = -1;
	c->nr_cpus = libbpf_num_possible_cpus();
	c->percpu = calloc(c->nr_cpus, sizeof(struct bhp_hist));
	c->skel = bhprof_bpf__open();
	if (!c->percpu || !c->skel) {
		fprintf(stderr, "bhprof: failed to open the BPF object\n");
		err = -ENOMEM;
		goto fail;
	}
	err = attach_plan_make(&c->plan, o->mode, info, btf);
	if (err)
		goto fail;
	set_rodata(c, o);
	attach_plan_autoload(&c->plan, c->skel);
	err = bhprof_bpf__load(c->skel);
	if (err) {
		fprintf(stderr, "bhprof: failed to load the BPF programs: %s%s\n",
			strerror(-err), verbose ? "" : " (-v shows the log)");
		goto fail;
	}
	err = fill_maps(c, o);
	if (err) {
		fprintf(stderr, "bhprof: failed to fill BPF maps: %s\n",
			strerror(-err));
		goto fail;
	}
	err = attach_plan_attach(&c->plan, c->skel, info);
	if (err)
		goto fail;
	/* as bpftop does: the kernel counts only while someone asks */
	c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	*out = c;
	goto out;
fail:
	collector_close(c);
out:
	btf__free(btf);
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

static int read_devs(struct collector *c, struct snapshot *s)
{
	int fd = bpf_map__fd(c->skel->maps.dev_stats);
	struct bhp_dev_key key, next, *prev = NULL;
	const size_t sz = sizeof(struct bhp_dev_stats);
	uint64_t *acc;

	s->nr_devs = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (s->nr_devs >= MAX_SNAP_DEVS)
			break;
		if (bpf_map_lookup_elem(fd, &key, c->percpu))
			continue;
		s->devs[s->nr_devs].dev = key.dev;
		s->devs[s->nr_devs].path = key.path;
		acc = (uint64_t *)&s->devs[s->nr_devs].s;
		memset(acc, 0, sz);
		for (int cpu = 0; cpu < c->nr_cpus; cpu++) {
			const uint64_t *v = (const uint64_t *)(
				(char *)c->percpu + (size_t)cpu * sz);

			for (size_t i = 0; i < sz / sizeof(uint64_t); i++)
				acc[i] += v[i];
		}
		s->nr_devs++;
	}
	return 0;
}

/* Run time and runs of every loaded program, for the cost line. */
static void read_self(struct collector *c, struct snapshot *s)
{
	struct bpf_program *prog;

	s->self_ns = s->self_runs = 0;
	if (c->stats_fd < 0)
		return;
	bpf_object__for_each_program(prog, c->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		s->self_ns += info.run_time_ns;
		s->self_runs += info.run_cnt;
	}
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
	for (uint32_t p = 0; p < NR_PATHS && !err; p++)
		err = read_percpu(c, ps, p, &s->paths[p], sizeof(s->paths[p]));
	if (!err)
		err = read_percpu(c, gs, 0, &s->glob, sizeof(s->glob));
	for (uint32_t h = 0; h < NR_HISTS && !err; h++)
		err = read_percpu(c, hs, h, &s->hists[h], sizeof(s->hists[h]));
	if (!err)
		err = read_devs(c, s);
	read_self(c, s);
	return err;
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
	attach_plan_detach(&c->plan);
	if (c->stats_fd >= 0)
		close(c->stats_fd);
	bhprof_bpf__destroy(c->skel);
	free(c->percpu);
	free(c);
}
