// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "progcost.h"

void bpf_progs_cost(struct bpf_object *obj, struct self_prog *rows,
		    uint32_t *n, uint32_t max)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);
		struct self_prog *r;

		/* not loaded: another flavour of its probe won */
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		r = self_prog_row(rows, n, max, bpf_program__name(prog));
		if (r) {
			r->ns += info.run_time_ns;
			r->runs += info.run_cnt;
		}
	}
}
