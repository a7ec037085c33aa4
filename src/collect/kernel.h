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
/* the same from a file in kallsyms' format (tests) */
struct ksyms *ksyms_load_file(const char *path, const char *const *want,
			      size_t nr_want);
void ksyms_free(struct ksyms *k);
/* address of a text symbol and of the next one; 0 if unknown */
uint64_t ksyms_addr(const struct ksyms *k, const char *name,
		    uint64_t *next);
/* name as kallsyms has it: exact, or with a .isra/.constprop/.part
 * suffix the compiler added; NULL if the kernel has no such function */
const char *ksyms_func(const struct ksyms *k, const char *name);
/* the module ksyms_func's symbol lives in ("ext4"), NULL for vmlinux */
const char *ksyms_module_of(const struct ksyms *k, const char *name);

bool btf_has_func(const struct btf *btf, const char *name);
/* a function's parameters in BTF, 0 if it has none there */
uint32_t btf_func_nargs(const struct btf *btf, const char *name);
/* is name one of the values of the enum called enum_name? */
bool btf_has_enum_value(const struct btf *btf, const char *enum_name,
			const char *name);
/* does the first parameter point to a struct of that name? */
bool btf_func_param0_is(const struct btf *btf, const char *func,
			const char *struct_name);
bool btf_has_tracepoint(const struct btf *btf, const char *event);
/* does loaded module mod have its own BTF (5.11 on, where the kernel
 * was built with CONFIG_DEBUG_INFO_BTF_MODULES)? */
bool btf_module_has_btf(const char *mod);
/* the arguments a BTF-typed tracepoint hands its programs, -1 if none */
int btf_tp_nargs(const struct btf *btf, const char *event);
/* does the tracepoint's first argument point to a struct of that name? */
bool btf_tp_arg0_is(const struct btf *btf, const char *event,
		    const char *struct_name);
int btf_func_id(const struct btf *btf, const char *name);
long btf_struct_size(const struct btf *btf, const char *name);
/* does a tail page's compound_info hold a mask rather than a pointer? */
bool kernel_head_is_mask(const struct btf *btf);
/* does the verifier take BPF_ATOMIC's fetching operations (cmpxchg,
 * fetch-and-add: 5.12)? Asked of the kernel with a program of its own */
bool kernel_bpf_atomics(void);

/* The kernel's BTF: vmlinux's, and its modules' as they are asked for. */
#define KBTF_MAX_MODS 32
struct kbtf {
	struct btf *vmlinux;
	int nr;
	struct {
		char name[64];
		struct btf *btf;	/* NULL: the module has none */
	} mods[KBTF_MAX_MODS];
};

/* takes vmlinux (NULL: no BTF); kbtf_free frees it */
struct kbtf *kbtf_new(struct btf *vmlinux);
void kbtf_free(struct kbtf *k);
/* vmlinux's BTF for mod NULL or "", else the loaded module's; NULL if
 * the module has none (not loaded, or built without BTF) */
const struct btf *kbtf_module(struct kbtf *k, const char *mod);
/* an fd of a loaded module's BTF object, for a program's
 * attach_btf_obj_fd; -ENOENT if the kernel has none */
int btf_module_fd(const char *mod);

/* mounts tracefs at /sys/kernel/tracing if nothing is there yet */
int tracefs_ensure(void);

/* the devices of the mounts whose source is a block device of devs
 * but which name another (btrfs's anonymous ones), at most max, in out;
 * how many */
uint32_t mount_anon_devs(const uint32_t *devs, uint32_t n, uint32_t *out,
			 uint32_t max);

#endif /* BHPROF_KERNEL_H */
