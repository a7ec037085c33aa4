#!/bin/sh
# btrfs regular file, buffered: 16 MiB in 1 MiB writes, then fsync. btrfs
# writes and writes back through its own code, neither path's: bhprof
# puts its calls, writeback and bios in the other group, and nothing of
# its data on bh or iomap (its super block goes through the block
# device's page cache, a few KiB on the block device's path).
. /scenarios/common.sh
[ -n "$BTRFS_MNT" ] || { echo "no btrfs mount" >&2; exit 2; }
KREF=1
begin
w -c -s 1m -t 16m "$BTRFS_MNT/f-$MODE"
end
