#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# --callers on this host (tracepoints only here: the stacks come from the
# kmem_cache_alloc tracepoint program): chains add up to every
# allocation, the folded output of record and report says what the JSON
# says, the HTML flame graph's boxes add up, and a run without --callers
# loads none of its programs.
. "$(dirname "$0")/lib.sh"
need_root callers
new_loop 64 || { bad "losetup"; finish; }
mkfs.ext4 -q -F -b 1024 "$LOOP" || { bad "mkfs.ext4"; finish; }
mkdir -p "$WORK/mnt"
mount "$LOOP" "$WORK/mnt" || { bad "mount"; finish; }
MOUNTS+=("$WORK/mnt")
M=$WORK/mnt

load() {
	for d in 1 2 3; do
		mkdir -p "$M/d$d/e"
		for f in $(seq 20); do echo "$f" > "$M/d$d/e/f$f"; done
		mv "$M/d$d/e/f1" "$M/d$d/g"
		rm "$M/d$d/e/f2"
	done
	sync
}

"$BHPROF" record -o "$WORK/run.bhp" -i 0.2 --callers \
	--folded "$WORK/rec.folded" -- bash -c "$(declare -f load); M=$M load" \
	2> "$WORK/record.err"
check "record --callers ran" test $? = 0
"$BHPROF" report --json --folded "$WORK/rep.folded" "$WORK/run.bhp" \
	> "$WORK/rep.json"
check "report --json --folded ran" test $? = 0
total=$(jq '.bh_alloc_total' "$WORK/rep.json")
chains=$(jq '[.callers.chains[].count] | add // 0' "$WORK/rep.json")
owners=$(jq '[.callers.owners[].count] | add // 0' "$WORK/rep.json")
echo "   $total allocations, chains $chains, owners $owners, lost $(jq .callers.lost "$WORK/rep.json")"
check "allocations were made" test "${total:-0}" -gt 0
check "chains add up to every allocation" \
	test "$chains" = "$total" -a "$(jq .callers.lost "$WORK/rep.json")" = 0
check "owners add up to every allocation" test "$owners" = "$total"
# folded lines "chain count", as the JSON's {chain: count}
folded_json() {
	jq -R -s 'split("\n") | map(select(length > 0) |
		capture("^(?<c>.*) (?<n>[0-9]+)$") | { key: .c, value: (.n | tonumber) }) |
		from_entries' "$1"
}
want=$(jq -S '.callers.chains | map({ key: .chain, value: .count }) | from_entries' "$WORK/rep.json")
check "record --folded = report JSON" test "$(folded_json "$WORK/rec.folded" | jq -S .)" = "$want"
check "report --folded = report JSON" test "$(folded_json "$WORK/rep.folded" | jq -S .)" = "$want"
check "chains end in alloc_buffer_head" \
	test "$(jq '[.callers.chains[] | select(.frames[-1] != "alloc_buffer_head")] | length' "$WORK/rep.json")" = 0
top=$(jq -r '[.callers.chains[:3][] | "\(.count) \(.name)"] | join("; ")' "$WORK/rep.json")
echo "   top chains: $top"
check "the alive figures are known" \
	test "$(jq '.bh_alive.net == .bh_alive.allocated - .bh_alive.freed and .bh_alive.bh_size > 0' "$WORK/rep.json")" = true

"$BHPROF" report --html "$WORK/run.html" "$WORK/run.bhp"
check "report --html ran" test $? = 0
check "no script in the page" bash -c "! grep -qi '<script' '$WORK/run.html'"
out=$(python3 "$(dirname "$0")/flame_check.py" "$WORK/run.html" "$total" 2>&1)
check "flame graph boxes add up ($out)" test $? = 0

# owner and free programs the kernel refuses (a test build whose callers
# group cannot load): the chains still add up, the rest is unknown
FAULT=$(dirname "$BHPROF")/.output/fault-callers/bhprof
if [ -x "$FAULT" ]; then
	"$FAULT" stat --callers --json -- bash -c "$(declare -f load); M=$M load" \
		> "$WORK/fault.json" 2> "$WORK/fault.err"
	check "refused owners: the run goes on" test $? = 0
	check "refused owners: chains still add up" \
		test "$(jq '[.callers.chains[].count] | add // 0' "$WORK/fault.json")" = "$(jq .bh_alloc_total "$WORK/fault.json")"
	check "refused owners: alive unknown, not 0" \
		test "$(jq -c '[.bh_alive.net, .bh_alive.freed, .callers.owners_mode]' "$WORK/fault.json")" = '[null,null,"none"]'
else
	bad "refused owners: $FAULT not built (make faults)"
fi

# without --callers, none of its programs is loaded (counted over every
# program on the machine, less those there before: bpftool here cannot
# tell whose a program is)
callers_progs() {
	bpftool -j prog show 2> /dev/null |
		jq '[.[] | select(.name | test("_bh_alloc_c$|_bh_free$|_own_"))] | length'
}
progs() { # progs OPTIONS...: callers programs bhprof added while it ran
	local base n pid
	closers_done
	base=$(callers_progs)
	"$BHPROF" stat "$@" --duration 3 > /dev/null 2>&1 &
	pid=$!
	sleep 2
	n=$(callers_progs)
	wait $pid
	echo $((n - base))
}
with=$(progs --callers)
without=$(progs)
check "--callers loads its programs ($with)" test "$with" -gt 0
check "no --callers: none of them ($without)" test "$without" = 0

# top: the callers view is a tab of a --callers run only; Tab passes it by
# without. The load runs while top shows it.
if command -v tmux > /dev/null; then
	tabs_to() { # tabs_to N: the tab bar after N presses of Tab
		local i
		for i in $(seq "$1"); do tmux send-keys -t cal Tab; sleep 0.3; done
		sleep 0.8
		tmux capture-pane -p -t cal
	}
	tmux kill-session -t cal 2> /dev/null
	tmux new-session -d -s cal -x 120 -y 40 "$BHPROF top -i 0.5 --callers"
	sleep 3
	( M=$M load ) > /dev/null 2>&1
	scr=$(tabs_to 4)
	check "top --callers: Tab reaches the callers view" \
		grep -q '^ *caller .*owner' <<< "$scr"
	check "top --callers: it names a caller and the buffer_heads alive" \
		grep -Eq '^ +[0-9]+ [a-z_0-9]+.*|alive [+-][0-9]+' <<< "$scr"
	tmux kill-session -t cal 2> /dev/null
	tmux new-session -d -s cal -x 120 -y 40 "$BHPROF top -i 0.5"
	sleep 3
	scr=$(tabs_to 4)
	check "top without --callers: no callers tab, Tab wraps to latency" \
		bash -c '! grep -q " callers " <<< "$1" && grep -q " write latency " <<< "$1"' _ "$scr"
	tmux kill-session -t cal 2> /dev/null
else
	bad "top --callers: no tmux (tests/install-deps.sh installs it)"
fi
finish
