// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The lower half of the live screen: one of four views (write latency,
 * bio sizes, buffer_heads, reads) over everything since the last reset, then
 * the per-device table over the last interval. Distributions want many
 * events to mean anything, so they accumulate; rates stay live.
 */
#include <math.h>
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include "output/output.h"
#include "tui.h"

#define MIB (1024.0 * 1024.0)
#define NR_GROUPS 64

static const enum tui_pair path_pair[NR_PATHS] = { CP_BH, CP_IOMAP };

static bool dev_match(const struct tui *t, const struct tui_dev *d)
{
	return !t->filtered || d->dev == t->filter_dev;
}

void tui_path_bios(const struct tui *t, const struct summary *s,
		   const struct tui_devs *devs, unsigned int path,
		   uint64_t *bios, uint64_t *bytes)
{
	*bios = *bytes = 0;
	if (!t->filtered) {
		*bios = s->path[path].c.bio_count;
		*bytes = s->path[path].c.bio_bytes;
		return;
	}
	for (uint32_t i = 0; i < devs->nr; i++) {
		if (devs->d[i].path != path || !dev_match(t, &devs->d[i]))
			continue;
		*bios += devs->d[i].bios;
		*bytes += devs->d[i].bytes;
	}
}

/* ---- a distribution in a few rows ---- */

/*
 * Sizes group by powers of two (4 KiB, 8 KiB, ...), which is how bios
 * come; latencies by 1-2-5 steps (10 us, 20 us, 50 us, ...), which is how
 * people read them. Group k starts at edge(k) and ends at edge(k + 1).
 */
struct groups {
	uint64_t n[NR_PATHS][NR_GROUPS];
	bool bytes;
};

static uint64_t lat_edge(unsigned int k)
{
	static const unsigned int mant[3] = { 1, 2, 5 };
	uint64_t v = mant[k % 3];

	/* 5e18 is the last edge a u64 holds; nothing lasts that long */
	if (k / 3 > 18)
		return UINT64_MAX;
	for (unsigned int i = 0; i < k / 3; i++)
		v *= 10;
	return v;
}

static uint64_t group_edge(const struct groups *g, unsigned int k)
{
	if (g->bytes)
		return k < 64 ? 1ULL << k : UINT64_MAX;
	return k ? lat_edge(k) : 0;
}

static unsigned int group_of(const struct groups *g, uint64_t v)
{
	unsigned int k = 0;

	if (g->bytes)
		return v ? 63 - (unsigned int)__builtin_clzll(v) : 0;
	while (k + 1 < NR_GROUPS && lat_edge(k + 1) <= v)
		k++;
	return k;
}

static void groups_hist(struct groups *g, unsigned int p,
			const struct bhp_hist *h)
{
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		if (h->b[i])
			g->n[p][group_of(g, hist_bucket_low(i))] += h->b[i];
}

static void groups_devs(const struct tui *t, struct groups *g)
{
	for (uint32_t i = 0; i < t->cum_devs.nr; i++) {
		const struct tui_dev *d = &t->cum_devs.d[i];

		if (d->path >= NR_PATHS || !dev_match(t, d))
			continue;
		for (unsigned int k = 0; k < DEV_SIZE_SLOTS; k++)
			g->n[d->path][k] += d->size_log2[k];
	}
}

/* edges are round numbers: "4 KiB", "500 us", "2 s" */
static const char *edge_text(char *buf, size_t len, uint64_t v, bool bytes)
{
	static const char *const bu[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	static const char *const tu[] = { "ns", "us", "ms", "s" };
	unsigned int u = 0;

	if (bytes) {
		while (v >= 1024 && !(v % 1024) && u < 4) {
			v /= 1024;
			u++;
		}
		snprintf(buf, len, "%llu %s", (unsigned long long)v, bu[u]);
		return buf;
	}
	while (v >= 1000 && !(v % 1000) && u < 3) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)v, tu[u]);
	return buf;
}

/* "4-8 KiB", "500 us-1 ms": the range [lo, hi), one unit if shared */
static void range_label(char *buf, size_t len, uint64_t lo, uint64_t hi,
			bool bytes)
{
	char a[32], b[32];
	const char *ua, *ub;

	edge_text(a, sizeof(a), lo, bytes);
	edge_text(b, sizeof(b), hi, bytes);
	ua = strchr(a, ' ');
	ub = strchr(b, ' ');
	if (ua && ub && !strcmp(ua, ub))
		snprintf(buf, len, "%.*s-%s", (int)(ua - a), a, b);
	else
		snprintf(buf, len, "%s-%s", a, b);
}

