/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef BHPROF_ARRAY_H
#define BHPROF_ARRAY_H

/* the elements of an array (never of a pointer), as the kernel's */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* BHPROF_ARRAY_H */
