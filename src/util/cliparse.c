// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "cliparse.h"

int cli_seconds(const char *s, double min, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min ||
	    v > CLI_SECONDS_MAX)
		return -1;
	*out = v;
	return 0;
}

int cli_pid(const char *s, uint32_t *pid)
{
	char *end;
	long v;

	/* strtol would take " 12" and "+12": a pid is digits */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > CLI_PID_MAX)
		return -1;
	*pid = (uint32_t)v;
	return 0;
}
