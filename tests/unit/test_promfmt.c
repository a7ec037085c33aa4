// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The Prometheus renderer: le buckets, both formats, negotiation. */
#include <stdlib.h>
#include <string.h>
#include "bhprof_hist.h"
#include "harness.h"
#include "model/fsrows.h"
#include "model/callers.h"
#include "model/figures.h"
#include "output/promfmt.h"

static void hist_put(struct bhp_hist *h, uint64_t v, uint64_t n)
{
	h->b[hist_bucket(v)] += n;
}

/* latencies: le = 2^k counts exactly the values below 2^k */
TEST(prom_latency_le_is_exact_below_each_power)
{
	static const uint64_t vals[] = { 300, 511, 512, 513, 1000, 4095, 4096,
					 4097, 123456, 1ULL << 20, 999999999 };
	static struct bhp_hist h;

	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		hist_put(&h, vals[i], 1);
	for (unsigned int k = PROM_LAT_LO; k <= PROM_LAT_HI; k++) {
		uint64_t want = 0;

		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			want += vals[i] < (1ULL << k);
		CHECK_EQ_U64(prom_cumulative(&h, k, EST_MID), want);
	}
}

/* sizes: le = 2^k counts the sizes up to and including 2^k, exactly for
 * multiples of 512 up to 16 KiB */
TEST(prom_size_le_counts_the_power_itself)
{
	static struct bhp_hist h;

	memset(&h, 0, sizeof(h));
	for (uint64_t v = 512; v <= 16384; v += 512)
		hist_put(&h, v, v / 512);
	for (unsigned int k = PROM_SIZE_LO; k <= 14; k++) {
		uint64_t want = 0;

		for (uint64_t v = 512; v <= 16384; v += 512)
			want += v <= (1ULL << k) ? v / 512 : 0;
		CHECK_EQ_U64(prom_cumulative(&h, k, EST_LOW), want);
	}
}

TEST(prom_negotiation_follows_accept)
{
	/* what Prometheus 2.42 sends */
	CHECK(prom_negotiate("application/openmetrics-text;version=1.0.0,"
			     "application/openmetrics-text;version=0.0.1;q=0.75,"
			     "text/plain;version=0.0.4;q=0.5,*/*;q=0.1") ==
	      PROM_OPENMETRICS);
	CHECK(prom_negotiate("application/openmetrics-text") == PROM_OPENMETRICS);
	CHECK(prom_negotiate(NULL) == PROM_TEXT);
	CHECK(prom_negotiate("*/*") == PROM_TEXT);
	CHECK(prom_negotiate("text/plain") == PROM_TEXT);
	CHECK(prom_negotiate("application/openmetrics-text;version=0.0.1") ==
	      PROM_TEXT);
	CHECK(prom_negotiate("application/openmetrics-text; q=0.3, "
			     "text/plain; q=0.5") == PROM_TEXT);
	CHECK(prom_negotiate("application/openmetrics-text;q=0, */*") ==
	      PROM_TEXT);
	CHECK(prom_negotiate("text/plain;q=0.2, "
			     "application/openmetrics-text;q=0.9") ==
	      PROM_OPENMETRICS);
}

struct fixture {
	struct run_info info;
	struct snapshot snap;
	struct summary sum;
};

