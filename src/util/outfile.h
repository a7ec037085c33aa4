/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every file bhprof writes goes through here. bhprof runs as root and
 * writes into shared directories, so:
 *
 * - the last path component is never followed if it is a symbolic link
 *   (checked with lstat, then enforced by O_EXCL|O_NOFOLLOW and rename,
 *   which never follow it either);
 * - an existing file is never replaced unless OUTFILE_FORCE (--force);
 *   anything but a regular file is never replaced at all;
 * - whole-file outputs are written to a hidden temporary file in the
 *   same directory and renamed into place when complete, so a reader
 *   sees the old file, no file, or all of the new one;
 * - under sudo, the file belongs to the sudo user (SUDO_UID, SUDO_GID),
 *   who can then read, move and delete it; as plain root, to root.
 *
 * Files are created 0644 less the umask. Every function that fails
 * prints one line "bhprof: PATH: why" on stderr and returns a negative
 * errno. Open outputs before priv_drop_to(): creating a file afterwards
 * needs the dropped user's own write permission on the directory.
 */
#ifndef BHPROF_OUTFILE_H
#define BHPROF_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define OUTFILE_FORCE 0x1	/* replace an existing regular file */

/* ---- whole-file outputs: report --html/--json/--csv -o, ... ---- */

struct outfile;

/* Creates the temporary file now: a bad path fails before any work. */
int outfile_open(const char *path, unsigned int flags, struct outfile **out);
/* where to write; owned by the outfile, do not fclose it */
FILE *outfile_fp(struct outfile *of);
/* Flushes, fsyncs and renames into place; frees of, even on error (the
 * temporary file is then removed and the old file, if any, stays). */
int outfile_commit(struct outfile *of);
/* Removes the temporary file and frees of; NULL is fine. */
void outfile_abort(struct outfile *of);

/* ---- streaming outputs: record -o, top -o ---- */

/*
 * A new, empty file at path, its name already durable (the directory is
 * fsynced), open for writing: returns the fd or a negative errno. With
 * OUTFILE_FORCE an existing file is replaced by rename, at once, not
 * truncated: whoever still has it open keeps the old data.
 */
int outfile_create(const char *path, unsigned int flags);

/* ---- a whole file rewritten all along a run: serve --textfile ---- */

/*
 * After priv_drop_to bhprof may not create files in the directory of path
 * any more (node_exporter's textfile directory is root's). Started
 * before the drop, a writer is a small helper process that keeps root
 * for exactly this: it holds none of bhprof's files or BPF objects and
 * only replaces path, whole, with the bytes it is sent. Without root to
 * give up, it is no process, just the same calls.
 */
struct outfile_writer;

/* flags: OUTFILE_*; the path is checked now. 0 or a negative errno,
 * after one error line. */
int outfile_writer_start(const char *path, unsigned int flags,
			 struct outfile_writer **out);
/* path becomes exactly buf (outfile_open + outfile_commit). */
int outfile_writer_put(struct outfile_writer *w, const void *buf, size_t len);
/* Ends the writer; with remove, path goes too (so that a stopped
 * exporter's figures do not look live). Also when bhprof dies. */
void outfile_writer_stop(struct outfile_writer *w, bool remove);

#endif /* BHPROF_OUTFILE_H */
