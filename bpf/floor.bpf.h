/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The floor of bhprof's cost (BHPROF_FLOOR=1, make bench-vm): every
 * program returns before its body, on the same attach points as a real
 * run. With floor_only frozen in .rodata the verifier sees the branch's
 * outcome and removes the dead side: a floor run's programs are a load,
 * a return and an exit, a real run's bodies gain one load. What a writer
 * pays under the floor is the kernel's price of running a program there
 * at all (the trampoline, the kprobe, the tracepoint's dispatch); the
 * rest of bhprof's cost is its bodies'.
 *
 * libbpf's BPF_PROG, BPF_KPROBE and BPF_KRETPROBE, each with the test
 * ahead of the body; the syscall tracepoints' programs, which take their
 * record as it is, test it themselves (FLOOR_RETURN).
 *
 * Included by bhprof.bpf.c, after bpf_tracing.h: one object.
 */
#ifndef BHPROF_FLOOR_BPF_H
#define BHPROF_FLOOR_BPF_H

const volatile bool floor_only = false;

/*
 * An exit of its own, which the compiler cannot merge with the body's
 * returns: in a real run no path reaches it, and the verifier removes
 * the test's jump with it, leaving the flag's load.
 */
#define FLOOR_RETURN()                                               \
	do {                                                         \
		if (floor_only)                                      \
			asm volatile("r0 = 0\n\texit" ::: "r0");      \
	} while (0)

#define BHP_WRAP(name, ctx_type, cast, args...)                            \
	name(ctx_type *ctx);                                               \
	static __always_inline typeof(name(0)) ____##name(ctx_type *ctx,   \
							  ##args);         \
	typeof(name(0)) name(ctx_type *ctx)                                \
	{                                                                  \
		FLOOR_RETURN();                                            \
		_Pragma("GCC diagnostic push")                             \
		_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")     \
		return ____##name(cast(args));                             \
		_Pragma("GCC diagnostic pop")                              \
	}                                                                  \
	static __always_inline typeof(name(0)) ____##name(ctx_type *ctx,   \
							  ##args)

#undef BPF_PROG
#define BPF_PROG(name, args...) \
	BHP_WRAP(name, unsigned long long, ___bpf_ctx_cast, ##args)
#undef BPF_KPROBE
#define BPF_KPROBE(name, args...) \
	BHP_WRAP(name, struct pt_regs, ___bpf_kprobe_args, ##args)
#undef BPF_KRETPROBE
#define BPF_KRETPROBE(name, args...) \
	BHP_WRAP(name, struct pt_regs, ___bpf_kretprobe_args, ##args)

#endif /* BHPROF_FLOOR_BPF_H */
