// SPDX-License-Identifier: GPL-2.0
/*
 * vmwriter: the load of the VM scenarios. Writes TOTAL bytes to a
 * block device or file in calls whose sizes cycle through a list, then
 * fsyncs, and prints one JSON line saying what it did ("op": "write";
 * cpu_s: its own user + system time over the calls and the sync, which
 * carries the cost of probes in its path):
 *
 *   vmwriter [-d] [-n] [-c] [-r|-m] [-M] [-s SIZE,...] [-o OFFSET] -t TOTAL PATH
 *
 *   -r  read instead ("op": "read"): TOTAL bytes in calls of those sizes
 *   -m  write through a shared mapping instead ("op": "mmap"): copies of
 *       those sizes into it, then msync (a file is sized first)
 *   -M  while writing, a second process keeps storing into the same range
 *       through a shared mapping: O_DIRECT writes then find dirty page
 *       cache they cannot invalidate and fall back to buffered writes.
 *       The kernel then reports the stale page cache as EIO at fsync
 *       (dio_warn_stale_pagecache()): that fsync consumes the error, so
 *       that the next opener of the device does not get it, and is
 *       reported as "fsync_eio", not a failure
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
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
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

/* -M: store into [off, off + len) of path until the parent is done */
static pid_t racer_start(const char *path, unsigned long long off,
			 unsigned long long len)
{
	volatile char *m;
	pid_t pid;
	int fd;

	pid = fork();
	if (pid)
		return pid;
	fd = open(path, O_RDWR);
	if (fd < 0)
		_exit(1);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (m == MAP_FAILED)
		_exit(1);
	for (unsigned long i = 0;; i++)
		m[(i * 4096) % len] = (char)i;
}

static void racer_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* -m: the writes as copies into a shared mapping, then msync */
static int map_write(int fd, char *buf, const unsigned long long *sizes,
		     int nsizes, unsigned long long off,
		     unsigned long long total, int nosync,
		     unsigned long long *calls)
{
	unsigned long long done = 0;
	char *m;
	int i;

	m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (m == MAP_FAILED) {
		perror("vmwriter: mmap");
		return -1;
	}
	for (i = 0; done < total; i = (i + 1) % nsizes) {
		unsigned long long n = sizes[i];

		if (n > total - done)
			n = total - done;
		memcpy(m + done, buf, n);
		done += n;
		(*calls)++;
	}
	if (!nosync && msync(m, total, MS_SYNC)) {
		perror("vmwriter: msync");
		return -1;
	}
	return munmap(m, total);
}

/* user + system time so far: the loop and the sync are measured, not
 * the start of the process */
/*
 * The disk under a file whose inode names an anonymous device (btrfs's
 * subvolumes: 0:N, not even its mount's): the source of the mount that
 * holds path, the longest mount point before it, from mountinfo; dev
 * unchanged when it is no block device. The checks match devices by the
 * disk's number.
 */
