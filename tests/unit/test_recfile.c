// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record files: round trips, and the reader against every truncation
 * and every single-bit flip of a small recording. The property checked
 * throughout is that the reader never hands out a snapshot that differs
 * from what was written: it recovers, warns, or refuses with one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "harness.h"
#include "model/callers.h"
#include "model/fsrows.h"
#include "recfile/recfile.h"

#define T_MAX_SNAPS 200

static struct snapshot *orig;	/* what was written */
static bool check_steps = true;	/* the sweeps skip it: it is slow */
static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* the page size fill_info() gives: a test of a bad one changes it */
static uint32_t t_page_size = 16384;

static void fill_info(struct run_info *in)
{
	unsigned int i;

	memset(in, 0, sizeof(*in));
	strcpy(in->version, "test-1.2");
	strcpy(in->release, "6.18.0-test");
	in->buffer_head = 1;
	in->btf = true;
	strcpy(in->hostname, "host.example");
	strcpy(in->machine, "aarch64");
	in->page_size = t_page_size;
	in->start_realtime_ns = 1764748800123456789ull;
	in->interval_ms = 1000;
	in->nr_filter_devs = 2;
	in->filter_devs[0] = KDEV_MKDEV(7u, 0u);
	in->filter_devs[1] = KDEV_MKDEV(259u, 1u);
	in->filter_pid = 4242;
	strcpy(in->cmdline, "bhprof record -o x.bhp -- dd if=/dev/zero");
	in->features = RUN_F_READS | RUN_F_OTHER | RUN_F_FS;
	in->other_mode = MODE_TRACEPOINT;
	strcpy(in->other_detail, "syscalls:sys_{enter,exit}_* of the write "
	       "syscalls");
	for (i = 0; i < NR_PROBES; i++) {
		in->probes[i].mode = i % 4;
		in->probes[i].absent = i == 3;
		snprintf(in->probes[i].func, sizeof(in->probes[i].func),
			 "func_%u", i);
		snprintf(in->probes[i].detail, sizeof(in->probes[i].detail),
			 "detail %u", i);
	}
}

static struct dev_row *t_row(struct snapshot *s, uint32_t dev, uint32_t path)
{
	uint32_t i;

	for (i = 0; i < s->nr_devs; i++)
		if (s->devs[i].dev == dev && s->devs[i].path == path)
			return &s->devs[i];
	if (s->nr_devs == MAX_SNAP_DEVS)
		return NULL;
	s->devs[i].dev = dev;
	s->devs[i].path = path;
	s->nr_devs++;
	return &s->devs[i];
}

/* Busy intervals move a few dozen buckets; every 5th is idle. */
static void gen_series(unsigned int n, bool devs)
{
	unsigned int i, k;

	memset(orig, 0, sizeof(*orig));
	orig[0].ts_ns = 5000000000ull;
	for (i = 1; i < n; i++) {
		struct snapshot *s = &orig[i];

		*s = orig[i - 1];
		s->ts_ns += 1000000000ull + rnd() % 1000;
		/* a module's probes come a third of the way, go at two */
		if (i == n / 3)
			s->probes_late = 1ULL << PROBE_WB_EXT4 |
					 1ULL << PROBE_PASS_EXT4;
		if (i == 2 * n / 3) {
			s->probes_gone = s->probes_late;
			s->probes_late = 0;
		}
		if (i % 5 == 0)
			continue;
		for (k = 0; k < 30; k++) {
			unsigned int h = rnd() % NR_HISTS;

			s->hists[h].b[rnd() % 300] += 1 + rnd() % 5000;
		}
		s->paths[i % 2].write_calls += rnd() % 100000;
		s->paths[0].bh_alloc += rnd() % 1000;
		s->paths[i % 2].read_bio_bytes += rnd() % 100000;
		s->paths[1].dwf_bytes += rnd() % 4096;
		/* the other group's row: path 2 */
		s->paths[PATH_NONE].write_calls += rnd() % 1000;
		s->paths[PATH_NONE].bio_bytes += rnd() % 100000;
		s->glob.read_bio_count += rnd() % 50;
		s->glob.bio_bytes += rnd();	/* wraps: deltas stay exact */
		/* filesystem rows come as they are seen, kept sorted */
		fs_row_get(s, i % 7 ? "ext4" : "", i % 3)->s.write_calls +=
			rnd() % 1000;
		fs_row_get(s, i > n / 4 ? "fuse" : "xfs", PATH_IOMAP)
			->s.bh_alloc += rnd() % 9;
		if (!devs)
			continue;
		t_row(s, KDEV_MKDEV(7u, i % 3), i % 2)->s.bios += rnd() % 9;
		t_row(s, KDEV_MKDEV(8u, 0u), PATH_NONE)->s.size_log2[12]++;
		t_row(s, KDEV_MKDEV(8u, 0u), PATH_NONE)->s.read_size_log2[20]++;
		if (i == n / 2 && s->nr_devs > 1) {	/* a row goes away */
			s->devs[0] = s->devs[s->nr_devs - 1];
			s->nr_devs--;
		}
	}
}

