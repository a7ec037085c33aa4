// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --callers: chains, owners, freed and alive, in text, JSON and folded. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "callers_out.h"
#include "model/devices.h"
#include "output.h"

#define TOP_CHAINS 10

bool callers_known(const struct run_info *info)
{
	return info->features & RUN_F_CALLERS;
}

static bool same_owner(const struct callers_owner *a,
		       const struct callers_owner *b)
{
	return a->dev == b->dev && a->role == b->role && !strcmp(a->fs, b->fs);
}

static void add_chain(struct callers_table *t, const struct caller_row *r)
{
	for (uint32_t i = 0; i < t->nr_chains; i++) {
		if (t->chains[i].stack == r->k.stack) {
			t->chains[i].n += r->n;
			return;
		}
	}
	t->chains[t->nr_chains].stack = r->k.stack;
	t->chains[t->nr_chains++].n = r->n;
}

static void add_owner(struct callers_table *t, const struct caller_row *r)
{
	struct callers_owner_row *o = NULL;
	struct callers_owner ow;

	callers_owner_of(&r->k, &ow);
	for (uint32_t i = 0; i < t->nr_owners && !o; i++)
		if (same_owner(&t->owners[i].o, &ow))
			o = &t->owners[i];
	if (!o) {
		o = &t->owners[t->nr_owners++];
		memset(o, 0, sizeof(*o));
		o->o = ow;
	}
	o->n += r->n;
	o->where[r->k.where < NR_WHERE ? r->k.where : WHERE_NONE] += r->n;
}

static int chain_cmp(const void *a, const void *b)
{
	const struct callers_chain_row *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

static int owner_cmp(const void *a, const void *b)
{
	const struct callers_owner_row *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

void callers_tables(const struct summary *s, struct callers_table *t)
{
	t->total = 0;
	t->nr_chains = t->nr_owners = 0;
	for (uint32_t i = 0; i < s->nr_callers; i++) {
		t->total += s->callers[i].n;
		add_chain(t, &s->callers[i]);
		add_owner(t, &s->callers[i]);
	}
	qsort(t->chains, t->nr_chains, sizeof(t->chains[0]), chain_cmp);
	qsort(t->owners, t->nr_owners, sizeof(t->owners[0]), owner_cmp);
}

static double share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

/* the named chains: chains that share a name summed, most first */
struct named {
	char name[96];
	uint64_t n;
};

static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->name, y->name);
}

static uint32_t names_of(const struct callers_table *t, struct named *out)
{
	uint32_t n = 0, j;
	char buf[96];

	for (uint32_t i = 0; i < t->nr_chains; i++) {
		callers_chain_name(callers_chain(t->chains[i].stack), buf,
				   sizeof(buf));
		for (j = 0; j < n && strcmp(out[j].name, buf); j++)
			;
		if (j == n) {
			snprintf(out[n].name, sizeof(out[n].name), "%s", buf);
			out[n++].n = 0;
		}
		out[j].n += t->chains[i].n;
	}
	qsort(out, n, sizeof(*out), named_cmp);
	return n;
}

static void chains_text(FILE *f, const struct callers_table *t, bool full)
{
	static struct named names[MAX_SNAP_CALLERS];
	uint32_t n;

	fprintf(f, "\nbuffer_head allocations by caller (%llu in %u chains):\n",
		(unsigned long long)t->total, t->nr_chains);
	if (full) {
		for (uint32_t i = 0; i < t->nr_chains && i < TOP_CHAINS; i++)
			fprintf(f, "  %10llu %5.1f%%  %s\n",
				(unsigned long long)t->chains[i].n,
				share(t->chains[i].n, t->total),
				callers_chain(t->chains[i].stack));
		return;
	}
	n = names_of(t, names);
	for (uint32_t i = 0; i < n && i < TOP_CHAINS; i++)
		fprintf(f, "  %10llu %5.1f%%  %s\n",
			(unsigned long long)names[i].n,
			share(names[i].n, t->total), names[i].name);
	if (n > TOP_CHAINS)
		fprintf(f, "  (%u more; --callers=full or --folded FILE for "
			"whole chains)\n", n - TOP_CHAINS);
}

