// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Layout of the live screen: header, the two path columns with their
 * history strip, then the lower panel and the device table (tui_panel.c),
 * and the key line. Each frame is drawn whole into curses' buffer and
 * sent with one doupdate(); curses sends only the cells that changed, so
 * the screen never flickers.
 */
#include <math.h>
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include "output/output.h"
#include "tui.h"
#include "util/array.h"

#define MIB (1024.0 * 1024.0)
#define ROWS_FULL 12		/* metric rows with room to spare */
#define PANEL_MIN 4		/* rule and three rows */
#define ROOMY_GAPS 4		/* blank rows between the metric groups */
#define PANEL_ROOMY 15		/* rule, 14 rows: 1 us..20 ms in 1-2-5 */
#define DEVS_ROOMY 7		/* header and six devices */

enum want { NONE, HIGHER, LOWER };

static void layout_init(struct tui_layout *l)
{
	l->w = COLS;
	l->h = LINES;
	l->label_w = l->w >= 110 ? 22 : 18;
	l->col_w = (l->w - l->label_w - 1) / 2;
	/* wider only spreads a pair apart; the history is long enough */
	if (l->col_w > 40)
		l->col_w = 40;
	l->x[PATH_BH] = l->label_w;
	l->x[PATH_IOMAP] = l->label_w + l->col_w + 1;
	l->val_w = l->col_w - 2;
}

