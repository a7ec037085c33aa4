// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "closer.h"

#define FD_DIR "/proc/self/fd"

/* a link that holds a program on a perf event */
static int perf_link(int fd)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	return !bpf_obj_get_info_by_fd(fd, &info, &len) &&
	       info.type == BPF_LINK_TYPE_PERF_EVENT;
}

/*
 * What the closer keeps: the perf events and the links on them, whose
 * last closes wait out grace periods. Raw tracepoint and trampoline
 * links go at once, with the caller's close or the closer's, and their
 * programs with them.
 */
static int closer_keeps(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), FD_DIR "/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = 0;
	if (!strcmp(target, "anon_inode:[perf_event]"))
		return 1;
	return !strcmp(target, "anon_inode:bpf_link") && perf_link(fd);
}

/* all else closed at once; exit closes the rest, slowly */
static void __attribute__((noreturn)) closer_run(void)
{
	DIR *d = opendir(FD_DIR);
	struct dirent *e;

	prctl(PR_SET_NAME, "bhprof-closer");
	while (d && (e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' ||
		    fd == dirfd(d) || closer_keeps(fd))
			continue;
		close(fd);
	}
	if (d)
		closedir(d);
	/* tests only: keep them a while, to look at what is kept */
	if (getenv("BHPROF_CLOSER_HOLD_MS"))
		usleep(1000 * atoi(getenv("BHPROF_CLOSER_HOLD_MS")));
	_exit(0);
}

void closer_start(void)
{
	pid_t pid;

	if (access(FD_DIR, R_OK) < 0)
		return;
	pid = fork();
	if (pid < 0)
		return;
	if (pid > 0) {
		waitpid(pid, NULL, 0);
		return;
	}
	/* the child goes at once: nobody waits for the grandchild */
	if (fork() != 0)
		_exit(0);
	closer_run();
}
