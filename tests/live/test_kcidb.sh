#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bhprof gate --kcidb: a KCIDB 5.3 report of the gate demo's real
# recordings (6.12 with and without buffer heads, tests/golden), valid
# against the schema's rules for tests (tests/gate/kcidb-5.3-tests.schema.json,
# Debian's python3-jsonschema), one test a rule with the verdict and
# change gate --json gives, one DONE test a figure whose median is the
# one report --json gives for each recording, and one-line errors for
# the names a CI job can get wrong. Needs no root.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
R=$ROOT/tests/golden/recordings
SCHEMA=$ROOT/tests/gate/kcidb-5.3-tests.schema.json
PY=/usr/bin/python3
[ -x "$BHPROF" ] || { bad "kcidb: $BHPROF not built"; finish; }
command -v jq >/dev/null || { bad "kcidb: jq missing: apt-get install jq"; finish; }
$PY -c 'import jsonschema' 2>/dev/null ||
	{ bad "kcidb: python3-jsonschema missing: apt-get install python3-jsonschema"; finish; }

BH=("$R"/vm-6.12-bh-*.bhp)
NOBH=("$R"/vm-6.12-nobh-*.bhp)
RULES=(--rule 'any.bio.size.p50 >= -5%' --rule 'any.bios_per_mib <= +5%'
       --rule 'any.bh_alloc_per_mib <= +0%' --rule 'bh.write.lat.p99 <= +10%')
K=(--kcidb-origin bhprof_lab --kcidb-build-id 'maestro:6912a0c4f3e2')

# valid FILE: the report passes the schema, every id is unique and the
# origin's, every start_time RFC 3339
valid() {
	$PY - "$SCHEMA" "$1" <<'EOF'
import json, re, sys
import jsonschema
schema, doc = (json.load(open(p)) for p in sys.argv[1:3])
jsonschema.Draft7Validator(schema).validate(doc)
ids = [t["id"] for t in doc["tests"]]
assert len(ids) == len(set(ids)), "ids repeat"
assert all(i.startswith("bhprof_lab:maestro:6912a0c4f3e2/") for i in ids), "foreign id"
when = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
assert all(when.match(t["start_time"]) for t in doc["tests"]), "start_time"
EOF
}

# judge NAME BASE... -- CAND...: the report and gate --json of one job
judge() {
	local name=$1 base=() cand=()
	shift
	while [ "$1" != -- ]; do base+=("$1"); shift; done
	shift
	cand=("$@")
	"$BHPROF" gate --baseline "${base[@]}" --candidate "${cand[@]}" "${RULES[@]}" \
		--json --kcidb "$WORK/$name.kcidb.json" "${K[@]}" \
		> "$WORK/$name.gate.json" 2> "$WORK/$name.err"
	echo $? > "$WORK/$name.rc"
}

judge regress "${NOBH[@]}" -- "${BH[@]}"
judge pass "${BH[@]}" -- "${NOBH[@]}"
check "kcidb: bh against nobh exits 1, nobh against bh 0 (got $(cat "$WORK"/regress.rc) $(cat "$WORK"/pass.rc))" \
	test "$(cat "$WORK"/regress.rc) $(cat "$WORK"/pass.rc)" = "1 0"

