#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the initramfs one kernel of the VM matrix boots with:
#   busybox-static (as /bin/*), the static bhprof, the static vmwriter,
#   mkfs.xfs / mkfs.ext4 with their shared libraries (only when the kernel
#   has that filesystem), the static memfuse (only for a fuse- scenario on
#   a kernel with FUSE), all of the kernel's architecture (another than
#   the build machine's comes from foreign-root.sh), the kernel's modules-<suffix>/*.ko if any, the
#   guest /init and scenarios, and /etc/vm.conf (kernel facts and the run
#   plan).
#
# usage: build-initramfs.sh KERNEL_IMAGE OUTPUT.cpio
# environment: BHPROF_BIN, BHPROF_BIN_<arch> (lib.sh's bhprof_bin),
#   VMWRITER_BIN (default build/ARCH/vmwriter), MEMFUSE_BIN (default
#   build/ARCH/memfuse), VM_MODES, VM_SCENARIOS, VM_STAT_TIMEOUT,
#   VM_VERBOSE (1: run bhprof with -v always); VM_JOB (matrix, the default,
#   or gate-record: see guest-init.sh) with VM_GATE_RUNS (6) and
#   VM_GATE_WRITE (vmwriter's options for each run, default "-s 1m -t 16m")
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: build-initramfs.sh KERNEL_IMAGE OUTPUT.cpio"
img=$1
out=$2
cfg=$(kernel_config "$img") || die "no config-$(kernel_suffix "$img") beside $img"
eval "$(kernel_facts "$cfg")"
mods=$(kernel_modules_dir "$img")
suffix=$(kernel_suffix "$img")
bhprof=$(bhprof_bin "$K_ARCH")
writer=${VMWRITER_BIN:-$BUILD_DIR/$K_ARCH/vmwriter}
[ -x "$bhprof" ] || die "no $K_ARCH bhprof binary at $bhprof (make static, ARCH=$K_ARCH for another)"
[ -x "$writer" ] || die "no vmwriter at $writer"

# The guest's tools: the build machine's own, or another architecture's
# unpacked from Debian's packages, whose libraries are found by their
# ELF NEEDED lists in that tree (ldd cannot run a foreign binary).
if [ "$K_ARCH" = "$HOST_ARCH" ]; then
	troot=""
	busybox=$(command -v busybox || true)
	[ -n "$busybox" ] || die "busybox not found (apt-get install busybox-static)"
	! ldd "$busybox" >/dev/null 2>&1 ||
		die "$busybox is not static (apt-get install busybox-static)"
else
	troot=$("$VM_DIR/foreign-root.sh" "$K_ARCH") || die "no $K_ARCH guest tools"
	busybox=$troot/bin/busybox
fi
libdir=lib/$(gnu_arch "$K_ARCH")-linux-gnu

