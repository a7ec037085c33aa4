// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A recording loaded whole: its summary and, on request, its time series.
 * report, the HTML page, diff and gate all read runs through here.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "run.h"

double ts_bh_per_mib(const struct ts_path *p)
{
	return bh_per_mib(p->bh_alloc, p->write_bytes + p->dio_bytes,
			  p->bio_bytes);
}

const char *fmt_utc(char *buf, size_t len, uint64_t realtime_ns)
{
	time_t t = (time_t)(realtime_ns / 1000000000ull);
	struct tm tm;

	if (!realtime_ns || !gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "unknown");
	return buf;
}

const char *stop_text(char *buf, size_t len, const struct rec_end *e)
{
	const char *sig;

	if (!e->present) {
		snprintf(buf, len, "did not finish (killed, or still being written)");
		return buf;
	}
	switch (e->reason) {
	case REC_STOP_DURATION:
		snprintf(buf, len, "the duration ended");
		break;
	case REC_STOP_COMMAND:
		snprintf(buf, len, "the command exited");
		break;
	case REC_STOP_SIGNAL:
		sig = e->signal > 0 && e->signal < NSIG ? sigabbrev_np(e->signal)
							: NULL;
		snprintf(buf, len, "SIG%s", sig ? sig : "?");
		break;
	case REC_STOP_ERROR:
		snprintf(buf, len, "an error reading the BPF maps");
		break;
	case REC_STOP_USER:
		snprintf(buf, len, "q in bhprof top");
		break;
	default:
		snprintf(buf, len, "unknown");
	}
	return buf;
}

/* ---- loading ---- */

/* What a time-series row starts from. */
struct bin_start {
	uint64_t ts;
	struct bhp_path_stats paths[NR_PATHS];
	struct bhp_hist lat[NR_PATHS];
	unsigned long n;
	bool gap;
};

/* Rows of one interval take the reader's step: no copy of histograms. */
static void bin_open(struct bin_start *b, const struct snapshot *s,
		     unsigned long every)
{
	b->ts = s->ts_ns;
	memcpy(b->paths, s->paths, sizeof(b->paths));
	for (unsigned int p = 0; p < NR_PATHS && every > 1; p++)
		b->lat[p] = s->hists[HIST_ID(p, HIST_WRITE_LAT)];
	b->n = 0;
	b->gap = false;
}

static uint64_t bucket_mid(unsigned int i)
{
	return hist_bucket_low(i) + hist_bucket_width(i) / 2;
}

/*
 * hist_percentile(h, 50 and 99, EST_MID) in one pass over the buckets
 * [lo, hi] that can be non-zero: this runs for every interval of a day.
 */
static void lat_pcts(const struct bhp_hist *h, unsigned int lo,
		     unsigned int hi, uint64_t *p50, uint64_t *p99)
{
	uint64_t n = 0, seen = 0, r50, r99;
	unsigned int i;

	*p50 = *p99 = 0;
	for (i = lo; i <= hi && i < HIST_BUCKETS; i++)
		n += h->b[i];
	if (!n)
		return;
	r50 = (uint64_t)(0.50 * (double)n + 0.999999);
	r99 = (uint64_t)(0.99 * (double)n + 0.999999);
	r50 = r50 < 1 ? 1 : r50 > n ? n : r50;
	r99 = r99 < 1 ? 1 : r99 > n ? n : r99;
	for (i = lo; i <= hi && i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (!*p50 && seen >= r50)
			*p50 = bucket_mid(i);
		if (seen >= r99) {
			*p99 = bucket_mid(i);
			return;
		}
	}
}

static void row_lat(const struct loaded_run *run, const struct bin_start *b,
		    const struct snapshot *s, const struct rec_frame *f,
		    unsigned int p, struct ts_path *tp)
{
	unsigned int id = HIST_ID(p, HIST_WRITE_LAT);
	static struct bhp_hist d;

	if (run->every == 1) {
		lat_pcts(&f->step->hists[id], f->step_lo[id], f->step_hi[id],
			 &tp->lat_p50, &tp->lat_p99);
		return;
	}
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		d.b[i] = s->hists[id].b[i] - b->lat[p].b[i];
	lat_pcts(&d, 0, HIST_BUCKETS - 1, &tp->lat_p50, &tp->lat_p99);
}

