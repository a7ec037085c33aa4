// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record file writer and reader; docs/format.md is the specification.
 *
 * Everything inside a payload is a list of sections (varint tag, varint
 * length, body) so that a reader skips what it does not know. Snapshot
 * frames are sparse: a list of (index gap, value) pairs over every
 * counter, where a keyframe stores the values and a delta frame the
 * zigzag-coded change since the previous frame. A quiet interval is a
 * timestamp and nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "recfile.h"

/* The sparse indices below are part of the format: a change to these
 * structures must come with a change to docs/format.md. */
_Static_assert(sizeof(struct bhp_path_stats) == 10 * 8, "path counters");
_Static_assert(sizeof(struct bhp_global_stats) == 5 * 8, "global counters");
_Static_assert(sizeof(struct bhp_dev_stats) == (2 + DEV_SIZE_SLOTS) * 8,
	       "device counters");

#define NR_PATH_FIELDS (sizeof(struct bhp_path_stats) / 8)
#define NR_GLOB_FIELDS (sizeof(struct bhp_global_stats) / 8)
#define NR_DEV_FIELDS (sizeof(struct bhp_dev_stats) / 8)
#define PATH_STRIDE 32		/* index = path * 32 + field */
#define HIST_STRIDE 2048	/* index = hist id * 2048 + bucket */
#define DEV_F_REMOVED 0x1

/* section tags of the metadata frame */
enum {
	M_VERSION = 1, M_RELEASE, M_BUFFER_HEAD, M_BTF, M_HOSTNAME,
	M_START_NS, M_INTERVAL_MS, M_FILTER_DEV, M_FILTER_PID, M_CMDLINE,
	M_PROBE, M_HIST_LAYOUT, M_DEV_NAME, M_DEV_SLOTS, M_COMMAND_ARG,
};

/* ... of a probe, inside M_PROBE */
enum { P_ID = 1, P_MODE, P_ABSENT, P_FUNC, P_DETAIL, P_NAME };

/* ... of a device name, inside M_DEV_NAME and E_DEV_NAME */
enum { D_DEV = 1, D_NAME };

/* ... of a snapshot frame */
enum { S_TS = 1, S_PATHS, S_GLOB, S_HISTS, S_DEVS };

/* ... of the end-of-run frame */
enum { E_REASON = 1, E_SIGNAL, E_EXIT, E_ELAPSED_NS, E_FRAMES, E_DEV_NAME };

static const char * const probe_names[NR_PROBES] = {
	"write_blkdev", "write_iomap", "write_generic", "writeback_bh",
	"writeback_iomap", "writeback_ctx", "bh_alloc", "bio",
};

