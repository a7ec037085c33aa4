// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Writes the fuzzer's seed corpus: small valid recordings, the same cut
 * short, bit-flipped, with a wrong magic or a future version, and the
 * frame payloads of a valid recording in the harness's structured form
 * (see fuzz_recfile.c). Usage: mkcorpus DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "model/callers.h"
#include "recfile/recfile.h"

static struct snapshot snaps[8];

static void gen(void)
{
	for (unsigned int i = 0; i < 8; i++) {
		struct snapshot *s = &snaps[i];

		if (i)
			*s = snaps[i - 1];
		s->ts_ns = 1000000000ull * (i + 1);
		s->paths[i % 2].write_calls += 10 * i;
		s->paths[0].bh_alloc += 3 * i;
		s->glob.bio_count += i;
		s->hists[i % NR_HISTS].b[40 + i] += i + 1;
		s->hists[HIST_ID(1, HIST_BIO_SIZE)].b[300] += 2;
		s->nr_devs = 2;
		s->devs[0].dev = KDEV_MKDEV(7u, 0u);
		s->devs[0].s.bios += i;
		s->devs[1].dev = KDEV_MKDEV(8u, 16u);
		s->devs[1].path = PATH_IOMAP;
		s->devs[1].s.size_log2[12] += i;
		/* --callers rows: written only in a run that has them */
		s->nr_callers = 2;
		s->callers[0].k = (struct bhp_caller_key){
			callers_chain_intern("kthread;jbd2_journal_commit_transaction;alloc_buffer_head"),
			KDEV_MKDEV(259u, 1u), OWNER_BDEV, WHERE_NONE };
		s->callers[0].n += 5 * i;
		s->callers[1].k = (struct bhp_caller_key){
			BHP_STACK_LOST, KDEV_MKDEV(7u, 0u), OWNER_BDEV,
			WHERE_WRITE };
		s->callers[1].n += i;
		s->bh_net_peak = 6 * i;
	}
	callers_mount_add(KDEV_MKDEV(259u, 1u), "ext4");
}

static bool with_callers;

/* a recording of n snapshots in memory */
/* the machine and page size of the recordings; none: as before them */
static const char *machine;
static uint32_t page_size;

static uint8_t *record(unsigned int n, unsigned int key_every, bool end,
		       size_t *len)
{
	struct rec_end e = { .present = true, .reason = REC_STOP_SIGNAL,
			     .signal = 2 };
	struct run_info in = { .buffer_head = 1, .interval_ms = 1000 };
	int fd = memfd_create("seed", 0);
	struct recwriter *w;
	struct stat st;
	uint8_t *p;

	if (with_callers) {
		in.features = RUN_F_READS | RUN_F_CALLERS;
		in.bh_size = 104;
		in.callers_mode = MODE_FENTRY;
	}
	strcpy(in.version, "seed");
	strcpy(in.release, "6.1.0");
	strcpy(in.hostname, "fuzz");
	if (machine)
		snprintf(in.machine, sizeof(in.machine), "%s", machine);
	in.page_size = page_size;
	in.nr_filter_devs = 1;
	in.filter_devs[0] = KDEV_MKDEV(7u, 0u);
	recwriter_open_fd(fd, &w);
	recwriter_set_keyframe_every(w, key_every);
	recwriter_dev_name(w, KDEV_MKDEV(7u, 0u), "loop0");
	recwriter_command(w, (char *[]){ "dd", "of=/dev/loop0", NULL });
	recwriter_begin(w, &in);
	for (unsigned int i = 0; i < n; i++)
		recwriter_append(w, &snaps[i]);
	if (end)
		recwriter_end(w, &e);
	fd = dup(fd);
	recwriter_close(w);
	fstat(fd, &st);
	p = malloc(st.st_size);
	*len = pread(fd, p, st.st_size, 0);
	close(fd);
	return p;
}

static const char *dir;

/* mode 0: the bytes are the file */
static void seed(const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	fputc(0, f);
	fwrite(p, 1, n, f);
	fclose(f);
}

/* mode 1: each frame's type and inflated payload */
static void structured(const char *name, const uint8_t *p, size_t n)
{
	static uint8_t out[1 << 16];
	char path[4096];
	size_t off = REC_HEADER_LEN;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	fputc(1, f);
	while (off + REC_FRAME_HDR <= n) {
		uint32_t len = p[off] | p[off + 1] << 8 | p[off + 2] << 16 |
			       (uint32_t)p[off + 3] << 24;
		uLongf o = sizeof(out);

		if (uncompress(out, &o, p + off + 9, len) != Z_OK)
			break;
		fputc(p[off + 8], f);
		fputc(o & 0xff, f);
		fputc(o >> 8, f);
		fwrite(out, 1, o, f);
		off += REC_FRAME_HDR + len;
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	size_t n, m;
	uint8_t *p, *q;

	if (argc != 2)
		return 2;
	dir = argv[1];
	gen();
	p = record(8, 3, true, &n);
	seed("valid", p, n);
	structured("valid-frames", p, n);
	machine = "aarch64";
	page_size = 16384;
	q = record(8, 3, true, &m);
	seed("valid-arm64-16k", q, m);
	free(q);
	machine = NULL;
	page_size = 0;
	/* loop0 gone for snapshots 3 to 5, across a keyframe */
	for (unsigned int i = 3; i < 6; i++)
		snaps[i].dev_gone = 1;
	q = record(8, 3, true, &m);
	seed("valid-dev-gone", q, m);
	free(q);
	for (unsigned int i = 3; i < 6; i++)
		snaps[i].dev_gone = 0;
	/* a module's probes come at snapshot 2 and go at 6 */
	for (unsigned int i = 2; i < 8; i++) {
		snaps[i].probes_late = i < 6 ? 1ULL << PROBE_WB_EXT4 : 0;
		snaps[i].probes_gone = i < 6 ? 0 : 1ULL << PROBE_WB_EXT4;
	}
	q = record(8, 3, true, &m);
	seed("valid-probes-late", q, m);
	free(q);
	for (unsigned int i = 2; i < 8; i++)
		snaps[i].probes_late = snaps[i].probes_gone = 0;
	seed("torn", p, n - 7);
	seed("header-only", p, REC_HEADER_LEN);
	q = malloc(n);
	memcpy(q, p, n);
	q[n / 2] ^= 0x10;
	seed("bitflip", q, n);
	memcpy(q, p, n);
	q[8] = 2;
	seed("future-major", q, n);
	memcpy(q, p, n);
	q[0] = 'X';
	seed("bad-magic", q, n);
	seed("empty", "", 0);
	free(p);
	p = record(8, 1, false, &m);
	seed("all-keyframes-no-end", p, m);
	structured("keyframe-frames", p, m);
	free(p);
	p = record(2, 60, true, &m);
	seed("short", p, m);
	free(p);
	with_callers = true;
	p = record(8, 3, true, &m);
	seed("callers", p, m);
	structured("callers-frames", p, m);
	free(p);
	free(q);
	return 0;
}
