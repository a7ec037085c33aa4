#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Runs each suite given on the command line, adds up the "N passed,
# N failed" line each one ends with, and ends with the total. A suite
# that dies before its tally counts as one failure, never as nothing.
total_pass=0
total_fail=0
for suite in "$@"; do
	echo "=== $suite"
	log=$(mktemp)
	bash -c "$suite" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	rm -f "$log"
	if [ -z "$line" ]; then
		echo "=== $suite: exited $rc without a tally: counted as failed"
		total_fail=$((total_fail + 1))
		continue
	fi
	p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
	f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "=== $suite: exited $rc: counted as failed"
		total_fail=$((total_fail + 1))
	fi
done
echo "check: $total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
