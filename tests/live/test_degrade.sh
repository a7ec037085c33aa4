#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A kernel change must cost only what depends on it. Test-only builds
# (make faults) carry a BPF object in which one probe group reads a field
# no kernel has, as 7.2's renamed page->compound_head did: bhprof must
# load the rest, say once which group was lost and why, mark its figures
# failed (probe, JSON, record file, report, diff), and every other figure
# must still agree with /proc/diskstats. A forced --attach mode and a
# kernel where nothing loads stay fatal, in one line.
. "$(dirname "$0")/lib.sh"
need_root degrade

OUT=$(cd "$(dirname "$0")/../.." && pwd)/.output
F_WRITE=$OUT/fault-write/bhprof
F_BIO=$OUT/fault-bio/bhprof
F_ALL=$OUT/fault-all/bhprof
F_PASS=$OUT/fault-pass/bhprof
F_IOREAD=$OUT/fault-iomapread/bhprof
F_TYPED=$OUT/fault-typed/bhprof
F_PATHS=$OUT/fault-paths/bhprof
for b in "$F_WRITE" "$F_BIO" "$F_ALL" "$F_PASS" "$F_IOREAD" "$F_TYPED" "$F_PATHS"; do
	[ -x "$b" ] || { bad "$b not built (make faults)"; finish; }
done

MIB=16
BYTES=$((MIB * 1048576))
j() { jq -r "$1" "$WORK/out.json"; }

# stat_run BIN DEV CMD...: JSON in $WORK/out.json, stderr in $WORK/err,
# the diskstats delta over the same window in $DS
stat_run() {
	local bin=$1 dev=$2 before rc
	shift 2
	sync
	blockdev --flushbufs "$dev" 2>/dev/null
	before=$(diskstats_bytes "$dev")
	"$bin" stat --json -d "$(basename "$dev")" -- "$@" \
		>"$WORK/out.json" 2>"$WORK/err"
	rc=$?
	DS=$(($(diskstats_bytes "$dev") - before))
	return $rc
}

new_loop 128 || { bad "losetup"; finish; }
DEV=$LOOP
NAME=$(basename "$DEV")
DD=(dd if=/dev/zero of="$DEV" bs=1M count=$MIB conv=fsync status=none)

# --- the write group lost: bios, bh and writeback pages still count
stat_run "$F_WRITE" "$DEV" "${DD[@]}"
check "write lost: stat still runs (rc 0)" [ $? = 0 ]
echo "     stderr: $(cat "$WORK/err")"
check "write lost: one line on stderr" [ "$(wc -l <"$WORK/err")" = 1 ]
check "write lost: the line names the group and the kernel's reason" \
	grep -q "lost the write probes.*CO-RE: no struct task_struct___bhprof_fault.bhprof_no_such_field" "$WORK/err"
check "write lost: attach says failed" \
	[ "$(j '[.attach.write_blkdev, .attach.write_iomap, .attach.write_generic] | unique | .[]')" = failed ]
check "write lost: the other groups still attach" \
	[ "$(j '[.attach.writeback_ctx, .attach.bh_alloc, .attach.bio] | map(select(. == "failed")) | length')" = 0 ]
check "write lost: the probe's detail carries the reason" \
	grep -q bhprof_no_such_field <<<"$(j '.probes[0].detail')"
check "write lost: write calls and bytes are null, not 0" \
	[ "$(j '.paths.bh.write.calls, .paths.bh.write.bytes, .paths.iomap.write.lat_ns' | sort -u)" = null ]
b=$(j ".devices[] | select(.name == \"$NAME\") | .bio_bytes")
echo "     write lost: device bio bytes $b, /proc/diskstats $DS"
check "write lost: device bytes agree with /proc/diskstats within 1%" \
	close_to "${b:-0}" "$DS" 1
check "write lost: bio total counts every byte" [ "$(j .bio_total.bytes)" -ge "$BYTES" ]
check "write lost: >= one buffer_head per 4 KiB block in all" \
	[ "$(j .bh_alloc_total)" -ge $((BYTES / 4096)) ]
check "write lost: per-path bh (needs the write context) is null" \
	[ "$(j .paths.bh.bh_alloc)" = null ]
check "write lost: writeback pages cover the data" \
	[ "$(j .paths.bh.writeback.pages)" -ge $((BYTES / 4096)) ]

# --- the bio group lost: write calls and bh still count, bios are null
stat_run "$F_BIO" "$DEV" "${DD[@]}"
check "bio lost: stat still runs (rc 0)" [ $? = 0 ]
check "bio lost: one line on stderr naming the group" \
	[ "$(grep -c 'lost the bio probes (block_bio_queue)' "$WORK/err")" = 1 ] &&
	[ "$(wc -l <"$WORK/err")" = 1 ]