static const char *fmt_hms(char *buf, size_t len, double secs)
{
	unsigned long s = secs > 0 ? (unsigned long)secs : 0;

	snprintf(buf, len, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
	return buf;
}

/* a red chip at the right end of the title bar; returns its left edge */
static int title_chip(const struct tui *t, int right, const char *text)
{
	int n = (int)strlen(text) + 2, a = tui_attr(t, CP_WARN) | A_REVERSE;

	if (right - n < 30)
		return right;
	attron(a);
	tui_putf(0, right - n, n, " %s ", text);
	attroff(a);
	return right - n - 1;
}

static int title_chips(const struct tui *t, const struct tui_layout *l)
{
	int right = l->w;
	char chip[96];

	if (t->paused)
		right = title_chip(t, right, "PAUSED");
	if (t->record) {
		snprintf(chip, sizeof(chip), "REC %s", t->record);
		right = title_chip(t, right, chip);
	}
	if (t->cum.glob.ctx_lost) {
		snprintf(chip, sizeof(chip), "lost %llu",
			 (unsigned long long)t->cum.glob.ctx_lost);
		right = title_chip(t, right, chip);
	}
	return right;
}

/* the long form where it fits, else a terser one: run time stays */
static void draw_title(const struct tui *t, const struct tui_layout *l)
{
	const struct run_info *info = t->info;
	const char *bh = info->buffer_head < 0 ? "?" :
			 info->buffer_head ? "y" : "n";
	char run[32], text[256];
	int a = tui_attr(t, CP_TITLE), w;

	attron(a);
	mvhline(0, 0, ' ', l->w);
	attroff(a);
	w = title_chips(t, l) - 1;
	fmt_hms(run, sizeof(run), t->up);
	snprintf(text, sizeof(text),
		 " bhprof  kernel %s  CONFIG_BUFFER_HEAD=%s  interval %g s  run %s",
		 info->release, bh, t->interval, run);
	if ((int)strlen(text) > w)
		snprintf(text, sizeof(text),
			 " bhprof  %s  BUFFER_HEAD=%s  every %g s  run %s",
			 info->release, bh, t->interval, run);
	attron(a | A_BOLD);
	tui_put(0, 0, w, text);
	attroff(a | A_BOLD);
}

static const char *const short_names[NR_PROBES] = {
	[PROBE_WRITE_BLKDEV] = "w_blkdev",
	[PROBE_WRITE_IOMAP] = "w_iomap",
	[PROBE_WRITE_GENERIC] = "w_generic",
	[PROBE_WB_BH] = "wb_bh",
	[PROBE_WB_IOMAP] = "wb_iomap",
	[PROBE_WB_CTX] = "wb_ctx",
	[PROBE_BH_ALLOC] = "bh_alloc",
	[PROBE_BIO] = "bio",
	[PROBE_READ_BH_FOLIO] = "r_bh",
	[PROBE_READ_BH_RA] = "ra_bh",
	[PROBE_READ_EXT4_FOLIO] = "r_ext4",
	[PROBE_READ_EXT4_RA] = "ra_ext4",
	[PROBE_READ_IOMAP_FOLIO] = "r_iomap",
	[PROBE_READ_IOMAP_RA] = "ra_iomap",
	[PROBE_READ_BLKDEV] = "r_blkdev",
	[PROBE_MKWRITE_BH] = "mk_bh",
	[PROBE_MKWRITE_EXT4] = "mk_ext4",
	[PROBE_MKWRITE_IOMAP] = "mk_iomap",
	[PROBE_DIO_FALLBACK] = "dwf",
	[PROBE_PASS_INODE] = "pass",
	[PROBE_PASS_EXT4] = "pass_ext4",
	[PROBE_WB_MPAGE] = "wb_mpage",
	[PROBE_WB_EXT4] = "wb_ext4",
};

/* A tracepoint standing in for a kernel function sees its events but
 * not always its exact entry and exit: figures are approximations.
 * block_bio_queue and the passes' events are tracepoints by nature. */
static const char *probe_marker(enum probe_id id, const struct probe_state *ps)
{
	if (ps->absent)
		return "";
	if (ps->failed || ps->mode == MODE_NONE)
		return "!";
	if (ps->mode == MODE_TRACEPOINT && id != PROBE_BIO &&
	    probe_group_of(id) != BHP_GROUP_PASS)
		return "~";
	return "";
}

static const char *probe_mode(const struct probe_state *ps)
{
	if (ps->absent)
		return "absent";
	if (ps->failed)
		return "failed";
	switch (ps->mode) {
	case MODE_FENTRY:
		return "fentry";
	case MODE_KPROBE:
		return "kprobe";
	case MODE_TRACEPOINT:
		return "tp";
	default:
		return "off";
	}
}

#define ATTACH_X 8

struct attach_item {
	int probe;
	const char *mode, *mark;
};

static void attach_items(const struct tui *t, struct attach_item *it)
{
	for (int i = 0; i < NR_PROBES; i++) {
		it[i].probe = i;
		it[i].mode = probe_mode(&t->info->probes[i]);
		it[i].mark = probe_marker(i, &t->info->probes[i]);
	}
}

static bool same_mode(const struct attach_item *a, const struct attach_item *b)
{
	return !strcmp(a->mode, b->mode) && !strcmp(a->mark, b->mark);
}

static int mode_width(const struct attach_item *it)
{
	return (int)(strlen(it->mode) + strlen(it->mark) + 1);
}

/* "tp~:" in bold, its marker in red; absent probes are dim */
static void put_mode(const struct tui *t, int y, int x,
		     const struct attach_item *it, bool colon)
{
	int a = strcmp(it->mode, "absent") ? (int)A_BOLD : tui_attr(t, CP_DIM);

	attron(a);
	x += tui_put(y, x, COLS - x, it->mode);
	attroff(a);
	attron(tui_attr(t, CP_WARN));
	x += tui_put(y, x, COLS - x, it->mark);
	attroff(tui_attr(t, CP_WARN));
	if (colon)
		tui_put(y, x, 1, ":");
}

/*
 * Where a mode's probes go: "write_blkdev tp~ ... bio tp" one by one, or,
 * short of room, grouped by mode, "tp~: w_blkdev w_iomap ...  tp: bio".
 * With draw false it only measures. Returns the rows used, or
 * max_lines + 1 if the probes do not fit in max_lines.
 */
static int attach_flow(const struct tui *t, int y, int w, bool grouped,
		       int max_lines, bool draw)
{
	struct attach_item it[NR_PROBES];
	bool done[NR_PROBES] = { false };
	int x = ATTACH_X, line = 0;

	attach_items(t, it);
	for (int i = 0; i < NR_PROBES; i++) {
		if (done[i])
			continue;
		for (int j = i; j < NR_PROBES; j++) {
			const char *name;
			bool head = j == i;
			int n, lead;

			if (done[j] || (!grouped && !head) ||
			    !same_mode(&it[i], &it[j]))
				continue;
			done[j] = true;
			name = grouped && short_names[j] ? short_names[j] :
							   probe_name(j);
			/* ungrouped: "name mode"; grouped: "mode: name name" */
			lead = grouped && head ? mode_width(&it[i]) + 1 : 0;
			n = lead + (int)strlen(name) +
			    (grouped ? 0 : mode_width(&it[j]));
			if (x > ATTACH_X && x + n > w - 1) {
				if (++line >= max_lines)
					return max_lines + 1;
				x = ATTACH_X;
			}
			if (draw && lead)
				put_mode(t, y + line, x, &it[i], true);
			if (draw)
				tui_put(y + line, x + lead, w - x - lead, name);
			if (draw && !grouped)
				put_mode(t, y + line, x + (int)strlen(name) + 1,
					 &it[j], false);
			x += n + 1;
		}
		x += 1;
	}
	return line + 1;
}

/* one by one on one row, else grouped on one row, else on two */
static int draw_attach(const struct tui *t, const struct tui_layout *l, int y)
{
	bool grouped = attach_flow(t, y, l->w, false, 1, false) > 1;
	int rows = attach_flow(t, y, l->w, true, 1, false) > 1 ? 2 : 1;

	attron(tui_attr(t, CP_DIM));
	tui_put(y, 0, ATTACH_X, "attach");
	attroff(tui_attr(t, CP_DIM));
	attach_flow(t, y, l->w, grouped, rows, true);
	return rows;
}

static int put_choice(const struct tui *t, int y, int x, const char *s,
		      bool on)
{
	int a = on ? A_REVERSE | A_BOLD : A_NORMAL;

	attron(a);
	x += tui_put(y, x, COLS - x, s);
	attroff(a);
	return x + 2;
}

static void draw_devices(const struct tui *t, const struct tui_layout *l,
			 int y)
{
	int x = ATTACH_X;

	attron(tui_attr(t, CP_DIM));
	tui_put(y, 0, ATTACH_X, "devices");
	attroff(tui_attr(t, CP_DIM));
	x = put_choice(t, y, x, "all", !t->filtered);
	for (uint32_t i = 0; i < t->nr_seen && x < l->w - 4; i++)
		x = put_choice(t, y, x, tui_dev_name(t, t->seen[i]),
			       t->filtered && t->filter_dev == t->seen[i]);
	if (!t->nr_seen) {
		attron(tui_attr(t, CP_DIM));
		tui_put(y, x, l->w - x,
			t->fed ? "(no write bios yet)" : "(collecting...)");
		attroff(tui_attr(t, CP_DIM));
	}
	if (t->note && x + (int)strlen(t->note) < l->w) {
		attron(tui_attr(t, CP_WARN));
		tui_put(y, l->w - (int)strlen(t->note) - 1, l->w, t->note);
		attroff(tui_attr(t, CP_WARN));
	}
}

static void draw_colhdr(const struct tui *t, const struct tui_layout *l,
			int y)
{
	static const enum tui_pair pair[NR_PATHS] = { CP_BH, CP_IOMAP };

	attron(tui_attr(t, CP_DIM));
	tui_putf(y, 0, l->label_w, "per s, last %g s", t->interval);
	attroff(tui_attr(t, CP_DIM));
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		const char *name = path_name(p);
		int n = (int)strlen(name);

		tui_rule(t, y, l->x[p], l->val_w - n - 1);
		attron(tui_attr(t, pair[p]));
		tui_put(y, l->x[p] + l->val_w - n, n, name);
		attroff(tui_attr(t, pair[p]));
	}
}

