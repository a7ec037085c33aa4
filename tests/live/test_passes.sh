#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What tracepoint mode sees beyond its stand-ins (issue 20): writeback
# passes over an inode, timed, on ext4 and XFS, and the iomap path's read
# calls. bhprof's counts, recorded and reported, must equal the kernel's
# own events of the same run, recorded through tracefs and counted by tests/lib/trace-passes.awk
# (the pass rule: the outermost of __writeback_single_inode and
# ext4_writepages on a thread).
. "$(dirname "$0")/lib.sh"
need_root passes
command -v jq >/dev/null || { bad "passes: jq not installed"; finish; }
for t in mkfs.ext4 mkfs.xfs; do
	command -v $t >/dev/null || { bad "passes: $t not installed"; finish; }
done
REF=$(cd "$(dirname "$0")/.." && pwd)/lib/trace-passes.awk
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/events/writeback ] || { bad "passes: no tracefs events"; finish; }
EVENTS="writeback/writeback_single_inode_start writeback/writeback_single_inode
	ext4/ext4_writepages ext4/ext4_writepages_result
	iomap/iomap_readpage iomap/iomap_readahead"

new_loop 400 || { bad "passes: no loop device"; finish; }
E=$LOOP
new_loop 400 || { bad "passes: no loop device"; finish; }
X=$LOOP
mkdir -p "$WORK/e" "$WORK/x"
mkfs.ext4 -q -F "$E" && mount "$E" "$WORK/e" && MOUNTS+=("$WORK/e") &&
	mkfs.xfs -q -f "$X" && mount "$X" "$WORK/x" && MOUNTS+=("$WORK/x") ||
	{ bad "passes: mkfs/mount"; finish; }
dd if=/dev/urandom of="$WORK/x/r" bs=1M count=8 status=none
sync
devs="$(lsblk -dno MAJ:MIN "$E" | tr -d ' ') $(lsblk -dno MAJ:MIN "$X" | tr -d ' ')"

events() {
	for e in $EVENTS; do
		echo "$1" >$T/events/$e/enable || return 1
	done
}

# Five fsynced ext4 files (five ext4 passes of their own), an XFS file
# and a raw write left to sync(1) (passes of the flusher), then a cold
# read of an XFS file (readahead calls).
load="for i in 1 2 3 4 5; do
	dd if=/dev/zero of=$WORK/e/f\$i bs=64k count=16 conv=fsync status=none
done
dd if=/dev/zero of=$WORK/x/g bs=64k count=16 status=none
dd if=/dev/zero of=$E bs=4k count=4 seek=90000 status=none
sync
cat $WORK/x/r >/dev/null"

echo 3 >/proc/sys/vm/drop_caches
echo 0 >$T/tracing_on
echo >$T/trace
events 1 || { bad "passes: cannot enable the reference events"; finish; }
echo 1 >$T/tracing_on
# recorded, then reported: the record file keeps what stat would print
"$BHPROF" record -o "$WORK/p.bhp" --attach tracepoint -d "$(basename "$E")" \
	-d "$(basename "$X")" -- sh -c "$load" 2>"$WORK/err"
rc=$?
"$BHPROF" report --json "$WORK/p.bhp" >"$WORK/out.json" 2>>"$WORK/err" || rc=$?
echo 0 >$T/tracing_on
events 0
cat $T/trace >"$WORK/trace.txt"
echo >$T/trace
check "record --attach tracepoint and report run (rc $rc)" [ $rc = 0 ]
j() { jq -r "$1" "$WORK/out.json"; }
read -r _ kpasses _ kext4 _ kreads < <(awk -v devs="$devs" -f "$REF" "$WORK/trace.txt")
overrun=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' $T/per_cpu/cpu*/stats)
echo "     kernel ($devs): $kpasses passes ($kext4 ext4 alone), $kreads iomap read calls, overrun $overrun"

check "both pass probes on tracepoints" \
	[ "$(j '[.attach.pass_inode, .attach.pass_ext4] | unique | .[]')" = tracepoint ]
bh=$(j .paths.bh.writeback.passes)
io=$(j .paths.iomap.writeback.passes)
echo "     bhprof: bh $bh passes, iomap $io"
check "passes: bhprof's equal the kernel's events ($((bh + io)) = $kpasses)" \
	[ "$((bh + io))" = "$kpasses" ]
check "passes: at least the five ext4 fsyncs on bh ($bh, ext4 alone $kext4)" \
	[ "$bh" -ge 5 ] && [ "$kext4" -ge 5 ]
check "passes: the flusher's XFS pass on iomap ($io)" [ "$io" -ge 1 ]
check "passes: each has its latency" \
	[ "$(j '.paths.bh.writeback.pass_lat_ns.count')" = "$bh" ] &&
	[ "$(j '.paths.iomap.writeback.pass_lat_ns.count')" = "$io" ] &&
	[ "$(j '.paths.bh.writeback.pass_lat_ns.p50 > 0')" = true ]
# ext4 writes its data back through its own loop, which fires no
# wbc_writepage: its pages are ext4_writepages_result's, on the bh path
edev=$(lsblk -dno MAJ:MIN "$E" | tr -d ' ' | tr : ,)
kpages=$(awk -v d="dev $edev " 'index($0, " ext4_writepages_result: " d) {
	for (i = 1; i < NF; i++) if ($i == "pages_written") s += $(i + 1) }
	END { print s + 0 }' "$WORK/trace.txt")
wbp=$(j .paths.bh.writeback.pages)
echo "     bh writeback pages $wbp; the kernel's ext4_writepages_result pages $kpages"
check "bh writeback pages hold ext4's own ($wbp >= $kpages >= 1280)" \
	[ "$wbp" -ge "$kpages" ] && [ "$kpages" -ge 1280 ]
check "writeback calls stay n/a in tracepoint mode" \
	[ "$(j '.paths.bh.writeback.calls, .paths.iomap.writeback.lat_ns' | sort -u)" = null ]

rc_io=$(j .paths.iomap.read.calls)
check "iomap read calls: bhprof's equal the kernel's events ($rc_io = $kreads)" \
	[ "$rc_io" = "$kreads" ] && [ "$kreads" -ge 1 ]
check "iomap read latency n/a, bh read calls n/a (no event of theirs)" \
	[ "$(j '.paths.iomap.read.lat_ns, .paths.bh.read.calls' | sort -u)" = null ]
check "the reference trace lost nothing (overrun $overrun)" [ "$overrun" = 0 ]

"$BHPROF" probe --attach tracepoint >"$WORK/probe.txt" 2>&1
check "probe: iomap reads name their events" \
	grep -Eq '^read_iomap_ra +iomap_readahead +tracepoint +iomap:iomap_readahead \(calls\)' "$WORK/probe.txt"
check "probe: pass rows name their tracepoints" \
	grep -Eq '^pass_ext4 +ext4_writepages +tracepoint +ext4:ext4_writepages' "$WORK/probe.txt"
finish
