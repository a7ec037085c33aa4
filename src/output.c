// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include "output.h"

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

static void dist_json(struct json *j, const char *key, const struct dist *d)
{
	json_obj_open(j, key);
	json_u64(j, "count", d->count);
	json_u64(j, "p50", d->p50);
	json_u64(j, "p90", d->p90);
	json_u64(j, "p99", d->p99);
	json_u64(j, "max", d->max);
	json_double(j, "mean", d->mean);
	json_obj_close(j);
}


static void dist_known(struct json *j, const char *key, const struct dist *d,
		       bool known)
{
	if (known)
		dist_json(j, key, d);
	else
		json_null(j, key);
}

static void write_json(struct json *j, const struct path_summary *p, bool k)
{
	json_obj_open(j, "write");
	json_u64_known(j, "calls", p->c.write_calls, k);
	json_u64_known(j, "bytes", p->c.write_bytes, k);
	json_u64_known(j, "errors", p->c.write_errors, k);
	json_double_known(j, "mb_per_s", p->write_mbps, k);
	dist_known(j, "lat_ns", &p->write_lat, k);
	json_obj_close(j);
	json_obj_open(j, "direct");
	json_u64_known(j, "calls", p->c.dio_calls, k);
	json_u64_known(j, "bytes", p->c.dio_bytes, k);
	dist_known(j, "lat_ns", &p->dio_lat, k);
	json_obj_close(j);
}

/* bios of one direction: count, bytes, rate and sizes */
static void bio_json(struct json *j, const char *key, uint64_t count,
		     uint64_t bytes, double mbps, const struct dist *size,
		     bool known)
{
	json_obj_open(j, key);
	json_u64_known(j, "count", count, known);
	json_u64_known(j, "bytes", bytes, known);
	json_double_known(j, "mb_per_s", mbps, known);
	dist_known(j, "size_bytes", size, known);
	json_obj_close(j);
}

/* reads, page_mkwrite faults and direct-write fallbacks */
static void read_json(struct json *j, const struct path_summary *p,
		      const struct run_info *info, unsigned int path)
{
	bool calls = figure_known(info, path, FIG_READ);
	bool bios = figure_known(info, path, FIG_READ_BIOS);
	bool mk = figure_known(info, path, FIG_MKWRITE);
	bool dwf = figure_known(info, path, FIG_DWF);

	json_obj_open(j, "read");
	json_u64_known(j, "calls", p->c.read_calls, calls);
	json_u64_known(j, "pages", p->c.read_pages,
		  figure_known(info, path, FIG_READ_PAGES));
	dist_known(j, "lat_ns", &p->read_lat, calls);
	json_obj_close(j);
	bio_json(j, "read_bio", p->c.read_bio_count, p->c.read_bio_bytes,
		 p->read_bio_mbps, &p->read_bio_size, bios);
	json_u64_known(j, "read_bh_alloc", p->c.read_bh_alloc,
		  figure_known(info, path, FIG_READ_BH));
	json_obj_open(j, "mkwrite");
	json_u64_known(j, "calls", p->c.mkwrite_calls, mk);
	dist_known(j, "lat_ns", &p->mkwrite_lat, mk);
	json_obj_close(j);
	json_obj_open(j, "dio_fallback");
	json_u64_known(j, "calls", p->c.dwf_calls, dwf);
	json_u64_known(j, "bytes", p->c.dwf_bytes, dwf);
	json_obj_close(j);
}

