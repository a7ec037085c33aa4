#!/bin/sh
# exfat regular file, buffered: 16 MiB in 1 MiB writes, then fsync. Its
# path is the kernel's to give: buffer heads to 6.x, iomap in 7.x. The
# kernel's own count of its write engines (iomap_file_buffered_write,
# generic_perform_write) says which ran; bhprof must agree.
. /scenarios/common.sh
[ -n "$EXFAT_MNT" ] || { echo "no exfat mount" >&2; exit 2; }
KREF=1
begin
w -c -s 1m -t 16m "$EXFAT_MNT/f-$MODE"
end
