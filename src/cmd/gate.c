// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bhprof gate: is a candidate kernel worse than its baseline on a path,
 * beyond a rule's limit and beyond noise?
 *
 * Each recording is one sample: its whole-run figure. Intervals inside a
 * recording follow each other and are not independent, so they only make
 * that figure; the spread comes from repeating the workload. A rule's
 * baseline is moved by its limit (x 1.10 for "<= +10%") and the one-sided
 * rank-sum test asks whether the candidate lies beyond it; Holm's
 * correction over all rules judged keeps the chance of any false alarm in
 * the job at or below alpha. A regression also needs the Hodges-Lehmann
 * estimate of the change to pass the limit.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "gate/gate.h"
#include "util/outfile.h"
#include "util/priv.h"

#define MAX_RUNS 256
/* gate_job: every rule n/a, the verdicts written; exit status 2 */
#define GATE_NONE_JUDGED 3

/* The rules when none are given; README and the man page list them. */
static const char *const default_rules[] = {
	"bh.write.lat.p50 <= +10%",	"iomap.write.lat.p50 <= +10%",
	"bh.write.lat.p99 <= +20%",	"iomap.write.lat.p99 <= +20%",
	"bh.writeback.lat.p50 <= +10%", "iomap.writeback.lat.p50 <= +10%",
	"bh.writeback.lat.p99 <= +20%", "iomap.writeback.lat.p99 <= +20%",
	"bh.write.mb_per_s >= -10%",	"iomap.write.mb_per_s >= -10%",
	"bh.bio.size.p50 >= -10%",	"iomap.bio.size.p50 >= -10%",
	"bh.bios_per_mib <= +10%",	"iomap.bios_per_mib <= +10%",
	"bh.bh_alloc_per_mib <= +0%",	"iomap.bh_alloc_per_mib <= +0%",
};

struct gate_opts {
	const char *base[MAX_RUNS], *cand[MAX_RUNS];
	size_t nr_base, nr_cand;
	struct rule rules[MAX_RULES];
	size_t nr_rules;
	double alpha;
	bool json, ktap;
	bool allow_mixed;	/* machines or page sizes may differ */
	const char *junit;
	const char *kcidb;
	struct kcidb_opts kc;
	unsigned int oflags;	/* --force */
	/* opened with root, read and parsed without (priv_run_dropped) */
	int base_fd[MAX_RUNS], cand_fd[MAX_RUNS];
};

