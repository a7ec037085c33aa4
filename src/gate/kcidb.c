// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The gate's verdicts as a KCIDB report (KernelCI's common format,
 * schema 5.3, kernelci/kcidb-io): one test a rule, PASS, FAIL or SKIP,
 * and one DONE test a figure the candidate measured, its median in
 * "number", so that a KernelCI dashboard keeps the figures, not only the
 * verdicts. Ids are the job's: ORIGIN:BUILD_ID/PATH, one per build and
 * test path, as KCIDB wants ids unique within an origin.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "collect/collector.h"
#include "gate.h"
#include "util/json.h"

#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3
/* what every test of one report shares, made once */
struct kcidb_ctx {
	struct json js;
	const struct gate *g;
	const struct kcidb_opts *k;
	char start[32];		/* RFC 3339 */
	char env[620];		/* both sides, as environment.comment */
};

/* an origin's and a build id's length, and room for a test's id */
#define KCIDB_MAX_ORIGIN 64
#define KCIDB_MAX_ID 256
#define TEST_ID_LEN (KCIDB_MAX_ORIGIN + KCIDB_MAX_ID + 256)

static bool origin_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* the schema's origin pattern: ^[a-z0-9_]+$, and short */
bool kcidb_origin_ok(const char *s)
{
	if (!*s || strlen(s) > KCIDB_MAX_ORIGIN)
		return false;
	for (; *s; s++)
		if (!origin_char(*s))
			return false;
	return true;
}

/* an object id: ORIGIN:ANYTHING, ORIGIN as above (argv has no NUL), short
 * enough that the tests' ids made from it stay whole */
bool kcidb_id_ok(const char *s)
{
	const char *colon = strchr(s, ':');

	if (!colon || colon == s || strlen(s) > KCIDB_MAX_ID)
		return false;
	for (; s < colon; s++)
		if (!origin_char(*s))
			return false;
	return true;
}

/* A path segment of [a-zA-Z0-9_-]: anything else becomes '_'. */
static void segment(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; *src && i + 1 < len; src++) {
		char c = *src;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '-';

		dst[i++] = ok ? c : '_';
	}
	dst[i] = 0;
}

/*
 * A rule's test path: bhprof.gate.PATH.METRIC.OP_LIMIT (a filesystem's
 * rule: bhprof.gate.fs_TYPE.PATH...), the metric's own dots kept as the
 * tree's ("any.bio.size.p50 >= -5%" is
 * bhprof.gate.any.bio.size.p50.ge_minus5pct).
 */
static const char *rule_test_path(char *buf, size_t len, const struct rule *r)
{
	char limit[32], seg[32], fs[BHP_FS_NAME + 8];
	double pct = fabs(r->limit * 100);

	snprintf(limit, sizeof(limit), "%s%g", r->limit < 0 ? "minus" : "plus",
		 pct);
	/* "2.5" would be two segments */
	for (char *c = limit; *c; c++)
		if (*c == '.')
			*c = 'p';
	segment(seg, sizeof(seg), limit);
	/* a filesystem's row: a segment of its own before the path's */
	fs[0] = 0;
	if (r->has_fs) {
		snprintf(fs, sizeof(fs), "fs_%s", r->fs[0] ? r->fs : "-");
		segment(fs + 3, sizeof(fs) - 3, fs + 3);
		strcat(fs, ".");
	}
	snprintf(buf, len, "bhprof.gate.%s%s.%s.%s_%spct", fs,
		 rule_path_name(r->path), r->m->name,
		 r->worse > 0 ? "le" : "ge", seg);
	return buf;
}

/* "2026-12-06T21:48:37Z": RFC 3339, as the schema's date-time wants */
static const char *now_rfc3339(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	return buf;
}

/* who ran against whom: the kernels, machines and page sizes of a side */
static void side_text(char *buf, size_t len, const struct side *s)
{
	const struct run_info *in = recfile_info(s->runs[0].rec);
	char k[160];

	snprintf(buf, len, "%s %s (%s, %u KiB pages, %zu recording%s)",
		 s->name, gate_kernels(k, sizeof(k), s), in->machine,
		 in->page_size / 1024, s->n, s->n == 1 ? "" : "s");
}

/* the fields every test of the report has; KCIDB keeps no environment
 * for a report, so each test names both sides */
