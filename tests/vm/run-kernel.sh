#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boots one kernel of the matrix under QEMU/TCG and brings its results
# back: builds the initramfs, makes fresh sparse NVMe disk images, runs
# qemu under a hard timeout, unpacks the results archive the guest wrote
# onto its results disk.
#
# usage: run-kernel.sh KERNEL_IMAGE OUTDIR
# Leaves in OUTDIR: console.log, qemu.log, status (OK, TIMEOUT, CRASHED,
# NORESULTS, QEMU-FAILED), results/ (what the guest wrote), elapsed (seconds).
# environment: VM_TIMEOUT (default 900 s), VM_SMP (2), VM_MEM (1024 MiB),
#   QEMU (default: the kernel's architecture's, lib.sh's qemu_bin); and those of build-initramfs.sh, among them
#   VM_JOB=gate-record (VM_GATE_RUNS, VM_GATE_WRITE), which leaves the
#   recordings in OUTDIR/results/gate/run-N.bhp.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: run-kernel.sh KERNEL_IMAGE OUTDIR"
img=$1
out=$2
tmo=${VM_TIMEOUT:-900}
cfg=$(kernel_config "$img") || die "no config beside $img"
eval "$(kernel_facts "$cfg")"
qemu=$(qemu_bin "$K_ARCH")
[ -n "$qemu" ] || die "$img: no QEMU for architecture $K_ARCH (its config says)"
# The board and console of each architecture. arm64: Debian's kernels
# sign return addresses, and QEMU's own hash for them (pauth-impdef)
# makes TCG about twice as fast as the architected one.
case $K_ARCH in
x86) machine=(-machine q35 -cpu max) console=ttyS0 ;;
arm64) machine=(-machine virt -cpu max,pauth-impdef=on) console=ttyAMA0 ;;
esac

rm -rf "$out"
mkdir -p "$out/results"
start=$(date +%s)

# the guest stops starting runs in time to hand back what it has
export VM_DEADLINE=$((tmo - 30))
if ! "$VM_DIR/build-initramfs.sh" "$img" "$out/initramfs.cpio" \
	> "$out/initramfs.log" 2>&1; then
	cat "$out/initramfs.log" >&2
	echo INITRAMFS-FAILED > "$out/status"
	exit 1
fi

# fresh sparse disks every boot; XFS wants >= 300 MB
disks=(res:64M raw1:256M raw2:256M xfs:384M ext4:256M)
drive_args=()
i=0
for d in "${disks[@]}"; do
	name=${d%%:*}
	size=${d#*:}
	rm -f "$out/$name.img"
	truncate -s "$size" "$out/$name.img"
	drive_args+=(-drive "file=$out/$name.img,if=none,id=d$i,format=raw,cache=unsafe"
		     -device "nvme,drive=d$i,serial=bhp-$name")
	i=$((i + 1))
done

append="console=$console panic=-1 oops=panic loglevel=4 mitigations=off"
append="$append rdinit=/init"
# a cache of its own for buffer_head in /proc/slabinfo (ext4-meta)
append="$append slab_nomerge"

# timeout puts qemu in its own process group: pass on our INT/TERM
tpid=""
trap '[ -n "$tpid" ] && kill -TERM "$tpid" 2>/dev/null' INT TERM HUP
# One host thread for all the guest's vCPUs (VM_TCG_THREAD=multi: one
# each). With a thread per vCPU, guests now and then died of an int3 in
# code the kernel was patching (text_poke_bp, as enabling a tracepoint
# or an fentry site does) that its breakpoint handler no longer knew:
# we take it for a vCPU running a stale translation of the breakpoint.
# Two guests run at once on two cores, so a thread each costs the
# matrix little.
# VM_ICOUNT=1 (make bench-vm): the guest's clock counts instructions
icount=()
[ "${VM_ICOUNT:-0}" = 1 ] && icount=(-icount shift=0,sleep=off)
timeout --kill-after=10 "$tmo" "$qemu" \
	-accel "tcg,thread=${VM_TCG_THREAD:-single}" "${icount[@]}" -nodefaults -no-reboot -display none \
	"${machine[@]}" -smp "${VM_SMP:-2}" -m "${VM_MEM:-1024}" \
	-kernel "$img" -initrd "$out/initramfs.cpio" -append "$append" \
	-serial "file:$out/console.log" -monitor none \
	"${drive_args[@]}" > "$out/qemu.log" 2>&1 &
tpid=$!
wait $tpid
rc=$?
if kill -0 $tpid 2>/dev/null; then
	# interrupted: qemu is being stopped; wait for it, report, stop
	wait $tpid
	echo INTERRUPTED > "$out/status"
	exit 1
fi
echo $(( $(date +%s) - start )) > "$out/elapsed"

if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo TIMEOUT > "$out/status"
elif [ $rc -ne 0 ]; then
	echo "QEMU-FAILED rc=$rc" > "$out/status"
elif ! grep -q 'BHPROF-VM-DONE' "$out/console.log"; then
	# a panic reboots, and -no-reboot turns that into a clean exit
	echo "CRASHED (guest stopped before its end; panic?)" > "$out/status"
fi
if tar -xf "$out/res.img" -C "$out/results" 2> "$out/untar.log" &&
   [ -f "$out/results/vm.conf" ]; then
	[ -f "$out/status" ] || echo OK > "$out/status"
else
	[ -f "$out/status" ] || echo NORESULTS > "$out/status"
fi
# the data disks are only scratch space
rm -f "$out"/{raw1,raw2,xfs,ext4}.img
[ "$(cat "$out/status")" = OK ]