static void disk_of(const char *path, dev_t *dev)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[1024], mnt[256], src[256];
	size_t best = 0, n;
	const char *sep;
	struct stat st;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1 ||
		    sscanf(sep + 3, "%*s %255s", src) != 1)
			continue;
		n = strlen(mnt);
		if (n <= best || strncmp(path, mnt, n) ||
		    (path[n] != '/' && n > 1) || stat(src, &st) ||
		    !S_ISBLK(st.st_mode))
			continue;
		best = n;
		*dev = st.st_rdev;
	}
	fclose(f);
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	unsigned long long sizes[MAX_SIZES] = { 1 << 20 }, total = 0, off = 0;
	unsigned long long done = 0, calls = 0, maxsz = 0;
	int nsizes = 1, direct = 0, nosync = 0, creat = 0, opt, fd, i;
	int rd = 0, map = 0, race = 0, map_nosync = 0, flags, synced;
	int stale_eio = 0;
	const char *op = "write";
	pid_t racer = 0;
	unsigned int maj, min;
	int bsize;
	const char *path;
	struct stat st;
	double t0, t1, t2, cpu;
	char *buf, *p;

	while ((opt = getopt(argc, argv, "dncrmMs:o:t:")) != -1) {
		switch (opt) {
		case 'd': direct = 1; break;
		case 'r': rd = 1; nosync = 1; op = "read"; break;
		case 'm': map = 1; op = "mmap"; break;
		case 'M': race = 1; break;
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
			fprintf(stderr, "usage: vmwriter [-d] [-n] [-c] [-r|-m] "
				"[-M] [-s SIZES] [-o OFF] -t TOTAL PATH\n");
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

	flags = rd ? O_RDONLY : map ? O_RDWR : O_WRONLY;
	fd = open(path, flags | (direct ? O_DIRECT : 0) |
		  (creat ? O_CREAT | O_TRUNC : 0), 0644);
	if (fd < 0) {
		fprintf(stderr, "vmwriter: open %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (fstat(fd, &st)) {
		perror("vmwriter: fstat");
		return 1;
	}
	/* the block size buffer_heads are cut to: the device's soft
	 * block size (which follows the page size), or the filesystem's */
	bsize = st.st_blksize;
	if (S_ISBLK(st.st_mode)) {
		maj = major(st.st_rdev);
		min = minor(st.st_rdev);
		if (ioctl(fd, BLKBSZGET, &bsize)) {
			perror("vmwriter: BLKBSZGET");
			return 1;
		}
	} else {
		if (!major(st.st_dev))
			disk_of(path, &st.st_dev);
		maj = major(st.st_dev);
		min = minor(st.st_dev);
	}
	if (map && S_ISREG(st.st_mode) && ftruncate(fd, off + total)) {
		perror("vmwriter: ftruncate");
		return 1;
	}
	if (race)
		racer = racer_start(path, off, maxsz);
	cpu = cpu_s();
	t0 = now();
	if (map) {
		if (map_write(fd, buf, sizes, nsizes, off, total, nosync,
			      &calls))
			return 1;
		done = total;
		map_nosync = nosync;
		nosync = 1;	/* msync was the sync */
	}
	for (i = 0; done < total; i = (i + 1) % nsizes) {
		unsigned long long n = sizes[i], pos;
		ssize_t r;

		if (n > total - done)
			n = total - done;
		if (direct && n % 4096)
			break;
		/* -M: every write to the range the racer keeps dirty */
		pos = race ? off : off + done;
		r = rd ? pread(fd, buf, n, pos) : pwrite(fd, buf, n, pos);
		if (r < 0) {
			fprintf(stderr, "vmwriter: %s %s at %llu: %s\n", op,
				path, off + done, strerror(errno));
			racer_stop(racer);
			return 1;
		}
		calls++;
		done += r;
		if ((unsigned long long)r != n)
			break;
	}
	t1 = now();
	racer_stop(racer);
	if (!nosync && fsync(fd)) {
		if (!race || errno != EIO) {
			fprintf(stderr, "vmwriter: fsync %s: %s\n", path,
				strerror(errno));
			return 1;
		}
		stale_eio = 1;
	}
	t2 = now();
	synced = map ? !map_nosync : !nosync;
	if (close(fd)) {
		fprintf(stderr, "vmwriter: close %s: %s\n", path, strerror(errno));
		return 1;
	}
	cpu = cpu_s() - cpu;
	printf("{\"op\":\"%s\",\"racer\":%s,\"fsync_eio\":%s,", op,
	       race ? "true" : "false", stale_eio ? "true" : "false");
	printf("\"bsize\":%d,\"page_size\":%ld,", bsize, sysconf(_SC_PAGESIZE));
	printf("\"path\":\"%s\",\"dev\":\"%u:%u\",\"blockdev\":%s,"
	       "\"direct\":%s,\"fsync\":%s,\"calls\":%llu,\"bytes\":%llu,"
	       "\"offset\":%llu,\"write_s\":%.6f,\"fsync_s\":%.6f,"
	       "\"cpu_s\":%.6f}\n",
	       path, maj, min, S_ISBLK(st.st_mode) ? "true" : "false",
	       direct ? "true" : "false", synced ? "true" : "false", calls,
	       done, off, t1 - t0, t2 - t1, cpu);
	return done == total ? 0 : 1;
}
