// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Giving up root. Raw capset(2) and prctl(2), not libcap: the static
 * build for the QEMU guests links only what it already has.
 */
#include <errno.h>
#include <limits.h>
#include <grp.h>
#include <signal.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "priv.h"

#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static int parse_id(const char *s, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v >= 0xffffffffUL)
		return -1;
	*out = v;
	return 0;
}

bool priv_sudo_user(uid_t *uid, gid_t *gid)
{
	unsigned long u, g;

	if (getuid() != 0)
		return false;
	if (parse_id(getenv("SUDO_UID"), &u) ||
	    parse_id(getenv("SUDO_GID"), &g))
		return false;
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return true;
}

/* The sudo user; else, for a set-id or file-capability start, whoever
 * started it; else nobody, who owns nothing. */
static void drop_target(uid_t *uid, gid_t *gid, const char **who)
{
	if (priv_sudo_user(uid, gid)) {
		*who = "the sudo user";
	} else if (getuid() != 0) {
		*uid = getuid();
		*gid = getgid();
		*who = "the invoking user";
	} else {
		*uid = PRIV_NOBODY;
		*gid = PRIV_NOBODY;
		*who = "nobody";
	}
}

static int caps_set(uint64_t keep)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = {};

	d[0].effective = d[0].permitted = (uint32_t)keep;
	d[1].effective = d[1].permitted = (uint32_t)(keep >> 32);
	return syscall(SYS_capset, &hdr, d) ? -errno : 0;
}

static int caps_get(uint64_t *eff, uint64_t *prm)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &hdr, d))
		return -errno;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	return 0;
}

/* Without CAP_SETPCAP (a file-capability start) this fails quietly;
 * no_new_privs then keeps exec from gaining anything instead. */
