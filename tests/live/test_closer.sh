#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bhprof's exit does not wait for the kernel's grace periods: the last
# close of its perf events and their links is a grandchild's,
# bhprof-closer, which keeps those alone (the events disabled: their
# programs run no more), nothing else of bhprof's (no map, file, socket
# or terminal), and is gone soon after, and its programs with it. How long bhprof takes to exit is a figure of make bench,
# not asserted here.
. "$(dirname "$0")/lib.sh"
need_root closer
command -v bpftool >/dev/null || { bad "closer: bpftool not installed"; finish; }
command -v jq >/dev/null || { bad "closer: jq not installed"; finish; }

# bhprof's programs on the machine, by id: an earlier suite's programs
# may still wait for the kernel's grace period and go while this runs,
# so the test follows the ids that are new, not a count
prog_ids() {
	bpftool prog show --json 2>/dev/null |
		jq -r '.[] | select(.name | test("^(tp|fe|fx|kp|kr)_")) | .id' | sort
}
# how many programs there are now that were not there before
progs() { comm -13 "$WORK/base.ids" <(prog_ids) | wc -l; }
closers_done || { bad "closer: an earlier closer is still there after 10 s"; finish; }
prog_ids >"$WORK/base.ids"
base=0

# the closer holds on for 3 s (a test knob) so that what it keeps can
# be looked at; it closes them as soon as it can otherwise
BHPROF_CLOSER_HOLD_MS=3000 "$BHPROF" stat --json --duration 0.2 \
	>"$WORK/s.json" 2>"$WORK/err"
rc=$?
held=$(progs)
pids=$(pgrep -x bhprof-closer)
whole=$([ $rc = 0 ] && jq -e '.paths.bh.write and .paths.iomap.write' "$WORK/s.json" >/dev/null && echo y)
check "stat: exit 0, a whole summary (rc $rc)" [ "$whole" = y ]
check "after bhprof's exit the closer holds its programs ($held held)" \
	[ "$held" -gt "$base" ]
# the programs on tracepoints' perf events run while the events are
# there; those the closer keeps are the syscall stand-ins, told that no
# syscall is watched: they count nothing more. They are read from the
# closer's own perf events: bhprof's other programs may still be listed
# for a grace period after their links closed, held by no one.
bpftool prog show --json >"$WORK/progs.json" 2>/dev/null
kept=$(bpftool perf show --json 2>/dev/null |
	jq -r --arg pids "$pids" --slurpfile progs "$WORK/progs.json" \
	'($pids | split("\n") | map(tonumber? // empty)) as $p |
	 [.[] | select(.pid as $x | $p | index($x)) | .prog_id] as $ids |
	 [$progs[0][] | select(.id as $i | $ids | index($i)) | .name] |
	 unique | join(" ")')
stand_ins_only() {
	[ -n "$1" ] && ! tr ' ' '\n' <<<"$1" |
		grep -q -v '^tp_sysev_\|^tp_sys_\|^tp_write_\|^tp_read_\|^tp_sync_'
}
check "... only the syscall stand-ins, which count nothing more (${kept:-none})" \
	stand_ins_only "$kept"
n=0
kinds=""
for p in $pids; do
	for f in /proc/$p/fd/*; do
		t=$(readlink "$f" 2>/dev/null) || continue
		n=$((n + 1))
		case $t in
		"anon_inode:[perf_event]"|anon_inode:bpf_link) ;;
		*) kinds="$kinds $t" ;;
		esac
	done
done
echo "     closers: ${pids:-none}, $n fds open"
check "a closer holds perf events and links alone${kinds:+ (also:$kinds)}" [ -z "$kinds" ]
check "the closer is gone within 10 s" closers_done
# the kernel frees a program a grace period after its last reference
for i in $(seq 50); do [ "$(progs)" = "$base" ] && break; sleep 0.1; done
check "then bhprof's programs are gone ($(progs) left)" \
	[ "$(progs)" = "$base" ]
finish
