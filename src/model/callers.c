// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --callers: chains from stack ids, owners from devices. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "callers.h"
#include "util/array.h"

struct sym {
	uint64_t addr;
	char *name;
	bool mod;	/* a module's or BPF's ([name] after it) */
};

static struct sym *syms;
static size_t nr_syms;
/* the end of the kernel's own text: a core symbol names nothing past it
 * (a BPF trampoline kallsyms does not list, say) */
static uint64_t etext;

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int sym_push(size_t *cap, uint64_t addr, const char *name, bool mod)
{
	struct sym *n;

	if (nr_syms == *cap) {
		*cap = *cap ? *cap * 2 : 1 << 16;
		n = realloc(syms, *cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		syms = n;
	}
	syms[nr_syms].addr = addr;
	syms[nr_syms].mod = mod;
	syms[nr_syms].name = strdup(name);
	if (!syms[nr_syms].name)
		return -ENOMEM;
	nr_syms++;
	return 0;
}

int callers_syms_load(void)
{
	char line[512], type, name[256], mod[64];
	unsigned long long addr;
	int n;
	size_t cap = 0;
	int err = 0;
	FILE *f;

	if (syms)
		return 0;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -errno;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	while (!err && fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%llx %c %255s %63s", &addr, &type, name, mod);
		if (n < 3)
			continue;
		if (n == 3 && !strcmp(name, "_etext"))
			etext = addr;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		/* a module's or BPF's: marked, for sym_name() */
		err = sym_push(&cap, addr, name, n > 3);
	}
	fclose(f);
	if (err)
		return err;
	qsort(syms, nr_syms, sizeof(*syms), sym_cmp);
	/* kptr_restrict: every address reads 0, nothing can be named */
	if (nr_syms && !syms[nr_syms - 1].addr)
		return -EPERM;
	return 0;
}

uint64_t callers_sym_range(const char *name, uint64_t *end)
{
	for (size_t i = 0; i < nr_syms; i++) {
		if (strcmp(syms[i].name, name))
			continue;
		*end = i + 1 < nr_syms ? syms[i + 1].addr : 0;
		return *end ? syms[i].addr : 0;
	}
	*end = 0;
	return 0;
}

void callers_syms_free(void)
{
	for (size_t i = 0; i < nr_syms; i++)
		free(syms[i].name);
	free(syms);
	syms = NULL;
	nr_syms = 0;
}

static const char *sym_name(uint64_t ip)
{
	size_t lo = 0, hi = nr_syms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* past the last symbol, or the kernel's text: no function bhprof
	 * knows of (a BPF trampoline, a module loaded since) */
	if (!lo || lo == nr_syms)
		return NULL;
	if (!syms[lo - 1].mod && etext && ip >= etext)
		return NULL;
	return syms[lo - 1].name;
}

/*
 * The frames above alloc_buffer_head are bhprof's own (its program, the
 * trampoline or kprobe, the slab tracepoint): the chain starts at it, at
 * its last sight, since a kernel built with the guess unwinder (the
 * QEMU test kernels) also reports stale return addresses near the leaf.
 */
static unsigned int chain_start(const uint64_t *ips, unsigned int n)
{
	unsigned int at = 0;

	for (unsigned int i = 0; i < n; i++) {
		const char *s = sym_name(ips[i]);

		if (s && !strcmp(s, "alloc_buffer_head"))
			at = i;
	}
	return at;
}

/*
 * Chains are interned by their text: the same chain has the same id in
 * every run bhprof reads, live or recorded, so runs compare by id.
 */
static char **chains;
static uint32_t nr_chains, cap_chains;

uint32_t callers_nr_chains(void)
{
	return nr_chains;
}

uint32_t callers_chain_intern(const char *text)
{
	char **n;

	for (uint32_t i = 0; i < nr_chains; i++)
		if (!strcmp(chains[i], text))
			return i;
	if (nr_chains == cap_chains) {
		cap_chains = cap_chains ? cap_chains * 2 : 256;
		n = realloc(chains, cap_chains * sizeof(*n));
		if (!n)
			return BHP_STACK_LOST;
		chains = n;
	}
	chains[nr_chains] = strdup(text);
	if (!chains[nr_chains])
		return BHP_STACK_LOST;
	return nr_chains++;
}

/* BPF's own text: programs, trampolines, dispatchers (bhprof's) */
static bool is_bpf_frame(const char *name)
{
	return !strncmp(name, "bpf_prog_", 9) ||
	       !strncmp(name, "bpf_trampoline_", 15) ||
	       !strncmp(name, "bpf_dispatcher_", 15);
}

/*
 * Frames that say nothing: a function twice in a row (the guess unwinder
 * reports stale return addresses), and f;X;f, the trampoline X of an
 * fexit program on f (bhprof's own, on the write and owner functions),
 * which no symbol names rightly.
 */
static unsigned int frames_clean(const char **names, unsigned int n)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (k && !strcmp(names[k - 1], names[i]))
			continue;
		if (k && i + 1 < n && !strcmp(names[k - 1], names[i + 1])) {
			i++;
			continue;
		}
		names[k++] = names[i];
	}
	return k;
}

