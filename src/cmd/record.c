// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bhprof record: a snapshot of every counter and histogram per interval,
 * appended to a file as it is taken, so that whatever stops the run (the
 * duration, the command, a signal, SIGKILL, power loss) leaves a file
 * that report and diff can read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "output/callers_out.h"
#include "commands.h"
#include "model/devices.h"
#include "util/outfile.h"
#include "output/output.h"
#include "recfile/recfile.h"
#include "recfile/run.h"
#include "collect/runloop.h"

/* A final read this close to the previous one is noise, not an interval. */
#define MIN_LAST_INTERVAL_NS 1000000ull

static void record_usage(FILE *f)
{
	fprintf(f,
"Usage: bhprof record -o FILE [--force] [-i SEC] [--duration SEC] [-d DEV]...\n"
"                     [-p PID] [--attach MODE] [--callers] [--folded FILE]\n"
"                     [--cmd-as-root] [-v]\n"
"                     [-- CMD ARGS...]\n"
"\n"
"Record a snapshot of every per-path histogram and counter each interval\n"
"until the duration ends, CMD exits, or SIGINT/SIGTERM. Each interval is\n"
"appended to FILE as it is taken: a crash loses at most the last one.\n"
"Read the file with 'bhprof report' and 'bhprof diff'.\n"
"\n"
"  -o, --output FILE    the recording, a new file; required. Never written\n"
"                       through a symbolic link; an existing file is\n"
"                       refused unless --force\n"
"      --force          replace an existing FILE (by rename: a reader of\n"
"                       the old one keeps it)\n"
"  -i, --interval SEC   snapshot interval (default 1)\n"
"      --duration SEC   stop after SEC seconds\n"
"  -d, --device DEV     only this block device (name, /dev/NAME or\n"
"                       MAJ:MIN); may repeat\n"
"  -p, --pid PID        only write calls and writeback of this process\n"
"      --attach MODE    auto (default), fentry, kprobe or tracepoint\n"
"      --callers        also record every buffer_head allocation by call\n"
"                       chain and owner, and the frees (see stat --help)\n"
"      --folded FILE    with --callers: the run's chains as folded stacks\n"
"      --cmd-as-root    under sudo, run CMD as root (default: as the\n"
"                       sudo user)\n"
"  -v, --verbose        libbpf's own messages, and how root was given up\n"
"\n"
"Once attached, bhprof gives up root: see 'Security' in README.md.\n"
"Exit status: that of CMD when it fails, 1 on errors, else 0.\n"
"Example: bhprof record -o run.bhp -d loop0 -- dd if=/dev/zero "
"of=/dev/loop0 bs=1M count=64\n");
}

static void name_devs(struct recwriter *w, const uint32_t *devs, uint32_t n)
{
	char buf[32];

	for (uint32_t i = 0; i < n; i++)
		recwriter_dev_name(w, devs[i], dev_name(devs[i], buf,
							sizeof(buf)));
}

/* Names as this machine knows them now: the reader may be elsewhere. */
static void name_seen_devs(struct recwriter *w, const struct snapshot *s)
{
	uint32_t devs[MAX_SNAP_DEVS];

	for (uint32_t i = 0; i < s->nr_devs && i < MAX_SNAP_DEVS; i++)
		devs[i] = s->devs[i].dev;
	name_devs(w, devs, s->nr_devs < MAX_SNAP_DEVS ? s->nr_devs
						       : MAX_SNAP_DEVS);
}

static enum rec_stop stop_reason(const struct run_state *st, bool read_err)
{
	if (read_err)
		return REC_STOP_ERROR;
	if (run_stop)
		return REC_STOP_SIGNAL;
	if (st->child && st->child_done)
		return REC_STOP_COMMAND;
	return REC_STOP_DURATION;
}

static int write_err(const char *path, int err)
{
	fprintf(stderr, "bhprof: %s: %s\n", path, strerror(-err));
	return 1;
}

/*
 * The interval loop. Every snapshot goes out as soon as it is read;
 * stopping only adds the last partial interval and the end frame.
 */
static int record_loop(struct run_opts *o, struct run_state *st,
		       struct recwriter *w, struct snapshot *cur,
		       struct rec_end *end)
{
	uint64_t last_ts = st->first->ts_ns;
	bool read_err = false;
	int err;