static bool same_snap(const struct snapshot *a, const struct snapshot *b)
{
	uint32_t i, j;

	if (a->ts_ns != b->ts_ns || a->nr_devs != b->nr_devs ||
	    a->probes_late != b->probes_late ||
	    a->probes_gone != b->probes_gone ||
	    memcmp(a->paths, b->paths, sizeof(a->paths)) ||
	    memcmp(&a->glob, &b->glob, sizeof(a->glob)) ||
	    memcmp(a->hists, b->hists, sizeof(a->hists)))
		return false;
	for (i = 0; i < a->nr_devs; i++) {
		for (j = 0; j < b->nr_devs; j++)
			if (a->devs[i].dev == b->devs[j].dev &&
			    a->devs[i].path == b->devs[j].path)
				break;
		if (j == b->nr_devs ||
		    memcmp(&a->devs[i].s, &b->devs[j].s, sizeof(a->devs[i].s)))
			return false;
	}
	/* both sorted: row by row, name, path and counts */
	return a->nr_fs == b->nr_fs &&
	       !memcmp(a->fs, b->fs, a->nr_fs * sizeof(a->fs[0]));
}

/* A recording of orig[0..n) in memory; ends[i] is where frame i ends. */
struct blob {
	uint8_t *p;
	size_t len;
	size_t ends[T_MAX_SNAPS + 2];
	size_t meta_end;
};

static void write_blob(struct blob *b, unsigned int n, unsigned int key_every,
		       bool end)
{
	struct rec_end e = { .present = true, .reason = REC_STOP_COMMAND,
			     .has_exit = true, .exit_status = 3,
			     .elapsed_ns = 12345 };
	struct recwriter *w;
	struct run_info in;
	struct stat st;
	unsigned int i;
	int fd = memfd_create("rec", 0);

	fill_info(&in);
	CHECK(fd >= 0);
	CHECK(recwriter_open_fd(fd, &w) == 0);
	recwriter_set_keyframe_every(w, key_every);
	recwriter_dev_name(w, KDEV_MKDEV(7u, 0u), "loop0");
	recwriter_command(w, (char *[]){ "dd", "if=/dev/zero", "", NULL });
	CHECK(recwriter_begin(w, &in) == 0);
	b->meta_end = recwriter_bytes(w);
	for (i = 0; i < n; i++) {
		CHECK(recwriter_append(w, &orig[i]) == 0);
		b->ends[i] = recwriter_bytes(w);
	}
	if (end)
		CHECK(recwriter_end(w, &e) == 0);
	fd = dup(fd);
	CHECK(recwriter_close(w) == 0);
	fstat(fd, &st);
	b->len = st.st_size;
	b->p = malloc(b->len);
	CHECK(pread(fd, b->p, b->len, 0) == (ssize_t)b->len);
	close(fd);
}

static void t_delta(const struct snapshot *a, const struct snapshot *b,
		    struct snapshot *d)
{
	const uint64_t *pa = (const uint64_t *)a->hists;
	const uint64_t *pb = (const uint64_t *)b->hists;
	uint64_t *pd = (uint64_t *)d->hists;
	size_t i;

	d->ts_ns = b->ts_ns - a->ts_ns;
	for (i = 0; i < NR_HISTS * HIST_BUCKETS; i++)
		pd[i] = pb[i] - pa[i];
	pa = (const uint64_t *)a->paths;
	pb = (const uint64_t *)b->paths;
	pd = (uint64_t *)d->paths;
	for (i = 0; i < sizeof(a->paths) / 8; i++)
		pd[i] = pb[i] - pa[i];
}

/* Outside the range it announces, a step's histogram is zero. */
static bool range_ok(const struct rec_frame *f)
{
	for (unsigned int h = 0; h < NR_HISTS; h++)
		for (unsigned int b = 0; b < HIST_BUCKETS; b++)
			if (f->step->hists[h].b[b] &&
			    (b < f->step_lo[h] || b > f->step_hi[h]))
				return false;
	return true;
}

/* Every snapshot read matches the one written with the same time; the
 * count returned and whether steps are right are checked too. */