static void pct_text(char *buf, size_t len, double frac)
{
	if (frac <= 0)
		buf[0] = 0;
	else if (frac < 0.005)
		snprintf(buf, len, "<1%%");
	else
		snprintf(buf, len, "%.0f%%", frac * 100);
}

static double group_sum(const struct groups *g, unsigned int p,
			unsigned int a, unsigned int m)
{
	double c = 0;

	for (unsigned int k = a; k < a + m && k < NR_GROUPS; k++)
		c += (double)g->n[p][k];
	return c;
}

/* how many groups a row holds: latencies merge into whole decades */
static unsigned int merge_more(const struct groups *g, unsigned int m)
{
	if (g->bytes)
		return m + 1;
	return m == 1 ? 3 : m + 3;
}

static unsigned int merge_start(const struct groups *g, unsigned int lo,
				unsigned int m)
{
	return !g->bytes && m % 3 == 0 ? lo - lo % 3 : lo;
}

static void group_row(const struct tui *t, const struct tui_layout *l, int y,
		      const struct groups *g, unsigned int a, unsigned int m,
		      const double *total, double top)
{
	char label[80], pct[16];
	int n;

	range_label(label, sizeof(label), group_edge(g, a),
		    group_edge(g, a + m), g->bytes);
	n = (int)strlen(label);
	tui_put(y, l->label_w - 2 - n, n, label);
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		double c = group_sum(g, p, a, m);
		double frac = total[p] > 0 ? c / total[p] : 0;

		attron(tui_attr(t, path_pair[p]) & ~A_BOLD);
		tui_hbar(t, y, l->x[p], l->val_w - 5, top > 0 ? frac / top : 0);
		attroff(tui_attr(t, path_pair[p]) & ~A_BOLD);
		pct_text(pct, sizeof(pct), frac);
		n = (int)strlen(pct);
		tui_put(y, l->x[p] + l->val_w - n, n, pct);
	}
}

static bool group_empty(const struct groups *g, unsigned int a,
			unsigned int m)
{
	return !group_sum(g, 0, a, m) && !group_sum(g, 1, a, m);
}

/*
 * Which rows to show, as first groups of m groups each: the whole range
 * from lo to hi if it fits; else only the groups that hold something
 * (4 KiB and 1 MiB bios need two rows, not nine); else merged groups,
 * still without the empty ones. Returns the number of rows.
 */
static unsigned int plan_rows(const struct groups *g, unsigned int lo,
			      unsigned int hi, unsigned int rows,
			      unsigned int *first, unsigned int *m)
{
	unsigned int n = 0, start;

	*m = 1;
	if (hi - lo + 1 <= rows) {
		for (unsigned int k = lo; k <= hi; k++)
			first[n++] = k;
		return n;
	}
	for (;;) {
		start = merge_start(g, lo, *m);
		n = 0;
		for (unsigned int k = start; k <= hi; k += *m)
			if (!group_empty(g, k, *m))
				first[n++] = k;
		if (n <= rows || *m >= NR_GROUPS)
			return n < rows ? n : rows;
		*m = merge_more(g, *m);
	}
}

/*
 * Each path's bars are its own shares, so two paths with very different
 * event counts still compare by shape; the longest share of either path
 * fills the column.
 */
static void draw_groups(const struct tui *t, const struct tui_layout *l,
			int y, int rows, const struct groups *g)
{
	unsigned int lo = NR_GROUPS, hi = 0, m, n, first[NR_GROUPS];
	double total[NR_PATHS] = { 0 }, top = 0;

	for (unsigned int p = 0; p < NR_PATHS; p++) {
		for (unsigned int i = 0; i < NR_GROUPS; i++) {
			if (!g->n[p][i])
				continue;
			total[p] += (double)g->n[p][i];
			lo = i < lo ? i : lo;
			hi = i > hi ? i : hi;
		}
	}
	if (lo > hi) {
		attron(tui_attr(t, CP_DIM));
		tui_put(y, 1, l->w - 2, "nothing since the last reset");
		attroff(tui_attr(t, CP_DIM));
		return;
	}
	n = plan_rows(g, lo, hi, (unsigned int)rows, first, &m);
	for (unsigned int r = 0; r < n; r++)
		for (unsigned int p = 0; p < NR_PATHS; p++) {
			double c = group_sum(g, p, first[r], m);

			if (total[p] > 0 && c / total[p] > top)
				top = c / total[p];
		}
	for (unsigned int r = 0; r < n; r++)
		group_row(t, l, y + (int)r, g, first[r], m, total, top);
}