check "bio lost: attach.bio is failed" [ "$(j .attach.bio)" = failed ]
check "bio lost: $MIB write calls on bh" [ "$(j .paths.bh.write.calls)" = $MIB ]
check "bio lost: $BYTES bytes written on bh" [ "$(j .paths.bh.write.bytes)" = $BYTES ]
check "bio lost: >= one buffer_head per 4 KiB block on bh" \
	[ "$(j .paths.bh.bh_alloc)" -ge $((BYTES / 4096)) ]
check "bio lost: bios, totals and devices are null" \
	[ "$(j '.paths.bh.bio.count, .paths.iomap.bio.size_bytes, .bio_total.count, .devices' | sort -u)" = null ]
check "bio lost: the device was still written (diskstats $DS)" [ "$DS" -ge "$BYTES" ]

# --- the pass group lost: no mode asks for it, so even a forced mode
# goes on without it
"$F_PASS" stat --json --attach tracepoint -d "$NAME" -- "${DD[@]}" \
	>"$WORK/out.json" 2>"$WORK/err"
check "pass lost: stat --attach tracepoint still runs (rc 0)" [ $? = 0 ]
check "pass lost: one line on stderr naming the group" \
	[ "$(grep -c 'lost the pass probes (writeback_single_inode)' "$WORK/err")" = 1 ] &&
	[ "$(wc -l <"$WORK/err")" = 1 ]
check "pass lost: both pass probes read failed" \
	[ "$(j '[.attach.pass_inode, .attach.pass_ext4] | unique | .[]')" = failed ]
check "pass lost: passes and their latency are null, not 0" \
	[ "$(j '.paths.bh.writeback.passes, .paths.iomap.writeback.pass_lat_ns' | sort -u)" = null ]
check "pass lost: write calls and writeback pages still count" \
	[ "$(j .paths.bh.write.calls)" = $MIB ] &&
	[ "$(j .paths.bh.writeback.pages)" -ge $((BYTES / 4096)) ]

# --- iomap's read events refused: they cost the iomap read calls alone,
# the read group keeps its pages and bios
dd if=/dev/zero of="$DEV" bs=1M count=4 conv=fsync status=none
blockdev --flushbufs "$DEV"
"$F_IOREAD" stat --json --attach tracepoint -d "$NAME" -- \
	dd if="$DEV" of=/dev/null bs=1M count=4 status=none \
	>"$WORK/out.json" 2>"$WORK/err"
check "iomap read events lost: stat --attach tracepoint runs (rc 0)" [ $? = 0 ]
check "iomap read events lost: one line on stderr saying so" \
	[ "$(grep -c 'iomap read events were refused.*iomap read calls are not counted' "$WORK/err")" = 1 ] &&
	[ "$(wc -l <"$WORK/err")" = 1 ]
check "iomap read events lost: the read group still on tracepoints" \
	[ "$(j '[.attach.read_bh_ra, .attach.read_iomap_ra] | unique | .[]')" = tracepoint ]
check "iomap read events lost: iomap read calls null, read pages and bios counted" \
	[ "$(j .paths.iomap.read.calls)" = null ] &&
	[ "$(j '.paths.bh.read.pages + .paths.iomap.read.pages')" -ge 1024 ] &&
	[ "$(j '.devices[0].read_bio_bytes')" -ge $((4 * 1048576)) ]

# --- the typed twins refused (as on a kernel without bpf_rdonly_cast):
# the untyped ones load in their place, and every figure is the same
typed_run() {
	sync
	blockdev --flushbufs "$DEV"
	"$1" stat --json -v --attach tracepoint -d "$NAME" -- sh -c \
		"${DD[*]} && blockdev --flushbufs $DEV &&
		 dd if=$DEV of=/dev/null bs=1M count=4 status=none" \
		>"$WORK/$2.json" 2>"$WORK/$2.log"
}
typed_run "$F_TYPED" untyped
check "typed twins refused: stat still runs (rc 0)" [ $? = 0 ]
check "typed twins refused: the kernel's refusal is in the log" \
	grep -Eq "prog 'tp_(sysev_enter|bh_folio)_t': failed to load" "$WORK/untyped.log"
check "typed twins refused: no group lost" \
	[ "$(jq '[.attach[] | select(. == "failed")] | length' "$WORK/untyped.json")" = 0 ]
# the probes' detail says which twin ran: "typed" on write_blkdev and
# writeback_bh, or on neither
typed_probes() {
	jq -r '[.probes[] | select(.name == "write_blkdev" or .name == "writeback_bh")
		| .detail | split(";")[0] | test("typed")] | map(tostring) | join(" ")' "$WORK/$1.json"
}
check "typed twins refused: the probes' detail says untyped" \
	[ "$(typed_probes untyped)" = "false false" ]
typed_run "$BHPROF" typed
check "typed twins: this kernel runs them (the untyped ones stay out)" \
	grep -q "prog 'tp_sysev_enter': skipped loading" "$WORK/typed.log" &&
	[ "$(typed_probes typed)" = "true true" ]
