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

begin() {
	if [ -d $T/events/block/block_bio_queue ]; then
		echo 0 > $T/tracing_on
		echo > $T/trace
		echo 1 > $T/events/block/block_bio_queue/enable
		if [ -s /tmp/bh-filter ] && [ -d $KMEM ]; then
			cat /tmp/bh-filter > $KMEM/filter
			echo 1 > $KMEM/enable
		fi
		echo 1 > $T/tracing_on
	fi
	cat /proc/diskstats > "$out/ds.before"
}

end() {
	cat /proc/diskstats > "$out/ds.after"
	if [ -d $T/events/block/block_bio_queue ]; then
		echo 0 > $T/tracing_on
		echo 0 > $T/events/block/block_bio_queue/enable
		[ -d $KMEM ] && echo 0 > $KMEM/enable
		cat $T/trace > "$out/bio-trace.txt"
		cat $T/per_cpu/cpu*/stats > "$out/trace-stats.txt"
		if [ -s /tmp/bh-filter ]; then
			cp /tmp/bh-filter "$out/bh-filter.txt"
		fi
		echo > $T/trace
	fi
}

w() { vmwriter "$@" >> "$out/writers.jsonl"; }
