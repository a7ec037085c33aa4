/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A small streaming JSON writer in the spirit of bpftool's json_writer. */
#ifndef BHPROF_JSON_H
#define BHPROF_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	bool pretty;
	bool need_comma[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *f, bool pretty);
/* key is NULL at the root and inside arrays */
void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_double(struct json *j, const char *key, double v);
void json_str(struct json *j, const char *key, const char *v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* v, or null where known is false: a figure the run cannot know is
 * null, never a zero that looks real */
void json_u64_known(struct json *j, const char *key, uint64_t v, bool known);
void json_double_known(struct json *j, const char *key, double v, bool known);
/* ends the document with a newline */
/*
 * An unknown figure is null, and its object's "why" says why, one string
 * per null member ("write.lat_ns": "no write call on this path"). The
 * reasons gather as the members are written; json_whys_close() writes
 * them as the object's last member. obj prefixes the keys of a member
 * object's figures ("write"), NULL for the object's own.
 */
#define JSON_MAX_WHYS 48
struct json_whys {
	const char *obj;
	unsigned int n;
	char key[JSON_MAX_WHYS][48];
	const char *why[JSON_MAX_WHYS];
};

/* null and its reason if why, else nothing: true if it wrote null */
bool json_null_why(struct json *j, struct json_whys *w, const char *key,
		   const char *why);
void json_u64_why(struct json *j, struct json_whys *w, const char *key,
		  uint64_t v, const char *why);
void json_double_why(struct json *j, struct json_whys *w, const char *key,
		     double v, const char *why);
void json_whys_close(struct json *j, const struct json_whys *w);

void json_end(struct json *j);

#endif /* BHPROF_JSON_H */
