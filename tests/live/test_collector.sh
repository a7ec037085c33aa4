#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The collector on this machine's kernel (tracepoint mode where fentry
# and kprobes are refused): known bytes written to loop devices, raw and
# through ext4 and XFS, must show up on the right path, and bhprof's
# per-device bio bytes must agree with /proc/diskstats within 1%.
. "$(dirname "$0")/lib.sh"
need_root collector

REPO=$(cd "$(dirname "$0")/../.." && pwd)
MIB=16
BYTES=$((MIB * 1048576))

# run CMD under bhprof stat on DEV; leaves JSON in $WORK/out.json and the
# diskstats delta over the same window in $DS
stat_run() { # stat_run DEV CMD...
	local dev=$1
	shift
	sync
	blockdev --flushbufs "$dev" 2>/dev/null
	local before
	closers_done
	before=$(diskstats_bytes "$dev")
	"$BHPROF" stat --json -d "$(basename "$dev")" -- "$@" \
		>"$WORK/out.json" 2>"$WORK/err.txt"
	local rc=$?
	DS=$(($(diskstats_bytes "$dev") - before))
	[ $rc = 0 ] || { cat "$WORK/err.txt"; return 1; }
}

j() { jq -r "$1" "$WORK/out.json"; }

dev_bytes() { j ".devices[] | select(.name == \"$(basename "$1")\") | .bio_bytes"; }

agree() { # agree LABEL DEV
	local b
	b=$(dev_bytes "$2")
	echo "     $1: bhprof device bio bytes $b, /proc/diskstats $DS"
	check "$1: device bio bytes agree with /proc/diskstats within 1%" \
		close_to "${b:-0}" "$DS" 1
}

new_loop 256 || { bad "losetup"; finish; }
RAW=$LOOP
new_loop 256 && EXT=$LOOP
new_loop 512 && XFS=$LOOP
new_loop 256 && BTR=$LOOP

# --- raw block device, buffered then fsync
stat_run "$RAW" dd if=/dev/zero of="$RAW" bs=1M count=$MIB conv=fsync status=none
echo "     raw: mode $(j .attach.write_blkdev), bh bios $(j .paths.bh.bio.count)," \
     "bh allocs $(j .paths.bh.bh_alloc), pages $(j .paths.bh.writeback.pages)"
check "raw: $MIB write calls on bh" [ "$(j .paths.bh.write.calls)" = "$MIB" ]
check "raw: $BYTES bytes written on bh" [ "$(j .paths.bh.write.bytes)" = "$BYTES" ]
check "raw: bh bios carry every byte" [ "$(j .paths.bh.bio.bytes)" -ge "$BYTES" ]
check "raw: nothing on iomap" [ "$(j .paths.iomap.bio.count)" = 0 ]
check "raw: >= one buffer_head per 4 KiB block" \
	[ "$(j .paths.bh.bh_alloc)" -ge $((BYTES / 4096)) ]
check "raw: bh bios are one block each" [ "$(j .paths.bh.bio.size_bytes.p99)" = 4096 ]
check "raw: writeback pages cover the data" \
	[ "$(j .paths.bh.writeback.pages)" -ge $((BYTES / 4096)) ]
agree raw "$RAW"

