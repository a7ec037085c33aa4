// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The gate's verdicts for people (a table for a CI log) and for machines:
 * JSON, KTAP as kselftest and KUnit print it, and JUnit XML.
 */
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "collect/collector.h"
#include "gate.h"
#include "util/json.h"
#include "output/callers_out.h"
#include "output/output.h"

static const char *pct(char *buf, size_t len, double v)
{
	if (isinf(v))
		snprintf(buf, len, "%sinf%%", v > 0 ? "+" : "-");
	else
		snprintf(buf, len, "%+.1f%%", v * 100);
	return buf;
}

const char *gate_change(char *buf, size_t len, const struct judged *j,
			double rel, double abs)
{
	char t[32];

	/* from a zero baseline, say how much, not "+inf%" */
	if (j->med_a == 0 && abs != 0) {
		metric_fmt(t, sizeof(t), j->r->m->unit, abs);
		snprintf(buf, len, "%s%s", abs > 0 ? "+" : "", t);
		return buf;
	}
	return pct(buf, len, rel);
}

int gate_exit(const struct gate *g)
{
	if (!g->nr_judged)
		return 2;
	return g->nr_regressions ? 1 : 0;
}

const char *gate_verdict(const struct judged *j)
{
	if (j->idle)
		return "n/a (idle)";
	if (j->skipped)
		return "skipped";
	if (j->regression)
		return "REGRESSION";
	return j->beyond ? "pass (not significant)" : "pass";
}

static const char *ci_text(char *buf, size_t len, const struct judged *j)
{
	char lo[32], hi[32];

	if (!j->d.have_ci)
		return "n/a (too few runs)";
	snprintf(buf, len, "[%s, %s]",
		 gate_change(lo, sizeof(lo), j, j->rel_lo, j->d.lo),
		 gate_change(hi, sizeof(hi), j, j->rel_hi, j->d.hi));
	return buf;
}

const char *gate_detail(char *buf, size_t len, const struct judged *j)
{
	char va[32], vb[32], ch[40], ci[80];

	snprintf(buf, len, "baseline %s, candidate %s, change %s %s, "
		 "p %.3g, p(holm) %.3g",
		 metric_fmt(va, sizeof(va), j->r->m->unit, j->med_a),
		 metric_fmt(vb, sizeof(vb), j->r->m->unit, j->med_b),
		 gate_change(ch, sizeof(ch), j, j->rel, j->d.est),
		 ci_text(ci, sizeof(ci), j), j->p, j->p_adj);
	return buf;
}

/* was release already named by an earlier recording of the side? */
static bool seen_release(const struct side *s, size_t i)
{
	const char *rel = recfile_info(s->runs[i].rec)->release;

	for (size_t k = 0; k < i; k++)
		if (!strcmp(recfile_info(s->runs[k].rec)->release, rel))
			return true;
	return false;
}

const char *gate_kernels(char *buf, size_t len, const struct side *s)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < s->n && n < len; i++) {
		if (seen_release(s, i))
			continue;
		n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
			      recfile_info(s->runs[i].rec)->release);
	}
	return buf;
}

void gate_text(FILE *f, const struct gate *g)
{
	char ka[160], kb[160], va[32], vb[32], ch[40], ci[80];

	fprintf(f, "bhprof gate: baseline %zu recording%s (%s), candidate %zu "
		"recording%s (%s)\n", g->base.n, g->base.n == 1 ? "" : "s",
		gate_kernels(ka, sizeof(ka), &g->base), g->cand.n,
		g->cand.n == 1 ? "" : "s", gate_kernels(kb, sizeof(kb), &g->cand));
	fprintf(f, "alpha %g, Holm's correction over %zu rule%s; one sample "
		"per recording; change: Hodges-Lehmann, %g%% CI\n\n",
		g->alpha, g->nr_judged, g->nr_judged == 1 ? "" : "s",
		(1 - g->alpha) * 100);
	fprintf(f, "%-34s %11s %11s %10s %-26s %8s %8s  %s\n", "RULE",
		"BASELINE", "CANDIDATE", "CHANGE", "CI", "P", "P(HOLM)",
		"VERDICT");
	for (size_t i = 0; i < g->nr; i++) {
		const struct judged *j = &g->j[i];

		if (j->idle)
			fprintf(f, "%-34s %11s %11s %10s %-26s %8s %8s  %s\n",
				j->r->text, "-", "-", "-", "-", "-", "-",
				gate_verdict(j));
		if (j->skipped)
			continue;
		fprintf(f, "%-34s %11s %11s %10s %-26s %8.3g %8.3g  %s\n",
			j->r->text,
			metric_fmt(va, sizeof(va), j->r->m->unit, j->med_a),
			metric_fmt(vb, sizeof(vb), j->r->m->unit, j->med_b),
			gate_change(ch, sizeof(ch), j, j->rel, j->d.est),
			ci_text(ci, sizeof(ci), j), j->p, j->p_adj,
			gate_verdict(j));
	}
	for (size_t i = 0; i < g->nr; i++)
		if (g->j[i].skipped)
			fprintf(f, "%s: %s: %s\n", gate_verdict(&g->j[i]),
				g->j[i].r->text, g->j[i].skipped);
	if (!g->nr_judged)
		fprintf(f, "\nresult: no rule judged (exit 2)\n");
	else if (g->nr_regressions)
		fprintf(f, "\nresult: REGRESSION in %zu of %zu rules (exit 1)\n",
			g->nr_regressions, g->nr_judged);
	else
		fprintf(f, "\nresult: pass, %zu rules (exit 0)\n", g->nr_judged);
}

