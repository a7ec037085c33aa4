// SPDX-License-Identifier: GPL-2.0
/*
 * vmwriter: the write load of the VM scenarios. Writes TOTAL bytes to a
 * block device or file in calls whose sizes cycle through a list, then
 * fsyncs, and prints one JSON line saying what it did:
 *
 *   vmwriter [-d] [-n] [-c] [-s SIZE,SIZE,...] [-o OFFSET] -t TOTAL PATH
 *
 *   -d  O_DIRECT (sizes and offset must be multiples of 4096)
 *   -n  no fsync at the end
 *   -c  create/truncate PATH (a regular file)
 *   -s  write sizes, cycled (suffixes k, m); default 1m
 *   -o  start offset; default 0
 *   -t  total bytes
 *
 * Built static for the guests, which have no C library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZES 32

static unsigned long long parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end && *end != ',') {
		fprintf(stderr, "vmwriter: bad size '%s'\n", s);
		exit(2);
	}
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long long sizes[MAX_SIZES] = { 1 << 20 }, total = 0, off = 0;
	unsigned long long done = 0, calls = 0, maxsz = 0;
	int nsizes = 1, direct = 0, nosync = 0, creat = 0, opt, fd, i;
	unsigned int maj, min;
	const char *path;
	struct stat st;
	double t0, t1, t2;
	char *buf, *p;

	while ((opt = getopt(argc, argv, "dncs:o:t:")) != -1) {
		switch (opt) {
		case 'd': direct = 1; break;
		case 'n': nosync = 1; break;
		case 'c': creat = 1; break;
		case 'o': off = parse_size(optarg); break;
		case 't': total = parse_size(optarg); break;
		case 's':
			nsizes = 0;
			for (p = optarg; p && *p && nsizes < MAX_SIZES;) {
				sizes[nsizes++] = parse_size(p);
				p = strchr(p, ',');
				if (p)
					p++;
			}
			break;
		default:
			fprintf(stderr, "usage: vmwriter [-d] [-n] [-c] "
				"[-s SIZES] [-o OFF] -t TOTAL PATH\n");
			return 2;
		}
	}
	if (optind != argc - 1 || !total) {
		fprintf(stderr, "vmwriter: need -t TOTAL and one PATH\n");
		return 2;
	}
	path = argv[optind];
	for (i = 0; i < nsizes; i++) {
		if (!sizes[i]) {
			fprintf(stderr, "vmwriter: zero write size\n");
			return 2;
		}
		if (sizes[i] > maxsz)
			maxsz = sizes[i];
		if (direct && (sizes[i] % 4096 || off % 4096)) {
			fprintf(stderr, "vmwriter: O_DIRECT needs 4 KiB multiples\n");
			return 2;
		}
	}
	if (posix_memalign((void **)&buf, 4096, maxsz)) {
		fprintf(stderr, "vmwriter: out of memory\n");
		return 1;
	}
	for (i = 0; i < (int)maxsz; i++)
		buf[i] = (char)(i * 31 + 7);

	fd = open(path, O_WRONLY | (direct ? O_DIRECT : 0) |
		  (creat ? O_CREAT | O_TRUNC : 0), 0644);
	if (fd < 0) {
		fprintf(stderr, "vmwriter: open %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (fstat(fd, &st)) {
		perror("vmwriter: fstat");
		return 1;
	}
	if (S_ISBLK(st.st_mode)) {
		maj = major(st.st_rdev);
		min = minor(st.st_rdev);
	} else {
		maj = major(st.st_dev);
		min = minor(st.st_dev);
	}
	t0 = now();
	for (i = 0; done < total; i = (i + 1) % nsizes) {
		unsigned long long n = sizes[i];
		ssize_t r;

		if (n > total - done)
			n = total - done;
		if (direct && n % 4096)
			break;
		r = pwrite(fd, buf, n, off + done);
		if (r < 0) {
			fprintf(stderr, "vmwriter: write %s at %llu: %s\n", path,
				off + done, strerror(errno));
			return 1;
		}
		calls++;
		done += r;
		if ((unsigned long long)r != n)
			break;
	}
	t1 = now();
	if (!nosync && fsync(fd)) {
		fprintf(stderr, "vmwriter: fsync %s: %s\n", path, strerror(errno));
		return 1;
	}
	t2 = now();
	if (close(fd)) {
		fprintf(stderr, "vmwriter: close %s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("{\"path\":\"%s\",\"dev\":\"%u:%u\",\"blockdev\":%s,"
	       "\"direct\":%s,\"fsync\":%s,\"calls\":%llu,\"bytes\":%llu,"
	       "\"offset\":%llu,\"write_s\":%.6f,\"fsync_s\":%.6f}\n",
	       path, maj, min, S_ISBLK(st.st_mode) ? "true" : "false",
	       direct ? "true" : "false", nosync ? "false" : "true", calls,
	       done, off, t1 - t0, t2 - t1);
	return done == total ? 0 : 1;
}
