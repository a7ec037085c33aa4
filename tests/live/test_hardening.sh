#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bhprof as a root tool (issue 14), as root and through a real sudo by a
# throwaway unprivileged user: a planted symbolic link is never followed,
# an existing recording is never overwritten without --force, a whole-file
# output is never seen half written, files made under sudo belong to the
# user, a running bhprof has given up root and every capability while it
# still counts what /proc/diskstats counts, the command after -- runs as
# the sudo user, and record files that claim huge sizes are refused
# without the memory they claim.
. "$(dirname "$0")/lib.sh"
need_root hardening

REPO=$(cd "$(dirname "$0")/../.." && pwd)
U=bhpt$$
SUDOERS=/etc/sudoers.d/bhprof-test-$U
PIDS=()

cleanup_hardening() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	rm -f "$SUDOERS"
	id "$U" >/dev/null 2>&1 && userdel "$U" 2>/dev/null
}
trap 'cleanup_hardening; cleanup' EXIT

command -v sudo >/dev/null || { bad "sudo not installed (tests/install-deps.sh)"; finish; }
[ -x /usr/bin/time ] || { bad "/usr/bin/time not installed (tests/install-deps.sh)"; finish; }

# everything below $WORK must be reachable by the test user
chmod 711 "$WORK"
D=$WORK/shared
mkdir -m 1777 "$D"
useradd -M -U -s /bin/sh -d "$WORK" "$U" || { bad "useradd $U"; finish; }
UID_U=$(id -u "$U")
GID_U=$(id -g "$U")
printf '%s ALL=(root) NOPASSWD: %s\n' "$U" "$BHPROF" >"$SUDOERS"
chmod 0440 "$SUDOERS"
UD=$WORK/home-$U	# the user's own directory: no sticky-bit protection
mkdir -m 755 "$UD"
chown "$U:$U" "$UD"

as_user() { runuser -u "$U" -- "$@"; }
# the user runs "sudo bhprof ...", as they would at a terminal
sudo_bhprof() { runuser -u "$U" -- sudo -n "$BHPROF" "$@"; }

new_loop 64 || { bad "losetup"; finish; }
DEV=$(basename "$LOOP")

# refused PATTERN CMD...: exit 1..127, one stderr line matching PATTERN
refused() {
	local pattern=$1 rc lines
	shift
	"$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	lines=$(wc -l <"$WORK/err")
	echo "     rc=$rc: $(head -c 200 "$WORK/err")"
	[ $rc -ne 0 ] && [ $rc -lt 128 ] && [ "$lines" = 1 ] &&
		grep -q -- "$pattern" "$WORK/err"
}

sum() { sha256sum "$1" | cut -d' ' -f1; }

# ---- a planted symbolic link is never followed
echo "root-owned, must not change" >"$WORK/victim.txt"
chmod 644 "$WORK/victim.txt"
V=$(sum "$WORK/victim.txt")
ln -s "$WORK/victim.txt" "$D/evil.bhp"
as_user ln -s "$WORK/victim.txt" "$UD/evil.bhp"
as_user ln -s "$WORK/victim.txt" "$UD/evil.html"

check "root: record -o LINK refused with one line" \
	refused "symbolic link" "$BHPROF" record -o "$D/evil.bhp" --duration 0.3 -d "$DEV"
check "root: top -o LINK refused with one line" \
	refused "symbolic link" "$BHPROF" top --plain -o "$D/evil.bhp" --duration 0.3 -d "$DEV"
check "sudo: record -o LINK refused with one line" \
	refused "symbolic link" sudo_bhprof record -o "$UD/evil.bhp" --duration 0.3 -d "$DEV"
check "sudo: record -o LINK --force refused too" \
	refused "symbolic link" sudo_bhprof record -o "$UD/evil.bhp" --force --duration 0.3 -d "$DEV"
check "the link's target is untouched" [ "$(sum "$WORK/victim.txt")" = "$V" ]
check "the links are still links" [ -L "$D/evil.bhp" -a -L "$UD/evil.bhp" ]

# ---- a recording to keep, made by the user through sudo
REC=$UD/run.bhp
sudo_bhprof record -o "$REC" -i 0.01 --duration 2 -d "$DEV" 2>"$WORK/rec.err"
check "sudo: record -o exits 0" [ $? = 0 ]
check "sudo: the recording belongs to the user ($(stat -c %u:%g "$REC"))" \
	[ "$(stat -c %u:%g "$REC")" = "$UID_U:$GID_U" ]
check "sudo: the user can move and delete it" \
	as_user sh -c "cp '$REC' '$UD/copy.bhp' && mv '$UD/copy.bhp' '$UD/moved.bhp' && rm '$UD/moved.bhp'"
R=$(sum "$REC")

