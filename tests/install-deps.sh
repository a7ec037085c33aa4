#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Installs, from Debian's packages, everything bhprof needs to build, run
# and pass its tests on a fresh machine. Run as root.
set -euo pipefail

BUILD="make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev
       libncurses-dev libmicrohttpd-dev pkg-config"
# to build, lint, install and complete the Debian package (test_package.sh)
PACKAGE="dpkg-dev debhelper lintian bash-completion"
RUN_TESTS="jq tmux util-linux e2fsprogs xfsprogs btrfs-progs fio libxml2-utils python3 sudo time
	   python3-jsonschema
	   libclang-rt-14-dev chromium prometheus curl iproute2"
# arm64: the cross toolchain and the :arm64 libraries of 'make ARCH=arm64'
# and 'dpkg-buildpackage -a arm64' (the matrix's arm64 guests run its
# static build); they install beside the amd64 ones
CROSS_ARCH=arm64
CROSS="crossbuild-essential-arm64 binutils-aarch64-linux-gnu
       libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libncurses-dev:arm64
       libmicrohttpd-dev:arm64"
# bench/compare.sh measures bhprof against these
BENCH="bpftrace libbpf-tools bpftool"
here=$(cd "$(dirname "$0")" && pwd)
VM=""
[ -f "$here/vm/deps.txt" ] && VM=$(grep -v '^#' "$here/vm/deps.txt" | tr '\n' ' ')

# apt-get needs root: a user is asked through sudo, where there is one
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null; then
		exec sudo "$0" "$@"
	fi
	echo "install-deps: must run as root (apt-get), and there is no sudo: run it as root" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
had_prometheus=$(dpkg-query -W -f='${Status}' prometheus 2>/dev/null || true)
if [ "$(dpkg --print-architecture)" = amd64 ]; then
	dpkg --print-foreign-architectures | grep -qx "$CROSS_ARCH" ||
		dpkg --add-architecture "$CROSS_ARCH"
else
	CROSS=""
fi
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $BUILD $PACKAGE $RUN_TESTS $BENCH $VM $CROSS
# and whatever else debian/control's Build-Depends names
apt-get build-dep -y -q --no-install-recommends "$here/.."
# tests/live/test_serve.sh starts its own Prometheus on loopback; the
# service the package starts would listen on every interface. One that
# was there before is left alone.
if [ "$had_prometheus" != "install ok installed" ] &&
   [ -d /run/systemd/system ]; then
	systemctl disable --now prometheus || true
fi
