#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the initramfs one kernel of the VM matrix boots with:
#   busybox-static (as /bin/*), the static bhprof, the static vmwriter,
#   mkfs.xfs / mkfs.ext4 with their shared libraries (only when the kernel
#   has that filesystem), the kernel's modules-<suffix>/*.ko if any, the
#   guest /init and scenarios, and /etc/vm.conf (kernel facts and the run
#   plan).
#
# usage: build-initramfs.sh KERNEL_IMAGE OUTPUT.cpio
# environment: BHPROF_BIN (default .output/bhprof-static), VMWRITER_BIN
#   (default build/vmwriter), VM_MODES, VM_SCENARIOS, VM_STAT_TIMEOUT,
#   VM_VERBOSE (1: run bhprof with -v always); VM_JOB (matrix, the default,
#   or gate-record: see guest-init.sh) with VM_GATE_RUNS (6) and
#   VM_GATE_WRITE (vmwriter's options for each run, default "-s 1m -t 16m")
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: build-initramfs.sh KERNEL_IMAGE OUTPUT.cpio"
img=$1
out=$2
bhprof=${BHPROF_BIN:-$REPO_ROOT/.output/bhprof-static}
writer=${VMWRITER_BIN:-$BUILD_DIR/vmwriter}
busybox=$(command -v busybox || true)

[ -x "$bhprof" ] || die "no bhprof binary at $bhprof (make static)"
[ -x "$writer" ] || die "no vmwriter at $writer"
[ -n "$busybox" ] || die "busybox not found (apt-get install busybox-static)"
! ldd "$busybox" >/dev/null 2>&1 ||
	die "$busybox is not static (apt-get install busybox-static)"
cfg=$(kernel_config "$img") || die "no config-$(kernel_suffix "$img") beside $img"
eval "$(kernel_facts "$cfg")"
mods=$(kernel_modules_dir "$img")
suffix=$(kernel_suffix "$img")

root=$(mktemp -d "$BUILD_DIR/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,mnt,results} \
	"$root"/lib/x86_64-linux-gnu "$root"/lib64 "$root"/lib/vm-modules \
	"$root"/scenarios

cp "$busybox" "$root/bin/busybox"
for app in $("$busybox" --list); do
	[ "$app" = busybox ] || ln -sf busybox "$root/bin/$app"
done
cp "$bhprof" "$root/bin/bhprof"
cp "$writer" "$root/bin/vmwriter"
cp "$VM_DIR/guest-init.sh" "$root/init"
cp "$VM_DIR"/scenarios/*.sh "$VM_DIR"/scenarios/*.prep \
	"$VM_DIR"/scenarios/*.opts "$root/scenarios/"
chmod 755 "$root/init" "$root"/scenarios/*.sh "$root/bin/bhprof" "$root/bin/vmwriter"

# A dynamically linked tool and the libraries ldd says it needs.
copy_dyn() {
	local bin=$1 lib
	cp -L "$bin" "$root/usr/sbin/$(basename "$bin")"
	for lib in $(ldd "$bin" | awk '/=>/ { print $3 } /^[[:space:]]*\// { print $1 }'); do
		[ -f "$lib" ] || continue
		case $lib in
		/lib64/*) cp -L "$lib" "$root/lib64/" ;;
		*) cp -L "$lib" "$root/lib/x86_64-linux-gnu/" ;;
		esac
	done
}

has_fs() {	# has_fs y|m|"" module-name
	case $1 in
	y) return 0 ;;
	m) [ -n "$mods" ] && [ -f "$mods/$2.ko" ] ;;
	*) return 1 ;;
	esac
}

scen=${VM_SCENARIOS:-raw-buffered raw-direct raw-mixed ext4-file xfs-file two-writers raw-read raw-read-mixed file-read mmap-write dio-fallback ext4-meta}
have_xfs=0 have_ext4=0
if has_fs "$K_XFS" xfs; then
	have_xfs=1
	copy_dyn "$(command -v mkfs.xfs)" || die "mkfs.xfs missing (apt-get install xfsprogs)"
fi
if has_fs "$K_EXT4" ext4; then
	have_ext4=1
	copy_dyn "$(command -v mkfs.ext4)" || die "mkfs.ext4 missing (apt-get install e2fsprogs)"
	[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$root/etc/"
fi
# scenarios that need a filesystem the kernel lacks are left out
plan=""
for s in $scen; do
	case $s in
	ext4-*) [ $have_ext4 = 1 ] || continue ;;
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
VM_BH=$K_BH
VM_HAVE_XFS=$have_xfs
VM_HAVE_EXT4=$have_ext4
VM_MODES='$modes'
VM_SCENARIOS='${plan# }'
VM_STAT_TIMEOUT=${VM_STAT_TIMEOUT:-90}
VM_DEADLINE=${VM_DEADLINE:-870}
VM_VERBOSE=${VM_VERBOSE:-0}
VM_JOB='${VM_JOB:-matrix}'
VM_GATE_RUNS=${VM_GATE_RUNS:-6}
VM_GATE_WRITE='${VM_GATE_WRITE:--s 1m -t 16m}'
VM_COST_ROUNDS=${VM_COST_ROUNDS:-5}
CONF
echo "root:x:0:0:root:/:/bin/sh" > "$root/etc/passwd"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
