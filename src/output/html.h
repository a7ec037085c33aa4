/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* report --html: one self-contained page, charts as inline SVG. */
#ifndef BHPROF_HTML_H
#define BHPROF_HTML_H

#include "recfile/run.h"

/* Writes the page to f; the caller checks f for errors. */
void html_page(FILE *f, const struct loaded_run *run);

#endif /* BHPROF_HTML_H */
