#!/bin/sh
# Raw block device, buffered: 16 MiB in 1 MiB writes, then fsync.
. /scenarios/common.sh
# run with --callers (raw-buffered.opts): its frees against the kernel's
KFREE=1
begin
w -s 1m -t 16m "$RAW1"
end
