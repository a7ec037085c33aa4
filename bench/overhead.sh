#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What bhprof costs a write workload: the same fio job on a loop device,
# bare and under `bhprof stat`, alternated ROUNDS times; prints fio's own
# bandwidth for each (median), the slowdown, and bhprof's own account of
# its programs (runs, ns per run) from the kernel's BPF statistics.
# A benchmark that prints figures, not a pass/fail test. Needs root.
set -u
BHPROF=${BHPROF:-$(cd "$(dirname "$0")/.." && pwd)/bhprof}
ROUNDS=${ROUNDS:-5}
SIZE=${SIZE:-256M}
BS=${BS:-4k}
work=$(mktemp -d /tmp/bhprof-overhead.XXXXXX)
img=$work/disk
truncate -s 1G "$img"
dev=$(losetup -f --show "$img") || exit 1
trap 'losetup -d "$dev"; rm -rf "$work"' EXIT

job() { # prints fio's write bandwidth in KiB/s
	fio --name=w --filename="$dev" --rw=write --bs="$BS" --size="$SIZE" \
		--ioengine=psync --end_fsync=1 --output-format=json \
		--output="$work/fio.json" >/dev/null 2>&1
	jq '.jobs[0].write.bw' "$work/fio.json"
}

# the loop device's backing file is sparse: allocate it once, so no round
# pays for that
dd if=/dev/zero of="$dev" bs=1M count=1024 conv=fsync status=none

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

: >"$work/bare"
: >"$work/traced"
for _ in $(seq "$ROUNDS"); do
	job >>"$work/bare"
	"$BHPROF" stat --json -d "$(basename "$dev")" -- bash -c \
		"$(declare -f job); dev=$dev BS=$BS SIZE=$SIZE work=$work job >/dev/null" \
		>"$work/stat.json" 2>/dev/null
	jq '.jobs[0].write.bw' "$work/fio.json" >>"$work/traced"
done
bare=$(median <"$work/bare")
traced=$(median <"$work/traced")
echo "fio $SIZE in $BS psync writes to $(basename "$dev"), $ROUNDS rounds, median:"
echo "  bare:          $bare KiB/s"
echo "  under bhprof:  $traced KiB/s"
awk -v b="$bare" -v t="$traced" 'BEGIN {
	printf "  slowdown:      %.1f%%\n", (b - t) * 100 / b }'
jq -r '"  attach:        \(.attach.write_blkdev)",
	(.overhead | "  bhprof runs:   \(.runs) program runs, " +
	 "\(.ns_per_run // 0 | floor) ns each, \(.run_ns / 1e6 | floor) ms in all")' \
	"$work/stat.json"
