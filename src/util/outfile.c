// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Output files; outfile.h says what is promised. Everything is done
 * relative to one fd of the target's directory, so the directory checked
 * is the directory written, and the one fsynced.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "outfile.h"
#include "priv.h"

#define OUT_MODE 0644

struct outfile {
	const char *path;	/* as given, for messages */
	char *base;		/* last component */
	char tmp[NAME_MAX + 1];
	int dirfd;
	unsigned int flags;
	FILE *f;
};

static int say(const char *path, int err)
{
	const char *why;

	switch (err) {
	case -ELOOP:
		why = "is a symbolic link: not followed, not written";
		break;
	case -EEXIST:
		why = "exists: not overwritten (--force replaces it)";
		break;
	case -EISDIR:
		why = "is a directory";
		break;
	case -EINVAL:
		why = "exists and is not a regular file: not replaced";
		break;
	default:
		why = strerror(-err);
	}
	fprintf(stderr, "bhprof: %s: %s\n", path, why);
	return err;
}

/* Opens the directory of path; *base is its last component. */
static int split(const char *path, int *dirfd, char **base)
{
	char *copy = strdup(path), *slash, *name;
	const char *dir = ".";
	int err = 0;

	if (!copy)
		return -ENOMEM;
	if (!*copy) {
		err = -ENOENT;
		goto out;
	}
	slash = strrchr(copy, '/');
	name = slash ? slash + 1 : copy;
	if (slash == copy)
		dir = "/";
	else if (slash)
		dir = (*slash = 0, copy);
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
		err = -EISDIR;
		goto out;
	}
	*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0) {
		err = -errno;
		goto out;
	}
	*base = strdup(name);
	if (!*base) {
		close(*dirfd);
		err = -ENOMEM;
	}
out:
	free(copy);
	return err;
}

/* What may stand at the name now: nothing, or with force a regular file. */
static int check_target(int dirfd, const char *base, unsigned int flags)
{
	struct stat st;

	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	return flags & OUTFILE_FORCE ? 0 : -EEXIST;
}

/* Under sudo the user gets their file; as plain root nothing changes.
 * A filesystem without owners (vfat, some FUSE) refuses: it decides
 * who owns what by itself, so that is no reason not to write. */
static int give_away(int fd)
{
	uid_t uid;
	gid_t gid;

	if (!priv_sudo_user(&uid, &gid) || !fchown(fd, uid, gid))
		return 0;
	return errno == EPERM || errno == EINVAL || errno == EOPNOTSUPP ?
	       0 : -errno;
}

static int create_tmp(int dirfd, const char *base, char *tmp, size_t len)
{
	uint64_t r;
	int fd;

	for (int i = 0; i < 16; i++) {
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint64_t)time(NULL) * 2654435761u ^ getpid() ^ i;
		snprintf(tmp, len, ".%.200s.%016llx.tmp", base,
			 (unsigned long long)r);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, OUT_MODE);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

/*
 * tmp becomes base. rename never follows a link at base, but a link
 * planted since the check is still refused. Without force, the rename
 * itself refuses an existing name; where the filesystem cannot, link()
 * does the same.
 */
