// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The devices a file on a watched disk may name. A btrfs file's inode
 * names an anonymous device of its subvolume (st_dev 0:41), not the disk
 * under it, so -d on that disk would miss its write calls and writeback:
 * /proc/self/mountinfo pairs each mount's device with its source.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "kernel.h"

/* the kernel's dev_t, as the BPF side reads s_dev and bd_dev */
#define KDEV(maj, min) ((uint32_t)(maj) << 20 | (uint32_t)(min))

static bool dev_in(const uint32_t *devs, uint32_t n, uint32_t dev)
{
	for (uint32_t i = 0; i < n; i++)
		if (devs[i] == dev)
			return true;
	return false;
}

/* the mount's own device if its source is a block device of devs */
static bool anon_of(const char *line, const uint32_t *devs, uint32_t n,
		    uint32_t *dev)
{
	const char *sep = strstr(line, " - ");
	unsigned int maj, min;
	char src[256];
	struct stat st;

	if (!sep || sscanf(line, "%*s %*s %u:%u", &maj, &min) != 2)
		return false;
	if (sscanf(sep + 3, "%*s %255s", src) != 1 || src[0] != '/')
		return false;
	if (stat(src, &st) || !S_ISBLK(st.st_mode))
		return false;
	*dev = KDEV(maj, min);
	return dev_in(devs, n, KDEV(major(st.st_rdev), minor(st.st_rdev))) &&
	       !dev_in(devs, n, *dev);
}

uint32_t mount_anon_devs(const uint32_t *devs, uint32_t n, uint32_t *out,
			 uint32_t max)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[1024];
	uint32_t nr = 0, dev;

	if (!f)
		return 0;
	while (nr < max && fgets(line, sizeof(line), f))
		if (anon_of(line, devs, n, &dev) && !dev_in(out, nr, dev))
			out[nr++] = dev;
	fclose(f);
	return nr;
}
