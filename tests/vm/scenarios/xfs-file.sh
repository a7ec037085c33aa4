#!/bin/sh
# XFS regular file, buffered: 16 MiB in 1 MiB writes, then fsync.
. /scenarios/common.sh
[ -n "$XFS_MNT" ] || { echo "no xfs mount" >&2; exit 2; }
begin
w -c -s 1m -t 16m "$XFS_MNT/f-$MODE"
end
