// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bhprof top, also plain `bhprof`: the live view. On a terminal it is the
 * curses screen of tui_*.c; on a pipe, or with --plain, one compact text
 * block per interval. Either way the collector is read once per interval,
 * and with -o every snapshot read is recorded as `bhprof record` would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curses.h>
#include "output/callers_out.h"
#include "commands.h"
#include "model/devices.h"
#include "model/fsrows.h"
#include "util/outfile.h"
#include "output/output.h"
#include "recfile/recfile.h"
#include "collect/runloop.h"
#include "tui/tui.h"

struct top {
	struct run_opts o;
	struct run_state st;
	struct snapshot *base;	/* cumulative figures count from here */
	struct snapshot *prev;	/* the last snapshot read */
	struct snapshot *cur;
	struct recwriter *rec;	/* -o FILE, else NULL */
	bool read_err;
	char note[64];
};

static void top_usage(FILE *f)
{
	fprintf(f,
"Usage: bhprof [top] [-i SEC] [--duration SEC] [-d DEV]... [-p PID]\n"
"                    [--attach MODE] [--plain] [-o FILE [--force]]\n"
"                    [--callers] [--cmd-as-root] [-v] [-- CMD ARGS...]\n"
"\n"
"The live view: the bh and iomap write paths side by side, updated every\n"
"interval. On a terminal, a full screen; keys: q quit, p pause, r reset,\n"
"+/- interval, d device filter, tab latency/bio/bh/read/callers view,\n"
"h help.\n"
"On a pipe, or with --plain, one text block per interval.\n"
"\n"
"  -i, --interval SEC   update interval (default 1; 0.1 to 60 on screen)\n"
"      --duration SEC   stop after SEC seconds\n"
"  -d, --device DEV     only this block device (name, /dev/NAME or\n"
"                       MAJ:MIN); may repeat\n"
"  -p, --pid PID        only write calls and writeback of this process\n"
"      --attach MODE    auto (default), fentry, kprobe or tracepoint\n"
"      --plain          text blocks even on a terminal\n"
"  -o, --output FILE    also record every snapshot to FILE, as 'bhprof\n"
"                       record' does, for 'bhprof report' (a new file:\n"
"                       see 'bhprof record --help')\n"
"      --force          replace an existing FILE\n"
"      --callers        who allocates buffer_heads (call chain, owner) and\n"
"                       how many are alive: the callers view, and a line\n"
"                       of each plain block\n"
"      --cmd-as-root    under sudo, run CMD as root (default: as the\n"
"                       sudo user)\n"
"  -v, --verbose        libbpf's own messages, and how root was given up\n"
"\n"
"Exit status: that of CMD when it fails, 1 on errors, else 0.\n"
"Example: sudo bhprof top -i 0.5 -d loop0\n");
}

static void swap_snaps(struct top *tp)
{
	struct snapshot *s = tp->prev;

	tp->prev = tp->cur;
	tp->cur = s;
}

static uint64_t secs_ns(double s)
{
	return (uint64_t)(s * 1e9);
}

/* ---- -o FILE: the writer of recfile.h, fed every snapshot read ---- */

static int rec_fail(struct top *tp, int err)
{
	fprintf(stderr, "bhprof: %s: %s\n", tp->o.output, strerror(-err));
	return err;
}

/* before run_start: a bad path is the cheapest error to report */
static int rec_open(struct top *tp)
{
	if (!tp->o.output)
		return 0;
	return recwriter_open(tp->o.output, tp->o.force ? OUTFILE_FORCE : 0,
			      &tp->rec);
}

static void rec_name_devs(struct top *tp, const uint32_t *devs, uint32_t n)
{
	char buf[32];

	for (uint32_t i = 0; i < n; i++)
		recwriter_dev_name(tp->rec, devs[i],
				   dev_name(devs[i], buf, sizeof(buf)));
}

static int rec_begin(struct top *tp)
{
	int err;

	if (!tp->rec)
		return 0;
	rec_name_devs(tp, tp->st.info.filter_devs, tp->st.info.nr_filter_devs);
	err = recwriter_begin(tp->rec, &tp->st.info);
	if (!err)
		err = recwriter_append(tp->rec, tp->st.first);
	return err ? rec_fail(tp, err) : 0;
}

static int rec_snap(struct top *tp, const struct snapshot *s)
{
	int err;

	if (!tp->rec)
		return 0;
	err = recwriter_append(tp->rec, s);
	return err ? rec_fail(tp, err) : 0;
}

