#!/bin/sh
# FUSE regular file with the writeback cache (guest-init.sh mounts
# memfuse -w for this scenario): fuse-file's writes. They dirty the page
# cache and reach memfuse at writeback: through iomap
# (iomap_file_buffered_write, iomap_writepages) in 7.x, through fuse's
# own code before (generic_perform_write with fuse_write_begin,
# fuse_writepages: the other group's). No bio: the data goes to the
# server. The kernel's own count of the write engines says which path
# it took.
. /scenarios/fuse-file.sh
