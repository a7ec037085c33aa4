// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kernel.h"

static int config_line(const char *line, const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(line, name, n) && line[n] == '=')
		return line[n + 1] == 'y' || line[n + 1] == 'm';
	if (!strncmp(line, "# ", 2) && !strncmp(line + 2, name, n) &&
	    !strncmp(line + 2 + n, " is not set", 11))
		return 0;
	return -1;
}

int kconfig_value(const char *name)
{
	char path[128], line[512];
	struct utsname u;
	gzFile gz;
	int v = -1;

	gz = gzopen("/proc/config.gz", "r");
	if (!gz) {
		uname(&u);
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		gz = gzopen(path, "r");	/* reads plain files too */
	}
	if (!gz)
		return -1;
	while (v < 0 && gzgets(gz, line, sizeof(line)))
		v = config_line(line, name);
	gzclose(gz);
	return v;
}

struct ksym {
	uint64_t addr;
	char *name;
	char *mod;	/* the module it lives in, NULL for vmlinux */
};

struct ksyms {
	struct ksym *syms;
	size_t nr;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int ksyms_push(struct ksyms *k, size_t *cap, uint64_t addr,
		      const char *name, const char *mod)
{
	struct ksym *n;

	if (k->nr == *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		n = realloc(k->syms, *cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		k->syms = n;
	}
	k->syms[k->nr].addr = addr;
	k->syms[k->nr].name = name ? strdup(name) : NULL;
	k->syms[k->nr].mod = name && mod ? strdup(mod) : NULL;
	k->nr++;
	if (name && (!k->syms[k->nr - 1].name ||
		     (mod && !k->syms[k->nr - 1].mod)))
		return -ENOMEM;
	return 0;
}

/*
 * want: groups of names separated by NULL. Returns the group of a name
 * that is one of them exactly (*exact) or with a compiler's suffix
 * (name.isra.0), else -1.
 */
static int ksym_wanted(const char *name, const char *const *want,
		       size_t nr_want, bool *exact)
{
	int group = 0;

	for (size_t i = 0; i < nr_want; i++) {
		size_t n;

		if (!want[i]) {
			group++;
			continue;
		}
		n = strlen(want[i]);
		if (!strncmp(name, want[i], n) && (!name[n] || name[n] == '.')) {
			*exact = !name[n];
			return group;
		}
	}
	return -1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "name\t[ext4]": cuts name at its end and returns "ext4", or NULL */
static char *ksym_module(char *name)
{
	char *end = name + strcspn(name, " \t\n"), *mod;

	if (end[0] != '\t' || end[1] != '[') {
		*end = 0;
		return NULL;
	}
	*end = 0;
	mod = end + 2;
	end = strchr(mod, ']');
	if (!end)
		return NULL;
	*end = 0;
	return mod;
}

/*
 * Every text symbol's address, but the names of the wanted ones only:
 * /proc/kallsyms has over 100,000 lines, and sscanf() and a strdup()
 * for each took longer than the kernel takes to print them. The kernel
 * prints them in address order, and printing is most of the cost: once
 * every group has a name found exactly, and a symbol past the last of
 * them bounds its body, the rest is not read.
 */
struct ksyms *ksyms_load_file(const char *path, const char *const *want,
			     size_t nr_want)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	uint64_t addr, last_found = 0, found = 0, all = 0;
	char line[512], *p, *name, *mod;
	size_t cap = 0;
	bool exact;
	FILE *f;
	int d, g;

	if (!k)
		return NULL;
	for (size_t i = 0, n = 0; i <= nr_want; i++)
		if (i == nr_want || !want[i])
			all |= 1ULL << n++;
	f = fopen(path, "r");
	if (!f)
		return k;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	while (fgets(line, sizeof(line), f)) {
		addr = 0;
		for (p = line; (d = hexval(*p)) >= 0; p++)
			addr = addr << 4 | d;
		/* "ADDR T name[\t[module]]": text symbols only, they bound
		 * alloc_buffer_head's body */
		if (p[0] != ' ' || (p[1] != 't' && p[1] != 'T') || p[2] != ' ')
			continue;
		name = p + 3;
		mod = ksym_module(name);
		g = ksym_wanted(name, want, nr_want, &exact);
		if (g >= 0 && exact) {
			found |= 1ULL << g;
			if (addr > last_found)
				last_found = addr;
		}
		if (ksyms_push(k, &cap, addr, g >= 0 ? name : NULL, mod))
			break;
		/* kptr_restrict shows every address as 0: no bound to wait for */
		if (found == all && (addr > last_found || !addr))
			break;
	}
	fclose(f);
	qsort(k->syms, k->nr, sizeof(*k->syms), ksym_cmp);
	return k;
}

struct ksyms *ksyms_load(const char *const *want, size_t nr_want)
{
	return ksyms_load_file("/proc/kallsyms", want, nr_want);
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->nr; i++) {
		free(k->syms[i].name);
		free(k->syms[i].mod);
	}
	free(k->syms);
	free(k);
}

uint64_t ksyms_addr(const struct ksyms *k, const char *name, uint64_t *next)
{
	for (size_t i = 0; k && i < k->nr; i++) {
		if (!k->syms[i].name || strcmp(k->syms[i].name, name))
			continue;
		/* kptr_restrict shows every address as zero */
		if (!k->syms[i].addr)
			return 0;
		if (next) {
			size_t j = i + 1;

			while (j < k->nr && k->syms[j].addr == k->syms[i].addr)
				j++;
			*next = j < k->nr ? k->syms[j].addr : 0;
		}
		return k->syms[i].addr;
	}
	return 0;
}

static const struct ksym *ksyms_find(const struct ksyms *k, const char *name)
{
	size_t n = strlen(name);
	const struct ksym *alt = NULL;

	for (size_t i = 0; k && i < k->nr; i++) {
		const char *s = k->syms[i].name;

		if (!s || strncmp(s, name, n))
			continue;
		if (!s[n])
			return &k->syms[i];
		/* foo.cold is a fragment, not an entry point */
		if (s[n] == '.' && strncmp(s + n, ".cold", 5) && !alt)
			alt = &k->syms[i];
	}
	return alt;
}

const char *ksyms_func(const struct ksyms *k, const char *name)
{
	const struct ksym *s = ksyms_find(k, name);

	return s ? s->name : NULL;
}

const char *ksyms_module_of(const struct ksyms *k, const char *name)
{
	const struct ksym *s = ksyms_find(k, name);

	return s ? s->mod : NULL;
}

int btf_func_id(const struct btf *btf, const char *name)
{
	if (!btf)
		return -1;
	return btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
}

bool btf_has_func(const struct btf *btf, const char *name)
{
	return btf_func_id(btf, name) > 0;
}

static const struct btf_type *func_proto(const struct btf *btf,
					 const char *name)
{
	int id = btf_func_id(btf, name);
	const struct btf_type *t;

	if (id <= 0)
		return NULL;
	t = btf__type_by_id(btf, id);
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	return t && btf_is_func_proto(t) ? t : NULL;
}

bool btf_func_param0_is(const struct btf *btf, const char *func,
			const char *struct_name)
{
	const struct btf_type *t = func_proto(btf, func);
	const char *n;

	if (!t || btf_vlen(t) < 1)
		return false;
	t = btf__type_by_id(btf, btf_params(t)[0].type);
	while (t && (btf_is_mod(t) || btf_is_typedef(t) || btf_is_ptr(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_struct(t))
		return false;
	n = btf__name_by_offset(btf, t->name_off);
	return n && !strcmp(n, struct_name);
}

bool btf_module_has_btf(const char *mod)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", mod);
	return access(path, F_OK) == 0;
}

bool btf_has_tracepoint(const struct btf *btf, const char *event)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", event);
	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) > 0;
}

