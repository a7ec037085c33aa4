// SPDX-License-Identifier: GPL-2.0
/*
 * memfuse: the FUSE server of the VM scenarios fuse-file and
 * fuse-wbc-file. A flat directory of regular files held in this
 * process's memory, so that what the server stores is no write to any
 * other filesystem: the only file writes of the scenario are vmwriter's,
 * on the FUSE mount.
 *
 *   memfuse [-w] MOUNTPOINT
 *
 *   -w  ask the kernel for its writeback cache (FUSE_CAP_WRITEBACK_CACHE):
 *       writes dirty the page cache and reach the server at writeback.
 *       Without it the cache is cleared, whatever libfuse's defaults:
 *       each write call goes to the server as it is made.
 *
 * Runs in the foreground, single-threaded, until it is unmounted or
 * signalled. As root, libfuse mounts with mount(2) itself (the guests
 * have no fusermount3). Built static for the guests, which have no C
 * library.
 */
#define FUSE_USE_VERSION 31
#include <fuse.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES 64

struct mfile {
	char name[NAME_MAX + 1];	/* "" for a free slot */
	char *data;
	size_t size, cap;
	mode_t mode;
	struct timespec mtime;
};

static struct mfile files[MAX_FILES];
static int want_wbc;

/* the file "/NAME" names, or NULL: the root holds no directories */
static struct mfile *lookup(const char *path)
{
	int i;

	if (*path++ != '/' || strchr(path, '/'))
		return NULL;
	for (i = 0; i < MAX_FILES; i++)
		if (files[i].name[0] && !strcmp(files[i].name, path))
			return &files[i];
	return NULL;
}

/* the file an operation names: its open handle's, else its path's */
static struct mfile *file_of(const char *path, struct fuse_file_info *fi)
{
	return fi ? &files[fi->fh] : lookup(path);
}

static int resize(struct mfile *f, size_t size)
{
	size_t cap = f->cap ? f->cap : 65536;
	char *p;

	while (cap < size)
		cap *= 2;
	if (cap != f->cap) {
		p = realloc(f->data, cap);
		if (!p)
			return -ENOSPC;
		f->data = p;
		f->cap = cap;
	}
	if (size > f->size)
		memset(f->data + f->size, 0, size - f->size);
	f->size = size;
	clock_gettime(CLOCK_REALTIME, &f->mtime);
	return 0;
}

static void *mf_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	if (want_wbc)
		conn->want |= FUSE_CAP_WRITEBACK_CACHE;
	else
		conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	fprintf(stderr, "memfuse: writeback cache %s (kernel %s it)\n",
		conn->want & FUSE_CAP_WRITEBACK_CACHE ? "on" : "off",
		conn->capable & FUSE_CAP_WRITEBACK_CACHE ? "offers" : "lacks");
	/* an open file unlinked goes at once: no rename to .fuse_hidden */
	cfg->hard_remove = 1;
	return NULL;
}

static int mf_getattr(const char *path, struct stat *st,
		      struct fuse_file_info *fi)
{
	struct mfile *f;

	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	f = file_of(path, fi);
	if (!f)
		return -ENOENT;
	st->st_mode = S_IFREG | f->mode;
	st->st_nlink = 1;
	st->st_size = f->size;
	st->st_blksize = 4096;
	st->st_blocks = (f->size + 511) / 512;
	st->st_mtim = st->st_ctim = st->st_atim = f->mtime;
	return 0;
}

static int mf_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	int i;

	if (strcmp(path, "/"))
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	for (i = 0; i < MAX_FILES; i++)
		if (files[i].name[0])
			fill(buf, files[i].name, NULL, 0, 0);
	return 0;
}

static int mf_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct mfile *f = lookup(path);
	int i;

	if (!f) {
		if (*path != '/' || strchr(path + 1, '/'))
			return -ENOENT;
		if (strlen(path + 1) > NAME_MAX)
			return -ENAMETOOLONG;
		for (i = 0; i < MAX_FILES && files[i].name[0]; i++)
			;
		if (i == MAX_FILES)
			return -ENOSPC;
		f = &files[i];
		strcpy(f->name, path + 1);
		f->mode = mode & 07777;
		clock_gettime(CLOCK_REALTIME, &f->mtime);
	}
	fi->fh = f - files;
	return 0;
}

static int mf_open(const char *path, struct fuse_file_info *fi)
{
	struct mfile *f = lookup(path);

	if (!f)
		return -ENOENT;
	fi->fh = f - files;
	return (fi->flags & O_TRUNC) ? resize(f, 0) : 0;
}