static void gate_usage(FILE *f)
{
	fprintf(f,
"Usage: bhprof gate --baseline A.bhp [A2.bhp ...] --candidate B.bhp [B2.bhp ...]\n"
"                   [--rule RULE ...] [--rules FILE] [--alpha 0.05]\n"
"                   [--json | --ktap] [--junit OUT.xml] [--force] [--allow-mixed]\n"
"                   [--kcidb OUT.json --kcidb-origin NAME\n"
"                    --kcidb-build-id ORIGIN:ID]\n"
"\n"
"Judge whether the candidate recordings (a kernel under test) regress on\n"
"the baseline recordings, rule by rule. Each recording is one sample (its\n"
"whole-run figure; intervals inside a run are not independent): record the\n"
"same workload several times on each kernel.\n"
"\n"
"A regression needs both: the change passes the rule's limit, and the\n"
"one-sided Wilcoxon rank-sum test against the baseline moved by that limit\n"
"is significant at alpha after Holm's correction over every rule judged.\n"
"The change is the Hodges-Lehmann estimate relative to the baseline\n"
"median, with its (1 - alpha) confidence interval.\n"
"\n"
"  --baseline FILE...   recordings of the reference kernel\n"
"  --candidate FILE...  recordings of the kernel under test\n"
"  --rule RULE          PATH.METRIC OP LIMIT%%, e.g. 'iomap.write.lat.p99 <= +10%%'\n"
"                       or 'any.bio.size.p50 >= -5%%'; FS:PATH.METRIC judges a\n"
"                       filesystem type's row ('ext4:bh.bio.count <= +5%%',\n"
"                       PATH other too, FS - for no file's); may repeat\n"
"  --rules FILE         rules, one a line, '#' comments\n"
"  --alpha A            false-alarm rate of the whole job (default 0.05)\n"
"  --json               one JSON object instead of the table\n"
"  --ktap               KTAP (kselftest, KUnit) instead of the table\n"
"  --junit OUT.xml      also write a JUnit XML report, one testcase a rule\n"
"                       (written whole, then renamed into place; never\n"
"                       through a symbolic link, never over a file)\n"
"  --kcidb OUT.json     also write a KCIDB report (KernelCI, schema 5.3): one\n"
"                       test a rule (PASS, FAIL, SKIP for n/a) with its change\n"
"                       in 'number', and one DONE test a figure the candidate\n"
"                       measured, its median in 'number'; written as --junit\n"
"  --kcidb-origin NAME  the submitting CI system, as KernelCI knows it\n"
"                       ([a-z0-9_]+); required with --kcidb\n"
"  --kcidb-build-id ORIGIN:ID  the KCIDB build the candidate kernel is;\n"
"                       required with --kcidb\n"
"  --force              let --junit and --kcidb replace existing files\n"
"  --allow-mixed        judge recordings made on different machines (x86_64,\n"
"                       aarch64) or page sizes, which gate refuses by default:\n"
"                       pages, and buffer_heads and bios per MiB, do not mean\n"
"                       the same there\n"
"\n"
"PATH: bh, iomap, or any (both as one: what comparing a kernel with\n"
"buffer heads against one without needs). OP: <= (higher is worse) or >=\n"
"(lower is worse). METRIC (bh.*: figures of the whole run, any. only;\n"
"all but bh.outside_per_mib need recordings made with --callers; those\n"
"marked * a filesystem's row has too):\n");
	for (size_t i = 0, n = 0; i < nr_figure_defs; i++) {
		if (!figure_defs[i].name)
			continue;
		fprintf(f, "%s%s%s", n % 4 ? " " : n ? "\n  " : "  ",
			figure_defs[i].name,
			figure_per_fs(&figure_defs[i]) ? "*" : "");
		n++;
	}
	fprintf(f,
"\n\nWithout rules, these apply (a rule on a figure the recordings could not\n"
"measure, like writeback latency in tracepoint mode, is skipped there; a\n"
"rule given by hand on such a figure is an error):\n");
	for (size_t i = 0; i < sizeof(default_rules) / sizeof(*default_rules); i++)
		fprintf(f, i % 2 ? "%s\n" : "  %-32s", default_rules[i]);
	fprintf(f,
"\nA rule on a path that saw nothing on a side (no event, or not the sample\n"
"its figure needs: a write call for a latency, 1 MiB written for a per-MiB\n"
"figure) is n/a (idle): neither pass nor regression, and left out of\n"
"Holm's correction. Changes and their intervals are ratios: never below\n"
"-100%%.\n"
"\nExit status: 0 no regression, 1 regression, 2 bad usage, an unreadable\n"
"recording, a rule on a figure not measured, too few recordings to judge\n"
"at alpha, or no rule judged (every one n/a or skipped).\n");
}

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "bhprof gate: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see --help)\n");
	return -1;
}

