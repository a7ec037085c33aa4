#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Where a file's path comes from: the helpers of its mapping's
# address_space_operations, found in kallsyms, or, where kallsyms hides
# addresses (kptr_restrict=2), the filesystem table. Both must put an
# ext4 file on bh and an XFS file on iomap, and probe must say which
# decided. The helpers it counts are checked
# against /proc/kallsyms.
. "$(dirname "$0")/lib.sh"
need_root pathsrc

for t in jq mkfs.ext4 mkfs.xfs; do
	command -v $t >/dev/null || { bad "pathsrc: $t not installed"; finish; }
done
new_loop 300 && E=$LOOP && new_loop 400 && X=$LOOP ||
	{ bad "pathsrc: no loop devices"; finish; }
mkdir -p "$WORK/e" "$WORK/x"
mkfs.ext4 -q -F "$E" && mount "$E" "$WORK/e" && MOUNTS+=("$WORK/e") &&
	mkfs.xfs -q -f "$X" && mount "$X" "$WORK/x" && MOUNTS+=("$WORK/x") ||
	{ bad "pathsrc: mkfs or mount failed"; finish; }

# the family helpers kallsyms has, as bhprof counts them
helpers=$(grep -cE ' [tT] (block_dirty_folio|__set_page_dirty_buffers|block_invalidate_folio|block_invalidatepage|block_is_partially_uptodate|buffer_migrate_folio|buffer_migrate_page|buffer_migrate_folio_norefs|buffer_migrate_page_norefs|iomap_dirty_folio|iomap_set_page_dirty|iomap_invalidate_folio|iomap_invalidatepage|iomap_release_folio|iomap_releasepage|iomap_is_partially_uptodate|iomap_migrate_folio|iomap_migrate_page)$' /proc/kallsyms)

# run NAME: 64 writes of 64 KiB to each filesystem, each then fsync
run() {
	"$BHPROF" probe --json >"$WORK/$1.probe.json" 2>/dev/null
	"$BHPROF" probe >"$WORK/$1.probe.txt" 2>/dev/null
	# the two filesystems' devices alone: other writers on the machine
	# stay out
	"$BHPROF" stat --json -d "$E" -d "$X" -- sh -c "
		for d in '$WORK/e' '$WORK/x'; do
			dd if=/dev/zero of=\$d/f-$1 bs=64k count=64 conv=fsync status=none
		done" >"$WORK/$1.json" 2>"$WORK/$1.err"
	check "$1: stat ran" [ $? = 0 ]
}

# paths NAME: each path's write calls and bytes
paths_are() {
	local got
	got=$(jq -r '[.paths.bh.write.calls, .paths.bh.write.bytes,
		      .paths.iomap.write.calls, .paths.iomap.write.bytes] | join(" ")' "$WORK/$1.json")
	# ext4's 64 calls on bh, XFS's on iomap
	check "$1: ext4 on bh, XFS on iomap (bh calls, bytes, iomap calls, bytes: $got)" \
		[ "$got" = "64 4194304 64 4194304" ]
}

run helpers
check "helpers: kallsyms has page-cache helpers here ($helpers)" [ "$helpers" -ge 4 ]
check "helpers: probe --json says they decide, and how many ($(jq -c .path_source "$WORK/helpers.probe.json"))" \
	[ "$(jq -r '"\(.path_source.from) \(.path_source.helpers)"' "$WORK/helpers.probe.json")" = \
	  "page_cache_helpers $helpers" ]
check "helpers: probe's text says so" \
	grep -q "^file paths from    page-cache helpers ($helpers on this kernel)" "$WORK/helpers.probe.txt"
paths_are helpers

old=$(cat /proc/sys/kernel/kptr_restrict)
echo 2 > /proc/sys/kernel/kptr_restrict
run table
echo "$old" > /proc/sys/kernel/kptr_restrict
check "table: with kallsyms' addresses hidden, probe --json names the table" \
	[ "$(jq -r '"\(.path_source.from) \(.path_source.helpers)"' "$WORK/table.probe.json")" = \
	  "filesystem_table 0" ]
check "table: probe's text names the fallback" \
	grep -q "^file paths from    filesystem table" "$WORK/table.probe.txt"
paths_are table

finish
