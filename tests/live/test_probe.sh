#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bhprof probe on this kernel, which refuses fentry and kprobes (issue
# 21): each probe's detail names its own function and its own refusals,
# a probe no tracepoint sees runs in mode "none", and the table fits a
# 100-column terminal with the whole chain under -v. The functions it
# names are checked against /proc/kallsyms.
. "$(dirname "$0")/lib.sh"
need_root probe

command -v jq >/dev/null || { bad "probe: jq not installed"; finish; }

"$BHPROF" probe >"$WORK/p.txt" 2>"$WORK/p.err"
check "probe: exit 0" [ $? = 0 ]
"$BHPROF" probe -v >"$WORK/pv.txt" 2>/dev/null
"$BHPROF" probe --json >"$WORK/p.json" 2>/dev/null
check "probe --json: parses" jq -e .probes "$WORK/p.json" >/dev/null
j() { jq -r "$1" "$WORK/p.json"; }

wide=$(awk '{ if (length > m) m = length } END { print m + 0 }' "$WORK/p.txt")
check "probe: every line fits 100 columns (widest $wide)" [ "$wide" -le 100 ]
wide=$(awk '{ if (length > m) m = length } END { print m + 0 }' "$WORK/pv.txt")
check "probe -v: every line fits 100 columns too (widest $wide)" [ "$wide" -le 100 ]
check "probe -v: more lines than probe: every step" \
	[ "$(wc -l <"$WORK/pv.txt")" -gt $(($(wc -l <"$WORK/p.txt") + 19)) ]

# each "<mode> on FUNC:" in a detail names the probe's own function
# (a step of its group's reads "group: ...")
others=$(j '[.probes[] | . as $p | .detail | split("; ")[] |
	select(startswith("group: ") | not) |
	capture("^(fentry|kprobe) on (?<f>[A-Za-z0-9_.]+):")? |
	select(.f != $p.func) | "\($p.name): \(.f)"] | join(", ")')
check "json: each detail names only its own function${others:+ ($others)}" [ -z "$others" ]
for name in write_iomap write_generic writeback_iomap read_ext4_ra; do
	func=$(j ".probes[] | select(.name == \"$name\") | .func")
	mode=$(j ".probes[] | select(.name == \"$name\") | .mode")
	case $mode in
	fentry) check "json: $name runs on its own function $func" \
			[ "$(j ".probes[] | select(.name == \"$name\") | .detail")" = "$func" ] ;;
	*) check "json: $name ($mode) names the refusal of $func" \
		grep -q "fentry on $func: " <<<"$(j ".probes[] | select(.name == \"$name\") | .detail")" ;;
	esac
done

# a function bhprof resolved is one the kernel has (kallsyms, as root)
missing=
for f in $(j '.probes[] | select(.mode != "absent" and .name != "bio") | .func'); do
	grep -qE " [tTwW] $f(\.[a-z0-9.]+)?$" /proc/kallsyms || missing="$missing $f"
done
check "kallsyms has every function probed${missing:+ (not:$missing)}" [ -z "$missing" ]

# no mode a probe does not run in
bad_modes=$(j '[.probes[] | select(.mode == "tracepoint" and (.detail | test("not visible|no tracepoint sees"))) | .name] | join(" ")')
check "json: no probe in mode tracepoint that tracepoints cannot see${bad_modes:+ ($bad_modes)}" [ -z "$bad_modes" ]
if [ "$(j '.probes[] | select(.name == "write_blkdev") | .mode')" = tracepoint ]; then
	check "tracepoint mode: dio_fallback has mode none" \
		[ "$(j '.probes[] | select(.name == "dio_fallback") | .mode')" = none ]
	check "tracepoint mode: page_mkwrite probes have mode none" \
		[ "$(j '[.probes[] | select(.name | startswith("mkwrite")) | .mode] | unique | join(" ")')" = none ]
	check "text: dio_fallback reads none" \
		grep -qE '^dio_fallback +direct_write_fallback +none ' "$WORK/p.txt"
fi

# A kernel that makes no kprobes (no kprobe PMU, no kprobe_events: this
# host's CONFIG_KPROBES is off) is known before any program loads: auto
# goes to the tracepoints with the reason, and --attach kprobe is one
# line. Where kprobes exist, no probe may claim otherwise.
if [ -e /sys/bus/event_source/devices/kprobe/type ] ||
   [ -e /sys/kernel/tracing/kprobe_events ] ||
   [ -e /sys/kernel/debug/tracing/kprobe_events ]; then
	check "kprobes exist here: no probe says the kernel makes none" \
		[ -z "$(j '.probes[] | select(.detail | test("makes no kprobes")) | .name')" ]
else
	check "no kprobes here: write_blkdev on tracepoints, and says why" \
		[ "$(j '.probes[] | select(.name == "write_blkdev") | .mode + " " + (.detail | test("kprobe on blkdev_write_iter: this kernel makes no kprobes") | tostring)')" = "tracepoint true" ]
	"$BHPROF" stat --attach kprobe --duration 0.1 >/dev/null 2>"$WORK/kp.err"
	rc=$?
	check "no kprobes here: --attach kprobe exits 1 with one line ($(head -c 200 "$WORK/kp.err"))" \
		[ $rc = 1 ] && [ "$(wc -l <"$WORK/kp.err")" = 1 ] &&
		grep -q -- "--attach=kprobe: this kernel makes no kprobes" "$WORK/kp.err"
fi

# stat --json carries the same per-probe detail
"$BHPROF" stat --json --duration 0.2 >"$WORK/s.json" 2>/dev/null
check "stat --json: the same probes, modes and details as probe --json" \
	[ "$(jq -c '[.probes[] | [.name, .mode, .detail]]' "$WORK/s.json")" = \
	  "$(jq -c '[.probes[] | [.name, .mode, .detail]]' "$WORK/p.json")" ]

finish