/* "--opt VALUE" or "--opt=VALUE" */
static const char *opt_value(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);

	if (!strncmp(argv[*i], opt, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (strcmp(argv[*i], opt))
		return NULL;
	if (*i + 1 >= argc)
		return "";
	return argv[++*i];
}

/* FILE... up to the next option */
static int take_files(int argc, char **argv, int *i, const char **out,
		      size_t *n, const char *opt)
{
	size_t before = *n;

	while (*i + 1 < argc && argv[*i + 1][0] != '-') {
		if (*n >= MAX_RUNS)
			return bad("more than 256 recordings after %s", opt);
		out[(*n)++] = argv[++*i];
	}
	return *n > before ? 0 : bad("%s needs at least one recording", opt);
}

static int add_rule(struct gate_opts *o, const char *text)
{
	char err[256];

	if (o->nr_rules >= MAX_RULES)
		return bad("more than %s rules", "128");
	if (rule_parse(text, &o->rules[o->nr_rules], err, sizeof(err)))
		return bad("%s", err);
	o->nr_rules++;
	return 0;
}

static int add_rules_file(struct gate_opts *o, const char *path)
{
	char err[256], msg[600];

	if (!rules_read(path, o->rules, &o->nr_rules, err, sizeof(err)))
		return 0;
	snprintf(msg, sizeof(msg), "%s:%s", path, err);
	return bad("%s", msg);
}

static int parse_alpha(struct gate_opts *o, const char *s)
{
	char *end;

	errno = 0;
	o->alpha = strtod(s, &end);
	if (!*s || *end || errno || !(o->alpha > 0 && o->alpha < 0.5))
		return bad("--alpha takes a number above 0 and below 0.5, not '%s'", s);
	return 0;
}

static int parse_one(struct gate_opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v;

	if (!strcmp(a, "--baseline"))
		return take_files(argc, argv, i, o->base, &o->nr_base, a);
	if (!strcmp(a, "--candidate"))
		return take_files(argc, argv, i, o->cand, &o->nr_cand, a);
	if (!strcmp(a, "--json"))
		return o->json = true, 0;
	if (!strcmp(a, "--ktap"))
		return o->ktap = true, 0;
	if (!strcmp(a, "--force"))
		return o->oflags |= OUTFILE_FORCE, 0;
	if (!strcmp(a, "--allow-mixed"))
		return o->allow_mixed = true, 0;
	if ((v = opt_value(argc, argv, i, "--rule")))
		return *v ? add_rule(o, v) : bad("%s needs a rule", a);
	if ((v = opt_value(argc, argv, i, "--rules")))
		return *v ? add_rules_file(o, v) : bad("%s needs a file", a);
	if ((v = opt_value(argc, argv, i, "--alpha")))
		return parse_alpha(o, v);
	if ((v = opt_value(argc, argv, i, "--junit")))
		return *v ? (o->junit = v, 0) : bad("%s needs a file", a);
	if ((v = opt_value(argc, argv, i, "--kcidb")))
		return *v ? (o->kcidb = v, 0) : bad("%s needs a file", a);
	if ((v = opt_value(argc, argv, i, "--kcidb-origin")))
		return kcidb_origin_ok(v) ? (o->kc.origin = v, 0) :
		       bad("--kcidb-origin '%s': KCIDB wants [a-z0-9_]+, 64 characters at most", v);
	if ((v = opt_value(argc, argv, i, "--kcidb-build-id")))
		return kcidb_id_ok(v) ? (o->kc.build_id = v, 0) :
		       bad("--kcidb-build-id '%s': KCIDB wants ORIGIN:ID, ORIGIN of [a-z0-9_]+, 256 characters at most", v);
	if (a[0] == '-')
		return bad("unknown or incomplete option '%s'", a);
	return bad("'%s' is not an option: recordings follow --baseline or --candidate", a);
}

/* --kcidb needs both names, and they mean nothing without it */
static int kcidb_args(const struct gate_opts *o)
{
	if (o->kcidb && !o->kc.origin)
		return bad("%s", "--kcidb needs --kcidb-origin NAME");
	if (o->kcidb && !o->kc.build_id)
		return bad("%s", "--kcidb needs --kcidb-build-id ORIGIN:ID");
	if (!o->kcidb && (o->kc.origin || o->kc.build_id))
		return bad("%s", "--kcidb-origin and --kcidb-build-id go with --kcidb FILE");
	return 0;
}

/* 1 after --help, 0 to go on, -1 on bad usage */
static int parse_gate_args(int argc, char **argv, struct gate_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = 0.05;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			gate_usage(stdout);
			return 1;
		}
		if (parse_one(o, argc, argv, &i))
			return -1;
	}
	if (!o->nr_base || !o->nr_cand)
		return bad("%s", "both --baseline and --candidate recordings are needed");
	if (o->json && o->ktap)
		return bad("%s", "--json and --ktap both want standard output: pick one");
	return kcidb_args(o);
}

