/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Running the command after "--". Under sudo it runs as the sudo user,
 * like bhprof itself once attached; then bhprof can signal it directly.
 * A command that keeps root (plain root, or --cmd-as-root) would be out
 * of reach of bhprof once bhprof gives up root: it then runs under a
 * keeper, a small process that stays root, holds none of bhprof's files
 * or BPF objects, and only relays the signals bhprof asks for and the
 * command's exit status (as its own).
 */
#ifndef BHPROF_KEEPER_H
#define BHPROF_KEEPER_H

#include <sys/types.h>
#include "priv.h"

struct cmd_proc {
	pid_t pid;	/* the command, or its keeper; 0 if none */
	int ctl;	/* to the keeper, -1 without one */
};

/*
 * Starts cmd as pc says; with_keeper puts a keeper between. An exec
 * failure is one error line and a negative errno, the command not run.
 */
int cmd_spawn(struct cmd_proc *p, char **cmd, const struct priv_cmd *pc,
	      bool with_keeper);
/* kill(2) on the command, through the keeper if there is one */
int cmd_signal(const struct cmd_proc *p, int sig);
void cmd_release(struct cmd_proc *p);

#endif /* BHPROF_KEEPER_H */