static unsigned int read_all(struct recfile *r, unsigned int n, bool *exact)
{
	const struct snapshot *prev = NULL;
	struct rec_frame f;
	unsigned int got = 0, i;
	static struct snapshot d;

	*exact = true;
	while (recfile_next(r, &f) == 1) {
		for (i = 0; i < n && orig[i].ts_ns != f.cum->ts_ns; i++)
			;
		if (i == n || !same_snap(f.cum, &orig[i])) {
			*exact = false;
			continue;
		}
		if (check_steps && prev && !f.after_gap) {
			t_delta(prev, f.cum, &d);
			if (d.ts_ns != f.step->ts_ns ||
			    memcmp(d.hists, f.step->hists, sizeof(d.hists)) ||
			    memcmp(d.paths, f.step->paths, sizeof(d.paths)) ||
			    !range_ok(&f))
				*exact = false;
		}
		prev = &orig[i];
		got++;
	}
	return got;
}

static int open_blob(const uint8_t *p, size_t len, struct recfile **r,
		     char *err)
{
	err[0] = 0;
	return recfile_open_mem(p, len, r, err, 256);
}

static bool one_line(const char *s)
{
	return s[0] && !strchr(s, '\n');
}

static void setup(void)
{
	if (!orig)
		orig = calloc(T_MAX_SNAPS, sizeof(*orig));
}

TEST(recfile_round_trip)
{
	unsigned int keys[] = { 60, 7, 1 }, k;
	const struct run_info *in;
	const struct rec_end *e;
	struct run_info want;
	struct recfile *r;
	struct blob b;
	char err[256];
	bool exact;

	setup();
	gen_series(150, true);
	fill_info(&want);
	for (k = 0; k < 3; k++) {
		write_blob(&b, 150, keys[k], true);
		CHECK(open_blob(b.p, b.len, &r, err) == 0);
		if (!r)
			continue;
		CHECK_EQ_U64(read_all(r, 150, &exact), 150);
		CHECK(exact);
		CHECK_EQ_U64(recfile_nr_warnings(r), 0);
		in = recfile_info(r);
		CHECK(!memcmp(in, &want, sizeof(want)));
		e = recfile_end(r);
		CHECK(e->present && e->reason == REC_STOP_COMMAND);
		CHECK(e->has_exit && e->exit_status == 3);
		CHECK_EQ_U64(e->frames, 150);
		CHECK_EQ_U64(e->elapsed_ns, 12345);
		CHECK_EQ_U64(recfile_nr_args(r), 3);
		CHECK(!strcmp(recfile_arg(r, 1), "if=/dev/zero"));
		CHECK(!strcmp(recfile_arg(r, 2), "") && !recfile_arg(r, 3));
		CHECK(recfile_dev_name(r, KDEV_MKDEV(7u, 0u)) &&
		      !strcmp(recfile_dev_name(r, KDEV_MKDEV(7u, 0u)), "loop0"));
		/* a second pass gives the same */
		recfile_rewind(r);
		CHECK_EQ_U64(read_all(r, 150, &exact), 150);
		CHECK(exact);
		recfile_close(r);
		r = NULL;
		free(b.p);
	}
}

/* diff's shortcut: the first snapshot, then straight to the end */
TEST(recfile_seek_last_keyframe)
{
	const struct snapshot *last = NULL;
	struct rec_frame f;
	struct recfile *r;
	unsigned int n = 0;
	struct blob b;
	char err[256];

	setup();
	gen_series(130, true);
	write_blob(&b, 130, 60, true);
	CHECK(open_blob(b.p, b.len, &r, err) == 0);
	if (!r)
		return;
	while (recfile_next(r, &f) == 1) {
		if (!n++) {
			CHECK(same_snap(f.cum, &orig[0]));
			recfile_seek_last_keyframe(r);
		}
		last = f.cum;
	}
	/* the first, the keyframe at 120, and 121..129 */
	CHECK_EQ_U64(n, 1 + 10);
	CHECK(last && same_snap(last, &orig[129]));
	recfile_close(r);
	free(b.p);
}

TEST(recfile_idle_interval_is_small)
{
	struct blob b;
	size_t per;

	setup();
	memset(orig, 0, 100 * sizeof(*orig));
	for (unsigned int i = 0; i < 100; i++)
		orig[i].ts_ns = 1000000000ull * (i + 1);
	write_blob(&b, 100, 60, false);
	per = (b.ends[50] - b.ends[40]) / 10;
	if (per > 32)
		fprintf(stderr, "  idle frame: %zu bytes\n", per);
	CHECK(per <= 32);
	free(b.p);
}

