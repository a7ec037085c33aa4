#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The live screen, driven as a person would: the real binary in a tmux
# pane on this machine's kernel while a writer loops on two loop devices,
# one raw (bh) and one XFS (iomap). Every key must do what the footer
# says, resizing must keep the layout whole, and every way out (q, ^C,
# SIGTERM) must leave the terminal as it found it.
. "$(dirname "$0")/lib.sh"
need_root tui

command -v tmux >/dev/null || { bad "tui: tmux not installed"; finish; }

SOCK=bhprof-tui-$$
WRITER=

# the writer finishes its dd first: a dd killed midway would keep the
# XFS mount busy and the loop devices attached
tui_cleanup() {
	touch "$WORK/stop"
	[ -n "$WRITER" ] && wait "$WRITER" 2>/dev/null
	tmux -L "$SOCK" kill-server 2>/dev/null
	cleanup
}
trap tui_cleanup EXIT

T() { tmux -L "$SOCK" "$@"; }
cap() { T capture-pane -p -t "$1"; }
cape() { T capture-pane -p -e -t "$1"; }

# wait_for PANE SECS REGEX: until the screen matches (ERE)
wait_for() {
	local end=$((SECONDS + $2))
	while [ $SECONDS -lt "$end" ]; do
		cap "$1" | grep -Eq -- "$3" && return 0
		sleep 0.2
	done
	return 1
}

# wait_gone PANE SECS REGEX: until the screen no longer matches
wait_gone() {
	local end=$((SECONDS + $2))
	while [ $SECONDS -lt "$end" ]; do
		cap "$1" | grep -Eq -- "$3" || return 0
		sleep 0.2
	done
	return 1
}

# start NAME COLS ROWS ARGS...: bhprof top in a fresh session. The shell
# around it keeps the exit status and the tty modes before and after.
start() {
	local name=$1 w=$2 h=$3
	shift 3
	rm -f "$WORK/exit.$name"
	T new-session -d -s "$name" -x "$w" -y "$h" \
		"stty -g >$WORK/stty0.$name; LANG=C.UTF-8 $BHPROF top $* \
		2>$WORK/err.$name; echo \$? >$WORK/exit.$name; \
		stty -g >$WORK/stty1.$name; echo AFTER-EXIT; sleep 600"
}

# stopped NAME: bhprof has exited (the BPF teardown takes a moment)
stopped() {
	local end=$((SECONDS + 15))
	while [ $SECONDS -lt "$end" ]; do
		[ -s "$WORK/exit.$1" ] && return 0
		sleep 0.2
	done
	return 1
}

exit_status() { cat "$WORK/exit.$1" 2>/dev/null; }

# the terminal after exit: primary screen, cursor shown, same tty modes,
# only the shell's own line left on it
restored() {
	local name=$1 flags
	flags=$(T display -p -t "$name" '#{alternate_on} #{cursor_flag}')
	[ "$flags" = "0 1" ] || { echo "     tmux flags: $flags"; return 1; }
	cmp -s "$WORK/stty0.$name" "$WORK/stty1.$name" ||
		{ echo "     tty modes changed"; return 1; }
	cap "$name" | grep -q AFTER-EXIT || return 1
	! cap "$name" | grep -Eq 'write calls/s|DEVICE|q quit'
}

shows() { cap "$1" | grep -Eq -- "$2"; }
not() { ! "$@"; }

# the better value of a pair is green (and bold); pairs compare only
# while both paths are busy, which the writer's loop is only mostly
highlighted() {
	local end=$((SECONDS + 10))
	while [ $SECONDS -lt "$end" ]; do
		cape "$1" | grep -q $'\e\[[0-9;]*32m' && return 0
		sleep 0.25
	done
	return 1
}

# row LABEL PANE: the two figures at the end of a metric row
row() { cap "$2" | awk -v l="$1" 'index($0, " " l " ") == 1 { print $(NF - 1), $NF; exit }'; }

positive() { awk -v v="$1" 'BEGIN { gsub(",", "", v); exit !(v + 0 > 0) }'; }

