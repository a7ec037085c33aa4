// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* bhprof stat: collect, then print one per-path summary. */
#include <stdint.h>
#include <stdlib.h>
#include "output/callers_out.h"
#include "commands.h"
#include "output/output.h"
#include "collect/runloop.h"

static void stat_usage(FILE *f)
{
	fprintf(f,
"Usage: bhprof stat [-i SEC] [--duration SEC] [-d DEV]... [-p PID]\n"
"                   [--attach MODE] [--json] [--self-cost] [--cmd-as-root]\n"
"                   [--callers[=full]] [--folded FILE] [-v] [-- CMD ARGS...]\n"
"\n"
"Collect until the duration ends, CMD exits or SIGINT, then print a\n"
"per-path (bh, iomap) summary: write calls, bytes, MiB/s, latency\n"
"percentiles, writeback pages, bio count and sizes, buffer_head\n"
"allocations, per device.\n"
"\n"
"  -i, --interval SEC   print an interim line every SEC (text mode)\n"
"      --duration SEC   stop after SEC seconds\n"
"  -d, --device DEV     only this block device (name, /dev/NAME or\n"
"                       MAJ:MIN); may repeat\n"
"  -p, --pid PID        only write calls and writeback of this process\n"
"      --attach MODE    auto (default), fentry, kprobe or tracepoint\n"
"      --json           one JSON object (schema in README.md)\n"
"      --self-cost      measure bhprof's own programs with the kernel's\n"
"                       BPF statistics (meanwhile every BPF program on\n"
"                       the machine pays two clock reads per run)\n"
"      --callers[=full]\n"
"                       count every buffer_head allocation by kernel call\n"
"                       chain and by owner (filesystem, device, role),\n"
"                       and the frees: prints the top chains (whole with\n"
"                       =full), the owners and the buffer_heads alive\n"
"      --folded FILE    with --callers: the chains as folded stacks\n"
"                       (root;...;leaf count), for flamegraph.pl\n"
"      --cmd-as-root    under sudo, run CMD as root (default: as the\n"
"                       sudo user)\n"
"  -v, --verbose        libbpf's own messages, and how root was given up\n"
"\n"
"Exit status: that of CMD when it fails, 1 on errors, else 0.\n"
"Example: bhprof stat -d loop0 -- dd if=/dev/zero of=/dev/loop0 bs=1M "
"count=64 conv=fsync\n");
}

static void interim_line(const struct summary *s)
{
	const struct path_summary *b = &s->path[PATH_BH];
	const struct path_summary *i = &s->path[PATH_IOMAP];

	printf("%6.1fs  bh: %8.1f MiB/s %7.0f bios/s %8.0f bh/s   "
	       "iomap: %8.1f MiB/s %7.0f bios/s\n", s->secs, b->bio_mbps,
	       b->bios_ps, b->bh_alloc_ps, i->bio_mbps, i->bios_ps);
	fflush(stdout);
}

static void command_json(struct json *j, const struct run_opts *o,
			 const struct run_state *st)
{
	json_obj_open(j, "command");
	json_arr_open(j, "argv");
	for (char **a = o->cmd; a && *a; a++)
		json_str(j, NULL, *a);
	json_arr_close(j);
	if (o->cmd && st->child_done)
		json_i64(j, "exit_status", run_child_exit_code(st));
	else
		json_null(j, "exit_status");
	json_obj_close(j);
}

static void print_result(const struct run_opts *o, const struct run_state *st,
			 const struct summary *s)
{
	struct json_whys w = { 0 };
	struct json j;

	if (!o->json) {
		summary_text(stdout, &st->info, s);
		if (o->callers)
			callers_text(stdout, &st->info, s, o->callers > 1);
		if (o->cmd && st->child_done)
			printf("\ncommand exited with status %d\n",
			       run_child_exit_code(st));
		return;
	}
	json_init(&j, stdout, true);
	json_obj_open(&j, NULL);
	summary_json_fields(&j, &st->info, s, &w);
	if (o->callers)
		callers_json(&j, &w, &st->info, s);
	json_whys_close(&j, &w);
	command_json(&j, o, st);
	json_obj_close(&j);
	json_end(&j);
}

int cmd_stat(int argc, char **argv)
{
	struct snapshot *prev = NULL, *cur = NULL;
	struct summary *s = NULL;
	FILE *folded = NULL;
	struct run_state st;
	struct run_opts o;
	bool interim;
	int ret = 1, err;

	err = run_opts_parse(argc, argv, &o, RUN_OPT_JSON | RUN_OPT_SELF_COST |
			     RUN_OPT_CALLERS | RUN_OPT_FOLDED, stat_usage);
	if (err)
		return err > 0 ? 0 : 2;
	interim = !o.json && o.interval_set;
	prev = malloc(sizeof(*prev));
	cur = malloc(sizeof(*cur));
	s = malloc(sizeof(*s));
	if (!prev || !cur || !s)
		goto out;
	/* opened with the rights bhprof was started with, as -o is */
	folded = callers_folded_open(o.folded);
	if (o.folded && !folded)
		goto out;
	if (run_start(&o, &st, argc, argv))
		goto finish;
	*prev = *st.first;
	for (uint64_t k = 1;; k++) {
		/* without interim lines nothing is read until the end: while
		 * bhprof reads a map, the kernel holds kprobe programs off that
		 * CPU (bpf_prog_active), and a writer run there is not seen */
		uint64_t next = interim ? st.start_ns +
				(uint64_t)(k * o.interval * 1e9) : UINT64_MAX;
		bool more = run_wait(&o, &st, next);

		if (collector_read(st.col, cur))
			break;
		if (!more)
			break;
		if (interim) {
			summarize(prev, cur, s);
			interim_line(s);
		}
		*prev = *cur;
	}
	summarize(st.first, cur, s);
	print_result(&o, &st, s);
	ret = run_child_exit_code(&st);
	if (callers_folded_close(folded, o.folded, s))
		ret = 1;
	folded = NULL;
finish:
	run_finish(&st);
out:
	callers_folded_close(folded, o.folded, NULL);
	free(prev);
	free(cur);
	free(s);
	return ret;
}
