// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bhprof report: a recording read back as the summary 'stat' prints,
 * plus the time series, as text, JSON, CSV or one HTML page.
 */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "commands.h"
#include "html.h"
#include "output.h"
#include "report.h"

#define HTML_ROWS 600	/* enough points for a chart, few enough to draw */

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

/* Walks every snapshot once: first, last, and the rows in between. */
static int load_series(struct loaded_run *run, struct snapshot *first,
		       const struct snapshot **last)
{
	static struct bin_start bin;
	struct rec_frame f;

	while (recfile_next(run->rec, &f) == 1) {
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

int run_load(struct loaded_run *run, const char *path, long every)
{
	const struct snapshot *last = NULL;
	struct snapshot *first = NULL;
	uint64_t n;
	char err[256];

	memset(run, 0, sizeof(*run));
	run->path = path;
	if (recfile_open(path, &run->rec, err, sizeof(err))) {
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

void run_free(struct loaded_run *run)
{
	recfile_close(run->rec);
	free(run->sum);
	free(run->rows);
	memset(run, 0, sizeof(*run));
}

/* ---- text ---- */

static void recording_text(FILE *f, const struct loaded_run *run)
{
	const struct run_info *in = recfile_info(run->rec);
	const struct rec_end *e = recfile_end(run->rec);
	char b[64], d[32];
	unsigned int major, minor;

	recfile_version(run->rec, &major, &minor);
	fprintf(f, "\nrecording: %s (format %u.%u), %llu snapshots every %.3g s\n",
		run->path, major, minor, (unsigned long long)run->snapshots,
		in->interval_ms / 1000.0);
	fprintf(f, "host: %s, started %s\n", in->hostname,
		fmt_utc(b, sizeof(b), in->start_realtime_ns));
	fprintf(f, "command line: %s\n", in->cmdline);
	if (in->nr_filter_devs) {
		fprintf(f, "devices:");
		for (uint32_t i = 0; i < in->nr_filter_devs; i++) {
			const char *n = recfile_dev_name(run->rec,
							 in->filter_devs[i]);

			fprintf(f, " %s%s%s%s", fmt_dev(d, sizeof(d),
							in->filter_devs[i]),
				n ? " (" : "", n ? n : "", n ? ")" : "");
		}
		fputc('\n', f);
	}
	fprintf(f, "stopped by: %s", stop_text(b, sizeof(b), e));
	if (e->has_exit)
		fprintf(f, "; command exit status %d", e->exit_status);
	fputc('\n', f);
}

static void series_text(FILE *f, const struct loaded_run *run)
{
	char lat[32];

	fprintf(f, "\ntime series (* = recorded frames lost inside the interval):\n");
	fprintf(f, "%9s  %-6s %12s %10s %10s %10s %10s\n", "t (s)", "path",
		"write MiB/s", "bio MiB/s", "write p99", "bios", "bh allocs");
	for (size_t i = 0; i < run->nr_rows; i++) {
		const struct ts_row *r = &run->rows[i];

		for (unsigned int p = 0; p < NR_PATHS; p++) {
			const struct ts_path *tp = &r->p[p];

			if (p == 0)
				fprintf(f, "%9.1f%c", r->t, r->gap ? '*' : ' ');
			else
				fprintf(f, "%10s", "");
			fprintf(f, " %-6s %12.2f %10.2f %10s %10llu %10llu\n",
				path_name(p),
				mib_per_sec(tp->write_bytes + tp->dio_bytes, r->secs),
				mib_per_sec(tp->bio_bytes, r->secs),
				tp->write_calls ? fmt_ns(lat, sizeof(lat),
							 tp->lat_p99) : "-",
				(unsigned long long)tp->bio_count,
				(unsigned long long)tp->bh_alloc);
		}
	}
}

static void report_text(FILE *f, const struct loaded_run *run)
{
	summary_text(f, recfile_info(run->rec), run->sum);
	recording_text(f, run);
	series_text(f, run);
}

/* ---- CSV ---- */

static void report_csv(FILE *f, const struct loaded_run *run)
{
	fprintf(f, "t_s,interval_s,path,write_calls,write_bytes,direct_bytes,"
		   "write_mib_s,bio_count,bio_bytes,bio_mib_s,"
		   "write_lat_p50_ns,write_lat_p99_ns,wb_pages,bh_alloc,"
		   "bh_per_mib,frames_lost\n");
	for (size_t i = 0; i < run->nr_rows; i++) {
		const struct ts_row *r = &run->rows[i];

		for (unsigned int p = 0; p < NR_PATHS; p++) {
			const struct ts_path *tp = &r->p[p];

			fprintf(f, "%.3f,%.3f,%s,%llu,%llu,%llu,%.3f,%llu,%llu,"
				   "%.3f,%llu,%llu,%llu,%llu,%.3f,%d\n",
				r->t, r->secs, path_name(p),
				(unsigned long long)tp->write_calls,
				(unsigned long long)tp->write_bytes,
				(unsigned long long)tp->dio_bytes,
				mib_per_sec(tp->write_bytes + tp->dio_bytes, r->secs),
				(unsigned long long)tp->bio_count,
				(unsigned long long)tp->bio_bytes,
				mib_per_sec(tp->bio_bytes, r->secs),
				(unsigned long long)tp->lat_p50,
				(unsigned long long)tp->lat_p99,
				(unsigned long long)tp->wb_pages,
				(unsigned long long)tp->bh_alloc,
				ts_bh_per_mib(tp), r->gap);
		}
	}
}

/* ---- JSON ---- */

static void recording_json(struct json *j, const struct loaded_run *run)
{
	const struct run_info *in = recfile_info(run->rec);
	const struct rec_end *e = recfile_end(run->rec);
	unsigned int major, minor, n = recfile_nr_warnings(run->rec);
	char b[64];

	recfile_version(run->rec, &major, &minor);
	json_obj_open(j, "recording");
	json_str(j, "file", run->path);
	snprintf(b, sizeof(b), "%u.%u", major, minor);
	json_str(j, "format_version", b);
	json_str(j, "hostname", in->hostname);
	json_str(j, "start_time", fmt_utc(b, sizeof(b), in->start_realtime_ns));
	json_u64(j, "start_realtime_ns", in->start_realtime_ns);
	json_str(j, "cmdline", in->cmdline);
	json_arr_open(j, "filter_devices");
	for (uint32_t i = 0; i < in->nr_filter_devs; i++) {
		const char *name = recfile_dev_name(run->rec, in->filter_devs[i]);

		json_str(j, NULL, name ? name : fmt_dev(b, sizeof(b),
							 in->filter_devs[i]));
	}
	json_arr_close(j);
	if (in->filter_pid)
		json_u64(j, "filter_pid", in->filter_pid);
	else
		json_null(j, "filter_pid");
	json_u64(j, "snapshots", run->snapshots);
	json_bool(j, "complete", e->present);
	json_str(j, "stopped_by", stop_text(b, sizeof(b), e));
	json_u64(j, "lost_intervals", recfile_stats(run->rec)->lost_intervals);
	json_arr_open(j, "warnings");
	for (unsigned int i = 0; i < n; i++)
		json_str(j, NULL, recfile_warning(run->rec, i));
	json_arr_close(j);
	json_obj_close(j);
}

/* stat --json's "command", plus how the recording stopped */
static void command_json(struct json *j, const struct loaded_run *run)
{
	const struct rec_end *e = recfile_end(run->rec);
	char b[64];

	json_obj_open(j, "command");
	json_arr_open(j, "argv");
	for (unsigned int i = 0; i < recfile_nr_args(run->rec); i++)
		json_str(j, NULL, recfile_arg(run->rec, i));
	json_arr_close(j);
	if (e->has_exit)
		json_i64(j, "exit_status", e->exit_status);
	else
		json_null(j, "exit_status");
	json_str(j, "stopped_by", stop_text(b, sizeof(b), e));
	json_obj_close(j);
}

static void ts_path_json(struct json *j, const char *key,
			 const struct ts_path *tp, double secs,
			 const struct run_info *in, unsigned int path)
{
	json_obj_open(j, key);
	if (!figure_known(in, path, FIG_WRITE)) {
		/* a lost probe group: unknown, not zero */
		json_null(j, "write_calls");
		json_null(j, "write_bytes");
		json_null(j, "direct_bytes");
		json_null(j, "write_mb_per_s");
	} else {
		json_u64(j, "write_calls", tp->write_calls);
		json_u64(j, "write_bytes", tp->write_bytes);
		json_u64(j, "direct_bytes", tp->dio_bytes);
		json_double(j, "write_mb_per_s",
			    mib_per_sec(tp->write_bytes + tp->dio_bytes, secs));
	}
	if (tp->write_calls) {
		json_u64(j, "write_lat_p50_ns", tp->lat_p50);
		json_u64(j, "write_lat_p99_ns", tp->lat_p99);
	} else {
		json_null(j, "write_lat_p50_ns");
		json_null(j, "write_lat_p99_ns");
	}
	if (figure_known(in, path, FIG_WB_PAGES))
		json_u64(j, "wb_pages", tp->wb_pages);
	else
		json_null(j, "wb_pages");
	if (figure_known(in, path, FIG_PATH_BIOS)) {
		json_u64(j, "bio_count", tp->bio_count);
		json_u64(j, "bio_bytes", tp->bio_bytes);
		json_double(j, "bio_mb_per_s", mib_per_sec(tp->bio_bytes, secs));
	} else {
		json_null(j, "bio_count");
		json_null(j, "bio_bytes");
		json_null(j, "bio_mb_per_s");
	}
	if (figure_known(in, path, FIG_BH)) {
		json_u64(j, "bh_alloc", tp->bh_alloc);
		json_double(j, "bh_per_mib", ts_bh_per_mib(tp));
	} else {
		json_null(j, "bh_alloc");
		json_null(j, "bh_per_mib");
	}
	json_obj_close(j);
}

static void intervals_json(struct json *j, const struct loaded_run *run)
{
	json_arr_open(j, "intervals");
	for (size_t i = 0; i < run->nr_rows; i++) {
		const struct ts_row *r = &run->rows[i];

		json_obj_open(j, NULL);
		json_double(j, "t_s", r->t);
		json_double(j, "secs", r->secs);
		json_bool(j, "frames_lost", r->gap);
		json_obj_open(j, "paths");
		for (unsigned int p = 0; p < NR_PATHS; p++)
			ts_path_json(j, path_name(p), &r->p[p], r->secs,
				     recfile_info(run->rec), p);
		json_obj_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void report_json(FILE *f, const struct loaded_run *run)
{
	struct json j;

	json_init(&j, f, true);
	json_obj_open(&j, NULL);
	summary_json_fields(&j, recfile_info(run->rec), run->sum);
	recording_json(&j, run);
	command_json(&j, run);
	intervals_json(&j, run);
	json_obj_close(&j);
	json_end(&j);
}

/* ---- the command ---- */

static void report_usage(FILE *f)
{
	fprintf(f,
"Usage: bhprof report [--json | --csv | --html OUT.html] FILE\n"
"\n"
"Read a recording made by 'bhprof record': the per-path summary of\n"
"'bhprof stat' over the whole run, then the time series (one row per\n"
"interval and path: write and bio MiB/s, write latency p99, bios,\n"
"buffer_head allocations). A recording cut short by a crash is read up\n"
"to its last complete interval, with a warning.\n"
"\n"
"      --json           the 'stat --json' object plus \"recording\",\n"
"                       \"command\" and \"intervals\"\n"
"      --csv            the time series, one row per interval and path\n"
"      --html OUT.html  one self-contained page with charts\n"
"\n"
"Exit status: 0, 1 if FILE cannot be read, 2 on bad usage.\n");
}

enum report_fmt { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_HTML };

static int parse_report_args(int argc, char **argv, enum report_fmt *fmt,
			     const char **html, const char **file)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "html", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c, nfmt = 0;

	optind = 1;
	opterr = 0;
	*fmt = FMT_TEXT;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			report_usage(stdout);
			return 1;
		case 'j':
			*fmt = FMT_JSON;
			nfmt++;
			break;
		case 'c':
			*fmt = FMT_CSV;
			nfmt++;
			break;
		case 'H':
			*fmt = FMT_HTML;
			*html = optarg;
			nfmt++;
			break;
		default:
			fprintf(stderr, "bhprof report: unknown or incomplete option '%s' (see --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (nfmt > 1) {
		fprintf(stderr, "bhprof report: --json, --csv and --html exclude each other\n");
		return -1;
	}
	if (argc - optind != 1) {
		fprintf(stderr, "bhprof report: expected one FILE, got %d (see --help)\n",
			argc - optind);
		return -1;
	}
	*file = argv[optind];
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct loaded_run run;
	const char *html = NULL, *file = NULL;
	enum report_fmt fmt;
	int err;

	err = parse_report_args(argc, argv, &fmt, &html, &file);
	if (err)
		return err > 0 ? 0 : 2;
	if (run_load(&run, file, fmt == FMT_HTML ? -HTML_ROWS : 1))
		return 1;
	switch (fmt) {
	case FMT_TEXT:
		report_text(stdout, &run);
		break;
	case FMT_JSON:
		report_json(stdout, &run);
		break;
	case FMT_CSV:
		report_csv(stdout, &run);
		break;
	case FMT_HTML:
		err = html_write(&run, html);
		break;
	}
	run_free(&run);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "bhprof: writing the report failed\n");
		return 1;
	}
	return err ? 1 : 0;
}
