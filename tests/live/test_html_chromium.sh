#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# report --html renders: a live recording with both paths busy (a raw
# loop device for bh, XFS on another for iomap) becomes a page that
# headless Chromium opens with the network off, screenshots, and whose
# DOM holds every chart with bars and lines drawn. The page must name no
# external resource. The page opens on the verdict: the summary table
# first, then the charts, the run details and the folded probe table.
# Screenshots (1280x2000, and 1280x1000, the first screen) are kept in
# .output/ to look at.
. "$(dirname "$0")/lib.sh"
need_root html-chromium

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
[ -x "$CHROMIUM" ] || { bad "chromium not installed"; finish; }
SHOT_KEEP=$(cd "$(dirname "$0")/../.." && pwd)/.output/report-screenshot.png

new_loop 256 || { bad "losetup"; finish; }
RAW=$LOOP
new_loop 512 || { bad "losetup"; finish; }
XFS=$LOOP
mkfs.xfs -q -f "$XFS" && mkdir "$WORK/mnt" && mount "$XFS" "$WORK/mnt" &&
	MOUNTS+=("$WORK/mnt") || { bad "mkfs.xfs/mount"; finish; }

workload() {
	for i in 1 2 3; do
		dd if=/dev/zero of="$RAW" bs=64k count=256 conv=fsync status=none
		dd if=/dev/zero of="$WORK/mnt/f$i" bs=64k count=256 conv=fsync \
			status=none
		sleep 0.3
	done
}

REC=$WORK/run.bhp
"$BHPROF" record -o "$REC" -i 0.2 -d "$(basename "$RAW")" \
	-d "$(basename "$XFS")" -- bash -c "$(declare -p RAW WORK); $(declare -f workload); workload" \
	2>"$WORK/rec.err"
check "record the workload" [ $? = 0 ]
"$BHPROF" report --json "$REC" >"$WORK/rep.json" 2>/dev/null
for p in bh iomap; do
	n=$(jq -r ".paths.$p.bio.count" "$WORK/rep.json")
	check "$p bios recorded ($n)" [ "${n:-0}" -gt 0 ]
done
HTML=$WORK/report.html
"$BHPROF" report --html "$HTML" "$REC" 2>"$WORK/rep.err"
check "report --html exits 0" [ $? = 0 ]
check "report --html warns of nothing" [ ! -s "$WORK/rep.err" ]
check "the page is self-contained (no src= or href=, no url())" \
	[ "$(grep -cE '(src|href)=|url\(' "$HTML")" = 0 ]

# one Chromium run per output; no network, no profile left behind
chrome() {
	local profile size=$1
	shift
	profile=$(mktemp -d "$WORK/profile.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$profile" --window-size="$size" "$@" \
		"file://$HTML" 2>>"$WORK/chrome.err"
}

# shot SIZE FILE MIN-BYTES: a PNG of SIZE, not blank
shot() {
	local w size
	chrome "$1" --screenshot="$2" >/dev/null
	check "chromium wrote a $1 screenshot" [ -s "$2" ]
	check "the $1 screenshot is a PNG" \
		[ "$(head -c 8 "$2" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	size=$(stat -c %s "$2" 2>/dev/null || echo 0)
	# a blank page compresses to a few KiB; charts and tables don't
	check "the $1 screenshot is not blank ($size bytes)" [ "$size" -gt "$3" ]
	w=$(od -An -tu1 -j16 -N8 "$2" | awk '{ print $3 * 256 + $4 "," $7 * 256 + $8 }')
	check "the screenshot is $1 ($w)" [ "$w" = "$1" ]
}

shot 1280,2000 "$WORK/report.png" 40000
# the first screen: what a reader sees before scrolling
shot 1280,1000 "$WORK/first.png" 20000
mkdir -p "$(dirname "$SHOT_KEEP")" && cp "$WORK/report.png" "$SHOT_KEEP" &&
	cp "$WORK/first.png" "${SHOT_KEEP%.png}-1280x1000.png"

DOM=$WORK/dom.html
chrome 1280,2000 --dump-dom >"$DOM"
check "chromium dumped the DOM" grep -q "</html>" "$DOM"
for id in hist-write-lat hist-bio-size ts-throughput ts-latency bh-per-mib \
	  ts-bh-per-mib; do
	check "svg#$id rendered" grep -q "<svg id=\"$id\"" "$DOM"
done
for id in metadata summary probe-table; do
	check "table#$id rendered" grep -q "<table id=\"$id\"" "$DOM"
done
# the verdict first: the summary is the first table, its charts follow,
# then the run's details, and the probes fold away (no script needed)
order=$(grep -oE '<table id="[a-z-]+"|<svg id="[a-z-]+"|<details' "$DOM" |
	sed 's/.*id="//; s/"//' | tr '\n' ' ')
echo "     document order: $order"
check "the summary table comes first, then the headline charts" \
	grep -q '^summary hist-write-lat hist-bio-size ts-throughput ' <<<"$order"
check "the run details and the probe table come after every chart" \
	grep -qE 'ts-bh-per-mib (filesystems )?metadata <details probe-table $' <<<"$order"
check "the filesystems' table comes after the charts, before the run" \
	grep -qE 'ts-bh-per-mib filesystems metadata ' <<<"$order"
# bars and lines for both paths, not just empty frames
for cls in "bar bh" "bar iomap" "line bh" "line iomap"; do
	n=$(grep -o "class=\"$cls\"" "$DOM" | wc -l)
	check "$n elements of class '$cls'" [ "$n" -gt 0 ]
done
check "metadata names the kernel" grep -q "$(uname -r)" "$DOM"

finish
