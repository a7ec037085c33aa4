# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the host side of the VM matrix (sourced, not run).

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$VM_DIR/../.." && pwd)
BUILD_DIR=${BHPROF_VM_BUILD:-$VM_DIR/build}

die() {
	printf '\n*** vm: %s ***\n\n' "$*" >&2
	exit 2
}

note() {
	printf 'vm: %s\n' "$*" >&2
}

# The architecture a machine or kernel runs, in the kernel's words
# (x86, arm64), from uname -m or Debian's names
arch_name() {
	case $1 in
	x86_64|amd64|x86) echo x86 ;;
	aarch64|arm64) echo arm64 ;;
	*) echo "$1" ;;
	esac
}
HOST_ARCH=$(arch_name "$(uname -m)")

# Debian's name of an architecture, and its GNU triplet's first word
deb_arch() { case $1 in x86) echo amd64 ;; *) echo "$1" ;; esac; }
gnu_arch() { case $1 in x86) echo x86_64 ;; arm64) echo aarch64 ;; esac; }

# The QEMU binary and machine of an architecture's guests (QEMU, when
# set, overrides the binary of every architecture) and their console
qemu_bin() {
	if [ -n "${QEMU:-}" ]; then
		echo "$QEMU"
		return
	fi
	case $1 in
	x86) echo qemu-system-x86_64 ;;
	arm64) echo qemu-system-aarch64 ;;
	esac
}
qemu_pkg() { case $1 in x86) echo qemu-system-x86 ;; arm64) echo qemu-system-arm ;; esac; }

# What every boot needs on the host, checked before any: prints the first
# thing missing, with how to get it, and fails. ARCH...: the guests'.
vm_preflight() {
	local t a qemu
	for a in "${@:-$HOST_ARCH}"; do
		qemu=$(qemu_bin "$a")
		[ -n "$qemu" ] || { echo "no QEMU guest for architecture $a"; return 1; }
		command -v "$qemu" >/dev/null || {
			echo "$qemu not found: apt-get install $(qemu_pkg "$a") (see tests/vm/deps.txt)"
			return 1; }
	done
	for t in jq cpio busybox mkfs.xfs mkfs.ext4 timeout ldd flock readelf; do
		command -v "$t" >/dev/null || {
			echo "$t not found: apt-get install \$(cat tests/vm/deps.txt)"
			return 1; }
	done
	! ldd "$(command -v busybox)" >/dev/null 2>&1 || {
		echo "busybox is not static: apt-get install busybox-static"
		return 1; }
}

# What a kernel of an architecture runs unless VM_SCENARIOS and
# VM_COST_ROUNDS say otherwise. x86-64 runs everything. arm64 guests are
# emulated too, and make check has 30 minutes for the whole matrix: they
# run every scenario but the three that test attribution logic no
# architecture changes (raw-mixed, two-writers, file-read: the x86-64
# kernels run those). No kernel runs cost rounds in make check: they are
# figures, and make bench-vm (bench-vm.sh) counts them in instructions.
# The bh kernels of the x86-64 pairs leave raw-mixed and two-writers to
# their nobh twins and to 6.1 (a bh kernel too): attribution logic that
# neither the release nor the pair changes, run once per path.
ALL_SCENARIOS="raw-buffered raw-direct raw-mixed ext4-file xfs-file two-writers raw-read raw-read-mixed file-read mmap-write dio-fallback ext4-meta"
default_scenarios() {
	case $1:$2 in
	arm64:*) echo "raw-buffered raw-direct ext4-file xfs-file raw-read raw-read-mixed mmap-write dio-fallback" ;;
	*:6.12-bh|*:7.2-bh) echo "$ALL_SCENARIOS" | sed 's/ raw-mixed//; s/ two-writers//' ;;
	*) echo "$ALL_SCENARIOS" ;;
	esac
}
default_cost_rounds() { echo 0; }