/* Cut a recording at every byte: below the metadata it is one error
 * line; past it, every frame before the cut comes back, nothing else. */
TEST(recfile_truncation_sweep)
{
	unsigned int want, got, i, fails = 0;
	struct recfile *r;
	struct blob b;
	char err[256];
	bool exact;
	size_t cut;

	setup();
	gen_series(12, true);
	write_blob(&b, 12, 4, true);
	check_steps = false;
	for (cut = 0; cut <= b.len; cut++) {
		r = NULL;
		if (cut < b.meta_end) {
			if (open_blob(b.p, cut, &r, err) != -1 || !one_line(err))
				fails++;
			recfile_close(r);
			continue;
		}
		if (open_blob(b.p, cut, &r, err)) {
			fails++;
			continue;
		}
		for (want = 0, i = 0; i < 12 && b.ends[i] <= cut; i++)
			want++;
		got = read_all(r, 12, &exact);
		if (got != want || !exact)
			fails++;
		/* a cut anywhere but the very end is warned about */
		if ((cut < b.len) != (recfile_nr_warnings(r) > 0))
			fails++;
		if (cut < b.len && cut != b.meta_end && cut != b.ends[want ? want - 1 : 0] &&
		    !recfile_stats(r)->torn)
			fails++;
		recfile_close(r);
	}
	check_steps = true;
	if (fails)
		fprintf(stderr, "  %u of %zu cuts wrong\n", fails, b.len + 1);
	CHECK(fails == 0);
	free(b.p);
}

/* Flip every bit of a recording: the reader refuses, or warns and hands
 * out only intact snapshots, and all those written before the flip. */
TEST(recfile_bitflip_sweep)
{
	unsigned int got, i, bit, fails = 0, minimum;
	struct recfile *r;
	struct blob b;
	char err[256];
	bool exact;
	size_t off;
	uint8_t *p;

	setup();
	gen_series(12, true);
	write_blob(&b, 12, 4, true);
	p = malloc(b.len);
	check_steps = false;
	for (off = 0; off < b.len; off++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(p, b.p, b.len);
			p[off] ^= 1u << bit;
			r = NULL;
			if (open_blob(p, b.len, &r, err)) {
				/* only the header and metadata are fatal */
				if (!one_line(err) || off >= b.meta_end)
					fails++;
				continue;
			}
			for (minimum = 0, i = 0; i < 12 && b.ends[i] <= off; i++)
				minimum++;
			if (off >= b.meta_end && minimum)
				minimum--;	/* the frame holding off */
			got = read_all(r, 12, &exact);
			if (!exact || got < minimum)
				fails++;
			/* a minor version flip is harmless; all else warns */
			if (off != 10 && off != 11 && !recfile_nr_warnings(r))
				fails++;
			recfile_close(r);
		}
	}
	check_steps = true;
	if (fails)
		fprintf(stderr, "  %u of %zu flips wrong\n", fails, b.len * 8);
	CHECK(fails == 0);
	free(p);
	free(b.p);
}

/* Hand-made frames, for what the writer never produces. */
static size_t put_frame(uint8_t *dst, uint8_t type, const void *pay,
			size_t n)
{
	uLongf z = compressBound(n);
	uint32_t crc;

	compress2(dst + 9, &z, pay, n, 6);
	crc = crc32(crc32(0, &type, 1), dst + 9, z);
	memcpy(dst, &(uint32_t){ z }, 4);
	memcpy(dst + 4, &crc, 4);
	dst[8] = type;
	return 9 + z;
}

/* b with extra inserted at offset at */
static uint8_t *blob_insert(const struct blob *b, size_t at, const uint8_t *extra,
		       size_t n)
{
	uint8_t *p = malloc(b->len + n);

	memcpy(p, b->p, at);
	memcpy(p + at, extra, n);
	memcpy(p + at + n, b->p + at, b->len - at);
	return p;
}

TEST(recfile_skips_unknown)
{
	/* a frame of type 99, and a snapshot-like frame with tag 77 */
	static const uint8_t junk[] = { 77, 3, 1, 2, 3, 1, 1, 0 };
	uint8_t extra[256], *p;
	struct recfile *r;
	struct blob b;
	char err[256];
	size_t n;
	bool exact;

	setup();
	gen_series(20, true);
	write_blob(&b, 20, 60, true);
	n = put_frame(extra, 99, junk, sizeof(junk));
	p = blob_insert(&b, b.ends[9], extra, n);
	CHECK(open_blob(p, b.len + n, &r, err) == 0);
	if (r) {
		CHECK_EQ_U64(read_all(r, 20, &exact), 20);
		CHECK(exact);
		CHECK_EQ_U64(recfile_nr_warnings(r), 0);
		CHECK_EQ_U64(recfile_stats(r)->unknown_frames, 1);
		recfile_close(r);
	}
	free(p);
	/* a newer minor version reads; unknown sections are ignored */
	b.p[10] = 9;
	CHECK(open_blob(b.p, b.len, &r, err) == 0);
	recfile_close(r);
	free(b.p);
}

