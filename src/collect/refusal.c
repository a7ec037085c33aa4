// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Why the kernel refused a program, in words a person can act on: the
 * helper, kfunc or field this kernel lacks and, where it is known, the
 * release that brought it; else the verifier's own last word, never its
 * closing statistics.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "refusal.h"
#include "util/array.h"

/* the helpers bhprof's programs call that older kernels lack, by the
 * number the verifier names them with when it knows no name */
static const struct helper {
	int id;
	const char *name;
	const char *since;
} helpers[] = {
	{ 113, "bpf_probe_read_kernel", "5.5" },
	{ 115, "bpf_probe_read_kernel_str", "5.5" },
	{ 158, "bpf_get_current_task_btf", "5.11" },
	{ 183, "bpf_get_func_arg", "5.17" },
	{ 184, "bpf_get_func_ret", "5.17" },
};

static const struct since {
	const char *name;
	const char *since;
} kfuncs[] = {
	{ "bpf_rdonly_cast", "6.2" },
}, types[] = {
	/* "mm: Introduce struct folio" */
	{ "struct folio", "5.16" },
};

static const char *since_of(const struct since *t, size_t n, const char *name,
			    size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(t[i].name) == len && !strncmp(t[i].name, name, len))
			return t[i].since;
	return NULL;
}

/* the verifier's closing statistics, which say nothing of why */
static bool stats_line(const char *line, size_t n)
{
	static const char *const stats[] = { "processed ", "verification time",
					     "stack depth", "insn_stack" };

	for (size_t i = 0; i < ARRAY_SIZE(stats); i++)
		if (n >= strlen(stats[i]) && !strncmp(line, stats[i],
						      strlen(stats[i])))
			return true;
	return false;
}

/*
 * The verifier's last line that is not a statistic ("R8 invalid mem
 * access 'trusted_ptr_or_null_'"), read backwards from the log's end.
 */
static bool verifier_word(const char *text, const char *end, char *buf,
			  size_t len)
{
	while (end > text) {
		const char *line = end;

		while (line > text && line[-1] == '\n')
			line--;
		end = line;
		while (line > text && line[-1] != '\n')
			line--;
		if (end == line)
			return false;
		if (!stats_line(line, end - line)) {
			snprintf(buf, len, "verifier: %.*s", (int)(end - line),
				 line);
			return true;
		}
		end = line;
	}
	return false;
}

/*
 * The field CO-RE could not find ("failed to resolve CO-RE relocation
 * <byte_off> [12] struct page.compound_head (0:1 @ offset 8)"), and when
 * its type came, where that is known.
 */
static bool core_field(const char *log, char *buf, size_t len)
{
	static const char core[] = "failed to resolve CO-RE relocation ";
	const char *p = strstr(log, core), *end, *spec, *dot, *since;
	size_t n;

	if (!p)
		return false;
	p += sizeof(core) - 1;
	spec = strstr(p, "] ");
	spec = spec && spec < p + strcspn(p, "\n") ? spec + 2 : p;
	end = strstr(spec, " (");
	if (!end || end > spec + strcspn(spec, "\n"))
		end = spec + strcspn(spec, "\n");
	dot = memchr(spec, '.', end - spec);
	n = (dot ? dot : end) - spec;
	since = since_of(types, ARRAY_SIZE(types), spec, n);
	if (since)
		snprintf(buf, len, "CO-RE: no %.*s in this kernel's BTF (%.*s "
			 "came in Linux %s)", (int)(end - spec), spec, (int)n,
			 spec, since);
	else
		snprintf(buf, len, "CO-RE: no %.*s in this kernel's BTF",
			 (int)(end - spec), spec);
	return true;
}

/*
 * A helper the verifier does not know ("invalid func unknown#183": 5.10
 * names none past its own), or one it will not give this kind of
 * program ("unknown func bpf_get_func_arg#183").
 */
static bool helper(const char *log, char *buf, size_t len)
{
	const char *p = strstr(log, "invalid func unknown#");
	const char *q = strstr(log, "unknown func bpf_");
	int id;

	if (p) {
		id = atoi(p + strlen("invalid func unknown#"));
		/* libbpf's stand-in for a relocation it could not make */
		if (id == 0xbad2310) {
			snprintf(buf, len, "CO-RE: a field or type this "
				 "kernel's BTF lacks");
			return true;
		}
		for (size_t i = 0; i < ARRAY_SIZE(helpers); i++) {
			if (helpers[i].id != id)
				continue;
			snprintf(buf, len, "the kernel lacks the BPF helper %s "
				 "(Linux %s)", helpers[i].name, helpers[i].since);
			return true;
		}
		snprintf(buf, len, "the kernel lacks BPF helper #%d, newer "
			 "than it", id);
		return true;
	}
	if (q) {
		q += strlen("unknown func ");
		snprintf(buf, len, "the kernel does not give %.*s to this kind "
			 "of program", (int)strcspn(q, "#\n"), q);
		return true;
	}
	return false;
}

/*
 * What the verifier says of an instruction or an event it does not know,
 * as the feature and the release that brought it: BPF_ATOMIC's fetching
 * operations before 5.12 fail its first pass ("BPF_STX uses reserved
 * fields"), and an event's arguments changed shape ("func
 * 'kmem_cache_free' doesn't have 3-th argument").
 */
static bool verifier_feature(const char *log, char *buf, size_t len)
{
	const char *p = strstr(log, "func '");

	if (strstr(log, "BPF_STX uses reserved fields") ||
	    strstr(log, "BPF_XADD uses reserved fields")) {
		snprintf(buf, len, "the kernel's verifier lacks BPF atomics "
			 "with fetch (cmpxchg, fetch-and-add: Linux 5.12)");
		return true;
	}
	if (p && strstr(p, "doesn't have ") &&
	    strstr(p, "doesn't have ") < p + strcspn(p, "\n")) {
		p += strlen("func '");
		snprintf(buf, len, "this kernel's %.*s has fewer arguments "
			 "than the program was built for",
			 (int)strcspn(p, "'\n"), p);
		return true;
	}
	return false;
}

/* libbpf's "extern (func ksym) 'bpf_rdonly_cast': not found in kernel
 * or module BTFs" */
static bool kfunc(const char *log, char *buf, size_t len)
{
	static const char ext[] = "extern (func ksym) '";
	const char *p = strstr(log, ext), *since;
	size_t n;

	if (!p || !strstr(p, "not found"))
		return false;
	p += sizeof(ext) - 1;
	n = strcspn(p, "'\n");
	since = since_of(kfuncs, ARRAY_SIZE(kfuncs), p, n);
	if (since)
		snprintf(buf, len, "the kernel lacks the kfunc %.*s (Linux %s)",
			 (int)n, p, since);
	else
		snprintf(buf, len, "the kernel lacks the kfunc %.*s", (int)n, p);
	return true;
}

const char *refusal_text(const char *log, const char *errtext, char *buf,
			 size_t len)
{
	const char *end = strstr(log, "-- END PROG LOAD LOG --");

	if (core_field(log, buf, len) || kfunc(log, buf, len) ||
	    helper(log, buf, len) || verifier_feature(log, buf, len))
		return buf;
	if (end && verifier_word(log, end, buf, len))
		return buf;
	snprintf(buf, len, "%s", errtext);
	return buf;
}
