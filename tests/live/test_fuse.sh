#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A write call's path is the engine's that ran it, in tracepoint mode
# too. 6.17's fuse names iomap's helpers in its operations on every
# mount, but writes through iomap (iomap_file_buffered_write) only with
# its writeback cache; without, fuse_perform_write sends each call to
# the server. The same 64 writes of 64 KiB to a fuse mount of each kind
# (tests/vm/memfuse.c, a server in memory) must land on iomap and on
# the other group, as the kernel's own iomap:iomap_iter events on the
# mount's device say the engine ran or not. Where the kernel's fuse is
# not on iomap yet (no such events on either mount), both land on the
# other group.
. "$(dirname "$0")/lib.sh"
need_root fuse

REPO=$(cd "$(dirname "$0")/../.." && pwd)
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
grep -qw fuse /proc/filesystems && [ -c /dev/fuse ] ||
	{ bad "fuse: the kernel has no fuse (CONFIG_FUSE_FS, /dev/fuse)"; finish; }
[ -d $T/events/iomap/iomap_iter ] ||
	{ bad "fuse: no iomap:iomap_iter event in $T"; finish; }
command -v jq >/dev/null || { bad "fuse: jq not installed"; finish; }
cc -O2 -Wall -o "$WORK/memfuse" "$REPO/tests/vm/memfuse.c" \
	$(pkg-config --cflags --libs fuse3 2>/dev/null || echo -I/usr/include/fuse3 -lfuse3) \
	2>"$WORK/cc.err" ||
	{ bad "fuse: cannot build memfuse (libfuse3-dev): $(head -c 300 "$WORK/cc.err")"; finish; }
PAGES=$((4194304 / $(getconf PAGESIZE)))

# mount NAME [-w]: a memfuse mount at $WORK/NAME, the writeback cache
# with -w
mount_fuse() {
	local m=$WORK/$1 i
	mkdir -p "$m"
	"$WORK/memfuse" $2 "$m" >"$WORK/$1.server.log" 2>&1 &
	for i in $(seq 50); do
		grep -q " $m fuse" /proc/mounts && { MOUNTS+=("$m"); return 0; }
		sleep 0.1
	done
	return 1
}

# run NAME: the writes under bhprof, the kernel's iomap_iter events of
# the mount's device beside them
run() {
	local m=$WORK/$1 dev
	dev=$(stat -c '%Hd:%Ld' "$m")
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo "dev == $(stat -c '%d' "$m")" > $T/events/iomap/iomap_iter/filter 2>/dev/null
	echo 1 > $T/events/iomap/iomap_iter/enable
	echo 1 > $T/tracing_on
	"$BHPROF" stat --json --attach tracepoint -- \
		dd if=/dev/zero of="$m/f" bs=64k count=64 conv=fsync status=none \
		>"$WORK/$1.json" 2>"$WORK/$1.err"
	check "$1: stat ran" [ $? = 0 ]
	echo 0 > $T/tracing_on
	echo 0 > $T/events/iomap/iomap_iter/enable
	echo 0 > $T/events/iomap/iomap_iter/filter 2>/dev/null
	grep -c " dev $dev " $T/trace > "$WORK/$1.iter"
}

# row NAME PATH: the fuse row's write calls, bytes, writeback pages, bios
row() {
	jq -r --arg p "$2" '[.filesystems[] | select(.fs == "fuse" and .path == $p)] |
		.[0] // {} | "\(.write.calls // 0) \(.write.bytes // 0) \(.writeback.pages // 0) \(.bio.count // 0)"' \
		"$WORK/$1.json"
}

mount_fuse wbc -w && mount_fuse nowbc ||
	{ bad "fuse: memfuse did not mount: $(cat "$WORK"/*.server.log)"; finish; }
run wbc
run nowbc
wi=$(cat "$WORK/wbc.iter")
di=$(cat "$WORK/nowbc.iter")
check "without the writeback cache the kernel ran no iomap_iter ($di events)" [ "$di" = 0 ]
check "... and bhprof puts the 64 calls on the other group, none on iomap (other: $(row nowbc other); iomap: $(row nowbc iomap))" \
	[ "$(row nowbc other) $(row nowbc iomap)" = "64 4194304 0 0 0 0 0 0" ]
if [ "$wi" -gt 0 ]; then
	check "with the writeback cache iomap's engine ran ($wi iomap_iter events), and bhprof puts the calls and $PAGES pages on iomap, no bios (iomap: $(row wbc iomap); other: $(row wbc other))" \
		[ "$(row wbc iomap) $(row wbc other)" = "64 4194304 $PAGES 0 0 0 0 0" ]
else
	check "fuse before iomap (no iomap_iter events): the calls on the other group (other: $(row wbc other); iomap: $(row wbc iomap))" \
		[ "$(row wbc other | cut -d' ' -f1-2) $(row wbc iomap)" = "64 4194304 0 0 0 0" ]
fi
# ... and read back cold: its pages are iomap's only if iomap's read
# events fire for them (6.18's fuse reads through its own readahead)
echo 3 > /proc/sys/vm/drop_caches
echo 0 > $T/tracing_on
echo > $T/trace
for e in iomap_readahead iomap_readpage; do
	echo 1 > $T/events/iomap/$e/enable
done
echo 1 > $T/tracing_on
"$BHPROF" stat --json --attach tracepoint -- \
	dd if="$WORK/wbc/f" of=/dev/null bs=64k status=none \
	>"$WORK/read.json" 2>"$WORK/read.err"
check "read: stat ran" [ $? = 0 ]
echo 0 > $T/tracing_on
for e in iomap_readahead iomap_readpage; do
	echo 0 > $T/events/iomap/$e/enable
done
ri=$(grep -c " dev $(stat -c '%Hd:%Ld' "$WORK/wbc") " $T/trace)
rp=$(jq -r '"\(.paths.iomap.read.calls) \(.paths.iomap.read.pages)"' "$WORK/read.json")
if [ "$ri" = 0 ]; then
	check "a cold read the kernel ran through no iomap read (0 events) has no iomap read calls or pages (iomap: $rp)" \
		[ "$rp" = "0 0" ]
else
	check "a cold read through iomap ($ri events): its $PAGES pages on iomap (iomap: $rp)" \
		[ "${rp#* }" = "$PAGES" ]
fi
"$BHPROF" probe --json --attach tracepoint >"$WORK/probe.json" 2>/dev/null
w=$(jq -r '.probes[] | select(.name == "write_iomap") | .detail' "$WORK/probe.json")
check "probe names the witness of iomap's engine ($w)" \
	grep -q 'iomap:iomap_iter_dstmap (the engine ran)' <<<"$w"
finish
