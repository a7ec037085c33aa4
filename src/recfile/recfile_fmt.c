// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Pieces of the record format that the writer and the reader share. */
#include <stdlib.h>
#include <string.h>
#include "recfile_fmt.h"

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
	case REC_STOP_USER:
		return "quit";
	default:
		return "unknown";
	}
}

bool buf_reserve(struct buf *b, size_t n)
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

void buf_put(struct buf *b, const void *d, size_t n)
{
	if (!buf_reserve(b, n))
		return;
	memcpy(b->p + b->len, d, n);
	b->len += n;
}
