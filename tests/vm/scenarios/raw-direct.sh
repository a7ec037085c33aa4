#!/bin/sh
# Raw block device, O_DIRECT: 8 MiB in 256 KiB writes (one bio each).
. /scenarios/common.sh
begin
w -d -s 256k -t 8m "$RAW1"
end
