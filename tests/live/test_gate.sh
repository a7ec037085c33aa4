#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bhprof gate on synthetic recordings written through the real writer
# (gate_sim --write): exit statuses, the table, JSON, a JUnit report that
# validates against a JUnit schema (xmllint), KTAP that the kernel's own
# parser (tools/testing/kunit/kunit.py, from Debian's linux-source-6.1)
# reads back with the same verdicts, and one-line errors for everything
# a CI job can get wrong.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SIM=$ROOT/.output/gate_sim
XSD=$ROOT/tests/gate/junit.xsd
[ -x "$BHPROF" ] || { bad "$BHPROF not built"; finish; }
[ -x "$SIM" ] || { bad "$SIM not built (make .output/gate_sim)"; finish; }
command -v xmllint >/dev/null || { bad "xmllint missing: apt-get install libxml2-utils"; finish; }
command -v jq >/dev/null || { bad "jq missing: apt-get install jq"; finish; }

# expect_error PATTERN CMD...: exit 2 and one stderr line matching PATTERN
expect_error() {
	local pattern=$1 rc
	shift
	"$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$WORK/err")" = 1 ] &&
	   grep -q -- "$pattern" "$WORK/err"; then
		ok "exit 2: $(cat "$WORK/err")"
	else
		bad "expected exit 2 and '$pattern': rc=$rc, $(head -c 300 "$WORK/err")"
	fi
}

"$SIM" --write "$WORK/same" 1.0 && "$SIM" --write "$WORK/worse" 1.5 &&
	"$SIM" --write "$WORK/tp" 1.0 --tracepoint &&
	"$SIM" --write "$WORK/a64" 1.0 --machine=aarch64 --page-size=16384 ||
	{ bad "gate_sim could not write recordings"; finish; }
B=("$WORK"/same/base-*.bhp)
gate() { # gate DIR ARGS...
	local d=$1
	shift
	"$BHPROF" gate --baseline "$d"/base-*.bhp --candidate "$d"/cand-*.bhp "$@"
}

# --- the table and exit status
gate "$WORK/same" >"$WORK/t.txt"
check "A/A: exit 0" [ $? = 0 ]
check "A/A: the table ends in a pass" grep -q '^result: pass, 16 rules (exit 0)' "$WORK/t.txt"
gate "$WORK/worse" >"$WORK/t.txt"
check "latency +50%: exit 1" [ $? = 1 ]
sed 's/^/     /' "$WORK/t.txt"
check "latency +50%: write p50 is a REGRESSION" \
	grep -Eq '^bh.write.lat.p50 <= \+10% .*REGRESSION$' "$WORK/t.txt"
check "latency +50%: throughput rules pass" \
	grep -Eq '^bh.write.mb_per_s >= -10% .* pass$' "$WORK/t.txt"
check "latency +50%: the table has CI and Holm columns" \
	grep -q 'CI .* P  P(HOLM)  VERDICT' "$WORK/t.txt"

# --- machines and page sizes: a 16 KiB-page arm64 kernel against a 4 KiB
# x86-64 one is no regression of it, unless asked for
expect_error "a64/cand-0.bhp was recorded on aarch64 with 16 KiB pages, .*base-0.bhp on x86_64 with 4 KiB pages.*--allow-mixed" \
	"$BHPROF" gate --baseline "$WORK"/same/base-*.bhp --candidate "$WORK"/a64/cand-*.bhp
"$BHPROF" gate --baseline "$WORK"/same/base-*.bhp --candidate "$WORK"/a64/cand-*.bhp \
	--allow-mixed >"$WORK/t.txt" 2>&1
check "--allow-mixed: judged, an A/A in all but the machine: exit 0" [ $? = 0 ]
gate "$WORK/a64" >/dev/null 2>&1
check "aarch64 16 KiB against itself: exit 0" [ $? = 0 ]
"$BHPROF" report --json "$WORK/a64/base-1.bhp" >"$WORK/a64.json" 2>&1
check "report --json: the recording's machine and page size" \
	[ "$(jq -r '"\(.kernel.machine) \(.kernel.page_size)"' "$WORK/a64.json")" = "aarch64 16384" ]

# --- JSON
gate "$WORK/worse" --json >"$WORK/g.json"
check "--json: exit 1 too" [ $? = 1 ]
j() { jq -r "$1" "$WORK/g.json"; }
check "--json: verdict regression, 8 of 16" \
	[ "$(j '[.verdict, .regressions, .judged] | join(" ")')" = "regression 8 16" ]
check "--json: 8 recordings a side, values per recording" \
	[ "$(j '[.baseline.n, .candidate.n, (.rules[0].baseline.values | length)] | join(" ")')" = "8 8 8" ]
check "--json: change and CI of write p50 near +50%" \
	[ "$(j '.rules[0] | (.change_pct > 40 and .change_pct < 60 and .ci_pct[0] < .change_pct and .ci_pct[1] > .change_pct)')" = true ]
check "--json: p adjusted by Holm is never below p" \
	[ "$(j '[.rules[] | .p_adjusted >= .p] | all')" = true ]

# --- rules by hand, and from a file
gate "$WORK/worse" --rule 'bh.write.lat.p50 <= +60%' >/dev/null
check "a +50% shift passes a +60% limit" [ $? = 0 ]
gate "$WORK/worse" --rule 'any.write.lat.p50 <= +40%' >/dev/null
check "a +50% shift fails a +40% limit on any" [ $? = 1 ]
printf '# rules for the job\nbh.write.lat.p99 <= +20%%\n\nany.bh_alloc_per_mib <= +0%%  # none new\n' >"$WORK/rules"
gate "$WORK/worse" --rules "$WORK/rules" --json >"$WORK/g.json"
check "--rules FILE: two rules, one regression" \
	[ "$(j '[.judged, .regressions] | join(" ")')" = "2 1" ]

