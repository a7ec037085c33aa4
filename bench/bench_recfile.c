// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * How big is a recording, and how long does reading one take? Writes a
 * synthetic 24-hour recording at 1 s intervals with both paths busy
 * (a few dozen histogram buckets move every second, as under a steady
 * mixed workload), then times report and diff on it. Prints figures;
 * passes or fails nothing.
 *
 * Usage: bench_recfile [HOURS] [DIR]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "bhprof_hist.h"
#include "cmd/commands.h"
#include "util/outfile.h"
#include "recfile/recfile.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double secs_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* about n distinct buckets around value v, spread like a log-normal */
static void spray(struct bhp_hist *h, uint64_t v, unsigned int n,
		  uint64_t *count)
{
	for (unsigned int k = 0; k < n; k++) {
		double f = 0.25 + (rnd() % 1000) / 1000.0 *
				   (rnd() % 1000) / 1000.0 * 8;
		uint64_t c = 1 + rnd() % 200;

		h->b[hist_bucket((uint64_t)(v * f))] += c;
		*count += c;
	}
}

static void bio_sizes(struct bhp_hist *h, struct bhp_path_stats *ps,
		      struct dev_row *row, bool big)
{
	static const uint64_t sizes[] = { 4096, 8192, 16384, 65536, 131072,
					  524288, 1048576 };

	for (unsigned int k = 0; k < 7; k++) {
		uint64_t n = (big || k < 3) ? rnd() % 300 : 0, sz = sizes[k];

		if (!n)
			continue;
		h->b[hist_bucket(sz)] += n;
		ps->bio_count += n;
		ps->bio_bytes += n * sz;
		row->s.bios += n;
		row->s.bytes += n * sz;
		row->s.size_log2[63 - __builtin_clzll(sz)] += n;
	}
}

static void busy_second(struct snapshot *s)
{
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		struct bhp_path_stats *ps = &s->paths[p];
		uint64_t calls = 0, wb = 0;

		spray(&s->hists[HIST_ID(p, HIST_WRITE_LAT)], p ? 9000 : 14000,
		      30, &calls);
		spray(&s->hists[HIST_ID(p, HIST_WB_LAT)], 400000, 6, &wb);
		ps->write_calls += calls;
		ps->write_bytes += calls * 4096;
		ps->wb_calls += wb;
		ps->wb_pages += calls;
		if (p == PATH_BH)
			ps->bh_alloc += calls;
		bio_sizes(&s->hists[HIST_ID(p, HIST_BIO_SIZE)], ps,
			  &s->devs[p], p == PATH_IOMAP);
		s->glob.bio_count += ps->bio_count;
		s->glob.bio_bytes += ps->bio_bytes;
	}
	s->glob.bh_alloc_total += s->paths[PATH_BH].bh_alloc + rnd() % 50;
	s->glob.bh_alloc_none += rnd() % 50;
	s->devs[2].s.bios += rnd() % 4;	/* the odd unattributed bio */
	s->devs[2].s.bytes += 4096 * (rnd() % 4);
}

static void fill_info(struct run_info *in)
{
	memset(in, 0, sizeof(*in));
	strcpy(in->version, "bench");
	strcpy(in->release, "6.18.0-bench");
	in->buffer_head = 1;
	strcpy(in->hostname, "bench");
	in->start_realtime_ns = 1764748800000000000ull;
	in->interval_ms = 1000;
	strcpy(in->cmdline, "record -o bench.bhp");
}

