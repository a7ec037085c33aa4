// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the gate's rules files (src/gate/rules.c), as
 * 'bhprof gate --rules FILE' reads them. What it accepts must hold
 * together: a known metric, a finite limit above -100%, a direction.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "gate/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rule rules[MAX_RULES];
	char err[256];
	size_t n = 0;

	if (rules_parse_text((const char *)data, size, rules, &n, err,
			     sizeof(err)))
		return 0;
	if (n > MAX_RULES)
		__builtin_trap();
	for (size_t i = 0; i < n; i++)
		if (!rules[i].m || !isfinite(rules[i].limit) ||
		    rules[i].limit <= -1 || (rules[i].worse != 1 &&
					     rules[i].worse != -1))
			__builtin_trap();
	return 0;
}
