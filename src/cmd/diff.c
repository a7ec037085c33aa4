// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bhprof diff: two recordings side by side, per path and metric, with the
 * absolute and relative change from A to B.
 */
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "output/callers_diff.h"
#include "commands.h"
#include "gate/metrics.h"
#include "model/fsrows.h"
#include "output/output.h"
#include "util/priv.h"
#include "recfile/run.h"

/* NAN when A is zero: no relative change from nothing. */
static double rel_pct(double a, double b)
{
	return a != 0 ? (b - a) / fabs(a) * 100 : NAN;
}

/*
 * What diff compares: a path of both runs, or a filesystem type's rows
 * on a path (name set), whose figures are those figure_per_fs() gives.
 */
struct dcol {
	const char *name;
	unsigned int path;
	const struct path_summary *pa, *pb;
};

/* why run has no value for m in c (p its side): a lost group, an attach
 * mode that cannot see it, or nothing to measure there */
static const char *run_why(const struct loaded_run *run, const struct dcol *c,
			   const struct path_summary *p,
			   const struct figure_def *m)
{
	const struct run_info *in = recfile_info(run->rec);

	if (c->name)
		return fs_figure_why(in, c->path, p, m->fig, m->sample);
	return metric_why(m, in, c->path, p);
}

static bool col_has(const struct dcol *c, const struct figure_def *m)
{
	return m->diff && (!c->name || figure_per_fs(m));
}

/* each side's why, NULL for both when both know m */
static bool both_known(const struct loaded_run *a, const struct loaded_run *b,
		       const struct dcol *c, const struct figure_def *m,
		       const char **wa, const char **wb)
{
	*wa = run_why(a, c, c->pa, m);
	*wb = run_why(b, c, c->pb, m);
	return !*wa && !*wb;
}

static void col_text(FILE *f, const struct loaded_run *a,
		     const struct loaded_run *b, const struct dcol *c,
		     const char *title)
{
	char x[32], y[32], d[40], r[32];
	const char *wa, *wb;

	fprintf(f, "\n%-18s %14s %14s %14s %9s\n", title, "A", "B", "B - A",
		"change");
	for (size_t i = 0; i < nr_figure_defs; i++) {
		const struct figure_def *m = &figure_defs[i];
		double va = figure_value(m, c->pa);
		double vb = figure_value(m, c->pb);
		double rp = rel_pct(va, vb);

		if (!col_has(c, m))
			continue;
		if (!both_known(a, b, c, m, &wa, &wb)) {
			/* each side's value, or why it has none: failed,
			 * n/a, absent, unrecorded */
			fprintf(f, "  %-16s %14s %14s %14s %9s\n", m->label,
				wa ? why_cell(wa) :
				     metric_fmt(x, sizeof(x), m->unit, va),
				wb ? why_cell(wb) :
				     metric_fmt(y, sizeof(y), m->unit, vb),
				"-", "n/a");
			continue;
		}
		metric_fmt(d + 1, sizeof(d) - 1, m->unit, vb - va);
		d[0] = vb > va ? '+' : ' ';
		if (isnan(rp))
			snprintf(r, sizeof(r), "%s", va == vb ? "0.0%" : "n/a");
		else
			snprintf(r, sizeof(r), "%+.1f%%", rp);
		fprintf(f, "  %-16s %14s %14s %14s %9s\n", m->label,
			metric_fmt(x, sizeof(x), m->unit, va),
			metric_fmt(y, sizeof(y), m->unit, vb),
			d[0] == '+' ? d : d + 1, r);
	}
}

/* the filesystem rows of either run: a's, then b's that a lacks */
static const struct fs_summary *fs_nth(const struct loaded_run *a,
				       const struct loaded_run *b, uint32_t i)
{
	const struct summary *sa = a->sum, *sb = b->sum;

	if (i < sa->nr_fs)
		return &sa->fs[i];
	i -= sa->nr_fs;
	for (uint32_t k = 0; k < sb->nr_fs; k++) {
		const struct fs_summary *f = &sb->fs[k];
		bool in_a = false;

		for (uint32_t n = 0; n < sa->nr_fs && !in_a; n++)
			in_a = !strcmp(sa->fs[n].name, f->name) &&
			       sa->fs[n].path == f->path;
		if (!in_a && !i--)
			return f;
	}
	return NULL;
}