# --- JUnit, validated against a JUnit schema
gate "$WORK/worse" --junit "$WORK/r.xml" >/dev/null
xmllint --noout --schema "$XSD" "$WORK/r.xml" 2>"$WORK/xmllint.txt"
check "--junit: valid against tests/gate/junit.xsd ($(cat "$WORK/xmllint.txt"))" [ $? = 0 ]
check "--junit: 16 testcases, 8 failures" \
	[ "$(xmllint --xpath 'concat(count(//testcase), " ", count(//testcase/failure), " ", //testsuite/@failures)' "$WORK/r.xml")" = "16 8 8" ]
"$BHPROF" gate --baseline "$WORK"/tp/base-*.bhp --candidate "$WORK"/tp/cand-*.bhp \
	--junit "$WORK/tp.xml" >/dev/null
xmllint --noout --schema "$XSD" "$WORK/tp.xml" 2>/dev/null
check "--junit with skipped rules: valid too" [ $? = 0 ]
check "--junit: the 4 writeback latency rules are <skipped/>" \
	[ "$(xmllint --xpath 'count(//testcase/skipped)' "$WORK/tp.xml")" = 4 ]

# --- KTAP, read back by the kernel's own parser
kunit_dir() {
	local cache=/var/cache/bhprof-tests deb
	KUNIT=$cache/linux-source-6.1/tools/testing/kunit
	[ -f "$KUNIT/kunit.py" ] && return 0
	mkdir -p "$cache" && cd "$cache" || return 1
	apt-get download -q linux-source-6.1 >/dev/null 2>&1 || return 1
	deb=$(ls linux-source-6.1_*.deb | head -1)
	dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/src/linux-source-6.1.tar.xz |
		tar -xJ --wildcards 'linux-source-6.1/tools/testing/kunit/*'
	rm -f "$deb"
	cd - >/dev/null
	[ -f "$KUNIT/kunit.py" ]
}
if ! kunit_dir; then
	bad "KTAP: cannot get the kernel's kunit.py (apt-get download linux-source-6.1)"
else
	for d in worse tp; do
		"$BHPROF" gate --ktap --baseline "$WORK/$d"/base-*.bhp \
			--candidate "$WORK/$d"/cand-*.bhp >"$WORK/$d.ktap"
		gate_rc=$?
		python3 "$KUNIT/kunit.py" parse --json="$WORK/$d.kunit.json" \
			"$WORK/$d.ktap" >"$WORK/$d.kunit.txt" 2>&1
		check "KTAP ($d): kunit.py finds no format error" \
			[ "$(grep -c '\[ERROR\]' "$WORK/$d.kunit.txt")" = 0 ]
		want=$("$BHPROF" gate --json --baseline "$WORK/$d"/base-*.bhp \
			--candidate "$WORK/$d"/cand-*.bhp |
			jq -r '[.rules[] | {regression: "FAIL", pass: "PASS", skipped: "SKIP", "n/a (idle)": "SKIP"}[.verdict]] | join(" ")')
		got=$(jq -r '[.test_cases[].status] | join(" ")' "$WORK/$d.kunit.json")
		check "KTAP ($d, exit $gate_rc): kunit.py reads the same 16 verdicts" \
			[ "$got" = "$want" ]
	done
	tail -n 1 "$WORK/worse.kunit.txt" | sed 's/^/     kunit.py: /'
fi

# --- recordings made in different attach modes: judged, with a warning
"$BHPROF" gate --baseline "$WORK"/same/base-*.bhp --candidate "$WORK"/tp/cand-*.bhp \
	>/dev/null 2>"$WORK/err"
check "mixed attach modes: exit 0, one warning that timings differ" \
	[ $? = 0 ] && [ "$(wc -l <"$WORK/err")" = 1 ] &&
	grep -q "warning: write_blkdev was recorded in fentry mode .* tracepoint mode" "$WORK/err"

# --- what a CI job can get wrong: one line, exit 2
expect_error "too few recordings to judge" \
	"$BHPROF" gate --baseline "${B[@]:0:3}" --candidate "${B[@]:3:3}"
expect_error "unknown metric" \
	gate "$WORK/same" --rule 'bh.write.latency <= +10%'
expect_error "the limit is a percentage" \
	gate "$WORK/same" --rule 'bh.write.lat.p99 <= 10'
printf 'bh.write.lat.p99 <= +5%%\nnonsense\n' >"$WORK/bad.rules"
expect_error "bad.rules:2: rule 'nonsense'" \
	gate "$WORK/same" --rules "$WORK/bad.rules"
expect_error "did not measure writeback.lat.p99" \
	"$BHPROF" gate --baseline "$WORK"/tp/base-*.bhp \
	--candidate "$WORK"/tp/cand-*.bhp --rule 'bh.writeback.lat.p99 <= +10%'
expect_error "no-such.bhp" \
	"$BHPROF" gate --baseline "$WORK/no-such.bhp" --candidate "${B[@]}"
head -c 100 "${B[0]}" >"$WORK/torn.bhp"
expect_error "torn.bhp" \
	"$BHPROF" gate --baseline "$WORK/torn.bhp" "${B[@]:1}" --candidate "${B[@]}"
expect_error "both --baseline and --candidate" "$BHPROF" gate --baseline "${B[@]}"
expect_error "alpha takes a number" gate "$WORK/same" --alpha 2
expect_error "pick one" gate "$WORK/same" --json --ktap
"$BHPROF" gate --help >"$WORK/help" 2>&1
check "--help: exit 0, documents the exit statuses and the default rules" \
	grep -q 'Exit status: 0 no regression, 1 regression, 2' "$WORK/help"

finish
