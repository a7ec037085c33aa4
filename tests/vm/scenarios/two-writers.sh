#!/bin/sh
# Two writers at once on different devices, each 8 MiB buffered + fsync:
# the second raw disk, and an XFS file when the kernel has XFS (so a bh
# kernel runs both paths at once), else the first raw disk.
. /scenarios/common.sh
begin
set +e
vmwriter -s 1m -t 8m "$RAW2" > "$out/w1.json" &
p1=$!
if [ -n "$XFS_MNT" ]; then
	vmwriter -c -s 1m -t 8m "$XFS_MNT/two-$MODE" > "$out/w2.json" &
else
	vmwriter -s 1m -t 8m "$RAW1" > "$out/w2.json" &
fi
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
end
cat "$out/w1.json" "$out/w2.json" >> "$out/writers.jsonl"
[ $r1 -eq 0 ] && [ $r2 -eq 0 ]
