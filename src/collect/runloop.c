// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "util/cliparse.h"
#include "model/devices.h"
#include "util/priv.h"
#include "runloop.h"

volatile sig_atomic_t run_stop;
volatile sig_atomic_t run_stop_signal;

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int parse_seconds(const char *s, const char *what, double min,
			 double *out)
{
	if (cli_seconds(s, min, out)) {
		fprintf(stderr, "bhprof: invalid %s '%s' (seconds, %g to %g)\n",
			what, s, min, CLI_SECONDS_MAX);
		return -1;
	}
	return 0;
}

static int parse_pid(const char *s, uint32_t *pid)
{
	char path[64];

	if (cli_pid(s, pid)) {
		fprintf(stderr, "bhprof: invalid pid '%s'\n", s);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%u", *pid);
	if (access(path, F_OK)) {
		fprintf(stderr, "bhprof: no process with pid %u\n", *pid);
		return -1;
	}
	return 0;
}

static int add_device(struct collector_opts *c, const char *s)
{
	uint32_t dev;

	if (dev_parse(s, &dev)) {
		fprintf(stderr, "bhprof: unknown block device '%s'\n", s);
		return -1;
	}
	if (c->nr_filter_devs >= MAX_FILTER_DEVS) {
		fprintf(stderr, "bhprof: at most %d devices with -d\n",
			MAX_FILTER_DEVS);
		return -1;
	}
	c->filter_devs[c->nr_filter_devs++] = dev;
	return 0;
}

enum {
	OPT_DURATION = 256, OPT_ATTACH, OPT_JSON, OPT_PLAIN, OPT_FORCE,
	OPT_CMD_AS_ROOT, OPT_LISTEN, OPT_TEXTFILE, OPT_SELF_COST,
	OPT_CALLERS, OPT_FOLDED,
};

static const struct option long_opts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "device", required_argument, NULL, 'd' },
	{ "pid", required_argument, NULL, 'p' },
	{ "attach", required_argument, NULL, OPT_ATTACH },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "plain", no_argument, NULL, OPT_PLAIN },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "cmd-as-root", no_argument, NULL, OPT_CMD_AS_ROOT },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "textfile", required_argument, NULL, OPT_TEXTFILE },
	{ "self-cost", no_argument, NULL, OPT_SELF_COST },
	{ "callers", optional_argument, NULL, OPT_CALLERS },
	{ "folded", required_argument, NULL, OPT_FOLDED },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{},
};

static bool allowed_opt(int c, unsigned int allowed)
{
	switch (c) {
	case OPT_JSON:
		return allowed & RUN_OPT_JSON;
	case 'o':
	case OPT_FORCE:
		return allowed & RUN_OPT_OUTPUT;
	case OPT_PLAIN:
		return allowed & RUN_OPT_PLAIN;
	case OPT_LISTEN:
	case OPT_TEXTFILE:
		return allowed & RUN_OPT_SERVE;
	case OPT_SELF_COST:
		return allowed & RUN_OPT_SELF_COST;
	case OPT_CALLERS:
		return allowed & RUN_OPT_CALLERS;
	case OPT_FOLDED:
		return allowed & RUN_OPT_FOLDED;
	default:
		return true;
	}
}

static int parse_one(int c, struct run_opts *o)
{
	switch (c) {
	case 'i':
		o->interval_set = true;
		return parse_seconds(optarg, "interval", 0.01, &o->interval);
	case OPT_DURATION:
		return parse_seconds(optarg, "duration", 0.01, &o->duration);
	case 'd':
		return add_device(&o->col, optarg);
	case 'p':
		return parse_pid(optarg, &o->col.filter_pid);
	case OPT_ATTACH:
		if (mode_parse(optarg, &o->col.mode)) {
			fprintf(stderr, "bhprof: --attach takes auto, fentry, "
				"kprobe or tracepoint, not '%s'\n", optarg);
			return -1;
		}
		return 0;
	case OPT_JSON:
		o->json = true;
		return 0;
	case OPT_PLAIN:
		o->plain = true;
		return 0;
	case 'o':
		o->output = optarg;
		return 0;
	case OPT_FORCE:
		o->force = true;
		return 0;
	case OPT_CMD_AS_ROOT:
		o->cmd_as_root = true;
		return 0;
	case OPT_LISTEN:
		o->listen = optarg;
		return 0;
	case OPT_TEXTFILE:
		o->textfile = optarg;
		return 0;
	case OPT_SELF_COST:
		o->col.self_cost = true;
		return 0;
	case OPT_CALLERS:
		if (optarg && strcmp(optarg, "full")) {
			fprintf(stderr, "bhprof: --callers takes nothing or "
				"=full, not '%s'\n", optarg);
			return -1;
		}
		o->callers = optarg ? 2 : 1;
		o->col.callers = true;
		return 0;
	case OPT_FOLDED:
		o->folded = optarg;
		return 0;
	case 'v':
		o->col.verbose = true;
		return 0;
	default:
		return -1;
	}
}

