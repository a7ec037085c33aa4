#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bhprof serve as a Prometheus exporter on this machine's kernel: promtool
# on both formats, a real Prometheus (Debian's) scraping every second
# while known writes go to a raw loop device (bh) and an XFS one (iomap),
# PromQL answers against /proc/diskstats and bhprof stat, 1000 scrapes
# from 8 clients, bad clients, and a textfile that is never seen partial.
. "$(dirname "$0")/lib.sh"
need_root serve

for tool in promtool prometheus curl ss mkfs.xfs; do
	if ! command -v "$tool" >/dev/null; then
		bad "serve: $tool not installed (tests/install-deps.sh installs it)"
		finish
	fi
done

SERVE_PID=
PROM_PID=
FAULT_PID=
stop_servers() {
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null
	[ -n "$FAULT_PID" ] && kill "$FAULT_PID" 2>/dev/null
	[ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null
	wait 2>/dev/null
}
trap 'stop_servers; cleanup' EXIT

MIB=32
new_loop 256 || { bad "losetup"; finish; }
RAW=$LOOP
new_loop 512 && XFS=$LOOP
mkfs.xfs -q -f "$XFS" || bad "mkfs.xfs"
mkdir -p "$WORK/xfs" && mount "$XFS" "$WORK/xfs" && MOUNTS+=("$WORK/xfs")
RAWN=$(basename "$RAW")
XFSN=$(basename "$XFS")
mkdir -p "$WORK/tf"

sync
blockdev --flushbufs "$RAW"
raw0=$(diskstats_bytes "$RAW")
xfs0=$(diskstats_bytes "$XFS")
"$BHPROF" serve --listen 127.0.0.1:0 -d "$RAWN" -d "$XFSN" --self-cost \
	--textfile "$WORK/tf" -i 0.1 --duration 300 2>"$WORK/serve.err" &
SERVE_PID=$!
for _ in $(seq 100); do
	grep -q "serving http" "$WORK/serve.err" && break
	kill -0 $SERVE_PID 2>/dev/null || break
	sleep 0.1
done
URL=$(grep -o 'http://[0-9.:]*/metrics' "$WORK/serve.err")
if [ -z "$URL" ]; then
	bad "serve did not start: $(head -c 300 "$WORK/serve.err")"
	finish
fi
PORT=${URL##*:}
PORT=${PORT%%/*}
ok "serve listens on $URL"

# scrape [CURL-ARGS...]: body in $WORK/body, headers in $WORK/head, code out
scrape() {
	curl -s -m 5 -D "$WORK/head" -o "$WORK/body" -w '%{http_code}' "$@"
}
good_scrape() { # good_scrape WHAT
	local code
	code=$(scrape "$URL")
	check "$1: then a good scrape ($code)" \
		grep -q '^bhprof_device_bio_bytes_total' "$WORK/body"
}

# --- both formats through promtool
code=$(scrape "$URL")
check "text: 200 and text/plain version 0.0.4 ($code)" \
	grep -qi '^content-type: text/plain; version=0.0.4' "$WORK/head"
promtool check metrics <"$WORK/body" >"$WORK/lint" 2>&1
rc=$?
check "text: promtool check metrics passes (rc $rc$([ -s "$WORK/lint" ] &&
	echo ": $(head -c 200 "$WORK/lint")"))" [ $rc = 0 -a ! -s "$WORK/lint" ]
# every family served has its row in README's table of metrics
undocumented=$(awk '/^# TYPE / { print $3 }' "$WORK/body" | while read -r m; do
	grep -q "\`$m\`" "$(dirname "$0")/../../README.md" || printf '%s ' "$m"
done)
check "text: README's table of metrics has every family served (missing: ${undocumented:-none})" \
	[ -z "$undocumented" ]

OM_ACCEPT='application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5'
code=$(scrape -H "Accept: $OM_ACCEPT" "$URL")
check "openmetrics: 200 and its content type ($code)" \
	grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$WORK/head"
check "openmetrics: ends with # EOF" [ "$(tail -n 1 "$WORK/body")" = "# EOF" ]
# promtool 2.42 reads only the text format (prometheus#8932): it takes
# OpenMetrics' family names (a counter without _total, type info) for
# other metrics. Rename those two, nothing else, and lint the rest; the
# unrenamed body goes through Prometheus's own OpenMetrics parser below.
awk 'NR == FNR { if ($1 == "#" && $2 == "TYPE") t[$3] = $4; next }
     $1 == "#" && ($2 == "TYPE" || $2 == "HELP") {
	sfx = t[$3] == "counter" ? "_total" : t[$3] == "info" ? "_info" : ""
	if (sfx != "") { $3 = $3 sfx; if ($2 == "TYPE") $4 = "gauge" }
	if (sfx == "_total" && $2 == "TYPE") $4 = "counter"
     }
     { print }' "$WORK/body" "$WORK/body" >"$WORK/om-as-text"
promtool check metrics <"$WORK/om-as-text" >"$WORK/lint" 2>&1
rc=$?
check "openmetrics: promtool check metrics passes on it (rc $rc$([ -s "$WORK/lint" ] &&
	echo ": $(head -c 200 "$WORK/lint")"))" [ $rc = 0 -a ! -s "$WORK/lint" ]

# --- a real Prometheus, 1 s scrapes
for _ in 1 2 3 4 5; do
	PPORT=$((20000 + RANDOM % 20000))
	ss -Htln "sport = :$PPORT" | grep -q . || break
done
cat >"$WORK/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: bhprof
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
prometheus --config.file="$WORK/prom.yml" --storage.tsdb.path="$WORK/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn \
	>"$WORK/prom.log" 2>&1 &
PROM_PID=$!
PROM=http://127.0.0.1:$PPORT

# q PROMQL: the first result's value, "" if none
q() {
	curl -s -m 5 "$PROM/api/v1/query" --data-urlencode "query=$1" |
		jq -r '.data.result[0].value[1] // empty' 2>/dev/null
}
for _ in $(seq 60); do
	[ "$(q 'up{job="bhprof"}')" = 1 ] && break
	sleep 0.5
done
check "prometheus scrapes bhprof serve (up == 1)" [ "$(q 'up{job="bhprof"}')" = 1 ]

"$BHPROF" stat --json -d "$RAWN" -d "$XFSN" -- sh -c \
	"dd if=/dev/zero of=$RAW bs=1M count=$MIB conv=fsync status=none &&
	 dd if=/dev/zero of=$WORK/xfs/f bs=1M count=$MIB conv=fsync status=none" \
	>"$WORK/stat.json" 2>"$WORK/stat.err" || bad "stat: $(cat "$WORK/stat.err")"
sync
sleep 1
raw_ds=$(($(diskstats_bytes "$RAW") - raw0))
xfs_ds=$(($(diskstats_bytes "$XFS") - xfs0))
t_done=$(date +%s)
# until Prometheus holds a sample taken after the disks settled
for _ in $(seq 40); do
	ts=$(q "timestamp(bhprof_bios_total{path=\"bh\"})")
	[ -n "$ts" ] && [ "${ts%.*}" -gt "$t_done" ] && break
	sleep 0.25
done
j() { jq -r "$1" "$WORK/stat.json"; }

for d in "$RAWN:$raw_ds" "$XFSN:$xfs_ds"; do
	name=${d%%:*}
	ds=${d#*:}
	got=$(q "sum(bhprof_device_bio_bytes_total{device=\"$name\"})")
	echo "     $name: PromQL written bytes $got, /proc/diskstats $ds"
	check "promql: $name written bytes equal /proc/diskstats within 1%" \
		close_to "${got:-0}" "$ds" 1
done
for p in bh iomap; do
	got=$(q "bhprof_bio_bytes_total{path=\"$p\"}")
	want=$(j ".paths.$p.bio.bytes")
	echo "     $p: PromQL bio bytes $got, stat $want"
	check "promql: $p bio bytes equal stat's" [ "${got:-x}" = "$want" ]
	got=$(q "sum(bhprof_write_bytes_total{path=\"$p\"})")
	want=$(($(j ".paths.$p.write.bytes") + $(j ".paths.$p.direct.bytes")))
	check "promql: $p written bytes equal stat's ($got, $want)" \
		[ "${got:-x}" = "$want" ]
done
check "the workload landed on both paths" \
	[ "$(j .paths.bh.bio.bytes)" -ge $((MIB << 20)) -a \
	  "$(j .paths.iomap.bio.bytes)" -ge $((MIB << 20)) ]

# within one bucket: the le buckets are powers of two
one_bucket() { # one_bucket A B
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0 && b > 0 && a <= 2 * b && b <= 2 * a) }'
}
for p in bh iomap; do
	got=$(q "histogram_quantile(0.99, bhprof_write_latency_seconds_bucket{path=\"$p\",io=\"buffered\"})")
	want=$(awk -v n="$(j ".paths.$p.write.lat_ns.p99")" 'BEGIN { print n / 1e9 }')
	echo "     $p: write p99 PromQL ${got}s, stat ${want}s"
	check "promql: $p write latency p99 within one bucket of stat's" \
		one_bucket "${got:-0}" "$want"
done
got=$(q 'histogram_quantile(0.99, bhprof_bio_size_bytes_bucket{path="iomap"})')
want=$(j .paths.iomap.bio.size_bytes.p99)
echo "     iomap: bio size p99 PromQL $got, stat $want"
check "promql: iomap bio size p99 within one bucket of stat's" \
	one_bucket "${got:-0}" "$want"
got=$(q 'bhprof_scrapes_total{format="openmetrics"}')
check "prometheus scraped OpenMetrics and its parser took it ($got scrapes)" \
	[ "${got:-0}" -gt 0 ]
got=$(q 'count(bhprof_run_info{buffer_head=~"y|n|unknown",attach_bio!=""})')
check "promql: the info metric carries buffer_head and attach modes" [ "$got" = 1 ]

# README's example queries, as printed there
readme_query() { # readme_query N: the Nth indented block after "### Scrape"
	awk -v n="$1" '/^### Scrape config/ { on = 1 } /^## / && !/Scrape/ { on = 0 }
		on && /^    / { if (!inb) blk++; inb = 1; if (blk == n) print substr($0, 5); next }
		{ inb = 0 }' "$(dirname "$0")/../../README.md"
}
qall() { # qall PROMQL: "path=value ..." of every series
	curl -s -m 5 "$PROM/api/v1/query" --data-urlencode "query=$1" |
		jq -r '[.data.result[] | "\(.metric.path)=\(.value[1])"] | join(" ")'
}
for n in 2 3 4; do
	query=$(readme_query $n)
	res=$(qall "$query")
	echo "     README query $n: $res"
	case $n in
	2) check "README: buffer_heads per MiB by kernel, > 0 on bh" \
		awk -v r="$res" 'BEGIN { exit !(r ~ /bh=[0-9]/ && r !~ /bh=0( |$)/) }' ;;
	*) check "README: query $n answers for bh and iomap" \
		awk -v r="$res" 'BEGIN { exit !(r ~ /bh=[0-9]/ && r ~ /iomap=[0-9]/) }' ;;
	esac
done
kill "$PROM_PID" 2>/dev/null
wait "$PROM_PID" 2>/dev/null
PROM_PID=

# --- 1000 scrapes from 8 parallel clients, each on one kept-alive
# connection
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$SERVE_PID/status"; }
rss0=$(rss)
start=$(date +%s.%N)
clients=()
for c in $(seq 8); do
	curl -s -m 60 -o /dev/null -w '%{stderr}%{http_code} %{time_total}\n' \
		"$URL?[1-125]" 2>"$WORK/lat.$c" &
	clients+=($!)
done
wait "${clients[@]}"
secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
rss1=$(rss)
cat "$WORK"/lat.* >"$WORK/lat"
n200=$(grep -c '^200 ' "$WORK/lat")
p99=$(awk '{ print $2 }' "$WORK/lat" | sort -n |
	awk '{ v[NR] = $1 } END { i = int(NR * 0.99 + 0.999999); printf "%.1f", v[i] * 1000 }')
echo "     1000 scrapes in ${secs}s: $n200 x 200, p99 ${p99} ms;" \
     "RSS ${rss0} KiB before, ${rss1} KiB after"
check "1000 parallel scrapes: none fails" [ "$n200" = 1000 ]
check "1000 parallel scrapes: RSS grows by less than 8 MiB" \
	[ $((rss1 - rss0)) -lt 8192 ]

# --- bad clients; bhprof serves after each
code=$(scrape "http://127.0.0.1:$PORT/nope")
check "unknown path: 404 ($code)" [ "$code" = 404 ]
good_scrape "unknown path"
code=$(scrape -X POST --data x "$URL")
check "POST: 405 with Allow: GET, HEAD ($code)" \
	grep -qi '^allow: GET, HEAD' "$WORK/head"
good_scrape POST
code=$(scrape -I "$URL")
check "HEAD: 200 without a body ($code)" \
	[ "$code" = 200 -a "$(grep -c '^bhprof_' "$WORK/body")" = 0 ]
printf 'X-Big: %s\n' "$(head -c 1048576 /dev/zero | tr '\0' a)" >"$WORK/bighdr"
code=$(scrape -H @"$WORK/bighdr" "$URL")
refused() { [ "$1" = 000 ] || [ "${1:0:1}" = 4 ]; }
check "a 1 MiB header: refused with 4xx or a closed connection ($code)" \
	refused "$code"
good_scrape "1 MiB header"

conns() { ss -Htn state established "( sport = :$PORT )" | wc -l; }
# a connection that sends nothing, and one that asks and never reads:
# libmicrohttpd drops both after its 5 s timeout. (Pipelined requests
# to stall the server harder are answered once, then the connection is
# closed: libmicrohttpd does not pipeline.)
timeout 20 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; cat <&3 >/dev/null" &
silent=$!
timeout 20 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT
	printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n' >&3
	sleep 19" 2>/dev/null &
stalled=$!
sleep 1
held=$(conns)
check "silent and stalled clients hold connections ($held)" [ "$held" -ge 2 ]
good_scrape "while a silent and a stalled client hold connections"
t0=$(date +%s)
wait $silent
check "a connection that sends nothing is closed after the timeout ($(($(date +%s) - t0 + 1)) s)" \
	[ $(($(date +%s) - t0)) -lt 15 ]
sleep 1
held=$(conns)
check "the stalled reader is dropped too ($held connections left)" [ "$held" = 0 ]
kill $stalled 2>/dev/null
wait $stalled 2>/dev/null
good_scrape "silent and stalled clients"

# --- the textfile: rewritten every 0.1 s, read without pause
tf=$WORK/tf/bhprof.prom
lines0=$(wc -l <"$tf")
last='^bhprof_bpf_runs_total [0-9]+$'
partial=0
reads=0
end=$((SECONDS + 4))
while [ $reads -lt 20000 ] && [ $SECONDS -lt $end ]; do
	# mapfile is a builtin: one open, so one version of the file
	mapfile -t content <"$tf"
	reads=$((reads + 1))
	if [ "${#content[@]}" != "$lines0" ] ||
	   ! [[ ${content[-1]} =~ $last ]]; then
		partial=$((partial + 1))
	fi
done
check "textfile: $reads reads over 4 s, none partial ($partial)" [ $partial = 0 ]
promtool check metrics <"$tf" >"$WORK/lint" 2>&1
rc=$?
check "textfile: promtool check metrics passes" [ $rc = 0 -a ! -s "$WORK/lint" ]
check "textfile: no process_ metrics (node_exporter has its own)" \
	[ "$(grep -c '^process_' "$tf")" = 0 ]

# --- a lost probe group (make faults builds a BPF object whose write
# group cannot load): its figures are left out, never zero, and the
# bios it would have split by path stay whole under path="unknown"
F_WRITE=$(cd "$(dirname "$0")/../.." && pwd)/.output/fault-write/bhprof
if [ ! -x "$F_WRITE" ]; then
	bad "lost group: $F_WRITE not built (make faults)"
else
	sync
	blockdev --flushbufs "$RAW"
	before=$(diskstats_bytes "$RAW")
	"$F_WRITE" serve --listen 127.0.0.1:0 -d "$RAWN" --duration 60 \
		2>"$WORK/fault.err" &
	FAULT_PID=$!
	for _ in $(seq 100); do
		grep -q "serving http" "$WORK/fault.err" && break
		sleep 0.1
	done
	FURL=$(grep -o 'http://[0-9.:]*/metrics' "$WORK/fault.err")
	dd if=/dev/zero of="$RAW" bs=1M count=4 conv=fsync status=none
	ds=$(($(diskstats_bytes "$RAW") - before))
	curl -s -m 5 -o "$WORK/fault.prom" "$FURL"
	kill $FAULT_PID 2>/dev/null
	wait $FAULT_PID 2>/dev/null
	check "lost group: the info metric says failed" \
		grep -q 'attach_write_blkdev="failed"' "$WORK/fault.prom"
	check "lost group: no write call series" \
		[ "$(grep -c '^bhprof_write_' "$WORK/fault.prom")" = 0 ]
	check "without --self-cost: no own-cost series, not zeros" \
		[ "$(grep -c '^bhprof_bpf_run' "$WORK/fault.prom")" = 0 ]
	got=$(awk -v d="$RAWN" '$1 == "bhprof_device_bio_bytes_total{device=\"" d "\",path=\"unknown\"}" { print $2 }' \
		"$WORK/fault.prom")
	check "lost group: device bytes whole under path=unknown ($got, diskstats $ds)" \
		close_to "${got:-0}" "$ds" 1
	promtool check metrics <"$WORK/fault.prom" >"$WORK/lint" 2>&1
	rc=$?
	check "lost group: promtool check metrics passes" [ $rc = 0 -a ! -s "$WORK/lint" ]
fi

# --- usage errors: one line, exit 2
expect_usage() { # expect_usage PATTERN ARGS...
	local pattern=$1
	shift
	# bounded: a check that wrongly succeeds must not serve forever
	timeout 10 "$BHPROF" serve --duration 2 "$@" >/dev/null 2>"$WORK/err"
	local rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$WORK/err")" = 1 ] &&
	   grep -q -- "$pattern" "$WORK/err"; then
		ok "serve $* -> exit 2, $(cat "$WORK/err")"
	else
		bad "serve $* -> rc $rc, stderr: $(head -c 300 "$WORK/err")"
	fi
}
expect_usage "numeric ADDR:PORT" --listen 127.0.0.1:70000
expect_usage "Cannot assign requested address" --listen 192.0.2.1:9477
expect_usage "numeric ADDR:PORT" --listen localhost
expect_usage "Address already in use" --listen "127.0.0.1:$PORT"
expect_usage "not a writable directory" --textfile "$WORK/none"
expect_usage "takes no command" -- true
"$BHPROF" serve --help >"$WORK/out" 2>&1
check "serve --help exits 0 with usage" grep -q "^Usage: bhprof serve" "$WORK/out"

# --- a signal ends it cleanly and takes the textfile away
kill -TERM $SERVE_PID
rc=
for _ in $(seq 50); do
	kill -0 $SERVE_PID 2>/dev/null || { wait $SERVE_PID; rc=$?; break; }
	sleep 0.1
done
SERVE_PID=
check "SIGTERM: serve exits 0 (rc ${rc:-still running})" [ "$rc" = 0 ]
check "SIGTERM: textfile and temporaries removed" \
	[ -z "$(ls -A "$WORK/tf")" ]

finish