static void owners_text(FILE *f, const struct callers_table *t)
{
	char dev[32];

	fprintf(f, "\nbuffer_head allocations by owner:\n");
	fprintf(f, "  %-10s %-10s %-9s %10s %6s %9s %9s %9s %9s\n", "owner",
		"device", "role", "allocs", "share", "write", "read",
		"mkwrite", "outside");
	for (uint32_t i = 0; i < t->nr_owners; i++) {
		const struct callers_owner_row *o = &t->owners[i];

		fprintf(f, "  %-10s %-10s %-9s %10llu %5.1f%% %9llu %9llu "
			"%9llu %9llu\n", o->o.fs,
			o->o.dev ? dev_name(o->o.dev, dev, sizeof(dev)) : "?",
			callers_role_name(o->o.role),
			(unsigned long long)o->n, share(o->n, t->total),
			(unsigned long long)o->where[WHERE_WRITE],
			(unsigned long long)o->where[WHERE_READ],
			(unsigned long long)o->where[WHERE_MKWRITE],
			(unsigned long long)o->where[WHERE_NONE]);
	}
}

static int64_t net_of(const struct summary *s)
{
	return (int64_t)(s->glob.bh_alloc_total - s->glob.bh_freed);
}

static void alive_text(FILE *f, const struct run_info *info,
		       const struct summary *s)
{
	int64_t net = net_of(s);
	char b[32];

	const char *why = figure_why(info, PATH_BH, FIG_CALLERS);

	if (info->buffer_head == 0) {
		fprintf(f, "\nbuffer_heads alive: 0 (no buffer_heads in this "
			"kernel)\n");
		return;
	}
	if (why) {
		fprintf(f, "\nbuffer_heads: %llu allocated; freed and alive %s\n",
			(unsigned long long)s->glob.bh_alloc_total, why);
		return;
	}
	fprintf(f, "\nbuffer_heads: %llu allocated, %llu freed, net %+lld "
		"(%s%s of %u B each), peak %+lld\n",
		(unsigned long long)s->glob.bh_alloc_total,
		(unsigned long long)s->glob.bh_freed, (long long)net,
		net < 0 ? "-" : "+",
		fmt_bytes(b, sizeof(b), (double)llabs(net) * info->bh_size),
		info->bh_size, (long long)s->bh_net_peak);
}

void callers_text(FILE *f, const struct run_info *info,
		  const struct summary *s, bool full)
{
	static struct callers_table t;

	if (!callers_known(info))
		return;
	if (info->buffer_head == 0) {
		fprintf(f, "\nbuffer_head callers: none (no buffer_heads in "
			"this kernel)\n");
		alive_text(f, info, s);
		return;
	}
	callers_tables(s, &t);
	chains_text(f, &t, full);
	if (s->glob.callers_lost)
		fprintf(f, "  %llu allocations lost: the callers map was full\n",
			(unsigned long long)s->glob.callers_lost);
	owners_text(f, &t);
	if (info->callers_detail[0])
		fprintf(f, "  (%s)\n", info->callers_detail);
	alive_text(f, info, s);
}

static void frames_json(struct json *j, const char *chain)
{
	const char *p = chain;
	char buf[128];

	json_arr_open(j, "frames");
	while (*p) {
		size_t n = strcspn(p, ";");

		snprintf(buf, sizeof(buf), "%.*s", (int)n, p);
		json_str(j, NULL, buf);
		p += n + (p[n] == ';');
	}
	json_arr_close(j);
}