static int place(int dirfd, const char *tmp, const char *base,
		 unsigned int flags)
{
	int err = check_target(dirfd, base, flags);

	if (err)
		return err;
	if (flags & OUTFILE_FORCE)
		return renameat(dirfd, tmp, dirfd, base) ? -errno : 0;
	if (!renameat2(dirfd, tmp, dirfd, base, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (linkat(dirfd, tmp, dirfd, base, 0))
		return -errno;
	unlinkat(dirfd, tmp, 0);
	return 0;
}

static void outfile_free(struct outfile *of)
{
	if (of->f)
		fclose(of->f);
	if (of->tmp[0])
		unlinkat(of->dirfd, of->tmp, 0);
	if (of->dirfd >= 0)
		close(of->dirfd);
	free(of->base);
	free(of);
}

int outfile_open(const char *path, unsigned int flags, struct outfile **out)
{
	struct outfile *of = calloc(1, sizeof(*of));
	int fd, err;

	if (!of)
		return say(path, -ENOMEM);
	of->path = path;
	of->flags = flags;
	of->dirfd = -1;
	err = split(path, &of->dirfd, &of->base);
	if (!err)
		err = check_target(of->dirfd, of->base, flags);
	if (err)
		goto fail;
	fd = create_tmp(of->dirfd, of->base, of->tmp, sizeof(of->tmp));
	if (fd < 0) {
		err = fd;
		of->tmp[0] = 0;
		goto fail;
	}
	of->f = fdopen(fd, "w");
	err = of->f ? give_away(fd) : -errno;
	if (!of->f)
		close(fd);
	if (err)
		goto fail;
	*out = of;
	return 0;
fail:
	outfile_free(of);
	return say(path, err);
}

FILE *outfile_fp(struct outfile *of)
{
	return of->f;
}

int outfile_commit(struct outfile *of)
{
	const char *path = of->path;
	int err = 0;

	if (fflush(of->f) == EOF || ferror(of->f))
		err = -(errno ? errno : EIO);
	if (!err && fsync(fileno(of->f)))
		err = -errno;
	if (fclose(of->f) == EOF && !err)
		err = -errno;
	of->f = NULL;
	if (!err)
		err = place(of->dirfd, of->tmp, of->base, of->flags);
	if (!err) {
		of->tmp[0] = 0;
		fsync(of->dirfd);
	}
	outfile_free(of);
	return err ? say(path, err) : 0;
}

void outfile_abort(struct outfile *of)
{
	if (of)
		outfile_free(of);
}

/* With force: a fresh inode renamed over the old name, never a truncate. */
static int create_stream(int dirfd, const char *base, unsigned int flags)
{
	char tmp[NAME_MAX + 1];
	int fd, err;

	if (!(flags & OUTFILE_FORCE)) {
		fd = openat(dirfd, base, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, OUT_MODE);
		if (fd < 0)
			return -errno;
		err = give_away(fd);
		if (err)
			unlinkat(dirfd, base, 0);
	} else {
		fd = create_tmp(dirfd, base, tmp, sizeof(tmp));
		if (fd < 0)
			return fd;
		err = give_away(fd) ?: place(dirfd, tmp, base, flags);
		if (err)
			unlinkat(dirfd, tmp, 0);
	}
	if (err) {
		close(fd);
		return err;
	}
	/* a power loss right after the start must not lose the name */
	fsync(dirfd);
	return fd;
}

int outfile_create(const char *path, unsigned int flags)
{
	char *base = NULL;
	int dirfd, fd;

	fd = split(path, &dirfd, &base);
	if (fd)
		return say(path, fd);
	fd = check_target(dirfd, base, flags);
	if (!fd)
		fd = create_stream(dirfd, base, flags);
	close(dirfd);
	free(base);
	return fd < 0 ? say(path, fd) : fd;
}

/* ---- the writer ---- */

#define WRITER_MAX (64u << 20)	/* a textfile is kilobytes */
#define WRITER_STOP UINT64_MAX

struct outfile_writer {
	char *path;
	unsigned int flags;
	int sock;		/* to the helper; -1: write in this process */
	pid_t pid;
};

static int put_here(const char *path, unsigned int flags, const void *buf,
		    size_t len)
{
	struct outfile *of;
	int err;

	err = outfile_open(path, flags, &of);
	if (err)
		return err;
	if (len && fwrite(buf, 1, len, outfile_fp(of)) != len) {
		outfile_abort(of);
		return say(path, -EIO);
	}
	return outfile_commit(of);
}

static int xfer(int fd, void *buf, size_t len, bool out)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The helper: a length, the bytes, a reply; EOF or STOP ends it. */
static void __attribute__((noreturn)) writer_loop(struct outfile_writer *w)
{
	bool remove = true;
	uint64_t len;
	char *buf;
	int err;

	signal(SIGINT, SIG_IGN);	/* bhprof decides when it ends */
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	priv_close_all_but(w->sock);
	while (!xfer(w->sock, &len, sizeof(len), false)) {
		if (len == WRITER_STOP || len == WRITER_STOP - 1) {
			remove = len == WRITER_STOP;
			break;
		}
		buf = len <= WRITER_MAX ? malloc(len ? len : 1) : NULL;
		if (!buf || xfer(w->sock, buf, len, false))
			_exit(1);
		err = put_here(w->path, w->flags, buf, len);
		free(buf);
		if (xfer(w->sock, &err, sizeof(err), true))
			_exit(1);
	}
	if (remove)
		unlink(w->path);
	err = 0;
	xfer(w->sock, &err, sizeof(err), true);
	_exit(0);
}

int outfile_writer_start(const char *path, unsigned int flags,
			 struct outfile_writer **out)
{
	struct outfile_writer *w = calloc(1, sizeof(*w));
	int sv[2], err;

	if (!w || !(w->path = strdup(path))) {
		free(w);
		return say(path, -ENOMEM);
	}
	w->flags = flags;
	w->sock = -1;
	*out = w;
	if (!priv_would_drop())
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		err = -errno;
		goto fail;
	}
	w->pid = fork();
	if (w->pid < 0) {
		err = -errno;
		close(sv[0]);
		close(sv[1]);
		goto fail;
	}
	if (w->pid == 0) {
		w->sock = sv[1];
		writer_loop(w);
	}
	close(sv[1]);
	w->sock = sv[0];
	return 0;
fail:
	free(w->path);
	free(w);
	return say(path, err);
}

int outfile_writer_put(struct outfile_writer *w, const void *buf, size_t len)
{
	uint64_t n = len;
	int err, reply;

	if (w->sock < 0)
		return put_here(w->path, w->flags, buf, len);
	if (len > WRITER_MAX)
		return say(w->path, -EFBIG);
	err = xfer(w->sock, &n, sizeof(n), true) ?:
	      xfer(w->sock, (void *)buf, len, true) ?:
	      xfer(w->sock, &reply, sizeof(reply), false);
	return err ?: reply;	/* the helper said why, if it could */
}

void outfile_writer_stop(struct outfile_writer *w, bool remove)
{
	uint64_t stop = remove ? WRITER_STOP : WRITER_STOP - 1;
	int err;

	if (!w)
		return;
	if (w->sock < 0 && remove)
		unlink(w->path);
	if (w->sock >= 0) {
		/* its reply says the file is gone, if it was to go */
		if (!xfer(w->sock, &stop, sizeof(stop), true))
			xfer(w->sock, &err, sizeof(err), false);
		close(w->sock);
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(w->path);
	free(w);
}