# the JSON schema README documents is a contract: every key must be there
# (null where a mode cannot see, never missing)
schema_keys='
	.bhprof_version, .kernel.release, .kernel.buffer_head, .kernel.btf,
	.attach.write_blkdev, .attach.write_iomap, .attach.write_generic,
	.attach.writeback_bh, .attach.writeback_iomap, .attach.writeback_ctx,
	.attach.writeback_mpage, .attach.writeback_ext4,
	.attach.bh_alloc, .attach.bio, .probes[0].name, .probes[0].func,
	.probes[0].mode, .probes[0].detail, .duration_s, .interval_s,
	(.paths.bh, .paths.iomap | .write.calls, .write.bytes, .write.errors,
	 .write.mb_per_s, .write.lat_ns.count, .write.lat_ns.p50,
	 .write.lat_ns.p90, .write.lat_ns.p99, .write.lat_ns.max,
	 .write.lat_ns.mean, .direct.calls, .direct.bytes, .direct.lat_ns.p99,
	 .writeback.calls, .writeback.pages, .writeback.pages_per_call,
	 .writeback.engines.block_write_full_folio,
	 .writeback.engines.iomap_writepages,
	 .writeback.lat_ns, .bio.count,
	 .bio.bytes, .bio.mb_per_s, .bio.size_bytes.p50, .bio.size_bytes.p99,
	 .bio.size_bytes.max, .bh_alloc, .bh_per_mib, .bios_per_mib,
	 .bh_per_write_call, .bh_per_wb_page),
	.bh_alloc_total, .bh_alloc_unattributed, .bio_total.count,
	.bio_total.bytes, .lost, .overhead.runs, .overhead.run_ns,
	.overhead.ns_per_run, .overhead.cpu_pct, .devices[0].name,
	.devices[0].dev, .devices[0].bio_count, .devices[0].bio_bytes,
	.devices[0].mb_per_s, .devices[0].paths.bh.bio_count,
	.devices[0].paths.iomap.bio_bytes, .devices[0].paths.other.bio_count,
	.other.write.calls, .other.write.bytes, .other.dio.calls,
	.other.writeback, .other.bio.count, .other.bio.bytes, .other.write_source,
	.devices[0].size_bytes.p50, .devices[0].size_bytes.p99,
	.devices[0].read_bio_count, .devices[0].read_bio_bytes,
	.devices[0].read_mb_per_s, .devices[0].read_size_bytes,
	.devices[0].paths.bh.read_bio_count, .devices[0].paths.iomap.read_bio_bytes,
	(.paths.bh, .paths.iomap | .read.calls, .read.pages, .read.lat_ns,
	 .read_bio.count, .read_bio.bytes, .read_bio.mb_per_s,
	 .read_bio.size_bytes.p50, .read_bh_alloc, .mkwrite.calls,
	 .mkwrite.lat_ns, .dio_fallback.calls, .dio_fallback.bytes),
	.read_bio_total.count, .read_bio_total.bytes, .attach.read_bh_folio,
	.attach.read_iomap_ra, .attach.mkwrite_bh, .attach.dio_fallback,
	.command.argv, .command.exit_status'