static int mf_read(const char *path, char *buf, size_t n, off_t off,
		   struct fuse_file_info *fi)
{
	struct mfile *f = &files[fi->fh];

	if ((size_t)off >= f->size)
		return 0;
	if (n > f->size - off)
		n = f->size - off;
	memcpy(buf, f->data + off, n);
	return n;
}

static int mf_write(const char *path, const char *buf, size_t n, off_t off,
		    struct fuse_file_info *fi)
{
	struct mfile *f = &files[fi->fh];
	int err;

	if (off + n > f->size) {
		err = resize(f, off + n);
		if (err)
			return err;
	}
	memcpy(f->data + off, buf, n);
	return n;
}

static int mf_truncate(const char *path, off_t size,
		       struct fuse_file_info *fi)
{
	struct mfile *f = file_of(path, fi);

	return f ? resize(f, size) : -ENOENT;
}

/* the writeback cache sends mtime (and ctime) back with each flush */
static int mf_utimens(const char *path, const struct timespec tv[2],
		      struct fuse_file_info *fi)
{
	struct mfile *f = file_of(path, fi);

	if (!f)
		return -ENOENT;
	if (tv[1].tv_nsec == UTIME_NOW)
		clock_gettime(CLOCK_REALTIME, &f->mtime);
	else if (tv[1].tv_nsec != UTIME_OMIT)
		f->mtime = tv[1];
	return 0;
}

static int mf_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct mfile *f = file_of(path, fi);

	if (!f)
		return -ENOENT;
	f->mode = mode & 07777;
	return 0;
}

static int mf_unlink(const char *path)
{
	struct mfile *f = lookup(path);

	if (!f)
		return -ENOENT;
	free(f->data);
	memset(f, 0, sizeof(*f));
	return 0;
}

/* memory holds the data: nothing to make durable */
static int mf_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	return 0;
}

static int mf_statfs(const char *path, struct statvfs *sv)
{
	long pages = sysconf(_SC_AVPHYS_PAGES);
	int i, used = 0;

	for (i = 0; i < MAX_FILES; i++)
		used += files[i].name[0] != 0;
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = sv->f_frsize = 4096;
	sv->f_blocks = sv->f_bfree = sv->f_bavail = pages > 0 ? pages : 0;
	sv->f_files = MAX_FILES;
	sv->f_ffree = sv->f_favail = MAX_FILES - used;
	sv->f_namemax = NAME_MAX;
	return 0;
}

static const struct fuse_operations mf_ops = {
	.init = mf_init,
	.getattr = mf_getattr,
	.readdir = mf_readdir,
	.create = mf_create,
	.open = mf_open,
	.read = mf_read,
	.write = mf_write,
	.truncate = mf_truncate,
	.utimens = mf_utimens,
	.chmod = mf_chmod,
	.unlink = mf_unlink,
	.fsync = mf_fsync,
	.statfs = mf_statfs,
};

int main(int argc, char **argv)
{
	/* no subtype: /proc/mounts then names the type as the super block
	 * does ("fuse"), the name bhprof's rows take */
	char *fargv[] = { argv[0], "-o", "fsname=memfuse", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, fargv);
	const char *mnt;
	struct fuse *fuse;
	int opt, rc;

	while ((opt = getopt(argc, argv, "w")) != -1) {
		if (opt != 'w') {
			fprintf(stderr, "usage: memfuse [-w] MOUNTPOINT\n");
			return 2;
		}
		want_wbc = 1;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: memfuse [-w] MOUNTPOINT\n");
		return 2;
	}
	mnt = argv[optind];
	fuse = fuse_new(&args, &mf_ops, sizeof(mf_ops), NULL);
	if (!fuse) {
		fprintf(stderr, "memfuse: fuse_new failed\n");
		return 1;
	}
	if (fuse_mount(fuse, mnt)) {
		fprintf(stderr, "memfuse: cannot mount on %s (/dev/fuse, CONFIG_FUSE_FS?)\n",
			mnt);
		fuse_destroy(fuse);
		return 1;
	}
	if (fuse_set_signal_handlers(fuse_get_session(fuse))) {
		fprintf(stderr, "memfuse: cannot set signal handlers\n");
		fuse_unmount(fuse);
		fuse_destroy(fuse);
		return 1;
	}
	fprintf(stderr, "memfuse: serving %s\n", mnt);
	rc = fuse_loop(fuse);
	fuse_remove_signal_handlers(fuse_get_session(fuse));
	fuse_unmount(fuse);
	fuse_destroy(fuse);
	return rc ? 1 : 0;
}