TEST(recfile_bad_files)
{
	static const uint8_t hdr[] = "\x89" "BHPROF\n\x02\x00\x00\x00";
	char path[] = "/tmp/bhprof-test-XXXXXX";
	struct recfile *r = NULL;
	char err[256];
	int fd;

	CHECK(open_blob((const uint8_t *)"", 0, &r, err) == -1);
	CHECK(one_line(err) && strstr(err, "empty"));
	CHECK(open_blob((const uint8_t *)"GIF89a..........", 16, &r, err) == -1);
	CHECK(one_line(err) && strstr(err, "magic"));
	CHECK(open_blob(hdr, 12, &r, err) == -1);
	CHECK(one_line(err) && strstr(err, "newer"));
	CHECK(open_blob(hdr, 5, &r, err) == -1);
	CHECK(one_line(err) && strstr(err, "truncated"));
	CHECK(recfile_open("/", &r, err, sizeof(err)) == -1);
	CHECK(one_line(err) && strstr(err, "directory"));
	CHECK(recfile_open("/nonexistent/x", &r, err, sizeof(err)) == -1);
	CHECK(one_line(err));
	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	CHECK(recfile_open(path, &r, err, sizeof(err)) == -1);
	CHECK(one_line(err) && strstr(err, "empty"));
	unlink(path);
}

/* A page size no kernel has would turn pages into nonsense bytes. */
TEST(recfile_bad_page_size)
{
	static const uint32_t bad[] = { 3000, 2048, 1u << 21, 12288 };
	struct recfile *r = NULL;
	struct blob b;
	char err[256];

	setup();
	gen_series(2, true);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t_page_size = bad[i];
		write_blob(&b, 2, 60, true);
		CHECK(open_blob(b.p, b.len, &r, err) == -1);
		CHECK(one_line(err) && strstr(err, "page size"));
		free(b.p);
	}
	t_page_size = 65536;
	write_blob(&b, 2, 60, true);
	CHECK(open_blob(b.p, b.len, &r, err) == 0);
	if (r)
		CHECK_EQ_U64(recfile_info(r)->page_size, 65536);
	recfile_close(r);
	free(b.p);
	t_page_size = 16384;
}

/* A frame lost mid-file costs the intervals up to the next keyframe. */
TEST(recfile_resync_at_keyframe)
{
	struct recfile *r;
	struct blob b;
	char err[256];
	bool exact;

	setup();
	gen_series(40, true);
	write_blob(&b, 40, 10, true);
	b.p[b.ends[14] + 20] ^= 0x40;	/* inside frame 15 */
	CHECK(open_blob(b.p, b.len, &r, err) == 0);
	if (r) {
		/* 0..14 and 20..39: frames 15..19 are lost */
		CHECK_EQ_U64(read_all(r, 40, &exact), 35);
		CHECK(exact);
		CHECK_EQ_U64(recfile_stats(r)->bad_regions, 1);
		CHECK_EQ_U64(recfile_stats(r)->lost_intervals, 4);
		CHECK(recfile_nr_warnings(r) >= 1);
		recfile_close(r);
	}
	free(b.p);
}

/* Lengths that lie, and a payload that inflates past the cap. */
TEST(recfile_hostile_frames)
{
	static uint8_t bomb[REC_MAX_PAYLOAD + 16], extra[64 << 10];
	struct recfile *r;
	struct blob b;
	char err[256];
	uint8_t *p;
	size_t n;
	bool exact;

	setup();
	gen_series(10, false);
	write_blob(&b, 10, 3, true);
	/* payload: a valid section list far beyond the payload cap */
	memset(bomb, 0, sizeof(bomb));
	bomb[0] = 1;
	bomb[1] = 1;
	n = put_frame(extra, REC_F_KEY, bomb, sizeof(bomb));
	CHECK(n < sizeof(extra));
	p = blob_insert(&b, b.ends[4], extra, n);
	CHECK(open_blob(p, b.len + n, &r, err) == 0);
	if (r) {
		read_all(r, 10, &exact);
		CHECK(exact);
		CHECK(recfile_nr_warnings(r) >= 1);
		recfile_close(r);
	}
	free(p);
	/* a length of 4 GiB - 1 in the end-of-run frame, then in the
	 * last snapshot frame */
	memcpy(b.p + b.ends[9], "\xff\xff\xff\xff", 4);
	CHECK(open_blob(b.p, b.len, &r, err) == 0);
	if (r) {
		CHECK_EQ_U64(read_all(r, 10, &exact), 10);
		CHECK(exact);
		CHECK(recfile_stats(r)->torn);
		CHECK(!recfile_end(r)->present);
		recfile_close(r);
	}
	memcpy(b.p + b.ends[8], "\xff\xff\xff\xff", 4);
	CHECK(open_blob(b.p, b.len, &r, err) == 0);
	if (r) {
		CHECK_EQ_U64(read_all(r, 10, &exact), 9);
		CHECK(exact);
		recfile_close(r);
	}
	free(b.p);
}

