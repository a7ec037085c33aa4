#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Bad input gets one clear line on stderr and a non-zero exit, never a
# crash: no privileges, unknown devices, bad options, a command that
# cannot run, a mode the kernel refuses.
. "$(dirname "$0")/lib.sh"
need_root errors

# expect RC-PREDICATE PATTERN CMD...: one stderr line matching PATTERN
expect_error() {
	local pattern=$1
	shift
	"$@" >"$WORK/out" 2>"$WORK/err"
	local rc=$?
	local lines
	lines=$(wc -l <"$WORK/err")
	if [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ "$lines" = 1 ] &&
	   grep -q -- "$pattern" "$WORK/err"; then
		ok "$* -> $(cat "$WORK/err")"
	else
		bad "$* -> rc=$rc, stderr: $(head -c 300 "$WORK/err")"
	fi
}

expect_error "unknown block device 'nosuchdev'" \
	"$BHPROF" stat -d nosuchdev --duration 1
expect_error "unknown block device '250:250'" \
	"$BHPROF" stat -d 250:250 --duration 1
expect_error "--attach takes auto, fentry, kprobe or tracepoint" \
	"$BHPROF" stat --attach magic --duration 1
expect_error "invalid interval" "$BHPROF" stat -i 0 --duration 1
expect_error "invalid duration" "$BHPROF" stat --duration abc
expect_error "no process with pid" "$BHPROF" stat -p 999999999 --duration 1
expect_error "unknown or incomplete option" "$BHPROF" stat --bogus
expect_error "unknown command 'frobnicate'" "$BHPROF" frobnicate
expect_error "cannot run 'no-such-command-xyz'" \
	"$BHPROF" stat -- no-such-command-xyz
expect_error "permission denied: run as root or with CAP_BPF and CAP_PERFMON" \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$BHPROF" stat --duration 1

# fentry is refused on some kernels (this build machine): forcing it must
# say why, not fall back silently
if "$BHPROF" probe --json | jq -e '.probes[] | select(.name=="write_blkdev") | .mode == "fentry"' >/dev/null; then
	ok "fentry attaches on this kernel: nothing to refuse"
else
	expect_error "attach=fentry" "$BHPROF" stat --attach fentry --duration 1
fi

for cmd in stat probe; do
	"$BHPROF" $cmd --help >"$WORK/out" 2>&1
	check "$cmd --help exits 0 with usage" \
		grep -q "^Usage: bhprof $cmd" "$WORK/out"
done
"$BHPROF" --help >"$WORK/out"
check "--help lists the commands" grep -q "record" "$WORK/out"

finish
