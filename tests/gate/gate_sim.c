// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The gate on synthetic recordings written through the real file writer.
 * Each recording is a run whose figures carry a per-run random factor
 * (log-normal noise, as repeated runs of one workload do); a candidate
 * run may carry a shift as well. Checks:
 *  - a shift is caught exactly when it passes the rule's limit
 *    (shifts of 5%, 10% and 50% against limits of 0%, 5%, 10% and 20%,
 *    up for latency, down for throughput and bio size);
 *  - A/A comparisons over many seeds, with the default rules and with
 *    rules of zero limit, fail no more often than alpha; the rates are
 *    printed.
 * Ends with "gate_sim: N passed, N failed".
 *
 * Usage: gate_sim             run the checks
 *        gate_sim --write DIR [SHIFT] [--tracepoint] [--machine=M]
 *                 [--page-size=N]
 *                             write DIR/base-N.bhp and DIR/cand-N.bhp
 *                             (8 each; candidate latency x SHIFT), made
 *                             on machine M (x86_64) with N-byte pages
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bhprof_hist.h"
#include "cmd/commands.h"
#include "recfile/recfile.h"

#define RUNS 8
#define INTERVALS 10
#define CALLS 400	/* write calls per interval */
#define WRITE_SZ 65536
#define MAX_RULES_SIM 20
#define SEEDS 200
#define ALPHA 0.05

static int passed, failed;
static uint64_t rng;

static void check(bool ok, const char *fmt, const char *what)
{
	printf("%s ", ok ? "ok  " : "FAIL");
	printf(fmt, what);
	printf("\n");
	if (ok)
		passed++;
	else
		failed++;
}

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* What one run looks like: levels, and the factors of this run. */
struct shape {
	double lat;		/* write latency, ns, around its p50 */
	double wb_lat;		/* writeback latency, ns */
	double secs;		/* interval length: sets MiB/s */
	double bio;		/* bytes per bio */
	double noise;		/* sigma of each run's log-normal factors */
	double lat_shift, tput_shift, bio_shift;
	bool tracepoint;	/* recorded where writeback calls are unseen */
	const char *machine;	/* uname -m of the recording machine */
	unsigned int page_size;
};

static void spray(struct bhp_hist *h, double level, unsigned int n)
{
	/* a spread within the run, as latencies have */
	for (unsigned int i = 0; i < n; i++)
		h->b[hist_bucket((uint64_t)(level * exp(0.3 * gauss())))]++;
}

static void busy_interval(struct snapshot *s, const struct shape *sh,
			  const double *f)
{
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		struct bhp_path_stats *ps = &s->paths[p];
		uint64_t bio = (uint64_t)(sh->bio * f[2]) & ~511ull;
		uint64_t bytes = (uint64_t)CALLS * WRITE_SZ, n = bytes / bio;

		spray(&s->hists[HIST_ID(p, HIST_WRITE_LAT)], sh->lat * f[0],
		      CALLS);
		spray(&s->hists[HIST_ID(p, HIST_WB_LAT)], sh->wb_lat * f[0],
		      CALLS / 16);
		ps->write_calls += CALLS;
		ps->write_bytes += bytes;
		ps->wb_calls += CALLS / 16;
		ps->wb_pages += bytes / 4096;
		ps->bio_count += n;
		ps->bio_bytes += n * bio;
		s->hists[HIST_ID(p, HIST_BIO_SIZE)].b[hist_bucket(bio)] += n;
		if (p == PATH_BH)
			ps->bh_alloc += bytes / 4096;
		s->glob.bio_count += n;
		s->glob.bio_bytes += n * bio;
	}
	s->glob.bh_alloc_total += s->paths[PATH_BH].bh_alloc;
}

static void fill_info(struct run_info *in, const struct shape *sh)
{
	bool tracepoint = sh->tracepoint;

	memset(in, 0, sizeof(*in));
	strcpy(in->version, "gate-sim");
	strcpy(in->release, "6.12.0-sim");
	in->buffer_head = 1;
	in->btf = true;
	strcpy(in->hostname, "sim");
	snprintf(in->machine, sizeof(in->machine), "%s",
		 sh->machine ? sh->machine : "x86_64");
	in->page_size = sh->page_size ? sh->page_size : 4096;
	in->start_realtime_ns = 1764748800000000000ull;
	in->interval_ms = 1000;
	/* writeback calls as bhprof counts them now: do_writepages() */
	in->features = RUN_F_WB_MAPPING;
	for (int i = 0; i < NR_PROBES; i++) {
		in->probes[i].mode = tracepoint || i == PROBE_BIO ?
					     MODE_TRACEPOINT : MODE_FENTRY;
		strcpy(in->probes[i].func, probe_name(i));
	}
}