static void view_lat(const struct tui *t, const struct tui_layout *l, int y,
		     int rows)
{
	struct groups g;

	memset(&g, 0, sizeof(g));
	for (unsigned int p = 0; p < NR_PATHS; p++)
		groups_hist(&g, p, &t->cum.path[p].hist[HIST_WRITE_LAT]);
	draw_groups(t, l, y, rows, &g);
}

static void view_bio(const struct tui *t, const struct tui_layout *l, int y,
		     int rows)
{
	struct groups g;

	memset(&g, 0, sizeof(g));
	g.bytes = true;
	if (t->filtered)
		groups_devs(t, &g);
	else
		for (unsigned int p = 0; p < NR_PATHS; p++)
			groups_hist(&g, p, &t->cum.path[p].hist[HIST_BIO_SIZE]);
	draw_groups(t, l, y, rows, &g);
}

static double fin0(double v)
{
	return isfinite(v) ? v : 0;
}

/* a value right-aligned in the column, a bar against the pair's larger;
 * NAN (under 1 MiB for a per-MiB figure) reads "-" */
static void bh_row(const struct tui *t, const struct tui_layout *l, int y,
		   const char *label, const double v[NR_PATHS], bool bytes)
{
	double top = fmax(fin0(v[0]), fin0(v[1]));

	tui_put(y, 1, l->label_w - 2, label);
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		char s[32];
		int n;

		if (!isfinite(v[p])) {
			tui_put(y, l->x[p] + l->val_w - 1, 1, "-");
			continue;
		}
		if (bytes)
			fmt_bytes(s, sizeof(s), v[p]);
		else
			tui_fmt_num(s, sizeof(s), v[p]);
		n = (int)strlen(s);
		if (!bytes) {
			attron(tui_attr(t, path_pair[p]) & ~A_BOLD);
			tui_hbar(t, y, l->x[p], l->val_w - 12,
				 top > 0 ? v[p] / top : 0);
			attroff(tui_attr(t, path_pair[p]) & ~A_BOLD);
		}
		tui_put(y, l->x[p] + l->val_w - n, n, s);
	}
}

static void view_bh(const struct tui *t, const struct tui_layout *l, int y,
		    int rows)
{
	const struct path_summary *w = t->win.path, *c = t->cum.path;
	double v[NR_PATHS];
	int end = y + rows;
	char a[32], b[32], d[32];

#define BH_ROW(label, expr, bytes)                                  \
	do {                                                        \
		if (y >= end)                                       \
			return;                                     \
		for (unsigned int p = 0; p < NR_PATHS; p++)         \
			v[p] = (expr);                              \
		bh_row(t, l, y++, label, v, bytes);                 \
	} while (0)

	BH_ROW("allocs/s", w[p].bh_alloc_ps, false);
	BH_ROW("per MiB written", w[p].bh_per_mib, false);
	BH_ROW("allocs, total", (double)c[p].c.bh_alloc, false);
	BH_ROW("written, total",
	       (double)(c[p].c.write_bytes + c[p].c.dio_bytes), true);
	BH_ROW("per MiB, total", c[p].bh_per_mib, false);
	/* what small writes are judged by: per MiB needs a MiB */
	BH_ROW("per write call", c[p].bh_per_call, false);
	BH_ROW("per wb page", c[p].bh_per_page, false);
#undef BH_ROW
	if (y >= end)
		return;
	tui_put(y, 1, l->label_w - 2, "no path");
	tui_putf(y, l->x[0], l->w - l->x[0] - 1,
		 "%s/s now, %s since reset, of %s/s in all",
		 tui_fmt_num(a, sizeof(a),
			     t->win.secs > 0 ?
				     (double)t->win.glob.bh_alloc_none /
					     t->win.secs :
				     0),
		 tui_fmt_num(b, sizeof(b), (double)t->cum.glob.bh_alloc_none),
		 tui_fmt_num(d, sizeof(d),
			     t->win.secs > 0 ?
				     (double)t->win.glob.bh_alloc_total /
					     t->win.secs :
				     0));
}

