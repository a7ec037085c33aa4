// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One function turns two snapshots into what every command prints. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "devices.h"
#include "summary.h"
#include "util/array.h"

#define MIB (1024.0 * 1024.0)

static double per_sec(uint64_t v, double secs)
{
	return secs > 0 ? (double)v / secs : 0;
}

double mib_per_sec(uint64_t bytes, double secs)
{
	return per_sec(bytes, secs) / MIB;
}

/* per MiB that reached the device when nothing was written by call
 * (writeback-only windows), else per MiB written by calls */
uint64_t per_mib_base(uint64_t written, uint64_t bio_bytes)
{
	return written ? written : bio_bytes;
}

double bh_per_mib(uint64_t bh_alloc, uint64_t written, uint64_t bio_bytes)
{
	uint64_t base = per_mib_base(written, bio_bytes);

	return base >= PER_MIB_MIN ? (double)bh_alloc / (base / MIB) : NAN;
}

static double ratio(uint64_t n, uint64_t d)
{
	return d ? (double)n / (double)d : NAN;
}

const char *sample_why(const struct path_summary *p, enum sample s)
{
	const struct bhp_path_stats *c = &p->c;

	switch (s) {
	case SAMPLE_COUNT:
		return NULL;
	case SAMPLE_WRITE:
		return p->write_lat.count ? NULL : "no write call on this path";
	case SAMPLE_DIO:
		return p->dio_lat.count ? NULL : "no O_DIRECT call on this path";
	case SAMPLE_WB:
		return p->wb_lat.count ? NULL :
					 "no writeback call on this path";
	case SAMPLE_BIO:
		return p->bio_size.count ? NULL : "no bio on this path";
	case SAMPLE_READ:
		return p->read_lat.count ? NULL : "no read on this path";
	case SAMPLE_READ_BIO:
		return p->read_bio_size.count ? NULL :
						"no read bio on this path";
	case SAMPLE_MKWRITE:
		return p->mkwrite_lat.count ? NULL :
					      "no page_mkwrite on this path";
	case SAMPLE_PASS:
		return p->pass_lat.count ? NULL :
					   "no writeback pass on this path";
	case SAMPLE_MIB:
		return per_mib_base(c->write_bytes + c->dio_bytes,
				    c->bio_bytes) >= PER_MIB_MIN ? NULL :
			"under 1 MiB written on this path";
	case SAMPLE_READ_MIB:
		return c->read_bio_bytes >= PER_MIB_MIN ? NULL :
			"under 1 MiB read on this path";
	case SAMPLE_CALL:
		return c->write_calls + c->dio_calls ? NULL :
			"no write call on this path";
	case SAMPLE_PAGE:
		return c->wb_pages ? NULL : "no page written back on this path";
	}
	return NULL;
}

bool path_idle(const struct path_summary *p)
{
	const struct bhp_path_stats *c = &p->c;

	return !(c->write_calls | c->dio_calls | c->wb_calls | c->wb_pages |
		 c->bio_count | c->bh_alloc | c->read_calls | c->read_pages |
		 c->read_bio_count | c->mkwrite_calls | c->dwf_calls |
		 c->wb_passes);
}

const char *path_figure_why(const struct run_info *info, unsigned int path,
			    const struct path_summary *p, enum figure f,
			    enum sample s)
{
	return figure_why(info, path, f) ?: sample_why(p, s);
}

const char *fs_figure_why(const struct run_info *info, unsigned int path,
			  const struct path_summary *p, enum figure f,
			  enum sample s)
{
	return fs_why(info, path, f) ?: sample_why(p, s);
}

static const char *const why_codes[][2] = {
	{ "failed", "failed: its probe group could not be attached "
		    "(bhprof probe says why)" },
	{ "n/a", "n/a: the attach mode cannot see it" },
	{ "absent", "absent: this kernel has no such function" },
	{ "unrecorded", "unrecorded: an older bhprof wrote the file" },
};

const char *why_cell(const char *why)
{
	for (size_t i = 0; why && i < ARRAY_SIZE(why_codes); i++)
		if (!strcmp(why, why_codes[i][0]))
			return why;
	return why ? "-" : NULL;
}

const char *why_text(const char *why)
{
	for (size_t i = 0; why && i < ARRAY_SIZE(why_codes); i++)
		if (!strcmp(why, why_codes[i][0]))
			return why_codes[i][1];
	return why;
}

/* Everything of a path summary that follows from its counters and
 * histograms. */
