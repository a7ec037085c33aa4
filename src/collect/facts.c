// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "collector.h"
#include "kernel.h"

/* the VERSION file's, passed by the Makefile: the one place it is kept */
#ifndef BHPROF_VERSION
#error "BHPROF_VERSION is not set: build with make"
#endif
const char bhprof_version[] = BHPROF_VERSION;

/*
 * CONFIG_BUFFER_HEAD only exists since 6.6; before that buffer heads are
 * always built. Without a readable config, BTF tells: fs/buffer.c's
 * alloc_buffer_head is there or not.
 */
static int buffer_head_state(const struct btf *btf)
{
	int v = kconfig_value("CONFIG_BUFFER_HEAD");

	if (v >= 0)
		return v;
	if (!btf)
		return -1;
	return btf_has_func(btf, "alloc_buffer_head");
}

void kernel_facts(struct run_info *info, const struct btf *btf)
{
	struct timespec ts;
	struct utsname u;

	snprintf(info->version, sizeof(info->version), "%s", bhprof_version);
	uname(&u);
	snprintf(info->release, sizeof(info->release), "%s", u.release);
	snprintf(info->hostname, sizeof(info->hostname), "%s", u.nodename);
	snprintf(info->machine, sizeof(info->machine), "%.15s", u.machine);
	info->page_size = sysconf(_SC_PAGESIZE);
	info->btf = btf != NULL;
	info->buffer_head = buffer_head_state(btf);
	clock_gettime(CLOCK_REALTIME, &ts);
	info->start_realtime_ns = (uint64_t)ts.tv_sec * 1000000000ULL +
				  ts.tv_nsec;
}