static int write_recording(const char *path, unsigned int secs,
			   uint64_t seed, double *encode_s)
{
	static struct snapshot s;
	struct rec_end end = { .present = true, .reason = REC_STOP_DURATION };
	struct recwriter *w;
	struct run_info in;
	struct timespec t0;

	rng ^= seed;
	memset(&s, 0, sizeof(s));
	s.nr_devs = 3;
	s.devs[0].dev = KDEV_MKDEV(8u, 0u);
	s.devs[0].path = PATH_BH;
	s.devs[1].dev = KDEV_MKDEV(259u, 0u);
	s.devs[1].path = PATH_IOMAP;
	s.devs[2].dev = KDEV_MKDEV(8u, 0u);
	s.devs[2].path = PATH_NONE;
	fill_info(&in);
	if (recwriter_open(path, OUTFILE_FORCE, &w))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	recwriter_begin(w, &in);
	for (unsigned int i = 0; i <= secs; i++) {
		s.ts_ns = 1000000000ull * (i + 100) + rnd() % 100000;
		if (i)
			busy_second(&s);
		if (recwriter_append(w, &s))
			return -1;
	}
	end.elapsed_ns = secs * 1000000000ull;
	recwriter_end(w, &end);
	*encode_s = secs_since(&t0);
	return recwriter_close(w);
}

/* run a command with stdout sent to /dev/null; returns its seconds */
static double timed(int (*fn)(int, char **), int argc, char **argv, int *rc)
{
	struct timespec t0;
	int saved = dup(1), null = open("/dev/null", O_WRONLY);
	double s;

	fflush(stdout);
	dup2(null, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	*rc = fn(argc, argv);
	fflush(stdout);
	s = secs_since(&t0);
	dup2(saved, 1);
	close(saved);
	close(null);
	return s;
}

int main(int argc, char **argv)
{
	double hours = argc > 1 ? atof(argv[1]) : 24;
	const char *dir = argc > 2 ? argv[2] : "/tmp";
	unsigned int secs = (unsigned int)(hours * 3600);
	char a[4096], b[4096], html[4096];
	double enc, t;
	struct stat st;
	int rc;

	if (secs < 2) {
		fprintf(stderr, "usage: bench_recfile [HOURS] [DIR]\n");
		return 2;
	}
	snprintf(a, sizeof(a), "%s/bench-a-%d.bhp", dir, getpid());
	snprintf(b, sizeof(b), "%s/bench-b-%d.bhp", dir, getpid());
	snprintf(html, sizeof(html), "%s/bench-%d.html", dir, getpid());
	if (write_recording(a, secs, 1, &enc) ||
	    write_recording(b, secs, 2, &enc) || stat(a, &st)) {
		perror("bench_recfile: writing");
		return 1;
	}
	printf("recording: %.1f h at 1 s intervals, both paths busy\n", hours);
	printf("  file size:          %.2f MB (%lld bytes)\n",
	       st.st_size / 1e6, (long long)st.st_size);
	printf("  bytes per hour:     %.0f (%.2f MB/h, target < 2 MB/h)\n",
	       st.st_size / hours, st.st_size / hours / 1e6);
	printf("  bytes per interval: %.1f\n", (double)st.st_size / (secs + 1));
	printf("  encode time:        %.2f s (%.1f us per interval)\n", enc,
	       enc / (secs + 1) * 1e6);

	t = timed(cmd_report, 2, (char *[]){ "report", a, NULL }, &rc);
	printf("report (text: summary + %u-interval series): %.3f s (rc %d, target < 1 s)\n",
	       secs, t, rc);
	t = timed(cmd_report, 3, (char *[]){ "report", "--json", a, NULL }, &rc);
	printf("report --json:                              %.3f s (rc %d)\n",
	       t, rc);
	t = timed(cmd_report, 3, (char *[]){ "report", "--csv", a, NULL }, &rc);
	printf("report --csv:                               %.3f s (rc %d)\n",
	       t, rc);
	t = timed(cmd_report, 4, (char *[]){ "report", "--html", html, a, NULL },
		  &rc);
	stat(html, &st);
	printf("report --html:                              %.3f s (rc %d, %lld bytes)\n",
	       t, rc, (long long)st.st_size);
	t = timed(cmd_diff, 3, (char *[]){ "diff", a, b, NULL }, &rc);
	printf("diff of two:                                %.3f s (rc %d)\n",
	       t, rc);
	if (!getenv("BENCH_KEEP")) {
		unlink(a);
		unlink(b);
	}
	unlink(html);
	return 0;
}
