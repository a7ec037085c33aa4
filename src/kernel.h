/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the running kernel has: its config, BTF functions and symbols. */
#ifndef BHPROF_KERNEL_H
#define BHPROF_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;

/* CONFIG_NAME from /proc/config.gz or /boot/config-$(uname -r):
 * 1 =y or =m, 0 not set, -1 no config readable or option unknown */
int kconfig_value(const char *name);

struct ksyms;
/* kallsyms' text symbols; only names in want (or with a compiler's
 * suffix, name.isra.0) keep their name. want holds groups of names
 * (one function's names over time) separated by NULL; reading stops
 * once every group has a name, and the symbol after the last. */
struct ksyms *ksyms_load(const char *const *want, size_t nr_want);
void ksyms_free(struct ksyms *k);
/* address of a text symbol and of the next one; 0 if unknown */
uint64_t ksyms_addr(const struct ksyms *k, const char *name,
		    uint64_t *next);
/* name as kallsyms has it: exact, or with a .isra/.constprop/.part
 * suffix the compiler added; NULL if the kernel has no such function */
const char *ksyms_func(const struct ksyms *k, const char *name);

bool btf_has_func(const struct btf *btf, const char *name);
int btf_func_nr_params(const struct btf *btf, const char *name);
/* does the first parameter point to a struct of that name? */
bool btf_func_param0_is(const struct btf *btf, const char *func,
			const char *struct_name);
bool btf_has_tracepoint(const struct btf *btf, const char *event);
int btf_func_id(const struct btf *btf, const char *name);
long btf_struct_size(const struct btf *btf, const char *name);
/* does a tail page's compound_info hold a mask rather than a pointer? */
bool kernel_head_is_mask(const struct btf *btf);

/* mounts tracefs at /sys/kernel/tracing if nothing is there yet */
int tracefs_ensure(void);

#endif /* BHPROF_KERNEL_H */