check "root: record -o EXISTING refused with one line" \
	refused "exists: not overwritten (--force replaces it)" \
	"$BHPROF" record -o "$REC" --duration 0.3 -d "$DEV"
check "sudo: record -o EXISTING refused with one line" \
	refused "exists: not overwritten" sudo_bhprof record -o "$REC" --duration 0.3 -d "$DEV"
check "the old recording is kept byte for byte" [ "$(sum "$REC")" = "$R" ]

"$BHPROF" record -o "$D/root.bhp" --duration 0.3 -d "$DEV" 2>/dev/null
check "root: a recording as plain root stays root's ($(stat -c %u "$D/root.bhp"))" \
	[ "$(stat -c %u:%g "$D/root.bhp")" = 0:0 ]
ino=$(stat -c %i "$D/root.bhp")
"$BHPROF" record -o "$D/root.bhp" --force --duration 0.3 -d "$DEV" 2>/dev/null
rc=$?
check "root: --force replaces it with a new file" \
	[ $rc = 0 -a "$(stat -c %i "$D/root.bhp")" != "$ino" ]

# ---- whole-file outputs
check "root: report --html LINK refused with one line" \
	refused "symbolic link" "$BHPROF" report --html "$D/evil.bhp" "$REC"
check "sudo: report --html LINK refused with one line" \
	refused "symbolic link" sudo_bhprof report --html "$UD/evil.html" "$REC"
check "the link's target is still untouched" [ "$(sum "$WORK/victim.txt")" = "$V" ]
sudo_bhprof report --html "$UD/run.html" "$REC" 2>/dev/null
check "sudo: report --html belongs to the user" \
	[ "$(stat -c %u:%g "$UD/run.html")" = "$UID_U:$GID_U" ]
H=$(sum "$UD/run.html")
check "root: report --html EXISTING refused with one line" \
	refused "exists: not overwritten" "$BHPROF" report --html "$UD/run.html" "$REC"
check "the old page is kept" [ "$(sum "$UD/run.html")" = "$H" ]
"$BHPROF" report --csv -o "$D/run.csv" "$REC" 2>/dev/null
check "root: report --csv -o writes the time series" \
	[ "$(head -c 4 "$D/run.csv")" = "t_s," ]

# gate --junit: the same rules
"$BHPROF" record -o "$D/cand.bhp" --duration 0.3 -d "$DEV" 2>/dev/null
gate_junit() { # gate_junit OUT RUNNER...
	local out=$1
	shift
	# five of each: the fewest the gate judges
	"$@" gate --baseline "$REC" "$REC" "$REC" "$REC" "$REC" \
		--candidate "$D/cand.bhp" "$D/cand.bhp" "$D/cand.bhp" \
		"$D/cand.bhp" "$D/cand.bhp" --junit "$out"
}
check "root: gate --junit LINK refused with one line" \
	refused "symbolic link" gate_junit "$D/evil.bhp" "$BHPROF"
gate_junit "$UD/g.xml" sudo_bhprof >/dev/null 2>&1
check "sudo: gate --junit belongs to the user" \
	[ "$(stat -c %u:%g "$UD/g.xml" 2>/dev/null)" = "$UID_U:$GID_U" ]
G=$(sum "$UD/g.xml")
check "root: gate --junit EXISTING refused with one line" \
	refused "exists: not overwritten" gate_junit "$UD/g.xml" "$BHPROF"
check "the old JUnit report is kept" [ "$(sum "$UD/g.xml")" = "$G" ]
check "the link's target is still untouched after gate" [ "$(sum "$WORK/victim.txt")" = "$V" ]

# never half a file: sample the name while report rewrites it, 20 times;
# every size seen must be the finished one
partial_never_seen() { # partial_never_seen OUT REPORT-ARGS-NAMING-OUT...
	local out=$1 final n=0 odd=0 pid s
	shift
	"$BHPROF" report "$@" --force "$REC" 2>/dev/null || return 1
	final=$(stat -c %s "$out")
	(for i in $(seq 20); do
		"$BHPROF" report "$@" --force "$REC" 2>/dev/null
	done) &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		s=$(stat -c %s "$out" 2>/dev/null) || s=missing
		n=$((n + 1))
		[ "$s" = "$final" ] || odd=$((odd + 1))
	done
	wait $pid
	echo "     $1: $n samples of $final bytes, $odd of another size or missing"
	[ $n -gt 10 ] && [ $odd = 0 ] &&
		[ -z "$(find "$(dirname "$out")" -name '.*.tmp')" ]
}
check "report --json -o: never seen partial, no temp file left" \
	partial_never_seen "$D/big.json" --json -o "$D/big.json"
check "report --html: never seen partial, no temp file left" \
	partial_never_seen "$D/big.html" --html "$D/big.html"

