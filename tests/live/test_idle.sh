#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A path that saw nothing reads "nothing measured", never a zero that
# looks real (issue 21), in every output: a raw loop device takes
# buffer_head writes while iomap stays idle. The recorded outputs (report
# text, JSON, CSV, HTML), the live ones (top in tmux, serve's /metrics),
# per-MiB figures on a run that wrote 2 KiB to ext4 with 1 KiB blocks,
# and gate on recordings of an idle path. The bytes written are checked
# against /proc/diskstats.
. "$(dirname "$0")/lib.sh"
need_root idle

for tool in jq tmux curl mkfs.ext4; do
	command -v $tool >/dev/null || { bad "idle: $tool not installed"; finish; }
done

# all COND...: every condition holds (check runs one command, so a
# '[ a ] && [ b ]' after it would test only the first)
all() {
	local c
	for c; do eval "$c" || return 1; done
}

SOCK=bhprof-idle-$$
SERVE_PID=
idle_cleanup() {
	tmux -L "$SOCK" kill-server 2>/dev/null
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID"
	cleanup
}
trap idle_cleanup EXIT

new_loop 128 || { bad "losetup"; finish; }
RAW=$LOOP
RAWN=$(basename "$RAW")
new_loop 64 || { bad "losetup"; finish; }
EXT=$LOOP
mkfs.ext4 -q -F -b 1024 "$EXT" && mkdir "$WORK/ext" && mount "$EXT" "$WORK/ext" &&
	MOUNTS+=("$WORK/ext") || { bad "mkfs.ext4/mount"; finish; }

# --- a recording with iomap idle
MIB=8
sync
d0=$(diskstats_bytes "$RAW")
"$BHPROF" record -o "$WORK/bh.bhp" -d "$RAWN" -i 0.2 -- \
	dd if=/dev/zero of="$RAW" bs=64k count=$((MIB * 16)) conv=fsync status=none \
	2>"$WORK/rec.err"
check "record a buffer_head-only write" [ $? = 0 ]
d1=$(diskstats_bytes "$RAW")
check "diskstats: the device took the $MIB MiB ($((d1 - d0)) bytes)" \
	[ $((d1 - d0)) -ge $((MIB << 20)) ]

"$BHPROF" report --json "$WORK/bh.bhp" >"$WORK/r.json" 2>/dev/null
j() { jq -r "$1" "$WORK/r.json"; }
check "json: bh wrote the $MIB MiB, iomap nothing" \
	[ "$(j '[.paths.bh.write.bytes, .paths.iomap.write.calls, .paths.iomap.bio.count] | join(" ")')" = "$((MIB << 20)) 0 0" ]
check "json: bio bytes agree with diskstats within 1%" \
	close_to "$(j .paths.bh.bio.bytes)" $((d1 - d0)) 1

# text: every figure from samples reads "-" on iomap, counts stay 0
"$BHPROF" report "$WORK/bh.bhp" >"$WORK/r.txt" 2>/dev/null
cell() { # cell LABEL COLUMN(1 bh, 2 iomap) from the summary rows
	awk -v l="$1" -v c="$2" 'index($0, l) == 1 {
		n = split(substr($0, 25), f, /  +/); k = 0
		for (i = 1; i <= n; i++) if (f[i] != "") v[++k] = f[i]
		print v[c]; exit }' "$WORK/r.txt"
}
for row in "write lat p50" "write lat p99" "write lat max" "bio size p50" \
	   "bio size p99" "bio size max" "bh per MiB" "bios per MiB" \
	   "bh per write call" "bh per wb page"; do
	check "text: iomap '$row' is '-' (got '$(cell "$row" 2)')" [ "$(cell "$row" 2)" = - ]
	v=$(cell "$row" 1)
	check "text: bh '$row' is a figure ($v)" all '[ "$v" != - ]' '[ -n "$v" ]'
done
check "text: iomap write calls are a measured 0" [ "$(cell "write calls" 2)" = 0 ]
check "text: bh per write call is 64 KiB / 4 KiB = 16 ($(cell "bh per write call" 1))" \
	[ "$(cell "bh per write call" 1)" = 16.00 ]
check "text: no 'nan' anywhere" [ "$(grep -ci nan "$WORK/r.txt")" = 0 ]