# a key under an object that is null (no sample: "lat_ns": null) is
# there if that null is, with its reason in the "why" beside it
absent=$(jq -r ". as \$doc | [path($schema_keys)] |
	map(select(. as \$p | \$doc |
		if getpath(\$p[:-1]) == null and (\$p | length) > 1 then
			getpath(\$p[:-2]) | has(\$p[-2])
		else
			getpath(\$p[:-1]) | (type == \"object\" or type == \"array\") and has(\$p[-1])
		end | not)) |
	map(map(tostring) | join(\".\")) | join(\" \")" "$WORK/out.json" 2>&1)
nkeys=$(jq "[path($schema_keys)] | length" "$WORK/out.json" 2>&1)
check "json: all $nkeys documented keys are present" [ -z "$absent" ]
[ -z "$absent" ] || echo "     missing: $absent"
check "json: tracepoint mode gives null, not 0, for unseen writeback calls" \
	[ "$(j '.attach.writeback_bh != "tracepoint" or .paths.bh.writeback.calls == null')" = true ]

# --- the kernel's BPF statistics: on with --self-cost only. bpftool,
# run as the command, reads what the kernel counted for bhprof's bio
# program so far (the sysctl shows only its own setting, not an fd's).
bio_runs() { jq '[.[] | select(.name == "tp_bio_queue") | .run_cnt // 0] | add // 0' "$WORK/progs.json"; }
# the sysctl, left on by someone else, would count the runs too
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled)
echo 0 >/proc/sys/kernel/bpf_stats_enabled
check "no --self-cost: own cost is null, not 0" \
	[ "$(j '.overhead.runs == null and .overhead.cpu_pct == null and .overhead.measured_s == 0')" = true ]
stat_run "$RAW" sh -c "dd if=/dev/zero of=$RAW bs=1M count=4 conv=fsync status=none; \
	bpftool -j prog show >$WORK/progs.json"
check "no --self-cost: the kernel counts no run of bhprof's programs" \
	[ "$(bio_runs)" = 0 ]
sync
"$BHPROF" stat --json --self-cost -d "$(basename "$RAW")" -- sh -c \
	"dd if=/dev/zero of=$RAW bs=1M count=4 conv=fsync status=none; \
	bpftool -j prog show >$WORK/progs.json" \
	>"$WORK/out.json" 2>"$WORK/err.txt"
echo "     --self-cost: $(j .overhead.runs) runs, $(j .overhead.ns_per_run) ns each," \
     "over $(j .overhead.measured_s) s; bpftool: $(bio_runs) bio program runs"
check "--self-cost: the kernel counts the runs meanwhile" [ "$(bio_runs)" -gt 0 ]
check "--self-cost: runs and time measured" \
	[ "$(j '.overhead.runs > 0 and .overhead.run_ns > 0 and .overhead.measured_s > 0')" = true ]
# program by program: the rows make the whole, and bhprof's bio program
# ran at least as often as the kernel had counted when bpftool looked,
# in the command's last moment (a few journal bios may come after)
own_bio=$(j '[.overhead.programs[] | select(.name == "tp_bio_queue") | .runs] | add // 0')
echo "     --self-cost by program: $(j '.overhead.programs | length') programs ran;" \
     "tp_bio_queue $own_bio runs, bpftool $(bio_runs)"
check "--self-cost: the programs' rows add up to the whole" \
	[ "$(j '([.overhead.programs[].runs] | add) == .overhead.runs and ([.overhead.programs[].run_ns] | add) == .overhead.run_ns')" = true ]
not_fewer_close() { [ "$1" -ge "$2" ] && close_to "$1" "$2" 5; }
check "--self-cost: tp_bio_queue's runs agree with bpftool's ($own_bio, $(bio_runs))" \
	not_fewer_close "$own_bio" "$(bio_runs)"
echo "$stats_was" >/proc/sys/kernel/bpf_stats_enabled

# --- a thread's context entries go when it exits: 200 writers, one after
# another, leave none behind in the kernel's maps, the hash or the slots
# in front of it (bpftool reads them while bhprof still runs)
stat_run "$RAW" sh -c "for i in \$(seq 200); do
		dd if=/dev/zero of=$RAW bs=4k count=1 status=none
	done
	bpftool map dump name threads -j >$WORK/ctx.json
	bpftool map dump name thread_slots -j >$WORK/slots.json"
left=$(jq length "$WORK/ctx.json" 2>/dev/null)
held=$(jq "[.[] | select(.value[0:8] | any(. != \"0x00\"))] | length" "$WORK/slots.json" 2>/dev/null)
echo "     200 writer processes: $(j .paths.bh.write.calls) write calls," \
     "${left:-?} context entries and ${held:-?} slots left"
check "200 writer processes: 200 write calls on bh" [ "$(j .paths.bh.write.calls)" = 200 ]
check "exited writers leave no context entry behind" [ "${left:-999}" -le 2 ]
check "exited writers hold no slot" [ "${held:-999}" -le 2 ]

# --- more threads alive at once than the per-thread map holds (16384):
# past half of it entries go when their last context closes, so none of
# 17,000 writers is lost
if cc -O2 -pthread "$REPO/tests/live/manythreads.c" -o "$WORK/manythreads" \
	2>"$WORK/cc.err"; then
	stat_run "$RAW" sh -c "$WORK/manythreads 17000 $RAW >&2"
	echo "     17000 threads at once: $(j .paths.bh.write.calls) write calls," \
	     "$(j .lost) lost"
	check "17000 threads at once: every write call counted, none lost" \
		[ "$(j '[.paths.bh.write.calls, .lost] == [17000, 0]')" = true ]
else
	bad "cannot build manythreads: $(head -c 300 "$WORK/cc.err")"
fi

# --- raw block device, O_DIRECT
stat_run "$RAW" dd if=/dev/zero of="$RAW" bs=64k count=64 oflag=direct status=none
check "direct: 64 O_DIRECT calls on bh" [ "$(j .paths.bh.direct.calls)" = 64 ]
check "direct: 4 MiB O_DIRECT bytes" [ "$(j .paths.bh.direct.bytes)" = 4194304 ]
check "direct: no buffered calls" [ "$(j .paths.bh.write.calls)" = 0 ]
check "direct: bios attributed to the device's path" \
	[ "$(j .paths.bh.bio.bytes)" = 4194304 ]
agree direct "$RAW"

# --- fio's own count of its writes against bhprof's
stat_run "$RAW" fio --name=w --filename="$RAW" --rw=write --bs=64k --size=8M \
	--ioengine=psync --end_fsync=1 --output-format=json \
	--output="$WORK/fio.json"
fio_ios=$(jq '.jobs[0].write.total_ios' "$WORK/fio.json")
fio_bytes=$(jq '.jobs[0].write.io_bytes' "$WORK/fio.json")
echo "     fio: $fio_ios writes, $fio_bytes bytes; bhprof: $(j .paths.bh.write.calls)" \
     "calls, $(j .paths.bh.write.bytes) bytes"
check "fio: bhprof's write calls equal fio's total_ios" \
	[ "$(j .paths.bh.write.calls)" = "$fio_ios" ]
check "fio: bhprof's write bytes equal fio's io_bytes" \
	[ "$(j .paths.bh.write.bytes)" = "$fio_bytes" ]
agree fio "$RAW"

# --- ext4 file: bh
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$EXT" || bad "mkfs.ext4"
mkdir -p "$WORK/ext4" && mount "$EXT" "$WORK/ext4" && MOUNTS+=("$WORK/ext4")
stat_run "$EXT" dd if=/dev/zero of="$WORK/ext4/f" bs=1M count=$MIB conv=fsync status=none
echo "     ext4: bh bios $(j .paths.bh.bio.count) ($(j .paths.bh.bio.bytes) B)," \
     "iomap bios $(j .paths.iomap.bio.count), bh allocs $(j .paths.bh.bh_alloc)"
check "ext4: write calls on bh" [ "$(j .paths.bh.write.calls)" = "$MIB" ]
check "ext4: data bios on bh" [ "$(j .paths.bh.bio.bytes)" -ge "$BYTES" ]
check "ext4: nothing on iomap" [ "$(j .paths.iomap.bio.count)" = 0 ]
check "ext4: buffer_heads allocated" [ "$(j .paths.bh.bh_alloc)" -gt 0 ]
agree ext4 "$EXT"

# --- XFS file: iomap
mkfs.xfs -q -f "$XFS" || bad "mkfs.xfs"
mkdir -p "$WORK/xfs" && mount "$XFS" "$WORK/xfs" && MOUNTS+=("$WORK/xfs")
stat_run "$XFS" dd if=/dev/zero of="$WORK/xfs/f" bs=1M count=$MIB conv=fsync status=none
echo "     xfs: iomap bios $(j .paths.iomap.bio.count) ($(j .paths.iomap.bio.bytes) B)," \
     "p50 size $(j .paths.iomap.bio.size_bytes.p50), pages $(j .paths.iomap.writeback.pages)"
check "xfs: write calls on iomap" [ "$(j .paths.iomap.write.calls)" = "$MIB" ]
check "xfs: data bios on iomap" [ "$(j .paths.iomap.bio.bytes)" -ge "$BYTES" ]
check "xfs: nothing on bh" [ "$(j .paths.bh.bio.count)" = 0 ]
check "xfs: no buffer_heads on iomap" [ "$(j .paths.iomap.bh_alloc)" = 0 ]
check "xfs: bios larger than one block" [ "$(j .paths.iomap.bio.size_bytes.max)" -gt 4096 ]
check "xfs: writeback pages cover the data" \
	[ "$(j .paths.iomap.writeback.pages)" -ge $((BYTES / 4096)) ]
agree xfs "$XFS"

# --- btrfs file: neither path, the other group's whole (its own
# writeback engine, bios from its workers: none of it a path's)
mkfs.btrfs -q -f "$BTR" >/dev/null || bad "mkfs.btrfs"
mkdir -p "$WORK/btrfs" && mount "$BTR" "$WORK/btrfs" && MOUNTS+=("$WORK/btrfs")
stat_run "$BTR" dd if=/dev/zero of="$WORK/btrfs/f" bs=1M count=$MIB conv=fsync status=none
echo "     btrfs: other write calls $(j .other.write.calls) ($(j .other.write.bytes) B)," \
     "other bios $(j .other.bio.count) ($(j .other.bio.bytes) B), source: $(j .other.write_source)"
check "btrfs: $MIB write calls on other" [ "$(j .other.write.calls)" = "$MIB" ]
check "btrfs: $BYTES bytes written on other" [ "$(j .other.write.bytes)" = "$BYTES" ]
check "btrfs: no write call on either path" \
	[ "$(j '.paths.bh.write.calls + .paths.iomap.write.calls')" = 0 ]
check "btrfs: its data in other's bios" [ "$(j .other.bio.bytes)" -ge "$BYTES" ]
check "btrfs: bh + iomap + other bios are the device's" \
	[ "$(j '.paths.bh.bio.bytes + .paths.iomap.bio.bytes + .other.bio.bytes')" = "$(dev_bytes "$BTR")" ]
agree btrfs "$BTR"

# --- two writers at once, on two devices; bhprof splits them. Then with
# one device slot per CPU (BHPROF_DEV_SLOTS=1, a test knob): every row
# but the first of a CPU goes to the hash, and the two add up per device
for slots in 64 1; do
	sync
	b1=$(diskstats_bytes "$RAW")
	b2=$(diskstats_bytes "$XFS")
	BHPROF_DEV_SLOTS=$slots "$BHPROF" stat --json -d "$(basename "$RAW")" \
		-d "$(basename "$XFS")" -- sh -c \
		"dd if=/dev/zero of=$RAW bs=1M count=8 conv=fsync status=none &
		 dd if=/dev/zero of=$WORK/xfs/g bs=1M count=8 conv=fsync status=none
		 wait" >"$WORK/out.json" 2>"$WORK/err.txt"
	DS=$(($(diskstats_bytes "$RAW") - b1))
	agree "two writers, $slots slots, raw" "$RAW"
	DS=$(($(diskstats_bytes "$XFS") - b2))
	agree "two writers, $slots slots, xfs" "$XFS"
	check "two writers, $slots slots: one row per device, its paths adding up" \
		[ "$(j '[.devices[].name] | length == (unique | length)')" = true ] &&
		[ "$(j '[.devices[] | .bio_bytes == ([.paths[].bio_bytes] | add)] | all')" = true ]
	check "two writers, $slots slots: bh saw the raw device's 8 MiB" \
		[ "$(j .paths.bh.write.bytes)" = 8388608 ]
	check "two writers, $slots slots: iomap saw XFS's 8 MiB" \
		[ "$(j .paths.iomap.write.bytes)" = 8388608 ]
done

# --- reads: a cold raw read, on the device's path, against diskstats
diskstats_read_bytes() {
	awk -v d="$(basename "$1")" '$3 == d { printf "%.0f\n", $6 * 512 }' \
		/proc/diskstats
}
sync
blockdev --flushbufs "$RAW"
echo 3 > /proc/sys/vm/drop_caches
r0=$(diskstats_read_bytes "$RAW")
"$BHPROF" stat --json -d "$(basename "$RAW")" -- \
	dd if="$RAW" of=/dev/null bs=1M count=$MIB status=none \
	>"$WORK/out.json" 2>"$WORK/err.txt"
sleep 0.5	# async readahead the reader did not wait for
DS=$(($(diskstats_read_bytes "$RAW") - r0))
rp=$(j 'if .kernel.buffer_head == false then "iomap" else "bh" end')
rb=$(j ".devices[] | select(.name == \"$(basename "$RAW")\") | .read_bio_bytes")
echo "     raw read: path $rp, $(j ".paths.$rp.read_bio.count") read bios of" \
     "$rb B, $(j ".paths.$rp.read.pages") pages, diskstats $DS B read"
check "raw read: device read bytes agree with /proc/diskstats within 1%" \
	close_to "${rb:-0}" "$DS" 1
check "raw read: $rp read bios carry every byte read" \
	[ "$(j ".paths.$rp.read_bio.bytes")" -ge "$BYTES" ]
check "raw read: read pages cover the data" \
	[ "$(j ".paths.$rp.read.pages")" -ge $((BYTES / 4096)) ]
check "raw read: no write bios, no read on the other path" \
	[ "$(j '.bio_total.count')" = 0 ] &&
	[ "$(j ".paths | del(.$rp) | .[].read_bio.count")" = 0 ]
check "raw read: unseen read calls and page_mkwrite are null, not 0" \
	[ "$(j '(.attach.read_bh_ra != "tracepoint" or .paths.bh.read.calls == null) and
		(.attach.mkwrite_bh != "none" or .paths.bh.mkwrite.calls == null)')" = true ]

finish
