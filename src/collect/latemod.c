// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Modules that load after the start. The first mount of a filesystem
 * loads its module (ext4 where the root is not ext4, and the jbd2 events
 * with it), and its functions and tracepoints exist only from then on.
 *
 * bhprof gives up root once attached (util/priv.h), and loading a
 * program takes CAP_BPF and CAP_PERFMON. So a helper, forked before the
 * drop, keeps just those (priv_keep_loader) and does nothing but this:
 * it hears the kernel's module uevents (and looks at /proc/modules every
 * second, where uevents do not reach), and attaches the probes a new
 * module holds, each in its group's flavour, through a second instance
 * of the BPF object whose maps are the run's own (reused by fd): they
 * count into the same figures. What it attached, and what an unloaded
 * module took with it, it writes to a page it shares with bhprof, which
 * marks both in every snapshot.
 *
 * A kprobe goes with its module. fentry and tracepoint programs hold
 * theirs: the kernel refuses to unload it ("in use") until bhprof ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "kernel.h"
#include "latemod.h"
#include "progcost.h"
#include "bhprof.skel.h"
#include "util/priv.h"

#define LATE_MSGS 16
#define LATE_PROGS 64

/* what the helper tells bhprof: it writes, bhprof reads */
struct latemod_page {
	volatile uint64_t late;	/* probes attached since the start */
	volatile uint64_t gone;	/* probes an unloaded module took */
	/* its lines, for bhprof to print where its stderr is not the
	 * helper's (top's screen holds it): a ring, nr_msgs written */
	volatile uint32_t nr_msgs;
	volatile uint32_t relay;
	char msgs[LATE_MSGS][352];
	/* --self-cost: what its programs counted, by name, written when
	 * bhprof asks (a byte on the socket) and when it ends; odd while
	 * being written */
	volatile uint32_t cost_seq;
	uint32_t nr_cost;
	struct self_prog cost[LATE_PROGS];
};

struct latemod {
	pid_t pid;
	int hold;	/* the helper lives while this is open */
	uint32_t printed;	/* of the relayed lines */
	struct latemod_page *page;
};

#define MAX_MODS 512
#define MAX_LATE 16

/* the probes one module brought, and the object that holds them */
struct late_mod {
	char name[64];
	uint64_t probes;
	struct bhprof_bpf *skel;
	struct attach_plan *plan;
};

struct watch {
	const struct attach_plan *base;
	struct bhprof_bpf *run;	/* the run's object: its maps */
	struct latemod_page *page;
	uint64_t waiting;	/* probes no loaded module holds */
	uint64_t start_ns;
	int uevents;
	int hold;	/* bhprof's end of it: EOF when bhprof is done */
	char (*live)[64];	/* modules live at the last look */
	int nr_live;
	struct late_mod mods[MAX_LATE];
	int nr_mods;
	/* what the programs of modules gone counted */
	uint32_t nr_retired;
	struct self_prog retired[LATE_PROGS];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The modules /proc/modules calls Live, into names; -1 if unreadable. */
static int modules_live(char (*names)[64], int max)
{
	char line[512], name[64], state[16];
	FILE *f = fopen("/proc/modules", "re");
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %*s %*s %*s %15s", name, state) != 2 ||
		    strcmp(state, "Live"))
			continue;
		snprintf(names[n++], 64, "%s", name);
	}
	fclose(f);
	return n;
}

static bool name_in(char (*names)[64], int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* One line on stderr, or in the ring for bhprof to print. */
static void __attribute__((format(printf, 2, 3)))
say(struct watch *w, const char *fmt, ...)
{
	struct latemod_page *pg = w->page;
	char *m = pg->msgs[pg->nr_msgs % LATE_MSGS];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(pg->msgs[0]), fmt, ap);
	va_end(ap);
	__sync_synchronize();
	pg->nr_msgs++;
	if (!pg->relay)
		fprintf(stderr, "%s\n", m);
}

/* "ext4_read_folio fentry, ext4_writepages tracepoint": each probe's own
 * flavour (kprobes for a module without BTF beside fentry) */
