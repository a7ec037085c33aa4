/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Gate rules: "PATH.METRIC OP LIMIT%", e.g. "iomap.write.lat.p99 <= +10%":
 * the candidate may be at most 10% above the baseline. PATH is bh, iomap
 * or any (both paths as one). "FS:PATH.METRIC" judges a filesystem
 * type's row on the path ("ext4:bh.bio.count <= +5%"; PATH may be other
 * there, any is the type's rows as one, FS "-" the row of no file),
 * with the figures such a row has.
 */
#ifndef BHPROF_RULES_H
#define BHPROF_RULES_H

#include <stddef.h>
#include "metrics.h"

#define RULE_ANY 3	/* beside PATH_BH, PATH_IOMAP */
#define MAX_RULES 128

struct rule {
	char text[96];		/* as written, tidied */
	unsigned int path;	/* PATH_BH, PATH_IOMAP or RULE_ANY (and
				 * PATH_NONE with fs) */
	bool has_fs;		/* judges the row of filesystem type fs */
	char fs[BHP_FS_NAME];	/* "" for no file's */
	const struct figure_def *m;
	int worse;		/* +1: "<=", higher is worse; -1: ">=" */
	double limit;		/* a fraction: +10% is 0.10 */
};

/* 0, or -1 with the reason (one line, no newline) in err */
int rule_parse(const char *s, struct rule *r, char *err, size_t len);

/*
 * The rules of a file: one a line, '#' starts a comment. Appends to
 * rules[*n], at most MAX_RULES in all. 0, or -1 with "LINE: reason".
 */
int rules_parse_text(const char *text, size_t size, struct rule *rules,
		     size_t *n, char *err, size_t len);
int rules_read(const char *path, struct rule *rules, size_t *n, char *err,
	       size_t len);

const char *rule_path_name(unsigned int path);
/* what a rule judges: "bh", or "ext4:bh" for a filesystem's row */
const char *rule_scope(const struct rule *r, char *buf, size_t len);

#endif /* BHPROF_RULES_H */
