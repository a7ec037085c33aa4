// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "harness.h"

static struct unit_test *tests;
int unit_failures;

void unit_register(struct unit_test *t)
{
	t->next = tests;
	tests = t;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	struct unit_test *t;

	for (t = tests; t; t = t->next) {
		if (argc > 1 && !strstr(t->name, argv[1]))
			continue;
		unit_failures = 0;
		t->fn();
		if (unit_failures) {
			printf("FAIL %s\n", t->name);
			failed++;
		} else {
			printf("ok   %s\n", t->name);
			passed++;
		}
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