	err = recwriter_append(w, st->first);
	for (uint64_t k = 1; !err; k++) {
		bool more = run_wait(o, st, st->start_ns +
				     (uint64_t)(k * o->interval * 1e9));

		if (collector_read(st->col, cur)) {
			read_err = true;
			break;
		}
		if (more || cur->ts_ns - last_ts >= MIN_LAST_INTERVAL_NS) {
			err = recwriter_append(w, cur);
			last_ts = cur->ts_ns;
		}
		if (!more)
			break;
	}
	if (err)
		return err;
	end->present = true;
	end->reason = stop_reason(st, read_err);
	end->signal = end->reason == REC_STOP_SIGNAL ? run_stop_signal : 0;
	/* a command still running is stopped by run_finish(): it has no
	 * status of its own to report */
	end->has_exit = st->child && st->child_done;
	end->exit_status = run_child_exit_code(st);
	end->elapsed_ns = last_ts - st->start_ns;
	if (read_err)
		fprintf(stderr, "bhprof: reading the BPF maps failed: stopped\n");
	name_seen_devs(w, cur);
	return recwriter_end(w, end);
}

/* --folded FILE: the chains from the first snapshot to the last */
static int folded_write(FILE *f, const char *path, const struct run_state *st,
			const struct snapshot *last)
{
	struct summary *s;
	int err;

	if (!f)
		return 0;
	s = malloc(sizeof(*s));
	if (s)
		summarize(st->first, last, s);
	err = callers_folded_close(f, path, s);
	free(s);
	return s ? err : -1;
}

static void print_done(const char *path, struct recwriter *w,
		       const struct rec_end *end)
{
	char b[32], why[64];

	fprintf(stderr, "bhprof: %s: %llu snapshots (%s); stop: %s", path,
		(unsigned long long)recwriter_frames(w),
		fmt_bytes(b, sizeof(b), recwriter_bytes(w)),
		stop_text(why, sizeof(why), end));
	if (end->has_exit)
		fprintf(stderr, " with status %d", end->exit_status);
	fputc('\n', stderr);
}

int cmd_record(int argc, char **argv)
{
	struct rec_end end = { 0 };
	struct snapshot *cur = NULL;
	struct recwriter *w = NULL;
	struct run_state st;
	struct run_opts o;
	FILE *folded = NULL;
	int ret = 1, err, folded_err = 0;

	err = run_opts_parse(argc, argv, &o, RUN_OPT_OUTPUT | RUN_OPT_CALLERS |
			     RUN_OPT_FOLDED, record_usage);
	if (err)
		return err > 0 ? 0 : 2;
	if (!o.output) {
		fprintf(stderr, "bhprof record: -o FILE is required (see --help)\n");
		return 2;
	}
	cur = calloc(1, sizeof(*cur));
	if (!cur)
		return write_err(o.output, -ENOMEM);
	/* before attaching anything: a bad path is the cheapest error;
	 * and before giving up root, which may not write here */
	err = recwriter_open(o.output, o.force ? OUTFILE_FORCE : 0, &w);
	if (err) {
		free(cur);
		return 1;
	}
	folded = callers_folded_open(o.folded);
	if ((o.folded && !folded) || run_start(&o, &st, argc, argv)) {
		recwriter_close(w);
		unlink(o.output);
		goto finish;
	}
	name_devs(w, st.info.filter_devs, st.info.nr_filter_devs);
	recwriter_command(w, o.cmd);
	err = recwriter_begin(w, &st.info);
	if (!err) {
		fprintf(stderr, "bhprof: recording to %s every %g s%s\n",
			o.output, o.interval,
			o.cmd ? "" : "; Ctrl-C to stop");
		err = record_loop(&o, &st, w, cur, &end);
	}
	if (!err)
		print_done(o.output, w, &end);
	if (!err)
		folded_err = folded_write(folded, o.folded, &st, cur);
	else
		callers_folded_close(folded, o.folded, NULL);
	folded = NULL;
	err = recwriter_close(w) ?: err;
	if (err)
		write_err(o.output, err);
	else if (folded_err)
		ret = 1;
	else
		ret = end.reason == REC_STOP_ERROR ? 1 : run_child_exit_code(&st);
finish:
	callers_folded_close(folded, o.folded, NULL);
	run_finish(&st);
	free(cur);
	return ret;
}
