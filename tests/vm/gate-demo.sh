#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bhprof gate end to end, as a kernel CI job would run it (docs/ci.md
# shows this file verbatim). Boots the baseline kernel (6.12-bh, with
# buffer heads) and the candidate (6.12-nobh, without) under QEMU, records
# the same raw block-device write GATE_RUNS times on each, boots the
# baseline a second time for fresh runs of the same kernel, and gates:
#   nobh-vs-bh   candidate nobh, baseline bh: dropping buffer heads
#   bh-vs-nobh   candidate bh, baseline nobh: bringing them back
#   bh2-vs-bh    A/A: the second boot of 6.12-bh against the first
# Recordings go to tests/vm/build/gate/{bh,nobh,bh2}/run-N.bhp. Each gate
# leaves NAME.txt (the table), NAME.json, NAME.xml (JUnit), NAME.ktap and
# NAME.rc (its exit status for the three forms) in tests/vm/build/gate/.
# tests/vm/test_gate_demo.sh asserts what each gate must decide.
#
# usage: tests/vm/gate-demo.sh
# environment:
#   BHPROF_BIN          the static bhprof (default .output/bhprof-static,
#                       built with `make static` when unset)
#   GATE_BASELINE, GATE_CANDIDATE  kernel images (default bzImage-6.12-bh
#                       and bzImage-6.12-nobh in the kernels folder)
#   GATE_RUNS           recordings per boot (default 6)
#   VM_TIMEOUT          seconds before a guest is killed (default 300)
# Exit status: 0 when all three gates ran, whatever they decided; 2 when
# a tool, a kernel or a recording is missing.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

G=$BUILD_DIR/gate
runs=${GATE_RUNS:-6}
base_img=${GATE_BASELINE:-$(kernels_dir)/bzImage-6.12-bh}
cand_img=${GATE_CANDIDATE:-$(kernels_dir)/bzImage-6.12-nobh}

# The rules, one per figure that tells the two write paths apart. `any`
# takes the workload's figures whichever path carried them: on the nobh
# kernel the block device writes through iomap, not buffer_head, so a
# bh.* rule would compare against nothing.
rules=(--rule "any.bio.size.p50 >= -5%"		# bios no more than 5% smaller
       --rule "any.bios_per_mib <= +5%"		# no more than 5% more bios
       --rule "any.bh_alloc_per_mib <= +0%")	# not one more buffer_head

# The workload of every run (tests/vm/writer.c's options): 16 MiB to the
# raw NVMe namespace in 1 MiB buffered writes, then fsync.
export VM_JOB=gate-record VM_GATE_RUNS=$runs VM_GATE_WRITE="-s 1m -t 16m"
export VM_TIMEOUT=${VM_TIMEOUT:-300}

mkdir -p "$BUILD_DIR"
# one QEMU job per build folder: the matrix shares the vmwriter and disks
exec 9> "$BUILD_DIR/.lock"
flock -n 9 || { note "$BUILD_DIR/.lock is held: waiting"; flock 9; }
t_start=$(date +%s)

msg=$(vm_preflight) || die "$msg"
for k in "$base_img" "$cand_img"; do
	[ -f "$k" ] || die "kernel image $k not found"
	kernel_config "$k" >/dev/null || die "no config beside $k"
done
if [ -z "${BHPROF_BIN:-}" ]; then
	make -C "$REPO_ROOT" -s static >"$BUILD_DIR/make-static.log" 2>&1 ||
		die "make static failed: see $BUILD_DIR/make-static.log"
fi
BHPROF=${BHPROF_BIN:-$REPO_ROOT/.output/bhprof-static}
[ -x "$BHPROF" ] || die "no static bhprof at $BHPROF"
export BHPROF_BIN=$BHPROF
build_vmwriter || die "cannot build the static vmwriter (libc6-dev)"

rm -rf "$G"
mkdir -p "$G"

# start LABEL IMAGE: one guest in the background, its pid in $pid
start() {
	"$VM_DIR/run-kernel.sh" "$2" "$G/boot-$1" > "$G/boot-$1.log" 2>&1 &
	pid=$!
}

# collect LABEL IMAGE: the guest's good recordings, into $G/LABEL/
collect() {
	local out=$G/boot-$1 f
	note "$1 ($(kernel_suffix "$2")): $(cat "$out/status" 2>/dev/null)" \
	     "in $(cat "$out/elapsed" 2>/dev/null)s"
	mkdir -p "$G/$1"
	for f in "$out"/results/gate/run-*.bhp; do
		[ -f "$f" ] && [ "$(cat "${f%.bhp}.rc")" = 0 ] && cp "$f" "$G/$1/"
	done
}

# Two guests at a time (2 cores): the two kernels, then the second boot
# of the baseline. run-kernel.sh stops its qemu on TERM.
pids=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait; die "interrupted"' INT TERM HUP
note "booting $(kernel_suffix "$base_img") and $(kernel_suffix "$cand_img")," \
     "$runs recordings each"
start bh "$base_img"; pids=($pid)
start nobh "$cand_img"; pids+=($pid)
wait "${pids[@]}"
collect bh "$base_img"
collect nobh "$cand_img"
note "booting $(kernel_suffix "$base_img") again for the A/A gate"
start bh2 "$base_img"; pids=($pid)
wait "${pids[@]}"
collect bh2 "$base_img"
trap - INT TERM HUP

for label in bh nobh bh2; do
	n=$(find "$G/$label" -name 'run-*.bhp' | wc -l)
	[ "$n" -eq "$runs" ] ||
		die "$label: $n of $runs recordings (see $G/boot-$label/console.log)"
done

# gate NAME BASELINE CANDIDATE: one gate in every form a CI server may
# read; NAME.rc holds the exit status of each (0 pass, 1 regression,
# 2 unusable input), which must agree
gate() {
	local name=$1 args rc_table rc_json rc_ktap
	args=(--baseline "$G/$2"/run-*.bhp --candidate "$G/$3"/run-*.bhp "${rules[@]}")
	echo
	echo "== $name: bhprof gate --baseline $2/*.bhp --candidate $3/*.bhp"
	"$BHPROF" gate "${args[@]}" --junit "$G/$name.xml" | tee "$G/$name.txt"
	rc_table=${PIPESTATUS[0]}
	"$BHPROF" gate "${args[@]}" --json > "$G/$name.json"
	rc_json=$?
	"$BHPROF" gate "${args[@]}" --ktap > "$G/$name.ktap"
	rc_ktap=$?
	echo "$rc_table $rc_json $rc_ktap" > "$G/$name.rc"
	echo "== $name: exit status $rc_table"
}

gate nobh-vs-bh bh nobh
gate bh-vs-nobh nobh bh
gate bh2-vs-bh bh bh2
note "gate demo: $(( $(date +%s) - t_start ))s"
