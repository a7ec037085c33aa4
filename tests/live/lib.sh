# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Shared by the live tests: a pass/fail tally, loop devices that are
# always torn down, and /proc/diskstats readings.

PASS=0
FAIL=0
BHPROF=${BHPROF:-$(cd "$(dirname "$0")/../.." && pwd)/bhprof}
WORK=$(mktemp -d /tmp/bhprof-live.XXXXXX)
LOOPS=()
MOUNTS=()

cleanup() {
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT

ok() { PASS=$((PASS + 1)); echo "ok   $*"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }
check() { # check "description" test-args...
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}

# a root-only test that cannot run fails and says why
need_root() {
	if [ "$(id -u)" != 0 ]; then
		bad "$1: needs root (BPF, loop devices, mkfs)"
		finish
	fi
	[ -x "$BHPROF" ] || { bad "$1: $BHPROF not built"; finish; }
}

# new_loop SIZE_MB: sets LOOP=/dev/loopN. Not "$(new_loop)": a subshell
# would lose LOOPS and leave the device attached after the test.
new_loop() {
	local img
	img=$(mktemp "$WORK/disk.XXXXXX")
	truncate -s "${1}M" "$img"
	LOOP=$(losetup -f --show "$img") || return 1
	LOOPS+=("$LOOP")
}

# sectors written, times 512
diskstats_bytes() {
	# %.0f: a reused loop device passes 2^31 sectors and awk's default
	# print would switch to exponent notation
	awk -v d="$(basename "$1")" '$3 == d { printf "%.0f\n", $10 * 512 }' \
		/proc/diskstats
}

# bhprof leaves the last close of its perf events and their links to a
# grandchild, bhprof-closer, which goes about a second after it: a test
# that counts the machine's BPF programs waits for it first
closers_done() {
	local i
	for i in $(seq 100); do
		pgrep -x bhprof-closer >/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# within PCT percent of each other (integers)
close_to() { # close_to A B PCT
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		m = b > a ? b : a
		exit !(m == 0 ? d == 0 : d * 100 <= p * m) }'
}

finish() {
	echo "$(basename "$0" .sh): $PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ]
	exit $?
}
