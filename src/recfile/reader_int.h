/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What recfile.c and decode.c, the reader, share; no other file. */
#ifndef BHPROF_READER_INT_H
#define BHPROF_READER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <zlib.h>
#include "recfile_fmt.h"

#define REC_MAX_FILE (2ull << 30)	/* whole file is read into memory */
#define REC_MAX_WARN 32
#define REC_WARN_LEN 200

struct rec_index {
	uint64_t off;
	uint32_t len;
	uint8_t type;
	bool gap;		/* a corrupt stretch lies just before */
	bool warned;		/* its payload failed to decode, said so */
};

struct recfile {
	uint8_t *data;
	size_t size;
	unsigned int major, minor;
	struct run_info info;
	struct rec_end end;
	struct rec_stats stats;
	uint64_t scan_budget;	/* CRC bytes left for resynchronising */

	struct rec_index *idx;
	size_t nr_idx, cap_idx;

	/* iteration: state is always the last snapshot handed out */
	size_t pos;
	bool chain;		/* deltas may be applied to state */
	bool gap;		/* lost frames since the last one handed out */
	struct snapshot *state, *spare, *step;
	struct bhp_path_stats prev_paths[NR_PATH_ROWS];
	struct bhp_global_stats prev_glob;
	uint64_t prev_ts;
	uint32_t prev_nr_devs;
	struct dev_row prev_devs[MAX_SNAP_DEVS];
	uint16_t dlo[NR_HISTS], dhi[NR_HISTS];	/* dirty buckets of step */
	struct buf z;
	z_stream zs;
	bool zs_init;

	uint32_t nr_names;
	struct dev_name names[MAX_SNAP_DEVS];
	/* --callers: the file's chain ids, to this process's (+ 1; 0 not
	 * named yet) */
	uint32_t *chain_map;
	uint32_t chain_cap;
	char args[MAX_ARGV_TEXT];
	unsigned int nr_args, args_len;
	uint16_t arg_off[REC_MAX_ARGS];

	unsigned int nr_warn;
	uint64_t warn_dropped;
	char warn[REC_MAX_WARN][REC_WARN_LEN];
};

/* A cursor over untrusted bytes: reads past the end set bad, never fault. */
struct rd {
	const uint8_t *p, *end;
	bool bad;
};

/*
 * A payload is decoded twice: once to check it (apply false), then to
 * apply it, so that a bad frame never leaves the state half-updated.
 */
struct dec {
	struct recfile *r;
	struct snapshot *dst;	/* zeroed first for a keyframe */
	bool key;
	bool apply;
	bool step;		/* also add the changes to r->step */
};

/* decode.c: a meta frame's run facts, an end frame's figures, and a
 * snapshot's payload (checked whole when d->apply is false) */
int dec_meta(struct recfile *r, struct rd *c, char *err, size_t errlen);
void dec_end(struct recfile *r, struct rd *c);
bool dec_snapshot(struct dec *d, const uint8_t *p, size_t n, const char **why);

#endif /* BHPROF_READER_INT_H */