# JSON: null, and one reason per null figure in the "why" beside it
# (recording and command are metadata: a null there is "none")
nulls_without_why='. as $doc | [paths(. == null)] as $n |
	[$n[] | select(.[-1] != "why" and .[0] != "recording" and .[0] != "command")] |
	map(. as $p | ($p[:-1]) as $o | $p[-1] as $k |
	    # the object that holds the why: the path itself, a device, a
	    # filesystem'"'"'s row, or the top
	    (if ($o | length) >= 2 and $o[0] == "paths" then $o[:2]
	     elif ($o | length) >= 2 and $o[0] == "devices" then $o[:2]
	     elif ($o | length) >= 2 and $o[0] == "filesystems" then $o[:2]
	     elif ($o | length) >= 4 and $o[0] == "intervals" then $o[:4]
	     else [] end) as $w |
	    ($p[($w | length):] | map(tostring) | join(".")) as $key |
	    select($doc | getpath($w + ["why", $key]) | type != "string") |
	    map(tostring) | join(".")) | join(" ")'
missing=$(jq -r "$nulls_without_why" "$WORK/r.json" 2>&1)
rc=$?
nnull=$(jq '[paths(. == null) | select(.[0] != "recording" and .[0] != "command")] | length' "$WORK/r.json")
check "json: each of $nnull null figures has its reason in a 'why'${missing:+ (missing: $missing)}" \
	all '[ $rc = 0 ]' '[ -z "$missing" ]' '[ "$nnull" -gt 20 ]'
check "json: iomap write latency null, why 'no write call'" \
	[ "$(j '.paths.iomap.write.lat_ns == null and (.paths.iomap.why["write.lat_ns"] | test("no write call"))')" = true ]
check "json: iomap bio sizes and bh per MiB null" \
	[ "$(j '[.paths.iomap.bio.size_bytes, .paths.iomap.bh_per_mib, .paths.iomap.bh_per_write_call] | all(. == null)')" = true ]
check "json: iomap counts stay a measured 0" \
	[ "$(j '[.paths.iomap.write.calls, .paths.iomap.bio.count, .paths.iomap.bh_alloc] | join(" ")')" = "0 0 0" ]
check "json: bh per write call = bh_alloc / calls, per page = bh_alloc / pages" \
	[ "$(j '.paths.bh | (.bh_per_write_call == .bh_alloc / .write.calls) and (.bh_per_wb_page == .bh_alloc / .writeback.pages)')" = true ]
check "json: no interval shows an iomap latency" \
	[ "$(j '[.intervals[].paths.iomap.write_lat_p99_ns] | all(. == null)')" = true ]

# CSV: empty cells where the JSON has null
"$BHPROF" report --csv "$WORK/bh.bhp" >"$WORK/r.csv" 2>/dev/null
check "csv: iomap rows leave latency and bh per MiB empty" \
	[ "$(awk -F, '$3 == "iomap" && ($11 != "" || $12 != "" || $15 != "")' "$WORK/r.csv" | wc -l)" = 0 ]
check "csv: iomap rows count 0 write calls" \
	[ "$(awk -F, '$3 == "iomap" && $4 != "0"' "$WORK/r.csv" | wc -l)" = 0 ]
check "csv: a bh row has its latency" \
	[ "$(awk -F, '$3 == "bh" && $4 > 0 && $12 != ""' "$WORK/r.csv" | wc -l)" -gt 0 ]

# HTML: "-" with a title that says why; the verdict first
"$BHPROF" report --html "$WORK/r.html" "$WORK/bh.bhp" 2>/dev/null
check "html: iomap latency is '-' titled 'no write call on this path'" \
	grep -q '<tr><th>write latency p50</th><td>[^<]*</td><td class="unknown" title="no write call on this path">-</td></tr>' "$WORK/r.html"
check "html: iomap bh per MiB is '-' titled 'under 1 MiB'" \
	grep -q '<tr><th>bh allocations per MiB</th><td>[^<]*</td><td class="unknown" title="under 1 MiB written on this path">-</td>' "$WORK/r.html"
# (write bytes "0 B" is a measured zero: a count, not a size)
check "html: no '0 ns' latency or '0 B' size cell in the summary" \
	[ "$(sed -n '/<table id="summary">/,/<\/table>/p' "$WORK/r.html" |
	     grep -E 'latency|size' | grep -cE '<td>0 (ns|B)</td>')" = 0 ]