static void bset_drop(uint64_t keep)
{
	for (int c = 0; c < 64; c++) {
		if (keep & (1ULL << c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno == EINVAL)
			break;	/* past the kernel's last capability */
	}
}

static int set_ids(uid_t uid, gid_t gid)
{
	if (geteuid() != 0)
		return 0;	/* no root to give up, only capabilities */
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

/* Proof, not trust: root must not come back, the sets must be keep. */
static int verify(uid_t uid, uint64_t keep)
{
	uid_t r, e, s;
	uint64_t eff = 0, prm = 0;

	if (getresuid(&r, &e, &s) || caps_get(&eff, &prm))
		return -errno;
	if (uid != 0 && (r != uid || e != uid || s != uid || !setuid(0)))
		return -EPERM;
	return eff == keep && prm == keep ? 0 : -EPERM;
}

static int drop_to(uid_t uid, gid_t gid, uint64_t keep)
{
	int err;

	if (keep && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -errno;
	bset_drop(keep);
	err = set_ids(uid, gid) ?: caps_set(keep);
	if (err)
		return err;
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	/* nobody and the sudo user must not ptrace the BPF fds out of us */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	return verify(uid, keep);
}

/* Drops in a child first: 0 if works() still succeeds there. */
static int trial(uid_t uid, gid_t gid, uint64_t keep,
		 int (*works)(void *), void *arg)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(drop_to(uid, gid, keep) ? 2 : works(arg) ? 1 : 0);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EPERM;
}

int priv_drop_trial(int (*works)(void *arg), void *arg)
{
	uid_t uid;
	gid_t gid;
	const char *who;

	drop_target(&uid, &gid, &who);
	if (!trial(uid, gid, 0, works, arg))
		return PRIV_NONE;
	if (!trial(uid, gid, 1ULL << CAP_BPF, works, arg))
		return PRIV_BPF;
	return PRIV_KEPT;
}

int priv_drop_to(enum priv_level level, bool verbose)
{
	const uint64_t bpf_only = 1ULL << CAP_BPF;
	const char *who;
	uid_t uid;
	gid_t gid;
	int err;

	drop_target(&uid, &gid, &who);
	switch (level) {
	case PRIV_NONE:
		err = drop_to(uid, gid, 0);
		if (err)
			goto fail;
		if (verbose)
			fprintf(stderr, "bhprof: probes attached; now uid %u (%s), "
				"no capabilities, no_new_privs\n", uid, who);
		return PRIV_NONE;
	case PRIV_BPF:
		err = drop_to(uid, gid, bpf_only);
		if (err)
			goto fail;
		if (verbose)
			fprintf(stderr, "bhprof: probes attached; now uid %u (%s) "
				"with CAP_BPF only: this kernel's bpf() refuses "
				"map reads without it (unprivileged_bpf_disabled, "
				"before 5.19)\n", uid, who);
		return PRIV_BPF;
	default:
		if (verbose)
			fprintf(stderr, "bhprof: kept root: the BPF maps cannot be "
				"read without it on this kernel\n");
		return PRIV_KEPT;
	}
fail:
	fprintf(stderr, "bhprof: giving up root failed: %s\n", strerror(-err));
	return err;
}

int priv_keep_loader(void)
{
	/* CAP_PERFMON (38) and CAP_BPF (39), which older headers lack */
	uint64_t keep = 1ULL << CAP_SYS_ADMIN | 1ULL << 38 | 1ULL << CAP_BPF |
			1ULL << CAP_SYS_RESOURCE, eff, prm;
	int err;

	if (geteuid() != 0)
		return 0;	/* a file-capability start: nothing more to keep */
	err = caps_get(&eff, &prm);
	/* a kernel before 5.8 knows no CAP_BPF nor CAP_PERFMON */
	return err ?: drop_to(0, 0, keep & prm);
}

bool priv_would_drop(void)
{
	uint64_t eff = 0, prm = 0;

	return geteuid() == 0 || caps_get(&eff, &prm) || eff || prm;
}

int priv_run_dropped(int (*fn)(void *arg), void *arg)
{
	const char *who;
	int status, err;
	uid_t uid;
	gid_t gid;
	pid_t pid;

	if (!priv_would_drop())
		return fn(arg);
	fflush(NULL);	/* or the child writes it a second time */
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "bhprof: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		drop_target(&uid, &gid, &who);
		err = drop_to(uid, gid, 0);
		if (err) {
			fprintf(stderr, "bhprof: giving up root failed: %s\n",
				strerror(-err));
			_exit(PRIV_RUN_FAILED);
		}
		status = fn(arg);
		fflush(NULL);
		_exit(status);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status)) {
		status = WTERMSIG(status);
		/* a closed pipe or ^C ends us the same way, as it did */
		if (status == SIGPIPE || status == SIGINT || status == SIGTERM ||
		    status == SIGHUP) {
			signal(status, SIG_DFL);
			raise(status);
		}
		fprintf(stderr, "bhprof: reading the input failed: %s\n",
			strsignal(status));
		return -1;
	}
	status = WIFEXITED(status) ? WEXITSTATUS(status) : PRIV_RUN_FAILED;
	return status == PRIV_RUN_FAILED ? -1 : status;
}

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

void priv_close_all_but_set(int *keep, int n)
{
	int from = 3;

	qsort(keep, n, sizeof(*keep), int_cmp);
	for (int i = 0; i <= n; i++) {
		int to = i < n ? keep[i] - 1 : INT_MAX;

		if (to >= from && syscall(SYS_close_range, from, to, 0)) {
			for (int fd = from; fd <= to && fd < 65536; fd++)
				close(fd);	/* before 5.9 */
		}
		if (i < n && keep[i] + 1 > from)
			from = keep[i] + 1;
	}
}

void priv_close_all_but(int keep)
{
	priv_close_all_but_set(&keep, 1);
}

void priv_cmd_prepare(struct priv_cmd *c, bool keep_root)
{
	const char *name = getenv("SUDO_USER");

	memset(c, 0, sizeof(*c));
	if (keep_root || !priv_sudo_user(&c->uid, &c->gid))
		return;
	c->as_user = true;
	c->nr_groups = PRIV_MAX_GROUPS;
	/* the groups sudo's own "sudo -u USER" would give */
	if (!name || !*name || getgrouplist(name, c->gid, c->groups,
					    &c->nr_groups) < 0) {
		c->groups[0] = c->gid;
		c->nr_groups = 1;
	}
}

int priv_cmd_apply(const struct priv_cmd *c)
{
	if (!c->as_user)
		return 0;
	if (setgroups(c->nr_groups, c->groups) ||
	    setresgid(c->gid, c->gid, c->gid) ||
	    setresuid(c->uid, c->uid, c->uid))
		return -errno;
	return 0;
}
