// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules.h"
#include "util/array.h"

/* a rules file is a handful of lines; anything larger is not one */
#define RULES_FILE_MAX (64 * 1024)

const char *rule_path_name(unsigned int path)
{
	return path == RULE_ANY ? "any" : path_name(path);
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

const char *rule_scope(const struct rule *r, char *buf, size_t len)
{
	if (!r->has_fs)
		return rule_path_name(r->path);
	snprintf(buf, len, "%s:%s", r->fs[0] ? r->fs : "-",
		 rule_path_name(r->path));
	return buf;
}

/* "ext4:" before the path: a filesystem type's name, "-" for none */
static int parse_fs(const char **s, struct rule *r)
{
	size_t n = strspn(*s, "abcdefghijklmnopqrstuvwxyz"
			      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");

	if ((*s)[n] != ':')
		return 0;
	if (!n || n >= sizeof(r->fs))
		return -1;
	r->has_fs = true;
	if (n != 1 || **s != '-')
		memcpy(r->fs, *s, n);
	*s += n + 1;
	return 0;
}

static int parse_path(const char **s, unsigned int *path, bool fs)
{
	static const struct {
		const char *name;
		unsigned int path;
	} paths[] = { { "bh.", PATH_BH }, { "iomap.", PATH_IOMAP },
		      { "any.", RULE_ANY }, { "other.", PATH_NONE } };

	for (size_t i = 0; i < ARRAY_SIZE(paths) - !fs; i++) {
		size_t n = strlen(paths[i].name);

		if (!strncmp(*s, paths[i].name, n)) {
			*path = paths[i].path;
			*s += n;
			return 0;
		}
	}
	return -1;
}

static int parse_metric(const char **s, const struct figure_def **m)
{
	char name[48];
	size_t n = strcspn(*s, " \t<>=");

	if (!n || n >= sizeof(name))
		return -1;
	memcpy(name, *s, n);
	name[n] = 0;
	*m = figure_find(name);
	*s += n;
	return *m ? 0 : -1;
}

static int parse_limit(const char *s, double *limit)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v))
		return -1;
	end = (char *)skip_space(end);
	if (*end != '%')
		return -1;
	if (*skip_space(end + 1))
		return -1;
	/* a candidate cannot fall by more than all of it */
	if (v <= -100 || v > 1e6)
		return -1;
	*limit = v / 100;
	return 0;
}

int rule_parse(const char *s, struct rule *r, char *err, size_t len)
{
	const char *p = skip_space(s);

	char scope[40];

	memset(r, 0, sizeof(*r));
	if (parse_fs(&p, r)) {
		snprintf(err, len, "rule '%.60s': a filesystem type before ':' is 1 to %d characters", s, BHP_FS_NAME - 1);
		return -1;
	}
	if (parse_path(&p, &r->path, r->has_fs)) {
		snprintf(err, len, r->has_fs ?
			 "rule '%.60s': the filesystem type is followed by bh., iomap., other. or any." :
			 "rule '%.60s': starts with bh., iomap. or any. (or FS: and one)", s);
		return -1;
	}
	if (parse_metric(&p, &r->m)) {
		snprintf(err, len, "rule '%.60s': unknown metric (bhprof gate --help lists them)", s);
		return -1;
	}
	if (r->has_fs && !figure_per_fs(r->m)) {
		snprintf(err, len, "rule '%.60s': a filesystem's row has no %s (its figures are counts, bytes and rates of them)", s, r->m->name);
		return -1;
	}
	if (figure_any_only(r->m) && r->path != RULE_ANY) {
		snprintf(err, len, "rule '%.60s': %s is a figure of the whole run: any. only", s, r->m->name);
		return -1;
	}
	p = skip_space(p);
	if (!strncmp(p, "<=", 2)) {
		r->worse = 1;
	} else if (!strncmp(p, ">=", 2)) {
		r->worse = -1;
	} else {
		snprintf(err, len, "rule '%.60s': expected <= or >= after the metric", s);
		return -1;
	}
	if (parse_limit(skip_space(p + 2), &r->limit)) {
		snprintf(err, len, "rule '%.60s': the limit is a percentage above -100, like +10%% or -5%%", s);
		return -1;
	}
	snprintf(r->text, sizeof(r->text), "%s.%s %s %+g%%",
		 rule_scope(r, scope, sizeof(scope)), r->m->name,
		 r->worse > 0 ? "<=" : ">=", r->limit * 100);
	return 0;
}

int rules_parse_text(const char *text, size_t size, struct rule *rules,
		     size_t *n, char *err, size_t len)
{
	char line[256], why[200];
	size_t at = 0, lineno = 0;

	while (at < size) {
		size_t l = 0;

		lineno++;
		while (at < size && text[at] != '\n') {
			if (l + 1 >= sizeof(line) || !text[at]) {
				snprintf(err, len, "%zu: not a rule (too long, or not text)", lineno);
				return -1;
			}
			line[l++] = text[at++];
		}
		at++;
		line[l] = 0;
		line[strcspn(line, "#")] = 0;
		if (!*skip_space(line))
			continue;
		if (*n >= MAX_RULES) {
			snprintf(err, len, "%zu: more than %d rules", lineno, MAX_RULES);
			return -1;
		}
		if (rule_parse(line, &rules[*n], why, sizeof(why))) {
			snprintf(err, len, "%zu: %s", lineno, why);
			return -1;
		}
		(*n)++;
	}
	return 0;
}

int rules_read(const char *path, struct rule *rules, size_t *n, char *err,
	       size_t len)
{
	char *text = malloc(RULES_FILE_MAX + 1);
	size_t size;
	FILE *f;
	int rc;

	if (!text) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, len, "%s", strerror(errno));
		free(text);
		return -1;
	}
	size = fread(text, 1, RULES_FILE_MAX + 1, f);
	rc = ferror(f);
	fclose(f);
	if (rc || size > RULES_FILE_MAX) {
		snprintf(err, len, rc ? "cannot read it" :
			 "larger than %d KiB: not a rules file", RULES_FILE_MAX / 1024);
		free(text);
		return -1;
	}
	rc = rules_parse_text(text, size, rules, n, err, len);
	free(text);
	return rc;
}