for f in write.calls write.bytes writeback.pages read.pages; do
	a=$(jq ".paths.bh.$f" "$WORK/typed.json")
	b=$(jq ".paths.bh.$f" "$WORK/untyped.json")
	echo "     bh $f: typed $a, untyped $b"
	check "typed and untyped twins agree: bh $f" [ "$a" = "$b" ] && [ "$a" -gt 0 ]
done

# --- the same when libbpf's warnings name no program: each group is
# loaded alone to find the one refused (test builds only can hide it)
BHPROF_FAULT_ANON=1 "$F_BIO" stat --json --duration 0.2 >"$WORK/out.json" 2>"$WORK/err"
check "unnamed refusal: stat still runs, bio failed, the rest attached" \
	[ $? = 0 ] && [ "$(j .attach.bio)" = failed ] &&
	[ "$(j .attach.bh_alloc)" = tracepoint ] &&
	grep -q "lost the bio probes" "$WORK/err"

# --- top: the live view says failed where the bio figures would be
"$F_BIO" top --plain -i 0.5 --duration 0.6 >"$WORK/top.txt" 2>/dev/null
check "top --plain: bios/s and mean bio read failed" \
	grep -Eq '^bh .* failed +failed +[0-9,]+$' "$WORK/top.txt"

# --- probe: the failed group, with the reason, and exit 0
"$F_BIO" probe >"$WORK/probe.txt" 2>"$WORK/err"
check "probe: exits 0 with a group lost" [ $? = 0 ]
check "probe: bio row reads failed with the reason" \
	grep -Eq '^bio +block_bio_queue +failed +CO-RE: no struct' "$WORK/probe.txt"
"$F_BIO" probe --json >"$WORK/out.json" 2>/dev/null
check "probe --json: bio mode failed" \
	[ "$(j '.probes[] | select(.name == "bio") | .mode')" = failed ]

# --- record, report, diff: the record file keeps the loss
"$F_BIO" record -o "$WORK/lost.bhp" -d "$NAME" -i 0.5 -- "${DD[@]}" 2>"$WORK/err"
check "record: runs with a group lost" [ $? = 0 ]
"$BHPROF" record -o "$WORK/whole.bhp" -d "$NAME" -i 0.5 -- "${DD[@]}" 2>/dev/null
"$BHPROF" report --json "$WORK/lost.bhp" >"$WORK/out.json"
check "report --json: the file's header says bio failed" [ "$(j .attach.bio)" = failed ]
check "report --json: bio figures are null, write calls are not" \
	[ "$(j .bio_total.count)" = null ] && [ "$(j .paths.bh.write.calls)" = $MIB ]
check "report --json: interval bio figures are null" \
	[ "$(j '[.intervals[].paths.bh.bio_count] | unique | .[]')" = null ]
"$BHPROF" report "$WORK/lost.bhp" >"$WORK/report.txt"
check "report: text names the lost group" grep -q "lost probe groups: bio" "$WORK/report.txt"
check "report: bio rows read failed" grep -Eq '^bios +failed +failed' "$WORK/report.txt"
"$BHPROF" diff --json "$WORK/whole.bhp" "$WORK/lost.bhp" >"$WORK/out.json"
check "diff --json: a metric B lost is null with its why, not a -100% change" \
	[ "$(j '.paths.bh.bio_count | (.a > 0) and .b == null and .rel_pct == null and (.why.b | test("^failed"))')" = true ]
check "diff --json: write calls still compare" \
	[ "$(j .paths.bh.write_calls.rel_pct)" = 0 ]

# --- strict cases: a forced mode, and nothing left to load
"$F_BIO" stat --attach tracepoint --duration 0.2 >/dev/null 2>"$WORK/err"
rc=$?
echo "     forced: rc=$rc $(cat "$WORK/err")"
check "forced mode: a refused program is fatal, in one line" \
	[ $rc != 0 ] && [ "$(wc -l <"$WORK/err")" = 1 ] &&
	grep -q "failed to load the BPF programs: CO-RE" "$WORK/err"
"$F_ALL" stat --duration 0.2 >/dev/null 2>"$WORK/err"
rc=$?
echo "     nothing loads: rc=$rc $(cat "$WORK/err")"
check "nothing loads: fatal, in one line" \
	[ $rc != 0 ] && [ "$(wc -l <"$WORK/err")" = 1 ] &&
	grep -q "no probe group that measures a path could be loaded or attached" "$WORK/err"

# --- buffer_head allocations alone (5.10 loaded that group and no other):
# no path has a figure, so no summary of nothing exits 0
"$F_PATHS" stat --duration 0.2 >"$WORK/out" 2>"$WORK/err"
rc=$?
echo "     bh group alone: rc=$rc $(cat "$WORK/err")"
check "bh group alone: fatal, in one line, with the kernel's reason, no summary" \
	[ $rc != 0 ] && [ "$(wc -l <"$WORK/err")" = 1 ] && [ ! -s "$WORK/out" ] &&
	grep -q "no probe group that measures a path could be loaded or attached on this kernel (write: CO-RE: no " "$WORK/err"

finish
