// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "bhprof.h"
#include "devices.h"

static int sysfs_dev(const char *name, uint32_t *dev)
{
	char path[PATH_MAX];
	unsigned int ma, mi;
	FILE *f;
	int n;

	if (strchr(name, '/'))
		return -1;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "%u:%u", &ma, &mi);
	fclose(f);
	if (n != 2)
		return -1;
	*dev = KDEV_MKDEV(ma, mi);
	return 0;
}

static int exists_as_block(uint32_t dev)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", KDEV_MAJOR(dev),
		 KDEV_MINOR(dev));
	return stat(path, &st) == 0;
}

uint64_t dev_sectors(uint32_t dev)
{
	unsigned long long n = 0;
	char path[80];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/size",
		 KDEV_MAJOR(dev), KDEV_MINOR(dev));
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

/* decimal digits only, below limit: sscanf's %u took "-1" and " 7" */
static const char *dec_field(const char *s, unsigned int limit,
			     unsigned int *out)
{
	unsigned long v = 0;

	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned int)(*s - '0');
		if (v >= limit)
			return NULL;
	}
	*out = (unsigned int)v;
	return s;
}

int dev_parse_majmin(const char *s, uint32_t *dev)
{
	unsigned int ma, mi;

	s = dec_field(s, 4096, &ma);
	if (!s || *s++ != ':')
		return -1;
	s = dec_field(s, 1u << 20, &mi);
	if (!s || *s)
		return -1;
	*dev = KDEV_MKDEV(ma, mi);
	return 0;
}

int dev_parse(const char *s, uint32_t *dev)
{
	struct stat st;

	if (strchr(s, ':'))
		return dev_parse_majmin(s, dev) || !exists_as_block(*dev) ? -1 : 0;
	if (!strncmp(s, "/dev/", 5) && !stat(s, &st)) {
		if (!S_ISBLK(st.st_mode))
			return -1;
		*dev = KDEV_MKDEV(major(st.st_rdev), minor(st.st_rdev));
		return 0;
	}
	return sysfs_dev(s, dev);
}

const char *dev_name(uint32_t dev, char *buf, size_t len)
{
	char path[64], line[128];
	FILE *f;

	snprintf(buf, len, "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent",
		 KDEV_MAJOR(dev), KDEV_MINOR(dev));
	f = fopen(path, "r");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, len, "%s", line + 8);
			break;
		}
	}
	fclose(f);
	return buf;
}