uint32_t btf_func_nargs(const struct btf *btf, const char *name)
{
	const struct btf_type *t;
	int id = btf && name && name[0] ? btf_func_id(btf, name) : -1;

	if (id <= 0)
		return 0;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	return t && btf_is_func_proto(t) ? btf_vlen(t) : 0;
}

bool btf_has_enum_value(const struct btf *btf, const char *enum_name,
			const char *name)
{
	const struct btf_type *t;
	const struct btf_enum *e;
	int id = btf ? btf__find_by_name_kind(btf, enum_name, BTF_KIND_ENUM) :
		       -1;

	if (id <= 0)
		return false;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
			return true;
	return false;
}

/* a BTF-typed tracepoint's prototype (btf_trace_EVENT is a pointer to
 * it), whose first parameter is the program's context; NULL if none */
static const struct btf_type *tp_proto(const struct btf *btf,
				       const char *event)
{
	const struct btf_type *t;
	char name[128];
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", event);
	id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) : -1;
	if (id <= 0)
		return NULL;
	t = btf__type_by_id(btf, btf__resolve_type(btf, id));
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

int btf_tp_nargs(const struct btf *btf, const char *event)
{
	const struct btf_type *t = tp_proto(btf, event);

	return t ? btf_vlen(t) - 1 : -1;
}

