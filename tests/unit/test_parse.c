// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Command-line parsing, device names, attach-mode selection, summaries. */
#include <errno.h>
#include <string.h>
#include "collect/attach.h"
#include "util/cliparse.h"
#include "model/devices.h"
#include "harness.h"
#include "collect/runloop.h"
#include "model/summary.h"

static void no_usage(FILE *f)
{
	(void)f;
}

static int parse(struct run_opts *o, unsigned int allowed, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return run_opts_parse(argc, argv, o, allowed, no_usage);
}

TEST(opts_defaults)
{
	char *argv[] = { "stat", NULL };
	struct run_opts o;

	CHECK(parse(&o, RUN_OPT_JSON, argv) == 0);
	CHECK(o.interval == 1.0);
	CHECK(!o.interval_set);
	CHECK(o.duration == 0);
	CHECK(o.col.mode == MODE_AUTO);
	CHECK(o.cmd == NULL);
}

TEST(opts_full)
{
	char *argv[] = { "stat", "-i", "0.5", "--duration", "3", "--attach",
			 "kprobe", "--json", "-d", "7:0", "--", "dd", "x",
			 NULL };
	struct run_opts o;

	CHECK(parse(&o, RUN_OPT_JSON, argv) == 0);
	CHECK(o.interval == 0.5 && o.interval_set);
	CHECK(o.duration == 3);
	CHECK(o.col.mode == MODE_KPROBE);
	CHECK(o.json);
	CHECK(o.col.nr_filter_devs == 1);
	CHECK(o.cmd && !strcmp(o.cmd[0], "dd") && !strcmp(o.cmd[1], "x"));
}

TEST(opts_command_without_dashes)
{
	char *argv[] = { "stat", "sleep", "-x", NULL };
	struct run_opts o;

	/* options after the command belong to the command */
	CHECK(parse(&o, 0, argv) == 0);
	CHECK(o.cmd && !strcmp(o.cmd[1], "-x"));
}

TEST(opts_rejects_bad_values)
{
	char *a1[] = { "stat", "-i", "0", NULL };
	char *a2[] = { "stat", "--attach", "magic", NULL };
	char *a3[] = { "stat", "--json", NULL };	/* not allowed here */
	char *a4[] = { "stat", "--duration", "1x", NULL };
	char *a5[] = { "stat", "-d", "no-such-disk", NULL };
	char *a6[] = { "stat", "-i", NULL };
	struct run_opts o;

	CHECK(parse(&o, RUN_OPT_JSON, a1) < 0);
	CHECK(parse(&o, RUN_OPT_JSON, a2) < 0);
	CHECK(parse(&o, 0, a3) < 0);
	CHECK(parse(&o, RUN_OPT_JSON, a4) < 0);
	CHECK(parse(&o, RUN_OPT_JSON, a5) < 0);
	CHECK(parse(&o, RUN_OPT_JSON, a6) < 0);
}

TEST(opts_help)
{
	char *argv[] = { "stat", "--help", NULL };
	struct run_opts o;

	CHECK(parse(&o, 0, argv) == 1);
}

TEST(mode_names_round_trip)
{
	enum attach_mode m;

	CHECK(mode_parse("fentry", &m) == 0 && m == MODE_FENTRY);
	CHECK(mode_parse("tracepoint", &m) == 0 && m == MODE_TRACEPOINT);
	CHECK(mode_parse("auto", &m) == 0 && m == MODE_AUTO);
	CHECK(mode_parse("none", &m) < 0);
	CHECK(!strcmp(mode_name(MODE_KPROBE), "kprobe"));
}

TEST(dev_parse_forms)
{
	uint32_t dev;

	/* /dev/null is a character device, not a block device */
	CHECK(dev_parse("/dev/null", &dev) < 0);
	CHECK(dev_parse("4095:1048575", &dev) < 0);
	CHECK(dev_parse("7:0x", &dev) < 0);
	CHECK(dev_parse("../etc", &dev) < 0);
}

