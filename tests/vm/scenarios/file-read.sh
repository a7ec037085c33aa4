#!/bin/sh
# Regular files, cold buffered reads of 8 MiB in 1 MiB reads: an ext4
# file (where the kernel has ext4) and an XFS file, written and synced
# by file-read.prep before bhprof started.
. /scenarios/common.sh
KREF=1
[ -n "$XFS_MNT" ] || { echo "no xfs mount" >&2; exit 2; }
cold "$XFS_DEV" ${EXT4_MNT:+"$EXT4_DEV"}
begin
[ -z "$EXT4_MNT" ] || w -r -s 1m -t 8m "$EXT4_MNT/r"
w -r -s 1m -t 8m "$XFS_MNT/r"
end
