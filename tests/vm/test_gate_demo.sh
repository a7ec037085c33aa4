#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The gate demo as a test (`make gate-demo`, and a suite of `make check`):
# runs tests/vm/gate-demo.sh, prints its tables, and asserts what each
# gate must decide:
#   nobh-vs-bh  passes (0): no buffer heads, bigger and fewer bios
#   bh-vs-nobh  fails (1), naming all three rules as regressions
#   bh2-vs-bh   passes (0): two boots of one kernel are the same kernel
# each in every form: exit status, the table's rule lines, --json, the
# JUnit report (valid against tests/gate/junit.xsd) and --ktap. Also that
# every recording wrote through the path its kernel has, and that
# docs/ci.md shows gate-demo.sh as it is. A missing kernel,
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

# The rules gate-demo.sh gives, as the gate prints them
rules=("any.bio.size.p50 >= -5%" "any.bios_per_mib <= +5%" "any.bh_alloc_per_mib <= +0%")
XSD=$REPO_ROOT/tests/gate/junit.xsd

# gate_is NAME STATUS VERDICT: the gate NAME exited STATUS in every form
# (table, --json, --ktap), and judged each rule VERDICT (pass or
# regression) in every form: the table's rule line, the JSON, the JUnit
# report (valid against tests/gate/junit.xsd) and the KTAP.
gate_is() {
	local name=$1 want=$2 verdict=$3 got r word fails ktap n=${#rules[@]}
	got=$(cat "$G/$name.rc" 2>/dev/null)
	check "$name: exit status $want for the table, --json and --ktap (got: ${got:-none})" \
		[ "$got" = "$want $want $want" ]
	word=pass fails=0 ktap=ok
	if [ "$verdict" = regression ]; then
		word=REGRESSION fails=$n ktap="not ok"
	fi
	for r in "${rules[@]}"; do
		check "$name: the table says $word for '$r'" \
			grep -qxE "$(re_quote "$r")[[:space:]].*[[:space:]]$word" "$G/$name.txt"
	done
	check "$name: --json judges the ${n} rules $verdict, exit_status $want" \
		json_is "$G/$name.json" "$want" "$verdict"
	check "$name: --junit is valid JUnit with $fails failure(s) in $n testcases" \
		junit_is "$G/$name.xml" "$n $fails $fails"
	check "$name: --ktap has 1..$n and $n '$ktap' lines" \
		ktap_is "$G/$name.ktap" "$n" "$ktap"
}
re_quote() { printf '%s' "$1" | sed 's/[].[^$*+?(){}|\\]/\\&/g'; }
json_is() { # json_is FILE STATUS VERDICT
	[ -s "$1" ] && jq -e --arg v "$3" --argjson rc "$2" --argjson rules \
		"$(printf '%s\n' "${rules[@]}" | jq -R . | jq -s .)" \
		'.exit_status == $rc and ([.rules[].rule] == $rules) and
		 all(.rules[]; .verdict == $v)' "$1" >/dev/null 2>&1
}
junit_is() { # junit_is FILE "TESTCASES FAILURES SUITE-FAILURES"
	[ -s "$1" ] && xmllint --noout --schema "$XSD" "$1" 2>/dev/null &&
	[ "$(xmllint --xpath 'concat(count(//testcase), " ", count(//testcase/failure), " ", //testsuite/@failures)' "$1")" = "$2" ]
}
ktap_is() { # ktap_is FILE N "ok"|"not ok"
	[ -s "$1" ] && head -n 1 "$1" | grep -qx 'KTAP version 1' &&
	grep -qx "1\.\.$2" "$1" &&
	[ "$(grep -cE "^$3 [0-9]+ " "$1")" = "$2" ]
}

command -v xmllint >/dev/null ||
	bad "xmllint missing: apt-get install libxml2-utils"
gate_is nobh-vs-bh 0 pass
gate_is bh-vs-nobh 1 regression
gate_is bh2-vs-bh 0 pass

finish
