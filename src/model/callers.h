/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --callers: what the rows of struct caller_row mean. A row's stack id
 * turns into a chain of kernel function names (kallsyms, read while bhprof
 * still holds root), its device and owner kind into a filesystem and a
 * role (/proc/self/mountinfo), and the lot into tables by chain and owner.
 */
#ifndef BHPROF_CALLERS_H
#define BHPROF_CALLERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "snapshot.h"

/* every text symbol of /proc/kallsyms: 0, or a negative errno */
int callers_syms_load(void);
/* address of a text symbol and of the one after; 0 if unknown */
uint64_t callers_sym_range(const char *name, uint64_t *end);
void callers_syms_free(void);

/* A chain's id from its text, the same for the same text in every run
 * read (BHP_STACK_LOST if out of memory); from a stack's frames as the
 * kernel kept them, leaf first */
uint32_t callers_chain_intern(const char *text);
uint32_t callers_chain_from_ips(const uint64_t *ips, unsigned int n);
/* "root;...;alloc_buffer_head"; "[lost]" when the stack map was full */
const char *callers_chain(uint32_t id);
/* the chain's first frame from the leaf that is not a buffer-layer
 * helper: what the chain is called by */
const char *callers_chain_name(const char *chain, char *buf, size_t len);

/* chains interned so far: ids below this are taken */
uint32_t callers_nr_chains(void);

/* the filesystems mounted now, by device: kept for the run; a recording
 * carries the table (callers_mount_add() when read back) */
void callers_mounts_scan(void);
void callers_mount_add(uint32_t dev, const char *fs);
unsigned int callers_nr_mounts(void);
const char *callers_mount(unsigned int i, uint32_t *dev);

enum callers_role { ROLE_DATA, ROLE_METADATA, ROLE_JOURNAL, ROLE_UNKNOWN };

struct callers_owner {
	char fs[32];		/* "ext4", "bdev", "?" */
	uint32_t dev;		/* 0 if unknown */
	enum callers_role role;
};

void callers_owner_of(const struct bhp_caller_key *k,
		      struct callers_owner *o);
const char *callers_role_name(enum callers_role r);
const char *callers_where_name(uint32_t where);

#endif /* BHPROF_CALLERS_H */
