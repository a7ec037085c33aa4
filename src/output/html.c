// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report --html: one page that opens anywhere, offline, forever: inline
 * CSS and SVG, no script, no external resource. Every string that comes
 * from the recording is escaped; the file may have been written by
 * anyone.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "callers_svg.h"
#include "html.h"
#include "model/fsrows.h"
#include "output.h"
#include "recfile/series.h"

#define MIB (1024.0 * 1024.0)
#define W 580		/* chart size in CSS pixels */
#define H 300
#define ML 70		/* margins around the plot area */
#define MR 20
#define MT 30
#define MB 60

static const char *const path_color[NR_PATHS] = { "#d95f02", "#1b9e77" };

static double fin(double v)
{
	return isfinite(v) ? v : 0;
}

/* ---- chart frame: axes, ticks, legend ---- */

struct chart {
	FILE *f;
	double xmin, xmax, ymax;
};

static double px(const struct chart *c, double x)
{
	double span = c->xmax > c->xmin ? c->xmax - c->xmin : 1;

	return ML + (fin(x) - c->xmin) / span * (W - ML - MR);
}

static double py(const struct chart *c, double y)
{
	double v = c->ymax > 0 ? fin(y) / c->ymax : 0;

	if (v > 1)
		v = 1;
	return H - MB - v * (H - MT - MB);
}

/* a 1, 2 or 5 times a power of ten, so that about 5 ticks fit */
static double nice_step(double max)
{
	double raw = max / 5, mag, n;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	n = raw / mag;
	return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
}

static void svg_open(FILE *f, const char *id, const char *cls,
		     const char *title)
{
	fprintf(f, "<figure><figcaption>%s</figcaption>\n", title);
	fprintf(f, "<svg id=\"%s\" class=\"chart %s\" xmlns=\"http://www.w3.org/2000/svg\" "
		   "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">"
		   "<title>%s</title>\n", id, cls, W, H, W, H, title);
}

static void y_axis(struct chart *c, const char *label)
{
	double step = nice_step(c->ymax);
	FILE *f = c->f;

	c->ymax = c->ymax > 0 ? ceil(c->ymax / step) * step : 1;
	for (double y = 0; y <= c->ymax * 1.0001; y += step) {
		fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			ML, W - MR, py(c, y), py(c, y), ML - 6, py(c, y) + 4,
			y);
	}
	fprintf(f, "<text class=\"label\" transform=\"translate(14 %d) rotate(-90)\" "
		   "text-anchor=\"middle\">%s</text>\n", (H - MB + MT) / 2, label);
	fprintf(f, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n",
		ML, W - MR, H - MB, H - MB);
}

static void legend(FILE *f, const char *const *names, const char *const *colors,
		   const char *const *dash, int n)
{
	for (int i = 0; i < n; i++) {
		double x = ML + 10 + i * 120;

		fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"14\" y2=\"14\" stroke=\"%s\" "
			   "stroke-width=\"3\" stroke-dasharray=\"%s\"/>"
			   "<text class=\"legend\" x=\"%.0f\" y=\"18\">%s</text>\n",
			x, x + 24, colors[i], dash ? dash[i] : "none", x + 30,
			names[i]);
	}
}

/* ---- histograms: bh and iomap side by side, per power of two ---- */

#define NR_BINS 64

static unsigned int log2_bin(uint64_t v)
{
	return v ? 63 - __builtin_clzll(v) : 0;
}

static void bin_hist(const struct bhp_hist *h, double *bins, double *total)
{
	*total = 0;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		bins[log2_bin(hist_bucket_low(i))] += h->b[i];
		*total += h->b[i];
	}
}

/* one path's bar of a histogram: pct of its count at label */
static void bar(FILE *f, unsigned int p, double x, double w, double y,
		const char *label, double pct)
{
	fprintf(f, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
		   "<title>%s %s: %.2f%%</title></rect>\n",
		path_name(p), x, y, w, H - MB - y, path_color[p], path_name(p),
		label, pct);
}

