#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's own generic kernels, as a default install runs them: ext4, XFS,
# NVMe and loop are modules there, which the test kernels in
# ../shared/kernels (all built in) never show. Fetches, from Debian's
# package registry with apt-get download, the linux-image-ARCH of each
# SUITE:ARCH below and lays out for the matrix, in the cache folder:
#   vmlinuz-debian-X.Y-ARCH        the kernel (X.Y from its version)
#   config-debian-X.Y-ARCH         its .config
#   modules-debian-X.Y-ARCH/*.ko   the modules the scenarios need and every
#                                  module they depend on (from the
#                                  modules' own depends=), decompressed
#   plan-debian-X.Y-ARCH           the scenarios and cost rounds the
#                                  matrix runs on it (lib.sh kernel_plan)
# A suite is resolved once and kept: a second run fetches nothing. Set
# BHPROF_KERNELS_REFRESH=1 to resolve the suites again. A failed fetch
# fails with the reason.
#
# usage: fetch-debian-kernels.sh    (prints the cache folder)
# environment:
#   BHPROF_CACHE            cache folder (default /var/cache/bhprof)
#   BHPROF_DEBIAN_KERNELS   SUITE:ARCH list (default: trixie:amd64
#                           sid:amd64 sid:arm64 bullseye-security:amd64)
#   BHPROF_DEBIAN_MIRROR    the archive (default: the one apt uses here)
#   BHPROF_DEBIAN_SECURITY_MIRROR  the security archive, for SUITE-security
#                           (default: the one apt uses here)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cache=$(debian_kernels_dir)
work=$cache/work
# Debian 11's 5.10 (long-term) is kept up to date only in its security
# suite, bullseye's own stays at its last point release
targets=${BHPROF_DEBIAN_KERNELS:-trixie:amd64 sid:amd64 sid:arm64 bullseye-security:amd64}
# what the matrix's scenarios load: the disks, the filesystems, loop,
# fuse (a module before 6.x)
MODULES="nvme ext4 xfs loop crypto-crc32c exfat vfat nls_cp437 nls_ascii nls_utf8 ntfs3 ntfs btrfs fuse"
# at least a raw write, a raw read, one ext4 and one XFS file, in
# every mode; ext4 and XFS file reads, whose ext4 functions live in the
# module; and exfat, whose path moved from buffer heads (6.12) to iomap
# (7.x); and vfat, on buffer heads with mpage_writepages' writeback
# (its mount loads the codepage and character sets it names: no modprobe
# in the guest, so they are loaded beforehand); and NTFS, on buffer heads
# with 6.12's ntfs3, on iomap with the new ntfs driver that replaced it
# (a kernel has one of the two); and ext4 loaded while bhprof runs; and
# btrfs, on neither path: the other group; and FUSE (built in), without
# its writeback cache on neither path, with it on iomap from 7.x
PLAN_SCENARIOS="raw-buffered raw-read ext4-file xfs-file file-read exfat-file vfat-file ntfs-file ext4-late btrfs-file fuse-file fuse-wbc-file"
# ... arm64's, emulated at half the speed, without FAT, NTFS and FUSE:
# the same drivers' code as amd64's, which runs them
PLAN_SCENARIOS_arm64="raw-buffered raw-read ext4-file xfs-file file-read exfat-file"
# ... 5.10's (PLAN_SCENARIOS_SUITE_ARCH, the suite's "-" as "_"): no
# NTFS driver that writes, and writes through a shared mapping, whose
# faults read through ->readpage, the read functions' names up to 5.18
PLAN_SCENARIOS_bullseye_security_amd64="raw-buffered raw-read ext4-file xfs-file file-read exfat-file vfat-file ext4-late btrfs-file fuse-file fuse-wbc-file mmap-write"

fail() {
	printf 'fetch-debian-kernels: %s\n' "$*" >&2
	exit 1
}

# The archive apt uses here (its first URI of the kind), or Debian's:
# "main", or "security" for a SUITE-security. The environment's
# BHPROF_DEBIAN_MIRROR and BHPROF_DEBIAN_SECURITY_MIRROR come first.
mirror() {	# mirror main|security
	local u sec=0 env=${BHPROF_DEBIAN_MIRROR:-} def=http://deb.debian.org/debian
	if [ "$1" = security ]; then
		sec=1 env=${BHPROF_DEBIAN_SECURITY_MIRROR:-}
		def=http://deb.debian.org/debian-security
	fi
	if [ -n "$env" ]; then
		echo "$env"
		return
	fi
	u=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk -v sec=$sec '($0 ~ /security/) == sec { print; exit }')
	[ -n "$u" ] || u=$(awk -v sec=$sec '$1 == "deb" && ($0 ~ /security/) == sec {
		for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }' \
		/etc/apt/sources.list 2>/dev/null)
	echo "${u:-$def}"
}