# ---- running: no root, no capabilities, still counting
pid_of() { # pid_of UNIQUE-ARG: the bhprof process whose argv has it
	local p
	for p in $(pgrep -f -- "$1"); do
		[ "$(readlink "/proc/$p/exe")" = "$BHPROF" ] &&
			[ "$(cat "/proc/$p/comm")" != bhprof-closer ] &&
			echo "$p" && return
	done
}

st() { awk -v k="$2:" '$1 == k { $1 = ""; print substr($0, 2) }' "/proc/$1/status"; }

dropped() { # dropped PID WANT-UID LABEL
	local uid
	uid=$(st "$1" Uid | awk '{ print $1 }')
	echo "     $3: Uid $(st "$1" Uid), CapEff $(st "$1" CapEff)," \
	     "CapPrm $(st "$1" CapPrm), CapBnd $(st "$1" CapBnd)," \
	     "NoNewPrivs $(st "$1" NoNewPrivs), Groups '$(st "$1" Groups)'"
	check "$3: uid $2 (real, effective, saved, fs), not root" \
		[ "$(st "$1" Uid)" = "$2 $2 $2 $2" -a "$uid" != 0 ]
	check "$3: CapEff, CapPrm, CapBnd, CapAmb all 0" \
		[ "$(st "$1" CapEff)$(st "$1" CapPrm)$(st "$1" CapBnd)$(st "$1" CapAmb)" = \
		  0000000000000000000000000000000000000000000000000000000000000000 ]
	check "$3: NoNewPrivs 1" [ "$(st "$1" NoNewPrivs)" = 1 ]
}

# top --plain -o: the live view after the drop, recording what it shows
live_top() { # live_top LABEL WANT-UID RUNNER...
	local label=$1 want=$2 out pid before b i
	shift 2
	out=$D/top-$label-$$.bhp
	"$@" top --plain -i 0.2 -d "$DEV" -o "$out" >"$WORK/top.txt" 2>&1 &
	PIDS+=($!)
	for i in $(seq 100); do
		pid=$(pid_of "$out")
		[ -n "$pid" ] && [ -s "$out" ] && break
		sleep 0.1
	done
	[ -n "$pid" ] || { bad "$label: top did not start: $(head -3 "$WORK/top.txt")"; return; }
	sleep 0.5
	dropped "$pid" "$want" "$label top"
	sync
	blockdev --flushbufs "$LOOP"
	before=$(diskstats_bytes "$LOOP")
	dd if=/dev/zero of="$LOOP" bs=1M count=16 conv=fsync status=none
	sleep 0.5
	DS=$(($(diskstats_bytes "$LOOP") - before))
	kill -INT "$pid"
	wait "${PIDS[-1]}"
	rc=$?
	check "$label: top exits 0 after the drop ($rc)" [ $rc = 0 ]
	"$BHPROF" report --json "$out" >"$WORK/top.json" 2>/dev/null
	b=$(jq -r --arg d "$DEV" '.devices[] | select(.name == $d) | .bio_bytes' "$WORK/top.json")
	echo "     $label: bhprof device bio bytes ${b:-none}, /proc/diskstats $DS"
	check "$label: the dd is counted (>= 16 MiB)" [ "${b:-0}" -ge 16777216 ]
	check "$label: device bio bytes agree with /proc/diskstats within 1%" \
		close_to "${b:-0}" "$DS" 1
	[ "$label" = root ] ||
		check "$label: top's recording belongs to the user" \
			[ "$(stat -c %u "$out")" = "$UID_U" ]
}
live_top root 65534 "$BHPROF"
live_top sudo "$UID_U" sudo_bhprof

# serve: the exporter runs without root; its textfile, in a directory
# only root may write, is kept up by a helper that stays root for it
serve_dropped() {
	local tf=$WORK/tf pid i
	mkdir -m 755 "$tf"
	"$BHPROF" serve --textfile "$tf" -i 0.2 --duration 60 -d "$DEV" \
		--self-cost 2>/dev/null &
	PIDS+=($!)
	for i in $(seq 100); do
		pid=$(for p in $(pgrep -f -- "--textfile $tf"); do
			[ "$(readlink "/proc/$p/exe")" = "$BHPROF" ] &&
				[ "$(st "$p" Uid | cut -d' ' -f1)" != 0 ] && echo "$p"
		done)
		[ -n "$pid" ] && [ -s "$tf/bhprof.prom" ] && break
		sleep 0.1
	done
	[ -n "$pid" ] || { bad "serve: no serve process without root"; return; }
	dropped "$pid" 65534 "root serve"
	sleep 0.5
	check "serve: the textfile is kept up in a root-only directory" \
		grep -q '^bhprof_bpf_runs_total' "$tf/bhprof.prom"
	kill -TERM "$pid"
	wait "${PIDS[-1]}"
	check "serve: exits 0 and takes the textfile away" \
		[ $? = 0 -a -z "$(ls -A "$tf")" ]
}
serve_dropped