bool btf_tp_arg0_is(const struct btf *btf, const char *event,
		    const char *struct_name)
{
	const struct btf_type *t = tp_proto(btf, event);
	const struct btf_param *a;

	if (!t || btf_vlen(t) < 2)
		return false;
	a = btf_params(t) + 1;	/* after the program's context */
	t = btf__type_by_id(btf, btf__resolve_type(btf, a->type));
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, btf__resolve_type(btf, t->type));
	return t && btf_is_composite(t) &&
	       !strcmp(btf__name_by_offset(btf, t->name_off), struct_name);
}

int tracefs_ensure(void)
{
	struct stat st;

	if (!stat("/sys/kernel/tracing/events", &st) ||
	    !stat("/sys/kernel/debug/tracing/events", &st))
		return 0;
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL))
		return -errno;
	return 0;
}

/* Size of struct name in the kernel's BTF, or -1. */
long btf_struct_size(const struct btf *btf, const char *name)
{
	int id;

	if (!btf)
		return -1;
	id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	return id > 0 ? btf__resolve_size(btf, id) : -1;
}

/*
 * 7.2 keeps in a tail page's compound_info either its head's address or,
 * with HugeTLB vmemmap optimisation and a power-of-two struct page, a
 * mask (include/linux/page-flags.h, compound_info_has_mask()). Without a
 * readable config, struct vmemmap_remap_walk, private to
 * mm/hugetlb_vmemmap.c, is in BTF exactly when that file was built.
 */
bool kernel_head_is_mask(const struct btf *btf)
{
	long size = btf_struct_size(btf, "page");
	int hvo = kconfig_value("CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP");

	if (hvo < 0)
		hvo = btf_struct_size(btf, "vmemmap_remap_walk") > 0;
	return hvo && size > 0 && !(size & (size - 1));
}

/*
 * A module's BTF is split BTF on top of vmlinux's, in
 * /sys/kernel/btf/MODULE while the module is loaded. Each is parsed the
 * first time a function or tracepoint of its module is asked for: a
 * distribution kernel has a hundred modules loaded, and bhprof's probes
 * live in a few.
 */
/*
 * A socket filter that swaps a stack slot with cmpxchg: BPF_ATOMIC with
 * BPF_FETCH, which 5.10's verifier refuses ("BPF_STX uses reserved
 * fields": only the plain BPF_XADD was known). A kernel that cannot
 * load it gets the flavour of bhprof's programs without them.
 */
bool kernel_bpf_atomics(void)
{
	const struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 1 },
		{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = 10,
		  .src_reg = 1, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 2, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = 10,
		  .src_reg = 2, .off = -8, .imm = BPF_CMPXCHG },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "bhp_atomics",
			       "GPL", prog, sizeof(prog) / sizeof(prog[0]),
			       NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

struct kbtf *kbtf_new(struct btf *vmlinux)
{
	struct kbtf *k = calloc(1, sizeof(*k));

	if (k)
		k->vmlinux = vmlinux;
	return k;
}

void kbtf_free(struct kbtf *k)
{
	if (!k)
		return;
	for (int i = 0; i < k->nr; i++)
		btf__free(k->mods[i].btf);
	btf__free(k->vmlinux);
	free(k);
}

const struct btf *kbtf_module(struct kbtf *k, const char *mod)
{
	struct btf *b;
	int i;

	if (!k || !k->vmlinux)
		return NULL;
	if (!mod || !mod[0])
		return k->vmlinux;
	for (i = 0; i < k->nr; i++)
		if (!strcmp(k->mods[i].name, mod))
			return k->mods[i].btf;
	if (k->nr == KBTF_MAX_MODS)
		return NULL;
	b = btf__load_module_btf(mod, k->vmlinux);
	if (libbpf_get_error(b))
		b = NULL;
	/* a miss is kept too: the module has no BTF, ask once */
	snprintf(k->mods[i].name, sizeof(k->mods[i].name), "%s", mod);
	k->mods[i].btf = b;
	k->nr++;
	return b;
}

int btf_module_fd(const char *mod)
{
	char name[64];
	__u32 id = 0;
	int fd;

	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info = {};
		__u32 len = sizeof(info);

		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    info.kernel_btf && !strcmp(name, mod))
			return fd;
		close(fd);
	}
	return -ENOENT;
}