static int write_run(const char *path, const struct shape *sh, bool cand)
{
	static struct snapshot s;
	struct rec_end end = { .present = true, .reason = REC_STOP_COMMAND };
	struct recwriter *w;
	struct run_info in;
	double f[3];

	for (int k = 0; k < 3; k++)
		f[k] = exp(sh->noise * gauss());
	if (cand) {
		f[0] *= sh->lat_shift;
		f[1] *= sh->tput_shift;
		f[2] *= sh->bio_shift;
	}
	memset(&s, 0, sizeof(s));
	fill_info(&in, sh);
	unlink(path);
	if (recwriter_open(path, 0, &w))
		return -1;
	recwriter_begin(w, &in);
	for (unsigned int i = 0; i <= INTERVALS; i++) {
		/* longer intervals for the same bytes: lower MiB/s */
		s.ts_ns = (uint64_t)(1e9 * (1 + i * sh->secs / f[1]));
		if (i)
			busy_interval(&s, sh, f);
		if (recwriter_append(w, &s))
			return -1;
	}
	end.elapsed_ns = s.ts_ns;
	recwriter_end(w, &end);
	return recwriter_close(w);
}

static int write_set(const char *dir, const struct shape *sh)
{
	char path[512];

	for (int side = 0; side < 2; side++)
		for (int i = 0; i < RUNS; i++) {
			snprintf(path, sizeof(path), "%s/%s-%d.bhp", dir,
				 side ? "cand" : "base", i);
			if (write_run(path, sh, side))
				return -1;
		}
	return 0;
}

