// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Prometheus text format and OpenMetrics from one walk over the metrics.
 * The two differ only in family names (OpenMetrics names a counter
 * without _total and an info metric without _info), UNIT lines, the
 * canonical form of le, and the closing "# EOF".
 */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "bhprof_hist.h"
#include "callers_out.h"
#include "model/devices.h"
#include "model/figures.h"
#include "model/fsrows.h"
#include "promfmt.h"

enum fam_type { FAM_COUNTER, FAM_GAUGE, FAM_HISTOGRAM, FAM_INFO };

struct prom {
	FILE *f;
	enum prom_format fmt;
};

/* label pairs of one sample, escaped as both formats want */
struct labels {
	char buf[2048];
	size_t len;
};

static void lbl_reset(struct labels *l, size_t len)
{
	l->len = len;
	l->buf[len] = 0;
}

static void lbl_putc(struct labels *l, char c)
{
	/* keep room for the NUL; a too-long value is cut, never overrun */
	if (l->len + 1 < sizeof(l->buf)) {
		l->buf[l->len++] = c;
		l->buf[l->len] = 0;
	}
}

static void lbl_puts(struct labels *l, const char *s)
{
	while (*s)
		lbl_putc(l, *s++);
}

static void lbl_add(struct labels *l, const char *key, const char *val)
{
	if (l->len)
		lbl_putc(l, ',');
	lbl_puts(l, key);
	lbl_puts(l, "=\"");
	for (; *val; val++) {
		if (*val == '\\' || *val == '"') {
			lbl_putc(l, '\\');
			lbl_putc(l, *val);
		} else if (*val == '\n') {
			lbl_puts(l, "\\n");
		} else {
			lbl_putc(l, *val);
		}
	}
	lbl_putc(l, '"');
}

