/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Record files: a run written as it happens, read back after a crash.
 *
 * The layout is specified in docs/format.md. In short: a 12-byte header
 * (magic, major, minor), then frames [u32 len][u32 crc32][u8 type][zlib
 * payload]. The first frame is the run's metadata; snapshot frames hold
 * sparse deltas from the previous one, with a full keyframe every so
 * often; an end-of-run frame says why and how the run stopped.
 *
 * The writer only ever appends whole frames with one write(2), so a crash
 * leaves a valid prefix plus at most one torn frame. The reader validates
 * every frame's CRC before decoding it, skips what it cannot use, and
 * turns every problem into either one error line (the file is not a
 * usable recording) or a warning (data was lost, the rest is fine).
 */
#ifndef BHPROF_RECFILE_H
#define BHPROF_RECFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/snapshot.h"

#define REC_MAGIC "\x89" "BHPROF\n"
#define REC_MAGIC_LEN 8
#define REC_MAJOR 1
#define REC_MINOR 0
#define REC_HEADER_LEN 12
#define REC_FRAME_HDR 9
/* A frame longer than this is corrupt, whatever its length field says. */
#define REC_MAX_FRAME (16u << 20)
/* ... and so is a payload that inflates to more than this. */
#define REC_MAX_PAYLOAD (4u << 20)
#define REC_KEYFRAME_EVERY 60
#define REC_MAX_ARGS 64	/* of the recorded command, kept */

enum rec_frame_type {
	REC_F_META = 1,
	REC_F_KEY = 2,
	REC_F_DELTA = 3,
	REC_F_END = 4,
};

/* why a recording stopped, as stored in the end-of-run frame */
enum rec_stop {
	REC_STOP_UNKNOWN = 0,
	REC_STOP_DURATION = 1,	/* --duration elapsed */
	REC_STOP_COMMAND = 2,	/* the command exited */
	REC_STOP_SIGNAL = 3,	/* SIGINT, SIGTERM or SIGHUP */
	REC_STOP_ERROR = 4,	/* reading the collector failed */
	REC_STOP_USER = 5,	/* q in bhprof top */
	REC_STOP_MAX = REC_STOP_USER,
};

struct rec_end {
	bool present;		/* false: killed, or still being written */
	enum rec_stop reason;
	int signal;		/* for REC_STOP_SIGNAL */
	bool has_exit;		/* a command ran and was reaped */
	int exit_status;	/* shell-style: 0..255, 128+sig */
	uint64_t elapsed_ns;
	uint64_t frames;	/* snapshot frames the writer wrote */
};

const char *rec_stop_name(enum rec_stop r);

/* ---- writer ---- */

struct recwriter;

/* Creates path through outfile_create (flags: OUTFILE_*): never through
 * a symbolic link, never over a file without OUTFILE_FORCE. Returns 0 or
 * a negative errno, after one error line on stderr. */
int recwriter_open(const char *path, unsigned int flags,
		   struct recwriter **out);
/* Takes over fd, which must be empty and open for writing. */
int recwriter_open_fd(int fd, struct recwriter **out);
/* 1 writes every snapshot as a keyframe; tests use small values. */
void recwriter_set_keyframe_every(struct recwriter *w, unsigned int n);
/* The command run under the recording (argv after --), kept in the
 * metadata; call before recwriter_begin. */
void recwriter_command(struct recwriter *w, char *const *argv);
/* The header and metadata frame; call once, before any snapshot. */
int recwriter_begin(struct recwriter *w, const struct run_info *info);
/* Remember a device's name (loop0, nvme0n1) for the end-of-run frame. */
void recwriter_dev_name(struct recwriter *w, uint32_t dev, const char *name);
int recwriter_append(struct recwriter *w, const struct snapshot *s);
int recwriter_end(struct recwriter *w, const struct rec_end *end);
/* fsyncs and closes; returns the first error seen, if any. */
int recwriter_close(struct recwriter *w);
uint64_t recwriter_bytes(const struct recwriter *w);
uint64_t recwriter_frames(const struct recwriter *w);

/* ---- reader ---- */

struct recfile;

/* What recfile_next hands out; both point into the reader and stay
 * valid until the next call. */
struct rec_frame {
	const struct snapshot *cum;	/* cumulative, as recorded */
	const struct snapshot *step;	/* cum minus the previous one
					 * returned (cum itself for the
					 * first); ts_ns is the interval */
	/* step->hists[h] is zero outside [step_lo[h], step_hi[h]]
	 * (all of it when lo > hi): percentiles need not scan the rest */
	uint16_t step_lo[NR_HISTS], step_hi[NR_HISTS];
	bool after_gap;			/* frames were lost just before */
	uint64_t offset;		/* of the frame in the file */
};

struct rec_stats {
	uint64_t file_bytes;
	uint64_t frames;		/* valid frames, all types */
	uint64_t snap_frames;		/* valid keyframes and deltas */
	uint64_t unknown_frames;	/* valid, of a type we skip */
	uint64_t bad_regions;		/* corrupt stretches skipped */
	uint64_t bad_bytes;		/* ... their total size */
	uint64_t torn_bytes;		/* dropped at the end */
	uint64_t lost_intervals;	/* deltas without a base */
	bool torn;
};

/*
 * Both return 0, or -1 with one line (no "bhprof: FILE: " prefix, no
 * newline) in err. A file that opens may still carry warnings.
 */
int recfile_open(const char *path, struct recfile **out, char *err,
		 size_t errlen);
/* Reads fd (not closed) from where it stands: a file opened before
 * giving up root is parsed after. */
int recfile_open_fd(int fd, struct recfile **out, char *err, size_t errlen);
/* The buffer is copied. */
int recfile_open_mem(const void *buf, size_t len, struct recfile **out,
		     char *err, size_t errlen);
void recfile_close(struct recfile *r);

const struct run_info *recfile_info(const struct recfile *r);
const struct rec_end *recfile_end(const struct recfile *r);
const struct rec_stats *recfile_stats(const struct recfile *r);
void recfile_version(const struct recfile *r, unsigned int *major,
		     unsigned int *minor);
/* the recorded command's argv: count, and each (NULL past the end) */
unsigned int recfile_nr_args(const struct recfile *r);
const char *recfile_arg(const struct recfile *r, unsigned int i);
/* the name recorded for dev, or NULL */
const char *recfile_dev_name(const struct recfile *r, uint32_t dev);

/* 1 with the next snapshot in f, 0 at the end. Never fails: a frame it
 * cannot use becomes a warning. At the end, the last snapshot handed out
 * stays where f pointed until recfile_rewind or recfile_close. */
int recfile_next(struct recfile *r, struct rec_frame *f);
void recfile_rewind(struct recfile *r);
/* Skips to the last keyframe: for readers that only need the first and
 * last snapshots (diff). The next frame handed out has after_gap set. */
void recfile_seek_last_keyframe(struct recfile *r);

/* Warnings found so far: all of open's, plus those of the frames read. */
unsigned int recfile_nr_warnings(const struct recfile *r);
const char *recfile_warning(const struct recfile *r, unsigned int i);

#endif /* BHPROF_RECFILE_H */
