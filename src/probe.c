// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* bhprof probe: what this kernel offers each logical probe. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "collector.h"
#include "commands.h"
#include "json.h"
#include "output.h"

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
"kernel's reason, and the others still run.\n");
}

static void probe_print_json(const struct run_info *info, bool attached)
{
	struct json j;

	json_init(&j, stdout, true);
	json_obj_open(&j, NULL);
	json_str(&j, "bhprof_version", info->version);
	kernel_json(&j, info);
	json_bool(&j, "attach_tested", attached);
	json_arr_open(&j, "probes");
	for (int i = 0; i < NR_PROBES; i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "name", probe_name(i));
		json_str(&j, "func", info->probes[i].func);
		json_str(&j, "mode", probe_state_text(&info->probes[i]));
		json_str(&j, "detail", info->probes[i].detail);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_end(&j);
}

static void probe_print_text(const struct run_info *info)
{
	printf("kernel             %s\n", info->release);
	printf("machine            %s, %u KiB pages\n", info->machine,
	       info->page_size / 1024);
	printf("BTF                %s\n", info->btf ? "yes" : "no");
	printf("CONFIG_BUFFER_HEAD %s\n\n",
	       info->buffer_head < 0 ? "unknown" :
	       info->buffer_head ? "y" : "n");
	printf("%-16s %-26s %-11s %s\n", "PROBE", "FUNCTION", "MODE",
	       "DETAIL");
	for (int i = 0; i < NR_PROBES; i++)
		printf("%-16s %-26s %-11s %s\n", probe_name(i),
		       info->probes[i].func, probe_state_text(&info->probes[i]),
		       info->probes[i].detail);
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
		probe_print_text(&info);
	return 0;
}
