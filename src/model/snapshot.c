// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "snapshot.h"
#include "fsrows.h"

static const char *const probe_names[NR_PROBES] = {
	[PROBE_WRITE_BLKDEV] = "write_blkdev",
	[PROBE_WRITE_IOMAP] = "write_iomap",
	[PROBE_WRITE_GENERIC] = "write_generic",
	[PROBE_WB_BH] = "writeback_bh",
	[PROBE_WB_IOMAP] = "writeback_iomap",
	[PROBE_WB_CTX] = "writeback_ctx",
	[PROBE_BH_ALLOC] = "bh_alloc",
	[PROBE_BIO] = "bio",
	[PROBE_READ_BH_FOLIO] = "read_bh_folio",
	[PROBE_READ_BH_RA] = "read_bh_ra",
	[PROBE_READ_EXT4_FOLIO] = "read_ext4_folio",
	[PROBE_READ_EXT4_RA] = "read_ext4_ra",
	[PROBE_READ_IOMAP_FOLIO] = "read_iomap_folio",
	[PROBE_READ_IOMAP_RA] = "read_iomap_ra",
	[PROBE_READ_BLKDEV] = "read_blkdev",
	[PROBE_MKWRITE_BH] = "mkwrite_bh",
	[PROBE_MKWRITE_EXT4] = "mkwrite_ext4",
	[PROBE_MKWRITE_IOMAP] = "mkwrite_iomap",
	[PROBE_DIO_FALLBACK] = "dio_fallback",
	[PROBE_PASS_INODE] = "pass_inode",
	[PROBE_PASS_EXT4] = "pass_ext4",
	[PROBE_WB_MPAGE] = "writeback_mpage",
	[PROBE_WB_EXT4] = "writeback_ext4",
};

static const char *const mode_names[] = {
	[MODE_NONE] = "none",
	[MODE_FENTRY] = "fentry",
	[MODE_KPROBE] = "kprobe",
	[MODE_TRACEPOINT] = "tracepoint",
	[MODE_AUTO] = "auto",
};

static const enum bhp_group groups[NR_PROBES] = {
	[PROBE_WRITE_BLKDEV] = BHP_GROUP_WRITE,
	[PROBE_WRITE_IOMAP] = BHP_GROUP_WRITE,
	[PROBE_WRITE_GENERIC] = BHP_GROUP_WRITE,
	[PROBE_WB_BH] = BHP_GROUP_WB,
	[PROBE_WB_IOMAP] = BHP_GROUP_WB,
	[PROBE_WB_CTX] = BHP_GROUP_WB,
	[PROBE_BH_ALLOC] = BHP_GROUP_BH,
	[PROBE_BIO] = BHP_GROUP_BIO,
	[PROBE_READ_BH_FOLIO] = BHP_GROUP_READ,
	[PROBE_READ_BH_RA] = BHP_GROUP_READ,
	[PROBE_READ_EXT4_FOLIO] = BHP_GROUP_READ,
	[PROBE_READ_EXT4_RA] = BHP_GROUP_READ,
	[PROBE_READ_IOMAP_FOLIO] = BHP_GROUP_READ,
	[PROBE_READ_IOMAP_RA] = BHP_GROUP_READ,
	[PROBE_READ_BLKDEV] = BHP_GROUP_READ,
	[PROBE_MKWRITE_BH] = BHP_GROUP_MKWRITE,
	[PROBE_MKWRITE_EXT4] = BHP_GROUP_MKWRITE,
	[PROBE_MKWRITE_IOMAP] = BHP_GROUP_MKWRITE,
	[PROBE_DIO_FALLBACK] = BHP_GROUP_WRITE,
	[PROBE_PASS_INODE] = BHP_GROUP_PASS,
	[PROBE_PASS_EXT4] = BHP_GROUP_PASS,
	[PROBE_WB_MPAGE] = BHP_GROUP_WB,
	[PROBE_WB_EXT4] = BHP_GROUP_WB,
};