static void probes_text(const struct attach_plan *p, uint64_t probes,
			char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int id = 0; id < NR_PROBES && off < len; id++) {
		if (!(probes & (1ULL << id)))
			continue;
		off += snprintf(buf + off, len - off, "%s%s %s",
				off ? ", " : "", p->func[id],
				mode_name(probe_mode(p, id)));
	}
}

/* Every map of the new object is the run's own, by name. */
static int maps_reuse(struct bhprof_bpf *skel, struct bhprof_bpf *run)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, skel->obj) {
		struct bpf_map *r =
			bpf_object__find_map_by_name(run->obj,
						     bpf_map__name(m));
		int err;

		if (!r || bpf_map__fd(r) < 0)
			continue;
		err = bpf_map__reuse_fd(m, bpf_map__fd(r));
		if (err)
			return err;
	}
	return 0;
}

static void late_free(struct late_mod *lm)
{
	if (lm->plan)
		attach_plan_detach(lm->plan);
	bhprof_bpf__destroy(lm->skel);
	free(lm->plan);
	memset(lm, 0, sizeof(*lm));
}

/* a module's programs, detached: what they counted is kept */
static void late_retire(struct watch *w, struct late_mod *lm)
{
	bpf_progs_cost(lm->skel->obj, w->retired, &w->nr_retired, LATE_PROGS);
	late_free(lm);
}

/* what every program it loaded counted, for bhprof to read */
static void cost_publish(struct watch *w)
{
	struct latemod_page *pg = w->page;
	uint32_t n = w->nr_retired;

	pg->cost_seq++;
	__sync_synchronize();
	memcpy(pg->cost, w->retired, sizeof(w->retired[0]) * n);
	for (int i = 0; i < w->nr_mods; i++)
		bpf_progs_cost(w->mods[i].skel->obj, pg->cost, &n, LATE_PROGS);
	pg->nr_cost = n;
	__sync_synchronize();
	pg->cost_seq++;
}

/* Loads and attaches the probes of lm->plan: 0 or why not in msg. */
static int late_load(struct watch *w, struct late_mod *lm, char *msg,
		     size_t len)
{
	int err;

	lm->skel = bhprof_bpf__open();
	if (!lm->skel) {
		snprintf(msg, len, "cannot open the BPF object");
		return -ENOMEM;
	}
	err = maps_reuse(lm->skel, w->run);
	if (err) {
		snprintf(msg, len, "cannot share the run's maps: %s",
			 strerror(-err));
		return err;
	}
	attach_plan_late_autoload(lm->plan, lm->skel);
	err = bhprof_bpf__load(lm->skel);
	if (err) {
		snprintf(msg, len, "the kernel refused the programs: %s",
			 strerror(-err));
		return err;
	}
	return attach_plan_late_attach(lm->plan, lm->skel, msg, len);
}

/* The probes that wait and module mod holds, attached. */
static void module_came(struct watch *w, const char *mod)
{
	struct late_mod *lm = &w->mods[w->nr_mods];
	struct ksyms *ks = NULL;
	struct kbtf *kb = NULL;
	char msg[224], what[320];
	uint64_t found = 0;
	double at;
	int err;

	if (!w->waiting || w->nr_mods == MAX_LATE)
		return;
	lm->plan = calloc(1, sizeof(*lm->plan));
	ks = attach_ksyms_load();
	kb = kbtf_new(btf__load_vmlinux_btf());
	if (lm->plan && ks && kb)
		found = attach_plan_module(lm->plan, w->base, kb, ks, mod,
					   w->waiting);
	ksyms_free(ks);
	kbtf_free(kb);
	if (!found) {
		late_free(lm);
		return;
	}
	probes_text(lm->plan, found, what, sizeof(what));
	snprintf(lm->name, sizeof(lm->name), "%.63s", mod);
	lm->probes = found;
	err = late_load(w, lm, msg, sizeof(msg));
	/* counted from here: what the module did before is not */
	at = (mono_ns() - w->start_ns) / 1e9;
	if (err) {
		say(w, "bhprof: module %s loaded: its probes (%s) could not "
		    "be attached at +%.1f s: %s", mod, what, at, msg);
		late_free(lm);
		return;
	}
	w->nr_mods++;
	w->waiting &= ~found;
	w->page->gone &= ~found;
	w->page->late |= found;
	say(w, "bhprof: module %s loaded: counting its probes from +%.1f s "
	    "(%s)", mod, at, what);
}

