/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probes of modules that load after the start, attached by a helper
 * that keeps what loading programs takes when bhprof gives up root.
 */
#ifndef BHPROF_LATEMOD_H
#define BHPROF_LATEMOD_H

#include <stdint.h>
#include "model/snapshot.h"

struct attach_plan;
struct bhprof_bpf;
struct latemod;

/* After attach, before root is given up: NULL when no probe can come
 * with a module (all in vmlinux), or without /proc/modules. */
struct latemod *latemod_start(const struct attach_plan *plan,
			      struct bhprof_bpf *run);
/* The probes attached since the start, and those an unloaded module
 * took, a bit per probe id; prints the helper's new lines if relayed. */
void latemod_read(struct latemod *l, uint64_t *late, uint64_t *gone);
/* From now on the helper's lines go through latemod_read, on this
 * process's stderr (which top's screen holds), not on the helper's. */
void latemod_relay(struct latemod *l);
/* --self-cost: what the helper's programs counted (those of modules
 * gone too), by name, into rows; how many rows. */
uint32_t latemod_cost(struct latemod *l, struct self_prog *rows,
		      uint32_t max);
/* Ends the helper and its probes; what they counted, as latemod_cost. */
uint32_t latemod_stop(struct latemod *l, struct self_prog *rows,
		      uint32_t max);

#endif /* BHPROF_LATEMOD_H */
