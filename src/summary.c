// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One function turns two snapshots into what every command prints. */
#include <stdlib.h>
#include <string.h>
#include "devices.h"
#include "summary.h"

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
double bh_per_mib(uint64_t bh_alloc, uint64_t written, uint64_t bio_bytes)
{
	double mib = (double)(written ? written : bio_bytes) / MIB;

	return mib > 0 ? (double)bh_alloc / mib : 0;
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
	ps->read_bio_mbps = mib_per_sec(c->read_bio_bytes, secs);
	ps->read_bios_per_mib = c->read_bio_bytes ?
		(double)c->read_bio_count / ((double)c->read_bio_bytes / MIB) : 0;
	ps->write_mbps = mib_per_sec(c->write_bytes + c->dio_bytes, secs);
	ps->bio_mbps = mib_per_sec(c->bio_bytes, secs);
	ps->write_calls_ps = per_sec(c->write_calls + c->dio_calls, secs);
	ps->bios_ps = per_sec(c->bio_count, secs);
	ps->pages_ps = per_sec(c->wb_pages, secs);
	ps->bh_alloc_ps = per_sec(c->bh_alloc, secs);
	ps->bh_per_mib = bh_per_mib(c->bh_alloc, c->write_bytes + c->dio_bytes,
				    c->bio_bytes);
	ps->mean_bio = c->bio_count ? (double)c->bio_bytes / c->bio_count : 0;
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

/* bhprof's own cost, where --self-cost had the statistics on */
static void self_summarize(const struct snapshot *d, struct summary *out)
{
	out->self_on_secs = d->self_on_ns / 1e9;
	out->self_ns = d->self_ns;
	out->self_runs = d->self_runs;
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
	out->glob = d.glob;
	self_summarize(&d, out);
	devs_summarize(&d, out->secs, out);
	out->bh_net_peak = d.bh_net_peak;
	out->nr_callers = d.nr_callers;
	memcpy(out->callers, d.callers, d.nr_callers * sizeof(d.callers[0]));
}