static int pick(double a, double b, enum want want, bool comparable)
{
	if (want == NONE || !comparable || a == b)
		return -1;
	if (want == HIGHER)
		return a > b ? PATH_BH : PATH_IOMAP;
	return a < b ? PATH_BH : PATH_IOMAP;
}

static void put_value(const struct tui *t, int y, int x, int w,
		      const char *s, bool better)
{
	int n = (int)strlen(s), a = tui_attr(t, CP_BETTER);

	if (n > w)
		n = w;
	if (better)
		attron(a);
	tui_put(y, x + w - n, n, s);
	if (better)
		attroff(a);
}

static void put_label(int y, const struct tui_layout *l, const char *s)
{
	tui_put(y, 1, l->label_w - 2, s);
}

/* one metric: label, then each path's value right-aligned */
static void row_pair(const struct tui *t, const struct tui_layout *l, int y,
		     const char *label, const char v[NR_PATHS][32],
		     int better)
{
	put_label(y, l, label);
	for (unsigned int p = 0; p < NR_PATHS; p++)
		put_value(t, y, l->x[p], l->val_w, v[p], better == (int)p);
}

static void row_num(const struct tui *t, const struct tui_layout *l, int y,
		    const char *label, double a, double b, enum want want)
{
	char v[NR_PATHS][32];

	tui_fmt_num(v[0], sizeof(v[0]), a);
	tui_fmt_num(v[1], sizeof(v[1]), b);
	row_pair(t, l, y, label, v, pick(a, b, want, a > 0 && b > 0));
}