for n in regress pass; do
	f=$WORK/$n.kcidb.json
	out=$(valid "$f" 2>&1)
	check "kcidb: $n: valid against KCIDB 5.3's rules for tests${out:+: $(tail -n 1 <<<"$out")}" \
		test -z "$out"
	# one test a rule: its status the gate's verdict, its change the gate's
	want=$(jq -r '.rules[] | (if .verdict == "regression" then "FAIL"
		elif .verdict == "pass" then "PASS" else "SKIP" end) + " " +
		(if .change_pct then (.change_pct | tostring) else "-" end)' "$WORK/$n.gate.json")
	got=$(jq -r '.tests[] | select(.path | startswith("bhprof.gate.")) |
		.status + " " + (if .status == "SKIP" then "-"
		elif .number.unit == "%" then (.number.value | tostring) else "-" end)' "$f")
	check "kcidb: $n: one test a rule, as gate --json judged them ($(tr '\n' ',' <<<"$got"))" \
		test "$got" = "$want" -a "$(wc -l <<<"$got")" = 4
	check "kcidb: $n: the build id and origin the job gave" \
		test "$(jq -r '[.tests[] | .build_id + " " + .origin] | unique | join(",")' "$f")" = \
		"maestro:6912a0c4f3e2 bhprof_lab"
done

# a rule's path: path-safe, the rule readable in it
check "kcidb: rule paths" test "$(jq -r '[.tests[] | select(.path | startswith("bhprof.gate.")) | .path] | join(" ")' \
	"$WORK/regress.kcidb.json")" = \
	"bhprof.gate.any.bio.size.p50.ge_minus5pct bhprof.gate.any.bios_per_mib.le_plus5pct bhprof.gate.any.bh_alloc_per_mib.le_plus0pct bhprof.gate.bh.write.lat.p99.le_plus10pct"
check "kcidb: the n/a rule (bh latency on a kernel without buffer heads) is SKIP with why" \
	test "$(jq -r '.tests[] | select(.path == "bhprof.gate.bh.write.lat.p99.le_plus10pct") |
		.status + " " + (.misc.why | length > 0 | tostring)' "$WORK/regress.kcidb.json")" = "SKIP true"

# figures: the candidate's median of what report --json gives each run
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for spec in "bh write.calls .paths.bh.write.calls" \
	    "bh bio.count .paths.bh.bio.count" \
	    "bh bio.size.p50 .paths.bh.bio.size_bytes.p50" \
	    "bh bh_alloc .paths.bh.bh_alloc"; do
	set -- $spec
	want=$(for f in "${BH[@]}"; do "$BHPROF" report --json "$f" | jq "$3"; done | median)
	got=$(jq -r --arg p "bhprof.figures.$1.$2" '.tests[] | select(.path == $p) |
		.status + " " + (.number.value | tostring)' "$WORK/regress.kcidb.json")
	check "kcidb: figure $1.$2: DONE, the median of report --json ($want; got: $got)" \
		test "$got" = "DONE $want"
done
lat=$(jq -r '.tests[] | select(.path == "bhprof.figures.bh.write.lat.p99") |
	.number.unit + " " + .number.prefix' "$WORK/regress.kcidb.json")
check "kcidb: a latency is in seconds with metric prefixes ($lat)" test "$lat" = "s metric"
# a figure the candidate did not measure has no test: no iomap write
# latency on a kernel with buffer heads that wrote its raw disk through bh
check "kcidb: no test for a figure the candidate could not measure" \
	test "$(jq '[.tests[] | select(.path == "bhprof.figures.iomap.write.lat.p99")] | length' \
		"$WORK/regress.kcidb.json")" = 0

# the names a job can get wrong: one line, exit 2, no report left
expect_bad() {
	local what=$1 pattern=$2 rc
	shift 2
	rm -f "$WORK/bad.json"
	"$BHPROF" gate --baseline "${NOBH[@]}" --candidate "${BH[@]}" "${RULES[@]}" \
		"$@" >/dev/null 2>"$WORK/bad.err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$WORK/bad.err")" = 1 ] &&
	   grep -q -- "$pattern" "$WORK/bad.err" && [ ! -e "$WORK/bad.json" ]; then
		ok "kcidb: $what: exit 2, $(cat "$WORK/bad.err")"
	else
		bad "kcidb: $what: rc=$rc, $(head -c 300 "$WORK/bad.err")"
	fi
}
expect_bad "no origin" "needs --kcidb-origin" --kcidb "$WORK/bad.json" \
	--kcidb-build-id maestro:1
expect_bad "no build id" "needs --kcidb-build-id" --kcidb "$WORK/bad.json" \
	--kcidb-origin lab
expect_bad "an origin KCIDB refuses" "KCIDB wants" --kcidb "$WORK/bad.json" \
	--kcidb-origin My-Lab --kcidb-build-id maestro:1
expect_bad "a build id without origin" "ORIGIN:ID" --kcidb "$WORK/bad.json" \
	--kcidb-origin lab --kcidb-build-id 6912a0c4
expect_bad "a build id too long to make whole test ids" "256 characters at most" \
	--kcidb "$WORK/bad.json" --kcidb-origin lab --kcidb-build-id "maestro:$(printf 'a%.0s' {1..300})"
expect_bad "names without --kcidb" "go with --kcidb" --kcidb-origin lab
expect_bad "a report in a missing folder" "nowhere" --kcidb "$WORK/nowhere/bad.json" "${K[@]}"
finish
