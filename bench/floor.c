// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's own price for the events bhprof watches: one empty BPF
 * program (r0 = 0; exit) on each event, attached the way bhprof attaches
 * it, until SIGINT or SIGTERM. Whatever a workload pays under it is the
 * cost of running a program there at all (the tracepoint's dispatch, a
 * syscall event's record, the slow syscall path, and under
 * kernel.bpf_stats_enabled the statistics' own clock reads), which no
 * program body can go below. bench/compare.sh runs it as a tracer.
 *
 * Usage: floor EVENT...
 *   raw:NAME          raw tracepoint NAME (the dispatch of tp_btf)
 *   tp:CATEGORY:NAME  tracepoint event CATEGORY/NAME as a perf event
 *                     (syscalls:sys_enter_write, ...)
 * Says "floor: N events attached" on stdout once every one is.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

/* r0 = 0; exit: BPF_ALU64 | BPF_MOV | BPF_K, then BPF_JMP | BPF_EXIT */
static const struct bpf_insn empty_prog[] = {
	{.code = 0xb7},
	{.code = 0x95},
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int load_empty(enum bpf_prog_type type)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts);

	return bpf_prog_load(type, "floor", "GPL", empty_prog, 2, &opts);
}

static int attach_raw(const char *name)
{
	int prog, fd;

	prog = load_empty(BPF_PROG_TYPE_RAW_TRACEPOINT);
	if (prog < 0)
		return prog;
	fd = bpf_raw_tracepoint_open(name, prog);
	close(prog);
	return fd;
}

/* the id of event cat (cat_len bytes)/name from tracefs, or -errno */
static long event_id(const char *cat, int cat_len, const char *name)
{
	char path[512];
	long id = -ENOENT;
	FILE *f;

	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(*tracefs_dirs);
	     i++) {
		snprintf(path, sizeof(path), "%s/events/%.*s/%s/id",
			 tracefs_dirs[i], cat_len, cat, name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -EINVAL;
		fclose(f);
		break;
	}
	return id;
}

/* as libbpf attaches a tracepoint program: one event on CPU 0, whose
 * program the tracepoint runs on every CPU */
static int attach_tp(const char *cat, int cat_len, const char *name)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
		.wakeup_events = 1,
	};
	long id = event_id(cat, cat_len, name);
	int prog, pfd, err;

	if (id < 0)
		return id;
	attr.config = id;
	pfd = syscall(__NR_perf_event_open, &attr, -1, 0, -1,
		      PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -errno;
	prog = load_empty(BPF_PROG_TYPE_TRACEPOINT);
	if (prog < 0) {
		close(pfd);
		return prog;
	}
	err = 0;
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog) ||
	    ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0))
		err = -errno;
	close(prog);
	if (err) {
		close(pfd);
		return err;
	}
	return pfd;
}

/* the tracepoint's name in spec, NULL if spec is neither form */
static const char *spec_name(const char *spec)
{
	const char *name;

	if (!strncmp(spec, "raw:", 4))
		return spec[4] ? spec + 4 : NULL;
	if (strncmp(spec, "tp:", 3))
		return NULL;
	name = strchr(spec + 3, ':');
	if (!name || name == spec + 3 || !name[1])
		return NULL;
	return name + 1;
}

/* spec checked by spec_name() */
static int attach_one(const char *spec, const char *name)
{
	if (spec[0] == 'r')
		return attach_raw(name);
	/* "tp:" CATEGORY ":" name */
	return attach_tp(spec + 3, (int)(name - spec - 4), name);
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigset_t block, old;
	int i, fd;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: floor raw:NAME | tp:CATEGORY:NAME ...\n"
			"empty BPF programs on the events until SIGINT\n");
		return argc < 2 ? 2 : 0;
	}
	for (i = 1; i < argc; i++) {
		if (!spec_name(argv[i])) {
			fprintf(stderr,
				"floor: %s: not raw:NAME or tp:CATEGORY:NAME\n",
				argv[i]);
			return 1;
		}
	}
	/* a signal before the wait is kept for it, not lost */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (i = 1; i < argc; i++) {
		fd = attach_one(argv[i], spec_name(argv[i]));
		if (fd < 0) {
			fprintf(stderr, "floor: %s: %s\n", argv[i],
				fd == -ENOENT ? "no such event on this kernel"
					      : strerror(-fd));
			return 1;
		}
	}
	printf("floor: %d events attached\n", argc - 1);
	fflush(stdout);
	while (!stop)
		sigsuspend(&old);
	return 0;
}