/* A recording of the fuzz corpus, NULL (a failed check) if it won't open */
static struct recfile *corpus_open(const char *name)
{
	static uint8_t buf[1 << 16];
	struct recfile *r = NULL;
	char path[128], err[256];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "tests/fuzz/corpus/recfile/%s", name);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	len = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	if (fd >= 0)
		close(fd);
	CHECK(len > 1);
	/* the fuzz target's first byte picks how it reads: the file follows */
	CHECK(len > 1 && recfile_open_mem(buf + 1, len - 1, &r, err,
					  sizeof(err)) == 0);
	return r;
}

/*
 * A file written before reads were measured (tests/fuzz/corpus/recfile/valid, by
 * the old format) still reads: its figures as they were, the read ones
 * zero in the snapshot but unknown to every consumer, never a real 0.
 */
TEST(recfile_old_format_without_reads)
{
	const struct run_info *in;
	struct rec_frame f;
	struct recfile *r = corpus_open("valid");
	uint64_t writes = 0, reads = 0, hist = 0, n = 0;

	if (!r)
		return;
	in = recfile_info(r);
	CHECK_EQ_U64(in->features, 0);
	/* before bhprof built for arm64: x86-64's 4 KiB pages */
	CHECK(!strcmp(in->machine, "x86_64"));
	CHECK_EQ_U64(in->page_size, 4096);
	CHECK(!figure_known(in, PATH_BH, FIG_READ_BIOS));
	CHECK(!strcmp(figure_why(in, PATH_IOMAP, FIG_READ), "unrecorded"));
	CHECK(!strcmp(figure_why(in, PATH_BH, FIG_DWF), "unrecorded"));
	CHECK(figure_known(in, PATH_BH, FIG_WRITE));
	CHECK(figure_known(in, PATH_BH, FIG_BIOS));
	while (recfile_next(r, &f) > 0) {
		const struct snapshot *s = f.cum;

		n++;
		writes = s->paths[0].write_calls + s->paths[1].write_calls;
		hist = s->hists[HIST_ID(PATH_IOMAP, HIST_BIO_SIZE)].b[300];
		reads = s->paths[0].read_bio_count + s->glob.read_bio_count +
			s->hists[HIST_ID(PATH_BH, HIST_READ_LAT)].b[40];
		for (uint32_t i = 0; i < s->nr_devs; i++)
			reads += s->devs[i].s.read_bios;
	}
	/* mkcorpus: 8 snapshots, write calls 10 * i, 2 per snapshot at
	 * bucket 300 of iomap's bio sizes */
	CHECK_EQ_U64(n, 8);
	CHECK_EQ_U64(writes, 280);
	CHECK_EQ_U64(hist, 16);
	CHECK_EQ_U64(reads, 0);
	recfile_close(r);
}

/* What a consumer prints for a figure it cannot know, and why. */
TEST(figure_why_says_absent_na_failed)
{
	static struct run_info in;

	memset(&in, 0, sizeof(in));
	in.features = RUN_F_READS;
	for (int i = 0; i < NR_PROBES; i++)
		in.probes[i].mode = MODE_FENTRY;
	CHECK(!figure_why(&in, PATH_BH, FIG_DWF));
	/* before the helper existed (upstream 6.6): absent, never 0 */
	in.probes[PROBE_DIO_FALLBACK].absent = true;
	CHECK(!strcmp(figure_why(&in, PATH_BH, FIG_DWF), "absent"));
	/* tracepoints see no read call, no page_mkwrite; pages they do */
	for (int i = 0; i < NR_PROBES; i++)
		in.probes[i].mode = MODE_TRACEPOINT;
	in.probes[PROBE_MKWRITE_BH].mode = MODE_NONE;
	in.probes[PROBE_MKWRITE_EXT4].mode = MODE_NONE;
	in.probes[PROBE_MKWRITE_IOMAP].mode = MODE_NONE;
	CHECK(!strcmp(figure_why(&in, PATH_IOMAP, FIG_READ), "n/a"));
	CHECK(!strcmp(figure_why(&in, PATH_IOMAP, FIG_MKWRITE), "n/a"));
	CHECK(figure_known(&in, PATH_IOMAP, FIG_READ_PAGES));
	CHECK(figure_known(&in, PATH_IOMAP, FIG_READ_BIOS));
	/* a lost read group costs the read bios per path, not per device */
	in.probes[PROBE_READ_BH_RA].failed = true;
	CHECK(!strcmp(figure_why(&in, PATH_BH, FIG_READ_BIOS), "failed"));
	CHECK(figure_known(&in, PATH_BH, FIG_READ_DEV));
	CHECK(figure_known(&in, PATH_BH, FIG_WRITE));
}

