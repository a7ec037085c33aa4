#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The QEMU kernel matrix: boots every test kernel under TCG with the
# static bhprof, runs each scenario under each attach mode the kernel
# supports, asserts what must hold, and prints a kernel x mode x scenario
# table (also written to tests/vm/build/matrix.txt). The last line reads
# "vm: N passed, N failed"; the exit status is non-zero if anything failed
# or anything needed (qemu, kernels, bhprof) is missing.
#
# usage: tests/vm/run-matrix.sh [KERNEL_IMAGE...]
# environment:
#   BHPROF_KERNELS_DIR   kernels folder (default: ../shared/kernels beside
#                        the repository); takes bzImage-*, vmlinuz-* and
#                        Image-*, each booted with the QEMU of the
#                        architecture its config names
#   BHPROF_DEBIAN_KERNELS  SUITE:ARCH list of Debian's generic kernels to
#                        fetch and boot (fetch-debian-kernels.sh; "none":
#                        the test kernels alone)
#   BHPROF_EXTRA_KERNELS more kernel images, space or colon separated; each
#                        needs config-<suffix> (or <image>.config) beside it
#   BHPROF_BIN           the static bhprof for guests of the build machine's
#                        architecture (default .output/bhprof-static,
#                        built with `make static` when missing)
#   BHPROF_BIN_arm64     ... for arm64 guests (default, on x86-64,
#                        .output/arm64/bhprof-static: make ARCH=arm64 static)
#   VM_JOBS              kernels booted at once (default 2)
#   VM_TIMEOUT           seconds before a guest is killed (default 900)
#   VM_MODES, VM_SCENARIOS  restrict the matrix (default: all that apply)
#   VM_SMP, VM_MEM       guest CPUs (2) and memory in MiB (1024)
#   VM_TCG_THREAD        single (default: one host thread per guest) or multi
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$BUILD_DIR"
matrix=$BUILD_DIR/matrix.txt

# One matrix at a time per build folder: a second run would overwrite the
# disk images and results of the first.
exec 9> "$BUILD_DIR/.lock"
if ! flock -n 9; then
	note "another matrix run holds $BUILD_DIR/.lock: waiting for it"
	flock 9
fi
t_start=$(date +%s)

# Missing tools or kernels are failures, said loudly, never a skip.
fatal() {
	{
		printf '\n'
		printf '*****************************************************************\n'
		printf '*** vm: FAILED: %s\n' "$*"
		printf '*****************************************************************\n'
		printf 'vm: 0 passed, 1 failed\n'
	} | tee "$matrix"
	exit 2
}

