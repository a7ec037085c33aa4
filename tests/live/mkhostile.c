// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record files that claim sizes they do not have, for test_hardening.sh:
 * a reader that believes them allocates gigabytes. Each is written with
 * valid CRCs and zlib streams, so that only the claim is wrong.
 * Usage: mkhostile DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "recfile/recfile_fmt.h"

struct out {
	uint8_t p[1 << 20];
	size_t len;
};

static void put(struct out *o, const void *d, size_t n)
{
	if (o->len + n > sizeof(o->p))
		abort();
	memcpy(o->p + o->len, d, n);
	o->len += n;
}

static void le32(struct out *o, uint32_t v)
{
	uint8_t b[4] = { v, v >> 8, v >> 16, v >> 24 };

	put(o, b, 4);
}

static void varint(struct out *o, uint64_t v)
{
	uint8_t b;

	do {
		b = (v & 0x7f) | (v >= 0x80 ? 0x80 : 0);
		put(o, &b, 1);
		v >>= 7;
	} while (v);
}

static void header(struct out *o)
{
	o->len = 0;
	put(o, REC_MAGIC, REC_MAGIC_LEN);
	put(o, "\x01\x00\x00\x00", 4);
}

/* One frame of payload pay (n bytes), or of zeros bytes of 0 if pay is
 * NULL: a zlib bomb needs no buffer of its own size. */
static void frame(struct out *o, uint8_t type, const uint8_t *pay, size_t n,
		  size_t zeros)
{
	static uint8_t zbuf[1 << 19], zero[1 << 16];
	z_stream zs = { 0 };
	uint32_t crc;

	deflateInit(&zs, 9);
	zs.next_out = zbuf;
	zs.avail_out = sizeof(zbuf);
	if (pay) {
		zs.next_in = (uint8_t *)pay;
		zs.avail_in = n;
		deflate(&zs, Z_NO_FLUSH);
	}
	for (; zeros; zeros -= zs.total_in ? sizeof(zero) : 0) {
		zs.next_in = zero;
		zs.avail_in = sizeof(zero);
		deflate(&zs, Z_NO_FLUSH);
		if (zeros < sizeof(zero))
			break;
	}
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		abort();
	crc = crc32(crc32(0, &type, 1), zbuf, zs.total_out);
	le32(o, zs.total_out);
	le32(o, crc);
	put(o, &type, 1);
	put(o, zbuf, zs.total_out);
	deflateEnd(&zs);
}

static void section(struct out *o, uint64_t tag, const struct out *body)
{
	varint(o, tag);
	varint(o, body->len);
	put(o, body->p, body->len);
}

static void layout(struct out *o, uint64_t buckets)
{
	static struct out s;

	s.len = 0;
	varint(&s, HIST_SUB_BITS);
	varint(&s, HIST_MAX_MSB);
	varint(&s, buckets);
	section(o, M_HIST_LAYOUT, &s);
}

static void good_meta(struct out *o)
{
	static struct out p;

	p.len = 0;
	layout(&p, HIST_BUCKETS);
	frame(o, REC_F_META, p.p, p.len, 0);
}

static void keyframe(struct out *o, uint64_t ts)
{
	struct out p = { .len = 0 };

	varint(&p, S_TS);
	varint(&p, 9);
	varint(&p, ts | 1ull << 62);	/* nine bytes */
	frame(o, REC_F_KEY, p.p, p.len, 0);
}

static void save(const char *dir, const char *name, const struct out *o,
		 off_t size)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.bhp", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, o->p, o->len) != (ssize_t)o->len ||
	    (size && ftruncate(fd, size)) || close(fd)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static struct out o, p, rows;

	if (argc != 2)
		return 2;

	/* a first frame of 4 GiB */
	header(&o);
	le32(&o, 0xffffffffu);
	le32(&o, 0);
	put(&o, "\x01\x78\x9c", 3);
	save(argv[1], "frame-4g", &o, 0);

	/* a metadata section of 2^40 bytes */
	header(&o);
	p.len = 0;
	varint(&p, M_HOSTNAME);
	varint(&p, 1ull << 40);
	put(&p, "host", 4);
	frame(&o, REC_F_META, p.p, p.len, 0);
	save(argv[1], "section-2e40", &o, 0);

	/* histograms of 2^62 buckets */
	header(&o);
	p.len = 0;
	layout(&p, 1ull << 62);
	frame(&o, REC_F_META, p.p, p.len, 0);
	save(argv[1], "buckets-2e62", &o, 0);

	/* a metadata frame of 256 MiB once inflated, 256 KiB in the file */
	header(&o);
	frame(&o, REC_F_META, NULL, 0, 256u << 20);
	save(argv[1], "zbomb-256m", &o, 0);

	/* 3 GiB on disk, a hole after the metadata */
	header(&o);
	good_meta(&o);
	save(argv[1], "sparse-3g", &o, 3ll << 30);

	/* good metadata, then snapshots whose rows claim 2^60 entries */
	header(&o);
	good_meta(&o);
	keyframe(&o, 1);
	p.len = 0;
	varint(&p, S_TS);
	varint(&p, 1);
	varint(&p, 2);
	rows.len = 0;
	varint(&rows, 7 << 20);		/* dev */
	varint(&rows, 0);		/* path */
	varint(&rows, 0);		/* flags */
	varint(&rows, 1ull << 60);	/* entries */
	varint(&rows, 0);		/* one of them */
	varint(&rows, 2);
	section(&p, S_DEVS, &rows);
	frame(&o, REC_F_DELTA, p.p, p.len, 0);
	save(argv[1], "rows-2e60", &o, 0);
	return 0;
}
