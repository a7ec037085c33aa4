#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Runs a libFuzzer target for a bounded time from the seed corpus in
# tests/fuzz/corpus and ends with the "N passed, N failed" tally that
# tests/run-suites.sh adds up. New inputs the fuzzer finds go to
# .output/fuzz-corpus (not committed); a crashing input is kept in
# .output/fuzz-artifacts and its path printed.
#
# Usage: tests/fuzz/run.sh FUZZER [SECONDS]
cd "$(dirname "$0")/../.." || exit 1
bin=$1
secs=${2:-60}
out=.output
mkdir -p "$out/fuzz-corpus" "$out/fuzz-artifacts"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

"$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$out/fuzz-artifacts/" \
	"$out/fuzz-corpus" tests/fuzz/corpus >"$log" 2>&1
rc=$?
execs=$(awk '/number_of_executed_units/ { print $2 }' "$log")
name=$(basename "$bin")
if [ $rc = 0 ]; then
	echo "ok   $name: ${execs:-?} inputs in ${secs} s, no crash, leak or hang"
	echo "fuzz: 1 passed, 0 failed"
	exit 0
fi
grep -E 'ERROR|SUMMARY|Test unit written|runtime error' "$log" | head -20
echo "FAIL $name exited $rc (log above; input in $out/fuzz-artifacts/)"
echo "fuzz: 0 passed, 1 failed"
exit 1
