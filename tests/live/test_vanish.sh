#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A -d device that vanishes during a run: a loop device detached while
# bhprof records it, then attached again under the same MAJ:MIN. bhprof
# says each once on stderr, keeps recording, marks both in the file
# (report's text and JSON show them), and counts the device again once
# it is back: its bytes agree with /proc/diskstats across the gap.
. "$(dirname "$0")/lib.sh"
need_root vanish

new_loop 64 || { bad "losetup"; finish; }
IMG=$(losetup -n -O BACK-FILE "$LOOP")
N=$(basename "$LOOP")
before=$(diskstats_bytes "$LOOP")
"$BHPROF" record -o "$WORK/v.bhp" -i 0.2 -d "$N" --duration 5 \
	2> "$WORK/rec.err" &
pid=$!
sleep 1.2
dd if=/dev/zero of="$LOOP" bs=1M count=2 conv=fsync status=none
mid=$(diskstats_bytes "$LOOP")
losetup -d "$LOOP"
sleep 1
losetup "$LOOP" "$IMG" || { bad "losetup again"; kill $pid; finish; }
sleep 0.6
dd if=/dev/zero of="$LOOP" bs=1M count=1 seek=4 conv=fsync status=none
after=$(diskstats_bytes "$LOOP")
wait $pid
check "record goes on to the end: exit 0" test $? = 0
sed 's/^/     /' "$WORK/rec.err"
check "one line when it vanished" \
	test "$(grep -c "^bhprof: device $N ([0-9]*:[0-9]*) is gone" "$WORK/rec.err")" = 1
check "one line when it came back" \
	test "$(grep -c "^bhprof: device $N ([0-9]*:[0-9]*) is back, [1-9][0-9]* sectors" "$WORK/rec.err")" = 1
"$BHPROF" report --json "$WORK/v.bhp" > "$WORK/v.json"
ev=$(jq -r '[.recording.device_events[] | "\(.device):\(.event)"] | join(" ")' "$WORK/v.json")
check "the recording marks both, in order ($ev)" test "$ev" = "$N:vanished $N:back"
check "vanished before it came back" \
	jq -e '.recording.device_events | .[0].at_s < .[1].at_s' "$WORK/v.json" > /dev/null
"$BHPROF" report "$WORK/v.bhp" > "$WORK/v.txt"
check "report's text says so" grep -q "^device $N (.*) vanished at +" "$WORK/v.txt"
got=$(jq '[.devices[] | select(.name == "'"$N"'") | .bio_bytes] | add // 0' "$WORK/v.json")
# the disk's counters live on across the detach
want=$((after - before))
echo "     bhprof $got B on $N, diskstats $want B ($((mid - before)) B before it vanished)"
check "counted again once back: bytes agree with diskstats" close_to "$got" "$want" 1
check "and the write after the return is in them" test "$got" -ge $((3 << 20))
finish
