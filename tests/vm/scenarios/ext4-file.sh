#!/bin/sh
# ext4 regular file, buffered: 16 MiB in 1 MiB writes, then fsync.
. /scenarios/common.sh
[ -n "$EXT4_MNT" ] || { echo "no ext4 mount" >&2; exit 2; }
begin
w -c -s 1m -t 16m "$EXT4_MNT/f-$MODE"
end
