/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Block device names <-> kernel dev_t (major << 20 | minor). */
#ifndef BHPROF_DEVICES_H
#define BHPROF_DEVICES_H

#include <stddef.h>
#include <stdint.h>

/* "loop0", "/dev/loop0" or "7:0"; -1 if no such block device */
int dev_parse(const char *s, uint32_t *dev);
/* "7:0" alone, decimal, in the kernel's ranges; no lookup: 0 or -1 */
int dev_parse_majmin(const char *s, uint32_t *dev);
/* the kernel's name for dev, or "MAJ:MIN" if it has none (any more) */
const char *dev_name(uint32_t dev, char *buf, size_t len);
/* 0 when dev is gone: no /sys/dev/block entry, or a size of 0 sectors (a
 * detached loop device keeps its entry); else its size in sectors */
uint64_t dev_sectors(uint32_t dev);

#endif /* BHPROF_DEVICES_H */
