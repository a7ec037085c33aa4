#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Every output bhprof makes of a recording, byte for byte as it was:
# report (text, JSON, CSV, HTML, folded), diff (text, JSON) and gate
# (table, JSON, KTAP, JUnit, KCIDB) of the recordings in tests/golden/recordings,
# against tests/golden/expected. A change to how a figure is computed or
# printed shows here first; one that is meant is taken with
#   BHPROF_GOLDEN_UPDATE=1 bash tests/live/test_golden.sh
# and its diff read before it is committed.
#
# The recordings are real: host-callers.bhp from this kind of machine
# (tracepoint mode, --callers, ext4 and XFS on loop devices, written,
# synced, read back), host-dio.bhp (ext4: O_DIRECT writes and reads
# beside buffered ones, the rows only O_DIRECT shows), host-fs-{1,2}.bhp
# (the filesystems' rows: ext4 and XFS on loop devices, tmpfs, O_DIRECT
# to a block device; 2 MiB then 4 MiB a file); vm-6.12-{bh,nobh}-N.bhp from make gate-demo's
# guests (fentry mode, 6.12 with and without buffer heads).
# Needs no root: it reads files only.
. "$(dirname "$0")/lib.sh"
G=$(cd "$(dirname "$0")/../golden" && pwd)
[ -x "$BHPROF" ] || { bad "golden: $BHPROF not built"; finish; }
export TZ=UTC LC_ALL=C
ver=$(sed 's/\./\\./g' "$G/../../VERSION")

# golden NAME STATUS CMD...: CMD's standard output (or, for a CMD that
# writes the file $WORK/NAME itself, that file) is expected/NAME, and
# CMD exits STATUS
golden() {
	local name=$1 want=$2 rc
	shift 2
	rm -f "$WORK/$name"
	(cd "$G/recordings" && "$BHPROF" "$@") > "$WORK/$name.out" 2> "$WORK/$name.err"
	rc=$?
	[ -f "$WORK/$name" ] || mv "$WORK/$name.out" "$WORK/$name"
	# the gate says which bhprof judged, and JUnit and KCIDB when: this
	# one, now
	case $name in gate.*)
		sed -i -e "s/\"$ver\"/\"VERSION\"/g" \
			-e 's/timestamp="[0-9T:-]*"/timestamp="TIME"/' \
			-e 's/"start_time": "[0-9T:Z-]*"/"start_time": "TIME"/' \
			"$WORK/$name" ;;
	esac
	if [ "${BHPROF_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$WORK/$name" "$G/expected/$name"
		ok "golden: $name updated (exit $rc)"
		return
	fi
	if [ "$rc" != "$want" ]; then
		bad "golden: $name: exit $rc, want $want: $(head -c 300 "$WORK/$name.err")"
	elif [ ! -f "$G/expected/$name" ]; then
		bad "golden: $name: no expected/$name"
	elif cmp -s "$WORK/$name" "$G/expected/$name"; then
		ok "golden: $name ($(wc -c < "$WORK/$name") bytes, identical)"
	else
		bad "golden: $name differs from expected/$name:"
		diff -u "$G/expected/$name" "$WORK/$name" | head -20
	fi
}

for r in host-callers host-dio host-other host-fs-1 vm-6.12-bh-1 vm-6.12-nobh-1; do
	golden "report.$r.txt" 0 report "$r.bhp"
	golden "report.$r.json" 0 report --json "$r.bhp"
	golden "report.$r.csv" 0 report --csv "$r.bhp"
	golden "report.$r.html" 0 report --html "$WORK/report.$r.html" "$r.bhp"
done
golden report.host-callers.folded 0 report --folded "$WORK/report.host-callers.folded" \
	-o "$WORK/folded.report" host-callers.bhp
golden diff.bh-nobh.txt 0 diff vm-6.12-bh-1.bhp vm-6.12-nobh-1.bhp
golden diff.bh-nobh.json 0 diff --json vm-6.12-bh-1.bhp vm-6.12-nobh-1.bhp
golden diff.host-bh.txt 0 diff host-callers.bhp vm-6.12-bh-1.bhp
golden diff.host-fs.txt 0 diff host-fs-1.bhp host-fs-2.bhp
golden diff.host-fs.json 0 diff --json host-fs-1.bhp host-fs-2.bhp

# the gate demo's rules: nobh against bh passes, bh against nobh regresses
rules=(--rule 'any.bio.size.p50 >= -5%' --rule 'any.bios_per_mib <= +5%'
       --rule 'any.bh_alloc_per_mib <= +0%')
bh=(vm-6.12-bh-{1..6}.bhp)
nobh=(vm-6.12-nobh-{1..6}.bhp)
golden gate.nobh-vs-bh.txt 0 gate --baseline "${bh[@]}" --candidate "${nobh[@]}" "${rules[@]}"
golden gate.bh-vs-nobh.txt 1 gate --baseline "${nobh[@]}" --candidate "${bh[@]}" "${rules[@]}"
golden gate.bh-vs-nobh.json 1 gate --json --baseline "${nobh[@]}" --candidate "${bh[@]}" "${rules[@]}"
golden gate.bh-vs-nobh.ktap 1 gate --ktap --baseline "${nobh[@]}" --candidate "${bh[@]}" "${rules[@]}"
golden gate.bh-vs-nobh.xml 1 gate --junit "$WORK/gate.bh-vs-nobh.xml" \
	--baseline "${nobh[@]}" --candidate "${bh[@]}" "${rules[@]}"
golden gate.bh-vs-nobh.kcidb.json 1 gate --kcidb "$WORK/gate.bh-vs-nobh.kcidb.json" \
	--kcidb-origin bhprof_lab --kcidb-build-id maestro:6912a0c4 \
	--baseline "${nobh[@]}" --candidate "${bh[@]}" "${rules[@]}"

# what the expected files hold is bhprof's: every one is checked above
n=$(find "$G/expected" -type f | wc -l)
check "golden: every expected file has its case ($n files, $((PASS + FAIL)) cases)" \
	test "$n" = $((PASS + FAIL))
finish
