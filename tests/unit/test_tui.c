// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The TUI's pure pieces: interval steps, number formats, key state. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "tui/tui.h"

TEST(tui_interval_steps_up_and_down)
{
	CHECK(tui_interval_step(1, 1) == 2);
	CHECK(tui_interval_step(1, -1) == 0.5);
	CHECK(tui_interval_step(0.7, 1) == 1);
	CHECK(tui_interval_step(0.7, -1) == 0.5);
	/* the bounds hold */
	CHECK(tui_interval_step(TUI_MAX_INTERVAL, 1) == TUI_MAX_INTERVAL);
	CHECK(tui_interval_step(TUI_MIN_INTERVAL, -1) == TUI_MIN_INTERVAL);
}

TEST(tui_fmt_num_groups_thousands)
{
	char b[32];

	CHECK(!strcmp(tui_fmt_num(b, sizeof(b), 0), "0"));
	CHECK(!strcmp(tui_fmt_num(b, sizeof(b), 2.5), "2.5"));
	CHECK(!strcmp(tui_fmt_num(b, sizeof(b), 97917), "97,917"));
	CHECK(!strcmp(tui_fmt_num(b, sizeof(b), 1234567), "1,234,567"));
	CHECK(!strcmp(tui_fmt_num(b, sizeof(b), -3), "0"));
}

static struct tui *fresh(void)
{
	struct tui *t = calloc(1, sizeof(*t));

	t->interval = 1;
	return t;
}

TEST(tui_keys_change_state)
{
	struct tui *t = fresh();

	CHECK(tui_key(t, 'p') == REQ_REDRAW && t->paused);
	CHECK(tui_key(t, 'p') == REQ_REDRAW && !t->paused);
	CHECK(tui_key(t, 'r') == REQ_RESET);
	CHECK(tui_key(t, '+') == REQ_INTERVAL && t->interval == 2);
	CHECK(tui_key(t, '-') == REQ_INTERVAL && t->interval == 1);
	CHECK(tui_key(t, '\t') == REQ_REDRAW && t->view == 1);
	CHECK(tui_key(t, 'i') == REQ_REDRAW && t->view == VIEW_READ);
	CHECK(tui_key(t, 'i') == REQ_REDRAW && t->view == VIEW_LAT);
	t->view = VIEW_BIO;
	CHECK(tui_key(t, 'h') == REQ_REDRAW && t->help);
	/* any key closes the help overlay, and does nothing else */
	CHECK(tui_key(t, 'q') == REQ_REDRAW && !t->help);
	CHECK(tui_key(t, 'q') == REQ_QUIT);
	CHECK(tui_key(t, 'z') == REQ_NONE);
	free(t);
}

TEST(tui_device_filter_cycles_through_all)
{
	struct tui *t = fresh();

	t->nr_seen = 2;
	t->seen[0] = 7 << 20;
	t->seen[1] = (7 << 20) | 1;
	tui_key(t, 'd');
	CHECK(t->filtered && t->filter_dev == t->seen[0]);
	tui_key(t, 'd');
	CHECK(t->filtered && t->filter_dev == t->seen[1]);
	tui_key(t, 'd');
	CHECK(!t->filtered);
	tui_key(t, 'D');
	CHECK(t->filtered && t->filter_dev == t->seen[1]);
	free(t);
}
