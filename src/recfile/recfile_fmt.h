/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the record file writer (recwriter.c) and reader (recfile.c) must
 * agree on: section tags, the sparse index layout, the byte buffer.
 * docs/format.md is the specification.
 */
#ifndef BHPROF_RECFILE_FMT_H
#define BHPROF_RECFILE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "recfile.h"

#define PATH_STRIDE_BYTES (32 * 8)

/* The sparse indices below are part of the format: a change to these
 * structures must come with a change to docs/format.md. */
_Static_assert(sizeof(struct bhp_path_stats) == 23 * 8, "path counters");
_Static_assert(sizeof(struct bhp_path_stats) <= PATH_STRIDE_BYTES,
	       "path counters overflow their stride");
_Static_assert(sizeof(struct bhp_global_stats) == 9 * 8, "global counters");
_Static_assert(sizeof(struct bhp_dev_stats) == 2 * (2 + DEV_SIZE_SLOTS) * 8,
	       "device counters");
_Static_assert(sizeof(struct bhp_fs_stats) == 9 * 8, "filesystem counters");

#define NR_PATH_FIELDS (sizeof(struct bhp_path_stats) / 8)
#define NR_GLOB_FIELDS (sizeof(struct bhp_global_stats) / 8)
#define NR_DEV_FIELDS (sizeof(struct bhp_dev_stats) / 8)
#define NR_FS_FIELDS (sizeof(struct bhp_fs_stats) / 8)
#define PATH_STRIDE 32		/* index = path * 32 + field */
#define HIST_STRIDE 2048	/* index = hist id * 2048 + bucket */
#define DEV_F_REMOVED 0x1

/* section tags of the metadata frame */
enum {
	M_VERSION = 1, M_RELEASE, M_BUFFER_HEAD, M_BTF, M_HOSTNAME,
	M_START_NS, M_INTERVAL_MS, M_FILTER_DEV, M_FILTER_PID, M_CMDLINE,
	M_PROBE, M_HIST_LAYOUT, M_DEV_NAME, M_DEV_SLOTS, M_COMMAND_ARG,
	M_FEATURES, M_MACHINE, M_PAGE_SIZE, M_BH_SIZE, M_CALLERS_MODE,
	M_CALLERS_DETAIL, M_OTHER_MODE, M_OTHER_DETAIL,
};

/*
 * What a recording that names no machine was made on: bhprof built for
 * x86-64 alone until it wrote M_MACHINE, and x86-64's pages are 4 KiB.
 */
#define REC_OLD_MACHINE "x86_64"
#define REC_OLD_PAGE_SIZE 4096
/* the page sizes a reader believes: 4 KiB to 1 MiB, a power of two */
#define REC_PAGE_SIZE_OK(n) ((n) >= 4096 && (n) <= (1u << 20) && !((n) & ((n) - 1)))

/* ... of a probe, inside M_PROBE */
enum { P_ID = 1, P_MODE, P_ABSENT, P_FUNC, P_DETAIL, P_NAME, P_FAILED,
       P_MODULE };

/* ... of a device name, inside M_DEV_NAME and E_DEV_NAME */
enum { D_DEV = 1, D_NAME };

/* ... of a snapshot frame */
enum { S_TS = 1, S_PATHS, S_GLOB, S_HISTS, S_DEVS, S_CHAINS, S_CALLERS,
       S_NET_PEAK, S_MOUNTS, S_DEV_GONE, S_PROBES_LATE, S_PROBES_GONE,
       S_FS };

/* ... of the end-of-run frame */
enum { E_REASON = 1, E_SIGNAL, E_EXIT, E_ELAPSED_NS, E_FRAMES, E_DEV_NAME };

/* growable byte buffer; oom sticks, so callers check once at the end */

struct buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

bool buf_reserve(struct buf *b, size_t n);
void buf_put(struct buf *b, const void *d, size_t n);

struct dev_name {
	uint32_t dev;
	char name[32];
};

#endif /* BHPROF_RECFILE_FMT_H */
