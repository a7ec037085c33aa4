#!/bin/sh
# FUSE regular file without the writeback cache: 4 MiB in 64 KiB writes,
# then fsync. Each write call goes to memfuse as it is made, through
# fuse's own fuse_perform_write on every kernel: no page is dirtied, no
# bio sent. Its calls are the other group's, none on either path; the
# kernel's own count of the write engines says which ran.
. /scenarios/common.sh
[ -n "$FUSE_MNT" ] || { echo "no fuse mount" >&2; exit 2; }
KREF=1
begin
w -c -s 64k -t 4m "$FUSE_MNT/f-$MODE"
end
