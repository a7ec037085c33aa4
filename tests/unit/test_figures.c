// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A figure with nothing behind it is unknown, never zero. */
#include <math.h>
#include <string.h>
#include "harness.h"
#include "gate/metrics.h"
#include "model/figures.h"
#include "model/summary.h"

static void one_path(struct path_summary *p, uint64_t calls, uint64_t bytes,
		     uint64_t bh, uint64_t pages)
{
	static struct path_summary in, zero;

	memset(&in, 0, sizeof(in));
	in.c.write_calls = calls;
	in.c.write_bytes = bytes;
	in.c.bh_alloc = bh;
	in.c.wb_pages = pages;
	if (calls)
		in.hist[HIST_WRITE_LAT].b[10] = calls;
	/* derives every figure, as summarize() does */
	path_merge(&in, &zero, 1, p);
}

TEST(idle_path_figures_unknown)
{
	struct path_summary p;
	struct run_info in;

	memset(&in, 0, sizeof(in));
	in.features = RUN_F_READS;
	one_path(&p, 0, 0, 0, 0);
	CHECK(path_idle(&p));
	CHECK(sample_why(&p, SAMPLE_COUNT) == NULL);
	CHECK(sample_why(&p, SAMPLE_WRITE) != NULL);
	CHECK(sample_why(&p, SAMPLE_BIO) != NULL);
	CHECK(sample_why(&p, SAMPLE_MIB) != NULL);
	CHECK(!isfinite(p.bh_per_mib) && !isfinite(p.bh_per_call));
	/* each metric gate and diff judge has its reason */
	CHECK(metric_why(figure_find("write.lat.p99"), &in, PATH_IOMAP, &p));
	CHECK(!metric_why(figure_find("write.calls"), &in, PATH_IOMAP, &p));
	CHECK(!strcmp(why_cell(sample_why(&p, SAMPLE_WRITE)), "-"));
	CHECK(!strcmp(why_cell("n/a"), "n/a"));
	CHECK(strstr(why_text("n/a"), "attach mode"));
}

TEST(per_mib_needs_one_mib)
{
	struct path_summary p;

	/* issue 21: 800 writes of 3 bytes, 3834 buffer_heads */
	one_path(&p, 800, 2400, 3834, 2);
	CHECK(!path_idle(&p));
	CHECK(sample_why(&p, SAMPLE_MIB) != NULL);
	CHECK(!isfinite(p.bh_per_mib));
	CHECK(sample_why(&p, SAMPLE_CALL) == NULL);
	CHECK(fabs(p.bh_per_call - 3834.0 / 800) < 1e-9);
	CHECK(fabs(p.bh_per_page - 3834.0 / 2) < 1e-9);
	/* 1 MiB exactly is enough */
	one_path(&p, 16, 1 << 20, 256, 256);
	CHECK(sample_why(&p, SAMPLE_MIB) == NULL);
	CHECK(fabs(p.bh_per_mib - 256) < 1e-9);
}

/* writeback pages per call: a ratio of two counts, known only where a
 * writeback call was timed */
TEST(wb_pages_per_call)
{
	const struct figure_def *d = figure_find("writeback.pages_per_call");
	static struct path_summary in, zero, p;

	CHECK(d && d->json && d->label && d->html);
	in.c.wb_calls = 2;
	in.c.wb_pages = 4096;
	path_merge(&in, &zero, 1, &p);
	CHECK(sample_why(&p, d->sample) != NULL);
	in.hist[HIST_WB_LAT].b[10] = 2;
	path_merge(&in, &zero, 1, &p);
	CHECK(sample_why(&p, d->sample) == NULL);
	CHECK(fabs(figure_value(d, &p) - 2048) < 1e-9);
	CHECK(!figure_whole(d));
}

/* The table's names are unique, and each JSON object's members stay
 * together: path_json() opens an object once, when its first member
 * comes, and closes it when a member of another comes. */
static bool json_object_split(size_t i, size_t plen)
{
	const char *a = figure_defs[i].json;
	bool left = false;

	/* after another object, this one never comes back */
	for (size_t k = i + 1; k < nr_figure_defs; k++) {
		const char *j = figure_defs[k].json;
		bool same = j && !strncmp(j, a, plen);

		if (j && !same)
			left = true;
		if (left && same)
			return true;
	}
	return false;
}

TEST(figure_names_unique_json_grouped)
{
	for (size_t i = 0; i < nr_figure_defs; i++) {
		const struct figure_def *a = &figure_defs[i];

		for (size_t k = i + 1; k < nr_figure_defs; k++) {
			const struct figure_def *b = &figure_defs[k];

			CHECK(!a->name || !b->name || strcmp(a->name, b->name));
			CHECK(!a->diff || !b->diff || strcmp(a->diff, b->diff));
			CHECK(!a->json || !b->json || strcmp(a->json, b->json));
		}
		/* every object a member is in: "writeback.", then
		 * "writeback.engines." */
		for (const char *d = a->json ? strchr(a->json, '.') : NULL; d;
		     d = strchr(d + 1, '.'))
			CHECK(!json_object_split(i, d - a->json + 1));
	}
}

/* Every probe, the newest included, has a name, and its group one too:
 * probe, JSON, /metrics and the record file print them (a probe left out
 * of a table would print NULL, or crash top's attach line). */
TEST(every_probe_named)
{
	for (int id = 0; id < NR_PROBES; id++) {
		const char *n = probe_name(id);

		CHECK(n && n[0] && strcmp(n, "?"));
		CHECK(strcmp(group_name(probe_group_of(id)), "?"));
	}
	CHECK(!strcmp(probe_name(PROBE_PASS_EXT4), "pass_ext4"));
	CHECK(probe_group_of(PROBE_PASS_EXT4) == BHP_GROUP_PASS);
}
