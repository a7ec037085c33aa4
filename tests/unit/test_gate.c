// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The gate's statistics and rule parser, against values worked by hand. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "harness.h"
#include "gate/rules.h"
#include "util/stats.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

TEST(rank_sum_exact_no_overlap)
{
	const double x[] = { 1, 2, 3 }, y[] = { 4, 5, 6 };

	/* one of C(6,3) = 20 splits is this extreme */
	CHECK(NEAR(rank_sum_p(x, 3, y, 3, true), 1.0 / 20));
	CHECK(NEAR(rank_sum_p(x, 3, y, 3, false), 1.0));
	CHECK(NEAR(rank_sum_min_p(3, 3), 1.0 / 20));
	CHECK(NEAR(rank_sum_min_p(8, 8), 1.0 / 12870));
}

TEST(rank_sum_exact_ties)
{
	const double same[] = { 7, 7, 7, 7 };
	const double zero[] = { 0, 0, 0, 0 }, five[] = { 5, 5, 5, 5 };
	/* y = {2, 3} among {1, 2, 3}: ranks of y sum to 5 of
	 * sums {3, 4, 5} over C(4,2)=6 splits of 1 2 2 3 with midranks */
	const double x[] = { 1, 2 }, y[] = { 2, 3 };

	CHECK(NEAR(rank_sum_p(same, 4, same, 4, true), 1));
	CHECK(NEAR(rank_sum_p(same, 4, same, 4, false), 1));
	CHECK(NEAR(rank_sum_p(zero, 4, five, 4, true), 1.0 / 70));
	/* pooled 1 2 2 3, midranks 1 2.5 2.5 4; y holds 2.5 + 4 = 6.5;
	 * pairs reaching 6.5: {2.5,4} twice -> 2/6 */
	CHECK(NEAR(rank_sum_p(x, 2, y, 2, true), 2.0 / 6));
}

TEST(rank_sum_normal_approximation)
{
	double x[40], y[40];

	for (int i = 0; i < 40; i++) {
		x[i] = i;
		y[i] = i + 100;
	}
	/* 80 values: beyond the exact limit */
	CHECK(rank_sum_p(x, 40, y, 40, true) < 1e-9);
	CHECK(rank_sum_p(x, 40, y, 40, false) > 0.999);
	CHECK(fabs(rank_sum_p(x, 40, x, 40, true) - 0.5) < 0.05);
}

TEST(hodges_lehmann_and_interval)
{
	const double x[] = { 1, 2, 3, 4, 5 }, y[] = { 3, 4, 5, 6, 7 };
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	struct shift s;

	CHECK(!shift_estimate(x, 5, y, 5, 0.95, &s));
	CHECK(NEAR(s.est, 2));
	/* n = m = 5: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252, so
	 * three differences are left out at each end: [-1, 5] */
	CHECK(s.have_ci);
	CHECK(NEAR(s.lo, -1) && NEAR(s.hi, 5));
	/* n = m = 3 cannot give 95%: P(U = 0) = 1/20 > 0.025 */
	CHECK(!shift_estimate(a, 3, b, 3, 0.95, &s));
	CHECK(NEAR(s.est, 3));
	CHECK(!s.have_ci);
}

TEST(holm)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.5 };
	double adj[4];

	holm_adjust(p, 4, adj);
	CHECK(NEAR(adj[0], 0.04));
	CHECK(NEAR(adj[2], 0.09));
	CHECK(NEAR(adj[1], 0.09));	/* never below an earlier step */
	CHECK(NEAR(adj[3], 0.5));
}

TEST(rule_parse_good)
{
	struct rule r;
	char err[200];

	CHECK(!rule_parse("iomap.write.lat.p99 <= +10%", &r, err, sizeof(err)));
	CHECK(r.path == PATH_IOMAP && r.worse == 1 && NEAR(r.limit, 0.10));
	CHECK(!strcmp(r.m->name, "write.lat.p99"));
	CHECK(!rule_parse("  any.bio.size.p50>=-5 %  ", &r, err, sizeof(err)));
	CHECK(r.path == RULE_ANY && r.worse == -1 && NEAR(r.limit, -0.05));
	CHECK(!strcmp(r.text, "any.bio.size.p50 >= -5%"));
	CHECK(!rule_parse("bh.bh_alloc_per_mib <= +0%", &r, err, sizeof(err)));
	CHECK(r.path == PATH_BH && NEAR(r.limit, 0));
}

