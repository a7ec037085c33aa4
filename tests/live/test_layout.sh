#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The tree shows the architecture, and keeps showing it: src/ holds
# main.c and one folder per layer, lowest first in the Makefile's
# SRC_DIRS; a file includes headers of its own folder and of folders
# before its own, never after, and no header includes itself back
# through others. No source file is over 1,000 lines (vmlinux.h aside).
# Needs no root: it reads the tree only.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1

dirs=$(sed -n 's/^SRC_DIRS := //p' Makefile)
[ -n "$dirs" ] || { bad "layout: no SRC_DIRS in the Makefile"; finish; }

# src/'s top: main.c and the folders; nothing else
top=$(find src -maxdepth 1 -type f | sort | tr '\n' ' ')
check "layout: src/ holds main.c alone at its top (has: $top)" \
	test "$top" = "src/main.c "
# every folder in src/ is a layer the Makefile builds
for d in src/*/; do
	d=$(basename "$d")
	check "layout: src/$d is in SRC_DIRS" grep -qw "$d" <<<"$dirs"
done

# rank FOLDER: its place in SRC_DIRS (1 the lowest), 0 if not there
rank() {
	local i=0 d
	for d in $dirs; do
		i=$((i + 1))
		[ "$d" = "$1" ] && { echo $i; return; }
	done
	echo 0
}

# every include of a src/ header, as FILE FOLDER HEADER: a folder's
# header named by its folder, one of the file's own by its name
up=0
sideways=0
n=0
while read -r file inc; do
	own=$(basename "$(dirname "$file")")
	n=$((n + 1))
	case "$inc" in
	*/*)
		to=${inc%%/*}
		[ -f "src/$inc" ] || continue
		if [ "$to" = "$own" ]; then
			bad "layout: $file names its own folder's $inc by folder"
			sideways=$((sideways + 1))
		elif [ "$own" != src ] &&
		     [ "$(rank "$to")" -gt "$(rank "$own")" ]; then
			bad "layout: $file ($own) includes $inc, a layer above it"
			up=$((up + 1))
		fi
		;;
	*)
		# a header of the file's own folder, or of include/ and the
		# build (bhprof.h, the skeleton)
		[ -f "$(dirname "$file")/$inc" ] || [ -f "include/$inc" ] ||
			[ "$inc" = bhprof.skel.h ] || {
			bad "layout: $file includes $inc, found nowhere"
			sideways=$((sideways + 1))
		}
		;;
	esac
done < <(grep -H '^#include "' src/main.c src/*/*.[ch] |
	 sed 's/:#include "\(.*\)"$/ \1/')
check "layout: $n includes of src/ read, none up a layer ($up) or astray ($sideways)" \
	test "$n" -gt 100 -a "$up" = 0 -a "$sideways" = 0

# no circle among the headers: tsort reads each include as an edge
edges=$(grep -H '^#include "' src/*/*.h | sed 's/:#include "\(.*\)"$/ \1/' |
	while read -r h inc; do
		d=$(dirname "$h")
		case "$inc" in
		*/*) t="src/$inc" ;;
		*) t="$d/$inc" ;;
		esac
		[ -f "$t" ] && echo "$t $h"
	done)
if out=$(tsort <<<"$edges" 2>&1 >/dev/null) && [ -z "$out" ]; then
	ok "layout: the headers' includes make no circle ($(wc -l <<<"$edges") edges)"
else
	bad "layout: an include circle: $(head -c 300 <<<"$out")"
fi

# no file over 1,000 lines in src/, bpf/ and include/
long=$(find src bpf include -name '*.[ch]' -exec wc -l {} + |
	awk '$2 != "total" && $1 > 1000 { printf "%s (%d) ", $2, $1 }')
check "layout: no source file over 1,000 lines${long:+ (over: $long)}" \
	test -z "$long"
# bpf/: one object, each probe group in its own header
nobj=$(find bpf -name '*.bpf.c' | wc -l)
check "layout: bpf/ builds one object (has $nobj .bpf.c)" test "$nobj" = 1
finish
