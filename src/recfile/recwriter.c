// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record file writer; docs/format.md is the specification.
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "model/callers.h"
#include "model/fsrows.h"
#include "util/outfile.h"
#include "recfile_fmt.h"

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
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

/* a string without a section of its own: its length, then its bytes */
static void put_str(struct buf *b, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	put_varint(b, n);
	buf_put(b, s, n);
}

/* ---- writer ---- */

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
	uint64_t bytes, frames, snaps;
	unsigned int key_every;
	uint64_t last_sync_ns;
	bool have_prev;
	struct snapshot prev;
	/* --callers: chains (by id, callers.h) and mounts written since the
	 * last keyframe, which writes them all again */
	uint8_t *chain_done;
	uint32_t chain_cap;
	unsigned int mounts_done;
	bool callers;			/* the run has them */
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

int recwriter_open(const char *path, unsigned int flags,
		   struct recwriter **out)
{
	int fd, err;

	fd = outfile_create(path, flags);
	if (fd < 0)
		return fd;
	err = recwriter_open_fd(fd, out);
	if (err) {
		close(fd);
		unlink(path);	/* ours, and empty */
		fprintf(stderr, "bhprof: %s: %s\n", path, strerror(-err));
	}
	return err;
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
	put_str_sec(sub, P_NAME, probe_name(id), 64);
	put_u64_sec(sub, P_MODE, ps->mode);
	put_u64_sec(sub, P_ABSENT, ps->absent);
	/* only when set: older readers skip the tag, and see mode none */
	if (ps->failed)
		put_u64_sec(sub, P_FAILED, 1);
	put_str_sec(sub, P_FUNC, ps->func, sizeof(ps->func));
	if (ps->module[0])
		put_str_sec(sub, P_MODULE, ps->module, sizeof(ps->module));
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
	/* bhprof always knows both; a test's writer may not, and leaves
	 * them out, as files before them did */
	if (in->machine[0])
		put_str_sec(b, M_MACHINE, in->machine, sizeof(in->machine));
	if (in->page_size)
		put_u64_sec(b, M_PAGE_SIZE, in->page_size);
	put_u64_sec(b, M_START_NS, in->start_realtime_ns);
	put_u64_sec(b, M_INTERVAL_MS, in->interval_ms);
	for (i = 0; i < in->nr_filter_devs && i < MAX_FILTER_DEVS; i++)
		put_u64_sec(b, M_FILTER_DEV, in->filter_devs[i]);
	put_u64_sec(b, M_FILTER_PID, in->filter_pid);
	put_str_sec(b, M_CMDLINE, in->cmdline, sizeof(in->cmdline));
	put_u64_sec(b, M_FEATURES, in->features);
	if (in->features & RUN_F_CALLERS) {
		put_u64_sec(b, M_BH_SIZE, in->bh_size);
		put_u64_sec(b, M_CALLERS_MODE, in->callers_mode);
		put_str_sec(b, M_CALLERS_DETAIL, in->callers_detail,
			    sizeof(in->callers_detail));
	}
	if (in->features & RUN_F_OTHER) {
		put_u64_sec(b, M_OTHER_MODE, in->other_mode);
		put_str_sec(b, M_OTHER_DETAIL, in->other_detail,
			    sizeof(in->other_detail));
	}
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

int recwriter_begin(struct recwriter *w, const struct run_info *info)
{
	uint8_t hdr[REC_HEADER_LEN];
	int err;

	memcpy(hdr, REC_MAGIC, REC_MAGIC_LEN);
	hdr[8] = REC_MAJOR;
	hdr[9] = REC_MAJOR >> 8;
	hdr[10] = REC_MINOR;
	hdr[11] = REC_MINOR >> 8;
	w->callers = info->features & RUN_F_CALLERS;
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

/* Filesystem rows whose counts moved, or all in a keyframe: name, path,
 * then sparse counters. Rows never go away. */
static void enc_fs(struct buf *b, const struct snapshot *s,
		   const struct snapshot *p)
{
	static const struct bhp_fs_stats zero_fs;
	const uint64_t *cur, *base;
	const struct fs_row *o;
	uint64_t next;

	for (uint32_t i = 0; i < s->nr_fs && i < MAX_SNAP_FS; i++) {
		o = p ? fs_row_find(p, s->fs[i].name, s->fs[i].path) : NULL;
		cur = (const uint64_t *)&s->fs[i].s;
		base = o ? (const uint64_t *)&o->s :
		       p ? (const uint64_t *)&zero_fs : NULL;
		if (o && !count_diff(cur, base, NR_FS_FIELDS))
			continue;
		put_str(b, s->fs[i].name, BHP_FS_NAME);
		put_varint(b, s->fs[i].path);
		put_varint(b, count_diff(cur, base, NR_FS_FIELDS));
		next = 0;
		enc_sparse(b, cur, base, NR_FS_FIELDS, 0, &next);
	}
}

/* a chain's text the first time a row names it (in every keyframe) */
static void enc_chain(struct recwriter *w, struct buf *b, uint32_t id)
{
	uint8_t *n;
	uint32_t cap;

	if (id == BHP_STACK_LOST)
		return;
	if (id >= w->chain_cap) {
		cap = callers_nr_chains() > id ? callers_nr_chains() : id + 1;
		n = realloc(w->chain_done, cap);
		if (!n) {
			b->oom = true;
			return;
		}
		memset(n + w->chain_cap, 0, cap - w->chain_cap);
		w->chain_done = n;
		w->chain_cap = cap;
	}
	if (w->chain_done[id])
		return;
	w->chain_done[id] = 1;
	put_varint(b, id);
	put_str(b, callers_chain(id), 1 << 16);
}

static void enc_mounts(struct recwriter *w, struct buf *b)
{
	uint32_t dev;
	const char *fs;

	for (; w->mounts_done < callers_nr_mounts(); w->mounts_done++) {
		fs = callers_mount(w->mounts_done, &dev);
		put_varint(b, dev);
		put_str(b, fs, 32);
	}
}

/* Rows whose count moved, or all in a keyframe (p NULL): chain, device,
 * kind, context, then the count or its change. Rows never go away. */
static void enc_callers(struct recwriter *w, const struct snapshot *s,
			const struct snapshot *p)
{
	struct buf *b = &w->pay, *sec = &w->sec;
	uint32_t i, j = 0;

	if (!p) {
		if (w->chain_cap)
			memset(w->chain_done, 0, w->chain_cap);
		w->mounts_done = 0;
	}
	sec->len = 0;
	for (i = 0; i < s->nr_callers; i++)
		enc_chain(w, sec, s->callers[i].k.stack);
	if (sec->len)
		put_section(b, S_CHAINS, sec);
	sec->len = 0;
	for (i = 0; i < s->nr_callers; i++) {
		const struct caller_row *r = &s->callers[i];
		uint64_t base = 0;
		int c = 1;

		while (p && j < p->nr_callers &&
		       (c = caller_key_cmp(&p->callers[j].k, &r->k)) < 0)
			j++;
		if (p && j < p->nr_callers && !c)
			base = p->callers[j].n;
		if (p && r->n == base)
			continue;
		put_varint(sec, r->k.stack);
		put_varint(sec, r->k.dev);
		put_varint(sec, r->k.kind);
		put_varint(sec, r->k.where);
		if (p)
			put_zz(sec, r->n - base);
		else
			put_varint(sec, r->n);
	}
	if (sec->len)
		put_section(b, S_CALLERS, sec);
	put_zz_sec(b, S_NET_PEAK, s->bh_net_peak);
	sec->len = 0;
	enc_mounts(w, sec);
	if (sec->len)
		put_section(b, S_MOUNTS, sec);
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
	for (i = 0; i < NR_PATH_ROWS; i++)
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
	sec->len = 0;
	enc_fs(sec, s, p);
	if (sec->len)
		put_section(b, S_FS, sec);
	/* state: a keyframe says it when set, a delta when it changed */
	if (p ? p->dev_gone != s->dev_gone : s->dev_gone != 0)
		put_u64_sec(b, S_DEV_GONE, s->dev_gone);
	if (p ? p->probes_late != s->probes_late : s->probes_late != 0)
		put_u64_sec(b, S_PROBES_LATE, s->probes_late);
	if (p ? p->probes_gone != s->probes_gone : s->probes_gone != 0)
		put_u64_sec(b, S_PROBES_GONE, s->probes_gone);
	if (w->callers)
		enc_callers(w, s, p);
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
	free(w->chain_done);
	for (int m = 0; m < NR_ZMODES; m++)
		if (w->zs_init[m])
			deflateEnd(&w->zs[m]);
	free(w);
	return err;
}
