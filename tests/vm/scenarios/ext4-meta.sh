#!/bin/sh
# ext4 metadata, run with --callers: 96 small files in nested
# directories, each written and fsynced, renames, deletes, a sync; then
# 4 MiB buffered to a raw disk with nothing mounted; then drop_caches.
# /proc/slabinfo's buffer_head line (where the kernel has one) before,
# after the load and after drop_caches goes to slab.txt.
. /scenarios/common.sh
KFREE=1
# how many folios the block device's writeback wrote differs from run
# to run (jbd2 and the flusher race the sync): the kernel's own count
# of block_write_full_folio calls is what every mode is held to
KREF=1
[ -n "$EXT4_MNT" ] || { echo "no ext4 mount" >&2; exit 2; }
slab() {
	[ -r /proc/slabinfo ] || return 0
	# SLUB counts every object of a CPU's own slab as active: shrinking
	# the cache first hands those slabs back, so that active means
	# allocated (without it a drop_caches could show no change at all)
	[ -w /sys/kernel/slab/buffer_head/shrink ] &&
		echo 1 > /sys/kernel/slab/buffer_head/shrink
	awk -v t="$1" '$1 == "buffer_head" { print t, $2, $3 }' /proc/slabinfo \
		>> "$out/slab.txt"
}
begin
slab before
for a in 1 2 3; do
	for b in 1 2 3 4; do
		d=$EXT4_MNT/m$MODE/a$a/b$b
		mkdir -p $d
		for f in 1 2 3 4 5 6 7 8; do
			w -c -s 1k -t 1k $d/f$f
		done
		mv $d/f1 $d/r1
		mv $d/f2 $EXT4_MNT/m$MODE/a$a/r$b
		rm $d/f3 $d/f4
	done
done
sync
w -s 1m -t 4m "$RAW1"
slab load
mark load
sync
echo 3 > /proc/sys/vm/drop_caches
slab dropped
end