/* one figure of each path, or why it is unknown ("n/a", "failed", "-") */
static void read_row2(const struct tui *t, const struct tui_layout *l, int y,
		      const char *label, const double v[NR_PATHS], char kind,
		      const char *const why[NR_PATHS])
{
	tui_put(y, 1, l->label_w - 2, label);
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		char s[32];
		int n;

		if (why[p])
			snprintf(s, sizeof(s), "%s", why_cell(why[p]));
		else if (kind == 'b')
			fmt_bytes(s, sizeof(s), v[p]);
		else if (kind == 't')
			fmt_ns(s, sizeof(s), v[p]);
		else
			tui_fmt_num(s, sizeof(s), v[p]);
		n = (int)strlen(s);
		tui_put(y, l->x[p] + l->val_w - n, n, s);
	}
}

static void read_row(const struct tui *t, const struct tui_layout *l, int y,
		     const char *label, const double v[NR_PATHS], char kind,
		     const char *why)
{
	const char *const w[NR_PATHS] = { why, why };

	read_row2(t, l, y, label, v, kind, w);
}

/* Reads, page_mkwrite faults and O_DIRECT fallbacks: rates over the
 * last interval, distributions and totals since the reset. */
static void view_read(const struct tui *t, const struct tui_layout *l, int y,
		      int rows)
{
	const struct path_summary *w = t->win.path, *c = t->cum.path;
	const struct run_info *in = t->info;
	double secs = t->win.secs > 0 ? t->win.secs : 1, v[NR_PATHS];
	int end = y + rows;

#define READ_ROW(label, expr, kind, fig)                            \
	do {                                                        \
		if (y >= end)                                       \
			return;                                     \
		for (unsigned int p = 0; p < NR_PATHS; p++)         \
			v[p] = (expr);                              \
		read_row(t, l, y++, label, v, kind,                 \
			 figure_why(in, PATH_BH, fig));             \
	} while (0)

/* a figure from samples: "-" on a path without one */
#define DIST_ROW(label, expr, kind, fig, smp)                       \
	do {                                                        \
		const char *why[NR_PATHS];                          \
		if (y >= end)                                       \
			return;                                     \
		for (unsigned int p = 0; p < NR_PATHS; p++) {       \
			v[p] = (expr);                              \
			why[p] = path_figure_why(in, p, &c[p], fig, \
						 smp);              \
		}                                                   \
		read_row2(t, l, y++, label, v, kind, why);          \
	} while (0)

	READ_ROW("read MiB/s", w[p].read_bio_mbps, 'n', FIG_READ_BIOS);
	READ_ROW("read bios/s", w[p].c.read_bio_count / secs, 'n',
		 FIG_READ_BIOS);
	READ_ROW("read calls/s", w[p].c.read_calls / secs, 'n', FIG_READ);
	READ_ROW("pages read/s", w[p].c.read_pages / secs, 'n',
		 FIG_READ_PAGES);
	DIST_ROW("read bio p50", (double)c[p].read_bio_size.p50, 'b',
		 FIG_READ_BIOS, SAMPLE_READ_BIO);
	DIST_ROW("read lat p99", (double)c[p].read_lat.p99, 't', FIG_READ_LAT,
		 SAMPLE_READ);
	READ_ROW("read bh, total", (double)c[p].c.read_bh_alloc, 'n',
		 FIG_READ_BH);
	READ_ROW("mkwrite/s", w[p].c.mkwrite_calls / secs, 'n',
		 FIG_MKWRITE);
	READ_ROW("dio fallbacks", (double)c[p].c.dwf_calls, 'n', FIG_DWF);
#undef READ_ROW
#undef DIST_ROW
}

static const char *const view_names[NR_VIEWS] = {
	[VIEW_LAT] = "write latency",
	[VIEW_BIO] = "bio size",
	[VIEW_BH] = "buffer_heads",
	[VIEW_READ] = "reads",
	[VIEW_CALLERS] = "callers",
	[VIEW_FS] = "fs",
};

/* the rule that heads the panel doubles as its tab bar */
static void panel_tabs(const struct tui *t, const struct tui_layout *l, int y)
{
	char up[64];
	int x = 2;

	tui_rule(t, y, 0, l->w);
	for (int v = 0; v < NR_VIEWS; v++) {
		int a = v == (int)t->view ? A_REVERSE | A_BOLD : A_NORMAL;

		if (!tui_view_on(t, v))
			continue;

		attron(a);
		x += tui_putf(y, x, l->w - x, " %s ", view_names[v]);
		attroff(a);
		x += 1;
	}
	if (t->filtered && t->view == VIEW_BIO)
		x += tui_putf(y, x, l->w - x, " %s ",
			      tui_dev_name(t, t->filter_dev)) + 1;
	snprintf(up, sizeof(up), " since reset %.1f s ", t->since_reset);
	if (x + (int)strlen(up) < l->w - 1)
		tui_put(y, l->w - 1 - (int)strlen(up), (int)strlen(up), up);
}

