// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Output files: the promises of outfile.h, in a scratch directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "util/outfile.h"

#define DIR_TEMPLATE "/tmp/bhprof-unit-outfile.XXXXXX"

static char dir[sizeof(DIR_TEMPLATE)];
static int saved_stderr = -1;

/* the error lines are the point of some calls, not noise for the log */
static void quiet(void)
{
	int null = open("/dev/null", O_WRONLY);

	fflush(stderr);
	saved_stderr = dup(2);
	dup2(null, 2);
	close(null);
}

static void loud(void)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
}

static char *at(const char *name)
{
	static char p[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static int write_whole(const char *name, const char *text, unsigned int flags)
{
	struct outfile *of;
	int err;

	quiet();
	err = outfile_open(at(name), flags, &of);
	if (!err) {
		fputs(text, outfile_fp(of));
		err = outfile_commit(of);
	}
	loud();
	return err;
}

static int slurp(const char *name, char *buf, size_t len)
{
	int fd = open(at(name), O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n < 0 ? -1 : 0;
}

/* names in dir other than . and .., temporary files included */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static void clean(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(at(e->d_name));
	if (d)
		closedir(d);
	rmdir(dir);
}

TEST(outfile_whole_files)
{
	char buf[64];
	struct outfile *of;

	strcpy(dir, DIR_TEMPLATE);
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	CHECK(write_whole("a.json", "first\n", 0) == 0);
	CHECK(slurp("a.json", buf, sizeof(buf)) == 0 && !strcmp(buf, "first\n"));
	/* never clobbered without force, replaced with it */
	CHECK(write_whole("a.json", "second\n", 0) == -EEXIST);
	CHECK(slurp("a.json", buf, sizeof(buf)) == 0 && !strcmp(buf, "first\n"));
	CHECK(write_whole("a.json", "third\n", OUTFILE_FORCE) == 0);
	CHECK(slurp("a.json", buf, sizeof(buf)) == 0 && !strcmp(buf, "third\n"));
	/* a link is not followed, force or not; its target stays */
	CHECK(symlink(at("a.json"), at("link.html")) == 0);
	CHECK(write_whole("link.html", "evil\n", 0) == -ELOOP);
	CHECK(write_whole("link.html", "evil\n", OUTFILE_FORCE) == -ELOOP);
	CHECK(slurp("a.json", buf, sizeof(buf)) == 0 && !strcmp(buf, "third\n"));
	/* nothing visible until commit, nothing left after abort */
	quiet();
	CHECK(outfile_open(at("b.csv"), 0, &of) == 0);
	loud();
	CHECK(access(at("b.csv"), F_OK) < 0);
	outfile_abort(of);
	CHECK(access(at("b.csv"), F_OK) < 0);
	CHECK(entries() == 2);	/* a.json, link.html: no temporary file */
	clean();
}

TEST(outfile_streams)
{
	struct stat st;
	ino_t ino;
	int fd;

	strcpy(dir, DIR_TEMPLATE);
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	quiet();
	fd = outfile_create(at("r.bhp"), 0);
	loud();
	CHECK(fd >= 0 && write(fd, "x", 1) == 1);
	close(fd);
	CHECK(stat(at("r.bhp"), &st) == 0 && st.st_size == 1);
	ino = st.st_ino;
	quiet();
	CHECK(outfile_create(at("r.bhp"), 0) == -EEXIST);
	fd = outfile_create(at("r.bhp"), OUTFILE_FORCE);
	loud();
	/* replaced by a new, empty file, not truncated in place */
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_ino != ino &&
	      st.st_size == 0);
	close(fd);
	CHECK(symlink("/etc/passwd", at("l.bhp")) == 0);
	quiet();
	CHECK(outfile_create(at("l.bhp"), 0) == -ELOOP);
	CHECK(outfile_create(at("l.bhp"), OUTFILE_FORCE) == -ELOOP);
	CHECK(outfile_create(dir, OUTFILE_FORCE) == -EISDIR);
	CHECK(outfile_create("/dev/null", OUTFILE_FORCE) == -EINVAL);
	loud();
	CHECK(entries() == 2);
	clean();
}