static const char *const group_names[BHP_NR_GROUPS] = {
	[BHP_GROUP_WRITE] = "write",
	[BHP_GROUP_WB] = "writeback",
	[BHP_GROUP_BH] = "bh_alloc",
	[BHP_GROUP_BIO] = "bio",
	[BHP_GROUP_READ] = "read",
	[BHP_GROUP_MKWRITE] = "mkwrite",
	[BHP_GROUP_CALLERS] = "callers",
	[BHP_GROUP_PASS] = "pass",
};

const char *probe_name(enum probe_id id)
{
	return id < NR_PROBES ? probe_names[id] : "?";
}

enum bhp_group probe_group_of(enum probe_id id)
{
	return groups[id];
}

const char *group_name(enum bhp_group g)
{
	return g < BHP_NR_GROUPS ? group_names[g] : "?";
}

const char *probe_state_text(const struct probe_state *ps)
{
	if (ps->absent)
		return "absent";
	return ps->failed ? "failed" : mode_name(ps->mode);
}

const char *probe_func_text(const struct probe_state *ps, char *buf,
			    size_t len)
{
	if (!ps->module[0])
		return ps->func;
	snprintf(buf, len, "%s [%s]", ps->func, ps->module);
	return buf;
}

static bool group_failed(const struct run_info *info, enum bhp_group g)
{
	for (int id = 0; id < NR_PROBES; id++)
		if (groups[id] == g && info->probes[id].failed)
			return true;
	return false;
}

/* Writeback calls, and the engines under them, are invisible to
 * tracepoints: do_writepages() and the engines have none. A kernel
 * without block_write_full_folio has no bh path: its zero is real. */
static const char *wb_calls_why(const struct run_info *info,
				unsigned int path)
{
	enum attach_mode m = info->probes[PROBE_WB_CTX].mode;

	if (path == PATH_BH && info->probes[PROBE_WB_BH].absent)
		return NULL;
	if (!(info->features & RUN_F_WB_MAPPING))
		return "unrecorded";
	return m == MODE_FENTRY || m == MODE_KPROBE ? NULL : "n/a";
}

/* The flavour a group ran in: that of any probe of it the kernel has. */
static enum attach_mode group_mode(const struct run_info *info,
				   enum bhp_group g)
{
	for (int id = 0; id < NR_PROBES; id++)
		if (groups[id] == g && !info->probes[id].absent)
			return info->probes[id].mode;
	return MODE_NONE;
}

static bool functions_seen(const struct run_info *info, enum bhp_group g)
{
	enum attach_mode m = group_mode(info, g);

	return m == MODE_FENTRY || m == MODE_KPROBE;
}

/* the groups a figure rests on */
static unsigned int figure_groups(enum figure f)
{
	switch (f) {
	case FIG_WRITE:
	case FIG_DWF:
		return 1u << BHP_GROUP_WRITE;
	case FIG_WB_CALLS:
	case FIG_WB_PAGES:
	case FIG_WB_ENGINES:
		return 1u << BHP_GROUP_WB;
	case FIG_PATH_BIOS:
		/* a bio or a buffer_head takes its path from the write or
		 * writeback context of the thread that makes it */
		return 1u << BHP_GROUP_BIO | 1u << BHP_GROUP_WB |
		       1u << BHP_GROUP_WRITE;
	case FIG_BIOS:
	case FIG_READ_DEV:
		return 1u << BHP_GROUP_BIO;
	case FIG_BH:
		return 1u << BHP_GROUP_BH | 1u << BHP_GROUP_WB |
		       1u << BHP_GROUP_WRITE;
	case FIG_BH_TOTAL:
		return 1u << BHP_GROUP_BH;
	case FIG_READ:
	case FIG_READ_LAT:
	case FIG_READ_PAGES:
		return 1u << BHP_GROUP_READ;
	case FIG_READ_BIOS:
		return 1u << BHP_GROUP_BIO | 1u << BHP_GROUP_READ;
	case FIG_READ_BH:
		return 1u << BHP_GROUP_BH | 1u << BHP_GROUP_READ;
	case FIG_MKWRITE:
		return 1u << BHP_GROUP_MKWRITE;
	case FIG_PASSES:
		return 1u << BHP_GROUP_PASS;
	case FIG_CALLERS:
	case FIG_OWNERS:
		return 1u << BHP_GROUP_BH;
	}
	return 0;
}