# A kernel's own plan, plan-<suffix> beside its image (SCENARIOS=,
# COST_ROUNDS=), overrides those defaults: Debian's generic kernels boot
# slower and run fewer scenarios. kernel_plan IMAGE ARCH -> assignments
kernel_plan() {
	local f
	f=$(dirname "$1")/plan-$(kernel_suffix "$1")
	echo "SCENARIOS='$(default_scenarios "$2" "$(kernel_suffix "$1")")'"
	echo "COST_ROUNDS=$(default_cost_rounds "$2")"
	[ -f "$f" ] && grep -E "^(SCENARIOS|COST_ROUNDS)=" "$f"
	return 0
}

# A kernel's share of the matrix, so that the longest boot first and the
# last ones end together: its scenario runs (the scenarios its
# filesystems allow, times its modes), twice over for Debian's generic
# kernels, whose runs took twice as long (module loads, larger images;
# make check of 2026-12-07: 22 s a run against 10). kernel_cost IMAGE
kernel_cost() {
	local img=$1 cfg n=0 s
	cfg=$(kernel_config "$img" 2>/dev/null) || { echo 0; return; }
	eval "$(kernel_facts "$cfg")"
	eval "$(kernel_plan "$img" "$K_ARCH")"
	for s in $SCENARIOS; do
		case $s in
		ext4-*|file-read|mmap-write) [ -n "$K_EXT4" ] || continue ;;
		esac
		n=$((n + 1))
	done
	n=$((n * $(echo $K_MODES | wc -w)))
	case $(kernel_suffix "$img") in
	debian-*) n=$((n * 2)) ;;
	esac
	echo "$n"
}

# The static bhprof for an architecture's guests: BHPROF_BIN_<arch>, or
# BHPROF_BIN for the build machine's own, or where 'make static' (with
# ARCH=<arch> for another) writes it.
bhprof_bin() {
	local v=BHPROF_BIN_$1
	if [ -n "${!v:-}" ]; then
		echo "${!v}"
	elif [ "$1" = "$HOST_ARCH" ]; then
		echo "${BHPROF_BIN:-$REPO_ROOT/.output/bhprof-static}"
	else
		echo "$REPO_ROOT/.output/$1/bhprof-static"
	fi
}

# The guests' static vmwriter for an architecture, built into
# $BUILD_DIR/ARCH/vmwriter (a cross compiler for another than the host's:
# crossbuild-essential-arm64).
build_vmwriter() {
	local a=${1:-$HOST_ARCH} cc=${CC:-cc}
	[ "$a" = "$HOST_ARCH" ] || cc=$(gnu_arch "$a")-linux-gnu-gcc
	mkdir -p "$BUILD_DIR/$a"
	"$cc" -static -O2 -Wall -o "$BUILD_DIR/$a/vmwriter" "$VM_DIR/writer.c" \
		2>"$BUILD_DIR/$a/vmwriter.log" || {
		cat "$BUILD_DIR/$a/vmwriter.log" >&2
		return 1; }
}

# The FUSE server of the fuse scenarios, static against libfuse3
# (libfuse3-dev ships libfuse3.a), into $BUILD_DIR/ARCH/memfuse: for
# the host's architecture alone. arm64 guests leave those scenarios to
# amd64's (fuse's code is the same), as they leave FAT and NTFS: no
# libfuse3.a of theirs is needed.
build_memfuse() {
	local a=${1:-$HOST_ARCH} cc=${CC:-cc} cflags libs
	[ "$a" = "$HOST_ARCH" ] || return 0
	mkdir -p "$BUILD_DIR/$a"
	cflags=$(pkg-config --cflags fuse3 2>/dev/null) &&
		libs=$(pkg-config --static --libs fuse3 2>/dev/null) || {
		echo "pkg-config knows no fuse3: apt-get install libfuse3-dev pkg-config" >&2
		return 1; }
	# (libfuse3.a's module loader calls dlopen, which a static link
	# warns of: memfuse loads no module)
	# shellcheck disable=SC2086
	"$cc" -static -O2 -Wall $cflags -o "$BUILD_DIR/$a/memfuse" \
		"$VM_DIR/memfuse.c" $libs 2>"$BUILD_DIR/$a/memfuse.log" || {
		cat "$BUILD_DIR/$a/memfuse.log" >&2
		return 1; }
}