static int load_side(struct side *s, const char *name, const char **files,
		     const int *fds, size_t n)
{
	s->name = name;
	s->runs = calloc(n, sizeof(*s->runs));
	if (!s->runs)
		return -1;
	for (; s->n < n; s->n++)
		if (run_load_fd(&s->runs[s->n], files[s->n], fds[s->n], 0))
			return -1;
	return 0;
}

/*
 * Pages, and what is counted per page or per MiB (buffer_heads, bios),
 * change with the architecture and its page size: a 16 KiB-page kernel
 * is not a regression of a 4 KiB one. Every recording must match the
 * first baseline's, unless --allow-mixed.
 */
static int same_machine(const struct gate *g, const struct gate_opts *o)
{
	const struct run_info *ref = recfile_info(g->base.runs[0].rec);
	const struct side *sides[] = { &g->base, &g->cand };

	if (o->allow_mixed)
		return 0;
	for (size_t s = 0; s < 2; s++) {
		for (size_t i = 0; i < sides[s]->n; i++) {
			const struct loaded_run *r = &sides[s]->runs[i];
			const struct run_info *in = recfile_info(r->rec);

			if (!strcmp(in->machine, ref->machine) &&
			    in->page_size == ref->page_size)
				continue;
			fprintf(stderr, "bhprof gate: %s was recorded on %s with "
				"%u KiB pages, %s on %s with %u KiB pages: "
				"pages and per-MiB figures differ there "
				"(--allow-mixed to judge them anyway)\n",
				r->path, in->machine, in->page_size / 1024,
				g->base.runs[0].path, ref->machine,
				ref->page_size / 1024);
			return -1;
		}
	}
	return 0;
}

static int open_side(const char **files, int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fds[i] = run_open(files[i]);
		if (fds[i] < 0)
			return -1;
	}
	return 0;
}

static void close_side(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static void free_side(struct side *s)
{
	for (size_t i = 0; i < s->n; i++)
		run_free(&s->runs[i]);
	free(s->runs);
}

static bool run_knows(const struct loaded_run *run, const struct rule *r)
{
	const struct run_info *in = recfile_info(run->rec);

	if (r->has_fs && r->path != RULE_ANY)
		return !fs_why(in, r->path, r->m->fig);
	if (r->has_fs)
		return !fs_why(in, PATH_BH, r->m->fig) &&
		       !fs_why(in, PATH_IOMAP, r->m->fig);
	if (r->path != RULE_ANY)
		return figure_known(in, r->path, r->m->fig);
	return figure_known(in, PATH_BH, r->m->fig) &&
	       figure_known(in, PATH_IOMAP, r->m->fig);
}

/* The file of either side that could not measure the rule's figure. */
static const char *unmeasured(const struct gate *g, const struct rule *r)
{
	const struct side *sides[] = { &g->base, &g->cand };

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->n; i++)
			if (!run_knows(&sides[s]->runs[i], r))
				return sides[s]->runs[i].path;
	return NULL;
}

/* the path a rule judges in one recording: both as one for "any" */
static const struct path_summary *rule_path(const struct loaded_run *run,
					    const struct rule *r)
{
	static struct path_summary any;

	if (r->has_fs)
		fs_path_summary(run->sum, r->fs,
				r->path == RULE_ANY ? NR_PATH_ROWS : r->path,
				&any);
	return r->has_fs ? &any : gate_run_path(run, r->path, &any);
}

static double rule_value(const struct loaded_run *run, const struct rule *r)
{
	return figure_value(r->m, rule_path(run, r));
}

/* why a recording has nothing for the rule to judge: its path saw no
 * event, or not the one the figure needs; NULL if it has */
static const char *idle_why(const struct loaded_run *run,
			    const struct rule *r)
{
	const struct path_summary *p = rule_path(run, r);

	if (path_idle(p))
		return "no event on the path";
	return sample_why(p, r->m->sample);
}

/* How many recordings of a side have nothing to judge, and why the
 * first of them has not. */
static size_t side_idle(const struct side *s, const struct rule *r,
			const char **why)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		const char *w = idle_why(&s->runs[i], r);

		if (w && !n++)
			*why = w;
	}
	return n;
}

