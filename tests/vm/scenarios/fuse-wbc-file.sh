#!/bin/sh
# FUSE regular file with the writeback cache: 4 MiB in 64 KiB writes,
# then fsync. The writes dirty the page cache and reach memfuse at
# writeback: through iomap (iomap_file_buffered_write, iomap_writepages)
# in 7.x, through fuse's own code before (generic_perform_write with
# fuse_write_begin, fuse_writepages: the other group's). No bio: the
# data goes to the server. The kernel's own count of the write engines
# says which path it took.
. /scenarios/common.sh
[ -n "$FUSE_MNT" ] || { echo "no fuse mount" >&2; exit 2; }
KREF=1
begin
w -c -s 64k -t 4m "$FUSE_MNT/f-$MODE"
end