check "html: the charts draw no iomap bar and name it 'iomap: none'" \
	all '[ "$(grep -c "<rect class=\"bar iomap\"" "$WORK/r.html")" = 0 ]' \
	    'grep -q ">iomap: none<" "$WORK/r.html"'
check "html: the summary is the first table, the probes fold in <details>" \
	[ "$(grep -o '<table id="[a-z-]*"\|<details' "$WORK/r.html" | tr '\n' ' ')" = '<table id="summary" <table id="filesystems" <table id="metadata" <details <table id="probe-table" ' ]

# --- per MiB on 2 KiB written: 800 writes of 3 bytes, 1 KiB blocks
"$BHPROF" record -o "$WORK/tiny.bhp" -d "$(basename "$EXT")" -- \
	dd if=/dev/zero of="$WORK/ext/f" bs=3 count=800 conv=fsync status=none \
	2>"$WORK/tiny.err"
check "record 800 writes of 3 bytes to ext4" [ $? = 0 ]
"$BHPROF" report --json "$WORK/tiny.bhp" >"$WORK/t.json" 2>/dev/null
t() { jq -r "$1" "$WORK/t.json"; }
echo "     tiny: $(t '.paths.bh | "\(.write.calls) calls, \(.write.bytes) B, \(.bh_alloc) bh, per call \(.bh_per_write_call)"')"
check "tiny: 800 write calls of 2400 bytes on bh" \
	[ "$(t '[.paths.bh.write.calls, .paths.bh.write.bytes] | join(" ")')" = "800 2400" ]
check "tiny: bh per MiB is null, why 'under 1 MiB written'" \
	[ "$(t '.paths.bh.bh_per_mib == null and (.paths.bh.why.bh_per_mib | test("under 1 MiB"))')" = true ]
check "tiny: bh per write call is there instead" \
	[ "$(t '.paths.bh | .bh_per_write_call == .bh_alloc / .write.calls')" = true ]
"$BHPROF" report "$WORK/tiny.bhp" >"$WORK/r.txt" 2>/dev/null
check "tiny text: bh per MiB reads '-'" [ "$(cell "bh per MiB" 1)" = - ]
"$BHPROF" gate --baseline "$WORK/tiny.bhp" --candidate "$WORK/tiny.bhp" \
	--rule 'bh.bh_alloc_per_mib <= +0%' >"$WORK/g.txt" 2>"$WORK/g.err"
rc=$?
check "tiny: gate's per-MiB rule is n/a (idle), exit 2 ($rc)" \
	all '[ $rc = 2 ]' "grep -Eq '^bh.bh_alloc_per_mib <= \+0% .* n/a \(idle\)$' $WORK/g.txt"

# --- gate, 5 recordings a side of the buffer_head-only workload
for s in a b; do
	for i in 1 2 3 4 5; do
		"$BHPROF" record -o "$WORK/g-$s$i.bhp" -d "$RAWN" -- \
			dd if=/dev/zero of="$RAW" bs=64k count=64 conv=fsync \
			status=none 2>/dev/null || bad "record g-$s$i"
	done
done
G=(--baseline "$WORK"/g-a*.bhp --candidate "$WORK"/g-b*.bhp)
"$BHPROF" gate "${G[@]}" >"$WORK/g.txt" 2>/dev/null
rc=$?
sed 's/^/     /' "$WORK/g.txt"
check "gate: the bh rules judged, exit 0 or 1 ($rc)" [ $rc -le 1 ]
check "gate: the 6 iomap rules are n/a (idle) in the table" \
	[ "$(grep -cE '^iomap\.[^ ]+ .* n/a \(idle\)$' "$WORK/g.txt")" = 6 ]
check "gate: no iomap rule passes" [ "$(grep -cE '^iomap\..* pass' "$WORK/g.txt")" = 0 ]
"$BHPROF" gate "${G[@]}" --json >"$WORK/g.json" 2>/dev/null
check "gate --json: 6 n/a (idle), Holm over the 6 judged" \
	[ "$(jq -r '[([.rules[] | select(.verdict == "n/a (idle)")] | length), .judged] | join(" ")' "$WORK/g.json")" = "6 6" ]
check "gate --json: no change or interval below -100%" \
	[ "$(jq '[.rules[] | .change_pct // 0, (.ci_pct // [] | .[] // 0)] | all(. >= -100)' "$WORK/g.json")" = true ]