const char *rec_stop_name(enum rec_stop r)
{
	switch (r) {
	case REC_STOP_DURATION:
		return "duration";
	case REC_STOP_COMMAND:
		return "command exited";
	case REC_STOP_SIGNAL:
		return "signal";
	case REC_STOP_ERROR:
		return "error";
	default:
		return "unknown";
	}
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t get_le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/* ---- growable byte buffer, shared by writer and reader ---- */

struct buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static bool buf_reserve(struct buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	uint8_t *p;

	if (b->oom)
		return false;
	if (b->len + n <= b->cap)
		return true;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static void buf_put(struct buf *b, const void *d, size_t n)
{
	if (!buf_reserve(b, n))
		return;
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static size_t varint_bytes(uint8_t *tmp, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		tmp[n++] = (uint8_t)v | 0x80;
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	return n;
}

static void put_varint(struct buf *b, uint64_t v)
{
	uint8_t tmp[10];

	buf_put(b, tmp, varint_bytes(tmp, v));
}

/* zigzag: small changes of either sign stay short */
static void put_zz(struct buf *b, uint64_t delta)
{
	int64_t v = (int64_t)delta;

	put_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void put_section(struct buf *b, uint64_t tag, const struct buf *body)
{
	put_varint(b, tag);
	put_varint(b, body->len);
	buf_put(b, body->p, body->len);
}

static void put_u64_sec(struct buf *b, uint64_t tag, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = varint_bytes(tmp, v);

	put_varint(b, tag);
	put_varint(b, n);
	buf_put(b, tmp, n);
}

static void put_zz_sec(struct buf *b, uint64_t tag, int64_t v)
{
	put_u64_sec(b, tag, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void put_str_sec(struct buf *b, uint64_t tag, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	put_varint(b, tag);
	put_varint(b, n);
	buf_put(b, s, n);
}

/* ---- writer ---- */

struct dev_name {
	uint32_t dev;
	char name[32];
};

/*
 * Keyframes compress well and are rare: dynamic Huffman codes. A busy
 * delta barely compresses at all (counts of events are noise), and
 * inflating dynamic codes would then dominate reading a long recording:
 * deltas use the fixed codes, or are stored when that is smaller.
 */
enum zmode { Z_DYN, Z_FIX, Z_STORE, NR_ZMODES };

struct recwriter {
	int fd;
	int err;		/* first error, negative errno */
	char *dir;		/* to fsync the new directory entry */
	uint64_t bytes, frames, snaps;
	unsigned int key_every;
	uint64_t last_sync_ns;
	bool have_prev;
	struct snapshot prev;
	struct buf pay, sec, sub, out;
	z_stream zs[NR_ZMODES];	/* reset per frame, not reallocated */
	bool zs_init[NR_ZMODES];
	uint32_t nr_names;
	struct dev_name names[MAX_SNAP_DEVS];
	struct buf args;	/* the command's argv, NUL-separated */
	unsigned int nr_args;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int recwriter_open_fd(int fd, struct recwriter **out)
{
	struct recwriter *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->key_every = REC_KEYFRAME_EVERY;
	*out = w;
	return 0;
}

int recwriter_open(const char *path, struct recwriter **out)
{
	char *copy;
	int fd, err;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	err = recwriter_open_fd(fd, out);
	if (err) {
		close(fd);
		return err;
	}
	copy = strdup(path);
	if (copy) {
		(*out)->dir = strdup(dirname(copy));
		free(copy);
	}
	return 0;
}

void recwriter_command(struct recwriter *w, char *const *argv)
{
	w->args.len = 0;
	w->nr_args = 0;
	for (; argv && *argv && w->nr_args < REC_MAX_ARGS; argv++) {
		if (w->args.len + strlen(*argv) + 1 > MAX_ARGV_TEXT)
			break;
		buf_put(&w->args, *argv, strlen(*argv) + 1);
		w->nr_args++;
	}
}

void recwriter_set_keyframe_every(struct recwriter *w, unsigned int n)
{
	w->key_every = n ? n : 1;
}

uint64_t recwriter_bytes(const struct recwriter *w)
{
	return w->bytes;
}

uint64_t recwriter_frames(const struct recwriter *w)
{
	return w->snaps;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	ssize_t r;

	while (n) {
		r = write(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		p += r;
		n -= r;
	}
	return 0;
}

static int note_err(struct recwriter *w, int err)
{
	if (err && !w->err)
		w->err = err;
	return err;
}

static int zcompress(struct recwriter *w, enum zmode m, const struct buf *in,
		     uint8_t *out, uLongf *len)
{
	static const int level[NR_ZMODES] = { 6, 6, 0 };
	static const int strategy[NR_ZMODES] = { Z_DEFAULT_STRATEGY, Z_FIXED,
						 Z_DEFAULT_STRATEGY };
	z_stream *zs = &w->zs[m];

	if (!w->zs_init[m] && deflateInit2(zs, level[m], Z_DEFLATED, 15, 8,
					   strategy[m]) != Z_OK)
		return -ENOMEM;
	w->zs_init[m] = true;
	deflateReset(zs);
	zs->next_in = in->p;
	zs->avail_in = in->len;
	zs->next_out = out;
	zs->avail_out = *len;
	if (deflate(zs, Z_FINISH) != Z_STREAM_END)
		return -EINVAL;
	*len = zs->total_out;
	return 0;
}

/*
 * One frame, one write(2): a crash can tear only the frame being written,
 * and the reader finds every frame before it intact.
 */
static int write_frame(struct recwriter *w, uint8_t type, const struct buf *pay)
{
	uLongf zlen;
	uint32_t crc;
	int err;

	if (w->err)
		return w->err;
	if (pay->oom)
		return note_err(w, -ENOMEM);
	zlen = compressBound(pay->len);
	w->out.len = 0;
	if (!buf_reserve(&w->out, REC_FRAME_HDR + 2 * zlen))
		return note_err(w, -ENOMEM);
	if (type == REC_F_DELTA) {
		uint8_t *tmp = w->out.p + REC_FRAME_HDR + zlen;
		uLongf flen = zlen;

		err = zcompress(w, Z_FIX, pay, w->out.p + REC_FRAME_HDR, &flen);
		if (!err && flen > pay->len + 11 &&
		    !zcompress(w, Z_STORE, pay, tmp, &zlen))
			memcpy(w->out.p + REC_FRAME_HDR, tmp, zlen);
		else
			zlen = flen;
	} else {
		err = zcompress(w, Z_DYN, pay, w->out.p + REC_FRAME_HDR, &zlen);
	}
	if (err)
		return note_err(w, err);
	crc = crc32(0, &type, 1);
	crc = crc32(crc, w->out.p + REC_FRAME_HDR, zlen);
	put_le32(w->out.p, zlen);
	put_le32(w->out.p + 4, crc);
	w->out.p[8] = type;
	err = write_all(w->fd, w->out.p, REC_FRAME_HDR + zlen);
	if (err)
		return note_err(w, err);
	w->bytes += REC_FRAME_HDR + zlen;
	w->frames++;
	return 0;
}

static void enc_probe(struct buf *b, struct buf *sub, unsigned int id,
		      const struct probe_state *ps)
{
	sub->len = 0;
	put_u64_sec(sub, P_ID, id);
	put_str_sec(sub, P_NAME, probe_names[id], 64);
	put_u64_sec(sub, P_MODE, ps->mode);
	put_u64_sec(sub, P_ABSENT, ps->absent);
	put_str_sec(sub, P_FUNC, ps->func, sizeof(ps->func));
	put_str_sec(sub, P_DETAIL, ps->detail, sizeof(ps->detail));
	put_section(b, M_PROBE, sub);
}

static void enc_dev_names(struct recwriter *w, struct buf *b, uint64_t tag)
{
	uint32_t i;

	for (i = 0; i < w->nr_names; i++) {
		w->sub.len = 0;
		put_u64_sec(&w->sub, D_DEV, w->names[i].dev);
		put_str_sec(&w->sub, D_NAME, w->names[i].name,
			    sizeof(w->names[i].name));
		put_section(b, tag, &w->sub);
	}
}

static void enc_meta(struct recwriter *w, const struct run_info *in)
{
	struct buf *b = &w->pay;
	uint32_t i;

	b->len = 0;
	put_str_sec(b, M_VERSION, in->version, sizeof(in->version));
	put_str_sec(b, M_RELEASE, in->release, sizeof(in->release));
	put_zz_sec(b, M_BUFFER_HEAD, in->buffer_head);
	put_u64_sec(b, M_BTF, in->btf);
	put_str_sec(b, M_HOSTNAME, in->hostname, sizeof(in->hostname));
	put_u64_sec(b, M_START_NS, in->start_realtime_ns);
	put_u64_sec(b, M_INTERVAL_MS, in->interval_ms);
	for (i = 0; i < in->nr_filter_devs && i < MAX_FILTER_DEVS; i++)
		put_u64_sec(b, M_FILTER_DEV, in->filter_devs[i]);
	put_u64_sec(b, M_FILTER_PID, in->filter_pid);
	put_str_sec(b, M_CMDLINE, in->cmdline, sizeof(in->cmdline));
	for (size_t off = 0; off < w->args.len && !w->args.oom;) {
		const char *a = (const char *)w->args.p + off;

		put_str_sec(b, M_COMMAND_ARG, a, MAX_ARGV_TEXT);
		off += strlen(a) + 1;
	}
	for (i = 0; i < NR_PROBES; i++)
		enc_probe(b, &w->sub, i, &in->probes[i]);
	w->sub.len = 0;
	put_varint(&w->sub, HIST_SUB_BITS);
	put_varint(&w->sub, HIST_MAX_MSB);
	put_varint(&w->sub, HIST_BUCKETS);
	put_section(b, M_HIST_LAYOUT, &w->sub);
	put_u64_sec(b, M_DEV_SLOTS, DEV_SIZE_SLOTS);
	enc_dev_names(w, b, M_DEV_NAME);
}

/* Makes the file's directory entry durable, so a power loss right after
 * the start does not lose the file itself. */
static void sync_dir(const char *dir)
{
	int fd;

	if (!dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	fsync(fd);
	close(fd);
}

int recwriter_begin(struct recwriter *w, const struct run_info *info)
{
	uint8_t hdr[REC_HEADER_LEN];
	int err;

	memcpy(hdr, REC_MAGIC, REC_MAGIC_LEN);
	hdr[8] = REC_MAJOR;
	hdr[9] = REC_MAJOR >> 8;
	hdr[10] = REC_MINOR;
	hdr[11] = REC_MINOR >> 8;
	err = write_all(w->fd, hdr, sizeof(hdr));
	if (err)
		return note_err(w, err);
	w->bytes += sizeof(hdr);
	enc_meta(w, info);
	err = write_frame(w, REC_F_META, &w->pay);
	if (err)
		return err;
	if (fdatasync(w->fd) < 0 && errno != EINVAL && errno != EROFS)
		return note_err(w, -errno);
	sync_dir(w->dir);
	w->last_sync_ns = mono_ns();
	return 0;
}

void recwriter_dev_name(struct recwriter *w, uint32_t dev, const char *name)
{
	struct dev_name *n;
	uint32_t i;

	for (i = 0; i < w->nr_names; i++)
		if (w->names[i].dev == dev)
			break;
	if (i == MAX_SNAP_DEVS)
		return;
	n = &w->names[i];
	n->dev = dev;
	snprintf(n->name, sizeof(n->name), "%s", name);
	if (i == w->nr_names)
		w->nr_names++;
}

/*
 * Sparse entries of n counters: those that differ from base (keyframes:
 * base is NULL, those that are non-zero). *next is the index after the
 * last entry written, so gaps stay small across calls.
 */
static void enc_sparse(struct buf *b, const uint64_t *cur, const uint64_t *base,
		       size_t n, uint64_t idx0, uint64_t *next)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t old = base ? base[i] : 0;

		if (cur[i] == old)
			continue;
		put_varint(b, idx0 + i - *next);
		if (base)
			put_zz(b, cur[i] - old);
		else
			put_varint(b, cur[i]);
		*next = idx0 + i + 1;
	}
}

static size_t count_diff(const uint64_t *cur, const uint64_t *base, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += cur[i] != (base ? base[i] : 0);
	return c;
}

static const struct dev_row *find_row(const struct snapshot *s, uint32_t dev,
				      uint32_t path)
{
	uint32_t i;

	for (i = 0; i < s->nr_devs && i < MAX_SNAP_DEVS; i++)
		if (s->devs[i].dev == dev && s->devs[i].path == path)
			return &s->devs[i];
	return NULL;
}

static void enc_row(struct buf *b, uint32_t dev, uint32_t path,
		    uint64_t flags, const uint64_t *cur, const uint64_t *base)
{
	uint64_t next = 0;

	put_varint(b, dev);
	put_varint(b, path);
	put_varint(b, flags);
	if (!cur) {
		put_varint(b, 0);
		return;
	}
	put_varint(b, count_diff(cur, base, NR_DEV_FIELDS));
	enc_sparse(b, cur, base, NR_DEV_FIELDS, 0, &next);
}

/*
 * A new row in a delta frame is written even when all zero: the set of
 * rows is state too. Rows that went away are written as removed.
 */
static void enc_devs(struct buf *b, const struct snapshot *s,
		     const struct snapshot *p)
{
	static const struct bhp_dev_stats zero_dev;
	const struct dev_row *r, *o;
	uint32_t i, n = s->nr_devs < MAX_SNAP_DEVS ? s->nr_devs : MAX_SNAP_DEVS;

	for (i = 0; i < n; i++) {
		const uint64_t *base = NULL;

		r = &s->devs[i];
		o = p ? find_row(p, r->dev, r->path) : NULL;
		if (o) {
			base = (const uint64_t *)&o->s;
			if (!count_diff((const uint64_t *)&r->s, base,
					NR_DEV_FIELDS))
				continue;
		}
		if (p && !o)
			base = (const uint64_t *)&zero_dev;
		enc_row(b, r->dev, r->path, 0, (const uint64_t *)&r->s, base);
	}
	if (!p)
		return;
	n = p->nr_devs < MAX_SNAP_DEVS ? p->nr_devs : MAX_SNAP_DEVS;
	for (i = 0; i < n; i++) {
		o = &p->devs[i];
		if (!find_row(s, o->dev, o->path))
			enc_row(b, o->dev, o->path, DEV_F_REMOVED, NULL, NULL);
	}
}

static void enc_snapshot(struct recwriter *w, const struct snapshot *s,
			 const struct snapshot *p)
{
	struct buf *b = &w->pay, *sec = &w->sec;
	uint64_t next;
	unsigned int i;

	b->len = 0;
	put_u64_sec(b, S_TS, s->ts_ns);

	sec->len = 0;
	next = 0;
	for (i = 0; i < NR_PATHS; i++)
		enc_sparse(sec, (const uint64_t *)&s->paths[i],
			   p ? (const uint64_t *)&p->paths[i] : NULL,
			   NR_PATH_FIELDS, i * PATH_STRIDE, &next);
	if (sec->len)
		put_section(b, S_PATHS, sec);

	sec->len = 0;
	next = 0;
	enc_sparse(sec, (const uint64_t *)&s->glob,
		   p ? (const uint64_t *)&p->glob : NULL, NR_GLOB_FIELDS, 0,
		   &next);
	if (sec->len)
		put_section(b, S_GLOB, sec);

	sec->len = 0;
	next = 0;
	for (i = 0; i < NR_HISTS; i++)
		enc_sparse(sec, s->hists[i].b, p ? p->hists[i].b : NULL,
			   HIST_BUCKETS, (uint64_t)i * HIST_STRIDE, &next);
	if (sec->len)
		put_section(b, S_HISTS, sec);

	sec->len = 0;
	enc_devs(sec, s, p);
	if (sec->len)
		put_section(b, S_DEVS, sec);
}

/* At most one interval of data is ever only in the page cache, and no
 * more than one sync a second however short the interval. */
static void maybe_sync(struct recwriter *w)
{
	uint64_t now = mono_ns();

	if (now - w->last_sync_ns < 1000000000ull)
		return;
	if (fdatasync(w->fd) < 0 && errno != EINVAL && errno != EROFS)
		note_err(w, -errno);
	w->last_sync_ns = now;
}

int recwriter_append(struct recwriter *w, const struct snapshot *s)
{
	bool key = !w->have_prev || w->snaps % w->key_every == 0;
	int err;

	enc_snapshot(w, s, key ? NULL : &w->prev);
	err = write_frame(w, key ? REC_F_KEY : REC_F_DELTA, &w->pay);
	if (err)
		return err;
	w->snaps++;
	memcpy(&w->prev, s, sizeof(*s));
	w->have_prev = true;
	maybe_sync(w);
	return w->err;
}

int recwriter_end(struct recwriter *w, const struct rec_end *e)
{
	struct buf *b = &w->pay;
	int err;

	b->len = 0;
	put_u64_sec(b, E_REASON, e->reason);
	if (e->reason == REC_STOP_SIGNAL)
		put_u64_sec(b, E_SIGNAL, e->signal);
	if (e->has_exit)
		put_zz_sec(b, E_EXIT, e->exit_status);
	put_u64_sec(b, E_ELAPSED_NS, e->elapsed_ns);
	put_u64_sec(b, E_FRAMES, w->snaps);
	enc_dev_names(w, b, E_DEV_NAME);
	err = write_frame(w, REC_F_END, b);
	if (err)
		return err;
	if (fsync(w->fd) < 0 && errno != EINVAL && errno != EROFS)
		return note_err(w, -errno);
	return 0;
}

int recwriter_close(struct recwriter *w)
{
	int err;

	if (!w)
		return 0;
	if (!w->err && fsync(w->fd) < 0 && errno != EINVAL && errno != EROFS)
		note_err(w, -errno);
	if (close(w->fd) < 0)
		note_err(w, -errno);
	err = w->err;
	free(w->pay.p);
	free(w->sec.p);
	free(w->sub.p);
	free(w->out.p);
	free(w->args.p);
	free(w->dir);
	for (int m = 0; m < NR_ZMODES; m++)
		if (w->zs_init[m])
			deflateEnd(&w->zs[m]);
	free(w);
	return err;
}

/* ---- reader ---- */

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
	struct bhp_path_stats prev_paths[NR_PATHS];
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
	char args[MAX_ARGV_TEXT];
	unsigned int nr_args, args_len;
	uint16_t arg_off[REC_MAX_ARGS];

	unsigned int nr_warn;
	uint64_t warn_dropped;
	char warn[REC_MAX_WARN][REC_WARN_LEN];
};

__attribute__((format(printf, 2, 3)))
static void warnf(struct recfile *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nr_warn >= REC_MAX_WARN - 1) {
		r->warn_dropped++;
		snprintf(r->warn[REC_MAX_WARN - 1], REC_WARN_LEN,
			 "%llu more warnings not shown",
			 (unsigned long long)r->warn_dropped);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(r->warn[r->nr_warn++], REC_WARN_LEN, fmt, ap);
	va_end(ap);
}

unsigned int recfile_nr_warnings(const struct recfile *r)
{
	return r->nr_warn + (r->warn_dropped ? 1 : 0);
}

const char *recfile_warning(const struct recfile *r, unsigned int i)
{
	if (i < r->nr_warn)
		return r->warn[i];
	if (r->warn_dropped && i == r->nr_warn)
		return r->warn[REC_MAX_WARN - 1];
	return NULL;
}

const struct run_info *recfile_info(const struct recfile *r)
{
	return &r->info;
}

const struct rec_end *recfile_end(const struct recfile *r)
{
	return &r->end;
}

const struct rec_stats *recfile_stats(const struct recfile *r)
{
	return &r->stats;
}

void recfile_version(const struct recfile *r, unsigned int *major,
		     unsigned int *minor)
{
	*major = r->major;
	*minor = r->minor;
}

unsigned int recfile_nr_args(const struct recfile *r)
{
	return r->nr_args;
}

const char *recfile_arg(const struct recfile *r, unsigned int i)
{
	return i < r->nr_args ? r->args + r->arg_off[i] : NULL;
}

const char *recfile_dev_name(const struct recfile *r, uint32_t dev)
{
	uint32_t i;

	for (i = 0; i < r->nr_names; i++)
		if (r->names[i].dev == dev && r->names[i].name[0])
			return r->names[i].name;
	return NULL;
}

/* A cursor over untrusted bytes: reads past the end set bad, never fault. */
struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_varint(struct rd *c)
{
	uint64_t v = 0;
	unsigned int shift;
	uint8_t b;

	for (shift = 0; shift < 70; shift += 7) {
		if (c->p >= c->end) {
			c->bad = true;
			return 0;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static uint64_t unzz(uint64_t u)
{
	return (u >> 1) ^ (0 - (u & 1));
}

/* The next section of c; false at the end or when c is malformed. */
static bool rd_section(struct rd *c, uint64_t *tag, struct rd *body)
{
	uint64_t len;

	if (c->bad || c->p >= c->end)
		return false;
	*tag = rd_varint(c);
	len = rd_varint(c);
	if (c->bad || len > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return false;
	}
	body->p = c->p;
	body->end = c->p + len;
	body->bad = false;
	c->p += len;
	return true;
}

static void rd_str(const struct rd *c, char *dst, size_t size)
{
	size_t n = c->end - c->p;

	if (n >= size)
		n = size - 1;
	memcpy(dst, c->p, n);
	dst[n] = 0;
	/* Keep control bytes out of terminals and HTML attributes. */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f)
			dst[i] = '?';
}

static void dec_probe(struct rd *c, struct probe_state *probes)
{
	struct probe_state ps = { 0 };
	uint64_t tag, id = UINT64_MAX, v;
	struct rd b;

	while (rd_section(c, &tag, &b)) {
		switch (tag) {
		case P_ID:
			id = rd_varint(&b);
			break;
		case P_MODE:
			v = rd_varint(&b);
			ps.mode = v <= MODE_TRACEPOINT ? (enum attach_mode)v
						       : MODE_NONE;
			break;
		case P_ABSENT:
			ps.absent = rd_varint(&b) != 0;
			break;
		case P_FUNC:
			rd_str(&b, ps.func, sizeof(ps.func));
			break;
		case P_DETAIL:
			rd_str(&b, ps.detail, sizeof(ps.detail));
			break;
		}
	}
	if (id < NR_PROBES)
		probes[id] = ps;
}

static void dec_dev_name(struct recfile *r, struct rd *c)
{
	char name[32] = "";
	uint64_t tag, dev = UINT64_MAX;
	struct dev_name *n;
	struct rd b;
	uint32_t i;

	while (rd_section(c, &tag, &b)) {
		if (tag == D_DEV)
			dev = rd_varint(&b);
		else if (tag == D_NAME)
			rd_str(&b, name, sizeof(name));
	}
	if (dev > UINT32_MAX || !name[0])
		return;
	for (i = 0; i < r->nr_names; i++)
		if (r->names[i].dev == dev)
			break;
	if (i == MAX_SNAP_DEVS)
		return;
	n = &r->names[i];
	n->dev = dev;
	memcpy(n->name, name, sizeof(name));
	if (i == r->nr_names)
		r->nr_names++;
}

static void dec_arg(struct recfile *r, const struct rd *c)
{
	size_t room = sizeof(r->args) - r->args_len;

	if (r->nr_args >= REC_MAX_ARGS || room < 2)
		return;
	rd_str(c, r->args + r->args_len, room);
	r->arg_off[r->nr_args++] = r->args_len;
	r->args_len += strlen(r->args + r->args_len) + 1;
}

/* Everything but the bucket layout is optional: a field a future writer
 * leaves out reads as unknown. */
static int dec_meta(struct recfile *r, struct rd *c, char *err, size_t errlen)
{
	struct run_info *in = &r->info;
	uint64_t tag, a, b2, n;
	struct rd b;

	memset(in, 0, sizeof(*in));
	in->buffer_head = -1;
	while (rd_section(c, &tag, &b)) {
		switch (tag) {
		case M_VERSION:
			rd_str(&b, in->version, sizeof(in->version));
			break;
		case M_RELEASE:
			rd_str(&b, in->release, sizeof(in->release));
			break;
		case M_BUFFER_HEAD:
			a = unzz(rd_varint(&b));
			in->buffer_head = (int64_t)a > 0 ? 1 : (int64_t)a;
			if (in->buffer_head < -1)
				in->buffer_head = -1;
			break;
		case M_BTF:
			in->btf = rd_varint(&b) != 0;
			break;
		case M_HOSTNAME:
			rd_str(&b, in->hostname, sizeof(in->hostname));
			break;
		case M_START_NS:
			in->start_realtime_ns = rd_varint(&b);
			break;
		case M_INTERVAL_MS:
			in->interval_ms = rd_varint(&b);
			break;
		case M_FILTER_DEV:
			a = rd_varint(&b);
			if (in->nr_filter_devs < MAX_FILTER_DEVS &&
			    a <= UINT32_MAX)
				in->filter_devs[in->nr_filter_devs++] = a;
			break;
		case M_FILTER_PID:
			a = rd_varint(&b);
			in->filter_pid = a <= UINT32_MAX ? a : 0;
			break;
		case M_CMDLINE:
			rd_str(&b, in->cmdline, sizeof(in->cmdline));
			break;
		case M_PROBE:
			dec_probe(&b, in->probes);
			break;
		case M_HIST_LAYOUT:
			a = rd_varint(&b);
			b2 = rd_varint(&b);
			n = rd_varint(&b);
			if (b.bad || a != HIST_SUB_BITS ||
			    b2 != HIST_MAX_MSB || n != HIST_BUCKETS) {
				snprintf(err, errlen,
					 "histogram layout %llu/%llu/%llu is not this bhprof's %u/%u/%u",
					 (unsigned long long)a,
					 (unsigned long long)b2,
					 (unsigned long long)n, HIST_SUB_BITS,
					 HIST_MAX_MSB, HIST_BUCKETS);
				return -1;
			}
			break;
		case M_DEV_SLOTS:
			if (rd_varint(&b) != DEV_SIZE_SLOTS) {
				snprintf(err, errlen,
					 "device size buckets differ from this bhprof's %u",
					 DEV_SIZE_SLOTS);
				return -1;
			}
			break;
		case M_DEV_NAME:
			dec_dev_name(r, &b);
			break;
		case M_COMMAND_ARG:
			dec_arg(r, &b);
			break;
		}
	}
	if (c->bad) {
		snprintf(err, errlen, "malformed metadata frame");
		return -1;
	}
	return 0;
}

static void dec_end(struct recfile *r, struct rd *c)
{
	struct rec_end *e = &r->end;
	uint64_t tag, v;
	struct rd b;

	memset(e, 0, sizeof(*e));
	e->present = true;
	while (rd_section(c, &tag, &b)) {
		switch (tag) {
		case E_REASON:
			v = rd_varint(&b);
			e->reason = v <= REC_STOP_ERROR ? (enum rec_stop)v
							: REC_STOP_UNKNOWN;
			break;
		case E_SIGNAL:
			v = rd_varint(&b);
			e->signal = v < 128 ? (int)v : 0;
			break;
		case E_EXIT:
			v = unzz(rd_varint(&b));
			e->has_exit = !b.bad && (int64_t)v >= -1024 &&
				      (int64_t)v <= 1024;
			e->exit_status = e->has_exit ? (int)(int64_t)v : 0;
			break;
		case E_ELAPSED_NS:
			e->elapsed_ns = rd_varint(&b);
			break;
		case E_FRAMES:
			e->frames = rd_varint(&b);
			break;
		case E_DEV_NAME:
			dec_dev_name(r, &b);
			break;
		}
	}
}

/* ---- snapshot payloads ---- */

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

static bool rd_entry(struct rd *c, bool key, uint64_t *next, uint64_t *idx,
		     uint64_t *val)
{
	uint64_t gap = rd_varint(c), v = rd_varint(c);

	if (c->bad || gap > UINT64_MAX - *next - 1) {
		c->bad = true;
		return false;
	}
	*idx = *next + gap;
	*next = *idx + 1;
	*val = key ? v : unzz(v);
	return true;
}

static void dec_paths(struct dec *d, struct rd *c)
{
	uint64_t next = 0, idx, v, path, f;

	while (c->p < c->end && rd_entry(c, d->key, &next, &idx, &v)) {
		path = idx / PATH_STRIDE;
		f = idx % PATH_STRIDE;
		if (!d->apply || path >= NR_PATHS || f >= NR_PATH_FIELDS)
			continue;
		((uint64_t *)&d->dst->paths[path])[f] += v;
	}
}

static void dec_glob(struct dec *d, struct rd *c)
{
	uint64_t next = 0, idx, v;

	while (c->p < c->end && rd_entry(c, d->key, &next, &idx, &v))
		if (d->apply && idx < NR_GLOB_FIELDS)
			((uint64_t *)&d->dst->glob)[idx] += v;
}

static void mark_dirty(struct recfile *r, unsigned int h, unsigned int b)
{
	if (r->dhi[h] < r->dlo[h]) {
		r->dlo[h] = r->dhi[h] = b;
		return;
	}
	if (b < r->dlo[h])
		r->dlo[h] = b;
	if (b > r->dhi[h])
		r->dhi[h] = b;
}

static void dec_hists(struct dec *d, struct rd *c)
{
	uint64_t next = 0, idx, v, h, b;

	while (c->p < c->end && rd_entry(c, d->key, &next, &idx, &v)) {
		h = idx / HIST_STRIDE;
		b = idx % HIST_STRIDE;
		if (!d->apply || h >= NR_HISTS || b >= HIST_BUCKETS)
			continue;
		d->dst->hists[h].b[b] += v;
		if (d->step) {
			d->r->step->hists[h].b[b] += v;
			mark_dirty(d->r, h, b);
		}
	}
}

static struct dev_row *row_get(struct snapshot *s, uint64_t dev, uint64_t path,
			       bool create)
{
	uint32_t i;

	for (i = 0; i < s->nr_devs; i++)
		if (s->devs[i].dev == dev && s->devs[i].path == path)
			return &s->devs[i];
	if (!create || s->nr_devs >= MAX_SNAP_DEVS)
		return NULL;
	memset(&s->devs[i], 0, sizeof(s->devs[i]));
	s->devs[i].dev = dev;
	s->devs[i].path = path;
	s->nr_devs++;
	return &s->devs[i];
}

static void row_remove(struct snapshot *s, struct dev_row *row)
{
	size_t i = row - s->devs;

	memmove(row, row + 1, (s->nr_devs - i - 1) * sizeof(*row));
	s->nr_devs--;
}

static void dec_row(struct dec *d, struct rd *c)
{
	uint64_t dev = rd_varint(c), path = rd_varint(c), flags = rd_varint(c);
	uint64_t n = rd_varint(c), next = 0, idx, v;
	struct dev_row *row = NULL;
	bool ok = dev <= UINT32_MAX && path <= PATH_NONE;

	if (c->bad)
		return;
	if (d->apply && ok && (flags & DEV_F_REMOVED)) {
		row = row_get(d->dst, dev, path, false);
		if (row)
			row_remove(d->dst, row);
		row = NULL;
	} else if (d->apply && ok) {
		row = row_get(d->dst, dev, path, true);
	}
	for (; n && rd_entry(c, d->key, &next, &idx, &v); n--)
		if (row && idx < NR_DEV_FIELDS)
			((uint64_t *)&row->s)[idx] += v;
}

static void dec_devs(struct dec *d, struct rd *c)
{
	while (!c->bad && c->p < c->end)
		dec_row(d, c);
}

static bool dec_snapshot(struct dec *d, const uint8_t *p, size_t n,
			 const char **why)
{
	struct rd c = { p, p + n, false }, b;
	bool have_ts = false;
	uint64_t tag, ts = 0;

	while (rd_section(&c, &tag, &b)) {
		switch (tag) {
		case S_TS:
			ts = rd_varint(&b);
			have_ts = !b.bad;
			break;
		case S_PATHS:
			dec_paths(d, &b);
			break;
		case S_GLOB:
			dec_glob(d, &b);
			break;
		case S_HISTS:
			dec_hists(d, &b);
			break;
		case S_DEVS:
			dec_devs(d, &b);
			break;
		}
		if (b.bad) {
			*why = "malformed section";
			return false;
		}
	}
	if (c.bad) {
		*why = "malformed payload";
		return false;
	}
	if (!have_ts) {
		*why = "no timestamp";
		return false;
	}
	if (ts < d->r->prev_ts) {
		*why = "timestamp goes backwards";
		return false;
	}
	if (d->apply)
		d->dst->ts_ns = ts;
	return true;
}

/* ---- opening: read, check the header, index every valid frame ---- */

static int read_fd(int fd, struct recfile *r, char *err, size_t errlen)
{
	struct stat st;
	struct buf b = { 0 };
	ssize_t n;

	if (fstat(fd, &st) < 0)
		goto fail_errno;
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s", strerror(EISDIR));
		return -1;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > REC_MAX_FILE)
		goto too_big;
	for (;;) {
		if (!buf_reserve(&b, 65536)) {
			free(b.p);
			snprintf(err, errlen, "%s", strerror(ENOMEM));
			return -1;
		}
		n = read(fd, b.p + b.len, b.cap - b.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(b.p);
			goto fail_errno;
		}
		if (n == 0)
			break;
		b.len += n;
		/* /dev/zero is not a recording: say so now, not at 2 GiB */
		if (b.len >= REC_MAGIC_LEN && memcmp(b.p, REC_MAGIC, REC_MAGIC_LEN))
			break;
		if (b.len > REC_MAX_FILE) {
			free(b.p);
			goto too_big;
		}
	}
	r->data = b.p;
	r->size = b.len;
	return 0;
fail_errno:
	snprintf(err, errlen, "%s", strerror(errno));
	return -1;
too_big:
	snprintf(err, errlen, "larger than %llu GiB, not a recording",
		 REC_MAX_FILE >> 30);
	return -1;
}

static int check_header(struct recfile *r, char *err, size_t errlen)
{
	size_t n = r->size < REC_MAGIC_LEN ? r->size : REC_MAGIC_LEN;

	if (!r->size) {
		snprintf(err, errlen, "empty file, not a bhprof recording");
		return -1;
	}
	if (memcmp(r->data, REC_MAGIC, n)) {
		snprintf(err, errlen, "not a bhprof recording (bad magic)");
		return -1;
	}
	if (r->size < REC_HEADER_LEN) {
		snprintf(err, errlen,
			 "truncated header (%zu of %u bytes): the recording was cut off before it began",
			 r->size, REC_HEADER_LEN);
		return -1;
	}
	r->major = get_le16(r->data + 8);
	r->minor = get_le16(r->data + 10);
	if (r->major > REC_MAJOR) {
		snprintf(err, errlen,
			 "format version %u.%u is newer than this bhprof reads (%u.x): upgrade bhprof",
			 r->major, r->minor, REC_MAJOR);
		return -1;
	}
	if (r->major < 1) {
		snprintf(err, errlen, "unknown format version %u.%u",
			 r->major, r->minor);
		return -1;
	}
	return 0;
}

enum fv { FV_OK, FV_SHORT, FV_EOF, FV_BAD };

static bool zlib_header_ok(const uint8_t *p)
{
	return (p[0] & 0x0f) == 8 && (p[0] >> 4) <= 7 &&
	       ((p[0] << 8) | p[1]) % 31 == 0 && !(p[1] & 0x20);
}

/* Is there a whole, intact frame at off? */
static enum fv frame_at(struct recfile *r, uint64_t off, uint32_t *len,
			uint8_t *type, bool scanning)
{
	const uint8_t *p = r->data + off;
	uint64_t left = r->size - off;
	uint32_t n, crc;

	if (left < REC_FRAME_HDR)
		return FV_SHORT;
	n = get_le32(p);
	if (n < 2 || n > REC_MAX_FRAME)
		return FV_BAD;
	if (n > left - REC_FRAME_HDR)
		return FV_EOF;
	if (!zlib_header_ok(p + REC_FRAME_HDR))
		return FV_BAD;
	if (scanning) {
		/* Hostile input must not make the scan quadratic. */
		if (r->scan_budget < n)
			return FV_BAD;
		r->scan_budget -= n;
	}
	crc = crc32(0, p + 8, 1);
	crc = crc32(crc, p + REC_FRAME_HDR, n);
	if (crc != get_le32(p + 4))
		return FV_BAD;
	*len = n;
	*type = p[8];
	return FV_OK;
}

/* The next offset after a bad one where an intact frame starts. */
static int64_t resync(struct recfile *r, uint64_t from)
{
	uint32_t len;
	uint8_t type;
	uint64_t off;

	for (off = from; off + REC_FRAME_HDR + 2 <= r->size; off++) {
		if (!r->scan_budget)
			return -1;
		if (frame_at(r, off, &len, &type, true) == FV_OK)
			return off;
	}
	return -1;
}

static int push_index(struct recfile *r, uint64_t off, uint32_t len,
		      uint8_t type, bool gap)
{
	struct rec_index *e;

	if (r->nr_idx == r->cap_idx) {
		size_t cap = r->cap_idx ? r->cap_idx * 2 : 256;

		e = realloc(r->idx, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		r->idx = e;
		r->cap_idx = cap;
	}
	e = &r->idx[r->nr_idx++];
	e->off = off;
	e->len = len;
	e->type = type;
	e->gap = gap;
	e->warned = false;
	return 0;
}

/* One inflate stream, reset per frame: allocating zlib's window for
 * every frame of a day-long recording costs more than decoding it. */
static int inflate_once(struct recfile *r, const struct rec_index *e)
{
	if (!r->zs_init) {
		if (inflateInit(&r->zs) != Z_OK)
			return Z_MEM_ERROR;
		r->zs_init = true;
	} else {
		inflateReset(&r->zs);
	}
	r->zs.next_in = r->data + e->off + REC_FRAME_HDR;
	r->zs.avail_in = e->len;
	r->zs.next_out = r->z.p;
	r->zs.avail_out = r->z.cap;
	return inflate(&r->zs, Z_FINISH);
}

static int inflate_frame(struct recfile *r, const struct rec_index *e,
			 struct rd *out)
{
	size_t cap = r->z.cap ? r->z.cap : 65536;
	int rc;

	for (;;) {
		if (!buf_reserve(&r->z, cap))
			return -1;
		rc = inflate_once(r, e);
		if (rc == Z_STREAM_END)
			break;
		/* out of room, not of input: try a bigger buffer */
		if (rc != Z_BUF_ERROR || r->zs.avail_out ||
		    r->z.cap >= REC_MAX_PAYLOAD)
			return -1;
		cap = r->z.cap * 2;
	}
	out->p = r->z.p;
	out->end = r->z.p + r->zs.total_out;
	out->bad = false;
	return 0;
}

static void tail_warning(struct recfile *r, uint64_t off, enum fv why)
{
	uint64_t n = r->size - off;

	r->stats.torn = true;
	r->stats.torn_bytes = n;
	if (why == FV_SHORT || why == FV_EOF)
		warnf(r, "torn tail: dropped the last %llu bytes at offset %llu, an incomplete frame (the recording was cut off); every frame before it is intact",
		      (unsigned long long)n, (unsigned long long)off);
	else if (!r->scan_budget)
		warnf(r, "gave up looking for intact frames after offset %llu: dropped the last %llu bytes",
		      (unsigned long long)off, (unsigned long long)n);
	else
		warnf(r, "corrupt data at offset %llu (no intact frame after it): dropped the last %llu bytes",
		      (unsigned long long)off, (unsigned long long)n);
}

/* Counts the deltas from index i that have no keyframe to apply to. */
static uint64_t orphans_from(const struct recfile *r, size_t i)
{
	uint64_t n = 0;

	for (; i < r->nr_idx; i++) {
		if (r->idx[i].type == REC_F_KEY)
			break;
		n += r->idx[i].type == REC_F_DELTA;
	}
	return n;
}

static void region_warnings(struct recfile *r, size_t first_snap)
{
	uint64_t n;
	size_t i;

	n = orphans_from(r, first_snap);
	if (n) {
		r->stats.lost_intervals += n;
		warnf(r, "%llu intervals before the first keyframe cannot be rebuilt",
		      (unsigned long long)n);
	}
	for (i = first_snap; i < r->nr_idx; i++) {
		if (!r->idx[i].gap)
			continue;
		n = orphans_from(r, i);
		r->stats.lost_intervals += n;
		warnf(r, "corrupt data before offset %llu was skipped; %llu intervals lost until the next keyframe",
		      (unsigned long long)r->idx[i].off, (unsigned long long)n);
	}
}

static int scan_frames(struct recfile *r, char *err, size_t errlen)
{
	uint64_t off = REC_HEADER_LEN;
	bool gap = false;
	uint32_t len;
	uint8_t type;
	enum fv why;
	int64_t next;

	while (off < r->size) {
		why = frame_at(r, off, &len, &type, false);
		if (why == FV_OK) {
			if (push_index(r, off, len, type, gap)) {
				snprintf(err, errlen, "%s", strerror(ENOMEM));
				return -1;
			}
			gap = false;
			off += REC_FRAME_HDR + len;
			continue;
		}
		if (off == REC_HEADER_LEN)
			break;	/* no metadata: fatal, said by the caller */
		next = resync(r, off + 1);
		if (next < 0) {
			tail_warning(r, off, why);
			break;
		}
		warnf(r, "corrupt frame at offset %llu: skipped %llu bytes",
		      (unsigned long long)off,
		      (unsigned long long)(next - off));
		r->stats.bad_regions++;
		r->stats.bad_bytes += next - off;
		gap = true;
		off = next;
	}
	return 0;
}

static int load_meta(struct recfile *r, char *err, size_t errlen)
{
	struct rd c;

	if (!r->nr_idx || r->idx[0].off != REC_HEADER_LEN) {
		snprintf(err, errlen, r->size == REC_HEADER_LEN ||
			 frame_at(r, REC_HEADER_LEN, &(uint32_t){ 0 },
				  &(uint8_t){ 0 }, false) != FV_BAD ?
			 "no metadata: the recording was cut off before it began" :
			 "corrupt metadata frame at offset 12");
		return -1;
	}
	if (r->idx[0].type != REC_F_META) {
		snprintf(err, errlen, "first frame is not metadata (type %u)",
			 r->idx[0].type);
		return -1;
	}
	if (inflate_frame(r, &r->idx[0], &c)) {
		snprintf(err, errlen, "undecodable metadata frame");
		return -1;
	}
	return dec_meta(r, &c, err, errlen);
}

/* End frames and frame counts, known before any snapshot is decoded. */
static void summarize_index(struct recfile *r)
{
	size_t i, first_snap = r->nr_idx;
	struct rd c;

	for (i = 1; i < r->nr_idx; i++) {
		struct rec_index *e = &r->idx[i];

		r->stats.frames++;
		if (e->type == REC_F_KEY || e->type == REC_F_DELTA) {
			r->stats.snap_frames++;
			if (first_snap == r->nr_idx)
				first_snap = i;
		} else if (e->type == REC_F_END) {
			if (!inflate_frame(r, e, &c))
				dec_end(r, &c);
			else
				warnf(r, "undecodable end-of-run frame at offset %llu",
				      (unsigned long long)e->off);
		} else if (e->type != REC_F_META) {
			r->stats.unknown_frames++;
		}
	}
	r->stats.frames++;	/* the metadata */
	region_warnings(r, first_snap);
	if (!r->end.present)
		warnf(r, "no end-of-run frame: the recording did not finish (killed, or still being written)");
}

static int alloc_state(struct recfile *r)
{
	r->state = calloc(1, sizeof(*r->state));
	r->spare = calloc(1, sizeof(*r->spare));
	r->step = calloc(1, sizeof(*r->step));
	return r->state && r->spare && r->step ? 0 : -ENOMEM;
}

static int open_common(struct recfile *r, char *err, size_t errlen)
{
	r->stats.file_bytes = r->size;
	r->scan_budget = 4 * (uint64_t)r->size + (1u << 20);
	if (check_header(r, err, errlen))
		return -1;
	if (scan_frames(r, err, errlen) || load_meta(r, err, errlen))
		return -1;
	if (alloc_state(r)) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	summarize_index(r);
	recfile_rewind(r);
	return 0;
}

int recfile_open_mem(const void *buf, size_t len, struct recfile **out,
		     char *err, size_t errlen)
{
	struct recfile *r = calloc(1, sizeof(*r));

	if (!r || (len && !(r->data = malloc(len)))) {
		free(r);
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	if (len)
		memcpy(r->data, buf, len);
	r->size = len;
	if (open_common(r, err, errlen)) {
		recfile_close(r);
		return -1;
	}
	*out = r;
	return 0;
}

int recfile_open(const char *path, struct recfile **out, char *err,
		 size_t errlen)
{
	struct recfile *r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		close(fd);
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	if (read_fd(fd, r, err, errlen)) {
		close(fd);
		free(r);
		return -1;
	}
	close(fd);
	if (open_common(r, err, errlen)) {
		recfile_close(r);
		return -1;
	}
	*out = r;
	return 0;
}

void recfile_close(struct recfile *r)
{
	if (!r)
		return;
	free(r->data);
	free(r->idx);
	free(r->state);
	free(r->spare);
	free(r->step);
	free(r->z.p);
	if (r->zs_init)
		inflateEnd(&r->zs);
	free(r);
}

/* ---- iteration ---- */

void recfile_rewind(struct recfile *r)
{
	unsigned int h;

	r->pos = 0;
	r->chain = false;
	r->gap = false;
	memset(r->state, 0, sizeof(*r->state));
	memset(r->step, 0, sizeof(*r->step));
	memset(r->prev_paths, 0, sizeof(r->prev_paths));
	memset(&r->prev_glob, 0, sizeof(r->prev_glob));
	r->prev_ts = 0;
	r->prev_nr_devs = 0;
	for (h = 0; h < NR_HISTS; h++) {
		r->dlo[h] = 1;
		r->dhi[h] = 0;
	}
}

void recfile_seek_last_keyframe(struct recfile *r)
{
	size_t i;

	for (i = r->nr_idx; i > r->pos; i--) {
		if (r->idx[i - 1].type != REC_F_KEY)
			continue;
		if (i - 1 > r->pos) {
			r->pos = i - 1;
			r->chain = false;
			r->gap = true;
		}
		return;
	}
}

static void clear_step_hists(struct recfile *r)
{
	unsigned int h;

	for (h = 0; h < NR_HISTS; h++) {
		if (r->dhi[h] >= r->dlo[h])
			memset(&r->step->hists[h].b[r->dlo[h]], 0,
			       (r->dhi[h] - r->dlo[h] + 1) * sizeof(uint64_t));
		r->dlo[h] = 1;
		r->dhi[h] = 0;
	}
}

static bool apply_delta(struct recfile *r, const uint8_t *p, size_t n,
			const char **why)
{
	struct dec d = { r, r->state, false, false, false };

	if (!dec_snapshot(&d, p, n, why))
		return false;
	d.apply = true;
	d.step = true;
	clear_step_hists(r);
	return dec_snapshot(&d, p, n, why);
}

static bool apply_key(struct recfile *r, const uint8_t *p, size_t n,
		      const char **why)
{
	struct dec d = { r, r->spare, true, true, false };
	struct snapshot *t;
	unsigned int h, b;

	memset(r->spare, 0, sizeof(*r->spare));
	if (!dec_snapshot(&d, p, n, why))
		return false;
	clear_step_hists(r);
	for (h = 0; h < NR_HISTS; h++) {
		for (b = 0; b < HIST_BUCKETS; b++)
			r->step->hists[h].b[b] = r->spare->hists[h].b[b] -
						 r->state->hists[h].b[b];
		r->dlo[h] = 0;
		r->dhi[h] = HIST_BUCKETS - 1;
	}
	t = r->state;
	r->state = r->spare;
	r->spare = t;
	return true;
}

static void sub_u64s(uint64_t *out, const uint64_t *a, const uint64_t *b,
		     size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = a[i] - b[i];
}

/* Everything in step but the histograms, which the decode filled. */
static void finish_step(struct recfile *r)
{
	struct snapshot *s = r->state, *st = r->step;
	const struct dev_row *o;
	uint32_t i, j;

	st->ts_ns = s->ts_ns - r->prev_ts;
	sub_u64s((uint64_t *)st->paths, (const uint64_t *)s->paths,
		 (const uint64_t *)r->prev_paths, NR_PATHS * NR_PATH_FIELDS);
	sub_u64s((uint64_t *)&st->glob, (const uint64_t *)&s->glob,
		 (const uint64_t *)&r->prev_glob, NR_GLOB_FIELDS);
	st->nr_devs = s->nr_devs;
	for (i = 0; i < s->nr_devs; i++) {
		st->devs[i] = s->devs[i];
		for (j = 0, o = NULL; j < r->prev_nr_devs && !o; j++)
			if (r->prev_devs[j].dev == s->devs[i].dev &&
			    r->prev_devs[j].path == s->devs[i].path)
				o = &r->prev_devs[j];
		if (o)
			sub_u64s((uint64_t *)&st->devs[i].s,
				 (const uint64_t *)&s->devs[i].s,
				 (const uint64_t *)&o->s, NR_DEV_FIELDS);
	}
	r->prev_ts = s->ts_ns;
	memcpy(r->prev_paths, s->paths, sizeof(r->prev_paths));
	r->prev_glob = s->glob;
	r->prev_nr_devs = s->nr_devs;
	memcpy(r->prev_devs, s->devs, s->nr_devs * sizeof(s->devs[0]));
}

static void frame_failed(struct recfile *r, struct rec_index *e,
			 const char *why)
{
	r->chain = false;
	r->gap = true;
	if (e->warned)
		return;
	e->warned = true;
	r->stats.lost_intervals++;
	warnf(r, "frame at offset %llu cannot be decoded (%s); skipped until the next keyframe",
	      (unsigned long long)e->off, why);
}

int recfile_next(struct recfile *r, struct rec_frame *f)
{
	const char *why = NULL;
	struct rec_index *e;
	struct rd c;
	bool ok;

	while (r->pos < r->nr_idx) {
		e = &r->idx[r->pos++];
		if (e->gap) {
			r->chain = false;
			r->gap = true;
		}
		if (e->type != REC_F_KEY && e->type != REC_F_DELTA)
			continue;
		if (e->type == REC_F_DELTA && !r->chain) {
			r->gap = true;
			continue;
		}
		if (inflate_frame(r, e, &c)) {
			frame_failed(r, e, "bad zlib data");
			continue;
		}
		if (e->type == REC_F_KEY)
			ok = apply_key(r, c.p, c.end - c.p, &why);
		else
			ok = apply_delta(r, c.p, c.end - c.p, &why);
		if (!ok) {
			frame_failed(r, e, why);
			continue;
		}
		r->chain = true;
		finish_step(r);
		f->cum = r->state;
		f->step = r->step;
		memcpy(f->step_lo, r->dlo, sizeof(f->step_lo));
		memcpy(f->step_hi, r->dhi, sizeof(f->step_hi));
		f->after_gap = r->gap;
		f->offset = e->off;
		r->gap = false;
		return 1;
	}
	return 0;
}