static void hist_chart(FILE *f, const struct loaded_run *run, const char *id,
		       const char *title, unsigned int kind, bool ns)
{
	double bins[NR_PATHS][NR_BINS] = { { 0 } }, total[NR_PATHS], top = 0;
	const char *names[NR_PATHS];
	struct chart c = { .f = f };
	int lo = NR_BINS, hi = -1;
	char b[32];

	for (unsigned int p = 0; p < NR_PATHS; p++) {
		bin_hist(&run->sum->path[p].hist[kind], bins[p], &total[p]);
		/* an empty path is no bar at all: say so, not 0% */
		names[p] = total[p] ? path_name(p) :
		       p == PATH_BH ? "bh: none" : "iomap: none";
	}
	for (int i = 0; i < NR_BINS; i++) {
		for (unsigned int p = 0; p < NR_PATHS; p++) {
			double v = total[p] ? 100 * bins[p][i] / total[p] : 0;

			bins[p][i] = v;
			if (v > 0) {
				lo = i < lo ? i : lo;
				hi = i > hi ? i : hi;
				top = v > top ? v : top;
			}
		}
	}
	svg_open(f, id, "hist", title);
	legend(f, names, path_color, NULL, NR_PATHS);
	c.ymax = top;
	y_axis(&c, "% of each path's count");
	if (hi < 0) {
		fprintf(f, "<text class=\"empty\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">no data</text>\n",
			W / 2, H / 2);
		fputs("</svg></figure>\n", f);
		return;
	}
	double slot = (double)(W - ML - MR) / (hi - lo + 1), bw = slot * 0.4;

	for (int i = lo; i <= hi; i++) {
		double x = ML + (i - lo) * slot + slot * 0.1;

		for (unsigned int p = 0; p < NR_PATHS; p++)
			if (total[p])
				bar(f, p, x + p * bw, bw, py(&c, bins[p][i]),
				    ns ? fmt_ns(b, sizeof(b), (double)(1ull << i)) :
					 fmt_bytes(b, sizeof(b), (double)(1ull << i)),
				    bins[p][i]);
		if ((i - lo) % ((hi - lo) / 16 + 1) == 0)
			fprintf(f, "<text class=\"tick\" transform=\"translate(%.1f %d) rotate(-40)\" "
				   "text-anchor=\"end\">%s</text>\n",
				x + bw, H - MB + 14,
				ns ? fmt_ns(b, sizeof(b), (double)(1ull << i))
				   : fmt_bytes(b, sizeof(b), (double)(1ull << i)));
	}
	fputs("</svg></figure>\n", f);
}

/* ---- time series ---- */

struct series {
	enum series_id id;
	double scale;		/* chart unit per the figure's */
	unsigned int path;
	const char *name, *dash;
};

/* NaN where the figure is unknown: the line breaks there */
static double ts_value(const struct loaded_run *run, size_t i,
		       const struct series *s)
{
	const struct ts_row *r = &run->rows[i];

	if (series_why(s->id, r, recfile_info(run->rec), s->path))
		return NAN;
	return series_defs[s->id].value(r, s->path) * s->scale;
}

/* seconds, minutes or hours, whichever reads best */
static double time_unit(double span, const char **name)
{
	if (span > 3 * 3600) {
		*name = "time (h)";
		return 3600;
	}
	if (span > 300) {
		*name = "time (min)";
		return 60;
	}
	*name = "time (s)";
	return 1;
}

static void x_axis(struct chart *c, double unit, const char *label)
{
	double step = nice_step((c->xmax - c->xmin) / unit) * unit;

	for (double x = c->xmin; x <= c->xmax * 1.0001; x += step)
		fprintf(c->f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
			px(c, x), H - MB + 16, x / unit);
	fprintf(c->f, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
		(W + ML - MR) / 2, H - 12, label);
}

static void dot(const struct chart *c, const struct series *s, double x,
		double y)
{
	fprintf(c->f, "<circle class=\"dot %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
		path_name(s->path), x, y, path_color[s->path]);
}

/* NaN breaks the line (an interval without calls has no latency); a
 * point alone between two breaks is drawn as a dot. */
static void polyline(struct chart *c, const struct loaded_run *run,
		     const struct series *s)
{
	double x = 0, y = 0;
	size_t run_len = 0;

	for (size_t i = 0; i <= run->nr_rows; i++) {
		double v = i < run->nr_rows ? ts_value(run, i, s) : NAN;

		if (!isfinite(v)) {
			if (run_len)
				fputs("\"/>\n", c->f);
			if (run_len == 1)
				dot(c, s, x, y);
			run_len = 0;
			continue;
		}
		x = px(c, run->rows[i].t);
		y = py(c, v);
		if (!run_len++)
			fprintf(c->f, "<polyline class=\"line %s\" fill=\"none\" stroke=\"%s\" "
				   "stroke-width=\"1.5\" stroke-dasharray=\"%s\" points=\"",
				path_name(s->path), path_color[s->path], s->dash);
		fprintf(c->f, "%.1f,%.1f ", x, y);
	}
}

