#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest tools of another architecture than the build machine's:
# busybox-static, mkfs.xfs, mkfs.ext4, mkfs.exfat and mkntfs with the
# libraries they load,
# from Debian's packages of that architecture, unpacked (not installed:
# busybox-static:arm64 cannot sit beside the amd64 one) into
# $BUILD_DIR/root-ARCH. Fetched once; the folder is reused after.
#
# usage: foreign-root.sh ARCH    (prints the folder)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: foreign-root.sh ARCH"
arch=$1
darch=$(deb_arch "$arch")
root=$BUILD_DIR/root-$arch
# what build-initramfs.sh copies, and the libraries of their NEEDED lists
pkgs="busybox-static xfsprogs e2fsprogs exfatprogs ntfs-3g libc6 libblkid1
      libuuid1 libinih1 liburcu8 libext2fs2 libcom-err2 libntfs-3g89"

# Two guests of one architecture may build their initramfs at once: one
# makes the tree while the other waits, then finds it complete (without
# the lock, the second removed the first's downloads mid-unpack)
mkdir -p "$BUILD_DIR"
exec 9>"$root.lock"
flock 9

# a tree unpacked from another package list is made again
if [ -f "$root/.complete" ] && [ "$(cat "$root/.complete")" = "$(echo $pkgs)" ]; then
	echo "$root"
	exit 0
fi
dpkg --print-foreign-architectures | grep -qx "$darch" ||
	die "dpkg knows no $darch packages: dpkg --add-architecture $darch && apt-get update (tests/install-deps.sh does it)"
rm -rf "$root" "$root.debs"
mkdir -p "$root.debs"
list=""
for p in $pkgs; do
	list="$list $p:$darch"
done
# apt-get download writes to the current folder; as root it warns that
# _apt cannot, which is harmless
# shellcheck disable=SC2086
(cd "$root.debs" && apt-get download -q $list) >"$root.log" 2>&1 ||
	{ cat "$root.log" >&2; die "apt-get download of $darch guest tools failed"; }
for d in "$root.debs"/*.deb; do
	dpkg-deb -x "$d" "$root"
done
rm -rf "$root.debs"
echo $pkgs > "$root/.complete"
echo "$root"
