// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for device names given with -d (src/model/devices.c): the
 * strict MAJ:MIN parser alone, then the whole lookup, which reaches
 * /sys and /dev on this machine with whatever the input names, and the
 * reverse lookup of what it found.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bhprof.h"
#include "model/devices.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), name[32];
	uint32_t dev;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (!dev_parse_majmin(s, &dev) &&
	    (KDEV_MAJOR(dev) >= 4096 || KDEV_MINOR(dev) >= (1u << 20)))
		__builtin_trap();
	if (!dev_parse(s, &dev) && !*dev_name(dev, name, sizeof(name)))
		__builtin_trap();
	free(s);
	return 0;
}