/* the i-th filesystem row of either run as a column, false past them */
static bool fs_col(const struct loaded_run *a, const struct loaded_run *b,
		   uint32_t i, struct dcol *c)
{
	static struct path_summary pa, pb;
	const struct fs_summary *f = fs_nth(a, b, i);

	if (!f)
		return false;
	c->name = f->name;
	c->path = f->path;
	fs_path_summary(a->sum, f->name, f->path, &pa);
	fs_path_summary(b->sum, f->name, f->path, &pb);
	c->pa = &pa;
	c->pb = &pb;
	return true;
}

static bool fs_both(const struct loaded_run *a, const struct loaded_run *b)
{
	return recfile_info(a->rec)->features & recfile_info(b->rec)->features &
	       RUN_F_FS;
}

static void diff_text(FILE *f, const struct loaded_run *a,
		      const struct loaded_run *b)
{
	char title[40];
	struct dcol c;

	fprintf(f, "A: %s (kernel %s, %.1f s)\nB: %s (kernel %s, %.1f s)\n",
		a->path, recfile_info(a->rec)->release, a->secs, b->path,
		recfile_info(b->rec)->release, b->secs);
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		c = (struct dcol){ NULL, p, &a->sum->path[p], &b->sum->path[p] };
		col_text(f, a, b, &c, path_name(p));
	}
	for (uint32_t i = 0; fs_both(a, b) && fs_col(a, b, i, &c); i++) {
		snprintf(title, sizeof(title), "%s/%s", fs_label(c.name),
			 path_name(c.path));
		col_text(f, a, b, &c, title);
	}
	callers_diff_text(f, recfile_info(a->rec), a->sum,
			  recfile_info(b->rec), b->sum);
}

static void run_json(struct json *j, const char *key,
		     const struct loaded_run *run)
{
	const struct run_info *in = recfile_info(run->rec);

	json_obj_open(j, key);
	json_str(j, "file", run->path);
	json_str(j, "bhprof_version", in->version);
	json_str(j, "kernel", in->release);
	json_str(j, "hostname", in->hostname);
	json_double(j, "duration_s", run->secs);
	json_u64(j, "snapshots", run->snapshots);
	json_u64(j, "warnings", recfile_nr_warnings(run->rec));
	json_obj_close(j);
}

/* each side's value or null, and why, where either side lacks it */
static void unknown_json(struct json *j, const struct dcol *c,
			 const struct figure_def *m, const char *wa,
			 const char *wb)
{
	struct json_whys w = { 0 };

	json_double_why(j, &w, "a", figure_value(m, c->pa), why_text(wa));
	json_double_why(j, &w, "b", figure_value(m, c->pb), why_text(wb));
	json_null(j, "abs");
	json_null(j, "rel_pct");
	json_whys_close(j, &w);
}

/* the members of c's object: a change per figure */
static void col_json(struct json *j, const struct loaded_run *a,
		     const struct loaded_run *b, const struct dcol *c)
{
	const char *wa, *wb;

	for (size_t i = 0; i < nr_figure_defs; i++) {
		const struct figure_def *m = &figure_defs[i];
		double va = figure_value(m, c->pa);
		double vb = figure_value(m, c->pb);
		double rp = rel_pct(va, vb);

		if (!col_has(c, m))
			continue;
		json_obj_open(j, m->diff);
		if (!both_known(a, b, c, m, &wa, &wb)) {
			unknown_json(j, c, m, wa, wb);
			json_obj_close(j);
			continue;
		}
		if (figure_whole(m)) {
			json_u64(j, "a", (uint64_t)va);
			json_u64(j, "b", (uint64_t)vb);
			json_i64(j, "abs", (int64_t)vb - (int64_t)va);
		} else {
			json_double(j, "a", va);
			json_double(j, "b", vb);
			json_double(j, "abs", vb - va);
		}
		if (!isnan(rp))
			json_double(j, "rel_pct", rp);
		else
			json_null(j, "rel_pct");
		json_obj_close(j);
	}
}

