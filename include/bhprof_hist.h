/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Bucket index of the log-linear histogram, shared by the BPF programs
 * and userspace so that both agree on every edge. Loop-free because the
 * BPF target has no count-leading-zeros instruction.
 */
#ifndef BHPROF_HIST_H
#define BHPROF_HIST_H

#include "bhprof.h"

static __always_inline bhp_u32 bhp_log2(bhp_u64 v)
{
	bhp_u32 r = 0, s;

	s = (v > 0xFFFFFFFFULL) << 5;
	v >>= s;
	r |= s;
	s = (v > 0xFFFF) << 4;
	v >>= s;
	r |= s;
	s = (v > 0xFF) << 3;
	v >>= s;
	r |= s;
	s = (v > 0xF) << 2;
	v >>= s;
	r |= s;
	s = (v > 0x3) << 1;
	v >>= s;
	r |= s;
	return r | (bhp_u32)(v >> 1);
}

static __always_inline bhp_u32 hist_bucket(bhp_u64 v)
{
	bhp_u32 msb, shift;

	if (v < HIST_SUB)
		return (bhp_u32)v;
	msb = bhp_log2(v);
	if (msb > HIST_MAX_MSB)
		return HIST_BUCKETS - 1;
	shift = msb - HIST_SUB_BITS;
	return (shift + 1) * HIST_SUB + (bhp_u32)((v >> shift) & (HIST_SUB - 1));
}

#endif /* BHPROF_HIST_H */