both_positive() { # both_positive "A B"
	set -- $1
	[ $# = 2 ] && positive "$1" && positive "$2"
}

# dev_mib PANE DEV PATH: MiB/s of that row of the device table
dev_mib() { cap "$1" | awk -v d="$2" -v p="$3" '$1 == d && $2 == p { print $3; exit }'; }

# the device the bio figures are filtered to, if any
filter_dev() { cap "$1" | sed -nE 's/^ bios\/s ([a-z0-9]+) .*/\1/p'; }

# the distinct devices in the device table
table_devs() {
	cap "$1" | awk '/^ DEVICE /  { t = 1; next }
			/q quit/     { t = 0 }
			t && NF >= 6 { print $1 }' | sort -u | tr '\n' ' ' |
		sed 's/ $//'
}

two_figures() { # two_figures LABEL PANE
	set -- $(row "$1" "$2")
	[ $# = 2 ]
}

# a pane that shows the whole layout: title, columns, panel, table, keys
whole() {
	local s
	s=$(cap "$1")
	grep -q '^ bhprof ' <<<"$s" &&
		grep -Eq '─ bh +─+ iomap$' <<<"$s" &&
		grep -q 'write calls/s' <<<"$s" &&
		grep -q 'bh per MiB' <<<"$s" &&
		grep -q 'MiB/s history' <<<"$s" &&
		grep -q 'since reset' <<<"$s" &&
		grep -q 'DEVICE' <<<"$s" &&
		grep -q 'q quit  p pause' <<<"$s"
}

# ---- the workload: bh on a raw loop device, iomap on XFS ----
new_loop 256 || { bad "losetup"; finish; }
RAW=$LOOP
new_loop 512 || { bad "losetup"; finish; }
XFS=$LOOP
R=$(basename "$RAW")
X=$(basename "$XFS")
mkfs.xfs -q -f "$XFS" || { bad "mkfs.xfs"; finish; }
mkdir -p "$WORK/xfs" && mount "$XFS" "$WORK/xfs" && MOUNTS+=("$WORK/xfs")
(
	while [ ! -e "$WORK/stop" ]; do
		dd if=/dev/zero of="$RAW" bs=1M count=16 conv=fsync status=none
		dd if=/dev/zero of="$WORK/xfs/f" bs=256k count=32 conv=fsync \
			status=none
	done
) &
WRITER=$!

# ---- the screen at 120x40 ----
start main 120 40 -i 0.5 -d "$R" -d "$X"
check "screen: comes up with the header" wait_for main 15 '^ bhprof  kernel '
check "screen: kernel release and CONFIG_BUFFER_HEAD in the header" \
	shows main "kernel $(uname -r)  CONFIG_BUFFER_HEAD=[yn?]  interval 0.5 s"
check "screen: attach modes shown" wait_for main 5 '^attach .*(tp|fentry|kprobe)'
check "screen: both column headers, bh and iomap" whole main

# both paths busy in the same interval; the writer alternates, so poll
busy=0
for _ in $(seq 60); do
	if both_positive "$(row 'write MiB/s' main)" &&
	   positive "$(dev_mib main "$R" bh)" &&
	   positive "$(dev_mib main "$X" iomap)"; then
		busy=1
		break
	fi
	sleep 0.25
done
cap main >"$WORK/screen-120x40.txt"
echo "     write MiB/s: $(row 'write MiB/s' main);" \
     "$R bh $(dev_mib main "$R" bh) MiB/s, $X iomap $(dev_mib main "$X" iomap) MiB/s"
check "screen: non-zero MiB/s on both paths and both devices" [ $busy = 1 ]
check "screen: the better value of a pair is highlighted" highlighted main

a=$(cap main | sed -n '5,16p')
sleep 1.6
b=$(cap main | sed -n '5,16p')
check "screen: figures change between two captures" [ "$a" != "$b" ]

# ---- keys ----
T send-keys -t main p
check "p: PAUSED in the header" wait_for main 3 'PAUSED'
a=$(cap main)
sleep 1.6
b=$(cap main)
check "p: the display is frozen" [ "$a" = "$b" ]
T send-keys -t main p
check "p again: live again" wait_gone main 3 'PAUSED'

sleep 2
before=$(cap main | sed -nE 's/.*since reset ([0-9.]+) s.*/\1/p')
T send-keys -t main r
sleep 0.3
after=$(cap main | sed -nE 's/.*since reset ([0-9.]+) s.*/\1/p')
echo "     since reset: ${before:-?} s before r, ${after:-?} s after"
check "r: totals start again" \
	awk -v a="${before:-0}" -v b="${after:-99}" 'BEGIN { exit !(a >= 2 && b < 1) }'

T send-keys -t main +
check "+: interval 0.5 s -> 1 s" wait_for main 3 'interval 1 s'
T send-keys -t main -
check "-: interval 1 s -> 0.5 s" wait_for main 3 'interval 0.5 s'
T send-keys -t main -
check "-: interval 0.5 s -> 0.2 s" wait_for main 3 'interval 0.2 s'
T send-keys -t main +

T send-keys -t main d
check "d: bio figures filtered to the first device" \
	wait_for main 3 "^ bios/s ($R|$X) "
first=$(filter_dev main)
T send-keys -t main d
sleep 0.5
second=$(filter_dev main)
echo "     d: ${first:-?}, then ${second:-?}"
check "d: then the next device" \
	[ -n "$second" ] && [ "$second" != "$first" ]
check "d: the device table shows that device alone" \
	[ "$(table_devs main)" = "$second" ]
for _ in $(seq 8); do
	cap main | grep -q '^ bios/s  ' && break
	T send-keys -t main d
	sleep 0.3
done
check "d: back to all devices" wait_for main 2 '^ bios/s  '

T send-keys -t main Tab
check "tab: bio size view" \
	wait_for main 3 '^ +[0-9]+( (B|KiB|MiB))?-[0-9]+ (B|KiB|MiB|GiB)  '
T send-keys -t main Tab
check "tab: buffer_head view" wait_for main 3 '^ per MiB written '
T send-keys -t main Tab
check "tab: read view" wait_for main 3 '^ read MiB/s '
T send-keys -t main Tab
# the filesystems view: the XFS file's row on iomap, the raw device's on bh
check "tab: filesystems view" wait_for main 3 '^ xfs/iomap +[0-9]'
check "tab: filesystems view, the raw device" shows main '^ bdev/bh +[0-9]'
T send-keys -t main Tab
check "tab: back to the latency view" \
	wait_for main 3 '^ +[0-9]+( (ns|us|ms|s))?-[0-9]+ (ns|us|ms|s)  '

T send-keys -t main i
check "i: the read view" wait_for main 3 '^ read bios/s '
T send-keys -t main i
check "i: and back to the latency view" \
	wait_for main 3 '^ +[0-9]+( (ns|us|ms|s))?-[0-9]+ (ns|us|ms|s)  '

T send-keys -t main h
check "h: help overlay" wait_for main 3 'bhprof top: keys'
T send-keys -t main x
check "h: any key closes it" wait_gone main 3 'bhprof top: keys'

# ---- resizing ----
T resize-window -t main -x 80 -y 24
sleep 0.6
cap main >"$WORK/screen-80x24.txt"
check "resize 80x24: layout whole" whole main
check "resize 80x24: both figures on each metric row" \
	two_figures 'write calls/s' main
check "resize 80x24: nothing past the right edge" \
	not shows main '.{81}'
T resize-window -t main -x 60 -y 16
check "resize 60x16: says the terminal is too small" \
	wait_for main 3 'terminal too small \(need 80x24, have 60x16\)'
T resize-window -t main -x 79 -y 40
check "resize 79x40: still too small" wait_for main 3 'have 79x40'
T resize-window -t main -x 120 -y 40
sleep 0.6
check "resize back to 120x40: layout whole again" whole main
check "resize back: nothing stale left" not shows main 'too small'

# ---- q ----
T send-keys -t main q
check "q: bhprof exits" stopped main
check "q: exit status 0" [ "$(exit_status main)" = 0 ]
check "q: terminal restored" restored main
check "q: nothing on stderr" [ ! -s "$WORK/err.main" ]

# ---- ^C and SIGTERM restore the terminal too ----
start intr 100 30 -i 0.5
wait_for intr 15 '^ bhprof ' || bad "^C: screen did not come up"
T send-keys -t intr C-c
check "^C: bhprof exits" stopped intr
check "^C: exit status 0" [ "$(exit_status intr)" = 0 ]
check "^C: terminal restored" restored intr

start term 100 30 -i 0.5
wait_for term 15 '^ bhprof ' || bad "SIGTERM: screen did not come up"
pid=$(pgrep -P "$(T display -p -t term '#{pane_pid}')" -x bhprof)
[ -n "$pid" ] && kill -TERM "$pid"
check "SIGTERM: bhprof exits" stopped term
check "SIGTERM: terminal restored" restored term

# ---- -o FILE records while the screen is up ----
start rec 100 30 -i 0.5 -o "$WORK/top.bhp"
check "-o: REC shown while recording" wait_for rec 15 'REC .*top\.bhp'
sleep 2
T send-keys -t rec q
stopped rec
check "-o: exit status 0" [ "$(exit_status rec)" = 0 ]
"$BHPROF" report "$WORK/top.bhp" >"$WORK/report.txt" 2>&1
check "-o: bhprof report reads the recording" [ $? = 0 ]
check "-o: the recording says q stopped it" grep -q "q in bhprof top" "$WORK/report.txt"

# ---- plain: a pipe, and --plain on a terminal ----
"$BHPROF" top -i 0.5 --duration 2.2 -d "$R" >"$WORK/plain.txt" 2>&1
check "pipe: one plain block per interval" \
	[ "$(grep -Ec '^path +calls/s' "$WORK/plain.txt")" -ge 3 ]
check "pipe: no terminal control sequences" \
	not grep -q $'\e' "$WORK/plain.txt"
check "pipe: both paths in each block" \
	[ "$(grep -c '^bh ' "$WORK/plain.txt")" = "$(grep -c '^iomap ' "$WORK/plain.txt")" ]
check "pipe: the other group in each block" \
	[ "$(grep -c '^bh ' "$WORK/plain.txt")" = "$(grep -c '^other ' "$WORK/plain.txt")" ]
# a tmpfs file is on neither path: its 64 writes in the other group's row
mkdir -p "$WORK/tmpfs" && mount -t tmpfs tmpfs "$WORK/tmpfs" && MOUNTS+=("$WORK/tmpfs")
# (and a last interval of under 10 ms is no block: the sleep)
"$BHPROF" top -i 5 -- sh -c "dd if=/dev/zero of='$WORK/tmpfs/f' bs=64k \
	count=64 status=none; sleep 0.3" >"$WORK/other.txt" 2>&1
check "pipe: a tmpfs file's writes on the other group's row" \
	awk '/^bhprof top/ { secs = $(NF - 1) }
	     $1 == "other" { n += $2 * secs }
	     END { exit !(n > 60 && n < 68) }' "$WORK/other.txt"
# a command done before the first interval still gets its block
"$BHPROF" top -i 5 -d "$R" -- dd if=/dev/zero of="$RAW" bs=1M count=8 \
	conv=fsync status=none >"$WORK/short.txt" 2>&1
check "pipe: a command shorter than the interval still shows" \
	awk '$1 == "bh" && $3 > 0 { found = 1 } END { exit !found }' \
	"$WORK/short.txt"
start plain 100 30 -i 0.5 --duration 1.6 --plain
check "--plain on a terminal: text blocks" stopped plain
check "--plain on a terminal: blocks on the screen" \
	shows plain '^path +calls/s'
check "--plain on a terminal: no curses screen" not shows plain 'q quit'

echo "     --- the screen at 120x40 ---"
sed 's/^/     | /' "$WORK/screen-120x40.txt"
echo "     --- at 80x24 ---"
sed 's/^/     | /' "$WORK/screen-80x24.txt"
finish