static void row_mib(const struct tui *t, const struct tui_layout *l, int y,
		    const char *label, double a, double b)
{
	char v[NR_PATHS][32];

	snprintf(v[0], sizeof(v[0]), "%.1f", a);
	snprintf(v[1], sizeof(v[1]), "%.1f", b);
	row_pair(t, l, y, label, v, pick(a, b, HIGHER, a > 0 && b > 0));
}

static void ns_text(char *buf, size_t len, const struct dist *d, uint64_t v,
		    bool seen)
{
	if (!seen)
		snprintf(buf, len, "n/a");
	else if (!d->count)
		snprintf(buf, len, "-");
	else
		fmt_ns(buf, len, (double)v);
}

#define DIST_AT(d, off) (*(const uint64_t *)((const char *)(d) + (off)))

static void row_lat(const struct tui *t, const struct tui_layout *l, int y,
		    const char *label, const struct dist *d[NR_PATHS],
		    size_t off, const bool seen[NR_PATHS])
{
	char v[NR_PATHS][32];
	uint64_t a = DIST_AT(d[0], off), b = DIST_AT(d[1], off);
	bool both = seen[0] && seen[1] && d[0]->count && d[1]->count;

	for (unsigned int p = 0; p < NR_PATHS; p++)
		ns_text(v[p], sizeof(v[p]), d[p], DIST_AT(d[p], off), seen[p]);
	row_pair(t, l, y, label, v, pick((double)a, (double)b, LOWER, both));
}

/* p50, p99 and max of each path on one row, for short screens */
static void row_lat3(const struct tui *t, const struct tui_layout *l, int y,
		     const struct dist *d[NR_PATHS])
{
	static const size_t off[3] = {
		offsetof(struct dist, p50),
		offsetof(struct dist, p99),
		offsetof(struct dist, max),
	};
	bool both = d[0]->count && d[1]->count;
	int sub = l->val_w / 3;

	put_label(y, l, "lat p50/p99/max");
	for (int k = 0; k < 3; k++) {
		uint64_t a = DIST_AT(d[0], off[k]), b = DIST_AT(d[1], off[k]);
		int better = pick((double)a, (double)b, LOWER, both);

		for (unsigned int p = 0; p < NR_PATHS; p++) {
			char v[32];

			ns_text(v, sizeof(v), d[p], DIST_AT(d[p], off[k]),
				true);
			put_value(t, y, l->x[p] + l->val_w - sub * (3 - k),
				  sub, v, better == (int)p);
		}
	}
}

static bool wb_seen(const struct tui *t, unsigned int path)
{
	return figure_known(t->info, path, FIG_WB_CALLS);
}

/* A row whose probe group was lost reads "failed", never a real-looking
 * zero; true if it drew that row. */
static bool row_lost(const struct tui *t, const struct tui_layout *l, int y,
		     const char *label, enum figure f)
{
	char v[NR_PATHS][32] = { "failed", "failed" };

	if (figure_known(t->info, PATH_BH, f))
		return false;
	row_pair(t, l, y, label, v, -1);
	return true;
}