TEST(dev_parse_majmin_strict)
{
	/* out of range, and what sscanf's %u took */
	static const char *const bad[] = {
		"4096:0", "7:1048576", "-1:0", " 7:0", "7: 0", "+7:0",
		"99999999999999999999:0", "7:", ":0",
	};
	uint32_t dev;

	CHECK(dev_parse_majmin("7:0", &dev) == 0 && dev == KDEV_MKDEV(7u, 0u));
	CHECK(dev_parse_majmin("4095:1048575", &dev) == 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(dev_parse_majmin(bad[i], &dev) < 0);
}

TEST(cli_numbers_in_range)
{
	/* 1e300 would overflow uint64 nanoseconds */
	static const char *const bad_secs[] = {
		"1e300", "inf", "nan", "0.001", "", "1s",
	};
	static const char *const bad_pids[] = {
		"0", "-5", " 5", "+5", "1073741824", "12abc", "",
	};
	uint32_t pid;
	double v;

	CHECK(cli_seconds("0.5", 0.01, &v) == 0 && v == 0.5);
	CHECK(cli_seconds("1e8", 0.01, &v) == 0);
	CHECK(cli_pid("1", &pid) == 0 && pid == 1);
	for (size_t i = 0; i < sizeof(bad_secs) / sizeof(bad_secs[0]); i++)
		CHECK(cli_seconds(bad_secs[i], 0.01, &v) < 0);
	for (size_t i = 0; i < sizeof(bad_pids) / sizeof(bad_pids[0]); i++)
		CHECK(cli_pid(bad_pids[i], &pid) < 0);
}

TEST(select_mode_auto)
{
	int err;

	CHECK(select_mode(MODE_AUTO, true, true, true, true, &err) ==
	      MODE_FENTRY);
	CHECK(select_mode(MODE_AUTO, true, false, true, true, &err) ==
	      MODE_KPROBE);
	CHECK(err == 0);
	CHECK(select_mode(MODE_AUTO, false, true, true, true, &err) ==
	      MODE_NONE);
	CHECK(err == 0);
	/* a kernel that makes no kprobes goes to the tracepoints at once */
	CHECK(select_mode(MODE_AUTO, true, false, false, true, &err) ==
	      MODE_TRACEPOINT);
	CHECK(err == 0);
	CHECK(select_mode(MODE_AUTO, true, false, false, false, &err) ==
	      MODE_NONE);
	CHECK(err == 0);
}

TEST(select_mode_forced)
{
	int err;

	CHECK(select_mode(MODE_FENTRY, true, false, true, true, &err) ==
	      MODE_NONE);
	CHECK(err == -EOPNOTSUPP);
	CHECK(select_mode(MODE_KPROBE, true, true, true, true, &err) ==
	      MODE_KPROBE);
	CHECK(select_mode(MODE_KPROBE, true, true, false, true, &err) ==
	      MODE_NONE);
	CHECK(err == -ENOSYS);
	CHECK(select_mode(MODE_TRACEPOINT, true, true, true, true, &err) ==
	      MODE_TRACEPOINT);
	CHECK(select_mode(MODE_TRACEPOINT, true, true, true, false, &err) ==
	      MODE_NONE);
	CHECK(err == -ENOENT);
	/* an absent group is not an error in any mode */
	CHECK(select_mode(MODE_FENTRY, false, false, false, false, &err) ==
	      MODE_NONE);
	CHECK(err == 0);
}

TEST(summary_rates_and_ratios)
{
	static struct snapshot a, b;
	static struct summary s;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.ts_ns = 1000000000ULL;
	b.ts_ns = 3000000000ULL;
	b.paths[PATH_BH].write_calls = 16;
	b.paths[PATH_BH].write_bytes = 16 << 20;
	b.paths[PATH_BH].bh_alloc = 4096;
	b.paths[PATH_BH].bio_count = 4096;
	b.paths[PATH_BH].bio_bytes = 16 << 20;
	b.nr_devs = 1;
	b.devs[0].dev = (7 << 20) | 3;
	b.devs[0].path = PATH_BH;
	b.devs[0].s.bios = 4096;
	b.devs[0].s.bytes = 16 << 20;
	b.devs[0].s.size_log2[12] = 4096;
	summarize(&a, &b, &s);
	CHECK(s.secs == 2.0);
	CHECK(s.path[PATH_BH].write_mbps == 8.0);
	CHECK(s.path[PATH_BH].bh_per_mib == 256.0);
	CHECK(s.path[PATH_BH].mean_bio == 4096.0);
	CHECK(s.nr_devs == 1);
	CHECK_EQ_U64(s.devs[0].path_bios[PATH_BH], 4096);
	CHECK_EQ_U64(s.devs[0].size_p99, 4096);
}