static void path_derive(struct path_summary *ps, double secs)
{
	const struct bhp_path_stats *c = &ps->c;

	dist_of(&ps->hist[HIST_WRITE_LAT], &ps->write_lat, EST_MID);
	dist_of(&ps->hist[HIST_DIO_LAT], &ps->dio_lat, EST_MID);
	dist_of(&ps->hist[HIST_WB_LAT], &ps->wb_lat, EST_MID);
	dist_of(&ps->hist[HIST_BIO_SIZE], &ps->bio_size, EST_LOW);
	dist_of(&ps->hist[HIST_READ_LAT], &ps->read_lat, EST_MID);
	dist_of(&ps->hist[HIST_READ_BIO_SIZE], &ps->read_bio_size, EST_LOW);
	dist_of(&ps->hist[HIST_MKWRITE_LAT], &ps->mkwrite_lat, EST_MID);
	dist_of(&ps->hist[HIST_PASS_LAT], &ps->pass_lat, EST_MID);
	ps->read_bio_mbps = mib_per_sec(c->read_bio_bytes, secs);
	ps->read_bios_per_mib = c->read_bio_bytes >= PER_MIB_MIN ?
		(double)c->read_bio_count / ((double)c->read_bio_bytes / MIB) :
		NAN;
	ps->write_mbps = mib_per_sec(c->write_bytes + c->dio_bytes, secs);
	ps->bio_mbps = mib_per_sec(c->bio_bytes, secs);
	ps->write_calls_ps = per_sec(c->write_calls + c->dio_calls, secs);
	ps->bios_ps = per_sec(c->bio_count, secs);
	ps->pages_ps = per_sec(c->wb_pages, secs);
	ps->bh_alloc_ps = per_sec(c->bh_alloc, secs);
	ps->bh_per_mib = bh_per_mib(c->bh_alloc, c->write_bytes + c->dio_bytes,
				    c->bio_bytes);
	ps->bios_per_mib = bh_per_mib(c->bio_count,
				      c->write_bytes + c->dio_bytes,
				      c->bio_bytes);
	ps->bh_per_call = ratio(c->bh_alloc, c->write_calls + c->dio_calls);
	ps->bh_per_page = ratio(c->bh_alloc, c->wb_pages);
	ps->mean_bio = ratio(c->bio_bytes, c->bio_count);
}

/* a filesystem's counters in the places of the path counters of the
 * same names */
static void fs_counters(const struct bhp_fs_stats *f, struct bhp_path_stats *c)
{
	c->write_calls += f->write_calls;
	c->write_bytes += f->write_bytes;
	c->dio_calls += f->dio_calls;
	c->dio_bytes += f->dio_bytes;
	c->wb_calls += f->wb_calls;
	c->wb_pages += f->wb_pages;
	c->bio_count += f->bio_count;
	c->bio_bytes += f->bio_bytes;
	c->bh_alloc += f->bh_alloc;
}

static void fs_summarize(const struct snapshot *d, struct summary *s)
{
	s->nr_fs = d->nr_fs < MAX_SNAP_FS ? d->nr_fs : MAX_SNAP_FS;
	for (uint32_t i = 0; i < s->nr_fs; i++) {
		memcpy(s->fs[i].name, d->fs[i].name, BHP_FS_NAME);
		s->fs[i].name[BHP_FS_NAME - 1] = 0;
		s->fs[i].path = d->fs[i].path;
		fs_counters(&d->fs[i].s, &s->fs[i].c);
	}
}

void fs_path_summary(const struct summary *s, const char *name,
		     unsigned int path, struct path_summary *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < s->nr_fs; i++) {
		const struct fs_summary *f = &s->fs[i];
		const uint64_t *x = (const uint64_t *)&f->c;
		uint64_t *o = (uint64_t *)&out->c;

		if (strcmp(f->name, name) ||
		    (path < NR_PATH_ROWS && f->path != path))
			continue;
		for (size_t k = 0; k < sizeof(f->c) / sizeof(*x); k++)
			o[k] += x[k];
	}
	path_derive(out, s->secs);
}

static void path_summarize(const struct snapshot *d, unsigned int p,
			   double secs, struct path_summary *ps)
{
	ps->c = d->paths[p];
	for (unsigned int k = 0; k < NR_HIST_KINDS; k++)
		ps->hist[k] = d->hists[HIST_ID(p, k)];
	path_derive(ps, secs);
}

void path_merge(const struct path_summary *a, const struct path_summary *b,
		double secs, struct path_summary *out)
{
	const uint64_t *x = (const uint64_t *)&a->c, *y = (const uint64_t *)&b->c;
	uint64_t *o = (uint64_t *)&out->c;

	for (size_t i = 0; i < sizeof(out->c) / sizeof(uint64_t); i++)
		o[i] = x[i] + y[i];
	for (unsigned int k = 0; k < NR_HIST_KINDS; k++)
		for (unsigned int i = 0; i < HIST_BUCKETS; i++)
			out->hist[k].b[i] = a->hist[k].b[i] + b->hist[k].b[i];
	path_derive(out, secs);
}

uint64_t log2_percentile(const uint64_t *slots, double p)
{
	uint64_t n = 0, seen = 0, rank;

	for (int i = 0; i < DEV_SIZE_SLOTS; i++)
		n += slots[i];
	if (!n)
		return 0;
	rank = nearest_rank(n, p);
	for (int i = 0; i < DEV_SIZE_SLOTS; i++) {
		seen += slots[i];
		if (seen >= rank)
			return 1ULL << i;
	}
	return 0;
}