static void bio_label(const struct tui *t, char *buf, size_t len,
		      const char *what)
{
	if (t->filtered)
		snprintf(buf, len, "%s %s", what,
			 tui_dev_name(t, t->filter_dev));
	else
		snprintf(buf, len, "%s", what);
}

static void rows_bio(const struct tui *t, const struct tui_layout *l, int *y,
		     bool full)
{
	const struct summary *s = &t->win;
	double bios[NR_PATHS], mib[NR_PATHS], mean[NR_PATHS];
	char label[64], v[NR_PATHS][32];

	for (unsigned int p = 0; p < NR_PATHS; p++) {
		uint64_t n, bytes;

		tui_path_bios(t, s, &t->win_devs, p, &n, &bytes);
		bios[p] = s->secs > 0 ? (double)n / s->secs : 0;
		mib[p] = s->secs > 0 ? (double)bytes / s->secs / MIB : 0;
		mean[p] = n ? (double)bytes / (double)n : 0;
	}
	bio_label(t, label, sizeof(label), "bios/s");
	row_num(t, l, (*y)++, label, bios[0], bios[1], NONE);
	if (full) {
		bio_label(t, label, sizeof(label), "bio MiB/s");
		row_mib(t, l, (*y)++, label, mib[0], mib[1]);
	}
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		if (mean[p] > 0)
			fmt_bytes(v[p], sizeof(v[p]), mean[p]);
		else
			snprintf(v[p], sizeof(v[p]), "-");
	}
	bio_label(t, label, sizeof(label), "mean bio");
	row_pair(t, l, (*y)++, label, v,
		 pick(mean[0], mean[1], HIGHER, mean[0] > 0 && mean[1] > 0));
}

/* bh figures compare only when both paths moved data */
static void rows_bh(const struct tui *t, const struct tui_layout *l, int *y)
{
	const struct path_summary *a = &t->win.path[0], *b = &t->win.path[1];
	bool both = (a->write_mbps > 0 || a->bio_mbps > 0) &&
		    (b->write_mbps > 0 || b->bio_mbps > 0);
	char v[NR_PATHS][32];

	tui_fmt_num(v[0], sizeof(v[0]), a->bh_alloc_ps);
	tui_fmt_num(v[1], sizeof(v[1]), b->bh_alloc_ps);
	row_pair(t, l, (*y)++, "bh allocs/s", v,
		 pick(a->bh_alloc_ps, b->bh_alloc_ps, LOWER, both));
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		const char *why = path_figure_why(t->info, p, &t->win.path[p],
						  FIG_BH, SAMPLE_MIB);

		if (why)
			snprintf(v[p], sizeof(v[p]), "%s", why_cell(why));
		else
			snprintf(v[p], sizeof(v[p]), "%.1f",
				 t->win.path[p].bh_per_mib);
	}
	both = both && isfinite(a->bh_per_mib) && isfinite(b->bh_per_mib);
	row_pair(t, l, (*y)++, "bh per MiB", v,
		 pick(a->bh_per_mib, b->bh_per_mib, LOWER, both));
}

static int rows_write_lat(const struct tui *t, const struct tui_layout *l,
			  int y, bool full)
{
	const struct dist *wl[NR_PATHS] = { &t->win.path[0].write_lat,
					    &t->win.path[1].write_lat };
	const bool all[NR_PATHS] = { true, true };

	if (full) {
		row_lat(t, l, y++, "write lat p50", wl,
			offsetof(struct dist, p50), all);
		row_lat(t, l, y++, "write lat p99", wl,
			offsetof(struct dist, p99), all);
		row_lat(t, l, y++, "write lat max", wl,
			offsetof(struct dist, max), all);
	} else {
		row_lat3(t, l, y++, wl);
	}
	return y;
}

/* Writeback latency: of the calls where the mode sees them, else of
 * the passes over an inode, which tracepoint mode has as well */
static void row_wb_lat(const struct tui *t, const struct tui_layout *l,
		       int y, const struct dist **wb, const bool *wbs)
{
	const struct path_summary *a = &t->win.path[0], *b = &t->win.path[1];
	const struct dist *pass[NR_PATHS] = { &a->pass_lat, &b->pass_lat };
	const bool on[NR_PATHS] = { true, true };

	if (!wbs[0] && !wbs[1] && figure_known(t->info, PATH_BH, FIG_PASSES))
		row_lat(t, l, y, "wb pass p99", pass,
			offsetof(struct dist, p99), on);
	else
		row_lat(t, l, y, "writeback p99", wb,
			offsetof(struct dist, p99), wbs);
}