static void test_head(struct kcidb_ctx *c, const char *path,
		      const char *status)
{
	struct json *js = &c->js;
	char id[TEST_ID_LEN];

	snprintf(id, sizeof(id), "%s:%s/%s", c->k->origin, c->k->build_id,
		 path);
	json_obj_open(js, NULL);
	json_str(js, "id", id);
	json_str(js, "build_id", c->k->build_id);
	json_str(js, "origin", c->k->origin);
	json_str(js, "path", path);
	json_str(js, "status", status);
	json_str(js, "start_time", c->start);
	json_obj_open(js, "environment");
	json_str(js, "comment", c->env);
	json_obj_close(js);
}

/*
 * A bhprof unit in KCIDB's terms: a unit symbol without prefix, the
 * value scaled to it, and the kind of prefix a dashboard may add.
 */
static void number(struct json *js, enum figure_unit u, double v)
{
	/* KCIDB has no null: no number rather than none */
	if (!isfinite(v))
		return;
	json_obj_open(js, "number");
	switch (u) {
	case U_BYTES:
		json_double(js, "value", v);
		json_str(js, "unit", "B");
		json_str(js, "prefix", "binary");
		break;
	case U_RATE:
		json_double(js, "value", v * 1048576);
		json_str(js, "unit", "B/s");
		json_str(js, "prefix", "binary");
		break;
	case U_NS:
		json_double(js, "value", v / 1e9);
		json_str(js, "unit", "s");
		json_str(js, "prefix", "metric");
		break;
	case U_COUNT:
		json_double(js, "value", v);
		json_str(js, "prefix", "metric");
		break;
	default:
		/* buffer_heads or bios per MiB, call or page: a plain ratio */
		json_double(js, "value", v);
	}
	json_obj_close(js);
}

static const char *rule_status(const struct judged *j)
{
	if (j->skipped)
		return "SKIP";
	return j->regression ? "FAIL" : "PASS";
}

static void rule_misc(struct json *js, const struct judged *j)
{
	json_obj_open(js, "misc");
	gate_rule_json(js, j->r);
	if (j->skipped) {
		json_str(js, "why", j->skipped);
		json_obj_close(js);
		return;
	}
	json_double(js, "baseline_median", j->med_a);
	json_double(js, "candidate_median", j->med_b);
	if (isfinite(j->rel))
		json_double(js, "change_pct", j->rel * 100);
	json_double(js, "change_abs", j->d.est);
	if (j->d.have_ci && isfinite(j->rel_lo) && isfinite(j->rel_hi)) {
		json_double(js, "ci_low_pct", j->rel_lo * 100);
		json_double(js, "ci_high_pct", j->rel_hi * 100);
	}
	if (j->d.have_ci) {
		json_double(js, "ci_low_abs", j->d.lo);
		json_double(js, "ci_high_abs", j->d.hi);
	}
	json_double(js, "p", j->p);
	json_double(js, "p_adjusted", j->p_adj);
	json_bool(js, "beyond_limit", j->beyond);
	json_obj_close(js);
}

/*
 * One rule: its verdict line as the comment and, where it was judged,
 * the change in "number": relative, in %, or, from a zero baseline, the
 * absolute change in the figure's unit.
 */
static void rule_test(struct kcidb_ctx *c, const struct judged *j)
{
	struct json *js = &c->js;
	char path[256], line[600], detail[400];

	test_head(c, rule_test_path(path, sizeof(path), j->r), rule_status(j));
	if (j->skipped)
		snprintf(line, sizeof(line), "%s: %s: %s", j->r->text,
			 gate_verdict(j), j->skipped);
	else
		snprintf(line, sizeof(line), "%s: %s: %s", j->r->text,
			 gate_detail(detail, sizeof(detail), j),
			 gate_verdict(j));
	json_str(js, "comment", line);
	if (!j->skipped && isfinite(j->rel)) {
		json_obj_open(js, "number");
		json_double(js, "value", j->rel * 100);
		json_str(js, "unit", "%");
		json_obj_close(js);
	} else if (!j->skipped) {
		number(js, j->r->m->unit, j->d.est);
	}
	rule_misc(js, j);
	json_obj_close(js);
}

/* ---- figures: the candidate's median of every one it measured ---- */

