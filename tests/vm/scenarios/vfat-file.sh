#!/bin/sh
# vfat regular file, buffered: 16 MiB in 1 MiB writes, then fsync. FAT
# writes through buffer heads (generic_perform_write) and writes back
# through mpage_writepages on every kernel: its writeback calls, pages
# and engine are checked as ext4's are. The kernel's own count of its
# write engines says which path it took.
. /scenarios/common.sh
[ -n "$VFAT_MNT" ] || { echo "no vfat mount" >&2; exit 2; }
KREF=1
begin
w -c -s 1m -t 16m "$VFAT_MNT/f-$MODE"
end