/* metric rows: compact, full, or full with a blank row between groups */
enum shape { COMPACT, FULL, ROOMY };

static int draw_metrics(const struct tui *t, const struct tui_layout *l,
			int y, enum shape shape)
{
	bool full = shape != COMPACT;
	int gap = shape == ROOMY;
	const struct path_summary *a = &t->win.path[0], *b = &t->win.path[1];
	const struct dist *wb[NR_PATHS] = { &a->wb_lat, &b->wb_lat };
	const bool wbs[NR_PATHS] = { wb_seen(t, 0), wb_seen(t, 1) };

	if (row_lost(t, l, y, "write calls/s", FIG_WRITE)) {
		y += 1 + gap;
	} else {
		row_num(t, l, y++, "write calls/s", a->write_calls_ps,
			b->write_calls_ps, HIGHER);
		row_mib(t, l, y++, "write MiB/s", a->write_mbps,
			b->write_mbps);
		y = rows_write_lat(t, l, y, full) + gap;
	}
	/* n/a twice says nothing a short screen has room for */
	if (full || wbs[0] || wbs[1])
		row_wb_lat(t, l, y++, wb, wbs);
	if (!row_lost(t, l, y++, "pages/s", FIG_WB_PAGES))
		row_num(t, l, y - 1, "pages/s", a->pages_ps, b->pages_ps,
			HIGHER);
	y += gap;
	if (row_lost(t, l, y, "bios/s", FIG_PATH_BIOS))
		y++;
	else
		rows_bio(t, l, &y, full);
	y += gap;
	if (row_lost(t, l, y, "bh allocs/s", FIG_BH))
		y++;
	else
		rows_bh(t, l, &y);
	return y + gap;
}


static double ring_max(const struct tui_ring *r, const double *v,
		       unsigned int w)
{
	unsigned int n = r->len < w ? r->len : w;
	double m = 0;

	for (unsigned int i = 0; i < n; i++) {
		double x = v[(r->head + TUI_HISTORY - n + i) % TUI_HISTORY];

		m = x > m ? x : m;
	}
	return m;
}

/* Both paths share one scale per metric: the strip compares them. */
static void draw_history(const struct tui *t, const struct tui_layout *l,
			 int y)
{
	static const enum tui_pair pair[NR_PATHS] = { CP_BH, CP_IOMAP };
	unsigned int w = (unsigned int)l->val_w;
	double mmax = 0, pmax = 0;

	for (unsigned int p = 0; p < NR_PATHS; p++) {
		const struct tui_ring *r = &t->ring[p];
		double m = ring_max(r, r->mbps, w), q = ring_max(r, r->p99, w);

		mmax = m > mmax ? m : mmax;
		pmax = q > pmax ? q : pmax;
	}
	put_label(y, l, "MiB/s history");
	put_label(y + 1, l, "p99 history");
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		const struct tui_ring *r = &t->ring[p];

		attron(tui_attr(t, pair[p]) & ~A_BOLD);
		tui_spark(t, y, l->x[p], l->val_w, r->mbps, r->head, r->len,
			  mmax);
		tui_spark(t, y + 1, l->x[p], l->val_w, r->p99, r->head, r->len,
			  pmax);
		attroff(tui_attr(t, pair[p]) & ~A_BOLD);
	}
}

static void draw_footer(const struct tui *t, const struct tui_layout *l)
{
	static const char *const keys[][2] = {
		{ "q", "quit" }, { "p", "pause" }, { "r", "reset" },
		{ "+/-", "interval" }, { "d", "device" }, { "tab", "view" },
		{ "i", "reads" },
		{ "h", "help" },
	};
	int y = l->h - 1, x = 1, a = tui_attr(t, CP_TITLE);

	attron(a);
	mvhline(y, 0, ' ', l->w);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		attron(A_BOLD);
		x += tui_put(y, x, l->w - x, keys[i][0]) + 1;
		attroff(A_BOLD);
		x += tui_put(y, x, l->w - x, keys[i][1]) + 2;
	}
	attroff(a);
}