/*
 * A rule on a path that saw nothing on a side is neither pass nor
 * regression: "0 ns -> 0 ns, +0.0%, pass" would claim a measurement
 * that was never made. It is n/a (idle), and Holm's correction leaves
 * it out.
 */
static void check_idle(struct gate *g)
{
	char scope[40];

	for (size_t i = 0; i < g->nr; i++) {
		struct judged *j = &g->j[i];
		const char *wa = NULL, *wb = NULL;
		size_t na, nb;

		if (j->skipped)
			continue;
		na = side_idle(&g->base, j->r, &wa);
		nb = side_idle(&g->cand, j->r, &wb);
		if (!na && !nb)
			continue;
		j->idle = true;
		snprintf(j->idle_why, sizeof(j->idle_why),
			 "%s: %s (baseline %zu of %zu recordings, candidate "
			 "%zu of %zu)", rule_scope(j->r, scope, sizeof(scope)),
			 wa ? wa : wb, na, g->base.n, nb, g->cand.n);
		j->skipped = j->idle_why;
	}
}

static int side_values(const struct side *s, const struct rule *r,
		       double **out)
{
	*out = malloc(s->n * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		(*out)[i] = rule_value(&s->runs[i], r);
	return 0;
}

static double relative(double v, double base)
{
	if (base != 0)
		return v / fabs(base);
	return v == 0 ? 0 : copysign(INFINITY, v);
}

/*
 * The change relative to the baseline. Every figure gate judges is
 * never negative: on the ratio scale its interval stays above -100%.
 * Only a baseline with a zero in it has no ratio; then the absolute
 * interval over the median, cut at -100%. True if it had the ratio.
 */
static bool relative_change(const struct gate *g, struct judged *j)
{
	struct shift q;

	if (!ratio_estimate(j->a, g->base.n, j->b, g->cand.n, 1 - g->alpha,
			    &q)) {
		j->rel = q.est - 1;
		j->rel_lo = q.have_ci ? q.lo - 1 : NAN;
		j->rel_hi = q.have_ci ? q.hi - 1 : NAN;
		return true;
	}
	j->rel = relative(j->d.est, j->med_a);
	j->rel_lo = fmax(relative(j->d.lo, j->med_a), -1);
	j->rel_hi = relative(j->d.hi, j->med_a);
	return false;
}

static int judge(const struct gate *g, struct judged *j)
{
	const struct rule *r = j->r;
	double *moved, bound;
	int err;

	err = side_values(&g->base, r, &j->a);
	err = err ?: side_values(&g->cand, r, &j->b);
	moved = err ? NULL : malloc(g->base.n * sizeof(*moved));
	if (!moved)
		return -ENOMEM;
	j->med_a = stats_median(j->a, g->base.n);
	j->med_b = stats_median(j->b, g->cand.n);
	/* the question is "beyond the limit?", not "changed at all?" */
	for (size_t i = 0; i < g->base.n; i++)
		moved[i] = j->a[i] * (1 + r->limit);
	j->p = rank_sum_p(moved, g->base.n, j->b, g->cand.n, r->worse > 0);
	free(moved);
	err = shift_estimate(j->a, g->base.n, j->b, g->cand.n, 1 - g->alpha,
			     &j->d);
	if (err)
		return err;
	/* the change printed is the change judged: on the ratio scale,
	 * where the test moved the baseline too, when there is a ratio */
	if (relative_change(g, j)) {
		j->beyond = r->worse > 0 ? j->rel > r->limit : j->rel < r->limit;
	} else {
		bound = r->limit * fabs(j->med_a);
		j->beyond = r->worse > 0 ? j->d.est > bound : j->d.est < bound;
	}
	return isnan(j->p) ? -ENOMEM : 0;
}

/*
 * A write latency timed at the function (fentry, kprobe) and one timed
 * around the syscall (tracepoint) are not the same figure: say so when
 * the recordings were not all made in one mode.
 */
static void warn_mixed_modes(const struct gate *g)
{
	const struct side *sides[] = { &g->base, &g->cand };
	const struct run_info *first = recfile_info(g->base.runs[0].rec);

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->n; i++) {
			const struct run_info *in =
				recfile_info(sides[s]->runs[i].rec);

			for (int id = 0; id < NR_PROBES; id++) {
				const struct probe_state *a = &first->probes[id];
				const struct probe_state *b = &in->probes[id];

				/* none: unseen in that mode, or the probe
				 * was named so after a change of bhprof */
				if (a->absent || b->absent || a->failed ||
				    b->failed || a->mode == b->mode ||
				    a->mode == MODE_NONE || b->mode == MODE_NONE)
					continue;
				fprintf(stderr, "bhprof gate: warning: %s was "
					"recorded in %s mode in %s and in %s "
					"mode in %s: its figures are not timed "
					"alike\n", probe_name(id),
					mode_name(a->mode),
					g->base.runs[0].path, mode_name(b->mode),
					sides[s]->runs[i].path);
				return;
			}
		}
}