void tui_draw_panel(const struct tui *t, const struct tui_layout *l, int y,
		    int rows)
{
	if (rows < 1)
		return;
	panel_tabs(t, l, y);
	if (rows < 2)
		return;
	switch (t->view) {
	case VIEW_LAT:
		view_lat(t, l, y + 1, rows - 1);
		break;
	case VIEW_BIO:
		view_bio(t, l, y + 1, rows - 1);
		break;
	case VIEW_READ:
		view_read(t, l, y + 1, rows - 1);
		break;
	case VIEW_CALLERS:
		tui_view_callers(t, l, y + 1, rows - 1);
		break;
	case VIEW_FS:
		tui_view_fs(t, l, y + 1, rows - 1);
		break;
	default:
		view_bh(t, l, y + 1, rows - 1);
		break;
	}
}

/* ---- per-device table: rows since the reset, figures of the interval ---- */

int tui_dev_rows(const struct tui *t)
{
	int n = 0;

	for (uint32_t i = 0; i < t->cum_devs.nr; i++)
		n += dev_match(t, &t->cum_devs.d[i]);
	return n ? n : 1;
}

static const struct tui_dev *win_row(const struct tui *t,
				     const struct tui_dev *d)
{
	for (uint32_t i = 0; i < t->win_devs.nr; i++)
		if (t->win_devs.d[i].dev == d->dev &&
		    t->win_devs.d[i].path == d->path)
			return &t->win_devs.d[i];
	return NULL;
}

#define DEV_FMT "%-12s %-6s %10s %10s %11s %10s"

static void dev_line(const struct tui *t, const struct tui_layout *l, int y,
		     const struct tui_dev *d)
{
	const struct tui_dev *w = win_row(t, d);
	double secs = t->win.secs;
	char mib[32], bps[32], mean[32], p99[32];
	int pair = d->path < NR_PATHS ? (int)path_pair[d->path] : CP_DIM;

	snprintf(mib, sizeof(mib), "%.1f",
		 w && secs > 0 ? (double)w->bytes / secs / MIB : 0);
	tui_fmt_num(bps, sizeof(bps),
		    w && secs > 0 ? (double)w->bios / secs : 0);
	if (w && w->bios) {
		fmt_bytes(mean, sizeof(mean),
			  (double)w->bytes / (double)w->bios);
		fmt_bytes(p99, sizeof(p99),
			  (double)log2_percentile(w->size_log2, 99));
	} else {
		snprintf(mean, sizeof(mean), "-");
		snprintf(p99, sizeof(p99), "-");
	}
	tui_putf(y, 1, l->w - 2, DEV_FMT, d->name, "", mib, bps, mean, p99);
	attron(tui_attr(t, pair));
	tui_put(y, 14, 6, path_name(d->path));
	attroff(tui_attr(t, pair));
}

void tui_draw_devs(const struct tui *t, const struct tui_layout *l, int y,
		   int rows)
{
	int shown = 0, total = 0, left;

	for (uint32_t i = 0; i < t->cum_devs.nr; i++)
		total += dev_match(t, &t->cum_devs.d[i]);
	attron(A_BOLD);
	tui_putf(y, 1, l->w - 2, DEV_FMT, "DEVICE", "PATH", "MiB/s", "BIOS/s",
		 "MEAN BIO", "P99 BIO");
	attroff(A_BOLD);
	if (!total) {
		attron(tui_attr(t, CP_DIM));
		tui_putf(y + 1, 1, l->w - 2, "no write bios%s%s since the last reset",
			 t->filtered ? " on " : "",
			 t->filtered ? tui_dev_name(t, t->filter_dev) : "");
		attroff(tui_attr(t, CP_DIM));
		return;
	}
	for (uint32_t i = 0; i < t->cum_devs.nr; i++) {
		const struct tui_dev *d = &t->cum_devs.d[i];

		if (!dev_match(t, d))
			continue;
		left = total - shown;
		if (shown == rows - 2 && left > 1) {
			attron(tui_attr(t, CP_DIM));
			tui_putf(y + 1 + shown, 1, l->w - 2,
				 "... %d more (d picks one device)", left);
			attroff(tui_attr(t, CP_DIM));
			return;
		}
		dev_line(t, l, y + 1 + shown++, d);
	}
}
