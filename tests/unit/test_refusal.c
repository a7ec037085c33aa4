// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A refused program's cause, from logs as libbpf and the verifier write
 * them: 5.10's for a helper it does not know, libbpf's for a field and a
 * kfunc it could not find, and a verifier complaint with its statistics.
 */
#include <string.h>
#include "harness.h"
#include "collect/refusal.h"

static const char *cause(const char *log)
{
	static char buf[200];

	return refusal_text(log, "Invalid argument", buf, sizeof(buf));
}

TEST(refusal_helper_unknown_to_the_kernel)
{
	/* 5.10 names no helper past its own: bpf_get_func_arg is #183 */
	const char *log =
		"libbpf: prog 'fe_blkdev_write': BPF program load failed: Invalid argument\n"
		"libbpf: prog 'fe_blkdev_write': -- BEGIN PROG LOAD LOG --\n"
		"0: R1=ctx(id=0,off=0,imm=0) R10=fp0\n"
		"3: (85) call unknown#183\n"
		"invalid func unknown#183\n"
		"processed 4 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\n"
		"-- END PROG LOAD LOG --\n";

	CHECK(!strcmp(cause(log), "the kernel lacks the BPF helper "
				  "bpf_get_func_arg (Linux 5.17)"));
	CHECK(!strcmp(cause("invalid func unknown#999\n"),
		      "the kernel lacks BPF helper #999, newer than it"));
}

TEST(refusal_helper_not_for_this_program)
{
	CHECK(!strcmp(cause("12: (85) call bpf_get_func_arg#183\n"
			    "unknown func bpf_get_func_arg#183\n"
			    "-- END PROG LOAD LOG --\n"),
		      "the kernel does not give bpf_get_func_arg to this kind "
		      "of program"));
}

/* 5.10's first pass over the instructions, and an event of 5.10's shape:
 * the logs of Debian 11's kernel */
TEST(refusal_verifier_features_of_5_10)
{
	CHECK(!strcmp(cause("libbpf: prog 'kp_blkdev_write': -- BEGIN PROG LOAD LOG --\n"
			    "BPF_STX uses reserved fields\n"
			    "processed 0 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\n"
			    "-- END PROG LOAD LOG --\n"),
		      "the kernel's verifier lacks BPF atomics with fetch "
		      "(cmpxchg, fetch-and-add: Linux 5.12)"));
	CHECK(!strcmp(cause("; int BPF_PROG(tp_bh_free, unsigned long call_site, const void *ptr,\n"
			    "0: (79) r3 = *(u64 *)(r1 +16)\n"
			    "func 'kmem_cache_free' doesn't have 3-th argument\n"
			    "invalid bpf_context access off=16 size=8\n"
			    "processed 1 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\n"
			    "-- END PROG LOAD LOG --\n"),
		      "this kernel's kmem_cache_free has fewer arguments than "
		      "the program was built for"));
}

TEST(refusal_core_field_and_its_release)
{
	CHECK(!strcmp(cause("libbpf: prog 'x': failed to resolve CO-RE "
			    "relocation <byte_off> [4521] struct folio.mapping "
			    "(0:1 @ offset 24)\n"),
		      "CO-RE: no struct folio.mapping in this kernel's BTF "
		      "(struct folio came in Linux 5.16)"));
	/* a type whose release is not known: the field alone */
	CHECK(!strcmp(cause("failed to resolve CO-RE relocation <byte_off> "
			    "[12] struct page.compound_head (0:1 @ offset 8)\n"),
		      "CO-RE: no struct page.compound_head in this kernel's "
		      "BTF"));
	/* libbpf's stand-in call where its log was not rewritten */
	CHECK(!strcmp(cause("invalid func unknown#195896080\n"),
		      "CO-RE: a field or type this kernel's BTF lacks"));
}

TEST(refusal_kfunc)
{
	CHECK(!strcmp(cause("libbpf: extern (func ksym) 'bpf_rdonly_cast': "
			    "not found in kernel or module BTFs\n"),
		      "the kernel lacks the kfunc bpf_rdonly_cast (Linux 6.2)"));
}

TEST(refusal_verifier_word_not_its_statistics)
{
	CHECK(!strcmp(cause("-- BEGIN PROG LOAD LOG --\n"
			    "R8 invalid mem access 'trusted_ptr_or_null_'\n"
			    "processed 88 insns (limit 1000000)\n"
			    "verification time 120 usec\n"
			    "stack depth 40\n"
			    "-- END PROG LOAD LOG --\n"),
		      "verifier: R8 invalid mem access 'trusted_ptr_or_null_'"));
	CHECK(!strcmp(cause(""), "Invalid argument"));
}