/* did run measure m on p, its path (any: on both paths, as the gate
 * asks)? */
static bool run_measured(const struct loaded_run *run,
			 const struct figure_def *m, int path,
			 const struct path_summary *p)
{
	const struct run_info *in = recfile_info(run->rec);

	if (path != RULE_ANY)
		return !metric_why(m, in, path, p);
	return !metric_why(m, in, PATH_BH, p) && !metric_why(m, in, PATH_IOMAP, p);
}

/* the median of m on path over side's recordings; false if one of them
 * did not measure it */
static bool side_median(const struct side *s, const struct figure_def *m,
			int path, double *v, double *med)
{
	struct path_summary any;

	for (size_t i = 0; i < s->n; i++) {
		const struct path_summary *p =
			gate_run_path(&s->runs[i], path, &any);

		if (!run_measured(&s->runs[i], m, path, p))
			return false;
		v[i] = figure_value(m, p);
	}
	*med = stats_median(v, s->n);
	return true;
}

static void values(struct json *js, const char *key, const double *v,
		   size_t n)
{
	json_arr_open(js, key);
	for (size_t i = 0; i < n; i++)
		json_double(js, NULL, v[i]);
	json_arr_close(js);
}

static int figure_test(struct kcidb_ctx *c, const struct figure_def *m,
		       int path)
{
	const struct gate *g = c->g;
	struct json *js = &c->js;
	size_t n = g->base.n > g->cand.n ? g->base.n : g->cand.n;
	double *v = calloc(n, sizeof(*v)), *va = calloc(n, sizeof(*va));
	double med, med_a;
	char tpath[160], line[256], t[32];
	bool base;

	if (!v || !va) {
		free(v);
		free(va);
		return -1;
	}
	if (!side_median(&g->cand, m, path, v, &med) || !isfinite(med))
		goto out;
	base = side_median(&g->base, m, path, va, &med_a);
	snprintf(tpath, sizeof(tpath), "bhprof.figures.%s.%s",
		 rule_path_name(path), m->name);
	test_head(c, tpath, "DONE");
	snprintf(line, sizeof(line), "%s %s: candidate median %s over %zu "
		 "recording%s", rule_path_name(path), m->label,
		 metric_fmt(t, sizeof(t), m->unit, med), g->cand.n,
		 g->cand.n == 1 ? "" : "s");
	json_str(js, "comment", line);
	number(js, m->unit, med);
	json_obj_open(js, "misc");
	json_str(js, "metric", m->name);
	json_str(js, "path", rule_path_name(path));
	values(js, "candidate", v, g->cand.n);
	if (base) {
		json_double(js, "baseline_median", med_a);
		values(js, "baseline", va, g->base.n);
	}
	json_obj_close(js);
	json_obj_close(js);
out:
	free(v);
	free(va);
	return 0;
}

int gate_kcidb(FILE *f, const struct gate *g, const struct kcidb_opts *k)
{
	static const int paths[] = { PATH_BH, PATH_IOMAP };
	struct kcidb_ctx c = { .g = g, .k = k };
	struct json *js = &c.js;
	char a[300], b[300];
	int err = 0;

	now_rfc3339(c.start, sizeof(c.start));
	side_text(a, sizeof(a), &g->base);
	side_text(b, sizeof(b), &g->cand);
	snprintf(c.env, sizeof(c.env), "%s; %s", a, b);
	json_init(js, f, true);
	json_obj_open(js, NULL);
	json_obj_open(js, "version");
	json_u64(js, "major", KCIDB_MAJOR);
	json_u64(js, "minor", KCIDB_MINOR);
	json_obj_close(js);
	json_arr_open(js, "tests");
	for (size_t i = 0; i < g->nr; i++)
		rule_test(&c, &g->j[i]);
	for (size_t i = 0; i < nr_figure_defs && !err; i++) {
		const struct figure_def *m = &figure_defs[i];

		if (!m->name)
			continue;
		if (figure_any_only(m)) {
			err = figure_test(&c, m, RULE_ANY);
			continue;
		}
		for (size_t p = 0; p < 2 && !err; p++)
			err = figure_test(&c, m, paths[p]);
	}
	json_arr_close(js);
	json_obj_close(js);
	json_end(js);
	return err;
}