static enum rec_stop rec_reason(const struct top *tp)
{
	if (tp->read_err)
		return REC_STOP_ERROR;
	if (tp->st.child && tp->st.child_done && !run_stop)
		return REC_STOP_COMMAND;
	if (tp->o.duration > 0 && tp->st.elapsed >= tp->o.duration)
		return REC_STOP_DURATION;
	return run_stop ? REC_STOP_SIGNAL : REC_STOP_USER;
}

static int rec_finish(struct top *tp)
{
	struct rec_end end = { .present = true };
	uint32_t devs[MAX_SNAP_DEVS], n = 0;
	char b[32];
	int err;

	if (!tp->rec)
		return 0;
	for (uint32_t i = 0; i < tp->prev->nr_devs && n < MAX_SNAP_DEVS; i++)
		devs[n++] = tp->prev->devs[i].dev;
	rec_name_devs(tp, devs, n);
	end.reason = rec_reason(tp);
	end.signal = end.reason == REC_STOP_SIGNAL ? run_stop_signal : 0;
	end.has_exit = tp->st.child && tp->st.child_done;
	end.exit_status = run_child_exit_code(&tp->st);
	end.elapsed_ns = tp->prev->ts_ns - tp->st.start_ns;
	err = recwriter_end(tp->rec, &end);
	if (!err)
		fprintf(stderr, "bhprof: %s: %llu snapshots, %s\n",
			tp->o.output,
			(unsigned long long)recwriter_frames(tp->rec),
			fmt_bytes(b, sizeof(b), recwriter_bytes(tp->rec)));
	err = recwriter_close(tp->rec) ?: err;
	tp->rec = NULL;
	return err ? rec_fail(tp, err) : 0;
}

/* ---- plain: one block per interval ---- */

/* a plain block's row: path, calls/s, MiB/s, write p99, bios/s, mean bio,
 * bh/s */
#define PLAIN_ROW "%-13s %10s %9s %11s %9s %10s %9s\n"

/* a last interval shorter than this is a rounding of the stop, not data */
#define PLAIN_MIN_LAST_NS 10000000ull

/* a figure whose probe group was lost reads "failed", not zero */
static const char *plain_num(char *buf, size_t len, double v, bool known)
{
	if (!known)
		return "failed";
	return tui_fmt_num(buf, len, v);
}

static void plain_row(const struct run_info *in, unsigned int path,
		      const struct path_summary *p)
{
	char lat[32], mean[32], calls[32], bios[32], bh[32], mbps[32];
	bool w = figure_known(in, path, FIG_WRITE);
	bool b = figure_known(in, path, FIG_PATH_BIOS);

	if (!w)
		snprintf(lat, sizeof(lat), "failed");
	else if (p->write_lat.count)
		fmt_ns(lat, sizeof(lat), (double)p->write_lat.p99);
	else
		snprintf(lat, sizeof(lat), "-");
	if (!b)
		snprintf(mean, sizeof(mean), "failed");
	else if (p->mean_bio > 0)
		fmt_bytes(mean, sizeof(mean), p->mean_bio);
	else
		snprintf(mean, sizeof(mean), "-");
	snprintf(mbps, sizeof(mbps), w ? "%.1f" : "failed", p->write_mbps);
	printf(PLAIN_ROW, path_name(path),
	       plain_num(calls, sizeof(calls), p->write_calls_ps, w), mbps,
	       lat, plain_num(bios, sizeof(bios), p->bios_ps, b), mean,
	       plain_num(bh, sizeof(bh), p->bh_alloc_ps,
			 figure_known(in, path, FIG_BH)));
}

/*
 * A row of counts alone, with no latency (the other group's, a
 * filesystem's): "n/a" for what the run cannot see (w: write calls, b:
 * bios, bh: buffer_heads, or its own text for the column).
 */
static void plain_counts(const char *name, const struct path_summary *p,
			 bool w, bool b, const char *bh)
{
	char calls[32] = "n/a", mbps[32] = "n/a", bios[32] = "n/a";
	char mean[32] = "n/a";

	if (w) {
		tui_fmt_num(calls, sizeof(calls), p->write_calls_ps);
		snprintf(mbps, sizeof(mbps), "%.1f", p->write_mbps);
	}
	if (b)
		tui_fmt_num(bios, sizeof(bios), p->bios_ps);
	if (b && p->mean_bio > 0)
		fmt_bytes(mean, sizeof(mean), p->mean_bio);
	else if (b)
		snprintf(mean, sizeof(mean), "-");
	printf(PLAIN_ROW, name, calls, mbps, "-", bios, mean, bh);
}

/* the other group's row: it keeps no buffer_heads of its own */
static void plain_other(const struct run_info *in, const struct summary *s)
{
	if (!(in->features & RUN_F_OTHER))
		return;
	plain_counts(path_name(PATH_NONE), &s->other,
		     !other_why(in, OTHER_WRITE), !other_why(in, OTHER_BIOS),
		     "-");
}