static bool figure_is_read(enum figure f)
{
	return f >= FIG_READ && f <= FIG_DWF;
}

/* In tracepoint mode, iomap's own events count its read calls; no
 * event of the bh path's read functions stands in for them. */
static bool read_calls_seen(const struct run_info *info, unsigned int path)
{
	if (functions_seen(info, BHP_GROUP_READ))
		return true;
	return path == PATH_IOMAP && (info->features & RUN_F_TP_READ_CALLS);
}

static const char *passes_why(const struct run_info *info)
{
	if (!(info->features & RUN_F_PASSES))
		return "unrecorded";
	if (group_failed(info, BHP_GROUP_PASS))
		return "failed";
	return info->probes[PROBE_PASS_INODE].absent ? "absent" : NULL;
}

/* a kernel without buffer_heads has none alive, none owned: a real 0 */
static const char *callers_why(const struct run_info *info, enum figure f)
{
	if (!(info->features & RUN_F_CALLERS))
		return "unrecorded";
	if (info->buffer_head == 0)
		return NULL;
	if (group_failed(info, BHP_GROUP_BH))
		return "failed";
	if (info->callers_mode == MODE_TRACEPOINT)
		return f == FIG_OWNERS ? "n/a" : NULL;
	return info->callers_mode == MODE_NONE ? "failed" : NULL;
}

/*
 * Tracepoint mode counts ext4's pages from ext4's own event (a raw_tp
 * program where ext4 is a module without BTF, before 5.11): with ext4
 * there and its events not found, the bh path's pages would leave
 * ext4's out, so the figure is unknown.
 */
static bool ext4_pages_unseen(const struct run_info *info, unsigned int path)
{
	return path == PATH_BH &&
	       info->probes[PROBE_WB_CTX].mode == MODE_TRACEPOINT &&
	       info->probes[PROBE_PASS_EXT4].absent &&
	       !info->probes[PROBE_WB_EXT4].absent;
}

const char *figure_why(const struct run_info *info, unsigned int path,
		       enum figure f)
{
	unsigned int gs = figure_groups(f);

	if (figure_is_read(f) && !(info->features & RUN_F_READS))
		return "unrecorded";
	if (f >= FIG_CALLERS)
		return callers_why(info, f);
	if (f == FIG_PASSES)
		return passes_why(info);
	for (int g = 0; g < BHP_NR_GROUPS; g++)
		if ((gs & 1u << g) && group_failed(info, g))
			return "failed";
	switch (f) {
	case FIG_WB_CALLS:
	case FIG_WB_ENGINES:
		return wb_calls_why(info, path);
	case FIG_WB_PAGES:
		return ext4_pages_unseen(info, path) ? "n/a" : NULL;
	case FIG_READ:
		return read_calls_seen(info, path) ? NULL : "n/a";
	case FIG_READ_LAT:
		return functions_seen(info, BHP_GROUP_READ) ? NULL : "n/a";
	case FIG_MKWRITE:
		return functions_seen(info, BHP_GROUP_MKWRITE) ? NULL : "n/a";
	case FIG_DWF:
		if (info->probes[PROBE_DIO_FALLBACK].absent)
			return "absent";
		return functions_seen(info, BHP_GROUP_WRITE) ? NULL : "n/a";
	default:
		return NULL;
	}
}

const char *other_why(const struct run_info *info, enum other_part part)
{
	if (!(info->features & RUN_F_OTHER))
		return "unrecorded";
	switch (part) {
	case OTHER_WRITE:
		return figure_why(info, PATH_IOMAP, FIG_WRITE) ?:
		       (info->other_mode == MODE_NONE ? "n/a" : NULL);
	case OTHER_WB:
		/* do_writepages() alone sees a mapping of neither path */
		return figure_why(info, PATH_IOMAP, FIG_WB_CALLS);
	default:
		return figure_why(info, PATH_IOMAP, FIG_PATH_BIOS);
	}
}