static void chains_json(struct json *j, const struct callers_table *t)
{
	char name[96];

	json_arr_open(j, "chains");
	for (uint32_t i = 0; i < t->nr_chains; i++) {
		const char *c = callers_chain(t->chains[i].stack);

		json_obj_open(j, NULL);
		json_str(j, "name", callers_chain_name(c, name, sizeof(name)));
		json_u64(j, "count", t->chains[i].n);
		json_str(j, "chain", c);
		frames_json(j, c);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void owners_json(struct json *j, const struct callers_table *t)
{
	char dev[32];

	json_arr_open(j, "owners");
	for (uint32_t i = 0; i < t->nr_owners; i++) {
		const struct callers_owner_row *o = &t->owners[i];

		json_obj_open(j, NULL);
		json_str(j, "fs", o->o.fs);
		if (o->o.dev)
			json_str(j, "dev", fmt_dev(dev, sizeof(dev), o->o.dev));
		else
			json_null(j, "dev");
		json_str(j, "device", o->o.dev ? dev_name(o->o.dev, dev,
							    sizeof(dev)) : "?");
		json_str(j, "role", callers_role_name(o->o.role));
		json_u64(j, "count", o->n);
		for (uint32_t w = 0; w < NR_WHERE; w++)
			json_u64(j, callers_where_name(w), o->where[w]);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void alive_json(struct json *j, const struct run_info *info,
		       const struct summary *s)
{
	bool nobh = info->buffer_head == 0;
	bool known = figure_known(info, PATH_BH, FIG_CALLERS);
	int64_t net = nobh ? 0 : net_of(s);

	json_obj_open(j, "bh_alive");
	json_u64(j, "allocated", nobh ? 0 : s->glob.bh_alloc_total);
	/* the frees lost: nothing of the rest is known */
	if (known) {
		json_u64(j, "freed", nobh ? 0 : s->glob.bh_freed);
		json_i64(j, "net", net);
		json_i64(j, "net_bytes", net * (int64_t)info->bh_size);
		json_i64(j, "peak", nobh ? 0 : s->bh_net_peak);
	} else {
		json_null(j, "freed");
		json_null(j, "net");
		json_null(j, "net_bytes");
		json_null(j, "peak");
	}
	json_u64(j, "bh_size", info->bh_size);
	json_obj_close(j);
}

void callers_json(struct json *j, struct json_whys *w,
		  const struct run_info *info, const struct summary *s)
{
	static const char why[] = "not recorded: the run had no --callers";
	static struct callers_table t;

	if (!callers_known(info)) {
		json_null_why(j, w, "callers", why);
		json_null_why(j, w, "bh_alive", why);
		return;
	}
	callers_tables(s, &t);
	json_obj_open(j, "callers");
	json_u64(j, "total", t.total);
	json_u64(j, "lost", s->glob.callers_lost);
	json_str(j, "owners_mode", mode_name(info->callers_mode));
	chains_json(j, &t);
	owners_json(j, &t);
	json_obj_close(j);
	alive_json(j, info, s);
}

void callers_folded(FILE *f, const struct summary *s)
{
	static struct callers_table t;

	callers_tables(s, &t);
	for (uint32_t i = 0; i < t.nr_chains; i++)
		fprintf(f, "%s %llu\n", callers_chain(t.chains[i].stack),
			(unsigned long long)t.chains[i].n);
}

FILE *callers_folded_open(const char *path)
{
	FILE *f;

	if (!path)
		return NULL;
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "bhprof: %s: %s\n", path, strerror(errno));
	return f;
}

int callers_folded_close(FILE *f, const char *path, const struct summary *s)
{
	if (!f)
		return 0;
	if (s)
		callers_folded(f, s);
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "bhprof: %s: writing failed\n", path);
		return -1;
	}
	return 0;
}

void callers_any(const struct summary *s, struct path_summary *any)
{
	static struct callers_table t;

	any->bh_outside = s->glob.bh_alloc_none;
	any->bh_alive_peak = s->bh_net_peak;
	memset(any->bh_role, 0, sizeof(any->bh_role));
	callers_tables(s, &t);
	for (uint32_t i = 0; i < t.nr_owners; i++)
		if (t.owners[i].o.role <= ROLE_UNKNOWN)
			any->bh_role[t.owners[i].o.role] += t.owners[i].n;
}