static void diff_json(FILE *f, const struct loaded_run *a,
		      const struct loaded_run *b)
{
	struct json j;
	struct dcol c;

	json_init(&j, f, true);
	json_obj_open(&j, NULL);
	run_json(&j, "a", a);
	run_json(&j, "b", b);
	json_obj_open(&j, "paths");
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		c = (struct dcol){ NULL, p, &a->sum->path[p], &b->sum->path[p] };
		json_obj_open(&j, path_name(p));
		col_json(&j, a, b, &c);
		json_obj_close(&j);
	}
	json_obj_close(&j);
	/* null where either recording was made before the rows */
	if (!fs_both(a, b))
		json_null(&j, "filesystems");
	else
		json_arr_open(&j, "filesystems");
	for (uint32_t i = 0; fs_both(a, b) && fs_col(a, b, i, &c); i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "fs", fs_label(c.name));
		json_str(&j, "path", path_name(c.path));
		col_json(&j, a, b, &c);
		json_obj_close(&j);
	}
	if (fs_both(a, b))
		json_arr_close(&j);
	callers_diff_json(&j, recfile_info(a->rec), a->sum,
			  recfile_info(b->rec), b->sum);
	json_obj_close(&j);
	json_end(&j);
}

static void diff_usage(FILE *f)
{
	fprintf(f,
"Usage: bhprof diff [--json] A B\n"
"\n"
"Compare two recordings made by 'bhprof record': per path (bh, iomap) and\n"
"metric (write calls, bytes, MiB/s, latency p50/p99/max, writeback pages,\n"
"bios, bio MiB/s and sizes, buffer_head allocations and per MiB), the\n"
"value in A, in B, the change B - A and the change relative to A.\n"
"\n"
"      --json           one JSON object: {\"a\", \"b\", \"paths\": {PATH:\n"
"                       {METRIC: {\"a\", \"b\", \"abs\", \"rel_pct\"}}}}\n"
"\n"
"Exit status: 0, 1 if A or B cannot be read, 2 on bad usage.\n");
}

static int parse_diff_args(int argc, char **argv, bool *json)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c;

	optind = 1;
	opterr = 0;
	*json = false;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			diff_usage(stdout);
			return 1;
		}
		if (c != 'j') {
			fprintf(stderr, "bhprof diff: unknown or incomplete option '%s' (see --help)\n",
				argv[optind - 1]);
			return -1;
		}
		*json = true;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "bhprof diff: expected two files A B, got %d (see --help)\n",
			argc - optind);
		return -1;
	}
	return 0;
}

struct diff_job {
	const char *path[2];
	int fd[2];
	bool json;
};

/* Everything that touches the recordings' bytes: run without root. */
static int diff_job(void *arg)
{
	const struct diff_job *j = arg;
	struct loaded_run a, b;

	if (run_load_fd(&a, j->path[0], j->fd[0], 0))
		return 1;
	if (run_load_fd(&b, j->path[1], j->fd[1], 0)) {
		run_free(&a);
		return 1;
	}
	if (j->json)
		diff_json(stdout, &a, &b);
	else
		diff_text(stdout, &a, &b);
	run_free(&a);
	run_free(&b);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "bhprof: writing the diff failed\n");
		return 1;
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_job j = { .fd = { -1, -1 } };
	int err, ret = 1;

	err = parse_diff_args(argc, argv, &j.json);
	if (err)
		return err > 0 ? 0 : 2;
	for (int i = 0; i < 2; i++) {
		j.path[i] = argv[optind + i];
		j.fd[i] = run_open(j.path[i]);
		if (j.fd[i] < 0)
			goto out;
	}
	ret = priv_run_dropped(diff_job, &j) ? 1 : 0;
out:
	for (int i = 0; i < 2; i++)
		if (j.fd[i] >= 0)
			close(j.fd[i]);
	return ret;
}
