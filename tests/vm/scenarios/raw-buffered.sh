#!/bin/sh
# Raw block device, buffered: 16 MiB in 1 MiB writes, then fsync.
. /scenarios/common.sh
begin
w -s 1m -t 16m "$RAW1"
end
