# SPDX-License-Identifier: GPL-2.0
# Sourced by every scenario: $1 is the folder for its outputs. Each
# scenario brackets its writes with begin/end, which copy /proc/diskstats
# (ds.before, ds.after) and record the kernel's own block_bio_queue
# events through tracefs (bio-trace.txt), the references bhprof's figures
# are checked against. One JSON line per writer goes to writers.jsonl.
out=$1
[ -d "$out" ] || { echo "scenario: no output folder '$out'" >&2; exit 2; }
set -e
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing

# kmem_cache_alloc events from alloc_buffer_head's text, when it exists:
# guest-init.sh leaves the filter in /tmp/bh-filter
KMEM=$T/events/kmem/kmem_cache_alloc
# ... and kmem_cache_free events from free_buffer_head's, for scenarios
# that set KFREE=1 (--callers: its frees), /tmp/bhfree-filter
KMEMF=$T/events/kmem/kmem_cache_free

# The kernel's own count of the read, page_mkwrite, fallback and
# writeback calls: guest-init.sh made a kprobe event (group bhpref) on
# each such function the kernel has; their hits in kprobe_profile,
# before and after, go to kprobe-profile.txt as "function hits" lines
KP=$T/events/bhpref

# Each enable and disable costs the kernel a code patch, slow under TCG:
# only scenarios that set KREF=1 (reads, mappings, fallbacks, file
# writeback, ext4 metadata) pay it.
ref_probes_on() {
	[ "${KREF:-0}" = 1 ] && [ -d $KP ] || return 0
	awk '{ print $1, $2 }' $T/kprobe_profile > /tmp/kp.before
	echo 1 > $KP/enable || true
}

ref_probes_off() {
	[ "${KREF:-0}" = 1 ] && [ -d $KP ] || return 0
	echo 0 > $KP/enable || true
	awk 'NR == FNR { b[$1] = $2; next } { print $1, $2 - b[$1] }' \
		/tmp/kp.before $T/kprobe_profile > "$out/kprobe-profile.txt"
}

# Reads are cold: nothing of the devices may be cached.
cold() {
	sync
	for d in "$@"; do
		blockdev --flushbufs "$d" 2>/dev/null
	done
	echo 3 > /proc/sys/vm/drop_caches
}

# Read-ahead off (read_ahead_kb 0) on devices $2..., or back to $1 KiB:
# a file opened meanwhile has none, and each of its mapping's faults
# reads its page alone through ->read_folio (->readpage up to 5.18)
readahead_kb() {
	kb=$1
	shift
	for d in "$@"; do
		echo "$kb" > /sys/block/${d#/dev/}/queue/read_ahead_kb
	done
}

# Async readahead may still be in flight when the reader returns: wait
# until the devices' read sectors stop moving before diskstats is read.
settle() {
	prev=""
	for i in 1 2 3 4 5 6 7 8 9 10; do
		cur=$(cat /proc/diskstats | awk '{ s += $6 } END { print s }')
		[ "$cur" = "$prev" ] && return 0
		prev=$cur
		sleep 0.2
	done
}

begin() {
	if [ -d $T/events/block/block_bio_queue ]; then
		echo 0 > $T/tracing_on
		echo > $T/trace
		echo 1 > $T/events/block/block_bio_queue/enable
		if [ -s /tmp/bh-filter ] && [ -d $KMEM ]; then
			cat /tmp/bh-filter > $KMEM/filter
			echo 1 > $KMEM/enable
		fi
		if [ "${KFREE:-0}" = 1 ] && [ -s /tmp/bhfree-filter ] && [ -d $KMEMF ]; then
			cat /tmp/bhfree-filter > $KMEMF/filter
			echo 1 > $KMEMF/enable
		fi
		ref_probes_on
		echo 1 > $T/tracing_on
	fi
	cat /proc/diskstats > "$out/ds.before"
}

end() {
	settle
	cat /proc/diskstats > "$out/ds.after"
	if [ -d $T/events/block/block_bio_queue ]; then
		echo 0 > $T/tracing_on
		echo 0 > $T/events/block/block_bio_queue/enable
		[ -d $KMEM ] && echo 0 > $KMEM/enable
		[ "${KFREE:-0}" = 1 ] && [ -d $KMEMF ] && echo 0 > $KMEMF/enable
		ref_probes_off
		cat $T/trace > "$out/bio-trace.txt"
		cat $T/per_cpu/cpu*/stats > "$out/trace-stats.txt"
		if [ -s /tmp/bh-filter ]; then
			cp /tmp/bh-filter "$out/bh-filter.txt"
		fi
		if [ "${KFREE:-0}" = 1 ] && [ -s /tmp/bhfree-filter ]; then
			cp /tmp/bhfree-filter "$out/bhfree-filter.txt"
		fi
		echo > $T/trace
	fi
}

w() { vmwriter "$@" >> "$out/writers.jsonl"; }

# a point in the reference trace: what the kernel counted before it
mark() { echo "bhprof-mark $1" > $T/trace_marker 2>/dev/null || true; }