# a private apt state for the suites, so the machine's own lists and
# sources stay as they are
apt_opts=(-o Dir::Etc::sourcelist="$work/apt/sources.list"
	  -o Dir::Etc::sourceparts=/dev/null
	  -o Dir::State::Lists="$work/apt/lists"
	  -o Dir::Cache="$work/apt/cache"
	  -o APT::Architectures::="$(dpkg --print-architecture)")
apt_ready=0
apt_update() {
	[ $apt_ready = 1 ] && return 0
	local s suites="" m sm u
	m=$(mirror main)
	sm=$(mirror security)
	mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
	for t in $targets; do
		s=${t%%:*}
		[[ " $suites " == *" $s "* ]] || suites="$suites $s"
		apt_opts+=(-o APT::Architectures::="${t#*:}")
	done
	: > "$work/apt/sources.list"
	for s in $suites; do
		case $s in
		*-security) u=$sm ;;
		*) u=$m ;;
		esac
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $u $s main" \
			>> "$work/apt/sources.list"
	done
	apt-get "${apt_opts[@]}" update -q > "$work/apt-update.log" 2>&1 ||
		fail "apt-get update of$suites from $m and $sm failed: $(grep -E '^(E|W):' "$work/apt-update.log" | head -n 1)"
	apt_ready=1
}

# the version of PKG:ARCH in SUITE, from the private lists
suite_version() {
	apt-cache "${apt_opts[@]}" madison "$1:$3" 2>/dev/null |
		awk -F'|' -v s="$2" '$3 ~ "/" s "/" || $3 ~ " " s "/" { gsub(/ /, "", $2); print $2; exit }'
}

# the packages of one kernel: linux-image-ABI, and, from 7.x on, the
# linux-binary, -modules and -base packages it depends on
kernel_packages() {	# SUITE ARCH -> "PKG=VERSION" lines
	local suite=$1 arch=$2 meta ver img dep
	meta=linux-image-$arch
	ver=$(suite_version "$meta" "$suite" "$arch")
	[ -n "$ver" ] || fail "$suite has no $meta for $arch"
	img=$(apt-cache "${apt_opts[@]}" show "$meta:$arch=$ver" 2>/dev/null |
		sed -n 's/^Depends: //p' | head -n 1 | tr ',' '\n' |
		sed -n 's/^ *\(linux-image-[^ ]*\).*/\1/p' | head -n 1)
	[ -n "$img" ] || fail "$meta $ver in $suite names no linux-image package"
	echo "$img=$ver"
	apt-cache "${apt_opts[@]}" show "$img:$arch=$ver" 2>/dev/null |
		sed -n 's/^Depends: //p' | head -n 1 | tr ',' '\n' |
		sed -n 's/^ *\(linux-\(binary\|modules\|base\)-[^ ]*\).*/\1/p' |
		while read -r dep; do
			echo "$dep=$ver"
		done
}

# The modules NAMES need, dependencies first, as modprobe would insert
# them: depmod over the unpacked tree gives the symbol dependencies, the
# soft ones (libcrc32c's "pre: crc32c") and the aliases a mount asks for
# (ext4's "crypto-crc32c" on 6.12). A name built in, or unknown to this
# kernel (the alias of a driver that became a library, ntfs3 where the
# new ntfs replaced it), needs nothing.
module_closure() {	# ROOT ABI NAME...
	local root=$1 abi=$2 n
	shift 2
	depmod -b "$root" "$abi" 2>/dev/null ||
		fail "depmod over $abi's modules failed"
	for n in "$@"; do
		{ modprobe -d "$root" -S "$abi" --show-depends "$n" 2>/dev/null ||
			true; } | sed -n 's/^insmod \([^ ]*\).*/\1/p'
	done | awk '!seen[$0]++'
}

decompress() {	# FILE.ko[.xz|.zst|.gz] OUT.ko
	case $1 in
	*.xz) xz -dc "$1" > "$2" ;;
	*.zst) zstd -q -dc "$1" > "$2" ;;
	*.gz) gzip -dc "$1" > "$2" ;;
	*) cp "$1" "$2" ;;
	esac
}

