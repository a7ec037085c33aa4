// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record file reader; docs/format.md is the specification. It never trusts
 * the file: every frame is length-capped and CRC-checked, a corrupt
 * stretch is skipped to the next intact frame, and a torn tail is dropped
 * with a warning that says how much.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "reader_int.h"

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t get_le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/* ---- reader ---- */

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

int recfile_open_fd(int fd, struct recfile **out, char *err, size_t errlen)
{
	struct recfile *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	if (read_fd(fd, r, err, errlen)) {
		free(r);
		return -1;
	}
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
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	ret = recfile_open_fd(fd, out, err, errlen);
	close(fd);
	return ret;
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
	free(r->chain_map);
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
		 (const uint64_t *)r->prev_paths, NR_PATH_ROWS * NR_PATH_FIELDS);
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