static struct fixture *fixture_new(enum attach_mode wb_mode)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct snapshot *s = &fx->snap;

	snprintf(fx->info.release, sizeof(fx->info.release), "6.18.0");
	fx->info.buffer_head = 1;
	for (int i = 0; i < NR_PROBES; i++)
		fx->info.probes[i].mode = MODE_TRACEPOINT;
	/* writeback calls are do_writepages()', in wb_mode */
	fx->info.features = RUN_F_WB_MAPPING;
	fx->info.probes[PROBE_WB_CTX].mode = wb_mode;
	fx->info.probes[PROBE_WB_BH].mode = wb_mode;
	fx->info.probes[PROBE_WB_IOMAP].mode = wb_mode;
	snprintf(fx->info.probes[PROBE_BH_ALLOC].detail,
		 sizeof(fx->info.probes[0].detail), "say \"why\"\\\nnext");
	s->paths[PATH_BH].write_calls = 16;
	s->paths[PATH_BH].write_bytes = 16 << 20;
	s->paths[PATH_BH].bio_count = 4096;
	s->paths[PATH_BH].bio_bytes = 4096ULL * 4096;
	s->paths[PATH_IOMAP].bio_count = 2;
	s->paths[PATH_IOMAP].bio_bytes = 2 << 20;
	s->glob.bio_count = 4096 + 2 + 5;
	s->glob.bio_bytes = 4096ULL * 4096 + (2 << 20) + 5 * 4096;
	s->glob.bh_alloc_none = 7;
	/* the other group: a tmpfs file's writes, seen by tracepoints */
	fx->info.features |= RUN_F_OTHER;
	fx->info.other_mode = MODE_TRACEPOINT;
	s->paths[PATH_NONE].write_calls = 21;
	s->paths[PATH_NONE].write_bytes = 1069056;
	hist_put(&s->hists[HIST_ID(PATH_BH, HIST_BIO_SIZE)], 4096, 4096);
	hist_put(&s->hists[HIST_ID(PATH_IOMAP, HIST_BIO_SIZE)], 1 << 20, 2);
	hist_put(&s->hists[HIST_ID(PATH_BH, HIST_WRITE_LAT)], 150000, 16);
	s->nr_devs = 1;
	s->devs[0].dev = KDEV_MKDEV(250u, 7u);
	s->devs[0].path = PATH_BH;
	s->devs[0].s.bios = 4096;
	s->devs[0].s.bytes = 4096ULL * 4096;
	summarize(NULL, s, &fx->sum);
	return fx;
}

static char *render(struct fixture *fx, enum prom_format fmt,
		    const struct prom_process *proc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	CHECK(prom_render(f, fmt, &fx->info, &fx->sum, proc) == 0);
	fclose(f);
	return buf;
}

