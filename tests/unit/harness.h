/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A minimal unit-test harness: TEST() registers a function at load time,
 * tests/unit/main.c runs them all and ends with "N passed, N failed".
 */
#ifndef BHPROF_HARNESS_H
#define BHPROF_HARNESS_H

#include <stdio.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
	struct unit_test *next;
};

void unit_register(struct unit_test *t);
extern int unit_failures;	/* failures in the running test */

#define TEST(name)                                                     \
	static void test_##name(void);                                 \
	static struct unit_test unit_##name = { #name, test_##name, 0 }; \
	__attribute__((constructor)) static void reg_##name(void)      \
	{                                                              \
		unit_register(&unit_##name);                           \
	}                                                              \
	static void test_##name(void)

#define CHECK(cond)                                                    \
	do {                                                           \
		if (!(cond)) {                                         \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", \
				__FILE__, __LINE__, #cond);            \
			unit_failures++;                               \
		}                                                      \
	} while (0)

#define CHECK_EQ_U64(a, b)                                             \
	do {                                                           \
		unsigned long long _a = (a), _b = (b);                 \
		if (_a != _b) {                                        \
			fprintf(stderr, "  %s:%d: %s == %llu, want %llu\n", \
				__FILE__, __LINE__, #a, _a, _b);       \
			unit_failures++;                               \
		}                                                      \
	} while (0)

#endif /* BHPROF_HARNESS_H */
