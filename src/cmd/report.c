// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bhprof report: a recording read back as the summary 'stat' prints,
 * plus the time series, as text, JSON, CSV or one HTML page.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "output/callers_out.h"
#include "commands.h"
#include "output/html.h"
#include "util/outfile.h"
#include "output/output.h"
#include "util/priv.h"
#include "recfile/run.h"
#include "recfile/series.h"
#include "util/array.h"

#define HTML_ROWS 600	/* enough points for a chart, few enough to draw */

/* a -d device named by what the recording knew of it: "loop0 (7:0)" */
static const char *event_dev(const struct loaded_run *run, uint32_t dev,
			     char *buf, size_t len)
{
	const char *n = recfile_dev_name(run->rec, dev);
	char d[32];

	snprintf(buf, len, "%s (%s)", n ? n : "?",
		 fmt_dev(d, sizeof(d), dev));
	return buf;
}

static void dev_events_text(FILE *f, const struct loaded_run *run)
{
	char b[96];

	for (size_t i = 0; i < run->nr_events; i++)
		fprintf(f, "device %s %s at +%.1f s\n",
			event_dev(run, run->events[i].dev, b, sizeof(b)),
			run->events[i].gone ? "vanished" : "came back",
			run->events[i].at_s);
	if (run->more_events)
		fprintf(f, "device: %zu more vanishings and returns\n",
			run->more_events);
}

/* "ext4_writepages", the function the probe found */
static const char *event_func(const struct loaded_run *run, uint32_t id)
{
	const struct run_info *in = recfile_info(run->rec);

	return id < NR_PROBES && in->probes[id].func[0] ?
		       in->probes[id].func : "?";
}

