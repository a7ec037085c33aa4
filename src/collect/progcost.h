/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the kernel's BPF statistics counted for an object's programs:
 * --self-cost, program by program, for the run's object and for the
 * module helper's.
 */
#ifndef BHPROF_PROGCOST_H
#define BHPROF_PROGCOST_H

#include <stdint.h>
#include "model/snapshot.h"

struct bpf_object;

/* Run time and runs of obj's loaded programs, added into rows[*n] by
 * name (at most max rows). */
void bpf_progs_cost(struct bpf_object *obj, struct self_prog *rows,
		    uint32_t *n, uint32_t max);

#endif /* BHPROF_PROGCOST_H */
