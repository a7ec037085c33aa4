// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the command-line number parsers (src/util/cliparse.c).
 * Besides not crashing: whatever they accept must be in range, and its
 * conversion to nanoseconds, which the interval loop does, defined.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/cliparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	uint32_t pid;
	double v;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (!cli_seconds(s, 0.01, &v)) {
		if (!(v >= 0.01 && v <= CLI_SECONDS_MAX))
			__builtin_trap();
		/* as run_wait computes deadlines: must not overflow */
		if ((uint64_t)(1000 * v * 1e9) < (uint64_t)(v * 1e9))
			__builtin_trap();
	}
	if (!cli_pid(s, &pid) && (pid == 0 || pid > CLI_PID_MAX))
		__builtin_trap();
	free(s);
	return 0;
}