/* An unloaded module takes its probes: they wait for it again. */
static void module_went(struct watch *w, const char *mod)
{
	uint64_t took = 0;
	char what[320];

	for (int i = 0; i < w->nr_mods; i++) {
		if (strcmp(w->mods[i].name, mod))
			continue;
		took |= w->mods[i].probes;
		late_retire(w, &w->mods[i]);
		w->mods[i] = w->mods[--w->nr_mods];
		memset(&w->mods[w->nr_mods], 0, sizeof(w->mods[0]));
		i--;
	}
	/* the start's own kprobes on it are dead from now on */
	for (int id = 0; id < NR_PROBES; id++)
		if (!w->base->absent[id] && !strcmp(w->base->mod[id], mod))
			took |= 1ULL << id;
	if (!took)
		return;
	w->waiting |= took;
	w->page->late &= ~took;
	w->page->gone |= took;
	probes_text(w->base, took, what, sizeof(what));
	say(w, "bhprof: module %s unloaded at +%.1f s: its probes went "
	    "with it (%s)", mod, (mono_ns() - w->start_ns) / 1e9, what);
}

static void rescan(struct watch *w, char (*now)[64])
{
	int n = modules_live(now, MAX_MODS);

	if (n < 0)
		return;
	for (int i = 0; i < w->nr_live; i++)
		if (!name_in(now, n, w->live[i]))
			module_went(w, w->live[i]);
	for (int i = 0; i < n; i++)
		if (!name_in(w->live, w->nr_live, now[i]))
			module_came(w, now[i]);
	memcpy(w->live, now, sizeof(*now) * n);
	w->nr_live = n;
}

/* The kernel's uevents: a module's load says "add@/module/NAME". */
static int uevents_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A uevent only wakes the helper, which then reads /proc/modules:
 * the socket is emptied, whatever its events were. */
static void uevents_drain(int fd)
{
	char buf[4096];

	while (recv(fd, buf, sizeof(buf), 0) > 0)
		;
}

/* bhprof closed its end: the probes go, and what they counted stays */
static void __attribute__((noreturn)) watch_end(struct watch *w)
{
	while (w->nr_mods)
		late_retire(w, &w->mods[--w->nr_mods]);
	cost_publish(w);
	_exit(0);
}

/* false once bhprof's end is closed; else it asked for the cost */
static bool cost_asked(struct watch *w)
{
	char buf[64];

	if (read(w->hold, buf, sizeof(buf)) <= 0)
		return false;
	cost_publish(w);
	return true;
}

/* The helper's life: until bhprof closes its end, or goes. */
static void __attribute__((noreturn)) watch_run(struct watch *w)
{
	static char now[MAX_MODS][64], live[MAX_MODS][64];

	w->live = live;
	w->nr_live = modules_live(live, MAX_MODS);
	if (w->nr_live < 0)
		_exit(0);
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = w->hold, .events = POLLIN },
			{ .fd = w->uevents, .events = POLLIN },
		};

		if (poll(pfd, w->uevents >= 0 ? 2 : 1, 1000) < 0 &&
		    errno != EINTR)
			watch_end(w);
		if (pfd[0].revents && !cost_asked(w))
			watch_end(w);
		if (pfd[1].revents)
			uevents_drain(w->uevents);
		rescan(w, now);
	}
}

/* Does anything depend on modules: a probe absent whose group runs, or
 * one in a module? */
static uint64_t waiting_probes(const struct attach_plan *p, bool *in_mod)
{
	uint64_t w = 0;

	*in_mod = false;
	for (int id = 0; id < NR_PROBES; id++) {
		enum bhp_group g = probe_group_of(id);

		if (!p->absent[id])
			*in_mod |= p->mod[id][0] != 0;
		else if (attach_group_runs(p, g))
			w |= 1ULL << id;
	}
	return w;
}