# one SUITE:ARCH, laid out in the cache; the stamp keeps its name
fetch_one() {
	local suite=$1 arch=$2 stamp=$cache/.$1-$2 pkgs name ver x kimg kcfg mdir
	local abi mroot need p plan=PLAN_SCENARIOS_$2 splan
	splan=PLAN_SCENARIOS_${1//-/_}_$2
	plan=${!splan:-${!plan:-$PLAN_SCENARIOS}}
	if [ -f "$stamp" ] && [ -z "${BHPROF_KERNELS_REFRESH:-}" ]; then
		name=$(head -n 1 "$stamp")
		# laid out for these modules and this plan: nothing to do
		[ -f "$cache/vmlinuz-$name" ] && [ -f "$cache/plan-$name" ] &&
			[ "$(sed -n 2p "$stamp")" = "$MODULES|$plan" ] &&
			return 0
	fi
	apt_update
	pkgs=$(kernel_packages "$suite" "$arch")
	ver=$(echo "$pkgs" | head -n 1 | sed 's/.*=//')
	name=debian-$(echo "$ver" | cut -d. -f1,2)-$arch
	# the suite moved on (7.2 to 7.3): its older kernel leaves the matrix
	if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" != "$name" ]; then
		x=$(head -n 1 "$stamp")
		rm -rf "$cache/vmlinuz-$x" "$cache/config-$x" "$cache/plan-$x" \
			"$cache/modules-$x" "$work/$x.debs"
	fi
	x=$work/$name
	rm -rf "$x"
	# the packages stay: a new layout (more modules) downloads nothing
	mkdir -p "$x.debs"
	need=""
	for p in $pkgs; do
		ls "$x.debs/${p%%=*}_${ver//:/%3a}_"*.deb >/dev/null 2>&1 ||
			need="$need ${p%%=*}:$arch=$ver"
	done
	if [ -n "$need" ]; then
		# shellcheck disable=SC2086
		(cd "$x.debs" && apt-get "${apt_opts[@]}" download -q $need) \
			> "$x.log" 2>&1 ||
			fail "apt-get download of $suite's $arch kernel $ver failed: $(grep -E '^(E|W):' "$x.log" | grep -v unsandboxed | head -n 1)"
	fi
	for p in $pkgs; do
		dpkg-deb -x "$(ls "$x.debs/${p%%=*}_${ver//:/%3a}_"*.deb | head -n 1)" "$x" ||
			fail "cannot unpack ${p%%=*} $ver"
	done
	# /boot/vmlinuz-ABI up to 6.x; /usr/lib/modules/ABI/vmlinuz from 7.x
	kimg=$(find "$x" -maxdepth 5 -path '*/boot/vmlinuz*' -o -path '*/modules/*/vmlinuz' | head -n 1)
	kcfg=$(find "$x" -maxdepth 5 -type f \( -path '*/boot/config-*' -o -path '*/modules/*/config' \) | head -n 1)
	[ -n "$kimg" ] && [ -n "$kcfg" ] || fail "$suite's $arch kernel $ver holds no vmlinuz or config"
	mdir=$cache/modules-$name
	rm -rf "$mdir" && mkdir -p "$mdir"
	abi=$(find "$x" -maxdepth 5 -type d -path '*/lib/modules/*/kernel' | head -n 1)
	abi=${abi%/kernel}
	# depmod's base: the folder above lib/modules (usr/ from 6.12 on)
	mroot=${abi%/lib/modules/*}
	module_closure "$mroot" "${abi##*/}" $MODULES > "$mdir/order.src"
	[ -s "$mdir/order.src" ] || fail "$suite's $arch kernel $ver: no modules for $MODULES"
	: > "$mdir/order"
	while read -r f; do
		b=${f##*/}
		b=${b%%.ko*}.ko
		decompress "$f" "$mdir/$b" || fail "cannot decompress $f"
		echo "$b" >> "$mdir/order"
	done < "$mdir/order.src"
	rm -f "$mdir/order.src"
	cp "$kimg" "$cache/vmlinuz-$name"
	cp "$kcfg" "$cache/config-$name"
	{
		echo "# Debian $suite's linux-image-$arch $ver, fetched $(date -u +%F)"
		echo "SCENARIOS='$plan'"
		echo "COST_ROUNDS=0"
	} > "$cache/plan-$name"
	rm -rf "$x"
	printf '%s\n%s\n' "$name" "$MODULES|$plan" > "$stamp"
}

mkdir -p "$cache" "$work" || fail "cannot make $cache"
exec 8> "$cache/.lock"
flock 8
for t in $targets; do
	fetch_one "${t%%:*}" "${t#*:}"
done
echo "$cache"