const char *fs_why(const struct run_info *info, unsigned int path,
		   enum figure f)
{
	if (!(info->features & RUN_F_FS))
		return "unrecorded";
	if (path < NR_PATHS)
		return figure_why(info, path, f);
	switch (f) {
	case FIG_WRITE:
		return other_why(info, OTHER_WRITE);
	case FIG_WB_CALLS:
	case FIG_WB_PAGES:
		return other_why(info, OTHER_WB);
	case FIG_BH:
		return figure_why(info, PATH_BH, FIG_BH);
	default:
		return other_why(info, OTHER_BIOS);
	}
}

bool figure_known(const struct run_info *info, unsigned int path,
		  enum figure f)
{
	return !figure_why(info, path, f);
}

const char *lost_groups_text(const struct run_info *info, char *buf,
			     size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int g = 0; g < BHP_NR_GROUPS && n < len; g++)
		if (group_failed(info, g))
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
				      group_names[g]);
	return buf;
}

const char *mode_name(enum attach_mode m)
{
	return m <= MODE_AUTO ? mode_names[m] : "?";
}

int mode_parse(const char *s, enum attach_mode *m)
{
	for (unsigned int i = MODE_FENTRY; i <= MODE_AUTO; i++) {
		if (!strcmp(s, mode_names[i])) {
			*m = i;
			return 0;
		}
	}
	return -1;
}

const char *path_name(unsigned int path)
{
	switch (path) {
	case PATH_BH:
		return "bh";
	case PATH_IOMAP:
		return "iomap";
	default:
		return "other";
	}
}

#define NR_U64(x) (sizeof(x) / (sizeof(uint64_t)))

static void u64_sub(uint64_t *out, const uint64_t *a, const uint64_t *b,
		    size_t n)
{
	/* counters only grow; a reset collector would show as a wrap */
	for (size_t i = 0; i < n; i++)
		out[i] = b[i] >= a[i] ? b[i] - a[i] : 0;
}

static const struct dev_row *dev_find(const struct snapshot *s, uint32_t dev,
				      uint32_t path)
{
	for (uint32_t i = 0; i < s->nr_devs; i++)
		if (s->devs[i].dev == dev && s->devs[i].path == path)
			return &s->devs[i];
	return NULL;
}

int caller_key_cmp(const struct bhp_caller_key *a,
		   const struct bhp_caller_key *b)
{
	return memcmp(a, b, sizeof(*a));
}

int caller_row_cmp(const void *a, const void *b)
{
	const struct caller_row *x = a, *y = b;

	return caller_key_cmp(&x->k, &y->k);
}

/* rows of b less those of a, both sorted; rows that did not move go */
static void callers_delta(const struct snapshot *a, const struct snapshot *b,
			  struct snapshot *out)
{
	uint32_t i = 0, n = 0;

	for (uint32_t j = 0; j < b->nr_callers; j++) {
		const struct caller_row *r = &b->callers[j];
		uint64_t base = 0;
		int c = 1;

		while (i < a->nr_callers &&
		       (c = caller_key_cmp(&a->callers[i].k, &r->k)) < 0)
			i++;
		if (i < a->nr_callers && !c)
			base = a->callers[i].n;
		if (r->n == base)
			continue;
		out->callers[n] = *r;
		out->callers[n++].n = r->n - base;
	}
	out->nr_callers = n;
	out->bh_net_peak = b->bh_net_peak;
}

struct self_prog *self_prog_row(struct self_prog *rows, uint32_t *n,
				uint32_t max, const char *name)
{
	for (uint32_t i = 0; i < *n; i++)
		if (!strncmp(rows[i].name, name, sizeof(rows[i].name) - 1))
			return &rows[i];
	if (*n >= max)
		return NULL;
	memset(&rows[*n], 0, sizeof(rows[0]));
	snprintf(rows[*n].name, sizeof(rows[0].name), "%s", name);
	return &rows[(*n)++];
}

void self_progs_add(struct self_prog *rows, uint32_t *n,
		    const struct self_prog *add, uint32_t n_add)
{
	for (uint32_t i = 0; i < n_add; i++) {
		struct self_prog *r = self_prog_row(rows, n, MAX_SELF_PROGS,
						    add[i].name);

		if (r) {
			r->ns += add[i].ns;
			r->runs += add[i].runs;
		}
	}
}

