// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Keys of the live screen. A key only changes what is shown or asks top.c
 * for something (quit, reset, a new interval); it never reads the
 * collector, so holding a key down costs nothing but redraws.
 */
#include <curses.h>
#include "tui.h"
#include "util/array.h"

/* round steps, so the header never says "interval 0.4 s" after 0.2 * 2 */
static const double steps[] = {
	0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60,
};

#define NR_STEPS ARRAY_SIZE(steps)

double tui_interval_step(double cur, int dir)
{
	if (dir > 0) {
		for (unsigned int i = 0; i < NR_STEPS; i++)
			if (steps[i] > cur + 1e-9)
				return steps[i];
		return TUI_MAX_INTERVAL;
	}
	for (unsigned int i = NR_STEPS; i-- > 0;)
		if (steps[i] < cur - 1e-9)
			return steps[i];
	return TUI_MIN_INTERVAL;
}

static enum tui_req interval_key(struct tui *t, int dir)
{
	double next = tui_interval_step(t->interval, dir);

	if (next == t->interval)
		return REQ_NONE;
	t->interval = next;
	return REQ_INTERVAL;
}

/* all -> first device -> ... -> last device -> all */
static enum tui_req filter_key(struct tui *t, int dir)
{
	int n = (int)t->nr_seen, i = -1;

	if (!n) {
		t->filtered = false;
		return REQ_REDRAW;
	}
	if (t->filtered)
		for (int k = 0; k < n; k++)
			if (t->seen[k] == t->filter_dev)
				i = k;
	/* positions -1 (all) .. n-1, cycled */
	i = (i + 1 + dir + n + 1) % (n + 1) - 1;
	t->filtered = i >= 0;
	if (t->filtered)
		t->filter_dev = t->seen[i];
	return REQ_REDRAW;
}

static enum tui_req view_key(struct tui *t, int dir)
{
	do
		t->view = (enum tui_view)((t->view + NR_VIEWS + dir) % NR_VIEWS);
	while (!tui_view_on(t, t->view));
	return REQ_REDRAW;
}

enum tui_req tui_key(struct tui *t, int ch)
{
	if (ch == KEY_RESIZE || ch == 'L' - '@') {
		/* a shrunk-then-grown screen may hold stale cells: repaint */
		clearok(curscr, TRUE);
		return REQ_REDRAW;
	}
	if (t->help) {
		t->help = false;
		return REQ_REDRAW;
	}
	switch (ch) {
	case 'q':
	case 'Q':
		return REQ_QUIT;
	case 'p':
	case 'P':
	case ' ':
		t->paused = !t->paused;
		return REQ_REDRAW;
	case 'r':
	case 'R':
		return REQ_RESET;
	case '+':
	case '=':
	case KEY_RIGHT:
		return interval_key(t, 1);
	case '-':
	case '_':
	case KEY_LEFT:
		return interval_key(t, -1);
	case 'd':
		return filter_key(t, 1);
	case 'D':
		return filter_key(t, -1);
	case '\t':
		return view_key(t, 1);
	case 'i':
	case 'I':
		/* the read view and back: reads are the other half */
		t->view = t->view == VIEW_READ ? VIEW_LAT : VIEW_READ;
		return REQ_REDRAW;
	case KEY_BTAB:
		return view_key(t, -1);
	case 'h':
	case 'H':
	case '?':
	case KEY_F(1):
		t->help = true;
		return REQ_REDRAW;
	}
	return REQ_NONE;
}