static void probe_events_text(FILE *f, const struct loaded_run *run)
{
	for (size_t i = 0; i < run->nr_pevents; i++)
		fprintf(f, "probe %s (%s) %s at +%.1f s\n",
			probe_name(run->pevents[i].probe),
			event_func(run, run->pevents[i].probe),
			run->pevents[i].gone ? "went with its module" :
					       "attached when its module loaded",
			run->pevents[i].at_s);
	if (run->more_pevents)
		fprintf(f, "probe: %zu more attachments and losses\n",
			run->more_pevents);
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
	fprintf(f, "host: %s (%s, %u KiB pages), started %s\n", in->hostname,
		in->machine, in->page_size / 1024,
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
	dev_events_text(f, run);
	probe_events_text(f, run);
	fprintf(f, "stopped by: %s", stop_text(b, sizeof(b), e));
	if (e->has_exit)
		fprintf(f, "; command exit status %d", e->exit_status);
	fputc('\n', f);
}

/* a cell of report's table: unknown says why, never a zero */
static const char *ts_cell(char *buf, size_t len, enum series_id id,
			   const struct ts_row *r, const struct run_info *in,
			   unsigned int p)
{
	const struct series_def *d = &series_defs[id];
	const char *why = series_why(id, r, in, p);
	double v = d->value(r, p);

	if (why)
		return why_cell(why);
	if (d->unit == U_NS)
		return fmt_ns(buf, len, v);
	snprintf(buf, len, series_whole(id) ? "%.0f" : "%.2f", v);
	return buf;
}

/* report's table: the figures it shows, in its order */
static const enum series_id text_cols[] = {
	S_WRITE_MIB_S, S_BIO_MIB_S, S_LAT_P99, S_BIO_COUNT, S_BH_ALLOC,
};

/* as wide as the header and a space, 10 at least */
static int col_width(enum series_id id)
{
	int w = (int)strlen(series_defs[id].text) + 1;

	return w > 10 ? w : 10;
}

static void series_text(FILE *f, const struct loaded_run *run)
{
	const struct run_info *in = recfile_info(run->rec);
	const size_t n = ARRAY_SIZE(text_cols);
	char b[32];

	fprintf(f, "\ntime series (* = recorded frames lost inside the interval):\n");
	fprintf(f, "%9s  %-6s", "t (s)", "path");
	for (size_t c = 0; c < n; c++)
		fprintf(f, " %*s", col_width(text_cols[c]),
			series_defs[text_cols[c]].text);
	fputc('\n', f);
	for (size_t i = 0; i < run->nr_rows; i++) {
		const struct ts_row *r = &run->rows[i];

		for (unsigned int p = 0; p < NR_PATHS; p++) {
			if (p == 0)
				fprintf(f, "%9.1f%c", r->t, r->gap ? '*' : ' ');
			else
				fprintf(f, "%10s", "");
			fprintf(f, " %-6s", path_name(p));
			for (size_t c = 0; c < n; c++)
				fprintf(f, " %*s", col_width(text_cols[c]),
					ts_cell(b, sizeof(b), text_cols[c], r,
						in, p));
			fputc('\n', f);
		}
	}
}

static void report_text(FILE *f, const struct loaded_run *run)
{
	summary_text(f, recfile_info(run->rec), run->sum);
	callers_text(f, recfile_info(run->rec), run->sum, false);
	recording_text(f, run);
	series_text(f, run);
}

/* ---- CSV ---- */

/* an unknown figure is an empty field, never a zero */
static void csv_path(FILE *f, const struct ts_row *r, unsigned int p,
		     const struct run_info *in)
{
	fprintf(f, "%.3f,%.3f,%s", r->t, r->secs, path_name(p));
	for (int id = 0; id < NR_SERIES; id++) {
		fputc(',', f);
		if (!series_why(id, r, in, p))
			fprintf(f, series_whole(id) ? "%.0f" : "%.3f",
				series_defs[id].value(r, p));
	}
	fputc('\n', f);
}

static void report_csv(FILE *f, const struct loaded_run *run)
{
	fprintf(f, "t_s,interval_s,path");
	for (int id = 0; id < NR_SERIES; id++)
		fprintf(f, ",%s", series_defs[id].csv);
	fputc('\n', f);
	for (size_t i = 0; i < run->nr_rows; i++)
		for (unsigned int p = 0; p < NR_PATHS; p++)
			csv_path(f, &run->rows[i], p, recfile_info(run->rec));
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
	json_str(j, "machine", in->machine);
	json_u64(j, "page_size", in->page_size);
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
	json_arr_open(j, "device_events");
	for (size_t i = 0; i < run->nr_events; i++) {
		const char *name = recfile_dev_name(run->rec, run->events[i].dev);

		json_obj_open(j, NULL);
		json_str(j, "device", name ? name : "?");
		json_str(j, "dev", fmt_dev(b, sizeof(b), run->events[i].dev));
		json_str(j, "event", run->events[i].gone ? "vanished" : "back");
		json_double(j, "at_s", run->events[i].at_s);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "probe_events");
	for (size_t i = 0; i < run->nr_pevents; i++) {
		json_obj_open(j, NULL);
		json_str(j, "probe", probe_name(run->pevents[i].probe));
		json_str(j, "func", event_func(run, run->pevents[i].probe));
		json_str(j, "event",
			 run->pevents[i].gone ? "module_gone" : "attached");
		json_double(j, "at_s", run->pevents[i].at_s);
		json_obj_close(j);
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

/* a lost probe group: unknown, not zero */
static void ts_path_json(struct json *j, const char *key,
			 const struct ts_row *r, const struct run_info *in,
			 unsigned int path)
{
	struct json_whys w = { 0 };

	json_obj_open(j, key);
	for (int id = 0; id < NR_SERIES; id++) {
		const struct series_def *d = &series_defs[id];
		const char *why = why_text(series_why(id, r, in, path));

		if (!d->json)
			continue;
		if (series_whole(id))
			json_u64_why(j, &w, d->json, (uint64_t)d->value(r, path),
				     why);
		else
			json_double_why(j, &w, d->json, d->value(r, path), why);
	}
	json_whys_close(j, &w);
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
			ts_path_json(j, path_name(p), r,
				     recfile_info(run->rec), p);
		json_obj_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void report_json(FILE *f, const struct loaded_run *run)
{
	struct json_whys w = { 0 };
	struct json j;

	json_init(&j, f, true);
	json_obj_open(&j, NULL);
	summary_json_fields(&j, recfile_info(run->rec), run->sum, &w);
	callers_json(&j, &w, recfile_info(run->rec), run->sum);
	json_whys_close(&j, &w);
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
"Usage: bhprof report [--json | --csv | --html OUT.html] [-o OUT] [--force]\n"
"                     [--folded FOLDED] FILE\n"
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
"      --html OUT.html  one self-contained page with charts (and a flame\n"
"                       graph of the call chains of a --callers run)\n"
"      --folded FOLDED  the call chains of a --callers run as folded\n"
"                       stacks (root;...;leaf count), besides the report\n"
"  -o, --output OUT     write the report to OUT, not standard output\n"
"      --force          replace an existing OUT (or OUT.html)\n"
"\n"
"OUT is written whole to a temporary file beside it, then renamed into\n"
"place; never through a symbolic link, never over an existing file\n"
"without --force.\n"
"\n"
"Exit status: 0, 1 if FILE cannot be read or OUT written, 2 on bad usage.\n");
}

enum report_fmt { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_HTML };

struct report_args {
	enum report_fmt fmt;
	const char *out;	/* NULL: standard output */
	const char *file;
	const char *folded;	/* --folded */
	unsigned int oflags;
};

static int set_out(struct report_args *a, const char *path)
{
	if (a->out) {
		fprintf(stderr, "bhprof report: one output file only (--html OUT.html and -o OUT are the same)\n");
		return -1;
	}
	a->out = path;
	return 0;
}

static int parse_one_arg(int c, struct report_args *a, int *nfmt)
{
	switch (c) {
	case 'j':
		a->fmt = FMT_JSON;
		break;
	case 'c':
		a->fmt = FMT_CSV;
		break;
	case 'H':
		a->fmt = FMT_HTML;
		return set_out(a, optarg);
	case 'o':
		return set_out(a, optarg);
	case 'f':
		a->oflags |= OUTFILE_FORCE;
		return 0;
	case 'F':
		a->folded = optarg;
		return 0;
	default:
		fprintf(stderr, "bhprof report: unknown or incomplete option '%s' (see --help)\n",
			optarg && c == ':' ? optarg : "?");
		return -1;
	}
	(*nfmt)++;
	return 0;
}

static int parse_report_args(int argc, char **argv, struct report_args *a)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "html", required_argument, NULL, 'H' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "folded", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c, nfmt = 0;

	optind = 1;
	opterr = 0;
	memset(a, 0, sizeof(*a));
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (c == 'h') {
			report_usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "bhprof report: unknown or incomplete option '%s' (see --help)\n",
				argv[optind - 1]);
			return -1;
		}
		if (parse_one_arg(c, a, &nfmt))
			return -1;
		if (nfmt > 1) {
			fprintf(stderr, "bhprof report: --json, --csv and --html exclude each other\n");
			return -1;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "bhprof report: expected one FILE, got %d (see --help)\n",
			argc - optind);
		return -1;
	}
	a->file = argv[optind];
	return 0;
}