static struct dev_summary *dev_slot(struct summary *s, uint32_t dev)
{
	for (uint32_t i = 0; i < s->nr_devs; i++)
		if (s->devs[i].dev == dev)
			return &s->devs[i];
	if (s->nr_devs >= MAX_SNAP_DEVS)
		return NULL;
	s->devs[s->nr_devs].dev = dev;
	return &s->devs[s->nr_devs++];
}

static int dev_cmp(const void *a, const void *b)
{
	const struct dev_summary *x = a, *y = b;

	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static void devs_summarize(const struct snapshot *d, double secs,
			   struct summary *s)
{
	static uint64_t slots[MAX_SNAP_DEVS][DEV_SIZE_SLOTS];
	static uint64_t rslots[MAX_SNAP_DEVS][DEV_SIZE_SLOTS];

	memset(slots, 0, sizeof(slots));
	memset(rslots, 0, sizeof(rslots));
	for (uint32_t i = 0; i < d->nr_devs; i++) {
		const struct dev_row *r = &d->devs[i];
		struct dev_summary *ds = dev_slot(s, r->dev);
		uint32_t path = r->path <= NR_PATHS ? r->path : PATH_NONE;

		if (!ds)
			continue;
		ds->bios += r->s.bios;
		ds->bytes += r->s.bytes;
		ds->path_bios[path] += r->s.bios;
		ds->path_bytes[path] += r->s.bytes;
		ds->read_bios += r->s.read_bios;
		ds->read_bytes += r->s.read_bytes;
		ds->path_read_bios[path] += r->s.read_bios;
		ds->path_read_bytes[path] += r->s.read_bytes;
		for (int k = 0; k < DEV_SIZE_SLOTS; k++) {
			slots[ds - s->devs][k] += r->s.size_log2[k];
			rslots[ds - s->devs][k] += r->s.read_size_log2[k];
		}
	}
	for (uint32_t i = 0; i < s->nr_devs; i++) {
		struct dev_summary *ds = &s->devs[i];

		ds->main_path = ds->path_bytes[PATH_IOMAP] >
						ds->path_bytes[PATH_BH] ?
					PATH_IOMAP : PATH_BH;
		if (!ds->path_bytes[PATH_BH] && !ds->path_bytes[PATH_IOMAP])
			ds->main_path = PATH_NONE;
		ds->mbps = mib_per_sec(ds->bytes, secs);
		ds->bios_ps = per_sec(ds->bios, secs);
		ds->mean_bio = ds->bios ? (double)ds->bytes / ds->bios : 0;
		ds->size_p50 = log2_percentile(slots[i], 50);
		ds->size_p99 = log2_percentile(slots[i], 99);
		ds->read_mbps = mib_per_sec(ds->read_bytes, secs);
		ds->read_size_p50 = log2_percentile(rslots[i], 50);
		ds->read_size_p99 = log2_percentile(rslots[i], 99);
		dev_name(ds->dev, ds->name, sizeof(ds->name));
	}
	/* slots[] was indexed by position, so sort only at the end */
	qsort(s->devs, s->nr_devs, sizeof(s->devs[0]), dev_cmp);
}

static int self_prog_cmp(const void *a, const void *b)
{
	const struct self_prog *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* bhprof's own cost, where --self-cost had the statistics on */
static void self_summarize(const struct snapshot *d, struct summary *out)
{
	out->self_on_secs = d->self_on_ns / 1e9;
	out->self_ns = d->self_ns;
	out->self_runs = d->self_runs;
	out->nr_self_progs = d->nr_self_progs;
	memcpy(out->self_progs, d->self_progs,
	       sizeof(d->self_progs[0]) * d->nr_self_progs);
	qsort(out->self_progs, out->nr_self_progs, sizeof(out->self_progs[0]),
	      self_prog_cmp);
}

void summarize(const struct snapshot *a, const struct snapshot *b,
	       struct summary *out)
{
	static struct snapshot zero, d;

	if (!a)
		a = &zero;
	snapshot_delta(a, b, &d);
	memset(out, 0, sizeof(*out));
	out->secs = a == &zero ? 0 : (double)d.ts_ns / 1e9;
	for (unsigned int p = 0; p < NR_PATHS; p++)
		path_summarize(&d, p, out->secs, &out->path[p]);
	out->other.c = d.paths[PATH_NONE];
	path_derive(&out->other, out->secs);
	out->glob = d.glob;
	out->probes_late = b->probes_late;
	out->probes_gone = b->probes_gone;
	self_summarize(&d, out);
	devs_summarize(&d, out->secs, out);
	fs_summarize(&d, out);
	out->bh_net_peak = d.bh_net_peak;
	out->nr_callers = d.nr_callers;
	memcpy(out->callers, d.callers, d.nr_callers * sizeof(d.callers[0]));
}
