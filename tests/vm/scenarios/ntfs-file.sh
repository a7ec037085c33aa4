#!/bin/sh
# NTFS regular file, buffered: 16 MiB in 1 MiB writes, then fsync, through
# whichever driver the kernel has: ntfs3 up to 7.0 (buffer heads:
# generic_perform_write, mpage_writepages), the new ntfs of 7.1 on
# (iomap). The kernel's own count of its write engines says which ran;
# bhprof must agree.
. /scenarios/common.sh
[ -n "$NTFS_MNT" ] || { echo "no ntfs mount" >&2; exit 2; }
KREF=1
begin
w -c -s 1m -t 16m "$NTFS_MNT/f-$MODE"
end