# ---- the command after --
uid_of_cmd() { "$@" stat --duration 30 -d "$DEV" -- sh -c "id -u >'$WORK/cmd-uid'" >/dev/null 2>&1; cat "$WORK/cmd-uid"; }
check "root: stat -- CMD runs CMD as root" [ "$(uid_of_cmd "$BHPROF")" = 0 ]
chmod 666 "$WORK/cmd-uid"
check "sudo: stat -- CMD runs CMD as the user" [ "$(uid_of_cmd sudo_bhprof)" = "$UID_U" ]
check "sudo: stat --cmd-as-root -- CMD runs it as root" \
	[ "$(as_user sudo -n "$BHPROF" stat --cmd-as-root --duration 30 -d "$DEV" -- id -u 2>/dev/null | head -1)" = 0 ]
# a root command outlives the duration: bhprof, no longer root, still
# stops it (through its keeper) instead of waiting for it; a command
# stopped by bhprof has no status of its own, so stat exits 0
t0=$(date +%s%N)
"$BHPROF" stat --duration 0.5 -d "$DEV" -- sleep "61.$$" >/dev/null 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "root: a root command is stopped at the duration's end (rc $rc, $ms ms)" \
	[ $rc = 0 -a $ms -lt 10000 ]
check "root: and nothing of it is left running" [ -z "$(pgrep -f "^sleep 61.$$\$")" ]

# ---- report reads and parses without root: a FIFO keeps its parser
# waiting in read() long enough to look at it
parser_dropped() { # parser_dropped LABEL WANT-UID CMD RUNNER...
	local label=$1 want=$2 cmd=$3 fifo=$WORK/rec-$1-$3.fifo pid child i
	shift 3
	mkfifo -m 644 "$fifo"
	case $cmd in
	report) "$@" report "$fifo" >/dev/null 2>"$WORK/fifo.err" & ;;
	gate) "$@" gate --baseline "$fifo" --candidate "$REC" >/dev/null 2>"$WORK/fifo.err" & ;;
	esac
	pid=$!
	exec 3>"$fifo"
	printf '\211BHPROF\n' >&3
	# the root parent only opens and waits; its child reads and parses
	for i in $(seq 50); do
		child=$(for p in $(pgrep -f -- "$fifo"); do
			[ "$(readlink "/proc/$p/exe")" = "$BHPROF" ] &&
				[ "$(st "$p" Uid | cut -d' ' -f1)" != 0 ] && echo "$p"
		done)
		[ -n "$child" ] && break
		sleep 0.1
	done
	if [ -n "$child" ]; then
		dropped "$child" "$want" "$label $cmd's parser"
	else
		bad "$label: no report process without root reads the FIFO"
	fi
	exec 3>&-
	wait $pid
	rc=$?
	check "$label: $cmd of a cut-off FIFO fails with one line (rc $rc)" \
		[ $rc != 0 -a $rc -lt 128 -a "$(wc -l <"$WORK/fifo.err")" = 1 ]
}
parser_dropped root 65534 report "$BHPROF"
parser_dropped sudo "$UID_U" report sudo_bhprof
parser_dropped root 65534 gate "$BHPROF"
parser_dropped sudo "$UID_U" gate sudo_bhprof

# ---- record files that claim huge sizes
cc -O1 -I"$REPO/include" -I"$REPO/src" \
	"$REPO/tests/live/mkhostile.c" -lz -o "$WORK/mkhostile" &&
	mkdir "$WORK/hostile" && "$WORK/mkhostile" "$WORK/hostile"
check "crafted hostile recordings" [ $? = 0 ]
for f in "$WORK"/hostile/*.bhp; do
	name=$(basename "$f" .bhp)
	/usr/bin/time -f "%M" -o "$WORK/rss" "$BHPROF" report "$f" >/dev/null 2>"$WORK/err"
	rc=$?
	rss=$(tail -1 "$WORK/rss")
	echo "     $name: rc $rc, peak RSS $rss KB: $(tail -1 "$WORK/err")"
	if [ "$name" = rows-2e60 ]; then
		# a bad snapshot is a warning; with nothing else left, an error
		check "$name: refused, every line 'bhprof: FILE: ...'" \
			[ $rc = 1 -a "$(grep -vc "^bhprof: $f: " "$WORK/err")" = 0 ]
	else
		check "$name: refused with one line" \
			[ $rc = 1 -a "$(wc -l <"$WORK/err")" = 1 ]
	fi
	check "$name: peak RSS under 64 MB ($rss KB)" [ "${rss:-999999}" -lt 65536 ]
done

finish