uint32_t callers_chain_from_ips(const uint64_t *ips, unsigned int n)
{
	const char *names[BHP_STACK_DEPTH];
	unsigned int from, k = 0, len = 0;
	size_t cap = 1;
	uint32_t id;
	char *buf;

	if (n > BHP_STACK_DEPTH)
		n = BHP_STACK_DEPTH;
	while (n && !ips[n - 1])
		n--;
	from = chain_start(ips, n);
	/* root first, as folded stacks have them; a frame no symbol names
	 * says nothing to a reader and is left out */
	for (unsigned int i = n; i-- > from;) {
		names[k] = sym_name(ips[i]);
		if (names[k] && !is_bpf_frame(names[k]))
			k++;
	}
	k = frames_clean(names, k);
	for (unsigned int i = 0; i < k; i++)
		cap += strlen(names[i]) + 1;
	buf = malloc(cap);
	if (!buf)
		return BHP_STACK_LOST;
	buf[0] = 0;
	for (unsigned int i = 0; i < k; i++)
		len += snprintf(buf + len, cap - len, "%s%s", len ? ";" : "",
				names[i]);
	id = callers_chain_intern(buf);
	free(buf);
	return id;
}

const char *callers_chain(uint32_t id)
{
	if (id == BHP_STACK_LOST)
		return "[lost]";
	if (id >= nr_chains)
		return "[unknown]";
	return chains[id];
}

/* The buffer layer's own functions, between alloc_buffer_head and the
 * code that wanted buffers: a chain is named after the first other. */
static const char *const helpers[] = {
	"alloc_buffer_head",
	"folio_alloc_buffers",
	"alloc_page_buffers",
	"create_empty_buffers",
	"folio_create_empty_buffers",
	"create_page_buffers",
	"folio_create_buffers",
	"grow_dev_folio",
	"grow_dev_page",
	"grow_buffers",
	"__getblk_slow",
	"bdev_getblk",
	"__getblk_gfp",
	"__getblk",
	"sb_getblk",
	"__bread_gfp",
	"__breadahead",
	"sb_bread",
	"__block_write_begin_int",
	"__block_write_begin",
	"block_write_begin",
	"cont_write_begin",
	"block_page_mkwrite",
	"block_read_full_folio",
	"block_read_full_page",
	"__block_write_full_folio",
	"__block_write_full_page",
	"block_write_full_folio",
	"block_write_full_page",
	"block_truncate_page",
	"block_dirty_folio",
	"blkdev_write_begin",
	"blkdev_read_folio",
	"blkdev_writepage",
	"generic_perform_write",
	"filemap_read",
	"filemap_get_pages",
	"filemap_update_page",
	"filemap_read_folio",
	"do_read_cache_folio",
	"read_cache_folio",
	"do_read_cache_page",
	"read_cache_page",
	"read_pages",
	"page_cache_ra_unbounded",
	"page_cache_ra_order",
	"ondemand_readahead",
	"page_cache_sync_ra",
	"page_cache_async_ra",
	"mpage_readahead",
	"mpage_read_folio",
	"do_mpage_readpage",
	"write_cache_pages",
	"do_writepages",
};