/* ---- JSON ---- */

static void values_json(struct json *js, const char *key, const double *v,
			size_t n, double med)
{
	json_obj_open(js, key);
	json_double(js, "median", med);
	json_arr_open(js, "values");
	for (size_t i = 0; i < n; i++)
		json_double(js, NULL, v[i]);
	json_arr_close(js);
	json_obj_close(js);
}

static void double_or_null(struct json *js, const char *key, double v)
{
	if (isfinite(v))
		json_double(js, key, v * 100);
	else
		json_null(js, key);
}

const struct path_summary *gate_run_path(const struct loaded_run *run,
					  int path, struct path_summary *any)
{
	const struct summary *s = run->sum;

	if (path != RULE_ANY)
		return &s->path[path];
	path_merge(&s->path[PATH_BH], &s->path[PATH_IOMAP], s->secs, any);
	callers_any(s, any);
	return any;
}

void gate_rule_json(struct json *js, const struct rule *r)
{
	json_str(js, "rule", r->text);
	json_str(js, "path", rule_path_name(r->path));
	if (r->has_fs)
		json_str(js, "fs", r->fs[0] ? r->fs : "-");
	json_str(js, "metric", r->m->name);
	json_str(js, "op", r->worse > 0 ? "<=" : ">=");
	json_double(js, "limit_pct", r->limit * 100);
}

static void judged_json(struct json *js, const struct gate *g,
			const struct judged *j)
{
	json_obj_open(js, NULL);
	gate_rule_json(js, j->r);
	if (j->skipped) {
		json_str(js, "verdict", gate_verdict(j));
		json_str(js, "why", j->skipped);
		json_obj_close(js);
		return;
	}
	values_json(js, "baseline", j->a, g->base.n, j->med_a);
	values_json(js, "candidate", j->b, g->cand.n, j->med_b);
	/* null where the baseline is zero: no relative change from nothing */
	double_or_null(js, "change_pct", j->rel);
	json_double(js, "change_abs", j->d.est);
	if (j->d.have_ci) {
		json_arr_open(js, "ci_pct");
		json_double(js, NULL, isfinite(j->rel_lo) ? j->rel_lo * 100 : NAN);
		json_double(js, NULL, isfinite(j->rel_hi) ? j->rel_hi * 100 : NAN);
		json_arr_close(js);
		json_arr_open(js, "ci_abs");
		json_double(js, NULL, j->d.lo);
		json_double(js, NULL, j->d.hi);
		json_arr_close(js);
	} else {
		json_null(js, "ci_pct");
		json_null(js, "ci_abs");
	}
	json_double(js, "p", j->p);
	json_double(js, "p_adjusted", j->p_adj);
	json_bool(js, "beyond_limit", j->beyond);
	json_str(js, "verdict", j->regression ? "regression" : "pass");
	json_obj_close(js);
}

static void side_json(struct json *js, const struct side *s)
{
	json_obj_open(js, s->name);
	json_u64(js, "n", s->n);
	json_arr_open(js, "files");
	for (size_t i = 0; i < s->n; i++)
		json_str(js, NULL, s->runs[i].path);
	json_arr_close(js);
	json_arr_open(js, "kernels");
	for (size_t i = 0; i < s->n; i++)
		json_str(js, NULL, recfile_info(s->runs[i].rec)->release);
	json_arr_close(js);
	json_obj_close(js);
}

