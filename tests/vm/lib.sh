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

# What every boot needs on the host, checked before any: prints the first
# thing missing, with how to get it, and fails.
vm_preflight() {
	local t qemu=${QEMU:-qemu-system-x86_64}
	command -v "$qemu" >/dev/null || {
		echo "$qemu not found: apt-get install qemu-system-x86 (see tests/vm/deps.txt)"
		return 1; }
	for t in jq cpio busybox mkfs.xfs mkfs.ext4 timeout ldd flock; do
		command -v "$t" >/dev/null || {
			echo "$t not found: apt-get install \$(cat tests/vm/deps.txt)"
			return 1; }
	done
	! ldd "$(command -v busybox)" >/dev/null 2>&1 || {
		echo "busybox is not static: apt-get install busybox-static"
		return 1; }
}

# The guests' static vmwriter, built into $BUILD_DIR and exported as
# VMWRITER_BIN for build-initramfs.sh.
build_vmwriter() {
	"${CC:-cc}" -static -O2 -Wall -o "$BUILD_DIR/vmwriter" "$VM_DIR/writer.c" \
		2>"$BUILD_DIR/vmwriter.log" || {
		cat "$BUILD_DIR/vmwriter.log" >&2
		return 1; }
	export VMWRITER_BIN=$BUILD_DIR/vmwriter
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

# Every kernel image to test, one path a line: bzImage-* and vmlinuz-* in
# the kernels folder, then the entries of BHPROF_EXTRA_KERNELS (a space or
# colon separated list of image files; the config is config-<suffix>
# beside each, or <image>.config).
list_kernels() {
	local dir f
	dir=$(kernels_dir)
	if [ -d "$dir" ]; then
		for f in "$dir"/bzImage-* "$dir"/vmlinuz-*; do
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
#   K_VERSION K_BH(1/0) K_EXT4(y/m/"") K_XFS(y/m/"") K_LOOP K_MODES
#   K_BH_WB (block_write_full_folio or _page)
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
	printf 'K_LOOP=%s\n' "$(cfg_val CONFIG_BLK_DEV_LOOP "$cfg")"
	printf 'K_MODES="%s"\n' "${modes# }"
	# block_write_full_page became block_write_full_folio in 6.8
	if version_ge "$v" 6.8; then
		printf 'K_BH_WB=block_write_full_folio\n'
	else
		printf 'K_BH_WB=block_write_full_page\n'
	fi
}
