// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The other group in text and JSON: writes to files on neither path,
 * their writeback, and the bios no path claims. It has counts alone (no
 * latency, no sizes), so it stands beside the table of the two paths
 * rather than in it; /metrics gives its counts the label path="other".
 */
#include "util/array.h"
#include "other.h"

/* its parts, each a count and an amount, in text and JSON alike */
static const struct other_row {
	const char *json, *label;
	enum other_part part;
	size_t calls, amount;
	const char *count_key, *amount_key;
	enum figure_unit unit;
	const char *suffix;	/* the text's, after a known amount */
} other_rows[] = {
	{ "write", "write calls", OTHER_WRITE,
	  offsetof(struct bhp_path_stats, write_calls),
	  offsetof(struct bhp_path_stats, write_bytes), "calls", "bytes",
	  U_BYTES, "" },
	{ "dio", "direct calls", OTHER_WRITE,
	  offsetof(struct bhp_path_stats, dio_calls),
	  offsetof(struct bhp_path_stats, dio_bytes), "calls", "bytes",
	  U_BYTES, "" },
	{ "writeback", "writeback calls", OTHER_WB,
	  offsetof(struct bhp_path_stats, wb_calls),
	  offsetof(struct bhp_path_stats, wb_pages), "calls", "pages",
	  U_COUNT, " pages" },
	{ "bio", "bios", OTHER_BIOS,
	  offsetof(struct bhp_path_stats, bio_count),
	  offsetof(struct bhp_path_stats, bio_bytes), "count", "bytes",
	  U_BYTES, "" },
};

static uint64_t field(const struct bhp_path_stats *o, size_t off)
{
	return *(const uint64_t *)((const char *)o + off);
}

void other_text(FILE *f, const struct run_info *info,
		const struct bhp_path_stats *o)
{
	char a[32], b[32];

	if (!(info->features & RUN_F_OTHER))
		return;
	fprintf(f, "\nother (files on neither path, bios no path claims):\n");
	for (size_t i = 0; i < ARRAY_SIZE(other_rows); i++) {
		const struct other_row *r = &other_rows[i];
		const char *why = other_why(info, r->part);

		fprintf(f, "%-24s %18s %18s%s\n", r->label,
			cell(a, sizeof(a), U_COUNT, field(o, r->calls), why),
			cell(b, sizeof(b), r->unit, field(o, r->amount), why),
			why ? "" : r->suffix);
	}
	fprintf(f, "other write calls: %s\n", info->other_detail);
}

void other_json(struct json *j, struct json_whys *w,
		const struct run_info *info, const struct bhp_path_stats *o)
{
	const char *obj = w->obj;

	w->obj = NULL;
	if (!(info->features & RUN_F_OTHER)) {
		json_null_why(j, w, "other", why_text("unrecorded"));
		w->obj = obj;
		return;
	}
	json_obj_open(j, "other");
	w->obj = "other";
	for (size_t i = 0; i < ARRAY_SIZE(other_rows); i++) {
		const struct other_row *r = &other_rows[i];
		const char *why = other_why(info, r->part);

		if (json_null_why(j, w, r->json, why_text(why)))
			continue;
		json_obj_open(j, r->json);
		json_u64(j, r->count_key, field(o, r->calls));
		json_u64(j, r->amount_key, field(o, r->amount));
		json_obj_close(j);
	}
	json_str(j, "write_source", info->other_detail);
	json_obj_close(j);
	w->obj = obj;
}