/* The other group: unrecorded before it, n/a where nothing saw its write
 * calls, its writeback where do_writepages() was seen */
TEST(other_why_by_mode)
{
	static struct run_info in;

	memset(&in, 0, sizeof(in));
	for (int i = 0; i < NR_PROBES; i++)
		in.probes[i].mode = MODE_FENTRY;
	in.features = RUN_F_WB_MAPPING;
	CHECK(!strcmp(other_why(&in, OTHER_WRITE), "unrecorded"));
	CHECK(!strcmp(other_why(&in, OTHER_BIOS), "unrecorded"));
	in.features |= RUN_F_OTHER;
	CHECK(!strcmp(other_why(&in, OTHER_WRITE), "n/a"));
	CHECK(!other_why(&in, OTHER_WB));
	CHECK(!other_why(&in, OTHER_BIOS));
	in.other_mode = MODE_TRACEPOINT;
	CHECK(!other_why(&in, OTHER_WRITE));
	for (int i = 0; i < NR_PROBES; i++)
		in.probes[i].mode = MODE_TRACEPOINT;
	CHECK(!strcmp(other_why(&in, OTHER_WB), "n/a"));
	in.probes[PROBE_WRITE_GENERIC].failed = true;
	CHECK(!strcmp(other_why(&in, OTHER_WRITE), "failed"));
}

/* Tracepoint mode's read calls are iomap's alone, and never timed;
 * passes are known wherever they were recorded and the kernel has them */
/* Writeback calls are do_writepages() over a mapping since feature bit
 * 4; a file from before counted engine calls: those read unrecorded */
TEST(figure_why_writeback_calls)
{
	static struct run_info in;

	memset(&in, 0, sizeof(in));
	in.features = RUN_F_READS | RUN_F_PASSES;
	for (int i = 0; i < NR_PROBES; i++)
		in.probes[i].mode = MODE_FENTRY;
	CHECK(!strcmp(figure_why(&in, PATH_BH, FIG_WB_CALLS), "unrecorded"));
	CHECK(!strcmp(figure_why(&in, PATH_IOMAP, FIG_WB_ENGINES),
		      "unrecorded"));
	CHECK(figure_known(&in, PATH_BH, FIG_WB_PAGES));
	in.features |= RUN_F_WB_MAPPING;
	CHECK(figure_known(&in, PATH_BH, FIG_WB_CALLS));
	CHECK(figure_known(&in, PATH_IOMAP, FIG_WB_ENGINES));
	/* tracepoints see pages, neither calls nor engines */
	for (int i = 0; i < NR_PROBES; i++)
		in.probes[i].mode = MODE_TRACEPOINT;
	CHECK(!strcmp(figure_why(&in, PATH_BH, FIG_WB_CALLS), "n/a"));
	CHECK(!strcmp(figure_why(&in, PATH_BH, FIG_WB_ENGINES), "n/a"));
	CHECK(figure_known(&in, PATH_IOMAP, FIG_WB_PAGES));
	/* no bh path on a kernel without buffer heads: a real 0 */
	in.probes[PROBE_WB_BH].absent = true;
	CHECK(figure_known(&in, PATH_BH, FIG_WB_CALLS));
	CHECK(!strcmp(figure_why(&in, PATH_IOMAP, FIG_WB_CALLS), "n/a"));
	in.probes[PROBE_WB_EXT4].failed = true;
	CHECK(!strcmp(figure_why(&in, PATH_BH, FIG_WB_PAGES), "failed"));
}

/* 5.10's ext4 as a module: its functions there, its events out of a
 * tp_btf program's reach, so tracepoint mode cannot count its pages */
