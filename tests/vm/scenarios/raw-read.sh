#!/bin/sh
# Raw block device, cold buffered read: 16 MiB in 1 MiB reads (the
# README's comparison of the paths).
. /scenarios/common.sh
KREF=1
cold "$RAW1"
begin
w -r -s 1m -t 16m "$RAW1"
end