/* f is only needed (and only given) for rows of one interval */
static void bin_close(struct loaded_run *run, struct bin_start *b,
		      const struct snapshot *s, const struct rec_frame *f,
		      uint64_t t0)
{
	struct ts_row *row = &run->rows[run->nr_rows++];

	row->t = (s->ts_ns - t0) / 1e9;
	row->secs = (s->ts_ns - b->ts) / 1e9;
	row->gap = b->gap;
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		const struct bhp_path_stats *c = &s->paths[p], *o = &b->paths[p];
		struct ts_path *tp = &row->p[p];

		tp->write_calls = c->write_calls - o->write_calls;
		tp->write_bytes = c->write_bytes - o->write_bytes;
		tp->dio_bytes = c->dio_bytes - o->dio_bytes;
		tp->bio_count = c->bio_count - o->bio_count;
		tp->bio_bytes = c->bio_bytes - o->bio_bytes;
		tp->wb_pages = c->wb_pages - o->wb_pages;
		tp->bh_alloc = c->bh_alloc - o->bh_alloc;
		tp->read_bio_count = c->read_bio_count - o->read_bio_count;
		tp->read_bio_bytes = c->read_bio_bytes - o->read_bio_bytes;
		tp->read_pages = c->read_pages - o->read_pages;
		row_lat(run, b, s, f, p, tp);
	}
	bin_open(b, s, run->every);
}

static void print_warnings(const struct loaded_run *run)
{
	unsigned int n = recfile_nr_warnings(run->rec);

	for (unsigned int i = 0; i < n; i++)
		fprintf(stderr, "bhprof: %s: warning: %s\n", run->path,
			recfile_warning(run->rec, i));
}

/* the -d devices whose state changed from was to now, at s seconds */
static void note_dev_events(struct loaded_run *run, uint32_t was,
			    uint32_t now, double s)
{
	const struct run_info *in = recfile_info(run->rec);

	for (uint32_t i = 0; i < in->nr_filter_devs && was != now; i++) {
		uint32_t bit = 1u << i;

		if ((was ^ now) & bit) {
			if (run->nr_events < MAX_DEV_EVENTS)
				run->events[run->nr_events++] = (struct dev_event){
					in->filter_devs[i], now & bit, s };
			else
				run->more_events++;
		}
	}
}

static void probe_event_add(struct loaded_run *run, uint32_t id, bool gone,
			    double s)
{
	if (run->nr_pevents < MAX_PROBE_EVENTS)
		run->pevents[run->nr_pevents++] =
			(struct probe_event){ id, gone, s };
	else
		run->more_pevents++;
}

/* the probes attached, or gone with their module, between was and now */
static void note_probe_events(struct loaded_run *run, uint64_t *late,
			      uint64_t *gone, const struct snapshot *now,
			      double s)
{
	uint64_t came = now->probes_late & ~*late;
	uint64_t went = now->probes_gone & ~*gone;

	*late = now->probes_late;
	*gone = now->probes_gone;
	for (uint32_t id = 0; id < NR_PROBES; id++) {
		if (went & (1ULL << id))
			probe_event_add(run, id, true, s);
		if (came & (1ULL << id))
			probe_event_add(run, id, false, s);
	}
}

