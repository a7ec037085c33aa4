/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Bucket index of the log-linear histogram, shared by the BPF programs
 * and userspace so that both agree on every edge. Loop-free because the
 * BPF target has no count-leading-zeros instruction.
 */
#ifndef BHPROF_HIST_H
#define BHPROF_HIST_H

#include "bhprof.h"

/*
 * 1 if v > c, else 0, for v and c below 2^63: the sign of c - v. A
 * comparison would be a branch on BPF (it has no setcc), and five of
 * them in a row, with the result used to index, made the verifier walk
 * every combination: 32 paths from here on, in every program that
 * keeps a histogram.
 */
#define BHP_GT(v, c) ((bhp_u32)(((bhp_u64)(c) - (v)) >> 63))

static __always_inline bhp_u32 bhp_log2(bhp_u64 v)
{
	bhp_u32 r = 0, s;

	if (v >> 63)
		return 63;
	s = BHP_GT(v, 0xFFFFFFFFULL) << 5;
	v >>= s;
	r |= s;
	s = BHP_GT(v, 0xFFFF) << 4;
	v >>= s;
	r |= s;
	s = BHP_GT(v, 0xFF) << 3;
	v >>= s;
	r |= s;
	s = BHP_GT(v, 0xF) << 2;
	v >>= s;
	r |= s;
	s = BHP_GT(v, 0x3) << 1;
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
