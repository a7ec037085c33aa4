// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include "json.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	j->f = f;
	j->depth = 0;
	j->pretty = pretty;
	j->need_comma[0] = false;
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* comma, newline and key before any value */
static void begin_value(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
	if (j->depth)
		indent(j);
	if (key) {
		put_string(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void open_container(struct json *j, const char *key, char c)
{
	begin_value(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_container(struct json *j, char c)
{
	bool had = j->need_comma[j->depth];

	if (j->depth)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->f);
}

void json_obj_open(struct json *j, const char *key)
{
	open_container(j, key, '{');
}

void json_obj_close(struct json *j)
{
	close_container(j, '}');
}

void json_arr_open(struct json *j, const char *key)
{
	open_container(j, key, '[');
}

void json_arr_close(struct json *j)
{
	close_container(j, ']');
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	begin_value(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	begin_value(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void json_double(struct json *j, const char *key, double v)
{
	begin_value(j, key);
	/* JSON has no NaN or infinity */
	if (!isfinite(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.15g", v);	/* all of a double's digits */
}

void json_str(struct json *j, const char *key, const char *v)
{
	begin_value(j, key);
	put_string(j->f, v ? v : "");
}

void json_bool(struct json *j, const char *key, bool v)
{
	begin_value(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	begin_value(j, key);
	fputs("null", j->f);
}

void json_u64_known(struct json *j, const char *key, uint64_t v, bool known)
{
	if (known)
		json_u64(j, key, v);
	else
		json_null(j, key);
}

void json_double_known(struct json *j, const char *key, double v, bool known)
{
	if (known)
		json_double(j, key, v);
	else
		json_null(j, key);
}

bool json_null_why(struct json *j, struct json_whys *w, const char *key,
		   const char *why)
{
	if (!why)
		return false;
	json_null(j, key);
	if (w->n < JSON_MAX_WHYS) {
		snprintf(w->key[w->n], sizeof(w->key[0]), "%s%s%s",
			 w->obj ? w->obj : "", w->obj ? "." : "", key);
		w->why[w->n++] = why;
	}
	return true;
}

void json_u64_why(struct json *j, struct json_whys *w, const char *key,
		  uint64_t v, const char *why)
{
	if (!json_null_why(j, w, key, why))
		json_u64(j, key, v);
}

void json_double_why(struct json *j, struct json_whys *w, const char *key,
		     double v, const char *why)
{
	if (!json_null_why(j, w, key, why))
		json_double(j, key, v);
}

void json_whys_close(struct json *j, const struct json_whys *w)
{
	if (!w->n)
		return;
	json_obj_open(j, "why");
	for (unsigned int i = 0; i < w->n; i++)
		json_str(j, w->key[i], w->why[i]);
	json_obj_close(j);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
