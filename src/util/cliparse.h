/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Numbers from the command line, parsed strictly: the whole string, a
 * finite value, in a range every later computation can hold (seconds
 * become uint64 nanoseconds). Pure functions, fuzzed by
 * tests/fuzz/fuzz_cli.c; callers print the error line.
 */
#ifndef BHPROF_CLIPARSE_H
#define BHPROF_CLIPARSE_H

#include <stdint.h>

/* about three years: times 1e9, and many intervals of it, fit in u64 */
#define CLI_SECONDS_MAX 1e8
#define CLI_PID_MAX 0x3fffffff	/* the kernel's PID_MAX_LIMIT */

/* 0 with min <= *out <= CLI_SECONDS_MAX, or -1 */
int cli_seconds(const char *s, double min, double *out);
/* a decimal pid, 1..CLI_PID_MAX: 0, or -1 */
int cli_pid(const char *s, uint32_t *pid);

#endif /* BHPROF_CLIPARSE_H */