if [ $# -gt 0 ]; then
	kernels=("$@")
else
	# Debian's generic kernels, fetched once into the cache; a fetch that
	# fails fails the matrix with its reason
	if [ "${BHPROF_DEBIAN_KERNELS:-}" != none ]; then
		msg=$("$VM_DIR/fetch-debian-kernels.sh" 2>&1 >/dev/null) ||
			fatal "Debian's kernels: ${msg:-fetch-debian-kernels.sh failed}"
	fi
	mapfile -t kernels < <(list_kernels)
fi
[ ${#kernels[@]} -gt 0 ] ||
	fatal "no kernels in $(kernels_dir) (bzImage-*, vmlinuz-*, Image-*) nor in BHPROF_EXTRA_KERNELS"
# the longest first (lib.sh kernel_cost): the guests then end together,
# not the last one alone
mapfile -t kernels < <(for k in "${kernels[@]}"; do
	printf '%s\t%s\n' "$(kernel_cost "$k")" "$k"
done | sort -s -t "$(printf '\t')" -k1,1nr | cut -f2-)

# each kernel's architecture and page size, from its config ("arm64/16k":
# every line of the matrix names both), and the architectures needed
declare -A kap=()	# kernel name -> "arm64/16k"
arches=()
for k in "${kernels[@]}"; do
	cfg=$(kernel_config "$k" 2>/dev/null) || continue
	kap[$(kernel_suffix "$k")]=$(eval "$(kernel_facts "$cfg")"
		echo "$K_ARCH/$((K_PAGE_SIZE / 1024))k")
	a=${kap[$(kernel_suffix "$k")]%%/*}
	[[ " ${arches[*]} " == *" $a "* ]] || arches+=("$a")
done
msg=$(vm_preflight "${arches[@]}") || fatal "$msg"

# bhprof, static, one per architecture: the guests have no shared
# libraries. Built here unless given (BHPROF_BIN, BHPROF_BIN_<arch>).
for a in "${arches[@]}"; do
	bin=$(bhprof_bin "$a")
	v=BHPROF_BIN_$a
	if [ -z "${!v:-}" ] && { [ "$a" != "$HOST_ARCH" ] || [ -z "${BHPROF_BIN:-}" ]; }; then
		note "building the static $a bhprof (make ARCH=$a static)"
		make -C "$REPO_ROOT" -s ARCH="$a" static >"$BUILD_DIR/make-static-$a.log" 2>&1 ||
			{ tail -n 30 "$BUILD_DIR/make-static-$a.log" >&2
			  fatal "make ARCH=$a static failed: no bhprof for the $a guests"; }
	fi
	[ -x "$bin" ] || fatal "no static $a bhprof at $bin"
	export "BHPROF_BIN_$a=$bin"
	build_vmwriter "$a" || fatal "cannot build the static $a vmwriter (libc6-dev, crossbuild-essential-$(deb_arch "$a"))"
	build_memfuse "$a" || fatal "cannot build the static memfuse (libfuse3-dev, pkg-config)"
done

# ---- boot every kernel, VM_JOBS at a time ------------------------------
jobs_max=${VM_JOBS:-2}
names=()
pre_fail=()
declare -A running=()	# pid -> kernel name

reap_one() {
	local pid name
	wait -n -p pid "${!running[@]}"
	name=${running[$pid]}
	unset "running[$pid]"
	note "$name: $(cat "$BUILD_DIR/$name/status" 2>/dev/null) in $(cat "$BUILD_DIR/$name/elapsed" 2>/dev/null)s"
}

# never leave a guest running: stop them all on the way out
trap 'for p in "${!running[@]}"; do kill -TERM "$p" 2>/dev/null; done
      wait; fatal "interrupted"' INT TERM HUP

for k in "${kernels[@]}"; do
	name=$(kernel_suffix "$k")
	if [ ! -f "$k" ]; then
		pre_fail+=("$name: kernel image $k not found")
		continue
	fi
	if ! kernel_config "$k" >/dev/null; then
		pre_fail+=("$name: no config-$name (or $(basename "$k").config) beside $k")
		continue
	fi
	names+=("$name")
	while [ ${#running[@]} -ge "$jobs_max" ]; do
		reap_one
	done
	note "booting $name (Linux $(cfg_version "$(kernel_config "$k")"))"
	"$VM_DIR/run-kernel.sh" "$k" "$BUILD_DIR/$name" > "$BUILD_DIR/$name.run.log" 2>&1 &
	running[$!]=$name
done
while [ ${#running[@]} -gt 0 ]; do
	reap_one
done
trap - INT TERM HUP

# ---- assertions ----------------------------------------------------------
# VM_JOBS kernels' at once: each is some 20 s of jq
for k in "${kernels[@]}"; do
	name=$(kernel_suffix "$k")
	[ -d "$BUILD_DIR/$name" ] || continue
	while [ "$(jobs -pr | wc -l)" -ge "$jobs_max" ]; do
		wait -n
	done
	"$VM_DIR/check-results.sh" "$k" "$BUILD_DIR/$name" \
		> "$BUILD_DIR/$name.check.log" 2> "$BUILD_DIR/$name.check.err" &
done
wait

# ---- the matrix ----------------------------------------------------------
# only this run's kernels: build/ may hold others from earlier runs
checkfiles=()
for name in "${names[@]}"; do
	[ -f "$BUILD_DIR/$name/checks.tsv" ] && checkfiles+=("$BUILD_DIR/$name/checks.tsv")
done
allchecks() {
	[ ${#checkfiles[@]} -gt 0 ] && cat "${checkfiles[@]}"
}
{
	echo "bhprof VM matrix  $(date -u "+%Y-%m-%d %H:%M:%S UTC")  bhprof: $(for a in "${arches[@]}"; do printf "%s " "$(bhprof_bin "$a")"; done)"
	echo
	printf '%-22s %-9s %-10s %-14s %-4s %-10s %6s %5s %5s %5s %6s %8s %5s %6s %5s %5s %7s %6s %5s %6s %8s %6s %5s %4s\n' \
		kernel arch/page mode scenario res path writes wb pages bios bioMiB maxbio bh diskMiB diff% kbios kbh \
		rcalls rbios rMiB rmaxbio krbios mkw dwf
	for name in "${names[@]}"; do
		rows=$BUILD_DIR/$name/rows.tsv
		st=$(cat "$BUILD_DIR/$name/status" 2>/dev/null || echo MISSING)
		if [ "$st" != OK ]; then
			printf '%-22s %-9s %-10s %-14s %-4s %s\n' "$name" "${kap[$name]}" - - FAIL "$st"
		fi
		[ -f "$rows" ] || continue
		awk -F'\t' '{ printf "%-22s %-9s %-10s %-14s %-4s %-10s %6s %5s %5s %5s %6s %8s %5s %6s %5s %5s %7s %6s %5s %6s %8s %6s %5s %4s\n",
			$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
			$17, $18, $19, $20, $21, $22, $23, $24 }' "$rows"
	done
	echo
	echo "path = the path(s) the scenario writes through; writes = write and O_DIRECT"
	echo "calls on it; wb = writeback function calls (- where the mode cannot see"
	echo "them); pages = pages written back; bios, bioMiB, maxbio (bytes) = bios"
	echo "bhprof put on the path; bh = every buffer_head allocated; diskMiB ="
	echo "/proc/diskstats sectors written on the written devices; diff% = bhprof's"
	echo "device bytes vs diskstats; kbios, kbh = the guest kernel's own count"
	echo "(tracefs block_bio_queue on those devices, kmem_cache_alloc from"
	echo "alloc_buffer_head), which bhprof's device bios and bh must equal."
	echo "Reads: rcalls = read_folio and readahead calls (n/a in tracepoint"
	echo "mode), rbios, rMiB, rmaxbio = read bios on the read devices, krbios ="
	echo "the kernel's own (tracefs block_bio_queue R); mkw = page_mkwrite"
	echo "faults, dwf = O_DIRECT writes that fell back to buffered (n/a:"
	echo "tracepoint mode or, for dwf, absent before 6.6)."
	echo
	echo "modes agree (pages, bios, bh allocations, calls equal in every forced"
	echo "mode; * = equal relative to the kernel's own count, see notes):"
	for name in "${names[@]}"; do
		[ -f "$BUILD_DIR/$name/checks.tsv" ] || continue
		awk -F'\t' -v k="$name ${kap[$name]}" '$3 == "all" {
			if (!($4 in st)) { order[n++] = $4; st[$4] = "PASS" }
			if ($1 == "FAIL") st[$4] = "FAIL"
			if ($6 ~ /NOTE/) note[$4] = "*"
			cnt[$4]++ }
			END { line = sprintf("  %-32s", k)
			      for (i = 0; i < n; i++) line = line sprintf(" %s %s%s", order[i], st[order[i]], note[order[i]])
			      print line }' "$BUILD_DIR/$name/checks.tsv"
	done
	echo
	for name in "${names[@]}"; do
		p=$BUILD_DIR/$name/results/probe.json
		[ -f "$p" ] && jq -e . "$p" >/dev/null 2>&1 || continue
		printf 'probe %-22s %-9s %s\n' "$name" "${kap[$name]}" "$(jq -r '[.kernel.release, "bh=\(.kernel.buffer_head)"] + [.probes[] | "\(.name)=\(.mode)\(if .mode == "absent" or .mode == "none" then "" else "(\(.func))" end)"] | join(" ")' "$p")"
	done
	echo
	costs=()
	for name in "${names[@]}"; do
		[ -s "$BUILD_DIR/$name/cost.tsv" ] && costs+=("$BUILD_DIR/$name/cost.tsv")
	done
	if [ ${#costs[@]} -gt 0 ]; then
		echo "per-write cost of each mode: 64 MiB of 4 KiB writes + fsync to a"
		echo "raw disk, bare and under bhprof stat --attach MODE, the writer's own"
		echo "CPU time over its calls; the least of the rounds of each, as a ratio"
		echo "to bare's least, and the extra CPU per write call. TCG emulates every"
		echo "instruction: only the order of the modes means anything, and it is"
		echo "not asserted."
		printf '  %-17s %-10s %6s %9s %14s\n' kernel mode rounds "cpu/bare" "extra us/write"
		cat "${costs[@]}" | awk -F'\t' '{ printf "  %-17s %-10s %6s %9s %14s\n", $1, $2, $3, $4, $5 }'
		cat "${costs[@]}" | awk -F'\t' '{ c[$1, $2] = $5; k[$1] = 1 }
			END { for (n in k) if ((n SUBSEP "fentry") in c) {
				f = c[n, "fentry"]; less = ""
				for (key in c) { split(key, p, SUBSEP)
					if (p[1] == n && p[2] != "fentry" && c[key] < f) less = less " " p[2] }
				printf "  %-17s fentry cheapest: %s\n", n, less == "" ? "yes" : "no, less:" less } }'
		echo
	fi
	allchecks | awk -F'\t' '$1 == "PASS" && $6 ~ /NOTE/ {
		n++; printf "note %s %s %s: %s: %s\n", $2, $3, $4, $5, $6 }
		END { if (n) print "" }'
	allchecks | awk -F'\t' '$1 == "FAIL" {
		n++; printf "FAIL %s %s %s: %s: %s\n", $2, $3, $4, $5, $6 }
		END { if (n) print "" }'
	for f in "${pre_fail[@]}"; do
		echo "FAIL $f"
	done
} > "$matrix"

pass=$(allchecks | grep -c '^PASS')
fail=$(allchecks | grep -c '^FAIL')
fail=$((fail + ${#pre_fail[@]}))
for name in "${names[@]}"; do
	[ -f "$BUILD_DIR/$name/checks.tsv" ] || fail=$((fail + 1))
done
for name in "${names[@]}"; do
	[ -s "$BUILD_DIR/$name.check.err" ] && cat "$BUILD_DIR/$name.check.err" >&2
done
{
	echo "checks: $BUILD_DIR/<kernel>/checks.tsv; guest logs: $BUILD_DIR/<kernel>/console.log"
	echo "elapsed: $(( $(date +%s) - t_start ))s for ${#names[@]} kernel(s)"
	echo "vm: $pass passed, $fail failed"
} >> "$matrix"
cat "$matrix"
[ "$fail" -eq 0 ]
