#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A live recording stopped by SIGINT, SIGTERM and SIGKILL while dd writes
# to a loop device must leave a file that report reads, with the device's
# bh bios in it. SIGINT and SIGTERM finish the file (end-of-run frame, no
# warning); SIGKILL leaves every complete interval and at most a warning.
# A torn copy of the killed file, and a recorded command's exit status,
# are checked too.
. "$(dirname "$0")/lib.sh"
need_root record-signals

new_loop 256 || { bad "losetup"; finish; }
DEV=$(basename "$LOOP")
WRITER=

# buffered writes to the raw device: the bh path
start_writer() {
	(
		while :; do
			dd if=/dev/zero of="$LOOP" bs=64k count=256 \
				conv=fsync status=none || exit 0
		done
	) &
	WRITER=$!
}

stop_writer() {
	[ -n "$WRITER" ] || return
	kill "$WRITER" 2>/dev/null
	wait "$WRITER" 2>/dev/null
	WRITER=
}

# the device's bh bio count in a report --json
dev_bh_bios() { # dev_bh_bios JSON
	jq -r --arg d "$DEV" \
		'[.devices[] | select(.name == $d) | .paths.bh.bio_count] | add // 0' "$1"
}

# report FILE as text and JSON; $WORK/rep.{txt,json,err}
report() {
	"$BHPROF" report "$1" >"$WORK/rep.txt" 2>"$WORK/rep.err" &&
		"$BHPROF" report --json "$1" >"$WORK/rep.json" 2>/dev/null
}

record_and_signal() { # record_and_signal SIG FILE
	local sig=$1 f=$2 pid rc i
	"$BHPROF" record -o "$f" -i 0.2 -d "$DEV" 2>"$WORK/rec.err" &
	pid=$!
	# wait for the metadata frame: the probes are attached
	for i in $(seq 100); do
		[ -s "$f" ] && break
		sleep 0.1
	done
	start_writer
	sleep 2.5
	kill -"$sig" "$pid"
	# braces: bash's "Killed" job notice goes to /dev/null too
	{ wait "$pid"; } 2>/dev/null
	rc=$?
	stop_writer
	echo "     SIG$sig: record exited $rc, $(stat -c %s "$f" 2>/dev/null) bytes"
	RC=$rc
}

for sig in INT TERM; do
	f=$WORK/rec-$sig.bhp
	record_and_signal "$sig" "$f"
	check "SIG$sig: record exits 0" [ "$RC" = 0 ]
	check "SIG$sig: report reads the file" report "$f"
	check "SIG$sig: no warning" [ ! -s "$WORK/rep.err" ]
	check "SIG$sig: stopped by SIG$sig" grep -q "stopped by: SIG$sig" "$WORK/rep.txt"
	check "SIG$sig: file is complete" [ "$(jq -r .recording.complete "$WORK/rep.json")" = true ]
	n=$(jq '.intervals | length' "$WORK/rep.json")
	check "SIG$sig: >= 10 intervals of 0.2 s ($n)" [ "${n:-0}" -ge 10 ]
	b=$(dev_bh_bios "$WORK/rep.json")
	check "SIG$sig: bh bios on $DEV ($b)" [ "${b:-0}" -gt 0 ]
done

f=$WORK/rec-KILL.bhp
record_and_signal KILL "$f"
check "SIGKILL: record was killed" [ "$RC" = 137 ]
check "SIGKILL: report reads the file" report "$f"
sed 's/^/     /' "$WORK/rep.err"
check "SIGKILL: warns that the run did not finish" \
	grep -q "no end-of-run frame" "$WORK/rep.err"
check "SIGKILL: every warning is one 'bhprof: FILE: warning:' line" \
	[ "$(grep -vc "^bhprof: $f: warning: " "$WORK/rep.err")" = 0 ]
n=$(jq '.intervals | length' "$WORK/rep.json")
check "SIGKILL: >= 10 intervals of 0.2 s ($n)" [ "${n:-0}" -ge 10 ]
b=$(dev_bh_bios "$WORK/rep.json")
check "SIGKILL: bh bios on $DEV ($b)" [ "${b:-0}" -gt 0 ]

# as if killed halfway through writing a frame (past any torn tail the
# kill itself left)
size=$(stat -c %s "$f")
torn=$(grep -o 'torn tail: dropped the last [0-9]*' "$WORK/rep.err" | grep -o '[0-9]*$')
head -c $((size - ${torn:-0} - 5)) "$f" >"$WORK/torn.bhp"
check "torn tail: report still reads the file" report "$WORK/torn.bhp"
check "torn tail: says how many bytes it dropped" \
	grep -q "torn tail: dropped the last [0-9]* bytes" "$WORK/rep.err"
n2=$(jq '.intervals | length' "$WORK/rep.json")
check "torn tail: loses exactly the last interval ($n2 of $n)" \
	[ "${n2:-0}" = $((n - 1)) ]

# a recorded command's exit status
f=$WORK/rec-cmd.bhp
"$BHPROF" record -o "$f" -i 0.2 -d "$DEV" -- sh -c \
	"dd if=/dev/zero of=$LOOP bs=64k count=64 conv=fsync status=none; exit 3" \
	2>"$WORK/rec.err"
rc=$?
check "command: record exits with the command's status ($rc)" [ "$rc" = 3 ]
check "command: report reads the file" report "$f"
check "command: JSON has the exit status" \
	[ "$(jq -r .command.exit_status "$WORK/rep.json")" = 3 ]
check "command: text says so" grep -q "command exit status 3" "$WORK/rep.txt"
b=$(dev_bh_bios "$WORK/rep.json")
check "command: bh bios on $DEV ($b)" [ "${b:-0}" -gt 0 ]

# diff reads two of them
diff_quiet() { "$BHPROF" diff "$@" >"$WORK/diff.txt" 2>/dev/null; }
check "diff: two live recordings side by side" \
	diff_quiet "$WORK/rec-INT.bhp" "$WORK/rec-KILL.bhp"
check "diff: bh bios row" grep -q "^  bios " "$WORK/diff.txt"

finish
