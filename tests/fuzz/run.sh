#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Runs libFuzzer targets, each for a bounded time from its seed corpus in
# tests/fuzz/corpus/NAME, with libFuzzer's memory limits set: a single
# allocation over FUZZ_MALLOC_MB or a process over FUZZ_RSS_MB is a
# failure, so a parser that believes a size its input claims is caught.
# Ends with the "N passed, N failed" tally that tests/run-suites.sh adds
# up. New inputs found go to .output/fuzz-corpus/NAME (not committed); a
# crashing input is kept in .output/fuzz-artifacts/NAME- and its path
# printed.
#
# Usage: tests/fuzz/run.sh NAME[:SECONDS]...   (binary: .output/fuzz_NAME,
#        default 20 s; the Makefile's FUZZ_RUNS is the list make check runs)
cd "$(dirname "$0")/../.." || exit 1
out=.output
rss_mb=${FUZZ_RSS_MB:-512}
malloc_mb=${FUZZ_MALLOC_MB:-64}
pass=0
fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for run in "$@"; do
	name=${run%%:*}
	secs=${run#*:}
	[ "$secs" = "$run" ] && secs=20
	bin=$out/fuzz_$name
	if [ ! -x "$bin" ]; then
		echo "FAIL $name: $bin not built (make $bin)"
		fail=$((fail + 1))
		continue
	fi
	mkdir -p "$out/fuzz-corpus/$name" "$out/fuzz-artifacts"
	"$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 \
		-rss_limit_mb="$rss_mb" -malloc_limit_mb="$malloc_mb" \
		-print_final_stats=1 \
		-artifact_prefix="$out/fuzz-artifacts/$name-" \
		"$out/fuzz-corpus/$name" "tests/fuzz/corpus/$name" >"$log" 2>&1
	rc=$?
	execs=$(awk '/number_of_executed_units/ { print $2 }' "$log")
	if [ $rc = 0 ]; then
		echo "ok   $name: ${execs:-?} inputs in ${secs} s, no crash, leak, hang, or allocation over ${malloc_mb} MB"
		pass=$((pass + 1))
		continue
	fi
	grep -E 'ERROR|SUMMARY|Test unit written|runtime error|malloc' "$log" | head -20
	echo "FAIL $name exited $rc (log above; input in $out/fuzz-artifacts/)"
	fail=$((fail + 1))
done
echo "fuzz: $pass passed, $fail failed"
[ $fail = 0 ]
