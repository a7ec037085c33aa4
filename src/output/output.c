// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "output.h"
#include "fstable.h"
#include "other.h"

const char *fmt_bytes(char *buf, size_t len, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int u = 0;

	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f B", bytes);
	else
		snprintf(buf, len, "%.*f %s", bytes < 10 ? 2 : 1, bytes,
			 units[u]);
	return buf;
}

/* three significant digits, so three latencies fit side by side */
const char *fmt_ns(char *buf, size_t len, double ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	unsigned int u = 0;

	while (ns >= 999.5 && u < 3) {
		ns /= 1000;
		u++;
	}
	if (u == 0 || ns >= 99.95)
		snprintf(buf, len, "%.0f %s", ns, units[u]);
	else if (ns >= 9.995)
		snprintf(buf, len, "%.1f %s", ns, units[u]);
	else
		snprintf(buf, len, "%.2f %s", ns, units[u]);
	return buf;
}

const char *fmt_dev(char *buf, size_t len, uint32_t dev)
{
	snprintf(buf, len, "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	return buf;
}

/* where a member goes: its object's name (NULL at the top) and the
 * reasons of the object that will hold the "why" of its null figures */
struct jctx {
	struct json *j;
	struct json_whys *w;
	const char *obj;
};

static bool null_why(const struct jctx *c, const char *key, const char *why)
{
	c->w->obj = c->obj;
	return json_null_why(c->j, c->w, key, why_text(why));
}

static void u64_why(const struct jctx *c, const char *key, uint64_t v,
		    const char *why)
{
	if (!null_why(c, key, why))
		json_u64(c->j, key, v);
}

static void double_why(const struct jctx *c, const char *key, double v,
		       const char *why)
{
	if (!null_why(c, key, why))
		json_double(c->j, key, v);
}

static void dist_why(const struct jctx *c, const char *key,
		     const struct dist *d, const char *why)
{
	struct json *j = c->j;

	if (null_why(c, key, why))
		return;
	json_obj_open(j, key);
	json_u64(j, "count", d->count);
	json_u64(j, "p50", d->p50);
	json_u64(j, "p90", d->p90);
	json_u64(j, "p99", d->p99);
	json_u64(j, "max", d->max);
	json_double(j, "mean", d->mean);
	json_obj_close(j);
}

/* the figure d of a path in its JSON object, or null and why */
static void figure_json(const struct jctx *c, const struct figure_def *d,
			const struct path_summary *p, const char *key,
			const char *why)
{
	const char *at = (const char *)p + d->off;

	switch (d->type) {
	case FT_DIST:
		dist_why(c, key, (const struct dist *)at, why);
		break;
	case FT_U64:
		/* every digit: a double would round past 2^53 */
		u64_why(c, key, *(const uint64_t *)at, why);
		break;
	default:
		double_why(c, key, figure_value(d, p), why);
	}
}

/* the member objects open in a path's object: "writeback.engines" */
#define JSON_DEPTH 4

struct jnest {
	char name[JSON_DEPTH][24];
	int n;
	char path[96];
};

/*
 * Moves the open objects to those that hold member m ("writeback.
 * engines.ext4_writepages"): closes the ones m is not in, opens the ones
 * it is, and returns m's own key.
 */
static const char *json_move(struct json *j, struct jnest *o, const char *m)
{
	char want[JSON_DEPTH][24];
	const char *key = m, *dot;
	int n = 0, keep = 0;

	while ((dot = strchr(key, '.')) && n < JSON_DEPTH) {
		snprintf(want[n++], sizeof(want[0]), "%.*s", (int)(dot - key),
			 key);
		key = dot + 1;
	}
	while (keep < n && keep < o->n && !strcmp(want[keep], o->name[keep]))
		keep++;
	for (; o->n > keep; o->n--)
		json_obj_close(j);
	for (; o->n < n; o->n++) {
		memcpy(o->name[o->n], want[o->n], sizeof(want[0]));
		json_obj_open(j, want[o->n]);
	}
	snprintf(o->path, sizeof(o->path), "%.*s", (int)(key - m - !!n), m);
	return key;
}

/*
 * A path's figures as figures.c lists them: "write.calls" is the member
 * calls of the member object write, which stays open while the figures
 * that follow are in it too.
 */
void figures_json(struct json *j, struct json_whys *w,
		  const struct path_summary *p, const struct run_info *info,
		  unsigned int path, bool fs)
{
	struct jctx c = { j, w, NULL };
	struct jnest o = { .n = 0 };
	const char *k, *why;

	for (size_t i = 0; i < nr_figure_defs; i++) {
		const struct figure_def *d = &figure_defs[i];

		if (!d->json || (fs && !figure_per_fs(d)))
			continue;
		k = json_move(j, &o, d->json);
		c.obj = o.n ? o.path : NULL;
		why = fs ? fs_figure_why(info, path, p, d->fig, d->sample) :
			   path_figure_why(info, path, p, d->fig, d->sample);
		figure_json(&c, d, p, k, why);
	}
	json_move(j, &o, "");
}

void path_json(struct json *j, const char *key, const struct path_summary *p,
	       const struct run_info *info, unsigned int path)
{
	struct json_whys w = { 0 };

	json_obj_open(j, key);
	figures_json(j, &w, p, info, path, false);
	json_whys_close(j, &w);
	json_obj_close(j);
}

void kernel_json(struct json *j, const struct run_info *info)
{
	json_obj_open(j, "kernel");
	json_str(j, "release", info->release);
	json_str(j, "machine", info->machine);
	json_u64(j, "page_size", info->page_size);
	if (info->buffer_head < 0)
		json_null(j, "buffer_head");
	else
		json_bool(j, "buffer_head", info->buffer_head);
	json_bool(j, "btf", info->btf);
	json_obj_close(j);
}

/*
 * Never null: a null figure needs a "why", and where a probe lives is a
 * fact, not a figure. "" is a probe with no function on this kernel.
 */
void module_json(struct json *j, const struct probe_state *ps)
{
	if (ps->module[0])
		json_str(j, "module", ps->module);
	else
		json_str(j, "module", ps->func[0] ? "vmlinux" : "");
}

static void probes_json(struct json *j, const struct run_info *info)
{
	json_obj_open(j, "attach");
	for (int i = 0; i < NR_PROBES; i++)
		json_str(j, probe_name(i), probe_state_text(&info->probes[i]));
	json_obj_close(j);
	json_arr_open(j, "probes");
	for (int i = 0; i < NR_PROBES; i++) {
		json_obj_open(j, NULL);
		json_str(j, "name", probe_name(i));
		json_str(j, "func", info->probes[i].func);
		module_json(j, &info->probes[i]);
		json_str(j, "mode", probe_state_text(&info->probes[i]));
		json_str(j, "detail", info->probes[i].detail);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void probe_list_json(struct json *j, const char *key, uint64_t mask)
{
	json_arr_open(j, key);
	for (int i = 0; i < NR_PROBES; i++)
		if (mask & (1ULL << i))
			json_str(j, NULL, probe_name(i));
	json_arr_close(j);
}

/* The probes of modules loaded after the start (collect/latemod.c),
 * as the window ended: attached since, or gone with their module. */
static void late_json(struct json *j, const struct summary *s)
{
	json_obj_open(j, "probes_late");
	probe_list_json(j, "attached", s->probes_late);
	probe_list_json(j, "gone", s->probes_gone);
	json_obj_close(j);
}

static void dev_paths_json(const struct jctx *dc, const struct dev_summary *d,
			   const char *reads)
{
	struct json *j = dc->j;
	char obj[32];

	json_obj_open(j, "paths");
	for (unsigned int p = 0; p <= NR_PATHS; p++) {
		struct jctx c = { j, dc->w, obj };

		snprintf(obj, sizeof(obj), "paths.%s", path_name(p));
		json_obj_open(j, path_name(p));
		json_u64(j, "bio_count", d->path_bios[p]);
		json_u64(j, "bio_bytes", d->path_bytes[p]);
		u64_why(&c, "read_bio_count", d->path_read_bios[p], reads);
		u64_why(&c, "read_bio_bytes", d->path_read_bytes[p], reads);
		json_obj_close(j);
	}
	json_obj_close(j);
}

/* log2 size percentiles, null without a bio */
static void dev_sizes_json(const struct jctx *c, const char *key,
			   uint64_t p50, uint64_t p99, const char *why)
{
	if (null_why(c, key, why))
		return;
	json_obj_open(c->j, key);
	json_u64(c->j, "p50", p50);
	json_u64(c->j, "p99", p99);
	json_obj_close(c->j);
}

static void dev_json(struct json *j, const struct dev_summary *d,
		     const char *reads)
{
	struct json_whys w = { 0 };
	const struct jctx c = { j, &w, NULL };
	char buf[32];

	json_obj_open(j, NULL);
	json_str(j, "name", d->name);
	json_str(j, "dev", fmt_dev(buf, sizeof(buf), d->dev));
	json_u64(j, "bio_count", d->bios);
	json_u64(j, "bio_bytes", d->bytes);
	json_double(j, "mb_per_s", d->mbps);
	dev_paths_json(&c, d, reads);
	dev_sizes_json(&c, "size_bytes", d->size_p50, d->size_p99,
		       d->bios ? NULL : "no bio on this device");
	u64_why(&c, "read_bio_count", d->read_bios, reads);
	u64_why(&c, "read_bio_bytes", d->read_bytes, reads);
	double_why(&c, "read_mb_per_s", d->read_mbps, reads);
	dev_sizes_json(&c, "read_size_bytes", d->read_size_p50,
		       d->read_size_p99, reads ?: d->read_bios ? NULL :
					  "no read bio on this device");
	json_whys_close(j, &w);
	json_obj_close(j);
}

static void devices_json(const struct jctx *c, const struct run_info *info,
			 const struct summary *s)
{
	const char *reads = figure_why(info, PATH_BH, FIG_READ_DEV);
	const char *bios = figure_why(info, PATH_BH, FIG_BIOS);

	if (null_why(c, "devices", bios))
		return;
	json_arr_open(c->j, "devices");
	for (uint32_t i = 0; i < s->nr_devs; i++)
		dev_json(c->j, &s->devs[i], reads);
	json_arr_close(c->j);
}

/* each program that ran, the costliest first */
static void self_progs_json(struct json *j, const struct summary *s)
{
	json_arr_open(j, "programs");
	for (uint32_t i = 0; i < s->nr_self_progs; i++) {
		const struct self_prog *r = &s->self_progs[i];

		if (!r->runs)
			continue;
		json_obj_open(j, NULL);
		json_str(j, "name", r->name);
		json_u64(j, "runs", r->runs);
		json_u64(j, "run_ns", r->ns);
		json_double(j, "ns_per_run", (double)r->ns / r->runs);
		json_obj_close(j);
	}
	json_arr_close(j);
}

/* bhprof's own BPF programs: what the measurement cost the kernel */
static void overhead_json(const struct jctx *top, const struct summary *s)
{
	const char *off = s->self_on_secs > 0 ? NULL :
		"not measured: needs --self-cost, and a kernel that lets "
		"bhprof turn on BPF statistics";
	struct jctx c = { top->j, top->w, "overhead" };

	json_obj_open(c.j, c.obj);
	/* how long the statistics counted: 0 without --self-cost, and then
	 * the figures are unknown, not zero */
	json_double(c.j, "measured_s", s->self_on_secs);
	u64_why(&c, "runs", s->self_runs, off);
	u64_why(&c, "run_ns", s->self_ns, off);
	double_why(&c, "cpu_pct",
		   off ? 0 : s->self_ns / s->self_on_secs / 1e7, off);
	double_why(&c, "ns_per_run",
		   s->self_runs ? (double)s->self_ns / s->self_runs : 0,
		   off ?: s->self_runs ? NULL : "no program run");
	if (!off)
		self_progs_json(c.j, s);
	json_obj_close(c.j);
}

/* a count and its bytes, both known or both not */
static void total_json(const struct jctx *top, const char *key,
		       uint64_t count, uint64_t bytes, const char *why)
{
	struct jctx c = { top->j, top->w, key };

	json_obj_open(c.j, key);
	u64_why(&c, "count", count, why);
	u64_why(&c, "bytes", bytes, why);
	json_obj_close(c.j);
}

void summary_json_fields(struct json *j, const struct run_info *info,
			 const struct summary *s, struct json_whys *w)
{
	const char *bh = figure_why(info, PATH_BH, FIG_BH_TOTAL);
	const struct jctx c = { j, w, NULL };

	json_str(j, "bhprof_version", info->version);
	kernel_json(j, info);
	probes_json(j, info);
	late_json(j, s);
	json_double(j, "duration_s", s->secs);
	json_double(j, "interval_s", info->interval_ms / 1000.0);
	json_obj_open(j, "paths");
	for (unsigned int p = 0; p < NR_PATHS; p++)
		path_json(j, path_name(p), &s->path[p], info, p);
	json_obj_close(j);
	other_json(j, w, info, &s->other.c);
	fs_json(j, w, info, s);
	u64_why(&c, "bh_alloc_total", s->glob.bh_alloc_total, bh);
	u64_why(&c, "bh_alloc_unattributed", s->glob.bh_alloc_none, bh);
	total_json(&c, "bio_total", s->glob.bio_count, s->glob.bio_bytes,
		   figure_why(info, PATH_BH, FIG_BIOS));
	total_json(&c, "read_bio_total", s->glob.read_bio_count,
		   s->glob.read_bio_bytes,
		   figure_why(info, PATH_BH, FIG_READ_DEV));
	json_u64(j, "lost", s->glob.ctx_lost);
	overhead_json(&c, s);
	devices_json(&c, info, s);
}

/* ---- text ---- */

#define ROW "%-24s %18s %18s\n"

/* A figure the run cannot know reads why: "failed" (its probe group was
 * lost), "n/a", "absent", or "-" where the path had nothing to measure;
 * never a zero that looks real. */
const char *cell(char *buf, size_t len, enum figure_unit k, double v,
			const char *why)
{
	if (why)
		return why_cell(why);
	switch (k) {
	case U_COUNT:
		snprintf(buf, len, "%.0f", v);
		return buf;
	case U_BYTES:
		return fmt_bytes(buf, len, v);
	case U_NS:
		return fmt_ns(buf, len, v);
	default:
		/* 12 buffer_heads over 800 calls is 0.015, not 0.01 */
		snprintf(buf, len, v != 0 && fabs(v) < 0.1 ? "%.2g" : "%.2f",
			 v);
		return buf;
	}
}

/* the figure f of both paths, a and b, each known or not for itself */
struct trow {
	FILE *f;
	const struct run_info *info;
	const struct path_summary *p[NR_PATHS];
};

static const char *twhy(const struct trow *t, unsigned int path,
			enum figure f, enum sample s)
{
	return path_figure_why(t->info, path, t->p[path], f, s);
}

static void row(const struct trow *t, const char *label, enum figure_unit k,
		double a, double b, enum figure f, enum sample s)
{
	char x[32], y[32];

	fprintf(t->f, ROW, label,
		cell(x, sizeof(x), k, a, twhy(t, PATH_BH, f, s)),
		cell(y, sizeof(y), k, b, twhy(t, PATH_IOMAP, f, s)));
}

static void size_hist_text(FILE *f, const struct bhp_hist *h, const char *p)
{
	uint64_t n = hist_count(h), top = 0;
	char b[32];

	if (!n)
		return;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		if (h->b[i] > top)
			top = h->b[i];
	fprintf(f, "\n%s bio sizes:\n", p);
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		int stars;

		if (!h->b[i])
			continue;
		stars = (int)((h->b[i] * 40 + top - 1) / top);
		fprintf(f, "  %12s : %-10llu |%.*s%*s|\n",
			fmt_bytes(b, sizeof(b), hist_bucket_low(i)),
			(unsigned long long)h->b[i], stars,
			"****************************************", 40 - stars,
			"");
	}
}

static void devices_text(FILE *f, const struct summary *s)
{
	char b[32], m[32], r[32];

	if (!s->nr_devs)
		return;
	fprintf(f, "\n%-12s %-8s %10s %12s %10s %10s %10s %10s %12s\n",
		"DEVICE", "DEV", "BIOS", "BYTES", "BH", "IOMAP", "OTHER",
		"READ BIOS", "READ BYTES");
	for (uint32_t i = 0; i < s->nr_devs; i++) {
		const struct dev_summary *d = &s->devs[i];

		fprintf(f, "%-12s %-8s %10llu %12s %10llu %10llu %10llu %10llu %12s\n",
			d->name, fmt_dev(m, sizeof(m), d->dev),
			(unsigned long long)d->bios,
			fmt_bytes(b, sizeof(b), d->bytes),
			(unsigned long long)d->path_bios[PATH_BH],
			(unsigned long long)d->path_bios[PATH_IOMAP],
			(unsigned long long)d->path_bios[PATH_NONE],
			(unsigned long long)d->read_bios,
			fmt_bytes(r, sizeof(r), d->read_bytes));
	}
}

static void header_text(FILE *f, const struct run_info *info,
			const struct summary *s)
{
	fprintf(f, "bhprof %s: kernel %s %s, %u KiB pages, "
		"CONFIG_BUFFER_HEAD=%s, %.*f s\n",
		info->version, info->release, info->machine,
		info->page_size / 1024,
		info->buffer_head < 0 ? "?" : info->buffer_head ? "y" : "n",
		s->secs < 10 ? 3 : 1, s->secs);
	fprintf(f, "attach:");
	for (int i = 0; i < NR_PROBES; i++)
		fprintf(f, " %s=%s", probe_name(i),
			probe_state_text(&info->probes[i]));
	fprintf(f, "\n\n" ROW, "", "bh", "iomap");
}

static void late_text(FILE *f, const struct run_info *info,
		      const char *what, uint64_t mask)
{
	const char *sep = "";

	if (!mask)
		return;
	fprintf(f, "probes %s: ", what);
	for (int i = 0; i < NR_PROBES; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		fprintf(f, "%s%s (%s)", sep, probe_name(i),
			info->probes[i].func);
		sep = ", ";
	}
	fputc('\n', f);
}

/* the whole, then each program that ran: the costliest first */
static void self_text(FILE *f, const struct summary *s)
{
	fprintf(f, "bhprof's own cost: %llu program runs, %.0f ns each, "
		"%.3f%% of one CPU\n", (unsigned long long)s->self_runs,
		(double)s->self_ns / s->self_runs,
		s->self_ns / s->self_on_secs / 1e7);
	for (uint32_t i = 0; i < s->nr_self_progs; i++) {
		const struct self_prog *r = &s->self_progs[i];

		if (!r->runs)
			continue;
		fprintf(f, "  %-22s %12llu runs %8.0f ns each %6.3f%% of one "
			"CPU\n", r->name, (unsigned long long)r->runs,
			(double)r->ns / r->runs,
			r->ns / s->self_on_secs / 1e7);
	}
}

static void footer_text(FILE *f, const struct run_info *info,
			const struct summary *s)
{
	char lost[64];

	if (figure_known(info, PATH_BH, FIG_BH_TOTAL))
		fprintf(f, "\nbh allocations: %llu in all, %llu outside any "
			"path\n", (unsigned long long)s->glob.bh_alloc_total,
			(unsigned long long)s->glob.bh_alloc_none);
	late_text(f, info, "attached after the start, when their module "
		  "loaded", s->probes_late);
	late_text(f, info, "gone with their module", s->probes_gone);
	if (*lost_groups_text(info, lost, sizeof(lost)))
		fprintf(f, "lost probe groups: %s (their figures read "
			"'failed'; bhprof probe says why)\n", lost);
	/* n/a on one path is n/a on both: the attach mode's */
	if (!strcmp(figure_why(info, PATH_BH, FIG_WB_CALLS) ?: "", "n/a") &&
	    figure_known(info, PATH_BH, FIG_WB_PAGES))
		fprintf(f, "writeback calls and latency: not visible to "
			"tracepoints; passes over an inode are (see README)\n");
	if (s->self_runs && s->self_on_secs > 0)
		self_text(f, s);
	if (s->glob.ctx_lost)
		fprintf(f, "lost: %llu events not attributed (context map full)\n",
			(unsigned long long)s->glob.ctx_lost);
	fprintf(f, "'-': nothing to measure on that path (no call, no bio); "
		"per MiB needs 1 MiB written\n");
}

void summary_text(FILE *f, const struct run_info *info,
		  const struct summary *s)
{
	const struct trow t = { f, info, { &s->path[PATH_BH],
					   &s->path[PATH_IOMAP] } };

	header_text(f, info, s);
	for (size_t i = 0; i < nr_figure_defs; i++) {
		const struct figure_def *d = &figure_defs[i];

		if (!figure_shows(d, info, t.p[0], t.p[1]))
			continue;
		row(&t, d->label, d->unit, figure_value(d, t.p[0]),
		    figure_value(d, t.p[1]), d->fig, d->sample);
	}
	other_text(f, info, &s->other.c);
	fs_text(f, info, s);
	footer_text(f, info, s);
	if (figure_known(info, PATH_BH, FIG_PATH_BIOS)) {
		size_hist_text(f, &t.p[0]->hist[HIST_BIO_SIZE], "bh");
		size_hist_text(f, &t.p[1]->hist[HIST_BIO_SIZE], "iomap");
	}
	if (figure_known(info, PATH_BH, FIG_BIOS))
		devices_text(f, s);
}

void markup_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			/* XML 1.0 has no place for other control characters */
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
	}
}