/* Rules on figures no recording could measure: an error if asked for,
 * left out of the default set. */
static int check_measured(struct gate *g)
{
	for (size_t i = 0; i < g->nr; i++) {
		const char *file = unmeasured(g, g->j[i].r);

		if (!file)
			continue;
		if (!g->default_rules) {
			fprintf(stderr, "bhprof gate: rule '%s': %s did not "
				"measure %s (a probe group failed, or the "
				"attach mode cannot see it: bhprof report says "
				"which)\n", g->j[i].r->text, file,
				g->j[i].r->m->name);
			return -1;
		}
		g->j[i].skipped = "not measured in every recording (attach "
				  "mode or a failed probe group)";
	}
	return 0;
}

/* Even the most extreme outcome must be able to pass Holm's first step. */
static int check_samples(const struct gate *g)
{
	double need = g->alpha / (double)g->nr_judged;
	size_t k = 2;

	if (rank_sum_min_p(g->base.n, g->cand.n) <= need)
		return 0;
	while (rank_sum_min_p(k, k) > need)
		k++;
	fprintf(stderr, "bhprof gate: too few recordings to judge: %zu "
		"baseline and %zu candidate give no p-value below %.3g, and "
		"%zu rules at alpha %g need %.3g; record at least %zu of each\n",
		g->base.n, g->cand.n, rank_sum_min_p(g->base.n, g->cand.n),
		g->nr_judged, g->alpha, need, k);
	return -1;
}

static void apply_holm(struct gate *g)
{
	double p[MAX_RULES], adj[MAX_RULES];
	size_t k = 0;

	for (size_t i = 0; i < g->nr; i++)
		if (!g->j[i].skipped)
			p[k++] = g->j[i].p;
	holm_adjust(p, k, adj);
	k = 0;
	for (size_t i = 0; i < g->nr; i++) {
		struct judged *j = &g->j[i];

		if (j->skipped)
			continue;
		j->p_adj = adj[k++];
		j->regression = j->beyond && j->p_adj <= g->alpha;
		g->nr_regressions += j->regression;
	}
}

static int judge_all(struct gate *g, struct gate_opts *o)
{
	size_t n = sizeof(default_rules) / sizeof(*default_rules);
	char err[256];

	g->default_rules = !o->nr_rules;
	for (size_t i = 0; g->default_rules && i < n; i++)
		if (rule_parse(default_rules[i], &o->rules[o->nr_rules++], err,
			       sizeof(err)))
			return -1;
	g->nr = o->nr_rules;
	g->j = calloc(g->nr, sizeof(*g->j));
	if (!g->j)
		return -1;
	for (size_t i = 0; i < g->nr; i++)
		g->j[i].r = &o->rules[i];
	if (check_measured(g))
		return -1;
	warn_mixed_modes(g);
	check_idle(g);
	for (size_t i = 0; i < g->nr; i++)
		g->nr_judged += !g->j[i].skipped;
	/* the verdicts still print: they say why nothing was judged */
	if (!g->nr_judged)
		return 0;
	if (check_samples(g))
		return -1;
	for (size_t i = 0; i < g->nr; i++) {
		if (g->j[i].skipped)
			continue;
		if (judge(g, &g->j[i])) {
			fprintf(stderr, "bhprof gate: out of memory\n");
			return -1;
		}
	}
	apply_holm(g);
	return 0;
}

