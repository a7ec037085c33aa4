#!/bin/sh
# Writes through a shared mapping, then msync: 4 MiB into a new ext4
# file (where the kernel has ext4) and a new XFS file. No write call:
# every page is dirtied by a page_mkwrite fault.
. /scenarios/common.sh
KREF=1
[ -n "$XFS_MNT" ] || { echo "no xfs mount" >&2; exit 2; }
begin
[ -z "$EXT4_MNT" ] || w -m -c -s 64k -t 4m "$EXT4_MNT/m-$MODE"
w -m -c -s 64k -t 4m "$XFS_MNT/m-$MODE"
end