/* bhprof gate in-process, quiet; returns its exit status */
static int gate(const char *dir, const char *const *rules, size_t nr)
{
	char *argv[2 * RUNS + 2 * MAX_RULES_SIM + 8];
	static char files[2 * RUNS][512];
	int argc = 0, rc, out, keep_out, keep_err;

	argv[argc++] = "gate";
	for (int side = 0; side < 2; side++) {
		argv[argc++] = side ? "--candidate" : "--baseline";
		for (int i = 0; i < RUNS; i++) {
			char *f = files[side * RUNS + i];

			snprintf(f, 512, "%s/%s-%d.bhp", dir,
				 side ? "cand" : "base", i);
			argv[argc++] = f;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		argv[argc++] = "--rule";
		argv[argc++] = (char *)rules[i];
	}
	argv[argc] = NULL;
	fflush(stdout);
	out = open("/dev/null", O_WRONLY);
	keep_out = dup(1);
	keep_err = dup(2);
	dup2(out, 1);
	dup2(out, 2);
	rc = cmd_gate(argc, argv);
	fflush(stdout);
	dup2(keep_out, 1);
	dup2(keep_err, 2);
	close(out);
	close(keep_out);
	close(keep_err);
	return rc;
}

static const struct shape quiet = {
	.lat = 20000, .wb_lat = 400000, .secs = 1, .bio = 65536,
	.noise = 0.02, .lat_shift = 1, .tput_shift = 1, .bio_shift = 1,
};

/* Each shift in the bad direction, against each limit: caught exactly
 * when it passes the limit (a shift equal to it does not). */
static void shift_checks(const char *dir)
{
	static const int shifts[] = { 5, 10, 50 }, limits[] = { 0, 5, 10, 20 };
	static const char *const fmt[] = { "bh.write.lat.p50 <= +%d%%",
					   "iomap.write.mb_per_s >= -%d%%",
					   "any.bio.size.p50 >= -%d%%" };
	char rule[64], what[160];

	for (size_t s = 0; s < 3; s++) {
		struct shape sh = quiet;

		rng = 0x5eed0000u + s;
		sh.lat_shift = 1 + shifts[s] / 100.0;
		sh.tput_shift = 1 - shifts[s] / 100.0;
		sh.bio_shift = 1 - shifts[s] / 100.0;
		if (write_set(dir, &sh)) {
			check(false, "writing recordings to %s", dir);
			return;
		}
		for (size_t l = 0; l < 4; l++)
			for (size_t m = 0; m < 3; m++) {
				const char *r = rule;
				bool want = shifts[s] > limits[l];
				int rc;

				snprintf(rule, sizeof(rule), fmt[m], limits[l]);
				rc = gate(dir, &r, 1);
				snprintf(what, sizeof(what), "%d%% worse, '%s': %s "
					 "(exit %d)", shifts[s], rule,
					 want ? "caught" : "passes", rc);
				check(rc == (want ? 1 : 0), "%s", what);
			}
	}
}

/* A/A: both sides from one distribution, noisier than above. */
static void aa_checks(const char *dir)
{
	static const char *const zero[] = {
		"bh.write.lat.p50 <= +0%",	"iomap.write.lat.p50 <= +0%",
		"bh.write.lat.p99 <= +0%",	"iomap.write.lat.p99 <= +0%",
		"bh.writeback.lat.p50 <= +0%",	"iomap.writeback.lat.p50 <= +0%",
		"bh.writeback.lat.p99 <= +0%",	"iomap.writeback.lat.p99 <= +0%",
		"bh.write.mb_per_s >= -0%",	"iomap.write.mb_per_s >= -0%",
		"bh.bio.size.p50 >= -0%",	"iomap.bio.size.p50 >= -0%",
		"bh.bios_per_mib <= +0%",	"iomap.bios_per_mib <= +0%",
		"bh.bh_alloc_per_mib <= +0%",	"any.write.lat.p90 <= +0%",
	};
	unsigned int alarms_def = 0, alarms_zero = 0, errors = 0;
	struct shape sh = quiet;
	char what[160];

	sh.noise = 0.05;
	for (unsigned int seed = 1; seed <= SEEDS; seed++) {
		int rc;

		rng = 0xaa000000u + seed * 7919u;
		if (write_set(dir, &sh)) {
			errors++;
			continue;
		}
		rc = gate(dir, NULL, 0);
		alarms_def += rc == 1;
		errors += rc == 2;
		rc = gate(dir, zero, sizeof(zero) / sizeof(*zero));
		alarms_zero += rc == 1;
		errors += rc == 2;
	}
	printf("     A/A over %d seeds, %d recordings a side, alpha %g:\n"
	       "     default rules (16): %u alarms, rate %.3f\n"
	       "     zero-limit rules (16): %u alarms, rate %.3f\n",
	       SEEDS, RUNS, ALPHA, alarms_def, (double)alarms_def / SEEDS,
	       alarms_zero, (double)alarms_zero / SEEDS);
	snprintf(what, sizeof(what), "%.3f", (double)alarms_def / SEEDS);
	check(alarms_def <= ALPHA * SEEDS, "A/A, default rules: false-alarm rate %s <= alpha", what);
	snprintf(what, sizeof(what), "%.3f", (double)alarms_zero / SEEDS);
	check(alarms_zero <= ALPHA * SEEDS, "A/A, zero-limit rules: false-alarm rate %s <= alpha", what);
	check(!errors, "A/A: every gate judged (no exit 2)%s", "");
}

/* A/A with shifts far inside their limits, and the other way round:
 * the zero-limit rules do see a real 3% shift in latency. */
static void power_check(const char *dir)
{
	static const char *const r[] = { "bh.write.lat.p50 <= +0%" };
	struct shape sh = quiet;
	char what[64];
	int rc;

	rng = 0x90e3u;
	sh.noise = 0.01;
	sh.lat_shift = 1.06;
	if (write_set(dir, &sh))
		return check(false, "writing recordings to %s", dir);
	rc = gate(dir, r, 1);
	snprintf(what, sizeof(what), "exit %d", rc);
	check(rc == 1, "a 6%% latency rise against a 0%% limit is caught (%s)", what);
}

static int write_mode(int argc, char **argv)
{
	struct shape sh = quiet;

	rng = 0x3141592653ull;
	if (argc > 3)
		sh.lat_shift = atof(argv[3]);
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--tracepoint"))
			sh.tracepoint = true;
		else if (!strncmp(argv[i], "--machine=", 10))
			sh.machine = argv[i] + 10;
		else if (!strncmp(argv[i], "--page-size=", 12))
			sh.page_size = atoi(argv[i] + 12);
	}
	if (mkdir(argv[2], 0755) && access(argv[2], W_OK)) {
		perror(argv[2]);
		return 1;
	}
	return write_set(argv[2], &sh) ? 1 : 0;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/bhprof-gate-sim.XXXXXX";

	if (argc > 2 && !strcmp(argv[1], "--write"))
		return write_mode(argc, argv);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	shift_checks(dir);
	power_check(dir);
	aa_checks(dir);
	for (int side = 0; side < 2; side++)
		for (int i = 0; i < RUNS; i++) {
			char path[600];

			snprintf(path, sizeof(path), "%s/%s-%d.bhp", dir,
				 side ? "cand" : "base", i);
			unlink(path);
		}
	rmdir(dir);
	printf("gate_sim: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