void self_progs_sub(struct self_prog *rows, uint32_t n,
		    const struct self_prog *sub, uint32_t n_sub)
{
	for (uint32_t i = 0; i < n_sub; i++) {
		struct self_prog *r = self_prog_row(rows, &n, n, sub[i].name);

		if (r) {
			r->ns -= sub[i].ns;
			r->runs -= sub[i].runs;
		}
	}
}

/* b - a by program: a program new in b counts from zero */
static void self_progs_delta(const struct snapshot *a,
			     const struct snapshot *b, struct snapshot *out)
{
	out->nr_self_progs = b->nr_self_progs;
	memcpy(out->self_progs, b->self_progs,
	       sizeof(b->self_progs[0]) * b->nr_self_progs);
	self_progs_sub(out->self_progs, out->nr_self_progs, a->self_progs,
		       a->nr_self_progs);
}

void snapshot_delta(const struct snapshot *a, const struct snapshot *b,
		    struct snapshot *out)
{
	static const struct dev_row zero_row;

	out->ts_ns = b->ts_ns - a->ts_ns;
	u64_sub((uint64_t *)out->paths, (const uint64_t *)a->paths,
		(const uint64_t *)b->paths, NR_U64(b->paths));
	u64_sub((uint64_t *)&out->glob, (const uint64_t *)&a->glob,
		(const uint64_t *)&b->glob, NR_U64(b->glob));
	u64_sub((uint64_t *)out->hists, (const uint64_t *)a->hists,
		(const uint64_t *)b->hists, NR_U64(b->hists));
	out->self_ns = b->self_ns - a->self_ns;
	out->self_runs = b->self_runs - a->self_runs;
	out->self_on_ns = b->self_on_ns - a->self_on_ns;
	self_progs_delta(a, b, out);
	out->dev_gone = b->dev_gone;
	out->probes_late = b->probes_late;
	out->probes_gone = b->probes_gone;
	out->nr_devs = b->nr_devs;
	for (uint32_t i = 0; i < b->nr_devs; i++) {
		const struct dev_row *ra = dev_find(a, b->devs[i].dev,
						    b->devs[i].path);

		out->devs[i] = b->devs[i];
		u64_sub((uint64_t *)&out->devs[i].s,
			(const uint64_t *)&(ra ? ra : &zero_row)->s,
			(const uint64_t *)&b->devs[i].s,
			NR_U64(struct bhp_dev_stats));
	}
	fs_rows_delta(a, b, out);
	callers_delta(a, b, out);
}

static void u64_add(uint64_t *acc, const uint64_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		acc[i] += d[i];
}

void snapshot_add(struct snapshot *acc, const struct snapshot *d)
{
	acc->ts_ns += d->ts_ns;
	acc->self_ns += d->self_ns;
	acc->self_runs += d->self_runs;
	acc->self_on_ns += d->self_on_ns;
	self_progs_add(acc->self_progs, &acc->nr_self_progs, d->self_progs,
		       d->nr_self_progs);
	u64_add((uint64_t *)acc->paths, (const uint64_t *)d->paths,
		NR_U64(d->paths));
	u64_add((uint64_t *)&acc->glob, (const uint64_t *)&d->glob,
		NR_U64(d->glob));
	u64_add((uint64_t *)acc->hists, (const uint64_t *)d->hists,
		NR_U64(d->hists));
	for (uint32_t i = 0; i < d->nr_devs; i++) {
		struct dev_row *r = (struct dev_row *)dev_find(
			acc, d->devs[i].dev, d->devs[i].path);

		if (!r) {
			if (acc->nr_devs >= MAX_SNAP_DEVS)
				continue;
			r = &acc->devs[acc->nr_devs++];
			memset(r, 0, sizeof(*r));
			r->dev = d->devs[i].dev;
			r->path = d->devs[i].path;
		}
		u64_add((uint64_t *)&r->s, (const uint64_t *)&d->devs[i].s,
			NR_U64(struct bhp_dev_stats));
	}
	fs_rows_add(acc, d);
}