/*
 * A row per filesystem type and path that saw a write call, a bio or a
 * buffer_head this interval, under the paths': "ext4/bh", where its
 * path's run knows them.
 */
static void plain_fs(const struct run_info *in, const struct summary *s)
{
	static struct path_summary p;
	char name[40], bh[32];

	if (!(in->features & RUN_F_FS))
		return;
	for (uint32_t i = 0; i < s->nr_fs; i++) {
		const struct fs_summary *f = &s->fs[i];

		fs_path_summary(s, f->name, f->path, &p);
		if (path_idle(&p))
			continue;
		snprintf(name, sizeof(name), "  %s/%s", fs_label(f->name),
			 path_name(f->path));
		snprintf(bh, sizeof(bh), "n/a");
		if (!fs_why(in, f->path, FIG_BH))
			tui_fmt_num(bh, sizeof(bh), p.bh_alloc_ps);
		plain_counts(name, &p, !fs_why(in, f->path, FIG_WRITE),
			     !fs_why(in, f->path, FIG_PATH_BIOS), bh);
	}
}

/* --callers: the interval's net, the peak, its top caller and owner */
static void plain_callers(const struct run_info *in, const struct summary *s)
{
	static struct callers_table t;
	char name[96];

	if (!callers_known(in))
		return;
	callers_tables(s, &t);
	printf("bh alive %+lld this interval, peak %+lld", (long long)
	       (s->glob.bh_alloc_total - s->glob.bh_freed),
	       (long long)s->bh_net_peak);
	if (t.nr_chains)
		printf("; top caller %s (%llu)", callers_chain_name(
			       callers_chain(t.chains[0].stack), name,
			       sizeof(name)),
		       (unsigned long long)t.chains[0].n);
	if (t.nr_owners)
		printf("; top owner %s %s (%llu)", t.owners[0].o.fs,
		       callers_role_name(t.owners[0].o.role),
		       (unsigned long long)t.owners[0].n);
	putchar('\n');
}

static void plain_block(const struct top *tp, const struct summary *s)
{
	printf("bhprof top  %s  up %.1f s  last %.2g s\n",
	       tp->st.info.release,
	       (tp->cur->ts_ns - tp->st.start_ns) / 1e9, s->secs);
	printf(PLAIN_ROW, "path", "calls/s",
	       "MiB/s", "write p99", "bios/s", "mean bio", "bh/s");
	for (unsigned int p = 0; p < NR_PATHS; p++)
		plain_row(&tp->st.info, p, &s->path[p]);
	plain_other(&tp->st.info, s);
	plain_fs(&tp->st.info, s);
	if (s->glob.ctx_lost)
		printf("lost: %llu events not attributed\n",
		       (unsigned long long)s->glob.ctx_lost);
	if (tp->o.callers)
		plain_callers(&tp->st.info, s);
	putchar('\n');
	fflush(stdout);
}