/* Walks every snapshot once: first, last, and the rows in between. */
static int load_series(struct loaded_run *run, struct snapshot *first,
		       const struct snapshot **last)
{
	static struct bin_start bin;
	uint64_t late = 0, pgone = 0;
	struct rec_frame f;
	uint32_t gone = 0;

	while (recfile_next(run->rec, &f) == 1) {
		double at = run->snapshots ?
				    (f.cum->ts_ns - first->ts_ns) / 1e9 : 0;

		note_dev_events(run, gone, f.cum->dev_gone, at);
		note_probe_events(run, &late, &pgone, f.cum, at);
		gone = f.cum->dev_gone;
		if (!run->snapshots++) {
			*first = *f.cum;
			bin_open(&bin, f.cum, run->every);
		} else if (run->every) {
			bin.gap |= f.after_gap;
			if (++bin.n == run->every)
				bin_close(run, &bin, f.cum, &f, first->ts_ns);
		}
		*last = f.cum;
	}
	/* a partial last bin; never with one interval per row */
	if (run->every > 1 && bin.n)
		bin_close(run, &bin, *last, NULL, first->ts_ns);
	return 0;
}

/*
 * Without a time series only the ends matter: the last snapshot is
 * rebuilt from the last keyframe, not from a day of deltas. Should that
 * keyframe not decode, walk it all.
 */
static void load_ends(struct loaded_run *run, struct snapshot *first,
		      const struct snapshot **last)
{
	const struct rec_stats *st = recfile_stats(run->rec);
	struct rec_frame f;
	uint64_t n = 0;

	while (recfile_next(run->rec, &f) == 1) {
		if (!n++) {
			*first = *f.cum;
			recfile_seek_last_keyframe(run->rec);
		}
		*last = f.cum;
	}
	if (n < 2 && st->snap_frames > 1) {
		recfile_rewind(run->rec);
		load_series(run, first, last);
		return;
	}
	run->snapshots = st->snap_frames - st->lost_intervals;
	if (run->snapshots < n)
		run->snapshots = n;
}

static void name_devices(struct loaded_run *run)
{
	for (uint32_t i = 0; i < run->sum->nr_devs; i++) {
		struct dev_summary *d = &run->sum->devs[i];
		const char *n = recfile_dev_name(run->rec, d->dev);

		if (n)
			snprintf(d->name, sizeof(d->name), "%s", n);
	}
}

int run_load_fd(struct loaded_run *run, const char *path, int fd,
		long every)
{
	const struct snapshot *last = NULL;
	struct snapshot *first = NULL;
	uint64_t n;
	char err[256];

	memset(run, 0, sizeof(*run));
	run->path = path;
	if (recfile_open_fd(fd, &run->rec, err, sizeof(err))) {
		fprintf(stderr, "bhprof: %s: %s\n", path, err);
		return -1;
	}
	n = recfile_stats(run->rec)->snap_frames;
	run->every = every >= 0 ? (unsigned long)every
				: (unsigned long)(n / -every + 1);
	first = malloc(sizeof(*first));
	run->sum = calloc(1, sizeof(*run->sum));
	run->rows = run->every ? calloc(n / run->every + 2, sizeof(*run->rows))
			       : NULL;
	if (!first || !run->sum || (run->every && !run->rows)) {
		fprintf(stderr, "bhprof: %s: out of memory\n", path);
		goto fail;
	}
	if (run->every)
		load_series(run, first, &last);
	else
		load_ends(run, first, &last);
	print_warnings(run);
	if (run->snapshots < 2) {
		fprintf(stderr, "bhprof: %s: no complete interval recorded (%llu snapshot%s)\n",
			path, (unsigned long long)run->snapshots,
			run->snapshots == 1 ? "" : "s");
		goto fail;
	}
	summarize(first, last, run->sum);
	run->secs = run->sum->secs;
	name_devices(run);
	free(first);
	return 0;
fail:
	free(first);
	run_free(run);
	return -1;
}

int run_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "bhprof: %s: %s\n", path, strerror(errno));
	return fd;
}

int run_load(struct loaded_run *run, const char *path, long every)
{
	int fd = run_open(path), ret;

	memset(run, 0, sizeof(*run));
	if (fd < 0)
		return -1;
	ret = run_load_fd(run, path, fd, every);
	close(fd);
	return ret;
}

void run_free(struct loaded_run *run)
{
	recfile_close(run->rec);
	free(run->sum);
	free(run->rows);
	memset(run, 0, sizeof(*run));
}
