// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* bhprof probe: what this kernel offers each logical probe. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "collect/collector.h"
#include "commands.h"
#include "util/json.h"
#include "output/output.h"
#include "collect/pathsrc.h"

static void probe_usage(FILE *f)
{
	fprintf(f,
"Usage: bhprof probe [--attach MODE] [--json] [-v]\n"
"\n"
"Print the kernel release, BTF, CONFIG_BUFFER_HEAD and, for each logical\n"
"probe, the function it resolved to and the attach mode it gets (found\n"
"by really attaching), or why none. A function the kernel does not have\n"
"(block_write_full_folio without buffer heads) is 'absent', not an error;\n"
"a probe group the kernel refused in every flavour is 'failed', with the\n"
"kernel's reason, and the others still run. A probe no flavour the run\n"
"uses can see (page_mkwrite, direct_write_fallback in tracepoint mode) is\n"
"'none'.\n"
"\n"
"      --attach MODE  auto (default), fentry, kprobe or tracepoint\n"
"      --json         the same as JSON; each probe's \"detail\" is every\n"
"                     step, its own function's refusals included\n"
"  -v, --verbose      every step below each probe (what it runs on, each\n"
"                     refusal of its function), and libbpf's own messages;\n"
"                     without, the last step only, in 100 columns\n");
}

static void probe_print_json(const struct run_info *info, bool attached)
{
	struct json j;

	json_init(&j, stdout, true);
	json_obj_open(&j, NULL);
	json_str(&j, "bhprof_version", info->version);
	kernel_json(&j, info);
	json_bool(&j, "attach_tested", attached);
	json_obj_open(&j, "path_source");
	json_str(&j, "from", info->path_helpers ? "page_cache_helpers" :
						  "filesystem_table");
	json_u64(&j, "helpers", info->path_helpers);
	json_obj_close(&j);
	json_obj_open(&j, "other_writes");
	json_str(&j, "mode", mode_name(info->other_mode));
	json_str(&j, "detail", info->other_detail);
	json_obj_close(&j);
	json_arr_open(&j, "probes");
	for (int i = 0; i < NR_PROBES; i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "name", probe_name(i));
		json_str(&j, "func", info->probes[i].func);
		module_json(&j, &info->probes[i]);
		json_str(&j, "mode", probe_state_text(&info->probes[i]));
		json_str(&j, "detail", info->probes[i].detail);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_end(&j);
}

/* a row is 16 + 25 + 10 columns and three spaces: the rest of 99 */
#define REASON_W 44

/*
 * The reason a probe runs as it does, short: the last step of its detail
 * (the refusal that set its mode, or what it runs on), without the
 * function the FUNCTION column names already; cut to REASON_W.
 */
static const char *short_reason(const struct probe_state *ps, char *buf,
				size_t len)
{
	const char *d = ps->detail, *semi;
	char on[80], *at;

	if (ps->mode == MODE_FENTRY && !ps->failed && !ps->absent)
		return "";
	while ((semi = strstr(d, "; ")))
		d = semi + 2;
	snprintf(buf, len, "%s", d);
	snprintf(on, sizeof(on), " on %s:", ps->func);
	at = strstr(buf, on);
	if (ps->func[0] && at)
		memmove(at, at + strlen(on) - 1, strlen(at + strlen(on) - 1) + 1);
	if (strlen(buf) > REASON_W)
		snprintf(buf + REASON_W - 3, len - REASON_W + 3, "...");
	return buf;
}

#define STEP_W 92	/* a step's line after its indent, in 100 columns */

/* one step, folded at spaces */
static void print_step(const char *d, int n)
{
	while (n > STEP_W) {
		int cut = STEP_W;

		while (cut > 0 && d[cut] != ' ')
			cut--;
		if (!cut)
			break;
		printf("    %.*s\n", cut, d);
		d += cut + 1;
		n -= cut + 1;
	}
	printf("    %.*s\n", n, d);
}

/* -v: every step of the detail, one a line */
static void print_chain(const char *detail)
{
	const char *d = detail, *semi;

	while (*d) {
		semi = strstr(d, "; ");
		print_step(d, semi ? (int)(semi - d) : (int)strlen(d));
		if (!semi)
			break;
		d = semi + 2;
	}
}

static void probe_print_text(const struct run_info *info, bool verbose)
{
	char r[256], fn[sizeof(info->probes[0].func) + 40];

	printf("kernel             %s\n", info->release);
	printf("machine            %s, %u KiB pages\n", info->machine,
	       info->page_size / 1024);
	printf("BTF                %s\n", info->btf ? "yes" : "no");
	printf("CONFIG_BUFFER_HEAD %s\n",
	       info->buffer_head < 0 ? "unknown" :
	       info->buffer_head ? "y" : "n");
	printf("file paths from    %s\n", pathsrc_text(info->path_helpers));
	printf("other writes from  %s\n\n", info->other_detail);
	printf("%-16s %-25s %-10s %s\n", "PROBE", "FUNCTION", "MODE",
	       verbose ? "WHY (then each step)" : "WHY (-v: each step)");
	for (int i = 0; i < NR_PROBES; i++) {
		const struct probe_state *ps = &info->probes[i];
		const char *why = short_reason(ps, r, sizeof(r));

		/* no trailing blanks where nothing was refused */
		printf("%-16s %-25s %-*s%s%s\n", probe_name(i),
		       probe_func_text(ps, fn, sizeof(fn)),
		       *why ? 10 : 0, probe_state_text(ps), *why ? " " : "",
		       why);
		if (verbose)
			print_chain(ps->detail);
	}
}

int cmd_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "attach", required_argument, NULL, 'a' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct collector_opts co = { .mode = MODE_AUTO };
	struct run_info info = {};
	struct collector *c = NULL;
	bool json = false;
	int ch, err;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		if (ch == 'h') {
			probe_usage(stdout);
			return 0;
		} else if (ch == 'j') {
			json = true;
		} else if (ch == 'v') {
			co.verbose = true;
		} else if (ch == 'a' && !mode_parse(optarg, &co.mode)) {
			continue;
		} else {
			fprintf(stderr, "bhprof probe: bad option '%s' (see "
				"--help)\n", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bhprof probe: unexpected '%s'\n", argv[optind]);
		return 2;
	}
	err = collector_open(&co, &info, &c);
	collector_close(c);
	if (err)
		return 1;
	if (json)
		probe_print_json(&info, true);
	else
		probe_print_text(&info, co.verbose);
	return 0;
}
