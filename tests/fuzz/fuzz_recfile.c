// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the record file reader.
 *
 * The first byte picks how the rest is used. Even: the bytes are a file,
 * as found on disk. Odd: they are frame payloads, [u8 type][u16 len]
 * [len bytes] each, which this harness compresses and frames with valid
 * CRCs behind a valid header, so that the fuzzer reaches the payload
 * decoders instead of stopping at the CRC check every time.
 *
 * Besides not crashing, what the reader hands out must hold together;
 * a broken invariant traps.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "recfile/recfile.h"

#define MAX_BUILT (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t frame(uint8_t *out, size_t room, uint8_t type,
		    const uint8_t *p, size_t n)
{
	uLongf z = compressBound(n);
	uint32_t crc;

	if (room < 9 + z || compress2(out + 9, &z, p, n, 6) != Z_OK)
		return 0;
	crc = crc32(crc32(0, &type, 1), out + 9, z);
	out[0] = z;
	out[1] = z >> 8;
	out[2] = z >> 16;
	out[3] = z >> 24;
	out[4] = crc;
	out[5] = crc >> 8;
	out[6] = crc >> 16;
	out[7] = crc >> 24;
	out[8] = type;
	return 9 + z;
}

static uint8_t *build(const uint8_t *d, size_t n, size_t *len)
{
	uint8_t *out = malloc(MAX_BUILT);
	size_t off = REC_HEADER_LEN, k;

	if (!out)
		return NULL;
	memcpy(out, REC_MAGIC "\x01\x00\x00\x00", REC_HEADER_LEN);
	while (n >= 3) {
		uint8_t type = d[0];
		size_t plen = d[1] | d[2] << 8;

		d += 3;
		n -= 3;
		if (plen > n)
			plen = n;
		k = frame(out + off, MAX_BUILT - off, type, d, plen);
		if (!k)
			break;
		off += k;
		d += plen;
		n -= plen;
	}
	*len = off;
	return out;
}

static void check(bool ok)
{
	if (!ok)
		__builtin_trap();
}

static void walk(struct recfile *r)
{
	uint64_t ts = 0;
	struct rec_frame f;
	unsigned int h;

	while (recfile_next(r, &f) == 1) {
		check(f.cum->ts_ns >= ts);
		ts = f.cum->ts_ns;
		check(f.cum->nr_devs <= MAX_SNAP_DEVS);
		check(f.step->nr_devs == f.cum->nr_devs);
		for (h = 0; h < NR_HISTS; h++)
			check(f.step_lo[h] > f.step_hi[h] ||
			      f.step_hi[h] < HIST_BUCKETS);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct run_info *in;
	struct recfile *r;
	uint8_t *built = NULL;
	const uint8_t *p;
	char err[256];
	size_t n;

	if (!size)
		return 0;
	if (data[0] & 1) {
		built = build(data + 1, size - 1, &n);
		if (!built)
			return 0;
		p = built;
	} else {
		p = data + 1;
		n = size - 1;
	}
	if (recfile_open_mem(p, n, &r, err, sizeof(err))) {
		check(err[0] && !strchr(err, '\n'));
		free(built);
		return 0;
	}
	in = recfile_info(r);
	check(strlen(in->hostname) < sizeof(in->hostname));
	check(in->nr_filter_devs <= MAX_FILTER_DEVS);
	walk(r);
	recfile_rewind(r);
	walk(r);
	for (unsigned int i = 0; i < recfile_nr_warnings(r); i++)
		check(recfile_warning(r, i) && !strchr(recfile_warning(r, i), '\n'));
	recfile_close(r);
	free(built);
	return 0;
}
