/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Text and JSON renderings of a summary, shared by stat and report. */
#ifndef BHPROF_OUTPUT_H
#define BHPROF_OUTPUT_H

#include <stdio.h>
#include "util/json.h"
#include "model/figures.h"
#include "model/summary.h"

/* Members of the top-level JSON object (kernel, attach, probes, paths,
 * devices, ...); the caller opens and closes the object so it can add
 * its own members (callers, intervals, command). The reasons for its
 * null figures gather in w, which the caller closes (json_whys_close)
 * once its own figures are in. */
void summary_json_fields(struct json *j, const struct run_info *info,
			 const struct summary *s, struct json_whys *w);
/* A path's figures as members of the open object (a filesystem's row's
 * alone, with their reasons, for fs), their reasons gathering in w. */
void figures_json(struct json *j, struct json_whys *w,
		  const struct path_summary *p, const struct run_info *info,
		  unsigned int path, bool fs);
/* One path's metrics as a JSON object named key. */
void path_json(struct json *j, const char *key, const struct path_summary *p,
	       const struct run_info *info, unsigned int path);
/* "kernel": {release, machine, page_size, buffer_head, btf} */
void kernel_json(struct json *j, const struct run_info *info);
void summary_text(FILE *f, const struct run_info *info,
		  const struct summary *s);
/* "12.3 MiB", "4.0 KiB" */
const char *fmt_bytes(char *buf, size_t len, double bytes);
/* three significant digits: "1.25 ms", "830 ns", 999.7 us is "1.00 ms" */
const char *fmt_ns(char *buf, size_t len, double ns);
/* "7:0" */
const char *fmt_dev(char *buf, size_t len, uint32_t dev);

/* v in a table cell, or why_cell(why) when the run does not know it */
const char *cell(char *buf, size_t len, enum figure_unit k, double v,
		 const char *why);

/* s as HTML or XML text or attribute value */
void markup_esc(FILE *f, const char *s);

/* a probe's "module": its module's name, or null for vmlinux */
void module_json(struct json *j, const struct probe_state *ps);

#endif /* BHPROF_OUTPUT_H */