TEST(figure_why_ext4_pages_out_of_reach)
{
	static struct run_info in;

	memset(&in, 0, sizeof(in));
	in.features = RUN_F_WB_MAPPING;
	for (int i = 0; i < NR_PROBES; i++)
		in.probes[i].mode = MODE_TRACEPOINT;
	CHECK(figure_known(&in, PATH_BH, FIG_WB_PAGES));
	in.probes[PROBE_PASS_EXT4].absent = true;
	CHECK(!strcmp(figure_why(&in, PATH_BH, FIG_WB_PAGES), "n/a"));
	CHECK(figure_known(&in, PATH_IOMAP, FIG_WB_PAGES));
	/* no ext4 at all: nothing left out */
	in.probes[PROBE_WB_EXT4].absent = true;
	CHECK(figure_known(&in, PATH_BH, FIG_WB_PAGES));
	/* functions see ext4's pages in do_writepages() */
	in.probes[PROBE_WB_EXT4].absent = false;
	in.probes[PROBE_WB_CTX].mode = MODE_KPROBE;
	CHECK(figure_known(&in, PATH_BH, FIG_WB_PAGES));
}

TEST(figure_why_tracepoint_reads_and_passes)
{
	static struct run_info in;

	memset(&in, 0, sizeof(in));
	in.features = RUN_F_READS;
	for (int i = 0; i < NR_PROBES; i++)
		in.probes[i].mode = MODE_TRACEPOINT;
	/* a file from before the pass group: unrecorded, not 0 */
	CHECK(!strcmp(figure_why(&in, PATH_BH, FIG_PASSES), "unrecorded"));
	CHECK(!strcmp(figure_why(&in, PATH_IOMAP, FIG_READ), "n/a"));
	in.features |= RUN_F_PASSES | RUN_F_TP_READ_CALLS;
	CHECK(figure_known(&in, PATH_BH, FIG_PASSES));
	CHECK(figure_known(&in, PATH_IOMAP, FIG_READ));
	CHECK(!strcmp(figure_why(&in, PATH_BH, FIG_READ), "n/a"));
	CHECK(!strcmp(figure_why(&in, PATH_IOMAP, FIG_READ_LAT), "n/a"));
	/* fentry: calls and latency on both paths */
	for (int i = 0; i < NR_PROBES; i++)
		in.probes[i].mode = MODE_FENTRY;
	CHECK(figure_known(&in, PATH_BH, FIG_READ));
	CHECK(figure_known(&in, PATH_BH, FIG_READ_LAT));
	/* the pass group lost, or a kernel without its events */
	in.probes[PROBE_PASS_EXT4].failed = true;
	CHECK(!strcmp(figure_why(&in, PATH_IOMAP, FIG_PASSES), "failed"));
	CHECK(figure_known(&in, PATH_IOMAP, FIG_WRITE));
	in.probes[PROBE_PASS_EXT4].failed = false;
	in.probes[PROBE_PASS_INODE].absent = true;
	CHECK(!strcmp(figure_why(&in, PATH_BH, FIG_PASSES), "absent"));
}

/*
 * A --callers recording (tests/fuzz/corpus/recfile/callers, written by
 * mkcorpus): its rows, chains, peak and mounts come back as written, the
 * chains by their text.
 */
TEST(recfile_callers_rows_read_back)
{
	struct recfile *r = corpus_open("callers");
	const struct snapshot *last = NULL;
	struct callers_owner o;
	struct rec_frame f;

	if (!r)
		return;
	CHECK(recfile_info(r)->features & RUN_F_CALLERS);
	CHECK_EQ_U64(recfile_info(r)->bh_size, 104);
	while (recfile_next(r, &f) > 0)
		last = f.cum;
	CHECK(last != NULL);
	if (!last) {
		recfile_close(r);
		return;
	}
	/* snapshot i adds 5 i and i: 140 and 28 after eight */
	CHECK_EQ_U64(last->nr_callers, 2);
	CHECK_EQ_U64(last->bh_net_peak, 42);
	for (uint32_t i = 0; i < last->nr_callers; i++) {
		const struct caller_row *row = &last->callers[i];

		if (row->k.stack == BHP_STACK_LOST) {
			CHECK_EQ_U64(row->n, 28);
			continue;
		}
		CHECK_EQ_U64(row->n, 140);
		CHECK(!strcmp(callers_chain(row->k.stack),
			      "kthread;jbd2_journal_commit_transaction;"
			      "alloc_buffer_head"));
		callers_owner_of(&row->k, &o);
		CHECK(!strcmp(o.fs, "ext4"));
		CHECK(o.role == ROLE_JOURNAL);
	}
	recfile_close(r);
}