static bool is_helper(const char *s, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(helpers); i++)
		if (strlen(helpers[i]) == n && !strncmp(helpers[i], s, n))
			return true;
	/* a compiler's copy: name.isra.0, name.constprop.0 */
	for (size_t i = 0; i < ARRAY_SIZE(helpers); i++) {
		size_t h = strlen(helpers[i]);

		if (h < n && s[h] == '.' && !strncmp(helpers[i], s, h))
			return true;
	}
	return false;
}

const char *callers_chain_name(const char *chain, char *buf, size_t len)
{
	const char *p = chain + strlen(chain), *start;

	/* from the leaf (the end) toward the root */
	while (p > chain) {
		start = p;
		while (start > chain && start[-1] != ';')
			start--;
		if (!is_helper(start, p - start)) {
			snprintf(buf, len, "%.*s", (int)(p - start), start);
			return buf;
		}
		p = start > chain ? start - 1 : chain;
	}
	/* helpers all the way: the root */
	snprintf(buf, len, "%.*s", (int)strcspn(chain, ";"), chain);
	return buf;
}

/* ---- owners ---- */

#define MAX_MOUNTS 256

static struct {
	uint32_t dev;
	char fs[32];
} mounts[MAX_MOUNTS];
static unsigned int nr_mounts;

static const char *mount_fs(uint32_t dev)
{
	for (unsigned int i = 0; i < nr_mounts; i++)
		if (mounts[i].dev == dev)
			return mounts[i].fs;
	return NULL;
}

void callers_mount_add(uint32_t dev, const char *fs)
{
	if (!dev || nr_mounts >= MAX_MOUNTS || mount_fs(dev))
		return;
	mounts[nr_mounts].dev = dev;
	snprintf(mounts[nr_mounts].fs, sizeof(mounts[0].fs), "%s", fs);
	nr_mounts++;
}

unsigned int callers_nr_mounts(void)
{
	return nr_mounts;
}

const char *callers_mount(unsigned int i, uint32_t *dev)
{
	*dev = mounts[i].dev;
	return mounts[i].fs;
}

/* "36 25 8:1 / /mnt rw,relatime shared:1 - ext4 /dev/sda1 rw" */
void callers_mounts_scan(void)
{
	char line[4096], fs[32];
	unsigned int ma, mi;
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char *sep;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*u %*u %u:%u", &ma, &mi) != 2 ||
		    sscanf(sep + 3, "%31s", fs) != 1)
			continue;
		/* major 0: no block device (tmpfs, proc, ...) */
		if (ma)
			callers_mount_add(KDEV_MKDEV(ma, mi), fs);
	}
	fclose(f);
}

static bool chain_has_jbd2(const char *chain)
{
	const char *p = chain;

	while ((p = strstr(p, "jbd2_"))) {
		if (p == chain || p[-1] == ';')
			return true;
		p++;
	}
	return false;
}

void callers_owner_of(const struct bhp_caller_key *k, struct callers_owner *o)
{
	const char *fs = k->dev ? mount_fs(k->dev) : NULL;
	bool journal = chain_has_jbd2(callers_chain(k->stack));

	o->dev = k->dev;
	switch (k->kind) {
	case OWNER_FILE:
		snprintf(o->fs, sizeof(o->fs), "%s", fs ? fs : "?");
		o->role = ROLE_DATA;
		break;
	case OWNER_BDEV:
		/* a device's page cache: a mounted filesystem's metadata,
		 * or the device's own data */
		snprintf(o->fs, sizeof(o->fs), "%s", fs ? fs : "bdev");
		o->role = fs ? ROLE_METADATA : ROLE_DATA;
		break;
	default:
		snprintf(o->fs, sizeof(o->fs), "?");
		o->role = ROLE_UNKNOWN;
	}
	if (journal)
		o->role = ROLE_JOURNAL;
}

const char *callers_role_name(enum callers_role r)
{
	static const char *const names[] = { "data", "metadata", "journal",
					     "?" };

	return r <= ROLE_UNKNOWN ? names[r] : "?";
}

const char *callers_where_name(uint32_t where)
{
	static const char *const names[NR_WHERE] = {
		[WHERE_NONE] = "outside",
		[WHERE_WRITE] = "write",
		[WHERE_READ] = "read",
		[WHERE_MKWRITE] = "mkwrite",
	};

	return where < NR_WHERE ? names[where] : "?";
}