struct gate_job {
	struct gate_opts *o;
	FILE *junit;		/* the outfiles', or NULL */
	FILE *kcidb;
};

/* a report beside the verdicts: 0, or -1 when it could not be written */
static int side_report(FILE *f, const char *path, int err)
{
	if (!err && fflush(f) != EOF && !ferror(f))
		return 0;
	fprintf(stderr, "bhprof gate: %s: write failed\n", path);
	return -1;
}

/* Everything that touches the recordings: run without root. 0, 1 (a
 * regression) or 2, the exit status of gate. */
static int gate_job(void *arg)
{
	const struct gate_job *job = arg;
	struct gate_opts *o = job->o;
	struct gate g = {};
	int rc = 2;

	g.alpha = o->alpha;
	if (load_side(&g.base, "baseline", o->base, o->base_fd, o->nr_base) ||
	    load_side(&g.cand, "candidate", o->cand, o->cand_fd, o->nr_cand) ||
	    same_machine(&g, o) || judge_all(&g, o))
		goto out;
	if (o->json)
		gate_json(stdout, &g);
	else if (o->ktap)
		gate_ktap(stdout, &g);
	else
		gate_text(stdout, &g);
	if (job->junit) {
		gate_junit(job->junit, &g);
		if (side_report(job->junit, o->junit, 0))
			goto out;
	}
	if (job->kcidb &&
	    side_report(job->kcidb, o->kcidb, gate_kcidb(job->kcidb, &g, &o->kc)))
		goto out;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "bhprof gate: writing the verdicts failed\n");
		goto out;
	}
	rc = gate_exit(&g);
	if (rc == 2) {
		fprintf(stderr, "bhprof gate: no rule could be judged: every "
			"one is on a figure these recordings did not measure "
			"or on a path that saw nothing (n/a)\n");
		/* the verdicts were written: cmd_gate keeps the reports */
		rc = GATE_NONE_JUDGED;
	}
out:
	for (size_t i = 0; i < g.nr; i++) {
		free(g.j[i].a);
		free(g.j[i].b);
	}
	free(g.j);
	free_side(&g.base);
	free_side(&g.cand);
	return rc;
}

/* a report kept when the gate judged (exit 0, 1 or none judged), else
 * removed; both free it. -1 if keeping it failed */
static int report_done(struct outfile **of, int rc)
{
	int err = 0;

	if (!*of)
		return 0;
	if (rc == 2)
		outfile_abort(*of);
	else if (outfile_commit(*of))
		err = -1;
	*of = NULL;
	return err;
}

int cmd_gate(int argc, char **argv)
{
	struct gate_opts *o = calloc(1, sizeof(*o));
	struct gate_job job = { o, NULL, NULL };
	struct outfile *of = NULL, *ok = NULL;
	int rc = 2;

	if (!o)
		return 2;
	switch (parse_gate_args(argc, argv, o)) {
	case 1:
		rc = 0;
		/* fall through */
	case -1:
		goto out;
	}
	memset(o->base_fd, -1, sizeof(o->base_fd));
	memset(o->cand_fd, -1, sizeof(o->cand_fd));
	/* a report path that cannot be written fails before any work */
	if (o->junit && outfile_open(o->junit, o->oflags, &of))
		goto close;
	if (o->kcidb && outfile_open(o->kcidb, o->oflags, &ok))
		goto close;
	if (of)
		job.junit = outfile_fp(of);
	if (ok)
		job.kcidb = outfile_fp(ok);
	if (open_side(o->base, o->base_fd, o->nr_base) ||
	    open_side(o->cand, o->cand_fd, o->nr_cand))
		goto close;
	rc = priv_run_dropped(gate_job, &job);
	if (rc < 0)
		rc = 2;
	if (report_done(&of, rc) || report_done(&ok, rc))
		rc = 2;
	if (rc == GATE_NONE_JUDGED)
		rc = 2;
close:
	outfile_abort(of);
	outfile_abort(ok);
	close_side(o->base_fd, o->nr_base);
	close_side(o->cand_fd, o->nr_cand);
out:
	free(o);
	return rc;
}
