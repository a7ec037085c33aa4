/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* kallsyms fixtures: a text in kallsyms' format, loaded as the kernel's */
#ifndef BHPROF_KSYMS_TEXT_H
#define BHPROF_KSYMS_TEXT_H

#include <stddef.h>

struct ksyms;

struct ksyms *ksyms_from_text(const char *text, const char *const *want,
			      size_t nr_want);

#endif /* BHPROF_KSYMS_TEXT_H */