static int top_plain(struct top *tp)
{
	struct summary *s = malloc(sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (uint64_t k = 1;; k++) {
		bool more = run_wait(&tp->o, &tp->st, tp->st.start_ns +
				     secs_ns(k * tp->o.interval));

		if (collector_read(tp->st.col, tp->cur)) {
			tp->read_err = true;
			break;
		}
		if (rec_snap(tp, tp->cur))
			break;
		/* a command that ends inside the first interval still gets
		 * its block: the last, partial interval is shown too */
		if (more || tp->cur->ts_ns - tp->prev->ts_ns >= PLAIN_MIN_LAST_NS) {
			summarize(tp->prev, tp->cur, s);
			plain_block(tp, s);
		}
		if (!more)
			break;
		swap_snaps(tp);
	}
	/* the last read, partial or not, is what the record ends with */
	if (!tp->read_err)
		swap_snaps(tp);
	free(s);
	return 0;
}

/* ---- the screen ---- */

/* one collector read; the screen follows unless paused */
static int tick(struct top *tp, struct tui *t)
{
	if (collector_read(tp->st.col, tp->cur)) {
		tp->read_err = true;
		return -1;
	}
	if (rec_snap(tp, tp->cur))
		return -1;
	if (!t->paused) {
		t->up = (tp->cur->ts_ns - tp->st.start_ns) / 1e9;
		tui_feed(t, tp->base, tp->prev, tp->cur);
		tui_draw(t);
	}
	swap_snaps(tp);
	return 0;
}

/* false once the run must end: a signal or --duration */
static bool still_running(struct top *tp, struct tui *t)
{
	if (run_wait(&tp->o, &tp->st, 0))
		return true;
	if (run_stop)
		return false;
	if (tp->o.duration > 0 && tp->st.elapsed >= tp->o.duration)
		return false;
	/* the command ended: keep the screen up with its status */
	if (tp->st.child_done && !t->note) {
		snprintf(tp->note, sizeof(tp->note),
			 "command exited with status %d",
			 run_child_exit_code(&tp->st));
		t->note = tp->note;
		tui_draw(t);
	}
	return true;
}

static uint64_t next_deadline(const struct top *tp, const struct tui *t)
{
	uint64_t d = tp->prev->ts_ns + secs_ns(t->interval), now = now_ns();

	return d > now ? d : now;
}

/* what a key asked for; false to quit */
static bool do_request(struct top *tp, struct tui *t, enum tui_req req,
		       uint64_t *deadline)
{
	switch (req) {
	case REQ_QUIT:
		return false;
	case REQ_RESET:
		*tp->base = *tp->prev;
		tui_reset(t);
		break;
	case REQ_INTERVAL:
		*deadline = next_deadline(tp, t);
		break;
	case REQ_NONE:
		return true;
	default:
		break;
	}
	tui_draw(t);
	return true;
}

static int tui_loop(struct top *tp, struct tui *t)
{
	uint64_t deadline = next_deadline(tp, t), now, ms;
	int ch;

	tui_draw(t);
	while (still_running(tp, t)) {
		now = now_ns();
		if (now >= deadline) {
			if (tick(tp, t))
				return -1;
			deadline += secs_ns(t->interval);
			if (deadline <= now)
				deadline = next_deadline(tp, t);
			continue;
		}
		/* short waits: ^C and the command's exit show up quickly */
		ms = (deadline - now) / 1000000 + 1;
		ch = tui_getch(ms < 200 ? (int)ms : 200);
		if (ch != ERR && !do_request(tp, t, tui_key(t, ch), &deadline))
			break;
	}
	return 0;
}

static int top_tui(struct top *tp)
{
	double iv = tp->o.interval;
	struct tui *t;
	int err;

	if (iv < TUI_MIN_INTERVAL)
		iv = TUI_MIN_INTERVAL;
	if (iv > TUI_MAX_INTERVAL)
		iv = TUI_MAX_INTERVAL;
	t = tui_alloc(&tp->st.info, iv, tp->o.output);
	if (!t)
		return -ENOMEM;
	/* the screen holds stderr from here: the module helper's lines
	 * come through this process, printed when it is released */
	collector_relay_messages(tp->st.col);
	if (tui_open(t)) {
		/* an unknown $TERM: the plain view still works */
		fprintf(stderr, "bhprof: cannot drive terminal '%s': "
			"plain output\n", getenv("TERM") ?: "");
		tui_free(t);
		return top_plain(tp);
	}
	err = tui_loop(tp, t);
	tui_close();
	tui_free(t);
	return err;
}

static bool want_screen(const struct run_opts *o)
{
	const char *term = getenv("TERM");

	if (o->plain || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		return false;
	return term && *term && strcmp(term, "dumb");
}

static int top_alloc(struct top *tp)
{
	tp->base = calloc(1, sizeof(*tp->base));
	tp->prev = calloc(1, sizeof(*tp->prev));
	tp->cur = calloc(1, sizeof(*tp->cur));
	return tp->base && tp->prev && tp->cur ? 0 : -ENOMEM;
}

static void top_free(struct top *tp)
{
	free(tp->base);
	free(tp->prev);
	free(tp->cur);
}

int cmd_top(int argc, char **argv)
{
	struct top tp = { 0 };
	int ret = 1, err;

	err = run_opts_parse(argc, argv, &tp.o, RUN_OPT_PLAIN | RUN_OPT_OUTPUT |
			     RUN_OPT_CALLERS,
			     top_usage);
	if (err)
		return err > 0 ? 0 : 2;
	if (top_alloc(&tp) || rec_open(&tp))
		goto out;
	if (run_start(&tp.o, &tp.st, argc, argv)) {
		if (tp.rec) {
			recwriter_close(tp.rec);
			tp.rec = NULL;
			unlink(tp.o.output);
		}
		goto finish;
	}
	*tp.base = *tp.st.first;
	*tp.prev = *tp.st.first;
	if (rec_begin(&tp))
		goto finish;
	err = want_screen(&tp.o) ? top_tui(&tp) : top_plain(&tp);
	if (tp.read_err)
		fprintf(stderr, "bhprof: reading the BPF maps failed: stopped\n");
	if (!rec_finish(&tp) && !err && !tp.read_err)
		ret = run_child_exit_code(&tp.st);
finish:
	if (tp.rec)
		recwriter_close(tp.rec);
	run_finish(&tp.st);
out:
	top_free(&tp);
	return ret;
}