static const char *const help_lines[] = {
	"q          quit (Ctrl-C too)",
	"p          pause the display; collection goes on",
	"r          reset totals and distributions",
	"+ / -      longer / shorter interval (0.1 s .. 60 s)",
	"d          next device: filters bio figures and table",
	"tab        lower panel: latency, bio sizes, buffer_heads, reads",
	"i          the read view, and back",
	"h          this help",
	"",
	"highlighted: the better value of a pair",
	"columns: the last interval; panel: since the last reset",
	"attach  ~ approximated by a tracepoint",
	"        ! not attached or failed   absent: not in this kernel",
	"",
	"any key closes this help",
};

#define NR_HELP ((int)ARRAY_SIZE(help_lines))

static void draw_help(const struct tui *t, const struct tui_layout *l)
{
	int w = 64, h = NR_HELP + 4, x, y;

	if (w > l->w - 2)
		w = l->w - 2;
	if (h > l->h - 2)
		h = l->h - 2;
	x = (l->w - w) / 2;
	y = (l->h - h) / 2;
	for (int i = 0; i < h; i++)
		mvhline(y + i, x, ' ', w);
	attron(tui_attr(t, CP_BH));
	tui_box(t, y, x, h, w);
	tui_put(y, x + 2, w - 4, " bhprof top: keys ");
	attroff(tui_attr(t, CP_BH));
	for (int i = 0; i < NR_HELP && i < h - 4; i++)
		tui_put(y + 2 + i, x + 3, w - 5, help_lines[i]);
}

/* Below 80x24 the layout cannot hold: say so, keep the headline figures
 * and keep running, so growing the window brings everything back. */
static void draw_small(const struct tui *t)
{
	const struct path_summary *a = &t->win.path[0], *b = &t->win.path[1];

	attron(tui_attr(t, CP_WARN));
	tui_putf(0, 0, COLS, "terminal too small (need %dx%d, have %dx%d)",
		 TUI_MIN_COLS, TUI_MIN_ROWS, COLS, LINES);
	attroff(tui_attr(t, CP_WARN));
	tui_putf(1, 0, COLS, "bh %.1f MiB/s  iomap %.1f MiB/s%s",
		 a->write_mbps, b->write_mbps, t->paused ? "  PAUSED" : "");
	tui_put(2, 0, COLS, "q quit");
}

static void draw_screen(const struct tui *t, const struct tui_layout *l)
{
	int y = 1, spare, rest, devs;
	enum shape shape = COMPACT;

	draw_title(t, l);
	y += draw_attach(t, l, y);
	draw_devices(t, l, y++);
	draw_colhdr(t, l, y++);
	/* what the full rows, the history and the key line would leave */
	spare = l->h - y - ROWS_FULL - 2 - 1;
	if (spare >= PANEL_MIN + 5)
		shape = FULL;
	/* gaps only once a latency histogram keeps its 1-2-5 steps */
	if (spare - ROOMY_GAPS >= PANEL_ROOMY + DEVS_ROOMY)
		shape = ROOMY;
	y = draw_metrics(t, l, y, shape);
	draw_history(t, l, y);
	y += 2;
	rest = l->h - 1 - y;
	devs = tui_dev_rows(t);
	if (devs > rest - PANEL_MIN - 1)
		devs = rest - PANEL_MIN - 1;
	if (devs < 1)
		devs = 1;
	tui_draw_panel(t, l, y, rest - devs - 1);
	tui_draw_devs(t, l, l->h - 1 - devs - 1, devs + 1);
	draw_footer(t, l);
}

void tui_draw(struct tui *t)
{
	struct tui_layout l;

	layout_init(&l);
	erase();
	if (l.w < TUI_MIN_COLS || l.h < TUI_MIN_ROWS)
		draw_small(t);
	else
		draw_screen(t, &l);
	if (t->help && l.w >= 40 && l.h >= 10)
		draw_help(t, &l);
	wnoutrefresh(stdscr);
	doupdate();
}