void gate_json(FILE *f, const struct gate *g)
{
	struct json js;

	json_init(&js, f, true);
	json_obj_open(&js, NULL);
	json_str(&js, "bhprof_version", bhprof_version);
	json_double(&js, "alpha", g->alpha);
	json_str(&js, "test", "wilcoxon rank-sum, one-sided, against the "
			      "baseline moved by the limit");
	json_str(&js, "correction", "holm");
	json_double(&js, "confidence", 1 - g->alpha);
	json_bool(&js, "default_rules", g->default_rules);
	side_json(&js, &g->base);
	side_json(&js, &g->cand);
	json_arr_open(&js, "rules");
	for (size_t i = 0; i < g->nr; i++)
		judged_json(&js, g, &g->j[i]);
	json_arr_close(&js);
	json_u64(&js, "judged", g->nr_judged);
	json_u64(&js, "regressions", g->nr_regressions);
	json_str(&js, "verdict", !g->nr_judged ? "none judged" :
				 g->nr_regressions ? "regression" : "pass");
	json_i64(&js, "exit_status", gate_exit(g));
	json_obj_close(&js);
	json_end(&js);
}

/* ---- KTAP (Documentation/dev-tools/ktap.rst) ---- */

void gate_ktap(FILE *f, const struct gate *g)
{
	char msg[400];

	fprintf(f, "KTAP version 1\n1..%zu\n", g->nr);
	for (size_t i = 0; i < g->nr; i++) {
		const struct judged *j = &g->j[i];

		if (j->skipped) {
			fprintf(f, "# %s: %s\n", j->r->text, j->skipped);
			fprintf(f, "ok %zu %s # SKIP %s\n", i + 1,
				j->r->text, j->idle ? "n/a (idle)" :
						      "not measured");
			continue;
		}
		fprintf(f, "# %s: %s\n", j->r->text,
			gate_detail(msg, sizeof(msg), j));
		fprintf(f, "%s %zu %s\n", j->regression ? "not ok" : "ok", i + 1,
			j->r->text);
	}
	fprintf(f, "# bhprof gate: %s, %zu of %zu rules regressed, alpha %g\n",
		!g->nr_judged ? "no rule judged" :
		g->nr_regressions ? "regression" : "pass", g->nr_regressions,
		g->nr_judged, g->alpha);
}

/* ---- JUnit XML ---- */

static void junit_case(FILE *f, const struct judged *j)
{
	char msg[400];

	char scope[40];

	fprintf(f, "    <testcase classname=\"bhprof.gate.%s\" name=\"",
		rule_scope(j->r, scope, sizeof(scope)));
	markup_esc(f, j->r->text);
	fputs("\" time=\"0\"", f);
	if (j->skipped) {
		fputs(">\n      <skipped message=\"", f);
		if (j->idle)
			fputs("n/a (idle): ", f);
		markup_esc(f, j->skipped);
		fputs("\"/>\n    </testcase>\n", f);
		return;
	}
	gate_detail(msg, sizeof(msg), j);
	if (!j->regression) {
		fputs(">\n      <system-out>", f);
		markup_esc(f, msg);
		fputs("</system-out>\n    </testcase>\n", f);
		return;
	}
	fputs(">\n      <failure type=\"regression\" message=\"", f);
	markup_esc(f, msg);
	fputs("\">", f);
	markup_esc(f, j->r->text);
	fputs(" does not hold: ", f);
	markup_esc(f, msg);
	fputs("</failure>\n    </testcase>\n", f);
}

void gate_junit(FILE *f, const struct gate *g)
{
	size_t skipped = g->nr - g->nr_judged;
	char host[256] = "localhost", ts[32];
	time_t now = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", gmtime_r(&now, &tm));
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"bhprof gate\" tests=\"%zu\" "
		"failures=\"%zu\" errors=\"0\" time=\"0\">\n", g->nr,
		g->nr_regressions);
	fprintf(f, "  <testsuite name=\"bhprof gate\" tests=\"%zu\" "
		"failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"0\" "
		"timestamp=\"%s\" hostname=\"", g->nr, g->nr_regressions,
		skipped, ts);
	markup_esc(f, host);
	fputs("\">\n    <properties>\n", f);
	fprintf(f, "      <property name=\"alpha\" value=\"%g\"/>\n", g->alpha);
	fprintf(f, "      <property name=\"correction\" value=\"holm\"/>\n");
	fprintf(f, "      <property name=\"baseline_recordings\" value=\"%zu\"/>\n",
		g->base.n);
	fprintf(f, "      <property name=\"candidate_recordings\" value=\"%zu\"/>\n",
		g->cand.n);
	fputs("    </properties>\n", f);
	for (size_t i = 0; i < g->nr; i++)
		junit_case(f, &g->j[i]);
	fputs("  </testsuite>\n</testsuites>\n", f);
}