/* a filesystem's row: its type before the path, its figures alone */
TEST(rule_parse_filesystem)
{
	char err[200], scope[40];
	struct rule r;

	CHECK(!rule_parse("ext4:bh.bio.count <= +5%", &r, err, sizeof(err)));
	CHECK(r.has_fs && !strcmp(r.fs, "ext4") && r.path == PATH_BH);
	CHECK(!strcmp(r.text, "ext4:bh.bio.count <= +5%"));
	CHECK(!strcmp(rule_scope(&r, scope, sizeof(scope)), "ext4:bh"));
	CHECK(!rule_parse("fuse:other.write.bytes >= -1%", &r, err,
			  sizeof(err)));
	CHECK(r.path == PATH_NONE && !strcmp(r.fs, "fuse"));
	CHECK(!rule_parse("-:other.bh_alloc <= +0%", &r, err, sizeof(err)));
	CHECK(r.has_fs && !r.fs[0] && !strcmp(r.text, "-:other.bh_alloc <= +0%"));
	CHECK(!rule_parse("xfs:any.bios_per_mib <= +5%", &r, err, sizeof(err)));
	CHECK(r.path == RULE_ANY);
	/* no distributions in a filesystem's row */
	CHECK(rule_parse("ext4:bh.write.lat.p99 <= +10%", &r, err,
			 sizeof(err)) == -1);
	CHECK(strstr(err, "no write.lat.p99") != NULL);
	/* other. is a filesystem's path only; a name has a length */
	CHECK(rule_parse("other.bio.count <= +5%", &r, err, sizeof(err)) == -1);
	CHECK(rule_parse(":bh.bio.count <= +5%", &r, err, sizeof(err)) == -1);
	CHECK(rule_parse("averyveryverylongname:bh.bio.count <= +5%", &r, err,
			 sizeof(err)) == -1);
	CHECK(!rule_parse("bh.write.calls >= -5%", &r, err, sizeof(err)));
	CHECK(!r.has_fs);
}

/* the whole run's buffer_head figures: any. only */
TEST(rule_parse_callers_metrics_any_only)
{
	char err[200];
	struct rule r;

	CHECK(!rule_parse("any.bh.alive_peak <= +10%", &r, err, sizeof(err)));
	CHECK(!rule_parse("any.bh.outside_per_mib <= +0%", &r, err,
			  sizeof(err)));
	CHECK(!rule_parse("any.bh.alloc.journal <= +5%", &r, err, sizeof(err)));
	CHECK(rule_parse("bh.bh.alive_peak <= +10%", &r, err, sizeof(err)));
	CHECK(strstr(err, "any. only") != NULL);
	CHECK(rule_parse("iomap.bh.alloc.data <= +10%", &r, err, sizeof(err)));
}

TEST(rule_parse_bad)
{
	static const char *const bad[] = {
		"", "bh", "xfs.write.lat.p99 <= +10%", "bh.write.lat.p42 <= +1%",
		"bh.write.lat.p99 < +10%", "bh.write.lat.p99 <= 10",
		"bh.write.lat.p99 <= -100%", "bh.write.lat.p99 <= +10% extra",
		"bh.write.lat.p99 <= nan%", "bh.write.lat.p99 <= +1e999%",
	};
	struct rule r;
	char err[200];

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err[0] = 0;
		CHECK(rule_parse(bad[i], &r, err, sizeof(err)) == -1);
		CHECK(err[0] && !strchr(err, '\n'));
	}
}

TEST(rules_file_text)
{
	static const char text[] = "# the demo's rules\n"
				   "any.bio.size.p50 >= -5%\n\n"
				   "any.bios_per_mib <= +5%   # fewer is better\r\n";
	static const char broken[] = "any.bio.size.p50 >= -5%\nnonsense\n";
	struct rule rules[MAX_RULES];
	char err[300];
	size_t n = 0;

	CHECK(!rules_parse_text(text, sizeof(text) - 1, rules, &n, err,
				sizeof(err)));
	CHECK(n == 2);
	n = 0;
	CHECK(rules_parse_text(broken, sizeof(broken) - 1, rules, &n, err,
			       sizeof(err)) == -1);
	CHECK(!strncmp(err, "2: ", 3));
}

TEST(ratio_interval_stays_in_range)
{
	/* a throughput that fell a lot and spread: the shift's interval
	 * over the median ran past -100%, the ratio's cannot */
	const double x[] = { 100, 300, 120, 900, 110 };
	const double y[] = { 5, 40, 10, 60, 2 };
	const double zero[] = { 0, 1, 2 }, some[] = { 1, 2, 3 };
	struct shift s;

	CHECK(!shift_estimate(x, 5, y, 5, 0.95, &s));
	CHECK(s.lo / 120 < -1);	/* what gate printed before */
	CHECK(!ratio_estimate(x, 5, y, 5, 0.95, &s));
	CHECK(s.have_ci);
	CHECK(s.lo >= 0 && s.lo <= s.est && s.est <= s.hi);
	/* x = {1,2,3,4,5}, y = 2x: every ratio's median is 2 */
	{
		const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 2, 4, 6, 8, 10 };

		CHECK(!ratio_estimate(a, 5, b, 5, 0.95, &s));
		CHECK(NEAR(s.est, 2));
	}
	/* no ratio from a zero baseline */
	CHECK(ratio_estimate(zero, 3, some, 3, 0.95, &s) == -EDOM);
}
