// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "keeper.h"
#include "array.h"

/* The command itself: default signals, its identity, then exec. An exec
 * failure goes back through the close-on-exec pipe. */
static void __attribute__((noreturn)) exec_cmd(char **cmd,
					      const struct priv_cmd *pc,
					      int errfd)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
	err = -priv_cmd_apply(pc);
	if (!err) {
		execvp(cmd[0], cmd);
		err = errno;
	}
	if (write(errfd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/* The keeper dies the way the command did, so bhprof's view is the same
 * as without it. */
static void __attribute__((noreturn)) exit_as(int status)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t all;

	if (!WIFSIGNALED(status))
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	setrlimit(RLIMIT_CORE, &no_core);
	signal(WTERMSIG(status), SIG_DFL);
	sigfillset(&all);
	sigprocmask(SIG_UNBLOCK, &all, NULL);
	raise(WTERMSIG(status));
	_exit(128 + WTERMSIG(status));
}

/*
 * Terminal signals reach the whole process group: the keeper ignores
 * them and lets the command decide. A pidfd wakes it when the command
 * exits; without one (before 5.3) it looks every 50 ms.
 */
static void __attribute__((noreturn)) keep(char **cmd,
					  const struct priv_cmd *pc,
					  int errfd, int ctl)
{
	struct pollfd pf[2] = { { .fd = ctl, .events = POLLIN } };
	int status, sig, pidfd;
	pid_t c;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	c = fork();
	if (c < 0)
		_exit(127);
	if (c == 0)
		exec_cmd(cmd, pc, errfd);
	/* nothing of bhprof's (BPF links, the recording) stays alive here */
	priv_close_all_but(ctl);
	pidfd = syscall(SYS_pidfd_open, c, 0);
	pf[1] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	for (;;) {
		if (waitpid(c, &status, WNOHANG) == c)
			exit_as(status);
		if (poll(pf, 2, pidfd < 0 ? 50 : -1) <= 0)
			continue;
		if (!(pf[0].revents & POLLIN) && pf[0].revents) {
			pf[0].fd = -1;	/* bhprof is gone: wait on */
			continue;
		}
		if (!(pf[0].revents & POLLIN))
			continue;
		if (recv(ctl, &sig, sizeof(sig), 0) != sizeof(sig))
			pf[0].fd = -1;
		else
			kill(c, sig);
	}
}

static int start(struct cmd_proc *p, char **cmd, const struct priv_cmd *pc,
		 bool with_keeper, int errfd)
{
	int sv[2] = { -1, -1 };

	if (with_keeper &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	p->pid = fork();
	if (p->pid < 0) {
		p->pid = 0;
		if (with_keeper) {
			close(sv[0]);
			close(sv[1]);
		}
		return -errno;
	}
	if (p->pid == 0) {
		if (!with_keeper)
			exec_cmd(cmd, pc, errfd);
		close(sv[0]);
		keep(cmd, pc, errfd, sv[1]);
	}
	if (with_keeper) {
		close(sv[1]);
		p->ctl = sv[0];
	}
	return 0;
}

int cmd_spawn(struct cmd_proc *p, char **cmd, const struct priv_cmd *pc,
	      bool with_keeper)
{
	int pfd[2], err = 0;
	ssize_t n;

	p->pid = 0;
	p->ctl = -1;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	err = start(p, cmd, pc, with_keeper, pfd[1]);
	close(pfd[1]);
	if (err) {
		close(pfd[0]);
		return err;
	}
	n = read(pfd[0], &err, sizeof(err));
	close(pfd[0]);
	if (n != sizeof(err))
		return 0;
	waitpid(p->pid, NULL, 0);
	cmd_release(p);
	fprintf(stderr, "bhprof: cannot run '%s': %s\n", cmd[0], strerror(err));
	return -err;
}

int cmd_signal(const struct cmd_proc *p, int sig)
{
	if (p->ctl < 0)
		return kill(p->pid, sig) ? -errno : 0;
	if (send(p->ctl, &sig, sizeof(sig), MSG_NOSIGNAL) != sizeof(sig))
		return -errno;
	return 0;
}

void cmd_release(struct cmd_proc *p)
{
	if (p->ctl >= 0)
		close(p->ctl);
	p->ctl = -1;
	p->pid = 0;
}