root=$(mktemp -d "$BUILD_DIR/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,mnt,results} \
	"$root/$libdir" "$root"/lib64 "$root"/lib/vm-modules \
	"$root"/scenarios

cp "$busybox" "$root/bin/busybox"
# the applets' links from the binary's own --list; a foreign busybox
# cannot run here, so it gets /bin/sh alone and /init installs the rest
# (busybox --install -s)
if [ -z "$troot" ]; then
	apps=$("$busybox" --list)
else
	apps=sh
fi
for app in $apps; do
	[ "$app" = busybox ] || ln -sf busybox "$root/bin/$app"
done
cp "$bhprof" "$root/bin/bhprof"
cp "$writer" "$root/bin/vmwriter"
cp "$VM_DIR/guest-init.sh" "$root/init"
cp "$VM_DIR"/scenarios/*.sh "$VM_DIR"/scenarios/*.prep \
	"$VM_DIR"/scenarios/*.opts "$root/scenarios/"
chmod 755 "$root/init" "$root"/scenarios/*.sh "$root/bin/bhprof" "$root/bin/vmwriter"

# A dynamically linked tool and the libraries it needs: ldd's list for
# the build machine's own, the NEEDED entries (recursively) and the
# interpreter looked up in the foreign tree for another architecture.
copy_dyn() {
	local bin=$1 lib
	cp -L "$bin" "$root/usr/sbin/$(basename "$bin")"
	if [ -n "$troot" ]; then
		copy_needed "$bin"
		return
	fi
	for lib in $(ldd "$bin" | awk '/=>/ { print $3 } /^[[:space:]]*\// { print $1 }'); do
		[ -f "$lib" ] || continue
		case $lib in
		/lib64/*) cp -L "$lib" "$root/lib64/" ;;
		*) cp -L "$lib" "$root/$libdir/" ;;
		esac
	done
}

copy_needed() {
	local elf=$1 interp so f
	interp=$(readelf -l "$elf" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
		mkdir -p "$root$(dirname "$interp")"
		cp -L "$troot$interp" "$root$interp" ||
			die "no interpreter $interp in $troot"
	fi
	for so in $(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -e "$root/$libdir/$so" ] && continue
		f=""
		for d in "$troot/$libdir" "$troot/usr/$libdir"; do
			[ -e "$d/$so" ] && { f=$d/$so; break; }
		done
		[ -n "$f" ] || die "$(basename "$elf") needs $so, not in $troot"
		cp -L "$f" "$root/$libdir/$so"
		copy_needed "$f"
	done
}

tool() {	# the build machine's tool, or the foreign tree's
	if [ -z "$troot" ]; then
		command -v "$1"
	elif [ -x "$troot/sbin/$1" ]; then
		echo "$troot/sbin/$1"
	elif [ -x "$troot/usr/sbin/$1" ]; then
		echo "$troot/usr/sbin/$1"
	fi
}

has_fs() {	# has_fs y|m|"" module-name
	case $1 in
	y) return 0 ;;
	m) [ -n "$mods" ] && [ -f "$mods/$2.ko" ] ;;
	*) return 1 ;;
	esac
}

eval "$(kernel_plan "$img" "$K_ARCH")"
scen=${VM_SCENARIOS:-$SCENARIOS}
[ "$scen" = all ] && scen=$ALL_SCENARIOS
have_xfs=0 have_ext4=0 have_exfat=0 have_vfat=0 have_btrfs=0 have_fuse=0 ntfs_driver=""
if has_fs "$K_XFS" xfs; then
	have_xfs=1
	copy_dyn "$(tool mkfs.xfs)" || die "mkfs.xfs missing (apt-get install xfsprogs)"
fi
if has_fs "$K_EXT4" ext4; then
	have_ext4=1
	copy_dyn "$(tool mkfs.ext4)" || die "mkfs.ext4 missing (apt-get install e2fsprogs)"
	[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$root/etc/"
fi
# exfat: only where a scenario asks for it (Debian's kernels' plans)
if [[ " $scen " == *" exfat-"* ]] && has_fs "$K_EXFAT" exfat; then
	have_exfat=1
	copy_dyn "$(tool mkfs.exfat)" || die "mkfs.exfat missing (apt-get install exfatprogs)"
fi
# NTFS the same way, made by ntfs-3g's mkntfs, through ntfs3 or the new
# ntfs driver of 7.1 on (CONFIG_NTFS_FS before 6.9 is the old one)
if [[ " $scen " == *" ntfs-"* ]]; then
	if has_fs "$K_NTFS3" ntfs3; then
		ntfs_driver=ntfs3
	elif has_fs "$K_NTFS" ntfs && version_ge "$K_VERSION" 7.1; then
		ntfs_driver=ntfs
	fi
	[ -z "$ntfs_driver" ] || copy_dyn "$(tool mkntfs)" ||
		die "mkntfs missing (apt-get install ntfs-3g)"
fi
# btrfs the same way: on neither path (its own write and writeback code)
if [[ " $scen " == *" btrfs-"* ]] && has_fs "$K_BTRFS" btrfs; then
	have_btrfs=1
	copy_dyn "$(tool mkfs.btrfs)" || die "mkfs.btrfs missing (apt-get install btrfs-progs)"
fi
# FUSE the same way, served by memfuse from memory: built for the host's
# architecture alone (lib.sh build_memfuse), so another's guests leave
# the fuse scenarios out as they do a filesystem their kernel lacks
if [[ " $scen " == *" fuse-"* ]] && [ "$K_ARCH" = "$HOST_ARCH" ] &&
   has_fs "$K_FUSE" fuse; then
	have_fuse=1
	memfuse=${MEMFUSE_BIN:-$BUILD_DIR/$K_ARCH/memfuse}
	[ -x "$memfuse" ] || die "no memfuse at $memfuse (lib.sh build_memfuse)"
	cp "$memfuse" "$root/bin/memfuse"
	chmod 755 "$root/bin/memfuse"
fi
# vfat the same way; busybox's mkdosfs makes it
if [[ " $scen " == *" vfat-"* ]] && has_fs "$K_VFAT" vfat; then
	have_vfat=1
fi
# scenarios that need a filesystem the kernel lacks are left out
plan=""
for s in $scen; do
	case $s in
	ext4-*) [ $have_ext4 = 1 ] || continue ;;
	exfat-*) [ $have_exfat = 1 ] || continue ;;
	vfat-*) [ $have_vfat = 1 ] || continue ;;
	btrfs-*) [ $have_btrfs = 1 ] || continue ;;
	fuse-*) [ $have_fuse = 1 ] || continue ;;
	ntfs-*) [ -n "$ntfs_driver" ] || continue ;;
	xfs-*|file-read|mmap-write) [ $have_xfs = 1 ] || continue ;;
	esac
	plan="$plan $s"
done

if [ -n "$mods" ]; then
	cp "$mods"/*.ko "$root/lib/vm-modules/" 2>/dev/null || true
fi

modes=${VM_MODES:-$K_MODES}
cat > "$root/etc/vm.conf" <<CONF
# written by build-initramfs.sh for $(basename "$img")
VM_KERNEL='$suffix'
VM_KVERSION='$K_VERSION'
VM_ARCH=$K_ARCH
VM_PAGE_SIZE=$K_PAGE_SIZE
VM_BH=$K_BH
VM_HAVE_XFS=$have_xfs
VM_HAVE_EXT4=$have_ext4
VM_HAVE_EXFAT=$have_exfat
VM_HAVE_VFAT=$have_vfat
VM_HAVE_BTRFS=$have_btrfs
VM_HAVE_FUSE=$have_fuse
VM_NTFS_DRIVER=$ntfs_driver
VM_MODES='$modes'
VM_SCENARIOS='${plan# }'
VM_STAT_TIMEOUT=${VM_STAT_TIMEOUT:-90}
VM_DEADLINE=${VM_DEADLINE:-870}
VM_VERBOSE=${VM_VERBOSE:-0}
VM_JOB='${VM_JOB:-matrix}'
VM_GATE_RUNS=${VM_GATE_RUNS:-6}
VM_GATE_WRITE='${VM_GATE_WRITE:--s 1m -t 16m}'
VM_COST_ROUNDS=${VM_COST_ROUNDS:-$COST_ROUNDS}
VM_COST_FLOOR=${VM_COST_FLOOR:-0}
CONF
echo "root:x:0:0:root:/:/bin/sh" > "$root/etc/passwd"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
