// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record file reader: the payloads of its frames, decoded from untrusted
 * bytes (meta, end and snapshot frames).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/callers.h"
#include "model/fsrows.h"
#include "reader_int.h"

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
		case P_FAILED:
			ps.failed = rd_varint(&b) != 0;
			break;
		case P_FUNC:
			rd_str(&b, ps.func, sizeof(ps.func));
			break;
		case P_DETAIL:
			rd_str(&b, ps.detail, sizeof(ps.detail));
			break;
		case P_MODULE:
			rd_str(&b, ps.module, sizeof(ps.module));
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
int dec_meta(struct recfile *r, struct rd *c, char *err, size_t errlen)
{
	struct run_info *in = &r->info;
	uint64_t tag, a, b2, n;
	struct rd b;

	memset(in, 0, sizeof(*in));
	in->buffer_head = -1;
	snprintf(in->machine, sizeof(in->machine), "%s", REC_OLD_MACHINE);
	in->page_size = REC_OLD_PAGE_SIZE;
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
		case M_FEATURES:
			in->features = (uint32_t)rd_varint(&b);
			break;
		case M_MACHINE:
			rd_str(&b, in->machine, sizeof(in->machine));
			break;
		case M_PAGE_SIZE:
			a = rd_varint(&b);
			if (!REC_PAGE_SIZE_OK(a)) {
				snprintf(err, errlen,
					 "page size %llu is not a power of two from 4 KiB to 1 MiB",
					 (unsigned long long)a);
				return -1;
			}
			in->page_size = a;
			break;
		case M_BH_SIZE:
			a = rd_varint(&b);
			in->bh_size = a <= 4096 ? a : 0;
			break;
		case M_CALLERS_MODE:
			a = rd_varint(&b);
			in->callers_mode = a < MODE_AUTO ? a : MODE_NONE;
			break;
		case M_CALLERS_DETAIL:
			rd_str(&b, in->callers_detail,
			       sizeof(in->callers_detail));
			break;
		case M_OTHER_MODE:
			a = rd_varint(&b);
			in->other_mode = a < MODE_AUTO ? a : MODE_NONE;
			break;
		case M_OTHER_DETAIL:
			rd_str(&b, in->other_detail, sizeof(in->other_detail));
			break;
		}
	}
	if (c->bad) {
		snprintf(err, errlen, "malformed metadata frame");
		return -1;
	}
	return 0;
}

void dec_end(struct recfile *r, struct rd *c)
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
			e->reason = v <= REC_STOP_MAX ? (enum rec_stop)v
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

/* ---- snapshot payloads (struct dec: reader_int.h) ---- */

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
		if (!d->apply || path >= NR_PATH_ROWS || f >= NR_PATH_FIELDS)
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

/* a length and that many bytes of c, as a string in dst */
static void rd_lstr(struct rd *c, char *dst, size_t size)
{
	uint64_t n = rd_varint(c);
	struct rd s;

	dst[0] = 0;
	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return;
	}
	s.p = c->p;
	s.end = c->p + n;
	rd_str(&s, dst, size);
	c->p += n;
}

/* a filesystem's row: its name, path and counters (fs_rows of recwriter) */
static void dec_fs_row(struct dec *d, struct rd *c)
{
	char name[BHP_FS_NAME];
	uint64_t path, n, next = 0, idx, v;
	struct fs_row *row = NULL;

	rd_lstr(c, name, sizeof(name));
	path = rd_varint(c);
	n = rd_varint(c);
	if (c->bad)
		return;
	if (d->apply && path <= PATH_NONE)
		row = fs_row_get(d->dst, name, path);
	for (; n && rd_entry(c, d->key, &next, &idx, &v); n--)
		if (row && idx < NR_FS_FIELDS)
			((uint64_t *)&row->s)[idx] += v;
}

static void dec_fs(struct dec *d, struct rd *c)
{
	while (!c->bad && c->p < c->end)
		dec_fs_row(d, c);
}

