/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One entry point per subcommand; main.c dispatches on argv[1]. */
#ifndef BHPROF_COMMANDS_H
#define BHPROF_COMMANDS_H

/* each returns the process exit status; argv[0] is the command name */
int cmd_probe(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_serve(int argc, char **argv);

#endif /* BHPROF_COMMANDS_H */
