#!/bin/sh
# Raw block device, buffered, a mix of sizes: sub-block, unaligned,
# block, 64 KiB and 1 MiB writes back to back (8 MiB), then fsync.
. /scenarios/common.sh
begin
w -s 512,4k,3000,64k,1m,12345,128k -t 8m "$RAW1"
end