/* the largest chain id a file may use: bounds what a bad one costs */
#define REC_MAX_CHAIN_ID (1u << 20)

static void dec_chains(struct recfile *r, struct rd *c)
{
	static char text[1 << 16];
	uint64_t id;
	uint32_t *m, cap;

	while (!c->bad && c->p < c->end) {
		id = rd_varint(c);
		rd_lstr(c, text, sizeof(text));
		if (c->bad || id >= REC_MAX_CHAIN_ID)
			continue;
		if (id >= r->chain_cap) {
			cap = id + 1 > r->chain_cap * 2 ? id + 1 : r->chain_cap * 2;
			m = realloc(r->chain_map, cap * sizeof(*m));
			if (!m)
				return;
			memset(m + r->chain_cap, 0,
			       (cap - r->chain_cap) * sizeof(*m));
			r->chain_map = m;
			r->chain_cap = cap;
		}
		if (!r->chain_map[id])
			r->chain_map[id] = callers_chain_intern(text) + 1;
	}
}

/* a chain id of the file as this process's; unnamed ones read unknown */
static uint32_t chain_of(const struct recfile *r, uint64_t id)
{
	if (id == BHP_STACK_LOST)
		return BHP_STACK_LOST;
	if (id < r->chain_cap && r->chain_map[id])
		return r->chain_map[id] - 1;
	return BHP_STACK_LOST - 1;
}

static void dec_callers(struct dec *d, struct rd *c)
{
	struct snapshot *s = d->dst;
	struct bhp_caller_key k;
	bool added = false;
	uint64_t v;
	uint32_t i;

	while (!c->bad && c->p < c->end) {
		k.stack = chain_of(d->r, rd_varint(c));
		k.dev = rd_varint(c);
		k.kind = rd_varint(c);
		k.where = rd_varint(c);
		v = rd_varint(c);
		if (c->bad || !d->apply)
			continue;
		v = d->key ? v : unzz(v);
		for (i = 0; i < s->nr_callers; i++)
			if (!caller_key_cmp(&s->callers[i].k, &k))
				break;
		if (i == s->nr_callers) {
			if (i >= MAX_SNAP_CALLERS)
				continue;
			s->callers[i].k = k;
			s->callers[i].n = 0;
			s->nr_callers++;
			added = true;
		}
		s->callers[i].n += v;
	}
	if (added)
		qsort(s->callers, s->nr_callers, sizeof(s->callers[0]),
		      caller_row_cmp);
}

static void dec_mounts(struct rd *c)
{
	char fs[32];
	uint64_t dev;

	while (!c->bad && c->p < c->end) {
		dev = rd_varint(c);
		rd_lstr(c, fs, sizeof(fs));
		if (!c->bad && dev <= UINT32_MAX)
			callers_mount_add(dev, fs);
	}
}

bool dec_snapshot(struct dec *d, const uint8_t *p, size_t n, const char **why)
{
	struct rd c = { p, p + n, false }, b;
	bool have_ts = false;
	uint64_t tag, ts = 0, v;

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
		case S_FS:
			dec_fs(d, &b);
			break;
		case S_CHAINS:
			dec_chains(d->r, &b);
			break;
		case S_CALLERS:
			dec_callers(d, &b);
			break;
		case S_NET_PEAK:
			v = unzz(rd_varint(&b));
			if (d->apply)
				d->dst->bh_net_peak = (int64_t)v;
			break;
		case S_MOUNTS:
			dec_mounts(&b);
			break;
		case S_DEV_GONE:
			v = rd_varint(&b);
			if (d->apply)
				d->dst->dev_gone = (uint32_t)v;
			break;
		case S_PROBES_LATE:
			v = rd_varint(&b);
			if (d->apply)
				d->dst->probes_late = v;
			break;
		case S_PROBES_GONE:
			v = rd_varint(&b);
			if (d->apply)
				d->dst->probes_gone = v;
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
