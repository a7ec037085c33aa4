#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What bhprof costs a write workload, next to the tools one would use
# instead. fio writes SIZE in 4 KiB and in 1 MiB psync writes, then
# fsyncs, to a loop device backed by tmpfs (a device that costs nothing,
# so the tracers' share shows), ROUNDS times, each round running every
# tracer once in a rotating order:
#
#   bare       no tracer
#   bhprof     bhprof stat --attach tracepoint -d LOOP
#   callers    the same with --callers (a stack per buffer_head)
#   bpftrace   bench/bhprof.bt, the same tracepoints in bpftrace
#   libbpf     biolatency + bitesize of libbpf-tools (bios only)
#   floor      bench/floor: an empty program on each event bhprof's
#              tracepoint mode attaches to, which no program body can
#              go below (FLOOR=path; make bench builds it)
#   (BHPROF_BASE=path adds "base", another bhprof binary, e.g. main's)
#
# The tracers' probes run in the writer's context, so fio's CPU time
# (user + system, /usr/bin/time) carries their cost. Per round each
# figure is divided by the bare run's of the same round; the median of
# those ratios is printed with their spread (min..max). Then start-up
# (exec to collecting: the command under bhprof stat / bpftrace -c
# starts once the probes are attached and the baseline is read), exit
# (SIGINT to gone) and peak RSS of bhprof and of bpftrace, and the cost
# of each bhprof program from the kernel's own statistics.
#
# Figures, not pass/fail. Needs root. Results go to OUT as well.
set -u
here=$(cd "$(dirname "$0")" && pwd)
BHPROF=${BHPROF:-$here/../bhprof}
BHPROF_BASE=${BHPROF_BASE:-}
FLOOR=${FLOOR:-$here/../.output/floor}
ROUNDS=${ROUNDS:-7}
SIZE=${SIZE:-400M}
BS_LIST=${BS_LIST:-4k 1m}
OUT=${OUT:-$here/../.output/bench-overhead.txt}
TRACERS=${TRACERS:-bare bhprof callers bpftrace libbpf floor}
# issue 20's targets for tracepoint mode, printed beside the figures
LIMIT_CPU=1.10		# fio CPU time, 4 KiB, bhprof against bare
LIMIT_SYS_NS=80		# getppid(), more than bare
LIMIT_PROG_NS=500	# bhprof's programs per 4 KiB write
[ -n "$BHPROF_BASE" ] && TRACERS="$TRACERS base"

die() { echo "compare: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
for t in fio jq bpftrace biolatency bitesize bpftool /usr/bin/time; do
	command -v "$t" >/dev/null || die "$t missing (tests/install-deps.sh)"
done
[ -x "$BHPROF" ] || die "$BHPROF not built"
# its processes' name, as pgrep sees it (the kernel keeps 15 bytes)
bhprof_comm=$(basename "$BHPROF" | cut -c1-15)
case " $TRACERS " in
*" floor "*) [ -x "$FLOOR" ] || die "$FLOOR not built (make .output/floor)" ;;
esac

work=$(mktemp -d /tmp/bhprof-compare.XXXXXX)
mount -t tmpfs -o size=1200M tmpfs "$work" || die "cannot mount tmpfs"
truncate -s 512M "$work/disk"
dev=$(losetup -f --show "$work/disk") || { umount "$work"; die "no loop device"; }
name=$(basename "$dev")
cleanup() {
	jobs -p | xargs -r kill -INT 2>/dev/null
	wait
	losetup -d "$dev"
	umount "$work"
	rmdir "$work"
}
trap cleanup EXIT
# tmpfs allocates on first write: fill the backing file once
dd if=/dev/zero of="$dev" bs=1M count=512 conv=fsync status=none

# alloc_buffer_head's text size, for bhprof.bt's call-site filter
bh_size=$(awk '($2 == "t" || $2 == "T") && !lo && $3 == "alloc_buffer_head" {
		lo = $1; next }
	lo && ($2 == "t" || $2 == "T") { print strtonum("0x" $1) - strtonum("0x" lo); exit }' \
	/proc/kallsyms 2>/dev/null)
[ -n "$bh_size" ] && [ "$bh_size" -gt 0 ] 2>/dev/null || bh_size=256

