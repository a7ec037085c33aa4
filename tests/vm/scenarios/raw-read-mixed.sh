#!/bin/sh
# Raw block devices, cold: buffered reads of mixed sizes (sub-block,
# unaligned, block, 64 KiB, 1 MiB) over 8 MiB of the second disk, then an
# O_DIRECT read of 8 MiB in 256 KiB reads of the first.
. /scenarios/common.sh
KREF=1
cold "$RAW1" "$RAW2"
begin
w -r -s 512,4k,3000,64k,1m,12345,128k -t 8m "$RAW2"
w -r -d -s 256k -t 8m "$RAW1"
end
