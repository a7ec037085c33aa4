/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who bhprof is, and giving up root once the probes are attached.
 *
 * bhprof needs root (CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN on older
 * kernels) only to load and attach its programs and to open its files.
 * What runs for minutes afterwards (the TUI, the interval loop, a file
 * reader) runs as the invoking user under sudo, else as nobody, with no
 * capabilities, no_new_privs and not dumpable, so a bug in it cannot act
 * as root and the BPF fds it holds cannot be taken with ptrace.
 */
#ifndef BHPROF_PRIV_H
#define BHPROF_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PRIV_NOBODY 65534	/* uid and gid: no /etc/passwd needed */
#define PRIV_MAX_GROUPS 64

/*
 * The user who ran "sudo bhprof": true, with SUDO_UID and SUDO_GID, when
 * the real uid is root and both are set to a number other than 0.
 * Everything bhprof creates is handed to that user.
 */
bool priv_sudo_user(uid_t *uid, gid_t *gid);

/* What priv_drop_to reached. */
enum priv_level {
	PRIV_KEPT,	/* still root: nothing short of it worked */
	PRIV_BPF,	/* target uid, CAP_BPF only (older kernels) */
	PRIV_NONE,	/* target uid, no capabilities at all */
};

/*
 * Gives up root for good: supplementary groups, gid, uid (to the sudo
 * user, else nobody), every capability, then no_new_privs. works() must
 * return 0 when what the caller still needs (reading its BPF maps) works;
 * it is first tried in a forked child that drops, so the caller never
 * drops into a state it cannot collect in. On kernels before 5.19 with
 * kernel.unprivileged_bpf_disabled set, every bpf() call needs CAP_BPF:
 * that one capability is kept (before 5.8, without CAP_BPF, root is). With verbose, one line says what happened.
 *
 * Two steps: priv_drop_trial() finds in children the level that works,
 * priv_drop_to() gives up the rest. A map read holds kprobe programs off
 * its CPU for a moment (the kernel's bpf_prog_active), so the trial's
 * reads belong before a command starts writing, not beside its first
 * writes. priv_drop_to returns the priv_level reached, or a negative
 * errno after one error line if the drop itself failed half way (the
 * caller must stop).
 */
int priv_drop_trial(int (*works)(void *arg), void *arg);
int priv_drop_to(enum priv_level level, bool verbose);

/*
 * For short commands that parse outside input (report, diff, gate): runs
 * fn in a child that has given up everything, as priv_drop_to's target, and
 * returns what fn returned (0 to 124). -1 if fn could not run or its
 * child was killed, after one error line. Files fn reads or writes must
 * be open before. Without root or capabilities to give up, fn runs in
 * this process.
 */
#define PRIV_RUN_FAILED 125
int priv_run_dropped(int (*fn)(void *arg), void *arg);

/*
 * For the helper that attaches the probes of modules loaded later
 * (collect/latemod.c): stays uid 0 but keeps only what loading and
 * attaching BPF programs takes (CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN for
 * module BTF ids, CAP_SYS_RESOURCE for locked memory on old kernels),
 * with no_new_privs and not dumpable. 0 or a negative errno.
 */
int priv_keep_loader(void);

/* Would priv_drop_to or priv_run_dropped give anything up here? */
bool priv_would_drop(void);

/* For a helper that must hold nothing of bhprof's (BPF links, maps,
 * recordings): closes every fd above 2 but keep. */
void priv_close_all_but(int keep);
/* ... but the n in keep (sorted in place) */
void priv_close_all_but_set(int *keep, int n);

/* The identity a command run under bhprof (-- CMD) takes. */
struct priv_cmd {
	bool as_user;		/* false: it keeps bhprof's own ids */
	uid_t uid;
	gid_t gid;
	int nr_groups;
	gid_t groups[PRIV_MAX_GROUPS];
};

/* Under sudo, and unless keep_root: the sudo user with their groups
 * (looked up now, before fork). Otherwise the command stays as it is. */
void priv_cmd_prepare(struct priv_cmd *c, bool keep_root);
/* In the forked child, before exec: 0 or a negative errno. */
int priv_cmd_apply(const struct priv_cmd *c);

#endif /* BHPROF_PRIV_H */
