#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Tracepoint mode's syscall stand-ins (issue 20): on the per-syscall
# events where tracefs has them, on raw_syscalls where it is asked to
# (BHPROF_RAW_SYSCALLS=1, as on a kernel without CONFIG_FTRACE_SYSCALLS).
# Both count the same writes, bytes and fsyncs of a dd to a loop device,
# against dd's own numbers and /proc/diskstats, and neither leaves a
# program loaded once bhprof has exited.
. "$(dirname "$0")/lib.sh"
need_root sysevents
command -v jq >/dev/null || { bad "sysevents: jq not installed"; finish; }
command -v bpftool >/dev/null || { bad "sysevents: bpftool not installed"; finish; }

new_loop 64 || { bad "sysevents: no loop device"; finish; }
name=$(basename "$LOOP")

# run TAG [ENV=...]: 1000 4 KiB writes then one fsync, under stat --json
run() {
	local tag=$1 before
	shift
	sync
	blockdev --flushbufs "$LOOP" 2>/dev/null
	before=$(diskstats_bytes "$LOOP")
	env "$@" "$BHPROF" stat --json --attach tracepoint -d "$name" -- \
		dd if=/dev/zero of="$LOOP" bs=4k count=1000 conv=fsync \
		status=none >"$WORK/$tag.json" 2>"$WORK/$tag.err"
	echo $? >"$WORK/$tag.rc"
	echo $(($(diskstats_bytes "$LOOP") - before)) >"$WORK/$tag.ds"
}

# bhprof's programs by id: those loaded after the run that were not
# before it (the suites run one at a time)
prog_ids() {
	bpftool prog show --json 2>/dev/null |
		jq -r '.[] | select(.name | test("^(tp|fe|fx|kp|kr)_")) | .id' | sort
}

"$BHPROF" probe --attach tracepoint --json >"$WORK/p.json" 2>/dev/null
detail=$(jq -r '.probes[] | select(.name == "write_blkdev") | .detail' "$WORK/p.json")
check "probe: writes on the per-syscall events ($detail)" \
	grep -q '^syscalls:sys_{enter,exit}_\* for write/pwrite64' <<<"$detail"
BHPROF_RAW_SYSCALLS=1 "$BHPROF" probe --attach tracepoint --json \
	>"$WORK/pr.json" 2>/dev/null
detail=$(jq -r '.probes[] | select(.name == "writeback_ctx") | .detail' "$WORK/pr.json")
check "probe, BHPROF_RAW_SYSCALLS=1: syncs on raw_syscalls ($detail)" \
	grep -q '^raw_syscalls:sys_{enter,exit} for fsync' <<<"$detail"

for mode in events raw; do
	closers_done
	prog_ids >"$WORK/ids.before"
	if [ $mode = raw ]; then
		run $mode BHPROF_RAW_SYSCALLS=1
	else
		run $mode
	fi
	# the kernel frees a program after a grace period: up to 2 s after
	# the closer has gone
	closers_done
	for _ in $(seq 20); do
		left=$(prog_ids | comm -13 "$WORK/ids.before" - | wc -l)
		[ "$left" = 0 ] && break
		sleep 0.1
	done
	j() { jq -r "$1" "$WORK/$mode.json"; }
	check "$mode: stat exits 0" [ "$(cat "$WORK/$mode.rc")" = 0 ]
	check "$mode: 1000 write calls ($(j .paths.bh.write.calls))" \
		[ "$(j .paths.bh.write.calls)" = 1000 ]
	check "$mode: 4096000 bytes written ($(j .paths.bh.write.bytes))" \
		[ "$(j .paths.bh.write.bytes)" = 4096000 ]
	b=$(j ".devices[] | select(.name == \"$name\") | .bio_bytes")
	check "$mode: bio bytes $b agree with diskstats $(cat "$WORK/$mode.ds")" \
		close_to "${b:-0}" "$(cat "$WORK/$mode.ds")" 1
	check "$mode: the fsync's writeback pages are the bh path's ($(j .paths.bh.writeback.pages))" \
		[ "$(j .paths.bh.writeback.pages)" -ge 1000 ]
	check "$mode: no bhprof program left loaded after exit ($left)" [ "$left" = 0 ]
done
finish
