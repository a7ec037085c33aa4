# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The kernel's own count of what bhprof's pass group and iomap read
# events count, from a tracefs dump (the trace file) holding the events
# writeback_single_inode_start, writeback_single_inode, ext4_writepages,
# ext4_writepages_result, iomap_readpage and iomap_readahead.
#
# A pass is the outermost of __writeback_single_inode() and, on ext4,
# ext4_writepages() on a thread, as bhprof counts it: one state per
# thread, opened by a start when none is open, closed and counted by the
# end of the kind that opened it. Inodes on no device (bdi "(unknown)")
# belong to no path. Each pattern holds the start of the event's own
# text, as a kprobe event of the same name (the VM matrix has one on
# iomap_readahead) prints another. Prints one line: passes N ext4 M
# reads R.
#
# -v devs="7:1 7:2": only events of those devices, as bhprof -d counts
# (a writeback event names its bdi: a whole disk's, as loop and NVMe
# namespaces are; a partition's filesystem would name its disk).
function dev_of(line,    d) {
	if (!match(line, /(bdi|dev) [0-9]+[:,][0-9]+/))
		return ""
	d = substr(line, RSTART + 4, RLENGTH - 4)
	sub(/,/, ":", d)
	return d
}
BEGIN {
	n = split(devs, dl, " ")
	for (i = 1; i <= n; i++)
		want[dl[i]] = 1
}
{
	if (!match($0, /-[0-9]+ +\[[0-9]+\]/))
		next
	tid = substr($0, RSTART + 1, RLENGTH)
	sub(/ .*/, "", tid)
	if (n && !(dev_of($0) in want))
		next
}
/ writeback_single_inode_start: bdi / {
	if (open[tid] == "" && $0 !~ /bdi \(unknown\):/)
		open[tid] = "wsi"
	next
}
/ writeback_single_inode: bdi / {
	if (open[tid] == "wsi") {
		passes++
		open[tid] = ""
	}
	next
}
/ ext4_writepages: dev / {
	if (open[tid] == "")
		open[tid] = "ext4"
	next
}
/ ext4_writepages_result: dev / {
	if (open[tid] == "ext4") {
		passes++
		ext4++
		open[tid] = ""
	}
	next
}
/ iomap_read(page|ahead): dev / {
	reads++
}
END {
	printf "passes %d ext4 %d reads %d\n", passes, ext4, reads
}