# fio under /usr/bin/time; argv without spaces, for bpftrace -c
fio_cmd() { # fio_cmd BS TAG
	echo "/usr/bin/time -f %U_%S -o $work/$2.time /usr/bin/fio --name=w" \
		"--filename=$dev --rw=write --bs=$1 --size=$SIZE" \
		"--ioengine=psync --end_fsync=1 --output-format=json" \
		"--output=$work/$2.json"
}

# wait for a line in a file (a tool saying it attached), up to 20 s
wait_for() { # wait_for FILE PATTERN
	for _ in $(seq 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# The events bhprof's tracepoint mode attaches to here, as floor's
# arguments: what its process holds, by bpftool perf show.
tracefs=/sys/kernel/tracing
[ -d $tracefs/events ] || tracefs=/sys/kernel/debug/tracing
floor_events() {
	"$BHPROF" stat --attach tracepoint -d "$name" -- /bin/sh -c \
		"bpftool perf show --json >$work/perf.json; pgrep -x '$bhprof_comm' >$work/pids" \
		>/dev/null 2>&1
	jq -r --argjson pids "[$(paste -sd, "$work/pids")]" \
		'.[] | select(.pid as $p | $pids | index($p)) |
		"\(.fd_type) \(.tracepoint)"' "$work/perf.json" | sort -u |
	while read -r type tp; do
		case $type in
		raw_tracepoint) echo "raw:$tp" ;;
		tracepoint)
			set -- $tracefs/events/*/"$tp"
			[ -d "$1" ] && echo "tp:$(basename "$(dirname "$1")"):$tp" ;;
		esac
	done
}
FLOOR_EVENTS=
case " $TRACERS " in
*" floor "*)
	FLOOR_EVENTS=$(floor_events | tr '\n' ' ')
	[ -n "$FLOOR_EVENTS" ] || die "no events of bhprof's to put floor on" ;;
esac

# floor on bhprof's events, running CMD...
under_floor() { # under_floor LOG CMD...
	local log=$1 p rc
	shift
	# shellcheck disable=SC2086
	"$FLOOR" $FLOOR_EVENTS >"$log" 2>&1 &
	p=$!
	FLOOR_PID=$p
	if ! wait_for "$log" attached; then
		kill -INT $p 2>/dev/null
		wait $p
		return 1
	fi
	"$@"
	rc=$?
	kill -INT $p
	wait $p
	return $rc
}

run_one() { # run_one TRACER BS TAG
	local cmd p1 p2
	# a hung tracer costs its round, not the benchmark
	cmd="/usr/bin/timeout -s KILL 300 $(fio_cmd "$2" "$3")"
	case $1 in
	bare)
		$cmd >/dev/null 2>&1 ;;
	bhprof|base|callers)
		local bin=$BHPROF opt=""
		[ "$1" = base ] && bin=$BHPROF_BASE
		[ "$1" = callers ] && opt=--callers
		# shellcheck disable=SC2086
		"$bin" stat --attach tracepoint $opt -d "$name" -- $cmd \
			>/dev/null 2>"$work/$3.err" ;;
	bpftrace)
		bpftrace -c "$cmd" "$here/bhprof.bt" "$bh_size" \
			>/dev/null 2>"$work/$3.err" ;;
	libbpf)
		biolatency 3600 1 >"$work/$3.lat" 2>&1 &
		p1=$!
		bitesize 3600 1 >"$work/$3.size" 2>&1 &
		p2=$!
		wait_for "$work/$3.lat" Tracing && wait_for "$work/$3.size" Tracing
		$cmd >/dev/null 2>&1
		kill -INT $p1 $p2
		wait $p1 $p2 ;;
	floor)
		under_floor "$work/$3.err" $cmd >/dev/null 2>&1 ;;
	esac
}

cpu_of() { tr _ ' ' <"$work/$1.time" | awk '{ printf "%.3f\n", $1 + $2 }'; }
bw_of() { jq '.jobs[0].write.bw' "$work/$1.json"; }

# ratio of each round's figure to that round's bare one: median, min, max
summary() { # summary BS TRACER FIELD(cpu|bw)
	for r in $(seq "$ROUNDS"); do
		awk -v a="$(cat "$work/res.$1.$2.$r.$3")" \
		    -v b="$(cat "$work/res.$1.bare.$r.$3")" \
		    'BEGIN { if (b > 0) printf "%.4f\n", a / b }'
	done | sort -n | awk '{ v[NR] = $1 } END {
		printf "%.2f (%.2f..%.2f)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

median_of() { # median_of BS TRACER FIELD
	for r in $(seq "$ROUNDS"); do cat "$work/res.$1.$2.$r.$3"; done |
		sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

{
	echo "bhprof bench/compare.sh, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "machine: $(uname -r), $(nproc) CPUs," \
		"$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)," \
		"load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "bhprof: $("$BHPROF" --version 2>&1 | head -1)"
	echo "workload: fio $SIZE of psync writes + fsync to $name on tmpfs," \
		"$ROUNDS rounds, tracers interleaved in a rotating order"
	echo
} | tee "$OUT"

set -- $TRACERS
nt=$#
for bs in $BS_LIST; do
	for r in $(seq "$ROUNDS"); do
		# rotate: round r starts at tracer (r mod n)
		order=$(echo $TRACERS | tr ' ' '\n' |
			awk -v s=$(( (r - 1) % nt )) -v n=$nt \
			'{ t[NR - 1] = $0 } END { for (i = 0; i < n; i++) print t[(i + s) % n] }')
		for t in $order; do
			tag=$bs.$t.$r
			run_one "$t" "$bs" "$tag"
			if [ ! -s "$work/$tag.time" ] || ! bw_of "$tag" >/dev/null 2>&1; then
				echo "compare: $t round $r ($bs) failed:" >&2
				cat "$work/$tag.err" >&2 2>/dev/null
				exit 1
			fi
			cpu_of "$tag" >"$work/res.$bs.$t.$r.cpu"
			bw_of "$tag" >"$work/res.$bs.$t.$r.bw"
		done
		echo "  $bs round $r/$ROUNDS done" >&2
	done
	{
		echo "fio $bs writes: median of per-round ratios to bare (min..max)"
		printf "  %-10s %-24s %-24s %s\n" tracer "fio CPU time" "throughput" "median CPU s, MB/s"
		for t in $TRACERS; do
			printf "  %-10s %-24s %-24s %s s, %s MB/s\n" "$t" \
				"$(summary "$bs" "$t" cpu)" "$(summary "$bs" "$t" bw)" \
				"$(median_of "$bs" "$t" cpu)" \
				"$(awk -v k="$(median_of "$bs" "$t" bw)" 'BEGIN { printf "%.0f", k * 1024 / 1e6 }')"
		done
		[ "$bs" = 4k ] && echo "  (limit for bhprof's fio CPU time at 4k: ${LIMIT_CPU}x bare," \
			"the median of three runs)"
		[ -n "$FLOOR_EVENTS" ] && echo "  (floor: an empty program on each of the" \
			"$(echo $FLOOR_EVENTS | wc -w) events bhprof attaches to; bhprof above it" \
			"is its programs' work)"
		echo
	} | tee -a "$OUT"
done

# ---- start-up, exit, RSS ----
ns() { date +%s%N; }

# exec to collecting: the command starts once the probes are attached
startup_ms() { # startup_ms CMD... (CMD runs the stamp command)
	local t0
	t0=$(ns)
	"$@" >/dev/null 2>&1
	awk -v a="$t0" -v b="$(cat "$work/stamp")" 'BEGIN { printf "%.0f\n", (b - a) / 1e6 }'
}

# SIGINT to gone, once attached (its BPF links are open)
exit_ms() { # exit_ms CMD...
	local pid t0 t1
	"$@" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 200); do
		ls -l /proc/$pid/fd 2>/dev/null | grep -q 'bpf[-_]link' && break
		sleep 0.05
	done
	sleep 0.5
	t0=$(ns)
	kill -INT $pid
	wait $pid
	t1=$(ns)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f\n", (b - a) / 1e6 }'
}

# a short run from exec to exit: what a gate job pays for each recording
short_ms() { # short_ms CMD...
	local t0
	t0=$(ns)
	"$@" >/dev/null 2>&1
	awk -v a="$t0" -v b="$(ns)" 'BEGIN { printf "%.0f
", (b - a) / 1e6 }'
}

rss_mb() { # rss_mb CMD...: peak RSS of a 1 s run, MB
	/usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1
	awk '{ printf "%.1f\n", $1 / 1024 }' "$work/rss"
}

med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf 'date +%%s%%N >%s/stamp\n' "$work" >"$work/stamp.sh"
{
	echo "start-up, exit, peak RSS (median of $ROUNDS)"
	for t in bhprof bpftrace; do
		for r in $(seq "$ROUNDS"); do
			if [ $t = bhprof ]; then
				startup_ms "$BHPROF" stat --attach tracepoint -- \
					/bin/sh "$work/stamp.sh" >>"$work/su.$t"
				exit_ms "$BHPROF" stat --attach tracepoint >>"$work/ex.$t"
				short_ms "$BHPROF" stat --attach tracepoint \
					--duration 0.01 >>"$work/sh.$t"
				rss_mb "$BHPROF" stat --attach tracepoint --duration 1 >>"$work/rss.$t"
			else
				startup_ms bpftrace -c "/bin/sh $work/stamp.sh" \
					"$here/bhprof.bt" "$bh_size" >>"$work/su.$t"
				exit_ms bpftrace "$here/bhprof.bt" "$bh_size" >>"$work/ex.$t"
				rss_mb bpftrace -c "/bin/sleep 1" "$here/bhprof.bt" \
					"$bh_size" >>"$work/rss.$t"
			fi
		done
		printf "  %-10s start-up %s ms, exit %s ms, peak RSS %s MB\n" $t \
			"$(med <"$work/su.$t")" "$(med <"$work/ex.$t")" \
			"$(med <"$work/rss.$t")"
		[ -s "$work/sh.$t" ] &&
			printf "  %-10s stat --duration 0.01, exec to exit: %s ms\n" \
				$t "$(med <"$work/sh.$t")"
	done
	echo
} 2>/dev/null | tee -a "$OUT"

# ---- what every other syscall on the machine pays ----
# The syscall stand-ins watch only their own syscalls' events, but any
# syscall tracepoint makes every syscall take the slow path (and on
# raw_syscalls every syscall runs the programs): getppid() in a loop
# (perf bench), bare and under each.
sys_ns() { perf bench syscall basic -l 1000000 2>/dev/null |
	awk '/usecs\/op/ { printf "%.0f\n", $1 * 1000 }'; }
if command -v perf >/dev/null; then
	for r in $(seq "$ROUNDS"); do
		sys_ns >>"$work/sys.bare"
		"$BHPROF" stat --attach tracepoint -- /bin/sh -c \
			"perf bench syscall basic -l 1000000 >$work/sys.out 2>&1"
		awk '/usecs\/op/ { printf "%.0f\n", $1 * 1000 }' "$work/sys.out" \
			>>"$work/sys.bhprof"
		bpftrace -c "/usr/bin/perf bench syscall basic -l 1000000" \
			"$here/bhprof.bt" "$bh_size" 2>/dev/null |
			awk '/usecs\/op/ { printf "%.0f\n", $1 * 1000 }' >>"$work/sys.bpftrace"
		if [ -n "$BHPROF_BASE" ]; then
			"$BHPROF_BASE" stat --attach tracepoint -- /bin/sh -c \
				"perf bench syscall basic -l 1000000 >$work/sys.out 2>&1"
			awk '/usecs\/op/ { printf "%.0f\n", $1 * 1000 }' \
				"$work/sys.out" >>"$work/sys.base"
		fi
		if [ -n "$FLOOR_EVENTS" ]; then
			under_floor "$work/floor.log" sys_ns >>"$work/sys.floor"
		fi
	done >/dev/null 2>&1
	{
		echo "every other syscall: getppid() ns per call, median of $ROUNDS"
		for t in bare bhprof bpftrace ${BHPROF_BASE:+base} \
			 ${FLOOR_EVENTS:+floor}; do
			printf "  %-10s %s ns\n" $t "$(med <"$work/sys.$t")"
		done
		printf "  bhprof - bare: %s ns (limit +%s)\n" \
			$(($(med <"$work/sys.bhprof") - $(med <"$work/sys.bare"))) \
			"$LIMIT_SYS_NS"
		echo
	} | tee -a "$OUT"
fi

# ---- per-program cost, from the kernel's statistics ----
# One more 4 KiB run with the statistics on for the whole of it (the
# sysctl: bhprof switches them on only with --self-cost).
prev=$(cat /proc/sys/kernel/bpf_stats_enabled)
echo 1 >/proc/sys/kernel/bpf_stats_enabled
# bhprof's programs: those its fds hold (its process, not the keeper
# that parents the command, which holds none)
"$BHPROF" stat --attach tracepoint -d "$name" -- /bin/sh -c \
	"$(fio_cmd 4k cost) >/dev/null 2>&1
	 for id in \$(for p in \$(pgrep -x '$bhprof_comm'); do
			grep -h '^prog_id:' /proc/\$p/fdinfo/* 2>/dev/null
		done | sort -u | cut -f2); do
		bpftool prog show id \$id --json
	 done >$work/progs.json" >/dev/null 2>&1
echo "$prev" >/proc/sys/kernel/bpf_stats_enabled
writes=$(jq '.jobs[0].write.total_ios' "$work/cost.json" 2>/dev/null || echo 0)
[ -s "$work/progs.json" ] || echo "compare: no programs of $bhprof_comm found for the statistics" >&2
{
	echo "bhprof's programs over one 4k run ($writes writes; kernel BPF statistics;"
	echo "limit $LIMIT_PROG_NS ns per write in all)"
	printf "  %-22s %10s %10s %12s\n" program runs "ns/run" "ns/write"
	jq -r 'select(.run_cnt // 0 > 0)
		| "\(.name) \(.run_cnt) \(.run_time_ns)"' "$work/progs.json" |
		sort -k3 -nr | awk -v w="$writes" '{
			printf "  %-22s %10d %10.0f %12.1f\n", $1, $2, $3 / $2, w ? $3 / w : 0
			runs += $2; ns += $3 }
		END { if (runs) printf "  %-22s %10d %10.0f %12.1f\n", "all", runs, ns / runs, w ? ns / w : 0 }'
} | tee -a "$OUT"

# ---- the floor under them: empty programs on the same events ----
# Under the statistics each run also pays their two clock reads
# (sched_clock, costly in a guest): an empty program's ns/run is what
# any program pays there, and only bhprof's figure above it is work.
floor_progs() { # floor's programs, by event: "event runs ns"
	bpftool perf show --json |
		jq -r --argjson p "$FLOOR_PID" \
		'.[] | select(.pid == $p) | "\(.prog_id) \(.tracepoint)"' |
		while read -r id tp; do
			bpftool prog show id "$id" --json |
				jq -r --arg tp "$tp" '"\($tp) \(.run_cnt // 0) \(.run_time_ns // 0)"'
		done
}
floor_cost_run() {
	local cmd

	cmd=$(fio_cmd 4k floorcost)
	$cmd >/dev/null 2>&1 && floor_progs >"$work/floor.progs"
}
if [ -n "$FLOOR_EVENTS" ]; then
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
	under_floor "$work/floor.log" floor_cost_run
	echo "$prev" >/proc/sys/kernel/bpf_stats_enabled
fi
if [ -s "$work/floor.progs" ]; then
	fw=$(jq '.jobs[0].write.total_ios' "$work/floorcost.json" 2>/dev/null || echo 0)
	{
		echo
		echo "the floor: an empty program on each of bhprof's events, over one 4k run"
		echo "($fw writes; kernel BPF statistics)"
		printf "  %-28s %10s %10s %12s\n" event runs "ns/run" "ns/write"
		awk '$2 > 0' "$work/floor.progs" | sort -k3 -nr | awk -v w="$fw" '{
			printf "  %-28s %10d %10.0f %12.1f\n", $1, $2, $3 / $2, w ? $3 / w : 0
			runs += $2; ns += $3 }
			END { if (runs) printf "  %-28s %10d %10.0f %12.1f\n", "all", runs, ns / runs, w ? ns / w : 0 }'
		awk -v w="$writes" -v fw="$fw" '
			FILENAME == ARGV[1] { f += $3; next } { b += $3 }
			END { if (w && fw) printf "  bhprof above the floor: %.1f ns per write\n", b / w - f / fw }' \
			"$work/floor.progs" <(jq -r 'select(.run_cnt // 0 > 0) |
				"\(.name) \(.run_cnt) \(.run_time_ns)"' "$work/progs.json")
	} | tee -a "$OUT"
fi
echo "load average at end $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
