// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What each probe ended up as, for probe, stat --json and the
 * recording: its mode, function, module and why.
 */
#include <stdio.h>
#include <string.h>
#include "attach_int.h"

/* read_folio and readahead: the tracepoint sees the pages they add */
static bool is_read_fn(enum probe_id id)
{
	return id >= PROBE_READ_BH_FOLIO && id <= PROBE_READ_IOMAP_RA;
}

#define READ_TP_PAGES \
	"filemap:mm_filemap_add_to_page_cache in a read syscall (pages)"
/* ext4's events where its module has no BTF (before 5.11) */
#define RAW_TP "raw_tp: no module BTF"

static const char *tp_fixed_detail(enum probe_id id,
				   const struct attach_plan *p)
{
	switch (id) {
	case PROBE_WB_BH:
	case PROBE_WB_MPAGE:
		return p->typed ? "writeback:wbc_writepage (pages only, typed)" :
				  "writeback:wbc_writepage (pages only)";
	case PROBE_WB_EXT4:
		return p->tp_raw[PROBE_PASS_EXT4] ?
			       "ext4:ext4_writepages_result (pages only, "
			       RAW_TP ")" :
			       "ext4:ext4_writepages_result (pages only)";
	case PROBE_WB_IOMAP:
		return p->iomap_tp_new ? "iomap:iomap_writeback_folio (pages only)" :
					 "iomap:iomap_writepage (pages only)";
	case PROBE_BH_ALLOC:
		return p->bh_cs_hi ? "kmem:kmem_cache_alloc (call site)" :
				     "kmem:kmem_cache_alloc (cache name)";
	case PROBE_BIO:
		return "block:block_bio_queue (tp_btf)";
	case PROBE_PASS_INODE:
		return "writeback:writeback_single_inode{_start,} (tp_btf)";
	case PROBE_PASS_EXT4:
		return p->tp_raw[id] ? "ext4:ext4_writepages{,_result} outside "
				       "a writeback_single_inode (" RAW_TP ")" :
				       "ext4:ext4_writepages{,_result} outside "
				       "a writeback_single_inode (tp_btf)";
	case PROBE_READ_IOMAP_FOLIO:
	case PROBE_READ_IOMAP_RA:
		if (p->read_tp_iomap && id == PROBE_READ_IOMAP_FOLIO)
			return "iomap:iomap_readpage (calls), " READ_TP_PAGES;
		if (p->read_tp_iomap)
			return "iomap:iomap_readahead (calls), " READ_TP_PAGES;
		/* fall through */
	default:
		/* tp_blind() probes never get here */
		return is_read_fn(id) ? "filemap:mm_filemap_add_to_page_cache "
					"in a read syscall (pages only)" : "";
	}
}

/* "typed": the probe's program is a typed twin (TYPED_AS) */
static void tp_detail(enum probe_id id, const struct attach_plan *p,
		      char *buf, size_t len)
{
	const char *ev = p->sys_events ? "syscalls:sys_{enter,exit}_*" :
					 "raw_syscalls:sys_{enter,exit}";
	bool typed = p->sys_events && p->typed;
	char names[128];

	switch (id) {
	case PROBE_WRITE_BLKDEV:
	case PROBE_WRITE_IOMAP:
	case PROBE_WRITE_GENERIC:
		sys_names(names, sizeof(names), 1u << BHP_SYS_WRITE);
		snprintf(buf, len, "%s for %s%s%s", ev, names,
			 typed ? " (typed)" : "",
			 id != PROBE_WRITE_IOMAP ? "" :
			 !p->write_tp_iomap ? " (no iomap_iter_dstmap or "
					      "iomap_apply_dstmap event: the "
					      "file's operations say iomap)" :
			 p->write_tp_iter && p->write_tp_apply ?
					     " + iomap:iomap_{iter,apply}_dstmap (the engine ran)" :
			 p->write_tp_iter ? " + iomap:iomap_iter_dstmap (the engine ran)" :
					    " + iomap:iomap_apply_dstmap (the engine ran)");
		return;
	case PROBE_WB_CTX:
		sys_names(names, sizeof(names),
			  1u << BHP_SYS_SYNC_FD | 1u << BHP_SYS_SYNC);
		snprintf(buf, len, "%s for %s%s + "
			 "writeback:writeback_single_inode", ev, names,
			 typed ? " (typed)" : "");
		return;
	case PROBE_READ_BLKDEV:
		sys_names(names, sizeof(names), 1u << BHP_SYS_READ);
		snprintf(buf, len, "%s for %s (context only%s)", ev, names,
			 typed ? ", typed" : "");
		return;
	default:
		snprintf(buf, len, "%s", tp_fixed_detail(id, p));
	}
}

/* Probes that the tracepoint stand-ins of their group cannot see: in
 * tracepoint mode they run in no mode at all. */
static bool tp_blind(enum probe_id id, const struct attach_plan *p)
{
	if (id == PROBE_DIO_FALLBACK)
		return true;
	return is_read_fn(id) && !p->read_tp_pages;
}

/* the refusal that cost the group flavour f (0 fentry, 1 kprobe), for a
 * probe whose own function was not refused in it */
static const char *fell_of(const struct attach_plan *p, enum probe_id id, int f)
{
	const char *fell = p->fell[probe_group_of(id)][f];
	char own[16];

	snprintf(own, sizeof(own), "%s on ", f ? "kprobe" : "fentry");
	return fell[0] && !strstr(p->pwhy[id], own) ? fell : "";
}

/* "what it runs as; its own function's refusals; its group's" */
static void detail_of(enum probe_id id, const struct attach_plan *p,
		      const char *head, char *buf, size_t len)
{
	enum bhp_group g = probe_group_of(id);
	const char *parts[] = { head, p->pwhy[id], fell_of(p, id, 0),
				fell_of(p, id, 1), p->why[g] };
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(parts) && n < len; i++)
		if (parts[i][0])
			n += snprintf(buf + n, len - n, "%s%s%s", n ? "; " : "",
				      i == 2 || i == 3 ? "group: " : "",
				      parts[i]);
}

static void fill_state(const struct attach_plan *p, enum probe_id id,
		       struct probe_state *st)
{
	enum bhp_group g = probe_group_of(id);
	char head[256] = "";

	st->mode = p->absent[id] ? MODE_NONE : probe_mode(p, id);
	st->failed = !p->absent[id] && p->failed[g];
	if (st->mode == MODE_TRACEPOINT && tp_blind(id, p)) {
		st->mode = MODE_NONE;
		snprintf(head, sizeof(head), "no tracepoint sees it");
	}
	if (st->failed) {
		snprintf(st->detail, sizeof(st->detail), "%s", p->fail_why[g]);
		return;
	}
	if (p->absent[id]) {
		snprintf(st->detail, sizeof(st->detail), "not in this kernel");
		return;
	}
	if (st->mode == MODE_TRACEPOINT)
		tp_detail(id, p, head, sizeof(head));
	else if (st->mode == MODE_KPROBE)
		snprintf(head, sizeof(head), "%s", p->ksym[id]);
	else if (st->mode == MODE_FENTRY)
		snprintf(head, sizeof(head), "%s", p->func[id]);
	detail_of(id, p, head, st->detail, sizeof(st->detail));
	if (!st->detail[0])
		snprintf(st->detail, sizeof(st->detail), "not attached");
}

void fill_states(const struct attach_plan *p, struct run_info *info)
{
	for (int id = 0; id < NR_PROBES; id++)
		fill_state(p, id, &info->probes[id]);
}
