// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Glyph-level drawing for the live screen: clipped text, rules, bars and
 * sparklines. Everything degrades to ASCII when the locale is not UTF-8,
 * so a serial console or LANG=C still gets a readable screen.
 */
#include <math.h>
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include "tui.h"

/* index i is i/8 of a cell; [0] is never drawn */
static const char *const eighths[] = {
	"", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█",
};

static const char *const spark_utf8[] = {
	"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█",
};

static const char spark_ascii[] = "_.-:=+*#";

void tui_colours(struct tui *t)
{
	t->colour = has_colors() && start_color() == OK;
	if (!t->colour)
		return;
	/* -1: keep the terminal's own background, light or dark */
	use_default_colors();
	init_pair(CP_BETTER, COLOR_GREEN, -1);
	init_pair(CP_TITLE, COLOR_BLACK, COLOR_CYAN);
	init_pair(CP_BH, COLOR_CYAN, -1);
	init_pair(CP_IOMAP, COLOR_MAGENTA, -1);
	init_pair(CP_WARN, COLOR_RED, -1);
	init_pair(CP_DIM, -1, -1);
}

/* Without colours every pair still has to read as something distinct. */
int tui_attr(const struct tui *t, enum tui_pair pair)
{
	static const int mono[NR_PAIRS] = {
		[CP_BETTER] = A_BOLD | A_UNDERLINE,
		[CP_TITLE] = A_REVERSE,
		[CP_BH] = A_BOLD,
		[CP_IOMAP] = A_BOLD,
		[CP_WARN] = A_BOLD,
		[CP_DIM] = A_DIM,
	};
	static const int extra[NR_PAIRS] = {
		[CP_BETTER] = A_BOLD,
		[CP_BH] = A_BOLD,
		[CP_IOMAP] = A_BOLD,
		[CP_WARN] = A_BOLD,
		[CP_DIM] = A_DIM,
	};

	if (pair <= CP_NONE || pair >= NR_PAIRS)
		return A_NORMAL;
	if (!t->colour)
		return mono[pair];
	return COLOR_PAIR(pair) | extra[pair];
}

/*
 * waddstr wraps at the right margin, which would tear the layout on a
 * narrow screen, so every string is cut to its cell budget first. Only
 * single-width glyphs are ever drawn: a UTF-8 lead byte is one column.
 */
int tui_put(int y, int x, int w, const char *s)
{
	int cols = 0;
	size_t n;

	if (y < 0 || y >= LINES || x < 0 || x >= COLS || w <= 0)
		return 0;
	if (w > COLS - x)
		w = COLS - x;
	for (n = 0; s[n]; n++) {
		if (((unsigned char)s[n] & 0xC0) == 0x80)
			continue;
		if (cols == w)
			break;
		cols++;
	}
	mvaddnstr(y, x, s, (int)n);
	return cols;
}

int tui_putf(int y, int x, int w, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return tui_put(y, x, w, buf);
}

/*
 * Line drawing: curses' ACS glyphs in a UTF-8 locale; plain ASCII
 * otherwise, because a multiplexer in a C locale may print ACS as the
 * letters it is encoded with ("qqqq").
 */
static chtype line_ch(const struct tui *t, chtype acs, char ascii)
{
	return t->utf8 ? acs : (chtype)ascii;
}

void tui_rule(const struct tui *t, int y, int x, int w)
{
	if (y < 0 || y >= LINES || x >= COLS || w <= 0)
		return;
	if (w > COLS - x)
		w = COLS - x;
	attron(tui_attr(t, CP_DIM));
	mvhline(y, x, line_ch(t, ACS_HLINE, '-'), w);
	attroff(tui_attr(t, CP_DIM));
}

void tui_box(const struct tui *t, int y, int x, int h, int w)
{
	chtype hl = line_ch(t, ACS_HLINE, '-'), vl = line_ch(t, ACS_VLINE, '|');

	mvhline(y, x + 1, hl, w - 2);
	mvhline(y + h - 1, x + 1, hl, w - 2);
	mvvline(y + 1, x, vl, h - 2);
	mvvline(y + 1, x + w - 1, vl, h - 2);
	mvaddch(y, x, line_ch(t, ACS_ULCORNER, '+'));
	mvaddch(y, x + w - 1, line_ch(t, ACS_URCORNER, '+'));
	mvaddch(y + h - 1, x, line_ch(t, ACS_LLCORNER, '+'));
	mvaddch(y + h - 1, x + w - 1, line_ch(t, ACS_LRCORNER, '+'));
}

void tui_hbar(const struct tui *t, int y, int x, int w, double frac)
{
	int cells, i;

	if (frac <= 0 || w <= 0)
		return;
	if (frac > 1)
		frac = 1;
	if (!t->utf8) {
		cells = (int)(frac * w + 0.5);
		/* a non-zero share never vanishes */
		for (i = 0; i < (cells ? cells : 1); i++)
			tui_put(y, x + i, 1, "#");
		return;
	}
	cells = (int)(frac * w * 8 + 0.5);
	if (!cells)
		cells = 1;
	for (i = 0; i < cells / 8; i++)
		tui_put(y, x + i, 1, eighths[8]);
	if (cells % 8)
		tui_put(y, x + i, 1, eighths[cells % 8]);
}

/* level 0 is zero itself, so an idle path reads as a flat floor; NAN
 * (nothing measured, as a latency without a call) is left blank */
static void spark_cell(const struct tui *t, int y, int x, double v,
		       double max)
{
	int lvl = 0;

	if (isnan(v)) {
		tui_put(y, x, 1, " ");
		return;
	}

	if (v > 0 && max > 0) {
		lvl = 1 + (int)(v / max * 6.999);
		if (lvl > 7)
			lvl = 7;
	}
	if (!lvl)
		attron(tui_attr(t, CP_DIM));
	if (t->utf8)
		tui_put(y, x, 1, spark_utf8[lvl]);
	else
		mvaddch(y, x, spark_ascii[lvl]);
	if (!lvl)
		attroff(tui_attr(t, CP_DIM));
}

void tui_spark(const struct tui *t, int y, int x, int w, const double *v,
	       unsigned int head, unsigned int len, double max)
{
	unsigned int n = len < (unsigned int)w ? len : (unsigned int)w;

	if (w <= 0 || y >= LINES)
		return;
	/* newest at the right edge, like a strip chart */
	for (unsigned int i = 0; i < n; i++) {
		unsigned int idx = (head + TUI_HISTORY - n + i) % TUI_HISTORY;

		spark_cell(t, y, x + w - (int)n + (int)i, v[idx], max);
	}
}

const char *tui_fmt_num(char *buf, size_t len, double v)
{
	char digits[32];
	size_t n, o = 0;

	if (v < 0)
		v = 0;
	if (v == 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	if (v < 10) {
		snprintf(buf, len, "%.1f", v);
		return buf;
	}
	if (v >= 1e12) {
		snprintf(buf, len, "%.3g", v);
		return buf;
	}
	n = (size_t)snprintf(digits, sizeof(digits), "%.0f", v);
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = 0;
	return buf;
}