# The folder that holds the test kernels: ../shared/kernels beside the
# repository unless BHPROF_KERNELS_DIR says otherwise.
kernels_dir() {
	if [ -n "${BHPROF_KERNELS_DIR:-}" ]; then
		printf '%s\n' "$BHPROF_KERNELS_DIR"
		return
	fi
	local top
	top=$(git -C "$REPO_ROOT" rev-parse --show-toplevel 2>/dev/null) ||
		top=$REPO_ROOT
	printf '%s\n' "$top/../shared/kernels"
}

# Where fetch-debian-kernels.sh keeps Debian's generic kernels: outside
# the checkout, so that a fresh clone (CI's) fetches nothing twice.
debian_kernels_dir() {
	printf '%s/debian-kernels\n' "${BHPROF_CACHE:-/var/cache/bhprof}"
}

# Every kernel image to test, one path a line: bzImage-*, vmlinuz-* and
# Image-* (arm64's name; the architecture comes from the config) in
# the kernels folder, then Debian's generic kernels (fetched by
# fetch-debian-kernels.sh, unless BHPROF_DEBIAN_KERNELS is "none"), then
# the entries of BHPROF_EXTRA_KERNELS (a space or colon separated list of
# image files; the config is config-<suffix> beside each, or
# <image>.config).
list_kernels() {
	local dir f
	dir=$(kernels_dir)
	if [ -d "$dir" ]; then
		for f in "$dir"/bzImage-* "$dir"/vmlinuz-* "$dir"/Image-*; do
			[ -f "$f" ] && printf '%s\n' "$f"
		done
	fi
	if [ "${BHPROF_DEBIAN_KERNELS:-}" != none ]; then
		for f in "$(debian_kernels_dir)"/vmlinuz-*; do
			[ -f "$f" ] && printf '%s\n' "$f"
		done
	fi
	for f in $(printf '%s' "${BHPROF_EXTRA_KERNELS:-}" | tr ':' ' '); do
		printf '%s\n' "$f"
	done
}

# bzImage-6.12-bh -> 6.12-bh
kernel_suffix() {
	local b
	b=$(basename "$1")
	case $b in
	bzImage-*) printf '%s\n' "${b#bzImage-}" ;;
	vmlinuz-*) printf '%s\n' "${b#vmlinuz-}" ;;
	Image-*) printf '%s\n' "${b#Image-}" ;;
	*) printf '%s\n' "$b" ;;
	esac
}

kernel_config() {
	local img=$1 dir suf
	dir=$(dirname "$img")
	suf=$(kernel_suffix "$img")
	if [ -f "$dir/config-$suf" ]; then
		printf '%s\n' "$dir/config-$suf"
	elif [ -f "$img.config" ]; then
		printf '%s\n' "$img.config"
	else
		return 1
	fi
}

# Optional modules folder: modules-<suffix>/ beside the image.
kernel_modules_dir() {
	local dir suf
	dir=$(dirname "$1")
	suf=$(kernel_suffix "$1")
	[ -d "$dir/modules-$suf" ] && printf '%s\n' "$dir/modules-$suf"
	return 0
}

# cfg_val CONFIG FILE -> y, m, a value, or empty when unset
cfg_val() {
	sed -n "s/^$1=//p" "$2" | tr -d '"' | head -n 1
}

# "6.12.118" from the header of a .config
cfg_version() {
	sed -n 's/^# Linux\/[^ ]* \([0-9][0-9.]*\)[^ ]* Kernel Configuration$/\1/p' "$1" |
		head -n 1
}

