/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What stat, record and top share: their command line, the optional child
 * command, signals, and the interval loop that hands out snapshots.
 */
#ifndef BHPROF_RUNLOOP_H
#define BHPROF_RUNLOOP_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>
#include "collector.h"
#include "util/keeper.h"

struct run_opts {
	double interval;	/* seconds, -i */
	bool interval_set;	/* -i given, not the default */
	double duration;	/* seconds, --duration; 0 = until stopped */
	bool json;		/* --json */
	bool plain;		/* --plain (top) */
	const char *output;	/* -o FILE */
	bool force;		/* --force: -o may replace a file */
	bool cmd_as_root;	/* --cmd-as-root: CMD keeps root under sudo */
	const char *listen;	/* --listen ADDR:PORT (serve) */
	const char *textfile;	/* --textfile DIR (serve) */
	int callers;		/* --callers: 1, --callers=full: 2 */
	const char *folded;	/* --folded FILE */
	struct collector_opts col;
	char **cmd;		/* after --, NULL if none */
};

/* which options a command takes besides -i/--duration/-d/-p/--attach */
#define RUN_OPT_JSON 0x1
#define RUN_OPT_OUTPUT 0x2
#define RUN_OPT_PLAIN 0x4
#define RUN_OPT_SERVE 0x8	/* --listen, --textfile */
#define RUN_OPT_SELF_COST 0x10	/* --self-cost */
#define RUN_OPT_CALLERS 0x20	/* --callers[=full] */
#define RUN_OPT_FOLDED 0x40	/* --folded FILE */

/* Returns 0, 1 when --help was printed, or -1 after an error line. */
int run_opts_parse(int argc, char **argv, struct run_opts *o,
		   unsigned int allowed, void (*usage)(FILE *));

struct run_state {
	struct collector *col;
	struct run_info info;
	pid_t child;		/* 0 if no command */
	struct cmd_proc proc;	/* how to signal it */
	int child_status;	/* wait status once reaped */
	bool child_done;
	double elapsed;		/* seconds since start */
	uint64_t start_ns;	/* CLOCK_MONOTONIC at attach */
	/* taken right after attach, before the command starts */
	struct snapshot *first;
};

/* set by SIGINT/SIGTERM (and SIGHUP); every loop polls it */
extern volatile sig_atomic_t run_stop;
extern volatile sig_atomic_t run_stop_signal;

/* Opens the collector, fills info, starts the command (if any), then
 * gives up root (priv.h): open every output before. */
int run_start(struct run_opts *o, struct run_state *st, int argc,
	      char **argv);
/* Sleeps until the next interval, a signal or the child's exit.
 * Returns true while the run should go on. */
bool run_wait(struct run_opts *o, struct run_state *st, uint64_t deadline_ns);
void run_finish(struct run_state *st);
/* shell-style exit status of the child: 0..255, 128+sig */
int run_child_exit_code(const struct run_state *st);
uint64_t now_ns(void);

#endif /* BHPROF_RUNLOOP_H */
