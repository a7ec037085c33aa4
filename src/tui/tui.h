/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live screen of bhprof top. top.c owns the run (collector, interval
 * clock, recording); the tui_*.c files only turn snapshots into a screen
 * and key presses into requests, so a key can never cost a collector read.
 */
#ifndef BHPROF_TUI_H
#define BHPROF_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include "model/summary.h"

#define TUI_HISTORY 120		/* intervals kept for the sparklines */
#define TUI_MIN_COLS 80
#define TUI_MIN_ROWS 24
#define TUI_MIN_INTERVAL 0.1
#define TUI_MAX_INTERVAL 60.0

enum tui_view {
	VIEW_LAT, VIEW_BIO, VIEW_BH, VIEW_READ, VIEW_CALLERS, VIEW_FS, NR_VIEWS
};

/* what a key asks of the loop in top.c */
enum tui_req {
	REQ_NONE,	/* nothing visible changed */
	REQ_REDRAW,
	REQ_QUIT,
	REQ_RESET,	/* take the current snapshot as the new baseline */
	REQ_INTERVAL,	/* t->interval changed: reschedule */
};

struct tui_ring {
	double mbps[TUI_HISTORY];
	double p99[TUI_HISTORY];	/* write latency, ns */
	unsigned int head, len;		/* head: next slot to fill */
};

/* Bios of one (device, path) pair over a window. */
struct tui_dev {
	uint32_t dev;
	uint32_t path;
	char name[32];
	uint64_t bios, bytes;
	uint64_t size_log2[DEV_SIZE_SLOTS];
};

struct tui_devs {
	uint32_t nr;
	struct tui_dev d[MAX_SNAP_DEVS];
};

struct tui {
	const struct run_info *info;
	const char *record;		/* -o FILE, NULL if not recording */
	double interval;		/* seconds */
	double up;			/* seconds since the run started */
	double since_reset;		/* seconds covered by cum */
	bool paused, help, utf8, colour;
	bool fed;			/* at least one interval shown */
	const char *note;		/* e.g. the command's exit */
	enum tui_view view;
	bool filtered;			/* else all devices */
	uint32_t filter_dev;		/* set by d, one of seen[] */
	uint32_t nr_seen;
	uint32_t seen[MAX_SNAP_DEVS];	/* devices with bios, sorted */
	struct summary win;		/* the last interval */
	struct summary cum;		/* since start or the last reset */
	struct tui_devs win_devs, cum_devs;
	struct tui_ring ring[NR_PATHS];
	struct snapshot *scratch;	/* snapshot_delta's output */
};

/* tui.c: the screen's life and the state it shows */
struct tui *tui_alloc(const struct run_info *info, double interval,
		      const char *record);
void tui_free(struct tui *t);
int tui_open(struct tui *t);
/* safe to call twice, from atexit and from error paths */
void tui_close(void);
bool tui_is_open(void);
/* one interval (prev, cur], and everything since base */
void tui_feed(struct tui *t, const struct snapshot *base,
	      const struct snapshot *prev, const struct snapshot *cur);
void tui_reset(struct tui *t);
/* the next key within timeout_ms, or ERR */
int tui_getch(int timeout_ms);
const char *tui_dev_name(const struct tui *t, uint32_t dev);

/* tui_keys.c */
enum tui_req tui_key(struct tui *t, int ch);
double tui_interval_step(double cur, int dir);

/* tui_draw.c: the whole screen from t, then one doupdate() */
void tui_draw(struct tui *t);

/* tui_panel.c: the lower panel and the device table */
struct tui_layout {
	int w, h;
	int label_w;		/* metric names */
	int col_w;		/* each path's column */
	int x[NR_PATHS];	/* where each column starts */
	int val_w;		/* values are right-aligned in this width */
};

void tui_draw_panel(const struct tui *t, const struct tui_layout *l, int y,
		    int rows);
int tui_dev_rows(const struct tui *t);
/* tui_callers.c: the callers view (--callers), which only a run with
 * --callers has: without, Tab passes it by and the tab bar leaves it out */
bool tui_view_on(const struct tui *t, enum tui_view v);
/* tui_fs.c: the filesystems view, per filesystem type and path */
void tui_view_fs(const struct tui *t, const struct tui_layout *l, int y,
		 int rows);
void tui_view_callers(const struct tui *t, const struct tui_layout *l, int y,
		      int rows);
void tui_draw_devs(const struct tui *t, const struct tui_layout *l, int y,
		   int rows);
void tui_path_bios(const struct tui *t, const struct summary *s,
		   const struct tui_devs *devs, unsigned int path,
		   uint64_t *bios, uint64_t *bytes);

/* tui_bars.c: the few glyph-level primitives */
enum tui_pair {
	CP_NONE,
	CP_BETTER,
	CP_TITLE,
	CP_BH,
	CP_IOMAP,
	CP_WARN,
	CP_DIM,
	NR_PAIRS,
};

void tui_colours(struct tui *t);
int tui_attr(const struct tui *t, enum tui_pair pair);
/* text clipped to w columns at (y, x); returns the columns used */
int tui_put(int y, int x, int w, const char *s);
int tui_putf(int y, int x, int w, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void tui_rule(const struct tui *t, int y, int x, int w);
void tui_box(const struct tui *t, int y, int x, int h, int w);
/* a horizontal bar of frac (0..1) of w columns */
void tui_hbar(const struct tui *t, int y, int x, int w, double frac);
/* the last w values of a series as one row of block glyphs, 0..max */
void tui_spark(const struct tui *t, int y, int x, int w, const double *v,
	       unsigned int head, unsigned int len, double max);
/* "12,345" for rates and counts; one decimal below 10 */
const char *tui_fmt_num(char *buf, size_t len, double v);
/* "2.52 ms", "74.8 us", "110 ms": at most 7 columns below 1000 s */

#endif /* BHPROF_TUI_H */
