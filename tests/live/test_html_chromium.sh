#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# report --html renders: a live recording with both paths busy (a raw
# loop device for bh, XFS on another for iomap) becomes a page that
# headless Chromium opens with the network off, screenshots, and whose
# DOM holds every chart with bars and lines drawn. The page must name no
# external resource. The screenshot is kept in .output/ to look at.
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
	local profile
	profile=$(mktemp -d "$WORK/profile.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$profile" --window-size=1280,2000 "$@" \
		"file://$HTML" 2>>"$WORK/chrome.err"
}

SHOT=$WORK/report.png
chrome --screenshot="$SHOT" >/dev/null
check "chromium wrote a screenshot" [ -s "$SHOT" ]
check "the screenshot is a PNG" \
	[ "$(head -c 8 "$SHOT" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
size=$(stat -c %s "$SHOT" 2>/dev/null || echo 0)
# a blank 1280x2000 page compresses to a few KiB; charts and tables don't
check "the screenshot is not blank ($size bytes)" [ "$size" -gt 40000 ]
w=$(od -An -tu1 -j16 -N8 "$SHOT" | awk '{ print $3 * 256 + $4 "x" $7 * 256 + $8 }')
check "the screenshot is 1280x2000 ($w)" [ "$w" = 1280x2000 ]
mkdir -p "$(dirname "$SHOT_KEEP")" && cp "$SHOT" "$SHOT_KEEP"

DOM=$WORK/dom.html
chrome --dump-dom >"$DOM"
check "chromium dumped the DOM" grep -q "</html>" "$DOM"
for id in hist-write-lat hist-bio-size ts-throughput ts-latency bh-per-mib \
	  ts-bh-per-mib; do
	check "svg#$id rendered" grep -q "<svg id=\"$id\"" "$DOM"
done
for id in metadata summary; do
	check "table#$id rendered" grep -q "<table id=\"$id\"" "$DOM"
done
# bars and lines for both paths, not just empty frames
for cls in "bar bh" "bar iomap" "line bh" "line iomap"; do
	n=$(grep -o "class=\"$cls\"" "$DOM" | wc -l)
	check "$n elements of class '$cls'" [ "$n" -gt 0 ]
done
check "metadata names the kernel" grep -q "$(uname -r)" "$DOM"

finish
