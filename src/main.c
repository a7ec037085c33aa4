// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bhprof: compare the buffer_head and iomap write paths.
 * Subcommands are matched by prefix, as bpftool does ("bhprof st").
 */
#include <stdio.h>
#include <string.h>
#include "collect/collector.h"
#include "cmd/commands.h"
#include "util/array.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd cmds[] = {
	{ "top", cmd_top, "live view of both paths (default)" },
	{ "stat", cmd_stat, "collect, then print a per-path summary" },
	{ "record", cmd_record, "record snapshots to a file" },
	{ "report", cmd_report, "summarise a recorded file" },
	{ "diff", cmd_diff, "compare two recorded files" },
	{ "gate", cmd_gate, "judge candidate recordings against a baseline (CI)" },
	{ "probe", cmd_probe, "show what this kernel lets bhprof attach" },
	{ "serve", cmd_serve, "export live metrics to Prometheus" },
};

#define NR_CMDS ARRAY_SIZE(cmds)

static void usage(FILE *f)
{
	fprintf(f, "Usage: bhprof [COMMAND] [OPTIONS]\n\n"
		   "Profile the buffer_head and iomap write paths side by "
		   "side.\n\nCommands:\n");
	for (size_t i = 0; i < NR_CMDS; i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nWithout a command: 'top'. 'bhprof COMMAND --help' "
		   "for a command's options.\n");
}

static const struct cmd *lookup(const char *s)
{
	const struct cmd *hit = NULL;
	size_t n = strlen(s);

	for (size_t i = 0; i < NR_CMDS; i++) {
		if (!strcmp(cmds[i].name, s))
			return &cmds[i];
		if (!strncmp(cmds[i].name, s, n)) {
			if (hit)
				return NULL;	/* ambiguous */
			hit = &cmds[i];
		}
	}
	return hit;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "-h") ||
				  !strcmp(argv[1], "--help"))) {
			usage(stdout);
			return 0;
		}
		if (argc >= 2 && !strcmp(argv[1], "--version")) {
			printf("bhprof %s\n", bhprof_version);
			return 0;
		}
		/* "bhprof -i 2" is "bhprof top -i 2" */
		argv[0] = "top";
		return cmd_top(argc, argv);
	}
	c = lookup(argv[1]);
	if (!c) {
		fprintf(stderr, "bhprof: unknown command '%s' (see "
			"'bhprof --help')\n", argv[1]);
		return 2;
	}
	argv[1] = (char *)c->name;
	return c->fn(argc - 1, argv + 1);
}
