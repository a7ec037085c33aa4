// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live screen's life (curses up and down, whatever way the run ends)
 * and the state it shows, fed once per interval by top.c.
 */
#include <math.h>
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "model/devices.h"
#include "tui.h"

static SCREEN *screen;
static bool atexit_set;

/*
 * Anything written to stderr while curses owns the terminal (a libbpf
 * warning, say) would land in the middle of the screen and stay there
 * until the next full repaint. Hold it in a file and replay it once the
 * terminal is back.
 */
static FILE *held_err;
static int saved_err = -1;

static void stderr_hold(void)
{
	fflush(stderr);
	held_err = tmpfile();
	if (!held_err)
		return;
	saved_err = dup(STDERR_FILENO);
	if (saved_err < 0 || dup2(fileno(held_err), STDERR_FILENO) < 0) {
		if (saved_err >= 0)
			close(saved_err);
		saved_err = -1;
		fclose(held_err);
		held_err = NULL;
	}
}

static void stderr_release(void)
{
	char buf[4096];
	size_t n;

	if (!held_err)
		return;
	fflush(stderr);
	dup2(saved_err, STDERR_FILENO);
	close(saved_err);
	saved_err = -1;
	rewind(held_err);
	while ((n = fread(buf, 1, sizeof(buf), held_err)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(held_err);
	held_err = NULL;
}

static void seen_add(struct tui *t, uint32_t dev);

struct tui *tui_alloc(const struct run_info *info, double interval,
		      const char *record)
{
	struct tui *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->scratch = calloc(1, sizeof(*t->scratch));
	if (!t->scratch) {
		free(t);
		return NULL;
	}
	t->info = info;
	t->interval = interval;
	t->record = record;
	/* devices asked for with -d can be picked before they see a bio */
	for (uint32_t i = 0; i < info->nr_filter_devs; i++)
		seen_add(t, info->filter_devs[i]);
	return t;
}

void tui_free(struct tui *t)
{
	if (!t)
		return;
	free(t->scratch);
	free(t);
}

bool tui_is_open(void)
{
	return screen != NULL;
}

void tui_close(void)
{
	if (!screen)
		return;
	endwin();
	delscreen(screen);
	screen = NULL;
	stderr_release();
}

int tui_open(struct tui *t)
{
	/* LC_CTYPE only: numbers in JSON and text must keep their '.' */
	setlocale(LC_CTYPE, "");
	t->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (!atexit_set) {
		atexit(tui_close);
		atexit_set = true;
	}
	/* newterm, unlike initscr, reports a bad $TERM instead of exiting */
	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		return -1;
	cbreak();	/* not raw: ^C must still raise SIGINT */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	tui_colours(t);
	stderr_hold();
	return 0;
}

int tui_getch(int timeout_ms)
{
	timeout(timeout_ms);
	return getch();
}

static bool dev_seen(const struct tui *t, uint32_t dev)
{
	for (uint32_t i = 0; i < t->nr_seen; i++)
		if (t->seen[i] == dev)
			return true;
	return false;
}

/* sorted insert, so d cycles in a stable order */
static void seen_add(struct tui *t, uint32_t dev)
{
	uint32_t i;

	if (dev_seen(t, dev) || t->nr_seen >= MAX_SNAP_DEVS)
		return;
	for (i = t->nr_seen; i > 0 && t->seen[i - 1] > dev; i--)
		t->seen[i] = t->seen[i - 1];
	t->seen[i] = dev;
	t->nr_seen++;
}

const char *tui_dev_name(const struct tui *t, uint32_t dev)
{
	static char buf[32];

	for (uint32_t i = 0; i < t->cum.nr_devs; i++)
		if (t->cum.devs[i].dev == dev)
			return t->cum.devs[i].name;
	for (uint32_t i = 0; i < t->win.nr_devs; i++)
		if (t->win.devs[i].dev == dev)
			return t->win.devs[i].name;
	return dev_name(dev, buf, sizeof(buf));
}

static int tdev_cmp(const void *a, const void *b)
{
	const struct tui_dev *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->path < y->path ? -1 : x->path > y->path;
}

/* The (device, path) rows of the window (a, b]; summaries only keep
 * per-device totals, but the table shows each path on its own line. */
static void devs_window(struct tui *t, const struct snapshot *a,
			const struct snapshot *b, struct tui_devs *out)
{
	struct snapshot *d = t->scratch;

	snapshot_delta(a, b, d);
	out->nr = 0;
	for (uint32_t i = 0; i < d->nr_devs; i++) {
		const struct dev_row *r = &d->devs[i];
		struct tui_dev *td;

		if (!r->s.bios)
			continue;
		td = &out->d[out->nr++];
		td->dev = r->dev;
		td->path = r->path <= NR_PATHS ? r->path : PATH_NONE;
		td->bios = r->s.bios;
		td->bytes = r->s.bytes;
		memcpy(td->size_log2, r->s.size_log2, sizeof(td->size_log2));
		snprintf(td->name, sizeof(td->name), "%s",
			 tui_dev_name(t, r->dev));
	}
	qsort(out->d, out->nr, sizeof(out->d[0]), tdev_cmp);
}

static void ring_push(struct tui_ring *r, double mbps, double p99)
{
	r->mbps[r->head] = mbps;
	r->p99[r->head] = p99;
	r->head = (r->head + 1) % TUI_HISTORY;
	if (r->len < TUI_HISTORY)
		r->len++;
}

void tui_feed(struct tui *t, const struct snapshot *base,
	      const struct snapshot *prev, const struct snapshot *cur)
{
	summarize(prev, cur, &t->win);
	summarize(base, cur, &t->cum);
	devs_window(t, prev, cur, &t->win_devs);
	devs_window(t, base, cur, &t->cum_devs);
	for (uint32_t i = 0; i < t->cum_devs.nr; i++)
		seen_add(t, t->cum_devs.d[i].dev);
	for (unsigned int p = 0; p < NR_PATHS; p++)
		/* an interval without a call has no p99: a gap, not 0 */
		ring_push(&t->ring[p], t->win.path[p].write_mbps,
			  t->win.path[p].write_lat.count ?
				  (double)t->win.path[p].write_lat.p99 : NAN);
	t->since_reset = t->cum.secs;
	t->fed = true;
}

/* Totals and distributions start again; the history strip is rates and
 * stays, so the trend across the reset is still visible. */
void tui_reset(struct tui *t)
{
	memset(&t->cum, 0, sizeof(t->cum));
	t->cum_devs.nr = 0;
	t->since_reset = 0;
}
