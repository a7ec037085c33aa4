#!/bin/sh
# XFS regular file, buffered: 16 MiB in 1 MiB writes, then fsync.
. /scenarios/common.sh
[ -n "$XFS_MNT" ] || { echo "no xfs mount" >&2; exit 2; }
# The flusher or jbd2 may write some of it before fsync does: the
# kernel's own count of its writeback calls and engines says how many.
KREF=1
begin
w -c -s 1m -t 16m "$XFS_MNT/f-$MODE"
end