static void __attribute__((noreturn)) child_start(struct watch *w,
						  pid_t parent)
{
	int keep[66], n = 0;
	struct bpf_map *m;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	/* ^C is bhprof's to act on; the helper goes when bhprof says */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_IGN);
	/* the run's maps stay open; its links, files and sockets not */
	bpf_object__for_each_map(m, w->run->obj)
		if (bpf_map__fd(m) >= 0 && n < 64)
			keep[n++] = bpf_map__fd(m);
	keep[n++] = w->hold;
	priv_close_all_but_set(keep, n);
	if (priv_keep_loader()) {
		fprintf(stderr, "bhprof: the helper for modules loaded later "
			"could not give up root; it stops\n");
		_exit(0);
	}
	w->uevents = uevents_open();
	w->start_ns = mono_ns();
	watch_run(w);
}

struct latemod *latemod_start(const struct attach_plan *plan,
			      struct bhprof_bpf *run)
{
	struct watch w = { .base = plan, .run = run, .uevents = -1 };
	struct latemod *l;
	pid_t parent = getpid();
	int fds[2] = { -1, -1 };
	bool in_mod;

	w.waiting = waiting_probes(plan, &in_mod);
	if ((!w.waiting && !in_mod) || access("/proc/modules", R_OK))
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->page = mmap(NULL, sizeof(*l->page), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l->page == MAP_FAILED ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds))
		goto fail;
	w.page = l->page;
	w.hold = fds[0];
	fflush(NULL);	/* or the helper writes it a second time */
	l->pid = fork();
	if (l->pid == 0)
		child_start(&w, parent);
	close(fds[0]);
	l->hold = fds[1];
	if (l->pid > 0)
		return l;
	close(fds[1]);
fail:
	if (l->page != MAP_FAILED)
		munmap(l->page, sizeof(*l->page));
	fprintf(stderr, "bhprof: no helper for modules loaded later: %s\n",
		strerror(errno));
	free(l);
	return NULL;
}

void latemod_read(struct latemod *l, uint64_t *late, uint64_t *gone)
{
	uint32_t n;

	*late = l ? l->page->late : 0;
	*gone = l ? l->page->gone : 0;
	if (!l || !l->page->relay)
		return;
	n = l->page->nr_msgs;
	__sync_synchronize();
	if (n - l->printed > LATE_MSGS) {
		fprintf(stderr, "bhprof: %u more lines of the module helper "
			"were lost\n", n - l->printed - LATE_MSGS);
		l->printed = n - LATE_MSGS;
	}
	for (; l->printed != n; l->printed++)
		fprintf(stderr, "%s\n", l->page->msgs[l->printed % LATE_MSGS]);
}

void latemod_relay(struct latemod *l)
{
	if (!l)
		return;
	l->page->relay = 1;
	__sync_synchronize();
	l->printed = l->page->nr_msgs;
}

/* the page's cost rows, whole: 0 if the helper was writing them */
static uint32_t cost_copy(const struct latemod_page *pg,
			  struct self_prog *rows, uint32_t max)
{
	uint32_t seq = pg->cost_seq, n;

	if (seq & 1)
		return 0;
	__sync_synchronize();
	n = pg->nr_cost < max ? pg->nr_cost : max;
	memcpy(rows, pg->cost, sizeof(rows[0]) * n);
	__sync_synchronize();
	return pg->cost_seq == seq ? n : 0;
}

uint32_t latemod_cost(struct latemod *l, struct self_prog *rows,
		      uint32_t max)
{
	uint32_t seq = l->page->cost_seq, n = 0;

	/* the helper answers between two modules' loads: a moment */
	if (send(l->hold, "c", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
		return 0;
	for (int i = 0; i < 200; i++) {
		if (l->page->cost_seq != seq && !(l->page->cost_seq & 1)) {
			n = cost_copy(l->page, rows, max);
			if (n || !l->page->nr_cost)
				return n;
		}
		usleep(500);
	}
	/* busy loading a module: its figures of the last answer */
	return cost_copy(l->page, rows, max);
}

uint32_t latemod_stop(struct latemod *l, struct self_prog *rows,
		      uint32_t max)
{
	uint32_t n;

	if (!l)
		return 0;
	/* bhprof may be root no longer: the helper hears its end close */
	close(l->hold);
	while (waitpid(l->pid, NULL, 0) < 0 && errno == EINTR)
		;
	n = cost_copy(l->page, rows, max);
	munmap(l->page, sizeof(*l->page));
	free(l);
	return n;
}
