// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --callers in the HTML report: the chains as a flame graph, inline SVG
 * with no script. Boxes sit on integer thousandths of a pixel, each from
 * the running count of allocations before it, so that the children of a
 * box fill exactly its width and the root is the whole.
 */
#include <stdlib.h>
#include <string.h>
#include "callers_out.h"
#include "callers_svg.h"
#include "model/devices.h"
#include "output.h"

#define SVG_W 1200	/* pixels */
#define ROW_H 16
#define MAX_DEPTH 64

/* A node of the merged chains: a frame under a parent, and how many
 * allocations came through it. */
struct node {
	char *name;
	uint64_t n;
	struct node *kids, *next;
};

static struct node *kid(struct node *p, const char *name, size_t len)
{
	struct node **at = &p->kids, *k;

	for (; *at; at = &(*at)->next)
		if (strlen((*at)->name) == len && !strncmp((*at)->name, name, len))
			return *at;
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->name = strndup(name, len);
	if (!k->name) {
		free(k);
		return NULL;
	}
	*at = k;
	return k;
}

static void add_chain(struct node *root, const char *chain, uint64_t n)
{
	struct node *at = root;
	const char *p = chain;

	root->n += n;
	while (*p && at) {
		size_t len = strcspn(p, ";");

		at = kid(at, p, len);
		if (at)
			at->n += n;
		p += len + (p[len] == ';');
	}
}

static void tree_free(struct node *t)
{
	while (t) {
		struct node *next = t->next;

		tree_free(t->kids);
		free(t->name);
		free(t);
		t = next;
	}
}

static int depth_of(const struct node *t)
{
	int d = 0;

	for (const struct node *k = t->kids; k; k = k->next) {
		int kd = depth_of(k);

		if (kd > d)
			d = kd;
	}
	return d + 1;
}

struct flame {
	FILE *f;
	uint64_t total;
	int rows;
};

/* thousandths of a pixel from the left for a running count */
static uint64_t milli_x(const struct flame *fl, uint64_t cum)
{
	return (uint64_t)((unsigned __int128)cum * SVG_W * 1000 / fl->total);
}

static void box(const struct flame *fl, const struct node *t, uint64_t cum,
		int depth)
{
	uint64_t x = milli_x(fl, cum), w = milli_x(fl, cum + t->n) - x;
	/* the root at the bottom, as flamegraph.pl draws it */
	int y = (fl->rows - 1 - depth) * ROW_H;
	double px = w / 1000.0;

	fprintf(fl->f, "<g><title>");
	markup_esc(fl->f, t->name);
	fprintf(fl->f, " (%llu, %.1f%%)</title><rect class=\"fb\" "
		"x=\"%llu.%03llu\" y=\"%d\" width=\"%llu.%03llu\" "
		"height=\"%d\" data-depth=\"%d\" data-count=\"%llu\"/>",
		(unsigned long long)t->n, 100.0 * t->n / fl->total,
		(unsigned long long)(x / 1000), (unsigned long long)(x % 1000),
		y, (unsigned long long)(w / 1000),
		(unsigned long long)(w % 1000), ROW_H - 1, depth,
		(unsigned long long)t->n);
	/* a name only where it fits, 7 px a character */
	if (px > 21) {
		int chars = (int)(px / 7) - 1;

		fprintf(fl->f, "<text x=\"%.3f\" y=\"%d\">", x / 1000.0 + 3,
			y + ROW_H - 4);
		if ((int)strlen(t->name) <= chars) {
			markup_esc(fl->f, t->name);
		} else {
			char cut[256];

			snprintf(cut, sizeof(cut), "%.*s..", chars > 2 ?
				 chars - 2 : 0, t->name);
			markup_esc(fl->f, cut);
		}
		fputs("</text>", fl->f);
	}
	fputs("</g>\n", fl->f);
	for (const struct node *k = t->kids; k; k = k->next) {
		box(fl, k, cum, depth + 1);
		cum += k->n;
	}
}

/* by owner, and the buffer_heads alive */
static void owners_table(FILE *f, const struct run_info *info,
			 const struct summary *s, const struct callers_table *t)
{
	const char *why = figure_why(info, PATH_BH, FIG_CALLERS);
	int64_t net = (int64_t)(s->glob.bh_alloc_total - s->glob.bh_freed);
	char dev[32];

	fputs("<table id=\"owners\">\n<tr><th>owner</th><th>device</th>"
	      "<th>role</th><th>allocations</th><th>write</th><th>read</th>"
	      "<th>mkwrite</th><th>outside</th></tr>\n", f);
	for (uint32_t i = 0; i < t->nr_owners; i++) {
		const struct callers_owner_row *o = &t->owners[i];

		fputs("<tr><td>", f);
		markup_esc(f, o->o.fs);
		fputs("</td><td>", f);
		markup_esc(f, o->o.dev ? dev_name(o->o.dev, dev, sizeof(dev)) :
					 "?");
		fprintf(f, "</td><td>%s</td><td>%llu</td><td>%llu</td>"
			"<td>%llu</td><td>%llu</td><td>%llu</td></tr>\n",
			callers_role_name(o->o.role),
			(unsigned long long)o->n,
			(unsigned long long)o->where[WHERE_WRITE],
			(unsigned long long)o->where[WHERE_READ],
			(unsigned long long)o->where[WHERE_MKWRITE],
			(unsigned long long)o->where[WHERE_NONE]);
	}
	fputs("</table>\n", f);
	if (why)
		fprintf(f, "<p>buffer_heads freed and alive: %s.</p>\n", why);
	else
		fprintf(f, "<p>buffer_heads: %llu allocated, %llu freed, net "
			"%+lld (%+lld bytes), peak %+lld.</p>\n",
			(unsigned long long)s->glob.bh_alloc_total,
			(unsigned long long)s->glob.bh_freed, (long long)net,
			(long long)(net * (int64_t)info->bh_size),
			(long long)s->bh_net_peak);
}

void callers_html(FILE *f, const struct run_info *info,
		  const struct summary *s)
{
	static struct callers_table t;
	struct node root = { .name = "all" };
	struct flame fl = { f, 0, 0 };

	if (!callers_known(info))
		return;
	fputs("<h2>Who allocates buffer_heads</h2>\n", f);
	callers_tables(s, &t);
	if (!t.total) {
		fprintf(f, "<p>No buffer_head allocation in this run%s.</p>\n",
			info->buffer_head == 0 ? " (no buffer_heads in this "
			"kernel)" : "");
		return;
	}
	for (uint32_t i = 0; i < t.nr_chains; i++)
		add_chain(&root, callers_chain(t.chains[i].stack),
			  t.chains[i].n);
	fl.total = root.n;
	fl.rows = depth_of(&root);
	if (fl.rows > MAX_DEPTH + 1)
		fl.rows = MAX_DEPTH + 1;
	fprintf(f, "<p>%llu allocations by kernel call chain, the root at the "
		"bottom; a box is as wide as the allocations that came "
		"through its function (hover for counts).</p>\n",
		(unsigned long long)root.n);
	fprintf(f, "<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"data-total=\"%llu\">\n<style>.fb{fill:#e8a33d;stroke:#fff;"
		"stroke-width:0.5}text{font:11px monospace;fill:#222}</style>\n",
		SVG_W, fl.rows * ROW_H, SVG_W, fl.rows * ROW_H,
		(unsigned long long)root.n);
	box(&fl, &root, 0, 0);
	fputs("</svg>\n", f);
	tree_free(root.kids);
	owners_table(f, info, s, &t);
}
