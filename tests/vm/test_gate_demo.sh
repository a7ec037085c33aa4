#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The gate demo as a test (`make gate-demo`, and a suite of `make check`):
# runs tests/vm/gate-demo.sh, prints its tables, and asserts what each
# gate must decide:
#   nobh-vs-bh  passes (0): no buffer heads, bigger and fewer bios
#   bh-vs-nobh  fails (1), naming all three rules as regressions
#   bh2-vs-bh   passes (0): two boots of one kernel are the same kernel
# Also that docs/ci.md shows gate-demo.sh as it is. A missing kernel,
# qemu or recording fails the test; nothing is skipped.
# Ends with "test_gate_demo: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

PASS=0
FAIL=0
G=$BUILD_DIR/gate
ok() { PASS=$((PASS + 1)); echo "ok   $*"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }
check() { # check "description" command...
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
# has FILE REGEX / lacks FILE REGEX: a missing or empty output is
# neither, so that a gate that wrote nothing passes no check
has() { [ -s "$1" ] && grep -qE "$2" "$1"; }
lacks() { [ -s "$1" ] && ! grep -qE "$2" "$1"; }
is_json() { [ -s "$1" ] && jq -e . "$1" >/dev/null 2>&1; }
finish() {
	echo "test_gate_demo: $PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ]
	exit $?
}

# The doc's script is the block between its two gate-demo.sh markers,
# less the fences: it must be the file, byte for byte.
doc_script() {
	sed -n '/^<!-- begin tests\/vm\/gate-demo.sh/,/^<!-- end tests\/vm\/gate-demo.sh/p' \
		"$REPO_ROOT/docs/ci.md" | sed '1,2d' | sed '$d' | sed '$d'
}
if diff -u "$VM_DIR/gate-demo.sh" <(doc_script) > "$BUILD_DIR/ci-doc.diff"; then
	ok "docs/ci.md shows tests/vm/gate-demo.sh verbatim"
else
	bad "docs/ci.md differs from tests/vm/gate-demo.sh (diff below)"
	cat "$BUILD_DIR/ci-doc.diff"
fi

mkdir -p "$BUILD_DIR"
"$VM_DIR/gate-demo.sh"
rc=$?
if [ $rc -ne 0 ]; then
	bad "gate-demo.sh exited $rc before the gates (see above)"
	finish
fi
ok "gate-demo.sh booted the kernels and ran the gates"

runs=${GATE_RUNS:-6}
for label in bh nobh bh2; do
	n=$(find "$G/$label" -name 'run-*.bhp' | wc -l)
	check "$label: $n of $runs recordings" [ "$n" -eq "$runs" ]
done

# The recordings measure what the demo claims, whatever the gate says:
# 6.12-bh writes the raw disk through buffer_head, 6.12-nobh through
# iomap. Every recording, not one: a gate of mixed samples proves little.
BHPROF=${BHPROF_BIN:-$REPO_ROOT/.output/bhprof-static}
bios_on() { # bios_on PATH FILES...: the files whose bios all went to PATH
	local p=$1 f
	shift
	for f in "$@"; do
		"$BHPROF" report --json "$f" | jq -e --arg p "$p" \
			'.paths[$p].bio.count > 0 and .bio_total.count == .paths[$p].bio.count' \
			>/dev/null && echo "$f"
	done
}
for label in bh bh2 nobh; do
	p=bh
	[ $label = nobh ] && p=iomap
	n=$(bios_on $p "$G/$label"/run-*.bhp | wc -l)
	check "$label: $n of $runs recordings wrote through $p alone" [ "$n" -eq "$runs" ]
done

# gate_is NAME STATUS: each form (table, --json, --ktap) exited STATUS
gate_is() {
	local want=$2 got
	got=$(cat "$G/$1.rc" 2>/dev/null)
	check "$1: exit status $want for the table, --json and --ktap (got: ${got:-none})" \
		[ "$got" = "$want $want $want" ]
	check "$1: --json is JSON" is_json "$G/$1.json"
	check "$1: --junit wrote a JUnit testsuite" has "$G/$1.xml" '<testsuite'
	check "$1: --ktap is KTAP" has "$G/$1.ktap" '^KTAP version'
}
gate_is nobh-vs-bh 0
gate_is bh-vs-nobh 1
gate_is bh2-vs-bh 0

# The failing table names each rule's metric on a regression line; the
# passing tables have no such line.
for m in bio.size.p50 bios_per_mib bh_alloc_per_mib; do
	re="${m//./\\.}.*[Rr][Ee][Gg][Rr][Ee][Ss][Ss]"
	check "bh-vs-nobh: table names any.$m a regression" has "$G/bh-vs-nobh.txt" "$re"
	for name in nobh-vs-bh bh2-vs-bh; do
		check "$name: any.$m is no regression" lacks "$G/$name.txt" "$re"
	done
done
check "bh-vs-nobh: JUnit reports failures" has "$G/bh-vs-nobh.xml" '<failure'
check "bh-vs-nobh: KTAP has a 'not ok'" has "$G/bh-vs-nobh.ktap" '^ *not ok'
for name in nobh-vs-bh bh2-vs-bh; do
	check "$name: JUnit reports no failure" lacks "$G/$name.xml" '<failure'
	check "$name: KTAP has no 'not ok'" lacks "$G/$name.ktap" '^ *not ok'
done

finish
