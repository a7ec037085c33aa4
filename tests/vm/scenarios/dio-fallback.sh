#!/bin/sh
# O_DIRECT 4 KiB writes, 256 times to the same block of the second raw
# disk, while another process keeps storing into that block through a
# shared mapping: the write's page-cache invalidation finds the folio
# dirty again (-EBUSY) and the write falls back to the buffered path
# through direct_write_fallback() (6.6+). A race, so how often it falls
# back varies; bhprof must count what the kernel's own kprobe counts.
# The fsync at the end may report the stale page cache the kernel warned
# about as EIO (vmwriter says so and goes on): it must see that error,
# or the next scenario to fsync the disk would.
. /scenarios/common.sh
KREF=1
begin
w -d -M -s 4k -t 1m "$RAW2"
end
