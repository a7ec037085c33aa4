/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Why the kernel refused a program, from libbpf's and the verifier's log. */
#ifndef BHPROF_REFUSAL_H
#define BHPROF_REFUSAL_H

#include <stddef.h>

/*
 * The cause in log (libbpf's warnings and the verifier's log of a failed
 * load), as one line in buf: "the kernel lacks the BPF helper
 * bpf_get_func_arg (Linux 5.17)", "CO-RE: no struct folio.mapping in this
 * kernel's BTF (struct folio came in Linux 5.16)", the verifier's last
 * word, or errtext where the log says nothing. Returns buf.
 */
const char *refusal_text(const char *log, const char *errtext, char *buf,
			 size_t len);

#endif /* BHPROF_REFUSAL_H */