static void write_report(FILE *f, enum report_fmt fmt,
			 const struct loaded_run *run)
{
	switch (fmt) {
	case FMT_TEXT:
		report_text(f, run);
		break;
	case FMT_JSON:
		report_json(f, run);
		break;
	case FMT_CSV:
		report_csv(f, run);
		break;
	case FMT_HTML:
		html_page(f, run);
		break;
	}
}

struct report_job {
	const struct report_args *a;
	int fd;
	FILE *out;
	FILE *folded;
};

/* Everything that touches FILE's bytes: run without root (priv.h). */
static int report_job(void *arg)
{
	const struct report_job *j = arg;
	struct loaded_run run;
	int err;

	if (run_load_fd(&run, j->a->file, j->fd,
			j->a->fmt == FMT_HTML ? -HTML_ROWS : 1))
		return 1;
	write_report(j->out, j->a->fmt, &run);
	if (j->folded && !callers_known(recfile_info(run.rec)))
		fprintf(stderr, "bhprof: %s: recorded without --callers: no "
			"chains for --folded\n", j->a->file);
	err = callers_folded_close(j->folded, j->a->folded, run.sum);
	run_free(&run);
	if (err)
		return 1;
	if (fflush(j->out) == EOF || ferror(j->out)) {
		fprintf(stderr, "bhprof: %s: writing the report failed\n",
			j->a->out ? j->a->out : "standard output");
		return 1;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct outfile *of = NULL;
	struct report_args a;
	struct report_job j = { &a, -1, stdout, NULL };
	int err;

	err = parse_report_args(argc, argv, &a);
	if (err)
		return err > 0 ? 0 : 2;
	/* before reading FILE: a path that cannot be written fails first */
	if (a.out && outfile_open(a.out, a.oflags, &of))
		return 1;
	if (of)
		j.out = outfile_fp(of);
	j.folded = callers_folded_open(a.folded);
	if (a.folded && !j.folded) {
		if (of)
			outfile_abort(of);
		return 1;
	}
	j.fd = run_open(a.file);
	err = j.fd < 0 ? 1 : priv_run_dropped(report_job, &j) ? 1 : 0;
	if (j.fd < 0)
		callers_folded_close(j.folded, a.folded, NULL);
	if (j.fd >= 0)
		close(j.fd);
	if (!of)
		return err;
	if (err) {
		outfile_abort(of);
		return err;
	}
	return outfile_commit(of) ? 1 : 0;
}