"$BHPROF" gate "${G[@]}" --ktap >"$WORK/g.ktap" 2>/dev/null
check "gate --ktap: the 6 iomap rules are SKIP n/a (idle)" \
	[ "$(grep -cE '^ok [0-9]+ iomap\..* # SKIP n/a \(idle\)$' "$WORK/g.ktap")" = 6 ]
"$BHPROF" gate "${G[@]}" --rule 'iomap.write.lat.p99 <= +10%' \
	--rule 'iomap.bio.size.p50 >= -10%' --junit "$WORK/g.xml" >/dev/null 2>"$WORK/g.err"
rc=$?
check "gate: every rule by hand n/a: exit 2 ($rc), one line on stderr" \
	all '[ $rc = 2 ]' '[ "$(wc -l <"$WORK/g.err")" = 1 ]'
check "gate --junit: both rules <skipped/> as n/a (idle)" \
	[ "$(grep -c '<skipped message="n/a (idle): ' "$WORK/g.xml")" = 2 ]

# --- live: top in tmux while only the raw device is written
T() { tmux -L "$SOCK" "$@"; }
T new-session -d -s top -x 120 -y 40 "LANG=C.UTF-8 $BHPROF top -d $RAWN 2>$WORK/top.err; sleep 600"
for _ in 1 2 3 4 5 6; do
	dd if=/dev/zero of="$RAW" bs=64k count=64 conv=fsync status=none
	sleep 0.3
done
T capture-pane -p -t top >"$WORK/top.txt"
# the iomap column is the last field of a row
icell() { awk -v l="$1" 'index($0, " " l) == 1 { print $NF; exit }' "$WORK/top.txt"; }
sed -n 5,18p "$WORK/top.txt" | sed 's/^/     /'
check "tui: bh shows write latency" \
	grep -qE '^ write lat p99 +[0-9.]+ (ns|us|ms) +-$' "$WORK/top.txt"
for row in "write lat p50" "write lat p99" "mean bio" "bh per MiB"; do
	check "tui: iomap '$row' reads '-' ($(icell "$row"))" [ "$(icell "$row")" = - ]
done
check "tui: no 'nan' on screen" [ "$(grep -ci nan "$WORK/top.txt")" = 0 ]
T send-keys -t top q

# --- live: /metrics with iomap idle
"$BHPROF" serve --listen 127.0.0.1:0 -d "$RAWN" --duration 120 2>"$WORK/serve.err" &
SERVE_PID=$!
for _ in $(seq 100); do
	grep -q "serving http" "$WORK/serve.err" && break
	sleep 0.1
done
URL=$(grep -o 'http://[0-9.:]*/metrics' "$WORK/serve.err")
dd if=/dev/zero of="$RAW" bs=64k count=64 conv=fsync status=none
curl -s -m 5 -o "$WORK/m.prom" "$URL"
check "metrics: scraped ($URL)" [ -s "$WORK/m.prom" ]
check "metrics: bh wrote (its write counter is above 0)" \
	awk '/^bhprof_write_calls_total\{.*path="bh".*io="buffered"/ && $2 > 0 { f = 1 } END { exit !f }' "$WORK/m.prom"
check "metrics: the idle iomap keeps its write latency histogram, count 0" \
	grep -qE '^bhprof_write_latency_seconds_count\{path="iomap",io="buffered"\} 0$' "$WORK/m.prom"
check "metrics: the idle iomap keeps its bio size histogram, count 0" \
	grep -qE '^bhprof_bio_size_bytes_count\{path="iomap"\} 0$' "$WORK/m.prom"
check "metrics: the idle iomap keeps its bio counter at 0" \
	grep -qE '^bhprof_bios_total\{path="iomap"\} 0$' "$WORK/m.prom"
# (the text format types an info metric as a gauge of 1)
gauges=$(awk '$1 == "#" && $2 == "TYPE" && $4 == "gauge" && $3 !~ /_info$/ { print $3 }' \
	"$WORK/m.prom" | sort | tr '\n' ' ')
check "metrics: no derived gauge, only the process ones ($gauges)" \
	[ "$gauges" = "process_resident_memory_bytes process_start_time_seconds " ]
kill "$SERVE_PID" && wait "$SERVE_PID"
SERVE_PID=

finish