int run_opts_parse(int argc, char **argv, struct run_opts *o,
		   unsigned int allowed, void (*usage)(FILE *))
{
	int c;

	memset(o, 0, sizeof(*o));
	o->interval = 1.0;
	o->col.mode = MODE_AUTO;
	optind = 1;
	opterr = 0;
	/* '+': the first operand starts the command, as with perf stat */
	while ((c = getopt_long(argc, argv, "+i:d:p:o:vh", long_opts,
				NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':' || !allowed_opt(c, allowed)) {
			fprintf(stderr, "bhprof %s: unknown or incomplete option "
				"'%s' (see --help)\n", argv[0], argv[optind - 1]);
			return -1;
		}
		if (parse_one(c, o))
			return -1;
	}
	if (optind < argc)
		o->cmd = &argv[optind];
	if (o->folded && !o->callers) {
		fprintf(stderr, "bhprof: --folded needs --callers\n");
		return -1;
	}
	return 0;
}

static void on_signal(int sig)
{
	run_stop = 1;
	run_stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;	/* only here to interrupt nanosleep */
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
}

/*
 * Under sudo the command runs as the sudo user, as bhprof itself will;
 * one that keeps root is out of reach of bhprof without root and runs
 * under a keeper that stays root for it (keeper.h).
 */
static int spawn(struct run_opts *o, struct run_state *st)
{
	struct priv_cmd pc;
	int err;

	priv_cmd_prepare(&pc, o->cmd_as_root);
	err = cmd_spawn(&st->proc, o->cmd, &pc,
			!pc.as_user && geteuid() == 0);
	st->child = st->proc.pid;
	return err;
}

static int collector_works(void *col)
{
	return collector_check(col);
}

static void join_argv(char *buf, size_t len, int argc, char **argv)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < argc && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? " " : "",
				argv[i]);
}

int run_start(struct run_opts *o, struct run_state *st, int argc,
	      char **argv)
{
	enum priv_level level;
	int err;

	memset(st, 0, sizeof(*st));
	st->proc.ctl = -1;
	st->first = calloc(1, sizeof(*st->first));
	if (!st->first)
		return -ENOMEM;
	install_signals();
	o->col.watch_modules = true;
	err = collector_open(&o->col, &st->info, &st->col);
	if (err)
		return err;
	st->info.interval_ms = (uint64_t)(o->interval * 1000 + 0.5);
	st->info.nr_filter_devs = o->col.nr_filter_devs;
	memcpy(st->info.filter_devs, o->col.filter_devs,
	       sizeof(st->info.filter_devs));
	st->info.filter_pid = o->col.filter_pid;
	join_argv(st->info.cmdline, sizeof(st->info.cmdline), argc, argv);
	err = collector_read(st->col, st->first);
	if (err) {
		fprintf(stderr, "bhprof: failed to read BPF maps: %s\n",
			strerror(-err));
		return err;
	}
	st->start_ns = st->first->ts_ns;
	level = priv_drop_trial(collector_works, st->col);
	if (o->cmd) {
		err = spawn(o, st);
		if (err)
			return err;
	}
	err = priv_drop_to(level, o->col.verbose);
	return err < 0 ? err : 0;
}

static void reap(struct run_state *st, int flags)
{
	int status;

	if (!st->child || st->child_done)
		return;
	if (waitpid(st->child, &status, flags) == st->child) {
		st->child_status = status;
		st->child_done = true;
	}
}

bool run_wait(struct run_opts *o, struct run_state *st, uint64_t deadline_ns)
{
	uint64_t now, end = 0;

	if (o->duration > 0)
		end = st->start_ns + (uint64_t)(o->duration * 1e9);
	for (;;) {
		struct timespec ts;
		uint64_t stop;

		now = now_ns();
		st->elapsed = (now - st->start_ns) / 1e9;
		reap(st, WNOHANG);
		if (run_stop || (st->child && st->child_done))
			return false;
		if (end && now >= end)
			return false;
		if (now >= deadline_ns)
			return true;
		stop = end && end < deadline_ns ? end : deadline_ns;
		/* SIGCHLD and SIGINT cut the sleep short */
		ts.tv_sec = (stop - now) / 1000000000ULL;
		ts.tv_nsec = (stop - now) % 1000000000ULL;
		nanosleep(&ts, NULL);
	}
}

/* A command still running when the run ends is asked, then told. */
static void stop_child(struct run_state *st)
{
	reap(st, WNOHANG);
	if (!st->child || st->child_done)
		return;
	cmd_signal(&st->proc, SIGTERM);
	for (int i = 0; i < 50 && !st->child_done; i++) {
		usleep(20000);
		reap(st, WNOHANG);
	}
	if (!st->child_done)
		cmd_signal(&st->proc, SIGKILL);
	reap(st, 0);
}

void run_finish(struct run_state *st)
{
	uint64_t missed;

	stop_child(st);
	cmd_release(&st->proc);
	/* never a silently short count */
	missed = st->col ? collector_missed(st->col) : 0;
	if (missed)
		fprintf(stderr, "bhprof: warning: the kernel skipped %llu runs "
			"of bhprof's programs (another BPF program was running "
			"on that CPU): counts may be short by as many events\n",
			(unsigned long long)missed);
	collector_close(st->col);
	st->col = NULL;
	free(st->first);
	st->first = NULL;
}

int run_child_exit_code(const struct run_state *st)
{
	if (!st->child || !st->child_done)
		return 0;
	if (WIFEXITED(st->child_status))
		return WEXITSTATUS(st->child_status);
	if (WIFSIGNALED(st->child_status))
		return 128 + WTERMSIG(st->child_status);
	return 0;
}
