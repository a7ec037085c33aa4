/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live source of snapshots: resolves every logical probe on the
 * running kernel, loads the BPF object with the winning flavours, attaches
 * them and reads the maps.
 */
#ifndef BHPROF_COLLECTOR_H
#define BHPROF_COLLECTOR_H

#include <stdbool.h>
#include "model/snapshot.h"

struct collector_opts {
	enum attach_mode mode;	/* MODE_AUTO unless --attach */
	uint32_t nr_filter_devs;
	uint32_t filter_devs[MAX_FILTER_DEVS];
	uint32_t filter_pid;
	bool verbose;		/* libbpf debug output */
	bool self_cost;		/* the kernel's BPF statistics on (--self-cost) */
	bool callers;		/* --callers: chains, owners, frees */
	bool watch_modules;	/* attach what modules loaded later bring */
};

struct collector;

/*
 * Fills info (kernel facts, probe states) and starts collecting.
 * On failure prints one line on stderr and returns a negative errno.
 */
int collector_open(const struct collector_opts *o, struct run_info *info,
		   struct collector **out);
int collector_read(struct collector *c, struct snapshot *s);
/* One map lookup and one program info query, as collector_read does
 * them: 0 if this process may still do both (see priv_drop_trial). */
int collector_check(struct collector *c);
/*
 * Runs of bhprof's programs the kernel skipped because a BPF program was
 * already running on that CPU (kprobes share one per-CPU guard, held
 * even by bpf() map reads): each one is an event not counted.
 */
uint64_t collector_missed(struct collector *c);
/* What helpers say goes on this process's stderr, at each read, from
 * now on: for top, whose screen holds stderr until it ends. */
void collector_relay_messages(struct collector *c);
void collector_close(struct collector *c);

struct btf;
/* Kernel facts alone (release, BTF, CONFIG_BUFFER_HEAD), no BPF; btf is
 * the kernel's, or NULL where it has none. */
void kernel_facts(struct run_info *info, const struct btf *btf);
/* bhprof's version, from the top-level VERSION file */
extern const char bhprof_version[];

#endif /* BHPROF_COLLECTOR_H */