# version_ge A B: A >= B for dotted versions
version_ge() {
	[ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$2" ]
}

# Facts about one kernel, from its .config alone, as shell assignments:
#   K_VERSION K_BH(1/0) K_EXT4(y/m/"") K_XFS(y/m/"") K_EXFAT K_BTRFS K_FUSE
#   K_LOOP K_MODES
#   K_BH_WB (block_write_full_folio or _page), K_ARCH (x86, arm64: the
#   guest's QEMU and binaries), K_PAGE_SIZE (bytes)
kernel_facts() {
	local cfg=$1 v bh modes=""
	v=$(cfg_version "$cfg")
	[ -n "$v" ] || v=0
	bh=$(cfg_val CONFIG_BUFFER_HEAD "$cfg")
	if [ "$bh" = y ]; then
		bh=1
	elif version_ge "$v" 6.6; then
		# 6.6 made buffer heads optional; unset means compiled out
		bh=0
	else
		# before 6.6 there was no option: always built
		bh=1
	fi
	# fentry: BTF and ftrace direct calls (trampolines)
	if [ "$(cfg_val CONFIG_DEBUG_INFO_BTF "$cfg")" = y ] &&
	   [ "$(cfg_val CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS "$cfg")" = y ] &&
	   [ "$(cfg_val CONFIG_BPF_JIT "$cfg")" = y ]; then
		modes="$modes fentry"
	fi
	if [ "$(cfg_val CONFIG_KPROBES "$cfg")" = y ] &&
	   [ "$(cfg_val CONFIG_KPROBE_EVENTS "$cfg")" = y ]; then
		modes="$modes kprobe"
	fi
	if [ "$(cfg_val CONFIG_FTRACE_SYSCALLS "$cfg")" = y ] &&
	   [ "$(cfg_val CONFIG_DEBUG_INFO_BTF "$cfg")" = y ]; then
		modes="$modes tracepoint"
	fi
	printf 'K_VERSION=%s\n' "$v"
	printf 'K_BH=%s\n' "$bh"
	printf 'K_EXT4=%s\n' "$(cfg_val CONFIG_EXT4_FS "$cfg")"
	printf 'K_XFS=%s\n' "$(cfg_val CONFIG_XFS_FS "$cfg")"
	printf 'K_EXFAT=%s\n' "$(cfg_val CONFIG_EXFAT_FS "$cfg")"
	printf 'K_VFAT=%s\n' "$(cfg_val CONFIG_VFAT_FS "$cfg")"
	printf 'K_NTFS3=%s\n' "$(cfg_val CONFIG_NTFS3_FS "$cfg")"
	printf 'K_NTFS=%s\n' "$(cfg_val CONFIG_NTFS_FS "$cfg")"
	printf 'K_BTRFS=%s\n' "$(cfg_val CONFIG_BTRFS_FS "$cfg")"
	printf 'K_FUSE=%s\n' "$(cfg_val CONFIG_FUSE_FS "$cfg")"
	printf 'K_LOOP=%s\n' "$(cfg_val CONFIG_BLK_DEV_LOOP "$cfg")"
	printf 'K_MODES="%s"\n' "${modes# }"
	if [ "$(cfg_val CONFIG_ARM64 "$cfg")" = y ]; then
		printf 'K_ARCH=arm64\n'
	elif [ "$(cfg_val CONFIG_X86_64 "$cfg")" = y ]; then
		printf 'K_ARCH=x86\n'
	else
		printf 'K_ARCH=unknown\n'
	fi
	if [ "$(cfg_val CONFIG_ARM64_16K_PAGES "$cfg")" = y ]; then
		printf 'K_PAGE_SIZE=16384\n'
	elif [ "$(cfg_val CONFIG_ARM64_64K_PAGES "$cfg")" = y ]; then
		printf 'K_PAGE_SIZE=65536\n'
	else
		printf 'K_PAGE_SIZE=4096\n'
	fi
	# block_write_full_page became block_write_full_folio in 6.8
	if version_ge "$v" 6.8; then
		printf 'K_BH_WB=block_write_full_folio\n'
	else
		printf 'K_BH_WB=block_write_full_page\n'
	fi
}
