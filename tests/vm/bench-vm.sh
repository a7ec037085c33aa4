#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-vm: what each attach mode costs a writer, in the guest's
# instructions, on the 7.2 pair (bh and nobh). QEMU counts instructions
# (-icount shift=0, sleep=off: one virtual nanosecond each), so a
# guest's clock over a loop of write calls is the instructions it ran,
# the same from run to run as TCG's wall clock never is. The guest has
# one CPU, so nothing else's instructions land between a writer's calls
# but the kernel's own. Figures, not checks: make check does not run
# this. One line per mode and kernel:
#   vm-cost MODE KERNEL bare=N floor=N bhprof=N spread=P%
# N: instructions per 4 KiB write call (the least of VM_COST_ROUNDS
# rounds, 64 MiB each, to a raw NVMe disk): with no tracer, under the
# floor (bhprof's own programs on their attach points, each returning
# before its body: BHPROF_FLOOR=1) and under bhprof; spread: the
# largest difference between the rounds of any of the three, over
# their least.
#
# usage: tests/vm/bench-vm.sh [KERNEL_IMAGE...]  (default the 7.2 pair)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || set -- "$(kernels_dir)/bzImage-7.2-bh" "$(kernels_dir)/bzImage-7.2-nobh"
for k in "$@"; do
	[ -f "$k" ] || { echo "bench-vm: no kernel $k" >&2; exit 2; }
done

export BHPROF_VM_BUILD=$BUILD_DIR/bench
export VM_ICOUNT=1 VM_SMP=1 VM_COST_ROUNDS=${VM_COST_ROUNDS:-3} VM_COST_FLOOR=1
export VM_SCENARIOS=raw-buffered BHPROF_DEBIAN_KERNELS=none
"$VM_DIR/run-matrix.sh" "$@" > "$BUILD_DIR/bench.log" 2>&1 ||
	{ tail -n 20 "$BUILD_DIR/bench.log" >&2
	  echo "bench-vm: the guests failed (log: $BUILD_DIR/bench.log)" >&2
	  exit 1; }

# instructions per call of each round of MODE on kernel NAME, one a line
per_call() { # per_call NAME MODE
	for f in "$BHPROF_VM_BUILD/$1/results/cost/$2".*.json; do
		[ -f "$f" ] && grep -h '^{"op"' "$f" |
			jq -r '.write_s * 1e9 / .calls'
	done 2>/dev/null
}
rc=0
for k in "$@"; do
	name=$(kernel_suffix "$k")
	bare=$(per_call "$name" bare | sort -g)
	[ -n "$bare" ] || { echo "bench-vm: $name: no bare rounds" >&2; rc=1; continue; }
	for mode in fentry kprobe tracepoint; do
		runs=$(per_call "$name" "$mode" | sort -g)
		floor=$(per_call "$name" "floor-$mode" | sort -g)
		if [ -z "$runs" ] || [ -z "$floor" ]; then
			echo "vm-cost $mode $name: no rounds (the mode did not run)"
			rc=1
			continue
		fi
		# one "set value" line per round, each set sorted
		{ sed 's/^/b /' <<<"$bare"; sed 's/^/f /' <<<"$floor"
		  sed 's/^/r /' <<<"$runs"; } | awk -v m="$mode" -v k="$name" '
			!($1 in lo) || $2 < lo[$1] { lo[$1] = $2 }
			!($1 in hi) || $2 > hi[$1] { hi[$1] = $2 }
			END {
				for (s in lo)
					if ((hi[s] - lo[s]) / lo[s] > sp)
						sp = (hi[s] - lo[s]) / lo[s]
				printf "vm-cost %s %s bare=%.0f floor=%.0f bhprof=%.0f spread=%.1f%%\n",
					m, k, lo["b"], lo["f"], lo["r"], 100 * sp }'
	done
done
exit $rc