static void ts_chart(FILE *f, const struct loaded_run *run, const char *id,
		     const char *title, const char *ylabel,
		     const struct series *ss, int n)
{
	const char *names[4], *colors[4], *dash[4], *xlabel;
	struct chart c = { .f = f, .xmin = 0, .xmax = run->secs };
	double unit = time_unit(run->secs, &xlabel);

	for (int k = 0; k < n; k++) {
		for (size_t i = 0; i < run->nr_rows; i++) {
			double v = ts_value(run, i, &ss[k]);

			if (isfinite(v) && v > c.ymax)
				c.ymax = v;
		}
		names[k] = ss[k].name;
		colors[k] = path_color[ss[k].path];
		dash[k] = ss[k].dash;
	}
	svg_open(f, id, "timeseries", title);
	legend(f, names, colors, dash, n);
	y_axis(&c, ylabel);
	x_axis(&c, unit, xlabel);
	for (int k = 0; k < n; k++)
		polyline(&c, run, &ss[k]);
	fputs("</svg></figure>\n", f);
}

/* whole-run bh allocations per MiB: two bars */
static void bh_chart(FILE *f, const struct loaded_run *run)
{
	struct chart c = { .f = f };
	double slot = (W - ML - MR) / 2.0;

	for (unsigned int p = 0; p < NR_PATHS; p++)
		if (isfinite(run->sum->path[p].bh_per_mib) &&
		    run->sum->path[p].bh_per_mib > c.ymax)
			c.ymax = run->sum->path[p].bh_per_mib;
	svg_open(f, "bh-per-mib", "bars",
		 "buffer_head allocations per MiB written, whole run");
	y_axis(&c, "bh allocations / MiB");
	for (unsigned int p = 0; p < NR_PATHS; p++) {
		const struct path_summary *ps = &run->sum->path[p];
		const char *why = path_figure_why(recfile_info(run->rec), p, ps,
						  FIG_BH, SAMPLE_MIB);
		double v = why ? 0 : fin(ps->bh_per_mib);
		double x = ML + p * slot + slot * 0.3;
		char val[32];

		if (!why)
			fprintf(f, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>",
				path_name(p), x, py(&c, v), slot * 0.4,
				H - MB - py(&c, v), path_color[p]);
		fprintf(f, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s",
			x + slot * 0.2, py(&c, v) - 6,
			cell(val, sizeof(val), U_RATIO, v, why));
		if (why) {
			fputs("<title>", f);
			markup_esc(f, why_text(why));
			fputs("</title>", f);
		}
		fprintf(f, "</text><text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x + slot * 0.2, H - MB + 18, path_name(p));
	}
	fputs("</svg></figure>\n", f);
}

static void charts(FILE *f, const struct loaded_run *run)
{
	static const struct series tput[] = {
		{ S_WRITE_MIB_S, 1, PATH_BH, "bh write", "none" },
		{ S_WRITE_MIB_S, 1, PATH_IOMAP, "iomap write", "none" },
		{ S_BIO_MIB_S, 1, PATH_BH, "bh bio", "6 3" },
		{ S_BIO_MIB_S, 1, PATH_IOMAP, "iomap bio", "6 3" },
	};
	static const struct series lat[] = {
		{ S_LAT_P99, 1e-6, PATH_BH, "bh p99", "none" },
		{ S_LAT_P99, 1e-6, PATH_IOMAP, "iomap p99", "none" },
	};
	static const struct series bh[] = {
		{ S_BH_PER_MIB, 1, PATH_BH, "bh", "none" },
		{ S_BH_PER_MIB, 1, PATH_IOMAP, "iomap", "none" },
	};

	fputs("<h2>Over time</h2>\n<div class=\"pair\">\n", f);
	ts_chart(f, run, "ts-throughput", "Throughput", "MiB/s", tput, 4);
	ts_chart(f, run, "ts-latency", "Buffered write latency, p99",
		 "p99 (ms)", lat, 2);
	fputs("</div>\n<h2>buffer_head allocations</h2>\n<div class=\"pair\">\n", f);
	bh_chart(f, run);
	ts_chart(f, run, "ts-bh-per-mib", "bh allocations per MiB over time",
		 "bh / MiB", bh, 2);
	fputs("</div>\n", f);
}

/* ---- tables ---- */

static void kv(FILE *f, const char *k, const char *v)
{
	fprintf(f, "<tr><th>%s</th><td>", k);
	markup_esc(f, v);
	fputs("</td></tr>\n", f);
}

static void meta_table(FILE *f, const struct loaded_run *run)
{
	const struct run_info *in = recfile_info(run->rec);
	const struct rec_end *e = recfile_end(run->rec);
	unsigned int major, minor, nw = recfile_nr_warnings(run->rec);
	char b[128], d[32];

	recfile_version(run->rec, &major, &minor);
	fputs("<table id=\"metadata\">\n", f);
	kv(f, "recording", run->path);
	snprintf(b, sizeof(b), "%u.%u", major, minor);
	kv(f, "format version", b);
	kv(f, "bhprof version", in->version);
	kv(f, "kernel", in->release);
	kv(f, "CONFIG_BUFFER_HEAD", in->buffer_head < 0 ? "unknown" :
	   in->buffer_head ? "y" : "n");
	kv(f, "BTF", in->btf ? "yes" : "no");
	kv(f, "host", in->hostname);
	snprintf(b, sizeof(b), "%s, %u KiB pages", in->machine,
		 in->page_size / 1024);
	kv(f, "machine", b);
	kv(f, "started", fmt_utc(b, sizeof(b), in->start_realtime_ns));
	snprintf(b, sizeof(b), "%.1f s, %llu snapshots every %.3g s",
		 run->secs, (unsigned long long)run->snapshots,
		 in->interval_ms / 1000.0);
	kv(f, "duration", b);
	fputs("<tr><th>devices</th><td>", f);
	for (uint32_t i = 0; i < in->nr_filter_devs; i++) {
		const char *n = recfile_dev_name(run->rec, in->filter_devs[i]);

		markup_esc(f, fmt_dev(d, sizeof(d), in->filter_devs[i]));
		if (n) {
			fputs(" (", f);
			markup_esc(f, n);
			fputc(')', f);
		}
		fputc(' ', f);
	}
	fputs(in->nr_filter_devs ? "" : "all", f);
	fputs("</td></tr>\n", f);
	if (in->filter_pid) {
		snprintf(b, sizeof(b), "%u", in->filter_pid);
		kv(f, "pid", b);
	}
	kv(f, "command line", in->cmdline);
	kv(f, "stopped by", stop_text(b, sizeof(b), e));
	if (e->has_exit) {
		snprintf(b, sizeof(b), "%d", e->exit_status);
		kv(f, "command exit status", b);
	}
	for (unsigned int i = 0; i < nw; i++)
		kv(f, "warning", recfile_warning(run->rec, i));
	fputs("</table>\n", f);
}

static void td(FILE *f, const char *v)
{
	fputs("<td>", f);
	markup_esc(f, v);
	fputs("</td>", f);
}

/* what each probe ran as: folded, it is for whoever asks why a figure
 * reads n/a */
static void probe_table(FILE *f, const struct run_info *in)
{
	fputs("<details id=\"probes\"><summary>Probes: what each figure was "
	      "measured with</summary>\n<table id=\"probe-table\">\n"
	      "<tr><th>probe</th><th>function</th><th>mode</th>"
	      "<th>detail</th></tr>\n", f);
	for (unsigned int i = 0; i < NR_PROBES; i++) {
		const struct probe_state *ps = &in->probes[i];
		char fn[sizeof(ps->func) + 40];

		fprintf(f, "<tr class=\"probe\"><th>%s</th>", probe_name(i));
		td(f, probe_func_text(ps, fn, sizeof(fn)));
		td(f, probe_state_text(ps));
		td(f, ps->detail);
		fputs("</tr>\n", f);
	}
	fputs("</table></details>\n", f);
}

/* one figure of both paths; an unknown one reads "-" (or n/a, failed)
 * and its title says why */
struct hrow {
	FILE *f;
	const struct run_info *in;
	const struct path_summary *p[NR_PATHS];
};

static void why_td(FILE *f, enum figure_unit k, double v, const char *why)
{
	char b[32];

	if (!why) {
		fprintf(f, "<td>%s</td>", cell(b, sizeof(b), k, v, NULL));
		return;
	}
	fputs("<td class=\"unknown\" title=\"", f);
	markup_esc(f, why_text(why));
	fprintf(f, "\">%s</td>", why_cell(why));
}

static void hcell(const struct hrow *h, unsigned int path, enum figure_unit k,
		  double v, enum figure fig, enum sample smp)
{
	why_td(h->f, k, v, path_figure_why(h->in, path, h->p[path], fig, smp));
}

static void hrow(const struct hrow *h, const struct figure_def *d)
{
	fprintf(h->f, "<tr><th>%s</th>", d->html);
	for (unsigned int p = 0; p < NR_PATHS; p++)
		hcell(h, p, d->unit, figure_value(d, h->p[p]), d->fig,
		      d->sample);
	fputs("</tr>\n", h->f);
}

static void summary_table(FILE *f, const struct loaded_run *run)
{
	const struct hrow h = { f, recfile_info(run->rec),
				{ &run->sum->path[PATH_BH],
				  &run->sum->path[PATH_IOMAP] } };

	fputs("<table id=\"summary\">\n<tr><th></th><th class=\"bh\">bh</th>"
	      "<th class=\"iomap\">iomap</th></tr>\n", f);
	for (size_t i = 0; i < nr_figure_defs; i++)
		if (figure_defs[i].html)
			hrow(&h, &figure_defs[i]);
	fputs("</table>\n", f);
}

/* the filesystems' rows: a column each, the figures a row has */
static void fs_table(FILE *f, const struct loaded_run *run)
{
	const struct run_info *in = recfile_info(run->rec);
	const struct summary *s = run->sum;
	static struct path_summary p;

	if (!(in->features & RUN_F_FS) || !s->nr_fs)
		return;
	fputs("<h2>Per filesystem</h2>\n<table id=\"filesystems\">\n<tr><th></th>",
	      f);
	for (uint32_t i = 0; i < s->nr_fs; i++) {
		fputs("<th>", f);
		markup_esc(f, fs_label(s->fs[i].name));
		fprintf(f, "/%s</th>", path_name(s->fs[i].path));
	}
	fputs("</tr>\n", f);
	for (size_t k = 0; k < nr_figure_defs; k++) {
		const struct figure_def *d = &figure_defs[k];

		if (!d->html || !figure_per_fs(d))
			continue;
		fprintf(f, "<tr><th>%s</th>", d->html);
		for (uint32_t i = 0; i < s->nr_fs; i++) {
			fs_path_summary(s, s->fs[i].name, s->fs[i].path, &p);
			why_td(f, d->unit, figure_value(d, &p),
			       fs_figure_why(in, s->fs[i].path, &p, d->fig,
					     d->sample));
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1860px}"
	"h1{font-size:22px}h2{font-size:17px;margin-top:28px}"
	"table{border-collapse:collapse;margin:8px 0}"
	"th,td{border:1px solid #ddd;padding:3px 10px;text-align:left;vertical-align:top}"
	"#summary td,#filesystems td{text-align:right;font-variant-numeric:tabular-nums}"
	"th.bh{color:#d95f02}th.iomap{color:#1b9e77}"
	".pair{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}"
	".stack{display:flex;flex-direction:column;gap:12px}"
	"figure{margin:0}figcaption{font-weight:600;margin:4px 0}"
	"svg.chart{border:1px solid #eee;background:#fff}"
	"svg .grid{stroke:#eee}svg .axis{stroke:#888}"
	"svg text{font:11px sans-serif;fill:#444}svg .label{font-size:12px}"
	"svg .legend{font-size:12px}svg .empty{font-size:16px;fill:#999}"
	"td.unknown{color:#888;cursor:help}"
	"details{margin:12px 0}summary{cursor:pointer;font-weight:600}";

void html_page(FILE *f, const struct loaded_run *run)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">\n<title>bhprof report: ", f);
	markup_esc(f, run->path);
	fprintf(f, "</title>\n<style>%s</style></head><body>\n"
		   "<h1>bhprof report: ", css);
	markup_esc(f, run->path);
	/* the verdict first: the summary beside the latency and bio size
	 * it sums up, then the charts over time, then how it was measured */
	fputs("</h1>\n<h2>Summary</h2>\n<div class=\"pair\">\n", f);
	summary_table(f, run);
	fputs("<div class=\"stack\">\n", f);
	hist_chart(f, run, "hist-write-lat", "Buffered write call latency",
		   HIST_WRITE_LAT, true);
	hist_chart(f, run, "hist-bio-size", "Bytes per bio", HIST_BIO_SIZE,
		   false);
	fputs("</div></div>\n", f);
	charts(f, run);
	fs_table(f, run);
	callers_html(f, recfile_info(run->rec), run->sum);
	fputs("<h2>Run</h2>\n", f);
	meta_table(f, run);
	probe_table(f, recfile_info(run->rec));
	fputs("</body></html>\n", f);
}