/* shortest text that reads back as the same double */
static const char *fmt_double(char *buf, size_t len, double v)
{
	if (isinf(v))
		return v > 0 ? "+Inf" : "-Inf";
	if (isnan(v))
		return "NaN";
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

static void family(struct prom *p, const char *name, enum fam_type t,
		   const char *unit, const char *help)
{
	static const char *const om_type[] = { "counter", "gauge", "histogram",
					       "info" };
	static const char *const text_type[] = { "counter", "gauge",
						 "histogram", "gauge" };
	const char *sfx = "";

	if (p->fmt == PROM_TEXT && t == FAM_COUNTER)
		sfx = "_total";
	else if (p->fmt == PROM_TEXT && t == FAM_INFO)
		sfx = "_info";
	fprintf(p->f, "# HELP %s%s %s\n", name, sfx, help);
	fprintf(p->f, "# TYPE %s%s %s\n", name, sfx,
		p->fmt == PROM_TEXT ? text_type[t] : om_type[t]);
	if (p->fmt == PROM_OPENMETRICS && unit)
		fprintf(p->f, "# UNIT %s %s\n", name, unit);
}

static void sample_head(struct prom *p, const char *name, const char *sfx,
			const struct labels *l)
{
	fprintf(p->f, "%s%s", name, sfx);
	if (l && l->len)
		fprintf(p->f, "{%s}", l->buf);
	fputc(' ', p->f);
}

static void sample_u64(struct prom *p, const char *name, const char *sfx,
		       const struct labels *l, uint64_t v)
{
	sample_head(p, name, sfx, l);
	fprintf(p->f, "%llu\n", (unsigned long long)v);
}

static void sample_f(struct prom *p, const char *name, const char *sfx,
		     const struct labels *l, double v)
{
	char buf[40];

	sample_head(p, name, sfx, l);
	fprintf(p->f, "%s\n", fmt_double(buf, sizeof(buf), v));
}

static void counter_u64(struct prom *p, const char *name,
			const struct labels *l, uint64_t v)
{
	sample_u64(p, name, "_total", l, v);
}

static void path_label(struct labels *l, unsigned int path)
{
	lbl_reset(l, 0);
	lbl_add(l, "path", path_name(path));
}

/* ---- histograms ---- */

struct le_spec {
	unsigned int lo, hi;	/* powers of two */
	enum hist_est est;	/* how a bucket stands for its values */
	double scale;		/* le per raw unit: 1e-9 for ns -> s */
};

static const struct le_spec lat_les = { PROM_LAT_LO, PROM_LAT_HI, EST_MID,
					1e-9 };
static const struct le_spec size_les = { PROM_SIZE_LO, PROM_SIZE_HI, EST_LOW,
					 1 };

/* first in-kernel bucket not counted at le = 2^k */
static unsigned int le_end(unsigned int k, enum hist_est est)
{
	return hist_bucket(1ULL << k) + (est == EST_LOW);
}

uint64_t prom_cumulative(const struct bhp_hist *h, unsigned int k,
			 enum hist_est est)
{
	unsigned int end = le_end(k, est);
	uint64_t n = 0;

	for (unsigned int i = 0; i < end && i < HIST_BUCKETS; i++)
		n += h->b[i];
	return n;
}

/* OpenMetrics wants le canonical ("1024.0"); the text format, like
 * client_golang, the plain float */
static const char *le_text(const struct prom *p, char *buf, size_t len,
			   double le)
{
	fmt_double(buf, len, le);
	if (p->fmt == PROM_OPENMETRICS && !strpbrk(buf, ".eIN"))
		strncat(buf, ".0", len - strlen(buf) - 1);
	return buf;
}

static void histogram(struct prom *p, const char *name, struct labels *l,
		      const struct bhp_hist *h, const struct le_spec *sp,
		      double sum)
{
	size_t base = l->len;
	unsigned int i = 0;
	uint64_t n = 0;
	char le[40];

	for (unsigned int k = sp->lo; k <= sp->hi; k++) {
		unsigned int end = le_end(k, sp->est);

		for (; i < end && i < HIST_BUCKETS; i++)
			n += h->b[i];
		lbl_add(l, "le", le_text(p, le, sizeof(le),
					 ldexp(1, k) * sp->scale));
		sample_u64(p, name, "_bucket", l, n);
		lbl_reset(l, base);
	}
	n = hist_count(h);
	lbl_add(l, "le", "+Inf");
	sample_u64(p, name, "_bucket", l, n);
	lbl_reset(l, base);
	sample_u64(p, name, "_count", l, n);
	sample_f(p, name, "_sum", l, sum);
}

/* ---- the metrics ---- */

/* the series of d for path, labelled path and d's own label */
static void prom_labels(struct labels *l, const struct figure_def *d,
			unsigned int path)
{
	path_label(l, path);
	if (d->prom->label)
		lbl_add(l, d->prom->label, d->prom->value);
}

static void prom_series(struct prom *p, const struct figure_def *d,
			const struct path_summary *ps, struct labels *l)
{
	const struct figure_prom *fp = d->prom;
	const struct le_spec *sp = d->unit == U_NS ? &lat_les : &size_les;
	const struct bhp_hist *h = &ps->hist[fp->hist];
	double sum;

	if (d->type != FT_DIST) {
		counter_u64(p, fp->family, l, (uint64_t)figure_value(d, ps));
		return;
	}
	/* a sum no counter keeps (latency) from the buckets: their middles,
	 * within 1.6% */
	if (fp->sum)
		sum = (double)*(const uint64_t *)((const char *)ps + fp->sum);
	else
		sum = hist_mean(h, sp->est) * (double)hist_count(h) * sp->scale;
	histogram(p, fp->family, l, h, sp, sum);
}

/* the family of d's series, announced before its first one */
static void prom_family(struct prom *p, const struct figure_def *d,
			const char *help)
{
	bool dist = d->type == FT_DIST;

	family(p, d->prom->family, dist ? FAM_HISTOGRAM : FAM_COUNTER,
	       dist && d->unit == U_NS ? "seconds" :
	       d->unit == U_BYTES ? "bytes" : NULL, help);
}

/* is i the first figure of its family? */
static bool family_first(size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (figure_defs[k].prom &&
		    !strcmp(figure_defs[k].prom->family,
			    figure_defs[i].prom->family))
			return false;
	return true;
}

/*
 * The part of the other group a counter of the table is, or -1: the
 * group keeps the paths' write and writeback counters for files on
 * neither path (its bios are bio_metrics'), with no distributions.
 */
static int other_part_of(const struct figure_def *d)
{
	size_t lo = offsetof(struct path_summary, c);

	if (d->type != FT_U64 || d->off < lo ||
	    d->off >= lo + sizeof(struct bhp_path_stats))
		return -1;
	if (d->fig == FIG_WRITE)
		return OTHER_WRITE;
	if (d->fig == FIG_WB_CALLS || d->fig == FIG_WB_PAGES)
		return OTHER_WB;
	return -1;
}

/* the other group's series of d, path="other", where the run knows it */
static bool other_series(struct prom *p, const struct run_info *info,
			 const struct summary *s, const struct figure_def *d,
			 struct labels *l, bool header, const char *help)
{
	int part = other_part_of(d);

	if (part < 0 || other_why(info, part))
		return header;
	if (!header)
		prom_family(p, d, help);
	prom_labels(l, d, PATH_NONE);
	prom_series(p, d, &s->other, l);
	return true;
}

/*
 * The figures of the table (model/figures.c), a family at a time in
 * the order of its first figure: a series per path where the figure is
 * known, none where its probe group is not (absent, never 0).
 */
static void table_metrics(struct prom *p, const struct run_info *info,
			  const struct summary *s, struct labels *l)
{
	for (size_t i = 0; i < nr_figure_defs; i++) {
		const struct figure_def *d = &figure_defs[i];
		bool header = false;

		if (!d->prom || !family_first(i))
			continue;
		for (size_t k = i; k < nr_figure_defs; k++) {
			const struct figure_def *e = &figure_defs[k];

			if (!e->prom || strcmp(e->prom->family, d->prom->family))
				continue;
			for (unsigned int path = 0; path < NR_PATHS; path++) {
				if (!figure_known(info, path, e->fig))
					continue;
				if (!header)
					prom_family(p, e, d->prom->help);
				header = true;
				prom_labels(l, e, path);
				prom_series(p, e, &s->path[path], l);
			}
			header = other_series(p, info, s, e, l, header,
					      d->prom->help);
		}
	}
}

/*
 * A count split by path: bh, iomap and other (files on neither path, and
 * what no path context claimed). Where the contexts that decide a path
 * were lost but the count itself was not, one series path="unknown"
 * carries the total, so that a sum over path stays right; where the
 * count was lost, nothing.
 */
struct split {
	uint64_t v[NR_PATHS + 1];
	uint64_t total;
	bool paths_known, total_known;
};

static void split_samples(struct prom *p, const char *name, struct labels *l,
			  const struct split *sp)
{
	size_t base = l->len;

	if (sp->paths_known) {
		for (unsigned int path = 0; path <= NR_PATHS; path++) {
			lbl_add(l, "path", path_name(path));
			counter_u64(p, name, l, sp->v[path]);
			lbl_reset(l, base);
		}
	} else if (sp->total_known) {
		lbl_add(l, "path", "unknown");
		counter_u64(p, name, l, sp->total);
		lbl_reset(l, base);
	}
}

static void bio_split(const struct run_info *info, const struct summary *s,
		      bool bytes, struct split *sp)
{
	uint64_t sum = 0;

	for (unsigned int path = 0; path < NR_PATHS; path++) {
		const struct bhp_path_stats *c = &s->path[path].c;

		sp->v[path] = bytes ? c->bio_bytes : c->bio_count;
		sum += sp->v[path];
	}
	sp->total = bytes ? s->glob.bio_bytes : s->glob.bio_count;
	sp->v[PATH_NONE] = sp->total > sum ? sp->total - sum : 0;
	sp->paths_known = figure_known(info, PATH_BH, FIG_PATH_BIOS) &&
			  figure_known(info, PATH_BH, FIG_BIOS);
	sp->total_known = figure_known(info, PATH_BH, FIG_BIOS);
}

static void bio_metrics(struct prom *p, const struct run_info *info,
			const struct summary *s, struct labels *l)
{
	const char *size = "bhprof_bio_size_bytes";
	struct split sp;

	family(p, "bhprof_bios", FAM_COUNTER, NULL,
	       "Write bios on the watched devices, per path (other: files on neither, or no path context).");
	bio_split(info, s, false, &sp);
	lbl_reset(l, 0);
	split_samples(p, "bhprof_bios", l, &sp);
	family(p, "bhprof_bio_bytes", FAM_COUNTER, "bytes",
	       "Bytes of write bios on the watched devices, per path.");
	bio_split(info, s, true, &sp);
	split_samples(p, "bhprof_bio_bytes", l, &sp);
	family(p, size, FAM_HISTOGRAM, "bytes", "Write bio size, per path.");
	for (unsigned int path = 0; path < NR_PATHS && sp.paths_known; path++) {
		path_label(l, path);
		histogram(p, size, l, &s->path[path].hist[HIST_BIO_SIZE],
			  &size_les, (double)s->path[path].c.bio_bytes);
	}
	family(p, "bhprof_buffer_heads_allocated", FAM_COUNTER, NULL,
	       "buffer_head allocations, per path of the allocating context.");
	for (unsigned int path = 0; path < NR_PATHS; path++)
		sp.v[path] = s->path[path].c.bh_alloc;
	sp.v[PATH_NONE] = s->glob.bh_alloc_none;
	sp.total = s->glob.bh_alloc_total;
	sp.paths_known = figure_known(info, PATH_BH, FIG_BH);
	sp.total_known = figure_known(info, PATH_BH, FIG_BH_TOTAL);
	lbl_reset(l, 0);
	split_samples(p, "bhprof_buffer_heads_allocated", l, &sp);
}

static void device_metrics(struct prom *p, const struct run_info *info,
			   const struct summary *s, struct labels *l)
{
	static const char *const names[] = { "bhprof_device_bios",
					     "bhprof_device_bio_bytes" };
	static const char *const helps[] = {
		"Write bios per device and path, as /proc/diskstats counts them.",
		"Bytes of write bios per device and path.",
	};
	struct split sp;

	sp.paths_known = figure_known(info, PATH_BH, FIG_PATH_BIOS) &&
			 figure_known(info, PATH_BH, FIG_BIOS);
	sp.total_known = figure_known(info, PATH_BH, FIG_BIOS);
	for (int m = 0; m < 2; m++) {
		family(p, names[m], FAM_COUNTER, m ? "bytes" : NULL, helps[m]);
		for (uint32_t i = 0; i < s->nr_devs; i++) {
			const struct dev_summary *d = &s->devs[i];

			memcpy(sp.v, m ? d->path_bytes : d->path_bios,
			       sizeof(sp.v));
			sp.total = m ? d->bytes : d->bios;
			lbl_reset(l, 0);
			lbl_add(l, "device", d->name);
			split_samples(p, names[m], l, &sp);
		}
	}
}

/* is i the first figure of its family per filesystem? */
static bool fs_family_first(size_t i)
{
	const char *fam = figure_fs_family(&figure_defs[i]);

	for (size_t k = 0; k < i; k++) {
		const char *f = figure_fs_family(&figure_defs[k]);

		if (f && !strcmp(f, fam))
			return false;
	}
	return true;
}

/* the series of counter d of each filesystem's row that knows it */
static bool fs_series(struct prom *p, const struct run_info *info,
		      const struct summary *s, const struct figure_def *d,
		      struct labels *l, bool header, const char *help)
{
	size_t at = d->off - offsetof(struct path_summary, c);

	for (uint32_t i = 0; i < s->nr_fs; i++) {
		const struct fs_summary *f = &s->fs[i];

		if (fs_why(info, f->path, d->fig))
			continue;
		if (!header)
			family(p, figure_fs_family(d), FAM_COUNTER,
			       d->unit == U_BYTES ? "bytes" : NULL, help);
		header = true;
		lbl_reset(l, 0);
		lbl_add(l, "fs", fs_label(f->name));
		lbl_add(l, "path", path_name(f->path));
		if (d->prom && d->prom->label)
			lbl_add(l, d->prom->label, d->prom->value);
		counter_u64(p, figure_fs_family(d), l,
			    *(const uint64_t *)((const char *)&f->c + at));
	}
	return header;
}

/*
 * The counters of the filesystems' rows, a family each (bhprof_fs_*),
 * labelled fs (the type's name, "-" for no file's) and path: families of
 * their own, so that a sum over the paths' series stays the run's.
 */
static void fs_metrics(struct prom *p, const struct run_info *info,
		       const struct summary *s, struct labels *l)
{
	char help[160];

	for (size_t i = 0; i < nr_figure_defs; i++) {
		const struct figure_def *d = &figure_defs[i];
		const char *fam = figure_fs_family(d);
		bool header = false;

		if (!fam || !fs_family_first(i))
			continue;
		snprintf(help, sizeof(help), "%c%s, per filesystem type (fs) "
			 "and path%s.", toupper((unsigned char)d->label[0]),
			 d->label + 1,
			 d->prom && d->prom->label ? ", and io" : "");
		for (size_t k = i; k < nr_figure_defs; k++) {
			const char *f = figure_fs_family(&figure_defs[k]);

			if (f && !strcmp(f, fam))
				header = fs_series(p, info, s, &figure_defs[k],
						   l, header, help);
		}
	}
}

/* --callers: allocations per owner, role and context; frees; alive */
static void callers_metrics(struct prom *p, const struct run_info *info,
			    const struct summary *s, struct labels *l)
{
	static struct callers_table t;
	int64_t net = (int64_t)(s->glob.bh_alloc_total - s->glob.bh_freed);
	char dev[32];

	if (!figure_known(info, PATH_BH, FIG_CALLERS))
		return;
	if (info->buffer_head == 0)
		net = 0;
	callers_tables(s, &t);
	if (figure_known(info, PATH_BH, FIG_OWNERS)) {
		family(p, "bhprof_buffer_heads_by_owner", FAM_COUNTER, NULL,
		       "buffer_head allocations per owner (filesystem, device, role) and path context (--callers).");
		for (uint32_t i = 0; i < t.nr_owners; i++) {
			const struct callers_owner_row *o = &t.owners[i];

			for (uint32_t w = 0; w < NR_WHERE; w++) {
				lbl_reset(l, 0);
				lbl_add(l, "fs", o->o.fs);
				lbl_add(l, "device", o->o.dev ?
					dev_name(o->o.dev, dev, sizeof(dev)) : "?");
				lbl_add(l, "role", callers_role_name(o->o.role));
				lbl_add(l, "context", callers_where_name(w));
				counter_u64(p, "bhprof_buffer_heads_by_owner", l,
					    o->where[w]);
			}
		}
	}
	family(p, "bhprof_buffer_heads_freed", FAM_COUNTER, NULL,
	       "buffer_heads freed (--callers).");
	counter_u64(p, "bhprof_buffer_heads_freed", NULL,
		    info->buffer_head == 0 ? 0 : s->glob.bh_freed);
	family(p, "bhprof_buffer_heads_alive", FAM_GAUGE, NULL,
	       "buffer_heads allocated less those freed since bhprof started, negative when more were freed (--callers).");
	sample_f(p, "bhprof_buffer_heads_alive", "", NULL, (double)net);
	family(p, "bhprof_buffer_heads_alive_bytes", FAM_GAUGE, "bytes",
	       "The same in bytes of struct buffer_head (--callers).");
	sample_f(p, "bhprof_buffer_heads_alive_bytes", "", NULL,
		 (double)net * info->bh_size);
	family(p, "bhprof_buffer_heads_alive_peak", FAM_GAUGE, NULL,
	       "The highest of bhprof_buffer_heads_alive (--callers).");
	sample_f(p, "bhprof_buffer_heads_alive_peak", "", NULL,
		 info->buffer_head == 0 ? 0 : (double)s->bh_net_peak);
}

/* each program: which of bhprof's probes costs what */
static void self_prog_metrics(struct prom *p, const struct summary *s,
			      struct labels *l)
{
	family(p, "bhprof_bpf_program_run_seconds", FAM_COUNTER, "seconds",
	       "Run time of each of bhprof's BPF programs.");
	for (uint32_t i = 0; i < s->nr_self_progs; i++) {
		lbl_reset(l, 0);
		lbl_add(l, "program", s->self_progs[i].name);
		sample_f(p, "bhprof_bpf_program_run_seconds", "_total", l,
			 (double)s->self_progs[i].ns * 1e-9);
	}
	family(p, "bhprof_bpf_program_runs", FAM_COUNTER, NULL,
	       "Runs of each of bhprof's BPF programs.");
	for (uint32_t i = 0; i < s->nr_self_progs; i++) {
		lbl_reset(l, 0);
		lbl_add(l, "program", s->self_progs[i].name);
		counter_u64(p, "bhprof_bpf_program_runs", l,
			    s->self_progs[i].runs);
	}
}

static void self_metrics(struct prom *p, const struct summary *s,
			 struct labels *l)
{
	family(p, "bhprof_lost_events", FAM_COUNTER, NULL,
	       "Events not attributed because a per-thread context map was full.");
	counter_u64(p, "bhprof_lost_events", NULL, s->glob.ctx_lost);
	/* measured with --self-cost only: absent rather than 0 without */
	if (s->self_on_secs <= 0)
		return;
	/* every program loaded, from the start: a series does not appear
	 * with a program's first run */
	self_prog_metrics(p, s, l);
	family(p, "bhprof_bpf_run_seconds", FAM_COUNTER, "seconds",
	       "Run time of bhprof's BPF programs (kernel BPF statistics).");
	sample_f(p, "bhprof_bpf_run_seconds", "_total", NULL,
		 (double)s->self_ns * 1e-9);
	family(p, "bhprof_bpf_runs", FAM_COUNTER, NULL,
	       "Runs of bhprof's BPF programs.");
	counter_u64(p, "bhprof_bpf_runs", NULL, s->self_runs);
}

static void info_metrics(struct prom *p, const struct run_info *info,
			 struct labels *l)
{
	char key[64];

	family(p, "bhprof_run", FAM_INFO, NULL,
	       "Kernel release, machine, page size, CONFIG_BUFFER_HEAD and the attach mode of each probe group.");
	lbl_reset(l, 0);
	lbl_add(l, "version", info->version);
	lbl_add(l, "release", info->release);
	lbl_add(l, "buffer_head", info->buffer_head < 0 ? "unknown" :
				  info->buffer_head ? "y" : "n");
	lbl_add(l, "btf", info->btf ? "true" : "false");
	lbl_add(l, "machine", info->machine);
	snprintf(key, sizeof(key), "%u", info->page_size);
	lbl_add(l, "page_size", key);
	for (int i = 0; i < NR_PROBES; i++) {
		snprintf(key, sizeof(key), "attach_%s", probe_name(i));
		lbl_add(l, key, probe_state_text(&info->probes[i]));
	}
	sample_u64(p, "bhprof_run", "_info", l, 1);
	family(p, "bhprof_probe", FAM_INFO, NULL,
	       "Each probe group: the function resolved, its attach mode and why.");
	for (int i = 0; i < NR_PROBES; i++) {
		const struct probe_state *ps = &info->probes[i];

		lbl_reset(l, 0);
		lbl_add(l, "probe", probe_name(i));
		lbl_add(l, "func", ps->func);
		lbl_add(l, "module", ps->module);
		lbl_add(l, "mode", probe_state_text(ps));
		lbl_add(l, "detail", ps->detail);
		sample_u64(p, "bhprof_probe", "_info", l, 1);
	}
}

static void process_metrics(struct prom *p, const struct prom_process *proc,
			    struct labels *l)
{
	family(p, "process_cpu_seconds", FAM_COUNTER, "seconds",
	       "User and system CPU time of the bhprof process.");
	sample_f(p, "process_cpu_seconds", "_total", NULL, proc->cpu_seconds);
	family(p, "process_resident_memory_bytes", FAM_GAUGE, "bytes",
	       "Resident memory of the bhprof process.");
	sample_u64(p, "process_resident_memory_bytes", "", NULL,
		   proc->rss_bytes);
	family(p, "process_start_time_seconds", FAM_GAUGE, "seconds",
	       "Start of the bhprof process since the epoch.");
	sample_f(p, "process_start_time_seconds", "", NULL,
		 proc->start_seconds);
	family(p, "bhprof_scrapes", FAM_COUNTER, NULL,
	       "Scrapes served, per format, this one included.");
	for (int fmt = 0; fmt < NR_PROM_FORMATS; fmt++) {
		lbl_reset(l, 0);
		lbl_add(l, "format", prom_format_name(fmt));
		counter_u64(p, "bhprof_scrapes", l, proc->scrapes[fmt]);
	}
}

int prom_render(FILE *f, enum prom_format fmt, const struct run_info *info,
		const struct summary *s, const struct prom_process *proc)
{
	struct prom p = { .f = f, .fmt = fmt };
	struct labels *l = malloc(sizeof(*l));

	if (!l)
		return -1;
	lbl_reset(l, 0);
	info_metrics(&p, info, l);
	table_metrics(&p, info, s, l);
	bio_metrics(&p, info, s, l);
	device_metrics(&p, info, s, l);
	fs_metrics(&p, info, s, l);
	callers_metrics(&p, info, s, l);
	self_metrics(&p, s, l);
	if (proc)
		process_metrics(&p, proc, l);
	if (fmt == PROM_OPENMETRICS)
		fputs("# EOF\n", f);
	free(l);
	return ferror(f) ? -1 : 0;
}

/* ---- content negotiation ---- */

/* q of one media range: 1 unless a q parameter says otherwise; *v1
 * false when it names a version other than the 1.0.0 served here */
static double range_q(const char *params, bool *v1)
{
	double q = 1;
	const char *s = params;

	*v1 = true;
	while (s && *s) {
		s += strspn(s, " \t;");
		if (!strncasecmp(s, "q=", 2))
			q = strtod(s + 2, NULL);
		else if (!strncasecmp(s, "version=", 8))
			*v1 = !strncmp(s + 8, "1.0.0", 5);
		s = strchr(s, ';');
	}
	return q >= 0 && q <= 1 ? q : 0;
}

static bool type_is(const char *range, size_t len, const char *type)
{
	return len == strlen(type) && !strncasecmp(range, type, len);
}

enum prom_format prom_negotiate(const char *accept)
{
	double om = 0, text = 0;
	char buf[1024];
	char *save, *r;

	if (!accept)
		return PROM_TEXT;
	snprintf(buf, sizeof(buf), "%s", accept);
	for (r = strtok_r(buf, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		size_t len;
		bool v1;
		double q;

		r += strspn(r, " \t");
		len = strcspn(r, " \t;");
		q = range_q(r + len, &v1);
		if (type_is(r, len, "application/openmetrics-text") && v1)
			om = fmax(om, q);
		else if (type_is(r, len, "text/plain") ||
			 type_is(r, len, "text/*") || type_is(r, len, "*/*"))
			text = fmax(text, q);
	}
	return om > 0 && om >= text ? PROM_OPENMETRICS : PROM_TEXT;
}

const char *prom_content_type(enum prom_format fmt)
{
	return fmt == PROM_OPENMETRICS ?
	       "application/openmetrics-text; version=1.0.0; charset=utf-8" :
	       "text/plain; version=0.0.4; charset=utf-8";
}

const char *prom_format_name(enum prom_format fmt)
{
	return fmt == PROM_OPENMETRICS ? "openmetrics" : "text";
}
