#!/bin/sh
# ext4 loaded while bhprof runs (ext4-late.prep took it out): bhprof's
# helper attaches ext4's functions and events once the module is live,
# says so once on stderr, and counts them from then on. Then an rmmod:
# the kernel refuses it while a program of bhprof's is on ext4 (fentry,
# tracepoints: the pass group is on ext4's events in every mode); should
# it let go, bhprof must say so, and attach again once ext4 is back.
# Then, as ext4-file, 16 MiB in 1 MiB writes and fsync, its mount inside
# the window the kernel's own counts cover; and the same to XFS, whose
# module brings no probe of its own (iomap's are vmlinux's) but must
# land whole on iomap from its first mount.
. /scenarios/common.sh
KREF=1
# the helper's lines, on bhprof's stderr beside this run's outputs
wait_line() {
	n=0
	until [ "$(grep -c "^bhprof: module ext4 loaded" "$out/stat.err")" -ge "$1" ]; do
		n=$((n + 1))
		[ $n -le 150 ] || { echo "ext4-late: no attach line $1" >&2; exit 1; }
		sleep 0.2
	done
}
insmod /lib/vm-modules/ext4.ko || exit 2
insmod /lib/vm-modules/xfs.ko || exit 2
wait_line 1
rc=0
rmmod ext4 2> "$out/rmmod.err" || rc=$?
echo $rc > "$out/rmmod.rc"
if ! grep -q "^ext4 " /proc/modules; then
	insmod /lib/vm-modules/ext4.ko || exit 2
	wait_line 2
fi
# ext4's events came back with the module, off: the reference needs them
for e in ext4_writepages ext4_writepages_result; do
	echo 1 > $T/events/ext4/$e/enable 2>/dev/null || true
done
begin
mount -t ext4 -o "$EXT4_MOUNT_OPTS" "$EXT4_DEV" /mnt/ext4
mount -t xfs -o noatime "$XFS_DEV" /mnt/xfs
w -c -s 1m -t 16m "/mnt/ext4/f-$MODE"
w -c -s 1m -t 16m "/mnt/xfs/f-$MODE"
end
