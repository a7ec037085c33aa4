/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* report --html: one self-contained page, charts as inline SVG. */
#ifndef BHPROF_HTML_H
#define BHPROF_HTML_H

#include "run.h"

/* Writes the page to out; 0, or -1 after one error line on stderr. */
int html_write(const struct loaded_run *run, const char *out);

#endif /* BHPROF_HTML_H */