/* "name{labels} value" for a line that starts with prefix */
static const char *line_value(const char *text, const char *prefix)
{
	const char *p = text;
	size_t n = strlen(prefix);

	while (p && *p) {
		if (!strncmp(p, prefix, n) && p[n] == ' ')
			return p + n + 1;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return NULL;
}

static unsigned long long value_of(const char *text, const char *prefix)
{
	const char *v = line_value(text, prefix);

	if (!v) {
		fprintf(stderr, "  no sample '%s'\n", prefix);
		return ~0ULL;
	}
	return strtoull(v, NULL, 10);
}

TEST(prom_text_has_the_counters_and_buckets)
{
	struct fixture *fx = fixture_new(MODE_TRACEPOINT);
	char *t = render(fx, PROM_TEXT, NULL);

	CHECK_EQ_U64(value_of(t, "bhprof_write_bytes_total{path=\"bh\","
				 "io=\"buffered\"}"), 16 << 20);
	CHECK_EQ_U64(value_of(t, "bhprof_bios_total{path=\"other\"}"), 5);
	CHECK_EQ_U64(value_of(t, "bhprof_write_calls_total{path=\"other\","
				 "io=\"buffered\"}"), 21);
	CHECK_EQ_U64(value_of(t, "bhprof_write_bytes_total{path=\"other\","
				 "io=\"buffered\"}"), 1069056);
	/* tracepoints see no writeback call, of a path or of other */
	CHECK(!line_value(t, "bhprof_writeback_calls_total{path=\"other\"}"));
	CHECK_EQ_U64(value_of(t, "bhprof_bio_bytes_total{path=\"other\"}"),
		     5 * 4096);
	CHECK_EQ_U64(value_of(t, "bhprof_buffer_heads_allocated_total"
				 "{path=\"other\"}"), 7);
	CHECK_EQ_U64(value_of(t, "bhprof_device_bio_bytes_total{device="
				 "\"250:7\",path=\"bh\"}"), 4096ULL * 4096);
	/* a 4096-byte bio is at le=4096, not above */
	CHECK_EQ_U64(value_of(t, "bhprof_bio_size_bytes_bucket{path=\"bh\","
				 "le=\"2048\"}"), 0);
	CHECK_EQ_U64(value_of(t, "bhprof_bio_size_bytes_bucket{path=\"bh\","
				 "le=\"4096\"}"), 4096);
	CHECK_EQ_U64(value_of(t, "bhprof_bio_size_bytes_bucket{path=\"bh\","
				 "le=\"+Inf\"}"), 4096);
	CHECK_EQ_U64(value_of(t, "bhprof_bio_size_bytes_sum{path=\"bh\"}"),
		     4096ULL * 4096);
	/* 150 us lies between 2^17 and 2^18 ns */
	CHECK_EQ_U64(value_of(t, "bhprof_write_latency_seconds_bucket{path="
				 "\"bh\",io=\"buffered\",le=\"0.000131072\"}"), 0);
	CHECK_EQ_U64(value_of(t, "bhprof_write_latency_seconds_bucket{path="
				 "\"bh\",io=\"buffered\",le=\"0.000262144\"}"), 16);
	CHECK(strstr(t, "# TYPE bhprof_bios_total counter\n") != NULL);
	CHECK(strstr(t, "# TYPE bhprof_run_info gauge\n") != NULL);
	CHECK(strstr(t, "buffer_head=\"y\"") != NULL);
	CHECK(strstr(t, "attach_bh_alloc=\"tracepoint\"") != NULL);
	/* tracepoint mode cannot see writeback calls: absent, not 0 */
	CHECK(strstr(t, "bhprof_writeback_calls") == NULL);
	CHECK(strstr(t, "bhprof_writeback_latency") == NULL);
	/* the textfile has no process metrics and no EOF */
	CHECK(strstr(t, "process_") == NULL);
	CHECK(strstr(t, "# EOF") == NULL);
	free(t);
	free(fx);
}

/* each figure the table (model/figures.c) exports: one series per path
 * that knows it, with the summary's value */
TEST(prom_table_figures_are_exported)
{
	struct fixture *fx = fixture_new(MODE_FENTRY);
	char *t, want[256];
	size_t n = 0;

	fx->info.features |= RUN_F_READS | RUN_F_PASSES;
	fx->snap.paths[PATH_BH].read_bio_count = 3;
	fx->snap.paths[PATH_BH].read_bio_bytes = 3 * 65536;
	fx->snap.paths[PATH_IOMAP].dio_calls = 2;
	summarize(NULL, &fx->snap, &fx->sum);
	t = render(fx, PROM_TEXT, NULL);
	for (size_t i = 0; i < nr_figure_defs; i++) {
		const struct figure_def *d = &figure_defs[i];

		if (!d->prom || d->type == FT_DIST)
			continue;
		for (unsigned int p = 0; p < NR_PATHS; p++) {
			bool known = figure_known(&fx->info, p, d->fig);

			if (d->prom->label)
				snprintf(want, sizeof(want),
					 "%s_total{path=\"%s\",%s=\"%s\"}",
					 d->prom->family, path_name(p),
					 d->prom->label, d->prom->value);
			else
				snprintf(want, sizeof(want),
					 "%s_total{path=\"%s\"}",
					 d->prom->family, path_name(p));
			if (!known) {
				CHECK(line_value(t, want) == NULL);
				continue;
			}
			CHECK_EQ_U64(value_of(t, want),
				     (uint64_t)figure_value(d, &fx->sum.path[p]));
			n++;
		}
	}
	CHECK(n >= 20);
	CHECK_EQ_U64(value_of(t, "bhprof_read_bios_total{path=\"bh\"}"), 3);
	CHECK_EQ_U64(value_of(t, "bhprof_write_calls_total{path=\"iomap\","
				 "io=\"direct\"}"), 2);
	free(t);
	free(fx);
}

/* the filesystems' rows: a family each, labelled fs and path, absent
 * where the row's path does not see the figure (writeback calls in
 * tracepoint mode) or the recording has no rows */
TEST(prom_filesystem_rows)
{
	struct fixture *fx = fixture_new(MODE_TRACEPOINT);
	struct fs_row *r;
	char *t;

	fx->info.features |= RUN_F_FS;
	r = fs_row_get(&fx->snap, "ext4", PATH_BH);
	r->s.write_calls = 16;
	r->s.wb_pages = 4096;
	r->s.bh_alloc = 4096;
	r = fs_row_get(&fx->snap, "", PATH_NONE);
	r->s.bio_count = 5;
	r = fs_row_get(&fx->snap, "tmpfs", PATH_NONE);
	r->s.dio_bytes = 8192;
	summarize(NULL, &fx->snap, &fx->sum);
	t = render(fx, PROM_TEXT, NULL);
	CHECK_EQ_U64(value_of(t, "bhprof_fs_write_calls_total{fs=\"ext4\","
				 "path=\"bh\",io=\"buffered\"}"), 16);
	CHECK_EQ_U64(value_of(t, "bhprof_fs_writeback_pages_total{fs=\"ext4\","
				 "path=\"bh\"}"), 4096);
	CHECK_EQ_U64(value_of(t, "bhprof_fs_buffer_heads_allocated_total{"
				 "fs=\"ext4\",path=\"bh\"}"), 4096);
	CHECK_EQ_U64(value_of(t, "bhprof_fs_bios_total{fs=\"-\","
				 "path=\"other\"}"), 5);
	CHECK_EQ_U64(value_of(t, "bhprof_fs_write_bytes_total{fs=\"tmpfs\","
				 "path=\"other\",io=\"direct\"}"), 8192);
	CHECK(strstr(t, "bhprof_fs_writeback_calls") == NULL);
	free(t);
	fx->info.features &= ~RUN_F_FS;
	t = render(fx, PROM_TEXT, NULL);
	CHECK(strstr(t, "bhprof_fs_") == NULL);
	free(t);
	free(fx);
}

TEST(prom_label_values_are_escaped)
{
	struct fixture *fx = fixture_new(MODE_TRACEPOINT);
	char *t = render(fx, PROM_TEXT, NULL);

	CHECK(strstr(t, "detail=\"say \\\"why\\\"\\\\\\nnext\"") != NULL);
	free(t);
	free(fx);
}

TEST(prom_openmetrics_names_families_and_ends)
{
	struct fixture *fx = fixture_new(MODE_FENTRY);
	struct prom_process proc = { .cpu_seconds = 0.5, .rss_bytes = 4096,
				     .scrapes = { 3, 4 } };
	char *t = render(fx, PROM_OPENMETRICS, &proc);
	size_t len = strlen(t);

	CHECK(len > 6 && !strcmp(t + len - 6, "# EOF\n"));
	CHECK(strstr(t, "# TYPE bhprof_bios counter\n") != NULL);
	CHECK(strstr(t, "# TYPE bhprof_run info\n") != NULL);
	CHECK(strstr(t, "# UNIT bhprof_bio_bytes bytes\n") != NULL);
	CHECK(strstr(t, "# UNIT bhprof_write_latency_seconds seconds\n") != NULL);
	CHECK_EQ_U64(value_of(t, "bhprof_bio_size_bytes_bucket{path=\"bh\","
				 "le=\"4096.0\"}"), 4096);
	CHECK_EQ_U64(value_of(t, "bhprof_writeback_calls_total{path=\"bh\"}"),
		     0);
	CHECK(strstr(t, "bhprof_writeback_latency_seconds_count{path=\"iomap\"}")
	      != NULL);
	CHECK_EQ_U64(value_of(t, "bhprof_scrapes_total{format=\"openmetrics\"}"),
		     4);
	CHECK_EQ_U64(value_of(t, "process_resident_memory_bytes"), 4096);
	free(t);
	free(fx);
}

/* every sample belongs to the family announced last, buckets only grow
 * and +Inf equals _count */
TEST(prom_text_is_well_formed)
{
	struct fixture *fx = fixture_new(MODE_KPROBE);
	char *t = render(fx, PROM_TEXT, NULL), *save, *line;
	char family[128] = "";
	unsigned long long prev = 0, inf = 0;
	int samples = 0;

	for (line = strtok_r(t, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# TYPE ", 7)) {
			sscanf(line + 7, "%127s", family);
			prev = 0;
			continue;
		}
		if (line[0] == '#')
			continue;
		samples++;
		CHECK(family[0] && !strncmp(line, family, strlen(family)));
		if (strstr(line, "_bucket{")) {
			unsigned long long v = strtoull(strrchr(line, ' ') + 1,
							NULL, 10);

			/* a new label set restarts at its first le */
			if (strstr(line, "le=\"5.12e-07\"") ||
			    strstr(line, "le=\"512\""))
				prev = 0;
			CHECK(v >= prev);
			prev = v;
			if (strstr(line, "le=\"+Inf\""))
				inf = v;
		} else if (strstr(line, "_count{")) {
			CHECK_EQ_U64(strtoull(strrchr(line, ' ') + 1, NULL, 10),
				     inf);
		}
	}
	CHECK(samples > 100);
	free(t);
	free(fx);
}

/* A lost probe group's figures are absent, never zero; a count whose
 * path split was lost is kept whole under path="unknown". */
TEST(prom_lost_groups_leave_their_series_out)
{
	struct fixture *fx = fixture_new(MODE_TRACEPOINT);
	char *t;

	fx->info.probes[PROBE_WRITE_BLKDEV].failed = true;
	snprintf(fx->info.probes[PROBE_WRITE_BLKDEV].detail,
		 sizeof(fx->info.probes[0].detail), "no such field");
	t = render(fx, PROM_TEXT, NULL);
	CHECK(strstr(t, "attach_write_blkdev=\"failed\"") != NULL);
	CHECK(strstr(t, "probe=\"write_blkdev\",func=\"\",module=\"\",mode=\"failed\","
			"detail=\"no such field\"") != NULL);
	CHECK(strstr(t, "\nbhprof_write_bytes_total{") == NULL);
	CHECK(strstr(t, "\nbhprof_write_latency_seconds_bucket{") == NULL);
	CHECK_EQ_U64(value_of(t, "bhprof_bios_total{path=\"unknown\"}"),
		     4096 + 2 + 5);
	CHECK(strstr(t, "bhprof_bios_total{path=\"bh\"}") == NULL);
	CHECK(strstr(t, "\nbhprof_bio_size_bytes_bucket{") == NULL);
	CHECK_EQ_U64(value_of(t, "bhprof_device_bio_bytes_total{device="
				 "\"250:7\",path=\"unknown\"}"), 4096ULL * 4096);
	free(t);

	fx->info.probes[PROBE_BIO].failed = true;
	t = render(fx, PROM_TEXT, NULL);
	CHECK(strstr(t, "\nbhprof_bios_total{") == NULL);
	CHECK(strstr(t, "\nbhprof_device_bio_bytes_total{") == NULL);
	/* buffer_heads still counted in all; their paths were lost */
	CHECK(strstr(t, "bhprof_buffer_heads_allocated_total{path=\"unknown\"}")
	      != NULL);
	free(t);
	free(fx);
}

/* --callers: owners, frees and alive appear only in a run that has them;
 * a net below zero is exported as such */
TEST(prom_callers_only_with_callers)
{
	struct fixture *fx = fixture_new(MODE_FENTRY);
	char *text;

	text = render(fx, PROM_TEXT, NULL);
	CHECK(!strstr(text, "bhprof_buffer_heads_alive"));
	CHECK(!strstr(text, "bhprof_buffer_heads_by_owner"));
	free(text);
	fx->info.features = RUN_F_READS | RUN_F_CALLERS | RUN_F_WB_MAPPING;
	fx->info.callers_mode = MODE_FENTRY;
	fx->info.bh_size = 104;
	callers_mount_add(KDEV_MKDEV(250u, 7u), "ext4");
	fx->snap.glob.bh_alloc_total = 10;
	fx->snap.glob.bh_freed = 12;
	fx->snap.bh_net_peak = 3;
	fx->snap.nr_callers = 1;
	fx->snap.callers[0].k = (struct bhp_caller_key){
		callers_chain_intern("x;jbd2_journal_commit_transaction;"
				     "alloc_buffer_head"),
		KDEV_MKDEV(250u, 7u), OWNER_BDEV, WHERE_NONE };
	fx->snap.callers[0].n = 10;
	summarize(NULL, &fx->snap, &fx->sum);
	text = render(fx, PROM_TEXT, NULL);
	CHECK(line_value(text, "bhprof_buffer_heads_alive") &&
	      !strncmp(line_value(text, "bhprof_buffer_heads_alive"), "-2\n", 3));
	CHECK_EQ_U64(value_of(text, "bhprof_buffer_heads_alive_peak"), 3);
	CHECK_EQ_U64(value_of(text, "bhprof_buffer_heads_freed_total"), 12);
	CHECK(strstr(text, "bhprof_buffer_heads_by_owner_total{fs=\"ext4\","));
	CHECK(strstr(text, "role=\"journal\",context=\"outside\"} 10\n"));
	free(text);
	free(fx);
}