void path_json(struct json *j, const char *key, const struct path_summary *p,
	       const struct run_info *info, unsigned int path)
{
	bool wb_seen = figure_known(info, path, FIG_WB_CALLS);
	bool bios = figure_known(info, path, FIG_PATH_BIOS);
	bool bh = figure_known(info, path, FIG_BH);

	json_obj_open(j, key);
	write_json(j, p, figure_known(info, path, FIG_WRITE));
	json_obj_open(j, "writeback");
	json_u64_known(j, "calls", p->c.wb_calls, wb_seen);
	json_u64_known(j, "pages", p->c.wb_pages,
		  figure_known(info, path, FIG_WB_PAGES));
	dist_known(j, "lat_ns", &p->wb_lat, wb_seen);
	json_obj_close(j);
	bio_json(j, "bio", p->c.bio_count, p->c.bio_bytes, p->bio_mbps,
		 &p->bio_size, bios);
	json_u64_known(j, "bh_alloc", p->c.bh_alloc, bh);
	json_double_known(j, "bh_per_mib", p->bh_per_mib, bh);
	read_json(j, p, info, path);
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
		json_str(j, "mode", probe_state_text(&info->probes[i]));
		json_str(j, "detail", info->probes[i].detail);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void dev_paths_json(struct json *j, const struct dev_summary *d,
			   bool reads)
{
	json_obj_open(j, "paths");
	for (unsigned int p = 0; p <= NR_PATHS; p++) {
		json_obj_open(j, path_name(p));
		json_u64(j, "bio_count", d->path_bios[p]);
		json_u64(j, "bio_bytes", d->path_bytes[p]);
		json_u64_known(j, "read_bio_count", d->path_read_bios[p], reads);
		json_u64_known(j, "read_bio_bytes", d->path_read_bytes[p], reads);
		json_obj_close(j);
	}
	json_obj_close(j);
}

static void dev_reads_json(struct json *j, const struct dev_summary *d,
			   bool reads)
{
	json_u64_known(j, "read_bio_count", d->read_bios, reads);
	json_u64_known(j, "read_bio_bytes", d->read_bytes, reads);
	json_double_known(j, "read_mb_per_s", d->read_mbps, reads);
	if (!reads) {
		json_null(j, "read_size_bytes");
		return;
	}
	json_obj_open(j, "read_size_bytes");
	json_u64(j, "p50", d->read_size_p50);
	json_u64(j, "p99", d->read_size_p99);
	json_obj_close(j);
}

static void devices_json(struct json *j, const struct run_info *info,
			 const struct summary *s)
{
	bool reads = figure_known(info, PATH_BH, FIG_READ_DEV);
	char buf[32];

	json_arr_open(j, "devices");
	for (uint32_t i = 0; i < s->nr_devs; i++) {
		const struct dev_summary *d = &s->devs[i];

		json_obj_open(j, NULL);
		json_str(j, "name", d->name);
		json_str(j, "dev", fmt_dev(buf, sizeof(buf), d->dev));
		json_u64(j, "bio_count", d->bios);
		json_u64(j, "bio_bytes", d->bytes);
		json_double(j, "mb_per_s", d->mbps);
		dev_paths_json(j, d, reads);
		json_obj_open(j, "size_bytes");
		json_u64(j, "p50", d->size_p50);
		json_u64(j, "p99", d->size_p99);
		json_obj_close(j);
		dev_reads_json(j, d, reads);
		json_obj_close(j);
	}
	json_arr_close(j);
}

/* bhprof's own BPF programs: what the measurement cost the kernel */
static void overhead_json(struct json *j, const struct summary *s)
{
	bool measured = s->self_on_secs > 0;

	json_obj_open(j, "overhead");
	/* how long the statistics counted: 0 without --self-cost, and then
	 * the figures are unknown, not zero */
	json_double(j, "measured_s", s->self_on_secs);
	json_u64_known(j, "runs", s->self_runs, measured);
	json_u64_known(j, "run_ns", s->self_ns, measured);
	json_double_known(j, "cpu_pct",
			  measured ? s->self_ns / s->self_on_secs / 1e7 : 0,
			  measured);
	json_double_known(j, "ns_per_run",
			  s->self_runs ? (double)s->self_ns / s->self_runs : 0,
			  s->self_runs != 0);
	json_obj_close(j);
}

void summary_json_fields(struct json *j, const struct run_info *info,
			 const struct summary *s)
{
	bool bh = figure_known(info, PATH_BH, FIG_BH_TOTAL);
	bool bios = figure_known(info, PATH_BH, FIG_BIOS);

	json_str(j, "bhprof_version", info->version);
	kernel_json(j, info);
	probes_json(j, info);
	json_double(j, "duration_s", s->secs);
	json_double(j, "interval_s", info->interval_ms / 1000.0);
	json_obj_open(j, "paths");
	for (unsigned int p = 0; p < NR_PATHS; p++)
		path_json(j, path_name(p), &s->path[p], info, p);
	json_obj_close(j);
	json_u64_known(j, "bh_alloc_total", s->glob.bh_alloc_total, bh);
	json_u64_known(j, "bh_alloc_unattributed", s->glob.bh_alloc_none, bh);
	json_obj_open(j, "bio_total");
	json_u64_known(j, "count", s->glob.bio_count, bios);
	json_u64_known(j, "bytes", s->glob.bio_bytes, bios);
	json_obj_close(j);
	json_obj_open(j, "read_bio_total");
	json_u64_known(j, "count", s->glob.read_bio_count,
		  figure_known(info, PATH_BH, FIG_READ_DEV));
	json_u64_known(j, "bytes", s->glob.read_bio_bytes,
		  figure_known(info, PATH_BH, FIG_READ_DEV));
	json_obj_close(j);
	json_u64(j, "lost", s->glob.ctx_lost);
	overhead_json(j, s);
	if (bios)
		devices_json(j, info, s);
	else
		json_null(j, "devices");
}

/* ---- text ---- */

#define ROW "%-24s %18s %18s\n"

/* Rows of a figure the run cannot know read why: "failed" (its probe
 * group was lost), "n/a", "absent", never a zero that looks real. */
static bool row_why(FILE *f, const char *label, const char *why)
{
	if (why)
		fprintf(f, ROW, label, why, why);
	return !why;
}

static bool row_known(FILE *f, const char *label, bool known)
{
	return row_why(f, label, known ? NULL : "failed");
}

static void row_u64w(FILE *f, const char *label, uint64_t a, uint64_t b,
		     const char *why)
{
	char x[32], y[32];

	if (!row_why(f, label, why))
		return;
	snprintf(x, sizeof(x), "%llu", (unsigned long long)a);
	snprintf(y, sizeof(y), "%llu", (unsigned long long)b);
	fprintf(f, ROW, label, x, y);
}

static void row_u64(FILE *f, const char *label, uint64_t a, uint64_t b,
		    bool known)
{
	row_u64w(f, label, a, b, known ? NULL : "failed");
}

static void row_bytesw(FILE *f, const char *label, double a, double b,
		       const char *why)
{
	char x[32], y[32];

	if (!row_why(f, label, why))
		return;
	fprintf(f, ROW, label, fmt_bytes(x, sizeof(x), a),
		fmt_bytes(y, sizeof(y), b));
}

static void row_bytes(FILE *f, const char *label, double a, double b,
		      bool known)
{
	row_bytesw(f, label, a, b, known ? NULL : "failed");
}

static void row_double(FILE *f, const char *label, double a, double b,
		       bool known)
{
	char x[32], y[32];

	if (!row_known(f, label, known))
		return;
	snprintf(x, sizeof(x), "%.2f", a);
	snprintf(y, sizeof(y), "%.2f", b);
	fprintf(f, ROW, label, x, y);
}

/* "-" where the path saw nothing, "n/a" where the mode cannot see */
static const char *ns_cell(char *buf, size_t len, const struct dist *d,
			   uint64_t v, bool seen)
{
	if (!seen)
		return "n/a";
	if (!d->count)
		return "-";
	return fmt_ns(buf, len, v);
}

static void lat_rows(FILE *f, const char *name, const struct dist *a,
		     const struct dist *b, bool seen_a, bool seen_b)
{
	static const char *const which[] = { "p50", "p99", "max" };
	char label[40], x[32], y[32];

	for (int i = 0; i < 3; i++) {
		uint64_t va = i == 0 ? a->p50 : i == 1 ? a->p99 : a->max;
		uint64_t vb = i == 0 ? b->p50 : i == 1 ? b->p99 : b->max;

		snprintf(label, sizeof(label), "%s %s", name, which[i]);
		fprintf(f, ROW, label, ns_cell(x, sizeof(x), a, va, seen_a),
			ns_cell(y, sizeof(y), b, vb, seen_b));
	}
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
		"DEVICE", "DEV", "BIOS", "BYTES", "BH", "IOMAP", "NONE",
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

static void write_rows(FILE *f, const struct path_summary *a,
		       const struct path_summary *b, bool k)
{
	row_u64(f, "write calls", a->c.write_calls, b->c.write_calls, k);
	row_bytes(f, "write bytes", a->c.write_bytes, b->c.write_bytes, k);
	/* buffered and O_DIRECT together: what the writers achieved */
	row_double(f, "written MiB/s", a->write_mbps, b->write_mbps, k);
	if (k)
		lat_rows(f, "write lat", &a->write_lat, &b->write_lat, true,
			 true);
	/* the O_DIRECT block only where there was O_DIRECT */
	if (a->c.dio_calls || b->c.dio_calls) {
		row_u64(f, "direct calls", a->c.dio_calls, b->c.dio_calls, k);
		row_bytes(f, "direct bytes", a->c.dio_bytes, b->c.dio_bytes, k);
		lat_rows(f, "direct lat", &a->dio_lat, &b->dio_lat, true, true);
	}
	if (a->c.write_errors || b->c.write_errors)
		row_u64(f, "write errors", a->c.write_errors,
			b->c.write_errors, k);
}

static void bio_rows(FILE *f, const struct path_summary *a,
		     const struct path_summary *b, bool k)
{
	row_u64(f, "bios", a->c.bio_count, b->c.bio_count, k);
	row_bytes(f, "bio bytes", a->c.bio_bytes, b->c.bio_bytes, k);
	row_bytes(f, "bio size p50", a->bio_size.p50, b->bio_size.p50, k);
	row_bytes(f, "bio size p99", a->bio_size.p99, b->bio_size.p99, k);
	row_bytes(f, "bio size max", a->bio_size.max, b->bio_size.max, k);
}

/* Reads, page_mkwrite faults and direct-write fallbacks: what the
 * comparison of the paths needs besides write calls and writeback. */
static void read_rows(FILE *f, const struct run_info *info,
		      const struct path_summary *a,
		      const struct path_summary *b)
{
	const char *calls = figure_why(info, PATH_BH, FIG_READ);
	const char *bios = figure_why(info, PATH_BH, FIG_READ_BIOS);
	const char *mk = figure_why(info, PATH_BH, FIG_MKWRITE);
	const char *dwf = figure_why(info, PATH_BH, FIG_DWF);

	row_u64w(f, "read calls", a->c.read_calls, b->c.read_calls, calls);
	row_u64w(f, "read pages", a->c.read_pages, b->c.read_pages,
		 figure_why(info, PATH_BH, FIG_READ_PAGES));
	if (!calls)
		lat_rows(f, "read lat", &a->read_lat, &b->read_lat, true,
			 true);
	row_u64w(f, "read bios", a->c.read_bio_count, b->c.read_bio_count,
		 bios);
	row_bytesw(f, "read bio bytes", a->c.read_bio_bytes,
		   b->c.read_bio_bytes, bios);
	row_bytesw(f, "read bio size p50", a->read_bio_size.p50,
		   b->read_bio_size.p50, bios);
	row_bytesw(f, "read bio size max", a->read_bio_size.max,
		   b->read_bio_size.max, bios);
	row_u64w(f, "read bh allocations", a->c.read_bh_alloc,
		 b->c.read_bh_alloc, figure_why(info, PATH_BH, FIG_READ_BH));
	row_u64w(f, "mkwrite faults", a->c.mkwrite_calls, b->c.mkwrite_calls,
		 mk);
	if (!mk && (a->c.mkwrite_calls || b->c.mkwrite_calls))
		lat_rows(f, "mkwrite lat", &a->mkwrite_lat, &b->mkwrite_lat,
			 true, true);
	row_u64w(f, "direct fallbacks", a->c.dwf_calls, b->c.dwf_calls, dwf);
	row_bytesw(f, "fallback bytes", a->c.dwf_bytes, b->c.dwf_bytes, dwf);
}

static void footer_text(FILE *f, const struct run_info *info,
			const struct summary *s, bool wb_seen)
{
	char lost[64];

	if (figure_known(info, PATH_BH, FIG_BH_TOTAL))
		fprintf(f, "\nbh allocations: %llu in all, %llu outside any "
			"path\n", (unsigned long long)s->glob.bh_alloc_total,
			(unsigned long long)s->glob.bh_alloc_none);
	if (*lost_groups_text(info, lost, sizeof(lost)))
		fprintf(f, "lost probe groups: %s (their figures read "
			"'failed'; bhprof probe says why)\n", lost);
	if (!wb_seen && figure_known(info, PATH_BH, FIG_WB_PAGES))
		fprintf(f, "writeback calls and latency: not visible to "
			"tracepoints (see README)\n");
	if (s->self_runs && s->self_on_secs > 0)
		fprintf(f, "bhprof's own cost: %llu program runs, %.0f ns each, "
			"%.3f%% of one CPU\n", (unsigned long long)s->self_runs,
			(double)s->self_ns / s->self_runs,
			s->self_ns / s->self_on_secs / 1e7);
	if (s->glob.ctx_lost)
		fprintf(f, "lost: %llu events not attributed (context map full)\n",
			(unsigned long long)s->glob.ctx_lost);
}

void summary_text(FILE *f, const struct run_info *info,
		  const struct summary *s)
{
	const struct path_summary *a = &s->path[PATH_BH], *b = &s->path[PATH_IOMAP];
	bool wa = figure_known(info, PATH_BH, FIG_WB_CALLS);
	bool wi = figure_known(info, PATH_IOMAP, FIG_WB_CALLS);
	bool bios = figure_known(info, PATH_BH, FIG_PATH_BIOS);
	bool bh = figure_known(info, PATH_BH, FIG_BH);

	header_text(f, info, s);
	write_rows(f, a, b, figure_known(info, PATH_BH, FIG_WRITE));
	if (wa || wi)
		row_u64(f, "writeback calls", a->c.wb_calls, b->c.wb_calls,
			true);
	row_u64(f, "writeback pages", a->c.wb_pages, b->c.wb_pages,
		figure_known(info, PATH_BH, FIG_WB_PAGES));
	if (wa || wi)
		lat_rows(f, "writeback lat", &a->wb_lat, &b->wb_lat, wa, wi);
	bio_rows(f, a, b, bios);
	row_u64(f, "bh allocations", a->c.bh_alloc, b->c.bh_alloc, bh);
	row_double(f, "bh per MiB", a->bh_per_mib, b->bh_per_mib, bh);
	read_rows(f, info, a, b);
	footer_text(f, info, s, wa || wi);
	if (bios) {
		size_hist_text(f, &a->hist[HIST_BIO_SIZE], "bh");
		size_hist_text(f, &b->hist[HIST_BIO_SIZE], "iomap");
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
